// WhitespaceSplit pre-tokenizer: cuts at every whitespace char (Rust
// char::is_whitespace), which is dropped.
//
//   "Hello,  world!" -> "Hello," "world!"
#pragma once

#include "snaptok/pre_tokenizers/char_cut.hpp"

namespace snaptok {

class WhitespaceSplitPreTokenizer final : public CharCutPreTokenizer {
 public:
  explicit WhitespaceSplitPreTokenizer(const detail::Json&)
      : CharCutPreTokenizer(Members::whitespace, SplitBehavior::removed) {}
};

}  // namespace snaptok
