// Digits pre-tokenizer: cuts numeric chars (Rust char::is_numeric) from the
// rest; `individual_digits` isolates each one, otherwise runs stay together.
//
//   individual_digits=false: "Call 123" -> "Call " "123"
//   individual_digits=true:  "Call 123" -> "Call " "1" "2" "3"
#pragma once

#include "snaptok/pre_tokenizers/char_cut.hpp"

namespace snaptok {

class DigitsPreTokenizer final : public CharCutPreTokenizer {
 public:
  explicit DigitsPreTokenizer(const detail::Json& json) : DigitsPreTokenizer(json.at("individual_digits").boolean()) {}

  bool individual_digits() const noexcept { return behavior_ == SplitBehavior::isolated; }

 private:
  explicit DigitsPreTokenizer(bool individual)
      : CharCutPreTokenizer(Members::numeric, individual ? SplitBehavior::isolated : SplitBehavior::contiguous) {}
};

}  // namespace snaptok
