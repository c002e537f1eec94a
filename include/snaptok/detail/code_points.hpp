// Text held as code points of one fixed width, the way CPython holds a str
// (PEP 393): 1 byte per char (Latin-1), 2 (UCS-2) or 4 (UTF-32). A batch
// call reads a long such text part by part, and the worker that encodes a
// part converts it to UTF-8 first (to_utf8), so the text never exists whole
// in UTF-8: CPython's own UTF-8 copy of a str is made serially, before the
// threads start, and stays attached to the str for its lifetime.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "snaptok/error.hpp"
#include "snaptok/simd/dispatch.hpp"

namespace snaptok::detail {

/// A view of `size` code points of `width` bytes each (1, 2 or 4) at
/// `data`; empty (false) when data is null.
struct CodePoints {
  const void* data = nullptr;
  std::size_t size = 0;
  unsigned width = 1;

  explicit operator bool() const noexcept { return data != nullptr; }
  // Returns the `count` code points from `begin`.
  CodePoints sub(std::size_t begin, std::size_t count) const noexcept {
    return {static_cast<const char*>(data) + begin * width, count, width};
  }
  // Returns fn(units): the code points as an array of their own width
  // (const std::uint8_t*, std::uint16_t* or std::uint32_t*).
  template <class Fn>
  decltype(auto) visit(Fn&& fn) const {
    switch (width) {
      case 1: return fn(static_cast<const std::uint8_t*>(data));
      case 2: return fn(static_cast<const std::uint16_t*>(data));
      default: return fn(static_cast<const std::uint32_t*>(data));
    }
  }
};

/// Thrown for a code point UTF-8 cannot encode (a surrogate, or a value
/// above U+10FFFF), naming `subject` and the char's index in it.
class UnencodableChar : public Error {
 public:
  UnencodableChar(std::string_view subject, std::size_t index, char32_t value)
      : Error(std::string(subject) + ": char " + std::to_string(index) + " is " + hex(value) +
              ", which UTF-8 cannot encode (a lone surrogate, or above U+10FFFF)"),
        subject_(subject),
        index_(index),
        value_(value) {}
  const std::string& subject() const noexcept { return subject_; }
  std::size_t index() const noexcept { return index_; }
  char32_t value() const noexcept { return value_; }

 private:
  static std::string hex(char32_t v) {
    static constexpr char kDigits[] = "0123456789ABCDEF";
    std::string s;
    for (int shift = v > 0xFFFF ? 20 : 12; shift >= 0; shift -= 4) s.push_back(kDigits[(v >> shift) & 0xF]);
    return "U+" + s;
  }
  std::string subject_;
  std::size_t index_;
  char32_t value_;
};

/// A growable byte buffer that leaves the pages it does not write
/// untouched (std::string would zero them when resized).
class Utf8Buffer {
 public:
  /// The buffer is released after a use that grew it past this (a part
  /// of a long text, under 384 K chars, needs at most 1.5 MB; a whole
  /// text that could not be cut needs more, once).
  static constexpr std::size_t kKeptBytes = std::size_t{2} << 20;

  // Returns room for at least `bytes` bytes (the contents are not kept).
  char* room(std::size_t bytes) {
    if (bytes > capacity_) {
      data_.reset();
      data_.reset(new char[bytes]);
      capacity_ = bytes;
    }
    return data_.get();
  }
  // Frees the buffer when it is larger than kKeptBytes.
  void trim() noexcept {
    if (capacity_ > kKeptBytes) {
      data_.reset();
      capacity_ = 0;
    }
  }

 private:
  std::unique_ptr<char[]> data_;
  std::size_t capacity_ = 0;
};

namespace code_points_detail {

// Writes the ASCII code units that begin text[0, size) to `out` as bytes
// and returns how many: a vector kernel for 2- and 4-byte units, a search
// and a copy for Latin-1's single bytes (ASCII already).
inline std::size_t ascii_run(const std::uint8_t* text, std::size_t size, char* out) noexcept {
  const std::size_t n = simd::find_nonascii_or_in(reinterpret_cast<const char*>(text), size, {});
  std::memcpy(out, text, n);
  return n;
}
inline std::size_t ascii_run(const std::uint16_t* text, std::size_t size, char* out) noexcept {
  return simd::narrow_ascii(text, size, out);
}
inline std::size_t ascii_run(const std::uint32_t* text, std::size_t size, char* out) noexcept {
  return simd::narrow_ascii(text, size, out);
}

// Writes the UTF-8 of text[0, size) to `out` (room for 4 bytes a char at
// most) and returns its length, or sets `bad` to the index of the first
// char UTF-8 cannot encode and returns kUnencodable.
inline constexpr std::size_t kUnencodable = ~std::size_t{0};
template <class Unit>
std::size_t write_utf8(const Unit* text, std::size_t size, char* out, std::size_t& bad) noexcept {
  char* o = out;
  std::size_t i = 0;
  while (i < size) {
    const std::size_t run = ascii_run(text + i, size - i, o);
    i += run;
    o += run;
    for (; i < size && text[i] >= 0x80; ++i) {
      const char32_t c = text[i];
      if (c < 0x800) {
        *o++ = static_cast<char>(0xC0 | (c >> 6));
        *o++ = static_cast<char>(0x80 | (c & 0x3F));
      } else if (c < 0x10000) {
        if (c >= 0xD800 && c < 0xE000) {
          bad = i;
          return kUnencodable;
        }
        *o++ = static_cast<char>(0xE0 | (c >> 12));
        *o++ = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        *o++ = static_cast<char>(0x80 | (c & 0x3F));
      } else {
        if (c > 0x10FFFF) {
          bad = i;
          return kUnencodable;
        }
        *o++ = static_cast<char>(0xF0 | (c >> 18));
        *o++ = static_cast<char>(0x80 | ((c >> 12) & 0x3F));
        *o++ = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        *o++ = static_cast<char>(0x80 | (c & 0x3F));
      }
    }
  }
  return static_cast<std::size_t>(o - out);
}

}  // namespace code_points_detail

/// Returns the UTF-8 of `text`, written into `buffer` (valid until its
/// next use), or throws UnencodableChar naming `what` and the char's index
/// counted from `first_char` (where `text` starts in a larger text).
inline std::string_view to_utf8(CodePoints text, Utf8Buffer& buffer, std::string_view what,
                                 std::size_t first_char = 0) {
  // UTF-8 takes at most 2 bytes for a Latin-1 char, 3 for a UCS-2 one, 4.
  char* out = buffer.room(text.size * (text.width == 1 ? 2 : text.width == 2 ? 3 : 4) + 1);
  std::size_t bad = 0;
  const std::size_t length =
      text.visit([&](const auto* units) { return code_points_detail::write_utf8(units, text.size, out, bad); });
  if (length == code_points_detail::kUnencodable) {
    throw UnencodableChar(what, first_char + bad, text.visit([&](const auto* units) { return char32_t{units[bad]}; }));
  }
  return {out, length};
}

}  // namespace snaptok::detail
