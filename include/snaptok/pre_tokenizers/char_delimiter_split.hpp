// CharDelimiterSplit pre-tokenizer: cuts at every occurrence of one
// `delimiter` char, which is dropped.
//
//   delimiter "-": "a-b--c" -> "a" "b" "c"
#pragma once

#include "snaptok/pre_tokenizers/char_cut.hpp"
#include "snaptok/pre_tokenizers/char_pattern.hpp"

namespace snaptok {

class CharDelimiterSplitPreTokenizer final : public CharCutPreTokenizer {
 public:
  explicit CharDelimiterSplitPreTokenizer(const detail::Json& json)
      : CharCutPreTokenizer(Members::delimiter, SplitBehavior::removed, single_char(json.at("delimiter"))) {}

  char32_t delimiter() const noexcept { return delimiter_; }
};

}  // namespace snaptok
