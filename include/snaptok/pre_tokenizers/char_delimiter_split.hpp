// CharDelimiterSplit pre-tokenizer: cuts at every occurrence of one
// `delimiter` char, which is dropped.
//
//   delimiter "-": "a-b--c" -> "a" "b" "c"
#pragma once

#include <vector>

#include "snaptok/pre_tokenizers/char_pattern.hpp"
#include "snaptok/pre_tokenizers/pre_tokenizer.hpp"

namespace snaptok {

class CharDelimiterSplitPreTokenizer final : public CuttingPreTokenizer {
 public:
  explicit CharDelimiterSplitPreTokenizer(const detail::Json& json)
      : delimiter_(single_char(json.at("delimiter"))) {}

  char32_t delimiter() const noexcept { return delimiter_; }

  std::vector<PatternMatch> matches(std::string_view text) const override {
    return find_char_matches(text, [&](char32_t c) { return c == delimiter_; });
  }
  SplitBehavior cut_behavior() const override { return SplitBehavior::removed; }

 private:
  char32_t delimiter_;
};

}  // namespace snaptok
