// Whitespace pre-tokenizer: the pieces are the matches of the Rust regex
// `\w+|[^\w\s]+`, i.e. maximal runs of word chars and maximal runs of chars
// that are neither word chars nor whitespace; whitespace is dropped.
//
//   "Hello, world!!" -> "Hello" "," "world" "!!"
#pragma once

#include <vector>

#include "snaptok/pre_tokenizers/pre_tokenizer.hpp"
#include "snaptok/unicode/properties.hpp"

namespace snaptok {

// Returns the partition of `text` into the matches of `\w+|[^\w\s]+` (Rust
// regex classes) and the whitespace runs between them.
inline std::vector<PatternMatch> find_whitespace_matches(std::string_view text) {
  std::vector<PatternMatch> out;
  if (text.empty()) {
    out.push_back({0, 0, false});
    return out;
  }
  enum Class { kWord, kSpace, kOther };
  auto class_of = [](char32_t c) {
    if (unicode::is_word_char(c)) return kWord;
    if (unicode::is_regex_space(c)) return kSpace;
    return kOther;
  };
  std::size_t i = 0;
  std::size_t run_start = 0;
  Class run = class_of(detail::next_cp(text, i));
  while (i < text.size()) {
    const std::size_t at = i;
    const Class c = class_of(detail::next_cp(text, i));
    if (c != run) {
      out.push_back({run_start, at, run != kSpace});
      run_start = at;
      run = c;
    }
  }
  out.push_back({run_start, text.size(), run != kSpace});
  return out;
}

class WhitespacePreTokenizer final : public CuttingPreTokenizer {
 public:
  explicit WhitespacePreTokenizer(const detail::Json&) {}

  // HF splits on Invert(regex) with Removed: the gaps are the delimiters.
  std::vector<PatternMatch> matches(std::string_view text) const override {
    std::vector<PatternMatch> found = find_whitespace_matches(text);
    for (PatternMatch& m : found) m.is_match = !m.is_match;
    return found;
  }
  SplitBehavior cut_behavior() const override { return SplitBehavior::removed; }
};

}  // namespace snaptok
