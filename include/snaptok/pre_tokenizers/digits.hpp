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

class DigitsPreTokenizer final : public CuttingPreTokenizer {
 public:
  explicit DigitsPreTokenizer(const detail::Json& json)
      : individual_digits_(json.at("individual_digits").boolean()) {}

  bool individual_digits() const noexcept { return individual_digits_; }

  std::vector<PatternMatch> matches(std::string_view text) const override {
    return find_char_matches(text, [](char32_t c) { return unicode::is_numeric(c); });
  }
  SplitBehavior cut_behavior() const override {
    return individual_digits_ ? SplitBehavior::isolated : SplitBehavior::contiguous;
  }

 private:
  bool individual_digits_;
};

}  // namespace snaptok
