// UTF-8 helpers shared by every stage. Input text is validated once at the
// API boundary; everything below assumes well-formed UTF-8.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "snaptok/error.hpp"

namespace snaptok::detail {

// Returns the byte length of the UTF-8 sequence that starts with `lead`.
constexpr std::size_t utf8_len(unsigned char lead) noexcept {
  return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}

// Returns the code point starting at s[i] and advances i past it.
inline char32_t next_cp(std::string_view s, std::size_t& i) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data()) + i;
  const unsigned char c = p[0];
  if (c < 0x80) {
    i += 1;
    return c;
  }
  if (c < 0xE0) {
    i += 2;
    return (char32_t(c & 0x1F) << 6) | (p[1] & 0x3F);
  }
  if (c < 0xF0) {
    i += 3;
    return (char32_t(c & 0x0F) << 12) | (char32_t(p[1] & 0x3F) << 6) |
           (p[2] & 0x3F);
  }
  i += 4;
  return (char32_t(c & 0x07) << 18) | (char32_t(p[1] & 0x3F) << 12) |
         (char32_t(p[2] & 0x3F) << 6) | (p[3] & 0x3F);
}

// Returns the code point that ends just before s[i] and moves i back to its start.
inline char32_t prev_cp(std::string_view s, std::size_t& i) noexcept {
  std::size_t j = i - 1;
  while (j > 0 && (static_cast<unsigned char>(s[j]) & 0xC0) == 0x80) --j;
  std::size_t k = j;
  const char32_t cp = next_cp(s, k);
  i = j;
  return cp;
}

// Returns the number of bytes needed to encode `cp` in UTF-8.
constexpr std::size_t cp_len(char32_t cp) noexcept {
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

// Appends the UTF-8 encoding of `cp` to `out`.
inline void append_cp(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Returns the number of code points in valid UTF-8 `s`.
inline std::size_t count_cps(std::string_view s) noexcept {
  std::size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// Returns true when s[i] is the first byte of a code point (or i == size).
inline bool is_char_boundary(std::string_view s, std::size_t i) noexcept {
  return i >= s.size() || (static_cast<unsigned char>(s[i]) & 0xC0) != 0x80;
}

// Returns the index of the char each byte of valid UTF-8 `s` belongs to,
// then one entry past the end: the number of chars (byte offsets to char
// offsets, as HF's Encoding and pre_tokenize_str give them).
inline std::vector<std::uint32_t> char_index_of_bytes(std::string_view s) {
  std::vector<std::uint32_t> index(s.size() + 1);
  std::uint32_t chars = 0;  // chars begun so far
  for (std::size_t i = 0; i < s.size(); ++i) {
    chars += is_char_boundary(s, i);
    index[i] = chars - 1;
  }
  index[s.size()] = chars;
  return index;
}

// Returns the end of the run of ASCII bytes of `s` from i: the first j >= i
// whose byte is >= 0x80, or s.size(). 32 bytes a step in plain 64-bit words
// (only the high bits matter).
inline std::size_t ascii_run_end(std::string_view s, std::size_t i) noexcept {
  constexpr std::uint64_t kHigh = 0x8080808080808080ull;
  const char* p = s.data();
  const std::size_t n = s.size();
  auto word = [p](std::size_t at) {
    std::uint64_t w;
    std::memcpy(&w, p + at, 8);
    return w;
  };
  while (i + 32 <= n && ((word(i) | word(i + 8) | word(i + 16) | word(i + 24)) & kHigh) == 0) i += 32;
  while (i + 8 <= n) {
    const std::uint64_t high = word(i) & kHigh;
    if (high != 0) {
      const int bit = std::endian::native == std::endian::little ? std::countr_zero(high) : std::countl_zero(high);
      return i + static_cast<std::size_t>(bit) / 8;
    }
    i += 8;
  }
  while (i < n && static_cast<unsigned char>(p[i]) < 0x80) ++i;
  return i;
}

// Returns the offset of the first invalid UTF-8 byte in `s`, or npos when `s`
// is valid (overlong forms, surrogates and values above U+10FFFF are invalid).
inline std::size_t find_invalid_utf8(std::string_view s) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    i = ascii_run_end(s, i);
    if (i >= n) break;
    const unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len;
    char32_t min;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4, min = 0x10000;
    } else {
      return i;
    }
    if (i + len > n) return i;
    char32_t cp = c & (0x7F >> len);
    for (std::size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += len;
  }
  return std::string_view::npos;
}

/// What require_utf8 throws: an Error naming the text ("input text") and the
/// first invalid byte, which batch calls rename to the item ("texts[3]").
class InvalidUtf8 : public Error {
 public:
  InvalidUtf8(std::string_view subject, std::size_t byte)
      : Error(std::string(subject) + ": invalid UTF-8 at byte " + std::to_string(byte)),
        subject_(subject),
        byte_(byte) {}
  const std::string& subject() const noexcept { return subject_; }
  std::size_t byte() const noexcept { return byte_; }

 private:
  std::string subject_;
  std::size_t byte_;
};

// Throws InvalidUtf8 naming `what` and the byte offset when `s` is not
// valid UTF-8 (offsets count from `first_byte`: where `s` starts in a
// larger text).
inline void require_utf8(std::string_view s, std::string_view what, std::size_t first_byte = 0) {
  // simdjson's validator (SIMD, runtime dispatched) answers yes or no; the
  // scalar walk runs only to name the byte of an invalid text.
  if (simdjson::validate_utf8(s.data(), s.size())) return;
  const std::size_t bad = find_invalid_utf8(s);
  if (bad != std::string_view::npos) {
    throw InvalidUtf8(what, first_byte + bad);
  }
}

// Returns the char offset of byte offset `byte` in valid UTF-8 `s`.
inline std::size_t byte_to_char(std::string_view s, std::size_t byte) noexcept {
  return count_cps(s.substr(0, byte));
}

}  // namespace snaptok::detail
