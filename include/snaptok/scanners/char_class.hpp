// Per-code-point classes for hand-written pattern scanners, built from the
// pinned regex classes (unicode/generated/regex_classes.hpp), so a scanner sees \p{L},
// \p{N}, \s and the other classes exactly as the pinned `tokenizers` regexes
// do. Two views: CharClass (L/N/\s/other, GPT-2's scanner) and CharFlags (one
// byte of class bits per code point, in a two-stage table of ~80 KB).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "snaptok/detail/inline.hpp"
#include "snaptok/detail/utf8.hpp"
#include "snaptok/unicode/pinned_classes.hpp"

namespace snaptok::scanners {

enum CharClass : std::uint8_t {
  kOther = 0,   // none of the below
  kLetter = 1,  // \p{L}
  kNumber = 2,  // \p{N}
  kSpace = 3,   // \s
};

// One bit per class a scanner asks about; a code point has any mix of them.
enum CharFlag : std::uint8_t {
  kFlagL = 1,        // \p{L}
  kFlagM = 2,        // \p{M}
  kFlagN = 4,        // \p{N}
  kFlagPS = 8,       // \p{P} or \p{S}
  kFlagSpace = 16,   // \s
  kFlagHan = 32,     // \p{Han}
  kFlagUpper = 64,   // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
  kFlagLower = 128,  // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
};

// Class bits of every code point: blocks of 256 code points, deduplicated.
struct FlagTable {
  std::array<std::uint16_t, 0x1100> index{};  // block number of cp >> 8
  std::vector<std::uint8_t> blocks;           // block 0 covers U+0000..U+00FF

  // Returns the class bits of `cp` (at most U+10FFFF).
  std::uint8_t operator()(char32_t cp) const noexcept {
    return blocks[(std::size_t{index[cp >> 8]} << 8) | (cp & 0xFF)];
  }
};

// Returns the flag table (built once from the pinned classes).
inline const FlagTable& char_flags() {
  static const FlagTable table = [] {
    std::vector<std::uint8_t> flat(0x110000, 0);
    auto fill = [&](std::string_view name, std::uint8_t bit) {
      const auto* c = detail::find_regex_class(name);
      for (std::size_t i = 0; i < c->size; ++i) {
        for (char32_t cp = c->ranges[i].first; cp <= c->ranges[i].last; ++cp) flat[cp] |= bit;
      }
    };
    fill("L", kFlagL);
    fill("M", kFlagM);
    fill("N", kFlagN);
    fill("P", kFlagPS);
    fill("S", kFlagPS);
    fill("\\s", kFlagSpace);
    fill("Han", kFlagHan);
    for (const char* name : {"Lu", "Lt", "Lm", "Lo", "M"}) fill(name, kFlagUpper);
    for (const char* name : {"Ll", "Lm", "Lo", "M"}) fill(name, kFlagLower);
    FlagTable t;
    std::map<std::string, std::uint16_t> seen;
    for (std::size_t b = 0; b < t.index.size(); ++b) {
      std::string key(reinterpret_cast<const char*>(flat.data()) + (b << 8), 256);
      auto [it, fresh] = seen.try_emplace(std::move(key), static_cast<std::uint16_t>(seen.size()));
      if (fresh) t.blocks.insert(t.blocks.end(), flat.begin() + (b << 8), flat.begin() + ((b + 1) << 8));
      t.index[b] = it->second;
    }
    return t;
  }();
  return table;
}

// Returns the code point of the multi-byte sequence at p[0] (valid UTF-8,
// p[0] >= 0x80, inside the text) and sets `len` to its length in bytes.
SNAPTOK_ALWAYS_INLINE char32_t decode_multibyte(const unsigned char* p, std::size_t& len) noexcept {
  const unsigned char c = p[0];
  if (c < 0xE0) {
    len = 2;
    return (char32_t(c & 0x1F) << 6) | (p[1] & 0x3F);
  }
  if (c < 0xF0) {
    len = 3;
    return (char32_t(c & 0x0F) << 12) | (char32_t(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
  }
  len = 4;
  const char32_t cp = (char32_t(c & 0x07) << 18) | (char32_t(p[1] & 0x3F) << 12) |
                      (char32_t(p[2] & 0x3F) << 6) | (p[3] & 0x3F);
  return cp > 0x10FFFF ? 0x10FFFF : cp;
}

// Returns the class bits of the code point starting at p[0] (valid UTF-8,
// inside the text) and sets `len` to its length in bytes.
inline std::uint8_t flags_at(const FlagTable& t, const unsigned char* p, std::size_t& len) noexcept {
  if (p[0] < 0x80) {
    len = 1;
    return t.blocks[p[0]];
  }
  return t(decode_multibyte(p, len));
}

// Returns the CharClass of a code point with class bits `f`.
constexpr CharClass class_of_flags(std::uint8_t f) noexcept {
  return (f & kFlagSpace) ? kSpace : (f & kFlagN) ? kNumber : (f & kFlagL) ? kLetter : kOther;
}

// Returns the class table for every code point (built once, ~1.1 MB).
inline const std::vector<std::uint8_t>& char_classes() {
  static const std::vector<std::uint8_t> table = [] {
    std::vector<std::uint8_t> t(0x110000, kOther);
    auto fill = [&](std::string_view name, CharClass cls) {
      const auto* c = detail::find_regex_class(name);
      for (std::size_t i = 0; i < c->size; ++i) {
        for (char32_t cp = c->ranges[i].first; cp <= c->ranges[i].last; ++cp) t[cp] = cls;
      }
    };
    fill("L", kLetter);
    fill("N", kNumber);
    fill("\\s", kSpace);
    return t;
  }();
  return table;
}

// Returns the class of the code point at s[i] and sets `len` to its length.
inline CharClass class_at(std::string_view s, std::size_t i, std::size_t& len) {
  // ASCII: \t-\r and ' ' are \s, digits \p{N}, letters \p{L}.
  static constexpr auto kAscii = [] {
    std::array<CharClass, 128> t{};
    for (int c = 0; c < 128; ++c) {
      t[c] = (c >= '\t' && c <= '\r') || c == ' '    ? kSpace
             : (c >= '0' && c <= '9')                 ? kNumber
             : ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') ? kLetter
                                                      : kOther;
    }
    return t;
  }();
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) {
    len = 1;
    return kAscii[c];
  }
  static const FlagTable& table = char_flags();
  return class_of_flags(flags_at(table, reinterpret_cast<const unsigned char*>(s.data()) + i, len));
}

}  // namespace snaptok::scanners
