// GPT-2's byte <-> char table: each byte maps to a printable code point
// (printable Latin-1 bytes to themselves, the others to U+0100 upward in byte
// order). Shared by the ByteLevel pre-tokenizer, normalizer, processor and
// decoder.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "snaptok/detail/utf8.hpp"

namespace snaptok::detail {

struct ByteLevelTable {
  std::array<char32_t, 256> byte_to_cp{};
  std::array<std::string, 256> byte_to_utf8{};
  // Code points below 0x144 that map back to a byte; -1 elsewhere.
  std::array<std::int16_t, 0x144> cp_to_byte{};

  ByteLevelTable() {
    cp_to_byte.fill(-1);
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) ||
                             (b >= 0xAE && b <= 0xFF);
      const char32_t cp = printable ? char32_t(b) : next++;
      byte_to_cp[b] = cp;
      append_cp(byte_to_utf8[b], cp);
      cp_to_byte[cp] = static_cast<std::int16_t>(b);
    }
  }

  // Returns the byte that `cp` stands for, or -1.
  int byte_of(char32_t cp) const noexcept {
    return cp < cp_to_byte.size() ? cp_to_byte[cp] : -1;
  }

  // Returns the byte-level text of `bytes` (each byte's char), e.g. " a"
  // gives "Ġa".
  std::string text_of(std::string_view bytes) const {
    std::string out;
    for (const char c : bytes) out += byte_to_utf8[static_cast<unsigned char>(c)];
    return out;
  }
};

inline const ByteLevelTable& byte_level_table() {
  static const ByteLevelTable table;
  return table;
}

}  // namespace snaptok::detail
