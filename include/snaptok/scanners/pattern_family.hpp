// Recognises a Split pattern by its structure as a member of the families
// the hand-written scanners reproduce: the cl100k/o200k family (the
// SplitRules of split_family.hpp) and GPT-2's (gpt2.hpp). A pattern is
// parsed (pattern_ast.hpp), each top-level alternative rendered in the
// canonical text that respellings share, and the alternatives matched in
// order against the family's slots, each slot against the canonical texts
// of the spellings it may take (themselves parsed from the strings below):
//
//   split family:  [\p{Han}]+ ?  contractions ?  letters  digits  punct  spaces
//   GPT-2:         contractions  ' ?\p{L}+'  ' ?\p{N}+' or ' ?\p{N}'  punct  spaces
//
// Only rewritings Oniguruma provably matches alike are taken (besides
// those render() folds):
//  - a possessive repeat that only nullable, assertion-free elements of a
//    top-level alternative follow is the greedy one: greedy's first try
//    (the most repeats) already completes the match, so it never gives
//    anything back (tiktoken's \p{L}++ and [\r\n]*+);
//  - the contractions 's 't 're 've 'm 'll 'd may be spelt in any order and
//    grouping ('(?i:[sdmt]|ll|ve|re), or as leading top-level alternatives):
//    none is a prefix of another, so at most one matches at any position;
//  - \p{N}{1,k} repeated, (?:\p{N}{1,k})+ (Ruby syntax's reading of
//    tiktoken's \p{N}{1,3}+), is \p{N}+ at the end of an alternative;
//  - \s*[\r\n]+ is \s*[\r\n] (the \s* backtracks to the run's last CR/LF,
//    after which no CR/LF follows in the run), and a final \s+ after
//    \s+(?!\S) is \s (that fails only on one space before a non-space);
//    \s++$ is \s++\z (after the maximal \s++ no "\n" can follow).
// Anything else, say \p{N}{2,3}, a missing \s+(?!\S), an extra
// alternative or (?i) on the letters, is not recognised and runs on
// Oniguruma: slow but exact.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "snaptok/scanners/gpt2.hpp"
#include "snaptok/scanners/pattern_ast.hpp"
#include "snaptok/scanners/split_family.hpp"

