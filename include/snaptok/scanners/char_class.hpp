// Per-code-point classes for hand-written pattern scanners, built from the
// pinned regex classes (unicode/regex_classes.hpp), so a scanner sees \p{L},
// \p{N} and \s exactly as the pinned `tokenizers` regexes do.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "snaptok/detail/utf8.hpp"
#include "snaptok/unicode/pinned_classes.hpp"

namespace snaptok::scanners {

enum CharClass : std::uint8_t {
  kOther = 0,   // none of the below
  kLetter = 1,  // \p{L}
  kNumber = 2,  // \p{N}
  kSpace = 3,   // \s
};

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
  static const std::vector<std::uint8_t>& table = char_classes();
  std::size_t j = i;
  const char32_t cp = detail::next_cp(s, j);
  len = j - i;
  return static_cast<CharClass>(table[cp]);
}

}  // namespace snaptok::scanners
