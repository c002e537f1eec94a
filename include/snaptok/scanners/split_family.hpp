// One exact hand-written matcher for the byte-level-BPE split patterns that
// descend from tiktoken's cl100k_base and o200k_base, parametrised by the
// rules in which they differ (SplitRules). Each scanner gives the same
// successive matches as Oniguruma does with the pinned Unicode classes:
//
// cl100k, Hugging Face spelling (Llama 3, Phi-4, GLM, OLMo):
//   (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//    ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
// cl100k, tiktoken's possessive spelling:
//   '(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+|
//    ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s
// Qwen2: cl100k (HF spelling) with \p{N} for \p{N}{1,3}.
// Qwen3.5: Qwen2 with [\p{L}\p{M}]+ letters and [^\s\p{L}\p{M}\p{N}]+ punct.
// o200k (GPT-OSS, Llama 4):
//   [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+
//   (?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+
//   [\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}|
//    ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
// Nemotron: o200k without the contractions and with \p{N}.
// Kimi: o200k with a leading [\p{Han}]+ alternative, the case classes
//   intersected with [^\p{Han}], and a [\r\n]* punct tail.
// (the exact strings are the k*Pattern constants below).
//
// Oniguruma facts these rely on: (?i) lets 's' match U+017F LATIN SMALL
// LETTER LONG S and the other contraction letters only their ASCII cases;
// `$` (Ruby syntax) matches at the end and before "\n", but after the
// possessive, maximal \s++ only the end of the text can follow; and Ruby
// syntax reads \p{N}{1,3}+ as (?:\p{N}{1,3})+, not as a possessive interval,
// so tiktoken's spelling keeps whole digit runs together.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "snaptok/scanners/block_masks.hpp"
#include "snaptok/scanners/char_class.hpp"
#include "snaptok/simd/byte_classes.hpp"

namespace snaptok::scanners {

inline constexpr std::string_view kCl100kPattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
inline constexpr std::string_view kCl100kTiktokenPattern =
    R"('(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s)";
inline constexpr std::string_view kQwen2Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
inline constexpr std::string_view kQwen35Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
inline constexpr std::string_view kO200kPattern =
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
inline constexpr std::string_view kNemotronPattern =
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
inline constexpr std::string_view kKimiPattern =
    R"([\p{Han}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]*[\p{Ll}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]+[\p{Ll}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

// Where a pattern of the family takes its 's 't 're 've 'm 'll 'd.
enum class Contraction : std::uint8_t {
  kNone,     // nowhere
  kLeading,  // first alternative, a match of its own (cl100k)
  kSuffix,   // optional tail of a letter run (o200k)
};

// What a pattern of the family calls a word.
enum class Letters : std::uint8_t {
  kL,          // [^\r\n\p{L}\p{N}]?\p{L}+
  kLM,         // [^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+
  kCaseSplit,  // o200k's upper*lower+ | upper+lower* pair
};

// The rules in which the patterns of the family differ.
struct SplitRules {
  Contraction contraction;
  Letters letters;
  bool han_first;             // [\p{Han}]+ first, case classes without Han
  std::uint8_t max_digits;    // \p{N}{1,max_digits}; 0: \p{N}+
  bool punct_excludes_marks;  // [^\s\p{L}\p{M}\p{N}] instead of [^\s\p{L}\p{N}]
  bool punct_tail_slash;      // [\r\n/]* instead of [\r\n]* after punct
  bool space_run_to_end;      // tiktoken's \s++$ before \s*[\r\n]
};

inline constexpr SplitRules kCl100kRules{Contraction::kLeading, Letters::kL, false, 3, false, false, false};
// \p{N}{1,3}+ is (?:\p{N}{1,3})+ in Oniguruma's Ruby syntax, where only ?+ *+
// ++ are possessive: the whole digit run.
inline constexpr SplitRules kCl100kTiktokenRules{Contraction::kLeading, Letters::kL, false, 0, false, false, true};
inline constexpr SplitRules kQwen2Rules{Contraction::kLeading, Letters::kL, false, 1, false, false, false};
inline constexpr SplitRules kQwen35Rules{Contraction::kLeading, Letters::kLM, false, 1, true, false, false};
inline constexpr SplitRules kO200kRules{Contraction::kSuffix, Letters::kCaseSplit, false, 3, false, true, false};
inline constexpr SplitRules kNemotronRules{Contraction::kNone, Letters::kCaseSplit, false, 1, false, true, false};
inline constexpr SplitRules kKimiRules{Contraction::kSuffix, Letters::kCaseSplit, true, 3, false, false, false};

namespace split_detail {

inline constexpr std::size_t kNoMatch = static_cast<std::size_t>(-1);

// The ASCII byte sets of the classes the scanners ask about: for an ASCII
// byte, being in the set is exactly having the class (tests check this
// against the pinned tables).
inline constexpr unsigned kAsciiL = kBytesLetter;                       // \p{L}, [\p{L}\p{M}]
inline constexpr unsigned kAsciiN = kBytesDigit;                        // \p{N}
inline constexpr unsigned kAsciiSpace = kBytesSpace;                    // \s
inline constexpr unsigned kAsciiPunct = kBytesApostrophe | kBytesOther;  // [^\s\p{L}\p{N}], [^\s\p{L}\p{M}\p{N}]

// The text, the class table and the byte-class masks, with the matchers
// every scanner shares.
struct Text {
  const unsigned char* b;
  std::size_t n;
  const std::uint8_t* blocks;   // FlagTable::blocks; blocks[c] for ASCII c
  const std::uint16_t* index;  // FlagTable::index
  BlockMasks masks;

