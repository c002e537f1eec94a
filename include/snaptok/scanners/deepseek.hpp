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
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "snaptok/scanners/block_masks.hpp"
#include "snaptok/scanners/char_class.hpp"
#include "snaptok/scanners/split_family.hpp"
#include "snaptok/simd/byte_classes.hpp"

namespace snaptok::scanners {

inline constexpr std::string_view kDeepSeekDigitsPattern = R"(\p{N}{1,3})";
inline constexpr std::string_view kDeepSeekCjkPattern =
    "[\xE4\xB8\x80-\xE9\xBE\xA5\xE3\x81\x80-\xE3\x82\x9F\xE3\x82\xA0-\xE3\x83\xBF]+";
inline constexpr std::string_view kDeepSeekPattern =
    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|"
    "[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|"
    "\\s*[\r\n]+|\\s+(?!\\S)|\\s+";

/// Calls fn(start, end) for each successive match of \p{N}{1,3}.
template <class Fn>
void scan_deepseek_digits(std::string_view s, Fn&& fn) {
  split_detail::Text x(s, char_flags());
  std::size_t i = 0;
  while (i < x.n) {
    if (x.b[i] < 0x80 && static_cast<unsigned char>(x.b[i] - '0') >= 10) {
      // Skip ASCII that is not a digit by the masks.
      i = x.masks.run_end<kBytesAscii & ~kBytesDigit>(i + 1);
      continue;
    }
    std::size_t len;
    if (!(x.flags(i, len) & kFlagN)) {
      i += len;
      continue;
    }
    std::size_t e = i + len;
    for (int k = 1; k < 3 && e < x.n; ++k) {
      std::size_t len2;
      if (!(x.flags(e, len2) & kFlagN)) break;
      e += len2;
    }
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

// Returns the end of the run of ASCII bytes from i. Only the high bits
// matter here, so plain 64-bit words (32 bytes a step) outrun the class
// masks, which classify every byte fully.
inline std::size_t ascii_end(const unsigned char* b, std::size_t n, std::size_t i) noexcept {
  constexpr std::uint64_t kHigh = 0x8080808080808080ull;
  const char* p = reinterpret_cast<const char*>(b);
  while (i + 32 <= n) {
    const std::uint64_t w0 = simd::detail::load_le64(p + i), w1 = simd::detail::load_le64(p + i + 8),
                        w2 = simd::detail::load_le64(p + i + 16), w3 = simd::detail::load_le64(p + i + 24);
    if (((w0 | w1 | w2 | w3) & kHigh) != 0) break;
    i += 32;
  }
  while (i + 8 <= n) {
    const std::uint64_t high = simd::detail::load_le64(p + i) & kHigh;
    if (high != 0) return i + static_cast<std::size_t>(std::countr_zero(high)) / 8;
    i += 8;
  }
  while (i < n && b[i] < 0x80) ++i;
  return i;
}

/// Calls fn(start, end) for each successive match of [一-龥぀-ゟ゠-ヿ]+.
template <class Fn>
void scan_deepseek_cjk(std::string_view s, Fn&& fn) {
  const auto* b = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    if (b[i] < 0x80) {
      i = ascii_end(b, n, i + 1);
      continue;
    }
    if (!deepseek_cjk_at(b + i)) {
      i += detail::utf8_len(b[i]);
      continue;
    }
    std::size_t e = i + 3;
    while (e < n && deepseek_cjk_at(b + e)) e += 3;
    fn(i, e);
    i = e;
  }
}

/// Calls fn(start, end) for each successive match of kDeepSeekPattern.
template <class Fn>
void scan_deepseek(std::string_view s, Fn&& fn) {
  using split_detail::kAsciiL;
  split_detail::Text x(s, char_flags());
  const std::size_t n = s.size();
  auto word = [](std::uint8_t g) { return (g & (kFlagL | kFlagM)) != 0; };
  auto punct = [](std::uint8_t g) { return (g & kFlagPS) != 0; };
  auto ascii_letter = [](unsigned char c) { return static_cast<unsigned char>((c | 0x20) - 'a') < 26; };
  std::size_t i = 0;
  while (i < n) {
    const unsigned char c = x.b[i];
    if (c == ' ' && i + 1 < n && ascii_letter(x.b[i + 1])) {
      // Fast path: ' ' and an ASCII word.
      const std::size_t e = x.run_end<kAsciiL>(i + 2, word);
      fn(i, e);
      i = e;
      continue;
    }
    std::size_t len;
    const std::uint8_t f = x.flags(i, len);
    std::size_t e = split_detail::kNoMatch;
    std::size_t len2 = 0;
    if (c < 0x80 && (f & kFlagPS) && i + 1 < n && ascii_letter(x.b[i + 1])) {
      // [!"#...~][A-Za-z]+ (the ASCII \p{P} and \p{S} are exactly that set).
      e = x.masks.run_end<kBytesLetter>(i + 2);
    } else if (word(f)) {
      e = x.run_end<kAsciiL>(i + len, word);
    } else if (!(f & (kFlagL | kFlagPS)) && c != '\r' && c != '\n' && i + len < n &&
               word(x.flags(i + len, len2))) {
      e = x.run_end(i + len + len2, word);
    } else if (punct(f) || (c == ' ' && i + 1 < n && punct(x.flags(i + 1, len2)))) {
      e = x.tail_end(x.run_end(c == ' ' ? i + 1 : i + len, punct), false);
    } else if (f & kFlagSpace) {
      e = x.space_end(i, false);
    } else {
      i += len;
      continue;
    }
    fn(i, e);
    i = e;
  }
}

}  // namespace snaptok::scanners
