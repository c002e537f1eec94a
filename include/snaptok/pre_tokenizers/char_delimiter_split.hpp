// CharDelimiterSplit pre-tokenizer: cuts at every occurrence of one
// `delimiter` char, which is dropped.
//
//   delimiter "-": "a-b--c" -> "a" "b" "c"
#pragma once

#include <vector>

#include "snaptok/pre_tokenizers/char_pattern.hpp"
#include "snaptok/pre_tokenizers/pre_tokenizer.hpp"

namespace snaptok {

class CharDelimiterSplitPreTokenizer final : public PreTokenizer {
 public:
  explicit CharDelimiterSplitPreTokenizer(const detail::Json& json)
      : delimiter_(single_char(json.at("delimiter"))) {}

  char32_t delimiter() const noexcept { return delimiter_; }

  void pre_tokenize(PreTokenizedString& pts) const override {
    pts.split_normalized([&](std::size_t, NormalizedString&& ns,
                             std::vector<NormalizedString>& out) {
      ns.split(find_char_matches(ns.get(), [&](char32_t c) { return c == delimiter_; }),
               SplitBehavior::removed, out);
    });
  }

 private:
  char32_t delimiter_;
};

}  // namespace snaptok
