// Punctuation pre-tokenizer: cuts at every punctuation char (ASCII
// punctuation or Unicode P*), keeping it per `behavior` (default Isolated).
//
//   Isolated: "Hey!! you" -> "Hey" "!" "!" " you"
#pragma once

#include "snaptok/pre_tokenizers/char_cut.hpp"
#include "snaptok/pre_tokenizers/char_pattern.hpp"

namespace snaptok {

class PunctuationPreTokenizer final : public CharCutPreTokenizer {
 public:
  explicit PunctuationPreTokenizer(const detail::Json& json)
      : CharCutPreTokenizer(Members::punctuation, behavior_of(json)) {}

  SplitBehavior behavior() const noexcept { return behavior_; }

 private:
  static SplitBehavior behavior_of(const detail::Json& json) {
    const auto b = find_defaulted(json, "behavior");
    return b ? parse_split_behavior(*b) : SplitBehavior::isolated;
  }
};

}  // namespace snaptok
