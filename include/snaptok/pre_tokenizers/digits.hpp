// Digits pre-tokenizer: cuts numeric chars (Rust char::is_numeric) from the
// rest; `individual_digits` isolates each one, otherwise runs stay together.
//
//   individual_digits=false: "Call 123" -> "Call " "123"
//   individual_digits=true:  "Call 123" -> "Call " "1" "2" "3"
#pragma once

#include <vector>

#include "snaptok/pre_tokenizers/char_pattern.hpp"
#include "snaptok/pre_tokenizers/pre_tokenizer.hpp"
#include "snaptok/unicode/properties.hpp"

namespace snaptok {

class DigitsPreTokenizer final : public PreTokenizer {
 public:
  explicit DigitsPreTokenizer(const detail::Json& json)
      : individual_digits_(json.at("individual_digits").boolean()) {}

  bool individual_digits() const noexcept { return individual_digits_; }

  void pre_tokenize(PreTokenizedString& pts) const override {
    const SplitBehavior behavior =
        individual_digits_ ? SplitBehavior::isolated : SplitBehavior::contiguous;
    pts.split_normalized([&](std::size_t, NormalizedString&& ns,
                             std::vector<NormalizedString>& out) {
      ns.split(find_char_matches(ns.get(), [](char32_t c) { return unicode::is_numeric(c); }),
               behavior, out);
    });
  }

 private:
  bool individual_digits_;
};

}  // namespace snaptok
