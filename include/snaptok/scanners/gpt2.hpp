// An exact hand-written matcher for GPT-2's pre-tokenization pattern
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// giving the same successive matches as Oniguruma does, at a fraction of the
// cost. Every char matches some alternative, so matches tile the text; at each
// position the alternatives are tried in pattern order, as the regex would.
// A scanner of its own rather than a SplitRules variant: GPT-2 differs from
// the cl100k family in every alternative (case-sensitive contractions, only
// ' ' as a prefix, \p{N}+, no [\r\n]* tail, no \s*[\r\n]+), and its loop is
// short. It shares split_family's Text (class table + byte-class masks).
//
// tiktoken spells the same pattern (r50k_base, p50k_base, gpt2)
//   '(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s
// and it has the same matches under Oniguruma: the possessive runs end where
// the greedy ones do (nothing follows them); after the maximal \s++ only the
// end of the text can satisfy `$`, which is where \s+(?!\S) would take the
// whole run too; and \s+(?!\S) fails only on a single space char before a
// non-space, which \s and \s+ both take alone.
//
// With `SingleDigits` it reproduces the variant with ` ?\p{N}` for
// ` ?\p{N}+` (kGpt2SingleDigitPattern): each digit a match of its own, the
// first after a ' ' with it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "snaptok/detail/inline.hpp"
#include "snaptok/scanners/char_class.hpp"
#include "snaptok/scanners/split_family.hpp"
#include "snaptok/simd/byte_classes.hpp"
#include "snaptok/simd/dispatch.hpp"

