// BertPreTokenizer: cuts at whitespace (Rust char::is_whitespace, dropped)
// and isolates every punctuation char (ASCII punctuation or Unicode P*).
//
//   "Hello, world!" -> "Hello" "," "world" "!"
#pragma once

#include <vector>

#include "snaptok/pre_tokenizers/pre_tokenizer.hpp"
#include "snaptok/unicode/properties.hpp"

namespace snaptok {

class BertPreTokenizer final : public PreTokenizer {
 public:
  explicit BertPreTokenizer(const detail::Json&) {}

  // HF runs two passes (split on whitespace, Removed; then on punctuation,
  // Isolated); one pass that slices each final piece once gives the same
  // pieces, alignments and original offsets.
  void pre_tokenize(PreTokenizedString& pts) const override {
    pts.split_normalized([](std::size_t, NormalizedString&& ns,
                            std::vector<NormalizedString>& out) {
      const std::string& s = ns.get();
      std::size_t run = 0;
      for (std::size_t i = 0; i < s.size();) {
        const std::size_t at = i;
        const char32_t c = detail::next_cp(s, i);
        const bool space = unicode::is_whitespace(c);
        if (!space && !unicode::bert_is_punctuation(c)) continue;
        if (run < at) out.push_back(ns.slice(run, at));
        if (!space) out.push_back(ns.slice(at, i));
        run = i;
      }
      if (run < s.size()) out.push_back(ns.slice(run, s.size()));
    });
  }
};

}  // namespace snaptok
