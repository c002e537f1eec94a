// An exact hand-written matcher for GPT-2's pre-tokenization pattern
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// giving the same successive matches as Oniguruma does, at a fraction of the
// cost. Every char matches some alternative, so matches tile the text; at each
// position the alternatives are tried in pattern order, as the regex would.
// A scanner of its own rather than a SplitRules variant: GPT-2 differs from
// the cl100k family in every alternative (case-sensitive contractions, only
// ' ' as a prefix, \p{N}+, no [\r\n]* tail, no \s*[\r\n]+), and its loop is
// short. It shares split_family's Text (class table + byte-class masks).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "snaptok/scanners/char_class.hpp"
#include "snaptok/scanners/split_family.hpp"

namespace snaptok::scanners {

inline constexpr std::string_view kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

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
  std::size_t j = i, last = i;
  for (;;) {
    const std::size_t a = x.masks.run_end<split_detail::kAsciiSpace>(j);
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

/// Calls fn(start, end) for each successive match of the GPT-2 pattern, e.g.
///   scan_gpt2(text, [](std::size_t s, std::size_t e) {...});
/// ASCII runs are measured on the byte-class masks (block_masks.hpp),
/// non-ASCII code points on the pinned classes (char_class.hpp).
template <class Fn>
void scan_gpt2(std::string_view s, Fn&& fn) {
  using split_detail::kAsciiL;
  using split_detail::kAsciiN;
  using split_detail::kAsciiPunct;
  split_detail::Text x(s, char_flags());
  const std::size_t n = s.size();
  auto letter = [](std::uint8_t f) { return class_of_flags(f) == kLetter; };
  auto number = [](std::uint8_t f) { return class_of_flags(f) == kNumber; };
  auto other = [](std::uint8_t f) { return class_of_flags(f) == kOther; };
  std::size_t i = 0;
  while (i < n) {
    const unsigned char c = x.b[i];
    if (c == '\'') {
      if (const std::size_t k = gpt2_contraction(s, i)) {
        fn(i, i + k);
        i += k;
        continue;
      }
    }
    // ` ?\p{L}+`, ` ?\p{N}+` or ` ?[^\s\p{L}\p{N}]+`, by the class of the
    // code point at q (after the optional ' '); `\s...` from i when it is \s.
    const std::size_t q = c == ' ' && i + 1 < n ? i + 1 : i;
    const unsigned char d = x.b[q];
    std::size_t e;
    if (d < 0x80) {
      const std::uint8_t f = x.blocks[d];
      if (f & kFlagL) {
        e = x.run_end<kAsciiL>(q + 1, letter);
      } else if (f & kFlagN) {
        e = x.run_end<kAsciiN>(q + 1, number);
      } else if (!(f & kFlagSpace)) {
        e = x.run_end<kAsciiPunct>(q + 1, other);
      } else {
        e = gpt2_space_end(x, i);
      }
    } else {
      std::size_t len;
      switch (class_of_flags(x.flags(q, len))) {
        case kLetter: e = x.run_end<kAsciiL>(q + len, letter); break;
        case kNumber: e = x.run_end<kAsciiN>(q + len, number); break;
        case kOther: e = x.run_end<kAsciiPunct>(q + len, other); break;
        default: e = gpt2_space_end(x, i); break;
      }
    }
    fn(i, e);
    i = e;
  }
}

}  // namespace snaptok::scanners
