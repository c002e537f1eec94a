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
// The listed patterns run on scan_split<R>, their rules compiled in; any
// other family member that pattern_family.hpp recognises, on
// scan_split_with(rules), the same code reading its rules at run time
// (about 10% slower than compiled rules, still ~30x Oniguruma).
//
// Oniguruma facts these rely on: (?i) lets 's' match U+017F LATIN SMALL
// LETTER LONG S and the other contraction letters only their ASCII cases;
// `$` (Ruby syntax) matches at the end and before "\n", but after the
// possessive, maximal \s++ only the end of the text can follow; and Ruby
// syntax reads \p{N}{1,3}+ as (?:\p{N}{1,3})+, not as a possessive interval,
// so tiktoken's spelling keeps whole digit runs together.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "snaptok/detail/inline.hpp"
#include "snaptok/scanners/block_masks.hpp"
#include "snaptok/scanners/char_class.hpp"
#include "snaptok/simd/byte_classes.hpp"
#include "snaptok/simd/dispatch.hpp"

// Keeps a scanner function out of line where GCC's inliner, left to
// itself, inlines it and then runs out of budget for the helpers inside.
#if defined(__GNUC__) || defined(__clang__)
#define SNAPTOK_SCANNER_OUT_OF_LINE __attribute__((noinline))
#else
#define SNAPTOK_SCANNER_OUT_OF_LINE
#endif

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

  friend constexpr bool operator==(const SplitRules&, const SplitRules&) = default;
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

