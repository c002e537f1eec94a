// Punctuation pre-tokenizer: cuts at every punctuation char (ASCII
// punctuation or Unicode P*), keeping it per `behavior` (default Isolated).
//
//   Isolated: "Hey!! you" -> "Hey" "!" "!" " you"
#pragma once

#include <vector>

#include "snaptok/pre_tokenizers/char_pattern.hpp"
#include "snaptok/pre_tokenizers/pre_tokenizer.hpp"
#include "snaptok/unicode/properties.hpp"

namespace snaptok {

class PunctuationPreTokenizer final : public CuttingPreTokenizer {
 public:
  explicit PunctuationPreTokenizer(const detail::Json& json) {
    if (auto b = find_defaulted(json, "behavior")) behavior_ = parse_split_behavior(*b);
  }

  SplitBehavior behavior() const noexcept { return behavior_; }

  std::vector<PatternMatch> matches(std::string_view text) const override {
    return find_char_matches(text, [](char32_t c) { return unicode::is_punctuation(c); });
  }
  SplitBehavior cut_behavior() const override { return behavior_; }

 private:
  SplitBehavior behavior_ = SplitBehavior::isolated;
};

}  // namespace snaptok