  Text(std::string_view s, const FlagTable& t) noexcept
      : b(reinterpret_cast<const unsigned char*>(s.data())),
        n(s.size()),
        blocks(t.blocks.data()),
        index(t.index.data()),
        masks(s) {}

  // Returns the class bits of the code point at i and sets `len`.
  std::uint8_t flags(std::size_t i, std::size_t& len) const noexcept {
    const unsigned char* p = b + i;
    if (p[0] < 0x80) {
      len = 1;
      return blocks[p[0]];
    }
    const char32_t cp = decode_multibyte(p, len);
    return blocks[(std::size_t{index[cp >> 8]} << 8) | (cp & 0xFF)];
  }

  // Returns the end of the run of code points from i whose bits pass `pred`,
  // one code point at a time.
  template <class Pred>
  std::size_t run_end(std::size_t i, Pred pred) const noexcept {
    while (i < n) {
      const unsigned char c = b[i];
      if (c < 0x80) {
        if (!pred(blocks[c])) break;
        ++i;
      } else {
        std::size_t len;
        if (!pred(flags(i, len))) break;
        i += len;
      }
    }
    return i;
  }

  // Returns the end of the run of code points from i whose bits pass `pred`,
  // where `Ascii` (a ByteClassSet) holds exactly the ASCII bytes that pass:
  // ASCII stretches by the masks, non-ASCII code points one at a time.
  template <unsigned Ascii, class Pred>
  std::size_t run_end(std::size_t i, Pred pred) noexcept {
    for (;;) {
      i = masks.run_end<Ascii>(i);
      if (i >= n || b[i] < 0x80) return i;
      do {
        std::size_t len;
        if (!pred(flags(i, len))) return i;
        i += len;
      } while (i < n && b[i] >= 0x80);
    }
  }

  // Returns the end of the run of ASCII lowercase letters from i up to e,
  // where [i, e) holds only ASCII letters: the first with bit 0x20 clear.
  std::size_t ascii_lower_end(std::size_t i, std::size_t e) const noexcept {
    constexpr std::uint64_t kCase = 0x2020202020202020ull;
    while (i + 8 <= n) {
      const std::size_t left = e - i;
      std::uint64_t upper = ~simd::detail::load_le64(reinterpret_cast<const char*>(b) + i) & kCase;
      if (left < 8) upper &= (std::uint64_t{1} << (8 * left)) - 1;
      if (upper != 0) return i + static_cast<std::size_t>(std::countr_zero(upper)) / 8;
      if (left <= 8) return e;
      i += 8;
    }
    while (i < e && (b[i] & 0x20) != 0) ++i;
    return i;
  }

  // Returns the end of the run of ASCII lower-case letters from i. The
  // class masks do not tell the case, and a word rarely spans more than one
  // 8-byte word: plain 64-bit arithmetic (SWAR) on the bytes.
  std::size_t ascii_lower_run_end(std::size_t i) const noexcept {
    const char* p = reinterpret_cast<const char*>(b);
    while (i + 8 <= n) {
      const std::uint64_t other = ~simd::detail::swar_in(simd::detail::load_le64(p + i), 'a', 'z') & simd::detail::kHigh;
      if (other != 0) return i + static_cast<std::size_t>(std::countr_zero(other)) / 8;
      i += 8;
    }
    while (i < n && static_cast<unsigned char>(b[i] - 'a') < 26) ++i;
    return i;
  }

