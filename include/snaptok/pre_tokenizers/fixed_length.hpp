// FixedLength pre-tokenizer: cuts the text into pieces of `length` chars
// (default 5); the last piece may be shorter.
//
//   length 3: "Hello world" -> "Hel" "lo " "wor" "ld"
#pragma once

#include <string>
#include <vector>

#include "snaptok/pre_tokenizers/char_pattern.hpp"
#include "snaptok/pre_tokenizers/pre_tokenizer.hpp"

namespace snaptok {

class FixedLengthPreTokenizer final : public PreTokenizer {
 public:
  // A length of 0 loads (as in HF) but fails on the first non-empty text.
  explicit FixedLengthPreTokenizer(const detail::Json& json) {
    if (auto l = find_defaulted(json, "length")) {
      length_ = l->u64();
      path_ = l->path();
    }
  }

  std::size_t length() const noexcept { return length_; }

  void pre_tokenize(PreTokenizedString& pts) const override {
    pts.split_normalized([&](std::size_t, NormalizedString&& ns,
                             std::vector<NormalizedString>& out) {
      const std::string& s = ns.get();
      if (s.empty()) return;
      if (length_ == 0) throw Error(path_ + ": FixedLength length must be non-zero");
      std::size_t start = 0;
      std::size_t chars = 0;
      for (std::size_t i = 0; i < s.size();) {
        i += detail::utf8_len(static_cast<unsigned char>(s[i]));
        if (++chars == length_) {
          out.push_back(ns.slice(start, i));
          start = i;
          chars = 0;
        }
      }
      if (start < s.size()) out.push_back(ns.slice(start, s.size()));
    });
  }

 private:
  std::size_t length_ = 5;
  std::string path_ = "pre_tokenizer";
};

}  // namespace snaptok
