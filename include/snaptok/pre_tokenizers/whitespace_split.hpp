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

class WhitespaceSplitPreTokenizer final : public PreTokenizer {
 public:
  explicit WhitespaceSplitPreTokenizer(const detail::Json&) {}

  void pre_tokenize(PreTokenizedString& pts) const override {
    pts.split_normalized([](std::size_t, NormalizedString&& ns,
                            std::vector<NormalizedString>& out) {
      ns.split(find_char_matches(ns.get(), [](char32_t c) { return unicode::is_whitespace(c); }),
               SplitBehavior::removed, out);
    });
  }
};

}  // namespace snaptok
