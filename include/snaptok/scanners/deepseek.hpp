// Exact hand-written matchers for the three Split patterns DeepSeek V3 (and
// V4) chain, giving the same successive matches as Oniguruma does with the
// pinned Unicode classes:
//   \p{N}{1,3}
//   [一-龥぀-ゟ゠-ヿ]+                 (U+4E00-9FA5, U+3040-309F, U+30A0-30FF)
//   [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^␍␊\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+|
//    ?[\p{P}\p{S}]+[␍␊]*|\s*[␍␊]+|\s+(?!\S)|\s+
// where ␍ and ␊ stand for the literal CR and LF characters the JSON holds.
// Unlike the cl100k family these leave gaps: text no alternative matches is
// skipped one code point at a time, as Oniguruma's search does.
// scan_deepseek_chain runs the three as DeepSeek's pre-tokenizer chains them,
// in one pass.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "snaptok/detail/inline.hpp"
#include "snaptok/detail/utf8.hpp"
#include "snaptok/scanners/block_masks.hpp"
#include "snaptok/scanners/char_class.hpp"
#include "snaptok/scanners/split_family.hpp"
#include "snaptok/simd/byte_classes.hpp"
#include "snaptok/simd/dispatch.hpp"

namespace snaptok::scanners {

inline constexpr std::string_view kDeepSeekDigitsPattern = R"(\p{N}{1,3})";
inline constexpr std::string_view kDeepSeekCjkPattern =
    "[\xE4\xB8\x80-\xE9\xBE\xA5\xE3\x81\x80-\xE3\x82\x9F\xE3\x82\xA0-\xE3\x83\xBF]+";
inline constexpr std::string_view kDeepSeekPattern =
    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|"
    "[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|"
    "\\s*[\r\n]+|\\s+(?!\\S)|\\s+";

// Returns the end of the match of \p{N}{1,3} whose first code point ends at
// e: up to two more \p{N} code points.
inline std::size_t deepseek_digits_end(const split_detail::Text& x, std::size_t e) noexcept {
  for (int k = 1; k < 3 && e < x.n; ++k) {
    std::size_t len;
    if (!(x.flags(e, len) & kFlagN)) break;
    e += len;
  }
  return e;
}

/// Calls fn(start, end) for each successive match of \p{N}{1,3}.
template <class Fn>
void scan_deepseek_digits(std::string_view s, Fn&& fn) {
  split_detail::Text x(s, char_flags());
  std::size_t i = 0;
  while (i < x.n) {
    if (x.b[i] < 0x80 && static_cast<unsigned char>(x.b[i] - '0') >= 10) {
      // On to the next byte that may start a match: an ASCII digit, or any
      // non-ASCII byte (its code point's flags settle \p{N}).
      i += 1 + simd::find_nonascii_or_in(s.data() + i + 1, x.n - i - 1, {'0', 10});
      continue;
    }
    std::size_t len;
    if (!(x.flags(i, len) & kFlagN)) {
      i += len;
      continue;
    }
    const std::size_t e = deepseek_digits_end(x, i + len);
    fn(i, e);
    i = e;
  }
}

// Returns whether the 3-byte sequence at p is in U+4E00-9FA5, U+3040-309F or
// U+30A0-30FF.
inline bool deepseek_cjk_at(const unsigned char* p) noexcept {
  if ((p[0] & 0xF0) != 0xE0) return false;
  const char32_t cp = (char32_t(p[0] & 0x0F) << 12) | (char32_t(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
  return (cp >= 0x4E00 && cp <= 0x9FA5) || (cp >= 0x3040 && cp <= 0x30FF);
}

// Returns the end of the run of the chars deepseek_cjk_at takes from e in
// the n bytes at b.
inline std::size_t deepseek_cjk_end(const unsigned char* b, std::size_t n, std::size_t e) noexcept {
  while (e + 2 < n && deepseek_cjk_at(b + e)) e += 3;
  return e;
}

/// Calls fn(start, end) for each successive match of [一-龥぀-ゟ゠-ヿ]+.
template <class Fn>
void scan_deepseek_cjk(std::string_view s, Fn&& fn) {
  const auto* b = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    if (b[i] < 0x80) {
      i += 1 + simd::find_nonascii_or_in(s.data() + i + 1, n - i - 1, {});  // the end of the ASCII run
      continue;
    }
    if (!deepseek_cjk_at(b + i)) {
      i += detail::utf8_len(b[i]);
      continue;
    }
    const std::size_t e = deepseek_cjk_end(b, n, i + 3);
    fn(i, e);
    i = e;
  }
}

namespace split_detail {

// Calls fn(start, end) for each successive match of a pattern whose matches
// leave gaps (text in no match), block by block, as scan_blocks does: for a
// 64-byte block, block_cuts(base, masks, cuts, gaps) sets the cuts in it
// (bit j: a match or a gap byte starts at base + j) and its gap bytes, and
// returns how far they settle it (a BlockVerdict; the bits past that are
// ignored); match_end(i) (the end of the match at i, or kNoMatch where none
// starts at i, to skip one code point as the regex search does) walks from
// the match or gap in progress over the rest, and the algebra resumes where
// the walk ends (see scan_blocks). A sink with fn.add_starts(cur, base,
// starts) (see scan_blocks) takes the matches of a block with no gap at
// once.
template <class BlockCuts, class MatchEnd, class Fn>
SNAPTOK_HOT_CODE void scan_blocks_with_gaps(std::string_view s, BlockCuts&& block_cuts, MatchEnd&& match_end, Fn&& fn) {
  const std::size_t n = s.size();
  std::size_t cur = 0;    // start of the match or gap in progress
  bool in_gap = false;    // whether cur starts a gap
  std::size_t given = 0;  // end of the last match given to fn
  std::size_t base = 0;
  std::size_t origin = 0;  // blocks start a multiple of 64 bytes from here
  ForwardBlocks blocks(s);
  while (base < n) {
    const simd::ByteClassMasks& m = blocks.at(base);
    std::uint64_t cuts = 0, gaps = 0;
    const unsigned limit = settle_limit(m);
    const BlockVerdict verdict = limit != 0 ? block_cuts(base, m, cuts, gaps).at_most(limit) : BlockVerdict::none();
    if (verdict.settled != 0) {
      cuts &= verdict.settled_bits();
      gaps &= verdict.settled_bits();
      if (cur >= base) {
        in_gap = ((gaps >> (cur - base)) & 1) != 0;
        cuts &= ~((std::uint64_t{2} << (cur - base)) - 1);
      }
      bool taken = false;
      if constexpr (requires { fn.add_starts(cur, base, cuts); }) {
        // No gap before or in the block: its matches tile it, and a sink
        // that takes a block's matches at once (as scan_blocks' does) takes
        // them from `cur`, the end of what it was given.
        if (!in_gap && given == cur && (gaps & cuts) == 0) {
          fn.add_starts(cur, base, cuts);
          given = cur;
          taken = true;
        }
      }
      if (!taken) {
        for (; cuts != 0; cuts &= cuts - 1) {
          const auto j = static_cast<std::size_t>(std::countr_zero(cuts));
          if (!in_gap) {
            fn(cur, base + j);
            given = base + j;
          }
          cur = base + j;
          in_gap = ((gaps >> j) & 1) != 0;
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
      if (e == kNoMatch) {
        cur += detail::utf8_len(static_cast<unsigned char>(s[cur]));
        continue;
      }
      fn(cur, e);
      given = cur = e;
    }
    if (cur >= n) return;
    base = block_after_walk(cur, base, m.nonascii != 0, origin);
  }
  if (cur < n && !in_gap) fn(cur, n);
}

}  // namespace split_detail

// Returns the end of the match of kDeepSeekPattern at i < size(), or
// kNoMatch where none starts there: the alternatives in order, one code
// point class at a time (the walker for what deepseek_block_cuts leaves).
inline std::size_t deepseek_match_end(split_detail::Text& x, std::size_t i) noexcept {
  using split_detail::kAsciiL;
  using split_detail::kNoMatch;
  auto word = [](std::uint8_t g) { return (g & (kFlagL | kFlagM)) != 0; };
  auto punct = [](std::uint8_t g) { return (g & kFlagPS) != 0; };
  auto ascii_letter = [](unsigned char c) { return static_cast<unsigned char>((c | 0x20) - 'a') < 26; };
  const std::size_t n = x.n;
  const unsigned char c = x.b[i];
  if (c == ' ' && i + 1 < n && ascii_letter(x.b[i + 1])) {
    // Fast path: ' ' and an ASCII word.
    return x.run_end<kAsciiL>(i + 2, word);
  }
  std::size_t len;
  const std::uint8_t f = x.flags(i, len);
  std::size_t len2 = 0;
  if (c < 0x80 && (f & kFlagPS) && i + 1 < n && ascii_letter(x.b[i + 1])) {
    // [!"#...~][A-Za-z]+ (the ASCII \p{P} and \p{S} are exactly that set).
    return x.masks.run_end<kBytesLetter>(i + 2);
  }
  if (word(f)) return x.run_end<kAsciiL>(i + len, word);
  if (!(f & (kFlagL | kFlagPS)) && c != '\r' && c != '\n' && i + len < n && word(x.flags(i + len, len2))) {
    return x.run_end<kAsciiL>(i + len + len2, word);
  }
  if (punct(f) || (c == ' ' && i + 1 < n && punct(x.flags(i + 1, len2)))) {
    return x.tail_end(x.run_end(c == ' ' ? i + 1 : i + len, punct), false);
  }
  if (f & kFlagSpace) return x.space_end(i, false);
  return kNoMatch;
}

// Sets `cuts` to the starts of matches and gap bytes in the block at
// `base`, and `gaps` to its bytes in no match, by algebra over its class
// masks `m`, and returns how far they settle it. In ASCII, \p{P}\p{S} is the first alternative's punctuation,
// and digits and the control characters that are not \s are in none of the
// classes the pattern asks about but its optional prefix [^\r\n\p{L}\p{P}\p{S}]:
//  - a cut where the class (letter, punctuation, space) changes, and at
//    every digit and control byte;
//  - CR/LF right after punctuation end the punctuation's match;
//  - in a run of spaces, a match ends after its last CR/LF, and the last
//    space before a non-space is a match of its own when spaces that do not
//    end a line come before it; that last space (not CR/LF) prefixes a word
//    after it, and a ' ' prefixes punctuation after it;
//  - a digit or control byte prefixes a word after it, and is a gap byte
//    elsewhere;
//  - one punctuation char at a match start (not after a ' ') prefixes a word
//    after it.
// With `Chain`, for the whole pre-tokenizer chain (scan_deepseek_chain):
// digits are groups of three, matches of their own, and the text on each
// side of a group ends there as the text's ends do.
// Where the masks lack context, it settles less (see split_detail::BlockVerdict):
// a run of spaces, or in a chain a digit group, that began before the
// block is walked, and the algebra resumes after it; a run of spaces that
// goes on past the block's end is walked from the last cut before it; a
// block with non-ASCII bytes is settled up to the ASCII run before the
// first of them; the whole block is walked for a non-ASCII char right
// after it.
template <bool Chain = false>
SNAPTOK_ALWAYS_INLINE split_detail::BlockVerdict deepseek_block_cuts(const split_detail::Text& x, std::size_t base,
                                                                     const simd::ByteClassMasks& m,
                                                                     std::uint64_t& cuts, std::uint64_t& gaps) noexcept {
  namespace cls = simd::detail;
  using split_detail::BlockVerdict;
  const split_detail::AsciiBlock k(x, base, m);
  if ((k.before & cls::kClassSpace) && (m.space & 1)) {
    return BlockVerdict::walk_past(static_cast<unsigned>(std::countr_one(m.space)));
  }
  // A digit group may have begun before the block, with an ASCII digit or
  // a non-ASCII one.
  if (Chain && (k.before & (cls::kClassDigit | cls::kClassNonascii)) && (m.digit & 1)) {
    return BlockVerdict::walk_past(static_cast<unsigned>(std::countr_one(m.digit)));
  }
  // The cuts before this byte are exact: in an all-ASCII block, before a
  // run of spaces at its end that goes on past it (scan_blocks_with_gaps
  // caps a block with non-ASCII bytes itself, split_detail::settle_limit: a
  // letter run may go on in the non-ASCII char, a space run before a CJK
  // char is the last of the text the chain's last pattern sees).
  unsigned settled = 64;
  if (m.nonascii == 0) {
    if (k.after & cls::kClassNonascii) return BlockVerdict::none();
    if (k.len == 64 && (k.after & cls::kClassSpace) && (m.space >> 63)) {
      settled = 64 - static_cast<unsigned>(std::countl_one(m.space));
    }
  }
  // A non-ASCII byte before the block counts as none of the classes: the
  // walker took the block before, up to or past this block's start, which is
  // then a cut or inside the walker's last match.
  const bool before_punct = base > 0 && x.b[base - 1] < 0x80 && (x.blocks[x.b[base - 1]] & kFlagPS);
  const bool after_punct = k.len == 64 && base + 64 < x.n && (x.blocks[x.b[base + 64]] & kFlagPS);

  const std::uint64_t control = m.control & ~m.space;
  const std::uint64_t unclassed = (Chain ? 0 : m.digit) | control;
  const std::uint64_t punct = (m.apostrophe | m.other) & ~control;
  const std::uint64_t prev_punct = (punct << 1) | std::uint64_t{before_punct};
  const std::uint64_t next_punct = (punct >> 1) | (std::uint64_t{after_punct} << 63);
  // CR/LF runs right after punctuation belong to its match (punctuation
  // just before the block too: its match is still in progress).
  const std::uint64_t absorbed = m.newline & ~(m.newline + (m.newline & prev_punct));
  const std::uint64_t space = m.space & ~absorbed;
  const std::uint64_t same = (m.letter & k.shifted_in(m.letter, cls::kClassLetter)) | (punct & prev_punct) |
                             (space & (space << 1)) | (Chain ? m.digit & (m.digit << 1) : 0);
  cuts = (~same & ~absorbed & k.valid) | split_detail::after_last_newline(space, m.newline);
  if constexpr (Chain) cuts |= split_detail::later_digit_groups(m.digit, 3);
  // Spaces before the text's end, or before a digit in a chain, are no
  // last space: \s+(?!\S) takes them all.
  const std::uint64_t next_space = Chain ? k.shifted_out(m.space | m.digit, cls::kClassSpace | cls::kClassDigit, true)
                                         : k.shifted_out(m.space, cls::kClassSpace, true);
  const std::uint64_t next_letter = k.shifted_out(m.letter, cls::kClassLetter, false);
  const std::uint64_t last_space = space & ~next_space & ~m.newline;
  cuts |= last_space & ((space & ~m.newline) << 1);
  // The last space, a digit or a control byte prefixes a word; a ' '
  // prefixes punctuation; one punctuation char at a match start (not after a
  // ' ') prefixes a word.
  const std::uint64_t prefix = ((last_space | unclassed) & next_letter) | (last_space & m.blank & next_punct) |
                               (punct & ~prev_punct & next_letter & ~k.shifted_in(m.blank, cls::kClassBlank));
  bool prefix_before = false;
  if (base > 0 && (m.letter & 1) != 0) {
    const unsigned char before = x.b[base - 1];
    if (before_punct) {
      prefix_before = base == 1 || (x.b[base - 2] != ' ' && !(x.blocks[x.b[base - 2]] & kFlagPS));
    } else {
      prefix_before = !(x.blocks[before] & kFlagL) && before != '\r' && before != '\n' &&
                      !(Chain && static_cast<unsigned char>(before - '0') < 10);
    }
  } else if (base > 0 && x.b[base - 1] == ' ' && (punct & 1) != 0) {
    prefix_before = true;
  }
  cuts &= ~((prefix << 1) | std::uint64_t{prefix_before});
  gaps = unclassed & ~next_letter & k.valid;
  return BlockVerdict::before(settled);
}

/// Calls fn(start, end) for each successive match of kDeepSeekPattern, e.g.
///   scan_deepseek(text, [](std::size_t s, std::size_t e) {...});
/// 64-byte blocks are cut by mask algebra (deepseek_block_cuts); what it
/// leaves (from the ASCII run before a block's first non-ASCII byte past
/// its last, runs of spaces across a block's edge) by the walker
/// (deepseek_match_end), code point by code point.
template <class Fn>
void scan_deepseek(std::string_view s, Fn&& fn) {
  split_detail::Text x(s, char_flags());
  split_detail::scan_blocks_with_gaps(
      s,
      [&](std::size_t base, const simd::ByteClassMasks& m, std::uint64_t& cuts, std::uint64_t& gaps) {
        return deepseek_block_cuts(x, base, m, cuts, gaps);
      },
      [&](std::size_t i) { return deepseek_match_end(x, i); }, fn);
}

// Returns the first position at or after i where a \p{N} or a
// deepseek_cjk_at char starts, or size().
inline std::size_t deepseek_chain_edge(const split_detail::Text& x, std::size_t i) noexcept {
  while (i < x.n) {
    if (x.b[i] < 0x80) {
      if (static_cast<unsigned char>(x.b[i] - '0') < 10) return i;
      i += 1 + simd::find_nonascii_or_in(reinterpret_cast<const char*>(x.b) + i + 1, x.n - i - 1, {'0', 10});
      continue;
    }
    std::size_t len;
    if ((x.flags(i, len) & kFlagN) || deepseek_cjk_at(x.b + i)) return i;
    i += len;
  }
  return x.n;
}

/// Calls fn(start, end) for each successive match of DeepSeek V3's
/// pre-tokenizer chain, Split(Isolated) by kDeepSeekDigitsPattern, then by
/// kDeepSeekCjkPattern, then by kDeepSeekPattern, in one pass: the matches
/// of all three, in order, so that the gaps between them are the chain's
/// other pieces. The digit groups and CJK runs cut the text that the last
/// pattern sees, e.g. the spaces of "a  1" are one match, as at a text's end.
/// Blocks are cut by deepseek_block_cuts<true>; the walker matches the
/// last pattern on the text up to the next digit or CJK char.
template <class Fn>
void scan_deepseek_chain(std::string_view s, Fn&& fn) {
  split_detail::Text x(s, char_flags());
  // The next digit or CJK char at or after the walker's position (kNoMatch:
  // not looked for yet), and the text up to it.
  std::size_t edge = split_detail::kNoMatch;
  split_detail::Text before_edge = x;
  auto match_end = [&](std::size_t i) {
    if (edge == split_detail::kNoMatch || i > edge) {
      edge = deepseek_chain_edge(x, i);
      before_edge = split_detail::Text(s.substr(0, edge), char_flags());
    }
    if (i < edge) return deepseek_match_end(before_edge, i);
    std::size_t len;
    if (x.flags(i, len) & kFlagN) return deepseek_digits_end(x, i + len);
    return deepseek_cjk_end(x.b, x.n, i + 3);
  };
  split_detail::scan_blocks_with_gaps(
      s,
      [&](std::size_t base, const simd::ByteClassMasks& m, std::uint64_t& cuts, std::uint64_t& gaps) {
        return deepseek_block_cuts<true>(x, base, m, cuts, gaps);
      },
      match_end, fn);
}

}  // namespace snaptok::scanners
