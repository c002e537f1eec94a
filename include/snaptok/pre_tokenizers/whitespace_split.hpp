// WhitespaceSplit pre-tokenizer: cuts at every whitespace char (Rust
// char::is_whitespace), which is dropped.
//
//   "Hello,  world!" -> "Hello," "world!"
#pragma once

#include <vector>

#include "snaptok/pre_tokenizers/char_pattern.hpp"
#include "snaptok/pre_tokenizers/pre_tokenizer.hpp"
#include "snaptok/unicode/properties.hpp"

namespace snaptok {

class WhitespaceSplitPreTokenizer final : public CuttingPreTokenizer {
 public:
  explicit WhitespaceSplitPreTokenizer(const detail::Json&) {}

  std::vector<PatternMatch> matches(std::string_view text) const override {
    return find_char_matches(text, [](char32_t c) { return unicode::is_whitespace(c); });
  }
  SplitBehavior cut_behavior() const override { return SplitBehavior::removed; }
};

}  // namespace snaptok