namespace snaptok::scanners {

inline constexpr std::string_view kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
inline constexpr std::string_view kGpt2TiktokenPattern =
    R"('(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s)";
inline constexpr std::string_view kGpt2SingleDigitPattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

// Returns the length of the contraction ('s 't 're 've 'm 'll 'd) at s[i],
// or 0.
inline std::size_t gpt2_contraction(std::string_view s, std::size_t i) {
  if (i + 1 >= s.size() || s[i] != '\'') return 0;
  const char a = s[i + 1];
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
  if (i + 2 < s.size()) {
    const char b = s[i + 2];
    if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
  }
  return 0;
}

// Returns the end of `\s+(?!\S)|\s+` from i (a \s code point): the
// whitespace run, minus its last code point when a non-space follows; a
// single whitespace code point before a non-space falls to `\s+`.
inline std::size_t gpt2_space_end(split_detail::Text& x, std::size_t i) noexcept {
  std::size_t j = i, last = i, last_nl = split_detail::kNoMatch;
  for (;;) {
    const std::size_t a = x.ascii_space_end(j, last_nl);
    if (a > j) {
      last = a - 1;
      j = a;
    }
    if (j >= x.n || x.b[j] < 0x80) break;
    std::size_t len;
    if (!(x.flags(j, len) & kFlagSpace)) break;
    last = j;
    j += len;
  }
  return j < x.n && last > i ? last : j;
}

// Returns the end of the match that starts at i < size(): the pattern's
// alternatives tried in order, one code point class at a time (the walker
// for text the block algebra below does not settle).
template <bool SingleDigits>
std::size_t gpt2_match_end(split_detail::Text& x, std::string_view s, std::size_t i) {
  using split_detail::kAsciiL;
  using split_detail::kAsciiN;
  using split_detail::kAsciiPunct;
  auto letter = [](std::uint8_t f) { return class_of_flags(f) == kLetter; };
  auto number = [](std::uint8_t f) { return class_of_flags(f) == kNumber; };
  auto other = [](std::uint8_t f) { return class_of_flags(f) == kOther; };
  const unsigned char c = x.b[i];
  if (c == '\'') {
    if (const std::size_t k = gpt2_contraction(s, i)) return i + k;
  }
  // ` ?\p{L}+`, ` ?\p{N}+` or ` ?[^\s\p{L}\p{N}]+`, by the class of the
  // code point at q (after the optional ' '); `\s...` from i when it is \s.
  const std::size_t q = c == ' ' && i + 1 < x.n ? i + 1 : i;
  const unsigned char d = x.b[q];
  if (d < 0x80) {
    const std::uint8_t f = x.blocks[d];
    if (f & kFlagL) return x.run_end<kAsciiL>(q + 1, letter);
    if (f & kFlagN) return SingleDigits ? q + 1 : x.run_end<kAsciiN>(q + 1, number);
    if (!(f & kFlagSpace)) return x.run_end<kAsciiPunct>(q + 1, other);
    return gpt2_space_end(x, i);
  }
  std::size_t len;
  switch (class_of_flags(x.flags(q, len))) {
    case kLetter: return x.run_end<kAsciiL>(q + len, letter);
    case kNumber: return SingleDigits ? q + len : x.run_end<kAsciiN>(q + len, number);
    case kOther: return x.run_end<kAsciiPunct>(q + len, other);
    default: return gpt2_space_end(x, i);
  }
}

// Sets `starts` to the match starts in the all-ASCII block at `base` (bit j:
// a match starts at base + j, if the match in progress started before it),
// by algebra over the block's class masks `m`:
//  - a match starts where the class (letter, digit, space, punctuation with
//    the apostrophe) changes, and at every digit with `SingleDigits`;
//  - the last space of a run, before a non-space, is a match of its own
//    (`\s+(?!\S)` stops short of it); a ' ' there prefixes the next match;
//  - a contraction at a match start is a match, and a new one starts after it.
// Settles the block up to a contraction that reaches past it (the walker
// takes it on from there (scan_blocks caps a block with non-ASCII bytes at
// the ASCII run before the first, split_detail::settle_limit), and none of a
// block that opens with an apostrophe after a non-ASCII char (see
// split_detail::BlockVerdict).
template <bool SingleDigits>
SNAPTOK_ALWAYS_INLINE split_detail::BlockVerdict gpt2_block_starts(split_detail::Text& x, std::string_view s,
                                                                   std::size_t base, const simd::ByteClassMasks& m,
                                                                   std::uint64_t& starts) {
  using split_detail::BlockVerdict;
  using simd::detail::kByteClassTable;
  namespace cls = simd::detail;
  const std::size_t n = s.size();
  const std::size_t len = n - base < 64 ? n - base : 64;
  const std::uint64_t valid = len == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << len) - 1;
  const std::uint8_t before = base > 0 ? kByteClassTable[x.b[base - 1]] : 0;
  auto shifted_in = [&](std::uint64_t mask, unsigned cls_bits) {
    return (mask << 1) | ((before & cls_bits) != 0);
  };
  const std::uint64_t punct = m.apostrophe | m.other;
  const std::uint64_t same =
      (m.letter & shifted_in(m.letter, cls::kClassLetter)) |
      (SingleDigits ? 0 : m.digit & shifted_in(m.digit, cls::kClassDigit)) |
      (punct & shifted_in(punct, cls::kClassApostrophe | cls::kClassOther)) |
      (m.space & shifted_in(m.space, cls::kClassSpace));
  // Bit j: the code point after byte j is a space, or the text ends there
  // (a run of spaces that ends the text is one match). (Not looked at after
  // a block with non-ASCII bytes, whose end is never settled: the byte after
  // it may be inside a char.)
  bool after_is_space = true;
  if (base + 64 < n && m.nonascii == 0) {
    const unsigned char after = x.b[base + 64];
    std::size_t cp_len;
    after_is_space = after < 0x80 ? (kByteClassTable[after] & cls::kClassSpace) != 0
                                  : (x.flags(base + 64, cp_len) & kFlagSpace) != 0;
  }
  const std::uint64_t next_space = (m.space >> 1) | (len == 64 ? std::uint64_t{after_is_space} << 63
                                                               : std::uint64_t{1} << (len - 1));
  const std::uint64_t last_space = m.space & ~next_space;
  const std::uint64_t prefix = last_space & m.blank;
  const bool prefix_before = base > 0 && x.b[base - 1] == ' ' && (m.space & 1) == 0;
  starts = (~same | last_space) & ~((prefix << 1) | std::uint64_t{prefix_before}) & valid;
  // An apostrophe right after a non-ASCII char may end that char's
  // punctuation match (the walker's), and then starts no contraction.
  if ((before & cls::kClassNonascii) && (m.apostrophe & 1)) return BlockVerdict::none();
  unsigned settled = 64;
  for (std::uint64_t a = starts & m.apostrophe; a != 0; a &= a - 1) {
    const auto j = static_cast<std::size_t>(std::countr_zero(a));
    if (j >= settled) break;
    const std::size_t k = gpt2_contraction(s, base + j);
    if (k == 0) continue;
    if (j + k >= settled) {  // the contraction is the match in progress
      settled = static_cast<unsigned>(j);
      break;
    }
    starts &= ~(((std::uint64_t{1} << (k - 1)) - 1) << (j + 1));
    if (base + j + k < n) starts |= std::uint64_t{1} << (j + k);
  }
  return BlockVerdict::before(settled);
}

/// Calls fn(start, end) for each successive match of the GPT-2 pattern (with
/// `SingleDigits`, of kGpt2SingleDigitPattern), e.g.
///   scan_gpt2(text, [](std::size_t s, std::size_t e) {...});
/// 64-byte blocks are cut by mask algebra (gpt2_block_starts); the walker
/// (gpt2_match_end) takes, code point by code point, a block with non-ASCII
/// bytes from the ASCII run before the first up to the last, and a
/// contraction across a block's end (see split_detail::scan_blocks).
template <bool SingleDigits = false, class Fn>
void scan_gpt2(std::string_view s, Fn&& fn) {
  split_detail::Text x(s, char_flags());
  split_detail::scan_blocks(
      s,
      [&](std::size_t base, const simd::ByteClassMasks& m, std::uint64_t& starts) {
        return gpt2_block_starts<SingleDigits>(x, s, base, m, starts);
      },
      [&](std::size_t i) { return gpt2_match_end<SingleDigits>(x, s, i); }, fn);
}

}  // namespace snaptok::scanners