  // Returns the end of the run of [\p{Ll}\p{Lm}\p{Lo}\p{M}] code points
  // (`lower` says which pass, Han aside or not) from i.
  template <class Pred>
  std::size_t lower_run_end(std::size_t i, Pred lower) noexcept {
    for (;;) {
      const std::size_t e = masks.run_end<kAsciiL>(i);
      if (e > i) {
        const std::size_t l = ascii_lower_end(i, e);
        if (l < e) return l;
      }
      i = e;
      if (i >= n || b[i] < 0x80) return i;
      do {
        std::size_t len;
        if (!lower(flags(i, len))) return i;
        i += len;
      } while (i < n && b[i] >= 0x80);
    }
  }

  // Returns the end of a run of CR, LF (and '/' when `slash`) from i.
  std::size_t tail_end(std::size_t i, bool slash) const noexcept {
    while (i < n && (b[i] == '\r' || b[i] == '\n' || (slash && b[i] == '/'))) ++i;
    return i;
  }

  // Returns the length of (?i:'s|'t|'re|'ve|'m|'ll|'d) at i, or 0.
  std::size_t contraction(std::size_t i) const noexcept {
    if (i + 1 >= n || b[i] != '\'') return 0;
    const unsigned a = b[i + 1] | 0x20u;
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
    if (b[i + 1] == 0xC5 && i + 2 < n && b[i + 2] == 0xBF) return 3;  // U+017F folds to 's'
    if (i + 2 < n) {
      const unsigned c = b[i + 2] | 0x20u;
      if ((a == 'r' && c == 'e') || (a == 'v' && c == 'e') || (a == 'l' && c == 'l')) return 3;
    }
    return 0;
  }