// The rules `V` as compile-time constants: scan_split_with() reads the rules
// through the same member names from a FixedRules (each test folds away) or
// from a SplitRules value (a rule set known only at run time, each test a
// branch).
template <SplitRules V>
struct FixedRules {
  static constexpr Contraction contraction = V.contraction;
  static constexpr Letters letters = V.letters;
  static constexpr bool han_first = V.han_first;
  static constexpr std::uint8_t max_digits = V.max_digits;
  static constexpr bool punct_excludes_marks = V.punct_excludes_marks;
  static constexpr bool punct_tail_slash = V.punct_tail_slash;
  static constexpr bool space_run_to_end = V.space_run_to_end;
};

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

  // Returns the class bits of the code point at i and sets `len` (inlined:
  // the walkers call it once per non-ASCII code point).
  SNAPTOK_ALWAYS_INLINE std::uint8_t flags(std::size_t i, std::size_t& len) const noexcept {
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

  // Returns the end of the run of ASCII \s bytes from j, and sets `last_nl`
  // to its last CR or LF when it has one. The first bytes are read one by
  // one: a walker that meets one space or newline between non-ASCII chars
  // (CJK text) then classifies no block for it.
  std::size_t ascii_space_end(std::size_t j, std::size_t& last_nl) noexcept {
    constexpr std::size_t kBytewise = 8;
    std::size_t a = j;
    for (; a < n && a - j < kBytewise; ++a) {
      const unsigned char c = b[a];
      if (c != ' ' && (c < '\t' || c > '\r')) return a;
      if (c == '\r' || c == '\n') last_nl = a;
    }
    if (a == n) return a;
    const std::size_t e = masks.run_end<kAsciiSpace>(a);
    if (const std::size_t nl = masks.last_in<kBytesNewline>(a, e); nl != BlockMasks::npos) last_nl = nl;
    return e;
  }

  // Returns the end of \s*[\r\n]+|\s+(?!\S)|\s+ from i (a \s code point);
  // with `to_end`, of \s++$|\s*[\r\n]|\s+(?!\S)|\s.
  std::size_t space_end(std::size_t i, bool to_end) noexcept {
    std::size_t j = i, last = i, last_crlf = kNoMatch;
    for (;;) {
      const std::size_t a = ascii_space_end(j, last_crlf);
      if (a > j) {
        last = a - 1;
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

// How much of a block its algebra settles (block_starts in scan_blocks):
// the match starts before byte `settled` of the block are exact, and from
// the last of them (the match in progress) the walker takes the text until
// a match ends at or past byte `walk_to` (for a block with non-ASCII bytes,
// past its last one).
struct BlockVerdict {
  unsigned settled;
  unsigned walk_to;

  // Every start of the block.
  static constexpr BlockVerdict all() noexcept { return {simd::kBlockBytes, simd::kBlockBytes}; }
  // No start: the walker takes the whole block.
  static constexpr BlockVerdict none() noexcept { return {0, simd::kBlockBytes}; }
  // The starts before `byte`; the walker takes the rest of the block (a
  // match running past its end, say).
  static constexpr BlockVerdict before(unsigned byte) noexcept { return {byte, simd::kBlockBytes}; }
  // No start: the walker takes the matches up to `byte` (a run that began
  // before the block, say), and the algebra resumes where they end.
  static constexpr BlockVerdict walk_past(unsigned byte) noexcept { return {0, byte}; }

  // This verdict, settling no more than `limit` bytes.
  SNAPTOK_ALWAYS_INLINE BlockVerdict at_most(unsigned limit) const noexcept {
    return {settled < limit ? settled : limit, walk_to};
  }
  // The bits of a block's starts that this verdict settles.
  SNAPTOK_ALWAYS_INLINE std::uint64_t settled_bits() const noexcept {
    return settled >= simd::kBlockBytes ? ~std::uint64_t{0} : (std::uint64_t{1} << settled) - 1;
  }
};

// Returns the first byte of the ASCII run of one class (letters, digits,
// spaces or punctuation) that ends right before the first non-ASCII byte of
// a block (0 when that byte is the block's first): the algebra's starts
// before it do not depend on what the non-ASCII char is, those in the run
// may (a letter may go on in it, a space run may go on as U+00A0).
SNAPTOK_ALWAYS_INLINE unsigned run_start_before_nonascii(const simd::ByteClassMasks& m) noexcept {
  const auto first = static_cast<unsigned>(std::countr_zero(m.nonascii));
  if (first == 0) return 0;
  const std::uint64_t last_ascii = std::uint64_t{1} << (first - 1);
  const std::uint64_t run_class = (m.letter & last_ascii) ? m.letter
                                  : (m.digit & last_ascii) ? m.digit
                                  : (m.space & last_ascii) ? m.space
                                                           : m.apostrophe | m.other;
  return first - static_cast<unsigned>(std::countl_one(run_class << (64 - first)));
}

// The most of the block with masks `m` that its algebra may settle: all of
// an all-ASCII block; of a block with non-ASCII bytes, the bytes before the
// ASCII run that reaches the first of them (run_start_before_nonascii).
SNAPTOK_ALWAYS_INLINE unsigned settle_limit(const simd::ByteClassMasks& m) noexcept {
  return m.nonascii != 0 ? run_start_before_nonascii(m) : simd::kBlockBytes;
}

// Where the walker that takes over a block at `base` (masks `m`, `verdict`)
// stops: at the first match end past the block's last non-ASCII byte, or
// at or past byte verdict.walk_to of an all-ASCII block.
SNAPTOK_ALWAYS_INLINE std::size_t walk_stop(std::size_t base, const simd::ByteClassMasks& m,
                                            BlockVerdict verdict) noexcept {
  return m.nonascii != 0 ? base + simd::kBlockBytes - static_cast<std::size_t>(std::countl_zero(m.nonascii))
                         : base + verdict.walk_to;
}

// Returns the block the algebra goes on with after a walk over the block
// at `base` ended at `cur` (a match start): a walk past a non-ASCII char,
// or one that ended inside its block, hands the text back right there
// (`origin`, where blocks start a multiple of 64 bytes from, becomes cur);
// a walk past the block's end goes on in the block that holds cur.
SNAPTOK_ALWAYS_INLINE std::size_t block_after_walk(std::size_t cur, std::size_t base, bool nonascii,
                                                   std::size_t& origin) noexcept {
  if (nonascii || cur < base + simd::kBlockBytes) origin = cur;
  return cur - (cur - origin) % simd::kBlockBytes;
}

// Calls fn(start, end) for each successive match, block by block: for a
// 64-byte block, block_starts(base, masks, starts) sets the match starts in
// it (bit j: base + j) and returns how far they settle it (a BlockVerdict;
// the bits past that are ignored);
// match_end(i) (the end of the match at i) walks from the match in progress
// over the rest. A block with non-ASCII bytes is settled at most up to the
// ASCII run before its first one (run_start_before_nonascii), and walked
// only past its last one. A walk that ends inside its block (past a
// non-ASCII char, or past a run that began before the block) hands the
// text back to the algebra there: ASCII text after a curly quote or an
// accented letter goes back to the algebra, and from there blocks start
// that far from 64-byte boundaries, until the next such walk. A match
// start is a cut that any start before it leads to, so both agree wherever
// both answer. The matches tile the text. A sink with fn.add_starts(cur,
// base, starts) takes a block's matches at once: the match in progress from
// `cur`, then one from each start bit; it sets `cur` to the last start.
// A text shorter than kWalkBelow bytes is walked whole: classifying a block
// costs more than walking a few words (a Sequence that cuts text into words
// before the scanner, as Falcon's Punctuation does, hands it texts of a few
// bytes each).
inline constexpr std::size_t kWalkBelow = 32;

template <class BlockStarts, class MatchEnd, class Fn>
SNAPTOK_HOT_CODE void scan_blocks(std::string_view s, BlockStarts&& block_starts, MatchEnd&& match_end, Fn&& fn) {
  const std::size_t n = s.size();
  std::size_t cur = 0;  // start of the match in progress
  if (n < kWalkBelow) {
    while (cur < n) {
      const std::size_t e = match_end(cur);
      fn(cur, e);
      cur = e;
    }
    return;
  }
  std::size_t base = 0;
  std::size_t origin = 0;  // blocks start a multiple of 64 bytes from here
  ForwardBlocks blocks(s);
  while (base < n) {
    const simd::ByteClassMasks& m = blocks.at(base);
    const bool nonascii = m.nonascii != 0;
    std::uint64_t starts = 0;
    const unsigned limit = settle_limit(m);
    const BlockVerdict verdict = limit != 0 ? block_starts(base, m, starts).at_most(limit) : BlockVerdict::none();
    if (verdict.settled != 0) {
      starts &= verdict.settled_bits();
      if (cur >= base) starts &= ~((std::uint64_t{2} << (cur - base)) - 1);
      if constexpr (requires { fn.add_starts(cur, base, starts); }) {
        fn.add_starts(cur, base, starts);  // a sink that takes the block's matches at once
      } else {
        for (; starts != 0; starts &= starts - 1) {
          const std::size_t j = base + static_cast<std::size_t>(std::countr_zero(starts));
          fn(cur, j);
          cur = j;
        }
      }
      if (verdict.settled == simd::kBlockBytes) [[likely]] {
        base += simd::kBlockBytes;
        continue;
      }
    }
    const std::size_t stop = walk_stop(base, m, verdict);
    while (cur < stop && cur < n) {
      const std::size_t e = match_end(cur);
      fn(cur, e);
      cur = e;
    }
    if (cur >= n) return;
    base = block_after_walk(cur, base, nonascii, origin);
  }
  if (cur < n) fn(cur, n);
}

// The masks of one all-ASCII block with what the block algebra needs of its
// neighbours: the byte classes (simd::detail::kClass*) of the byte before it
// (0 at the text start) and after it (0 at the text end).
struct AsciiBlock {
  const simd::ByteClassMasks& m;
  std::uint64_t valid;   // bits of bytes in the text
  std::size_t len;       // bytes in the block
  std::uint8_t before;
  std::uint8_t after;

  // (Forced inline, as the helpers below: GCC 12 sometimes left the
  // constructor out of line, and o200k then ran 10% slower.)
  SNAPTOK_ALWAYS_INLINE AsciiBlock(const Text& x, std::size_t base, const simd::ByteClassMasks& masks) noexcept
      : m(masks),
        valid(x.n - base >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << (x.n - base)) - 1),
        len(x.n - base >= 64 ? 64 : x.n - base),
        before(base > 0 ? simd::detail::kByteClassTable[x.b[base - 1]] : 0),
        after(base + 64 < x.n ? simd::detail::kByteClassTable[x.b[base + 64]] : 0) {}

  // Bit j: byte j - 1 is in `mask`, the byte before the block in `cls`.
  SNAPTOK_ALWAYS_INLINE std::uint64_t shifted_in(std::uint64_t mask, unsigned cls) const noexcept {
    return (mask << 1) | ((before & cls) != 0);
  }
  // Bit j: byte j + 1 is in `mask` (the byte after the block in `cls`); at
  // the text end, `at_end`.
  SNAPTOK_ALWAYS_INLINE std::uint64_t shifted_out(std::uint64_t mask, unsigned cls, bool at_end) const noexcept {
    const bool last = len < 64 || after == 0 ? at_end : (after & cls) != 0;
    return (mask >> 1) | (std::uint64_t{last} << (len - 1));
  }
};

// Returns the mask of the first bytes after the last CR/LF of each run of
// `space` with CR/LF (`newline`) in it, where that run goes on past them.
// Such a byte is a plain space (not CR/LF) right after a CR/LF, whose run
// of plain spaces does not end at another CR/LF: mask arithmetic settles
// most blocks, a loop over the runs the rest.
SNAPTOK_ALWAYS_INLINE std::uint64_t after_last_newline(std::uint64_t space, std::uint64_t newline) noexcept {
  const std::uint64_t line_ends = newline & space;
  const std::uint64_t plain = space & ~newline;
  const std::uint64_t after_line_end = plain & (line_ends << 1);
  if (after_line_end == 0) return 0;
  // The byte after each of those plain runs (the carry of the run's first
  // bit lands there; none for a run to the block's end).
  const std::uint64_t plain_run_ends = (plain + after_line_end) & ~plain;
  if ((plain_run_ends & line_ends) == 0) return after_line_end;
  std::uint64_t cuts = 0;
  for (std::uint64_t nl = line_ends; nl != 0;) {
    const auto j = static_cast<unsigned>(std::countr_zero(nl));
    const unsigned run_end = j + static_cast<unsigned>(std::countr_zero(~(space >> j)));
    const std::uint64_t below_end = run_end >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << run_end) - 1;
    const auto last = static_cast<unsigned>(63 - std::countl_zero(nl & below_end));
    if (last + 1 < run_end) cuts |= std::uint64_t{1} << (last + 1);
    nl &= ~below_end;
  }
  return cuts;
}

// Returns the starts of the groups of `max_digits` digits that follow the
// first group of each run of `digit` (runs begin in the block: the caller
// hands a run from the block before to its walker). Mask steps, one per
// group: most blocks have no run longer than one group, and then no loop
// (a loop per run cost o200k's scanner 7%).
inline std::uint64_t later_digit_groups(std::uint64_t digit, unsigned max_digits) noexcept {
  std::uint64_t full = digit;  // bit p: bytes p - max_digits + 1 .. p are digits
  for (unsigned i = 1; i < max_digits; ++i) full &= digit << i;
  std::uint64_t starts = 0;
  // A group starts max_digits after a run's start or a group's, on a digit
  // after max_digits - 1 more.
  for (std::uint64_t group = ((digit & ~(digit << 1)) << max_digits) & full; group != 0;
       group = (group << max_digits) & full) {
    starts |= group;
  }
  return starts;
}

// Sets `block_starts` to the match starts in a block of the family pattern
// `R` (a FixedRules or a SplitRules), by algebra over its class masks:
//  - a match starts where the class (letter, digit, space, punctuation with
//    the apostrophe) changes, between digit groups, and, where words split
//    by case (o200k), at an upper-case letter after a lower-case one;
//  - CR/LF right after punctuation end the punctuation's match;
//  - in a run of spaces, a match ends after its last CR/LF, and the last
//    space before a non-space is a match of its own when spaces that do not
//    end a line come before it; that last space (not CR/LF) prefixes a word
//    after it, and a ' ' prefixes punctuation after it;
//  - one punctuation char at a match start prefixes a word after it;
//  - a contraction at a match start is a match (cl100k), or one after a
//    word ends that word's match (o200k); a new match starts after it.
// Where the masks lack context, it settles less (see BlockVerdict): a run
// of spaces or a digit group that began before the block is walked, and the
// algebra resumes after it; a run of spaces or a contraction that goes on
// past the block's end is walked from the last start before it; the whole
// block is walked for a non-ASCII char right after it, a contraction just
// after its start, an apostrophe just after a non-ASCII char (cl100k), '/'
// after punctuation and CR/LF (o200k), or the text's end for tiktoken's
// \s++$.
// (Out of line, as it was while the rules were a template argument: inlined
// into scan_split_with, it left BlockMasks::run_end out of line, +2.4% of
// cl100k's instructions.)
template <class Rules>
SNAPTOK_HOT_CODE SNAPTOK_SCANNER_OUT_OF_LINE BlockVerdict family_block_starts(Rules R, const Text& x, std::size_t base,
                                                  const simd::ByteClassMasks& masks,
                                                  std::uint64_t& block_starts) noexcept {
  namespace cls = simd::detail;
  const AsciiBlock k(x, base, masks);
  const simd::ByteClassMasks& m = masks;
  const std::uint64_t punct = m.apostrophe | m.other;
  const unsigned kPunct = cls::kClassApostrophe | cls::kClassOther;
  if ((k.before & cls::kClassSpace) && (m.space & 1)) {
    return BlockVerdict::walk_past(static_cast<unsigned>(std::countr_one(m.space)));
  }
  // A digit group may have begun before the block, with an ASCII digit or a
  // non-ASCII one (U+00B2 is \p{N}).
  if (R.max_digits > 1 && (k.before & (cls::kClassDigit | cls::kClassNonascii)) && (m.digit & 1)) {
    return BlockVerdict::walk_past(static_cast<unsigned>(std::countr_one(m.digit)));
  }
  // The starts before this byte are exact: in an all-ASCII block, before a
  // run of spaces at its end that goes on past it (scan_blocks caps a block
  // with non-ASCII bytes itself, settle_limit).
  unsigned settled = 64;
  if (m.nonascii == 0) {
    if (k.after & cls::kClassNonascii) return BlockVerdict::none();
    if (R.space_run_to_end && base + 64 >= x.n && ((m.space >> (k.len - 1)) & 1)) return BlockVerdict::none();
    if (k.len == 64 && (k.after & cls::kClassSpace) && (m.space >> 63)) {
      settled = 64 - static_cast<unsigned>(std::countl_one(m.space));
    }
  }

  // CR/LF runs right after punctuation belong to its match (punctuation
  // just before the block too: its match is still in progress).
  const std::uint64_t nl_after_punct = m.newline & k.shifted_in(punct, kPunct);
  const std::uint64_t absorbed = m.newline & ~(m.newline + nl_after_punct);
  const std::uint64_t space = m.space & ~absorbed;
  const std::uint64_t same = (m.letter & k.shifted_in(m.letter, cls::kClassLetter)) |
                             (m.digit & k.shifted_in(m.digit, cls::kClassDigit)) |
                             (punct & k.shifted_in(punct, kPunct)) | (space & (space << 1));
  // (A local, stored once at the end: the refusals need no store.)
  std::uint64_t starts = ~same & ~absorbed & k.valid;
  starts |= after_last_newline(space, m.newline);
  const std::uint64_t next_space = k.shifted_out(m.space, cls::kClassSpace, true);
  const std::uint64_t next_letter = k.shifted_out(m.letter, cls::kClassLetter, false);
  const std::uint64_t next_punct = k.shifted_out(punct, kPunct, false);
  const std::uint64_t last_space = space & ~next_space & ~m.newline;
  starts |= last_space & ((space & ~m.newline) << 1);
  // The last space prefixes a word; a ' ' prefixes punctuation.
  const std::uint64_t prefix = last_space & (next_letter | (m.blank & next_punct));
  // One punctuation char at a match start (not after a ' ') before a word.
  const std::uint64_t punct_prefix = punct & ~k.shifted_in(punct, kPunct) & ~next_punct & next_letter &
                                     ~k.shifted_in(m.blank, cls::kClassBlank);
  bool prefix_before = false;
  if (base > 0 && (m.letter & 1) != 0) {
    if ((k.before & cls::kClassSpace) && !(k.before & cls::kClassNewline)) {
      prefix_before = true;
    } else if (k.before & kPunct) {
      const std::uint8_t two_before = base > 1 ? cls::kByteClassTable[x.b[base - 2]] : 0;
      prefix_before = !(two_before & (kPunct | cls::kClassBlank));
    }
  } else if ((k.before & cls::kClassBlank) && (punct & 1) != 0) {
    prefix_before = true;
  }
  starts &= ~(((prefix | punct_prefix) << 1) | std::uint64_t{prefix_before});
  if (R.max_digits == 1) {
    starts |= m.digit;
  } else if (R.max_digits > 1) {
    starts |= later_digit_groups(m.digit, R.max_digits);
  }
  if (R.letters == Letters::kCaseSplit) {
    const bool lower_before = base > 0 && static_cast<unsigned char>(x.b[base - 1] - 'a') < 26;
    starts |= m.upper & (((m.letter & ~m.upper) << 1) | std::uint64_t{lower_before});
  }
  if (R.punct_tail_slash) {
    // [\r\n/]*: a '/' after CR/LF that end punctuation joins its match, and
    // punctuation after that '/' starts a new one. The walker takes every
    // '/' after CR/LF.
    if (base > 0 && (x.b[base - 1] == '/' || (k.before & cls::kClassNewline)) && x.b[base] == '/') {
      return BlockVerdict::none();
    }
    if (base > 0 && x.b[base - 1] == '/' && (punct & 1) != 0) return BlockVerdict::none();
    // Only punctuation right after a CR/LF run may be a '/' (a loop over
    // every run cost o200k's scanner 10%).
    const std::uint64_t newline_ends = m.newline & ~(m.newline >> 1);
    if ((punct & (newline_ends << 1)) != 0 || (newline_ends >> 63) != 0) {
      for (std::uint64_t r = newline_ends; r != 0; r &= r - 1) {
        const std::size_t after_run = base + static_cast<std::size_t>(std::countr_zero(r)) + 1;
        if (after_run < x.n && x.b[after_run] == '/') return BlockVerdict::none();
      }
    }
  }
  if (R.contraction == Contraction::kLeading) {
    // An apostrophe right after a non-ASCII char may belong to that char's
    // punctuation match, which the walker ends past it: then it starts no
    // contraction, and the start after one would be wrong.
    if ((k.before & cls::kClassNonascii) && (m.apostrophe & 1)) return BlockVerdict::none();
    for (std::uint64_t a = starts & m.apostrophe & next_letter; a != 0; a &= a - 1) {
      const auto j = static_cast<std::size_t>(std::countr_zero(a));
      if (j >= settled) break;
      const std::size_t c = x.contraction(base + j);
      if (c == 0) continue;
      if (j + c >= 64) {  // the contraction is the match in progress
        settled = static_cast<unsigned>(j);
        break;
      }
      starts &= ~(((std::uint64_t{1} << (c - 1)) - 1) << (j + 1));
      if (base + j + c < x.n) starts |= std::uint64_t{1} << (j + c);
    }
  } else if (R.contraction == Contraction::kSuffix) {
    // An apostrophe after a word's last letter, unless that letter ended a
    // contraction already (one may have begun in the block before). (Both
    // loops take only apostrophes before a letter: a contraction goes on
    // with one, or with U+017F, which a block refused already.)
    std::size_t taken_until = 0;
    for (std::uint64_t a = m.apostrophe & k.shifted_in(m.letter, cls::kClassLetter) & next_letter; a != 0;
         a &= a - 1) {
      const auto j = static_cast<std::size_t>(std::countr_zero(a));
      if (j >= settled) break;
      if (j < taken_until) continue;
      const std::size_t c = x.contraction(base + j);
      if (c == 0) continue;
      if (j + c >= 64) {  // it ends the word's match, which is in progress
        settled = static_cast<unsigned>(j);
        break;
      }
      for (std::size_t p = base + j >= 3 ? base + j - 3 : 0; p < base; ++p) {
        if (x.b[p] == '\'') return BlockVerdict::none();
      }
      starts &= ~(((std::uint64_t{1} << c) - 1) << j);
      if (base + j + c < x.n) starts |= std::uint64_t{1} << (j + c);
      taken_until = j + c + 1;
    }
  }
  block_starts = starts;
  return BlockVerdict::before(settled);
}

}  // namespace split_detail

/// Calls fn(start, end) for each successive match of the family pattern
/// that `R` describes: a FixedRules<...> (see scan_split) or, for a rule set
/// known only at run time, a SplitRules value, e.g.
///   scan_split_with(SplitRules{Contraction::kLeading, Letters::kL, false, 2, false, false, false}, text, fn);
template <class Rules, class Fn>
void scan_split_with(Rules R, std::string_view s, Fn&& fn) {
  using split_detail::kNoMatch;
  using split_detail::kAsciiL;
  using split_detail::kAsciiPunct;
  split_detail::Text x(s, char_flags());
  const std::size_t n = s.size();
  const std::uint8_t word_flags = R.letters == Letters::kLM ? kFlagL | kFlagM : kFlagL;
  const std::uint8_t not_punct_flags = kFlagSpace | kFlagL | kFlagN | (R.punct_excludes_marks ? kFlagM : 0);
  // [^\r\n\p{L}\p{N}]: may prefix a word.
  auto prefix = [](unsigned char c, std::uint8_t f) { return !(f & (kFlagL | kFlagN)) && c != '\r' && c != '\n'; };
  auto word = [word_flags](std::uint8_t f) { return (f & word_flags) != 0; };
  auto punct = [not_punct_flags](std::uint8_t f) { return (f & not_punct_flags) == 0; };
  auto upper = [R](std::uint8_t f) { return (f & kFlagUpper) && !(R.han_first && (f & kFlagHan)); };
  auto lower = [R](std::uint8_t f) { return (f & kFlagLower) && !(R.han_first && (f & kFlagHan)); };
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

  // The end of the match at i: the alternatives in order.
  auto match_end = [&](std::size_t i) -> std::size_t {
    const unsigned char c = x.b[i];
    {
      // Fast path: an ASCII word, alone or after one ' '.
      const std::size_t q = c == ' ' && i + 1 < n ? i + 1 : i;
      const unsigned char d = x.b[q];
      if (static_cast<unsigned char>((d | 0x20) - 'a') < 26) {
        if (R.letters != Letters::kCaseSplit) {
          return x.run_end<kAsciiL>(q + 1, word);
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
            return e;
          }
        }
      }
    }
    if (c < 0x80 && c != '\'' && !(x.blocks[c] & not_punct_flags) &&
        (i + 1 == n || (x.b[i + 1] < 0x80 && !(x.blocks[x.b[i + 1]] & (kFlagL | kFlagN))))) {
      // Fast path: ASCII punct not before a word or a digit.
      return x.tail_end(x.run_end<kAsciiPunct>(i + 1, punct), R.punct_tail_slash);
    }
    std::size_t len;
    const std::uint8_t f = x.flags(i, len);
    std::size_t e = kNoMatch;
    if (R.han_first && (f & kFlagHan)) {
      e = x.run_end(i + len, [](std::uint8_t g) { return (g & kFlagHan) != 0; });
    } else if (R.contraction == Contraction::kLeading && c == '\'' && x.contraction(i) != 0) {
      e = i + x.contraction(i);
    } else if (R.letters != Letters::kCaseSplit) {
      if (f & word_flags) {
        e = x.run_end<kAsciiL>(i + len, word);
      } else if (i + len < n && prefix(c, f)) {
        std::size_t len2;
        if (x.flags(i + len, len2) & word_flags) {
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
      } else if (!(f & not_punct_flags) || (c == ' ' && i + 1 < n && !(x.flags(i + 1, len) & not_punct_flags))) {
        // ` ?[^\s\p{L}\p{N}]+[\r\n]*`; `len` is the first punct char's.
        const std::size_t p = c == ' ' ? i + 1 : i;
        e = x.tail_end(x.run_end<kAsciiPunct>(p + len, punct), R.punct_tail_slash);
      } else {
        e = x.space_end(i, R.space_run_to_end);
      }
    }
    return e;
  };
  split_detail::scan_blocks(
      s,
      [&](std::size_t base, const simd::ByteClassMasks& m, std::uint64_t& starts) {
        return split_detail::family_block_starts(R, x, base, m, starts);
      },
      match_end, fn);
}

/// Calls fn(start, end) for each successive match of the family pattern
/// that `R` describes (see the k*Rules constants), e.g.
///   scan_split<kCl100kRules>(text, [](std::size_t s, std::size_t e) {...});
template <SplitRules R, class Fn>
void scan_split(std::string_view s, Fn&& fn) {
  scan_split_with(FixedRules<R>{}, s, fn);
}

}  // namespace snaptok::scanners
