// snaptok::AddedToken, one entry of tokenizer.json's "added_tokens" (HF
// AddedToken) as a plain value. Light on purpose: the public tokenizer.hpp
// includes it. Matching added tokens in text is in added_tokens.hpp.
#pragma once

#include <string>

namespace snaptok {

/// A token matched in the raw text before the model runs.
///
///   snaptok::AddedToken{.content = "<|im_start|>", .normalized = false, .special = true}
struct AddedToken {
  std::string content;
  bool single_word = false;  // dropped where it touches a word char (\w)
  bool lstrip = false;       // swallows the whitespace on its left
  bool rstrip = false;       // swallows the whitespace on its right
  bool normalized = true;    // matched on the normalized text, not the raw text
  bool special = false;      // skipped by decode(skip_special_tokens)

  friend bool operator==(const AddedToken&, const AddedToken&) = default;
};

}  // namespace snaptok