  // Returns the end of \s*[\r\n]+|\s+(?!\S)|\s+ from i (a \s code point);
  // with `to_end`, of \s++$|\s*[\r\n]|\s+(?!\S)|\s.
  std::size_t space_end(std::size_t i, bool to_end) noexcept {
    std::size_t j = i, last = i, last_crlf = kNoMatch;
    for (;;) {
      const std::size_t a = masks.run_end<kAsciiSpace>(j);
      if (a > j) {
        last = a - 1;
        const std::size_t nl = masks.last_in<kBytesNewline>(j, a);
        if (nl != BlockMasks::npos) last_crlf = nl;
        j = a;
      }
      if (j >= n || b[j] < 0x80) break;
      std::size_t len;
      if (!(flags(j, len) & kFlagSpace)) break;
      last = j;
      j += len;
    }
    if (to_end && j == n) return n;
    if (last_crlf != kNoMatch) return last_crlf + 1;
    return j == n || last == i ? j : last;
  }
};

}  // namespace split_detail

/// Calls fn(start, end) for each successive match of the family pattern
/// that `R` describes (see the k*Rules constants), e.g.
///   scan_split<kCl100kRules>(text, [](std::size_t s, std::size_t e) {...});
template <SplitRules R, class Fn>
void scan_split(std::string_view s, Fn&& fn) {
  using split_detail::kNoMatch;
  using split_detail::kAsciiL;
  using split_detail::kAsciiPunct;
  split_detail::Text x(s, char_flags());
  const std::size_t n = s.size();
  constexpr std::uint8_t kWord = R.letters == Letters::kLM ? kFlagL | kFlagM : kFlagL;
  constexpr std::uint8_t kNotPunct = kFlagSpace | kFlagL | kFlagN | (R.punct_excludes_marks ? kFlagM : 0);
  // [^\r\n\p{L}\p{N}]: may prefix a word.
  auto prefix = [](unsigned char c, std::uint8_t f) { return !(f & (kFlagL | kFlagN)) && c != '\r' && c != '\n'; };
  auto word = [](std::uint8_t f) { return (f & kWord) != 0; };
  auto punct = [](std::uint8_t f) { return (f & kNotPunct) == 0; };
  auto upper = [](std::uint8_t f) { return (f & kFlagUpper) && !(R.han_first && (f & kFlagHan)); };
  auto lower = [](std::uint8_t f) { return (f & kFlagLower) && !(R.han_first && (f & kFlagHan)); };
  auto suffix = [&](std::size_t e) {
    return R.contraction == Contraction::kSuffix && e < n && s[e] == '\'' ? e + x.contraction(e) : e;
  };
  // upper*lower+ contraction? from q.
  auto upper_lower = [&](std::size_t q) {
    std::size_t a = q, last_lower_end = kNoMatch, len = 0;
    std::uint8_t f = 0;
    while (a < n) {
      f = x.flags(a, len);
      if (!upper(f)) break;
      a += len;
      if (lower(f)) last_lower_end = a;
    }
    if (a < n && lower(f)) return suffix(x.lower_run_end(a + len, lower));
    // Backtrack upper* to its last char that is also lower.
    return last_lower_end == kNoMatch ? kNoMatch : suffix(last_lower_end);
  };
  // upper+lower* contraction? from q.
  auto upper_run = [&](std::size_t q) {
    const std::size_t a = x.run_end(q, upper);
    return a == q ? kNoMatch : suffix(x.lower_run_end(a, lower));
  };

  std::size_t i = 0;
  while (i < n) {
    const unsigned char c = x.b[i];
    {
      // Fast path: an ASCII word, alone or after one ' '.
      const std::size_t q = c == ' ' && i + 1 < n ? i + 1 : i;
      const unsigned char d = x.b[q];
      if (static_cast<unsigned char>((d | 0x20) - 'a') < 26) {
        if constexpr (R.letters != Letters::kCaseSplit) {
          const std::size_t e = x.run_end<kAsciiL>(q + 1, word);
          fn(i, e);
          i = e;
          continue;
        } else {
          // upper? lower+ starting in ASCII: the ASCII lower-case letters
          // after q, then any non-ASCII lower.
          const std::size_t l = x.ascii_lower_run_end(q + 1);
          if (d >= 'a' || l > q + 1) {
            std::size_t e = l;
            if (l < n) {
              const unsigned char t = x.b[l];
              if (t >= 0x80) {
                e = suffix(x.lower_run_end(l, lower));
              } else if (t == '\'') {
                e = suffix(l);
              }
            }
            fn(i, e);
            i = e;
            continue;
          }
        }
      }
    }
    if (c < 0x80 && c != '\'' && !(x.blocks[c] & kNotPunct) &&
        (i + 1 == n || (x.b[i + 1] < 0x80 && !(x.blocks[x.b[i + 1]] & (kFlagL | kFlagN))))) {
      // Fast path: ASCII punct not before a word or a digit.
      const std::size_t e = x.tail_end(x.run_end<kAsciiPunct>(i + 1, punct), R.punct_tail_slash);
      fn(i, e);
      i = e;
      continue;
    }
    std::size_t len;
    const std::uint8_t f = x.flags(i, len);
    std::size_t e = kNoMatch;
    if (R.han_first && (f & kFlagHan)) {
      e = x.run_end(i + len, [](std::uint8_t g) { return (g & kFlagHan) != 0; });
    } else if (R.contraction == Contraction::kLeading && c == '\'' && x.contraction(i) != 0) {
      e = i + x.contraction(i);
    } else if constexpr (R.letters != Letters::kCaseSplit) {
      if (f & kWord) {
        e = x.run_end<kAsciiL>(i + len, word);
      } else if (i + len < n && prefix(c, f)) {
        std::size_t len2;
        if (x.flags(i + len, len2) & kWord) {
          e = x.run_end<kAsciiL>(i + len + len2, word);
        }
      }
    } else {
      const bool pre = prefix(c, f);
      if (pre && i + len < n) e = upper_lower(i + len);
      if (e == kNoMatch) e = upper_lower(i);
      if (e == kNoMatch && pre && i + len < n) e = upper_run(i + len);
      if (e == kNoMatch) e = upper_run(i);
    }
    if (e == kNoMatch) {
      if (f & kFlagN) {
        e = i + len;
        for (int k = 1; (R.max_digits == 0 || k < R.max_digits) && e < n; ++k) {
          std::size_t len2;
          if (!(x.flags(e, len2) & kFlagN)) break;
          e += len2;
        }
      } else if (!(f & kNotPunct) || (c == ' ' && i + 1 < n && !(x.flags(i + 1, len) & kNotPunct))) {
        // ` ?[^\s\p{L}\p{N}]+[\r\n]*`; `len` is the first punct char's.
        const std::size_t p = c == ' ' ? i + 1 : i;
        e = x.tail_end(x.run_end<kAsciiPunct>(p + len, punct), R.punct_tail_slash);
      } else {
        e = x.space_end(i, R.space_run_to_end);
      }
    }
    fn(i, e);
    i = e;
  }
}

}  // namespace snaptok::scanners
