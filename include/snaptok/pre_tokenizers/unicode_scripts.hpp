// UnicodeScripts pre-tokenizer: cuts where the Unicode script changes, as
// SentencePiece does. Hiragana, Katakana and U+30FC count as Han; ' ' (and
// code points HF's table does not list) belong to no script ("Any") and stick
// to the piece before them. Leading Any chars of a split are dropped, and a
// split made only of them disappears, as in HF.
//
//   "Hello Привет 日本語" -> "Hello " "Привет " "日本語"
#pragma once

#include <vector>

#include "snaptok/pre_tokenizers/pre_tokenizer.hpp"
#include "snaptok/unicode/properties.hpp"

namespace snaptok {

class UnicodeScriptsPreTokenizer final : public PreTokenizer {
 public:
  explicit UnicodeScriptsPreTokenizer(const detail::Json&) {}

  void pre_tokenize(PreTokenizedString& pts) const override {
    pts.split_normalized([](std::size_t, NormalizedString&& ns,
                            std::vector<NormalizedString>& out) {
      const std::string& s = ns.get();
      constexpr unsigned kNone = ~0u;  // no script seen yet
      unsigned last = kNone;
      std::size_t piece = s.size();  // start of the open piece, if any
      for (std::size_t i = 0; i < s.size();) {
        const std::size_t at = i;
        const unsigned script = unicode::script_of(detail::next_cp(s, i));
        if (script == unicode::kScriptAny) continue;
        if (last != script) {
          if (piece < at) out.push_back(ns.slice(piece, at));
          piece = at;
        }
        last = script;
      }
      if (piece < s.size()) out.push_back(ns.slice(piece, s.size()));
    });
  }
};

}  // namespace snaptok