namespace snaptok::scanners {

/// What match_family() found: the family and its parameters.
struct FamilyMatch {
  enum class Family : std::uint8_t { kSplit, kGpt2 };
  Family family;
  SplitRules rules{};               // kSplit
  bool gpt2_single_digits = false;  // kGpt2: ` ?\p{N}` for ` ?\p{N}+`
};

namespace family_detail {

using pattern::Node;

inline bool has_assert(const Node& n) {
  if (n.kind == Node::Kind::kAssert) return true;
  for (const Node& k : n.kids) {
    if (has_assert(k)) return true;
  }
  return false;
}

// Makes greedy each possessive repeat of top-level alternative `alt` that
// only nullable, assertion-free elements follow (see the header comment).
inline void relax_possessive_tail(Node& alt) {
  if (alt.kind == Node::Kind::kRepeat) {
    alt.possessive = false;
    return;
  }
  if (alt.kind != Node::Kind::kSeq) return;
  for (std::size_t j = alt.kids.size(); j-- > 0;) {
    Node& k = alt.kids[j];
    if (k.kind == Node::Kind::kRepeat) k.possessive = false;
    const bool nullable = k.kind == Node::Kind::kRepeat && k.min == 0 && !has_assert(k);
    if (!nullable) break;
  }
}

// The top-level alternatives of `pattern`, each relaxed; nullopt when it
// does not parse.
inline std::optional<std::vector<Node>> alternatives(std::string_view pattern) {
  std::optional<Node> tree = pattern::parse(pattern);
  if (!tree) return std::nullopt;
  std::vector<Node> alts;
  if (tree->kind == Node::Kind::kAlt) {
    alts = std::move(tree->kids);
  } else {
    alts.push_back(std::move(*tree));
  }
  for (Node& a : alts) relax_possessive_tail(a);
  return alts;
}

// Returns the canonical text of the one-alternative pattern `spelling`.
inline std::string canonical(std::string_view spelling) {
  std::optional<std::vector<Node>> alts = alternatives(spelling);
  return alts && alts->size() == 1 ? pattern::render((*alts)[0]) : std::string("<unparsed>");
}

// Strings of (char, folded) pairs: a finite language of literal chars.
using Word = std::vector<std::pair<char32_t, bool>>;

// Adds to `out` the strings `n` matches when it is a finite choice of
// ASCII literal strings (alternations, sequences, literal lists); returns
// false otherwise.
inline bool literal_words(const Node& n, std::vector<Word>& out) {
  switch (n.kind) {
    case Node::Kind::kAtom: {
      if (n.chars.empty()) return false;
      for (char32_t c : n.chars) {
        if (c >= 0x80) return false;
        out.push_back({{c, n.fold}});
      }
      return true;
    }
    case Node::Kind::kAlt:
      for (const Node& k : n.kids) {
        if (!literal_words(k, out)) return false;
      }
      return true;
    case Node::Kind::kSeq: {
      std::vector<Word> acc{Word{}};
      for (const Node& k : n.kids) {
        std::vector<Word> part;
        if (!literal_words(k, part)) return false;
        std::vector<Word> next;
        for (const Word& a : acc) {
          for (const Word& b : part) {
            Word w = a;
            w.insert(w.end(), b.begin(), b.end());
            next.push_back(std::move(w));
          }
        }
        if (next.size() > 64) return false;
        acc = std::move(next);
      }
      out.insert(out.end(), acc.begin(), acc.end());
      return true;
    }
    default:
      return false;
  }
}

// Returns true when `words` are exactly 's 't 're 've 'm 'll 'd, each once,
// their letters under (?i) when `folded`, else not.
inline bool is_contraction_set(std::vector<Word> words, bool folded) {
  static constexpr std::array<std::string_view, 7> kWant = {"'d", "'ll", "'m", "'re", "'s", "'t", "'ve"};
  std::vector<std::string> got;
  for (const Word& w : words) {
    std::string t;
    for (const auto& [c, fold] : w) {
      if (pattern::detail::ascii_letter(c) ? fold != folded || c < 'a' : fold) return false;
      t += static_cast<char>(c);
    }
    got.push_back(std::move(t));
  }
  std::sort(got.begin(), got.end());
  return std::equal(got.begin(), got.end(), kWant.begin(), kWant.end());
}

// The leading top-level alternatives from `i` that spell the contractions
// together (letters `folded` or not): returns the index after them, or i.
inline std::size_t contraction_run(const std::vector<Node>& alts, std::size_t i, bool folded) {
  std::vector<Word> words;
  std::size_t j = i;
  while (j < alts.size() && literal_words(alts[j], words)) {
    ++j;
    if (is_contraction_set(words, folded)) return j;
  }
  return i;
}

// Returns true when `n` (nothing after it) is `(?i:'s|'t|...)?`.
inline bool is_optional_contraction(const Node& n) {
  if (n.kind != Node::Kind::kRepeat || n.min != 0 || n.max != 1 || n.lazy) return false;
  std::vector<Word> words;
  return literal_words(n.kids[0], words) && is_contraction_set(words, true);
}

// Returns the digit rule of alternative `n`: the k of \p{N}{1,k} (1 for
// \p{N}), 0 for \p{N}+ or (?:\p{N}{1,k})+, or -1.
inline int digits_of(const Node& n) {
  auto is_n = [](const Node& a) { return a.kind == Node::Kind::kAtom && !a.fold && a.text == "\\p{N}"; };
  if (is_n(n)) return 1;
  if (n.kind != Node::Kind::kRepeat || n.lazy || n.possessive || n.min != 1) return -1;
  const Node& k = n.kids[0];
  if (is_n(k)) return n.max < 0 ? 0 : n.max <= 16 ? n.max : -1;
  if (n.max < 0 && k.kind == Node::Kind::kRepeat && !k.lazy && !k.possessive && k.min == 1 && k.max >= 1 &&
      is_n(k.kids[0])) {
    return 0;
  }
  return -1;
}

// Matches the whitespace alternatives from `i` to the end; sets `to_end`
// for tiktoken's leading \s++$.
inline bool space_tail(const std::vector<std::string>& r, std::size_t i, bool split_family, bool& to_end) {
  static const std::string kToEnd = canonical(R"(\s++$)"), kToEndZ = canonical(R"(\s++\z)"),
                           kNewline = canonical(R"(\s*[\r\n])"), kNewlines = canonical(R"(\s*[\r\n]+)"),
                           kNotLast = canonical(R"(\s+(?!\S))"), kRun = canonical(R"(\s+)"),
                           kOne = canonical(R"(\s)");
  to_end = i < r.size() && (r[i] == kToEnd || r[i] == kToEndZ);
  if (to_end) ++i;
  if (split_family) {
    if (i >= r.size() || (r[i] != kNewline && r[i] != kNewlines)) return false;
    ++i;
  }
  return i + 2 == r.size() && r[i] == kNotLast && (r[i + 1] == kRun || r[i + 1] == kOne);
}

inline std::optional<FamilyMatch> match_gpt2(const std::vector<Node>& alts, const std::vector<std::string>& r) {
  static const std::string kLetters = canonical(R"( ?\p{L}+)"), kDigits = canonical(R"( ?\p{N}+)"),
                           kDigit = canonical(R"( ?\p{N})"), kPunct = canonical(R"( ?[^\s\p{L}\p{N}]+)");
  std::size_t i = contraction_run(alts, 0, false);
  if (i == 0 || i + 3 > r.size() || r[i] != kLetters) return std::nullopt;
  FamilyMatch m{FamilyMatch::Family::kGpt2};
  if (r[i + 1] == kDigit) {
    m.gpt2_single_digits = true;
  } else if (r[i + 1] != kDigits) {
    return std::nullopt;
  }
  bool to_end = false;
  if (r[i + 2] != kPunct || !space_tail(r, i + 3, false, to_end)) return std::nullopt;
  return m;
}

// Returns the canonical text of a case-split alternative of o200k's (the
// first or the second), with or without Kimi's Han exclusion.
inline const std::string& case_split_spelling(bool second, bool no_han) {
  static const std::array<std::string, 4> kSpellings = {
      canonical(R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+)"),
      canonical(R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*)"),
      canonical(
          R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]*[\p{Ll}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]+)"),
      canonical(
          R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]+[\p{Ll}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]*)"),
  };
  return kSpellings[(no_han ? 2 : 0) + (second ? 1 : 0)];
}

