// Character properties used outside the regex engine, pinned to what the
// pinned HF `tokenizers` release does (Rust's char methods and regex classes).
#pragma once

namespace snaptok::unicode {

/// Rust char::is_whitespace / regex \s: the Unicode White_Space property.
constexpr bool is_whitespace(char32_t c) noexcept {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 ||
         c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

}  // namespace snaptok::unicode