// Matches o200k's case-split pair at alts[i], alts[i + 1]; sets `suffix`
// when both end in the optional contractions.
inline bool case_split_pair(const std::vector<Node>& alts, std::size_t i, bool no_han, bool& suffix) {
  if (i + 1 >= alts.size()) return false;
  int suffixes = 0;
  for (std::size_t k = 0; k < 2; ++k) {
    Node a = alts[i + k];
    if (a.kind == Node::Kind::kSeq && !a.kids.empty() && is_optional_contraction(a.kids.back())) {
      a.kids.pop_back();
      ++suffixes;
    }
    if (pattern::render(a) != case_split_spelling(k == 1, no_han)) return false;
  }
  if (suffixes == 1) return false;
  suffix = suffixes == 2;
  return true;
}

inline std::optional<FamilyMatch> match_split(const std::vector<Node>& alts, const std::vector<std::string>& r) {
  static const std::string kHan = canonical(R"([\p{Han}]+)"),
                           kLetters = canonical(R"([^\r\n\p{L}\p{N}]?\p{L}+)"),
                           kLettersTiktoken = canonical(R"([^\r\n\p{L}\p{N}]?+\p{L}++)"),
                           kLettersMarks = canonical(R"([^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+)");
  static const std::array<std::string, 4> kPunct = {
      canonical(R"( ?[^\s\p{L}\p{N}]+[\r\n]*)"), canonical(R"( ?[^\s\p{L}\p{N}]+[\r\n/]*)"),
      canonical(R"( ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*)"), canonical(R"( ?[^\s\p{L}\p{M}\p{N}]+[\r\n/]*)")};
  SplitRules rules{Contraction::kNone, Letters::kL, false, 0, false, false, false};
  std::size_t i = 0;
  if (i < r.size() && r[i] == kHan) {
    rules.han_first = true;
    ++i;
  }
  if (const std::size_t j = contraction_run(alts, i, true); j != i) {
    rules.contraction = Contraction::kLeading;
    i = j;
  }
  bool suffix = false;
  if (i < r.size() && (r[i] == kLetters || r[i] == kLettersTiktoken)) {
    rules.letters = Letters::kL;
    ++i;
  } else if (i < r.size() && r[i] == kLettersMarks) {
    rules.letters = Letters::kLM;
    ++i;
  } else if (case_split_pair(alts, i, rules.han_first, suffix)) {
    rules.letters = Letters::kCaseSplit;
    i += 2;
  } else {
    return std::nullopt;
  }
  if (suffix) rules.contraction = Contraction::kSuffix;
  if (i >= r.size()) return std::nullopt;
  const int digits = digits_of(alts[i++]);
  if (digits < 0) return std::nullopt;
  rules.max_digits = static_cast<std::uint8_t>(digits);
  std::size_t punct = kPunct.size();
  for (std::size_t k = 0; k < kPunct.size(); ++k) {
    if (i < r.size() && r[i] == kPunct[k]) punct = k;
  }
  if (punct == kPunct.size()) return std::nullopt;
  ++i;
  rules.punct_tail_slash = punct % 2 == 1;
  rules.punct_excludes_marks = punct >= 2;
  if (!space_tail(r, i, true, rules.space_run_to_end)) return std::nullopt;
  // The combinations the scanner is proven on (tests/cpp/test_scanners.cpp
  // runs every one against Oniguruma): o200k's shape with or without the
  // Han run and the contraction suffix; cl100k's with or without the
  // leading contractions, marks outside punct only with [\p{L}\p{M}]+
  // letters (a lone mark would match nothing else).
  if (rules.letters == Letters::kCaseSplit) {
    if (rules.contraction == Contraction::kLeading || rules.punct_excludes_marks) return std::nullopt;
  } else if (rules.han_first || (rules.punct_excludes_marks && rules.letters != Letters::kLM)) {
    return std::nullopt;
  }
  return FamilyMatch{FamilyMatch::Family::kSplit, rules};
}

}  // namespace family_detail

/// Returns the family and parameters of the scanner that reproduces
/// `pattern` exactly, or nullopt (Oniguruma), e.g.
///   match_family(R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,2}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)")
///     ->rules.max_digits == 2
inline std::optional<FamilyMatch> match_family(std::string_view pattern) {
  const std::optional<std::vector<pattern::Node>> alts = family_detail::alternatives(pattern);
  if (!alts) return std::nullopt;
  std::vector<std::string> rendered;
  for (const pattern::Node& a : *alts) rendered.push_back(pattern::render(a));
  if (auto m = family_detail::match_gpt2(*alts, rendered)) return m;
  return family_detail::match_split(*alts, rendered);
}

}  // namespace snaptok::scanners
