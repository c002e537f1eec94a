// Base64 decoding with the exact acceptance rules of the Rust crate base64
// 0.13 (STANDARD alphabet, trailing bits rejected), which HF tokenizers 0.23.3
// uses for Precompiled's precompiled_charsmap: padding is optional, '=' may
// only end the last block at a quad position 2 or 3, a length of 1 or 5
// modulo 8 is rejected, and so is anything outside A-Z a-z 0-9 + /.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace snaptok::detail {

// Returns the 6-bit value of a standard-alphabet symbol, or -1.
constexpr int base64_value(unsigned char c) noexcept {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// Decodes `in` into `out`. Returns false and sets `error` (a phrase with the
// offending offset) when base64 0.13 would reject the input.
inline bool base64_decode(std::string_view in, std::string& out,
                          std::string& error) {
  out.clear();
  const std::size_t n = in.size();
  if (n % 8 == 1 || n % 8 == 5) {
    error = "invalid base64 length " + std::to_string(n);
    return false;
  }
  // The last (possibly partial) 8-symbol block may carry padding; every
  // block before it must be plain symbols.
  const std::size_t last_block = n == 0 ? 0 : (n - 1) / 8 * 8;
  // Whole blocks: four symbols at a time through a table, three bytes out.
  static constexpr auto kValue = [] {
    std::array<std::int8_t, 256> t{};
    for (int c = 0; c < 256; ++c) t[c] = static_cast<std::int8_t>(base64_value(static_cast<unsigned char>(c)));
    return t;
  }();
  auto bad_byte = [&](std::size_t at) {
    error = "invalid base64 byte " +
            std::to_string(static_cast<unsigned char>(in[at])) +
            " at offset " + std::to_string(at);
    return false;
  };
  out.resize(last_block / 4 * 3);
  char* w = out.data();
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  for (std::size_t i = 0; i < last_block; i += 4, w += 3) {
    const int a = kValue[p[i]], b = kValue[p[i + 1]], c = kValue[p[i + 2]], d = kValue[p[i + 3]];
    if ((a | b | c | d) < 0) {
      for (std::size_t k = i;; ++k) {
        if (kValue[p[k]] < 0) return bad_byte(k);
      }
    }
    const auto x = static_cast<std::uint32_t>(a << 18 | b << 12 | c << 6 | d);
    w[0] = static_cast<char>(x >> 16);
    w[1] = static_cast<char>(x >> 8);
    w[2] = static_cast<char>(x);
  }
  // The leftover block: at most 8 symbols, then at most the padding.
  std::uint64_t left = 0;
  int morsels = 0;
  std::size_t first_pad = 0;
  bool padded = false;
  unsigned char last_symbol = 0;
  for (std::size_t i = last_block; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(in[i]);
    const std::size_t rel = i - last_block;
    if (c == '=') {
      if (rel % 4 < 2) return bad_byte(padded ? first_pad : i);
      if (!padded) first_pad = i;
      padded = true;
      continue;
    }
    if (padded) return bad_byte(first_pad);
    const int v = base64_value(c);
    if (v < 0) return bad_byte(i);
    last_symbol = c;
    left |= static_cast<std::uint64_t>(v) << (64 - (morsels + 1) * 6);
    ++morsels;
  }
  int out_bits = 0;
  switch (morsels) {
    case 0: out_bits = 0; break;
    case 2: out_bits = 8; break;
    case 3: out_bits = 16; break;
    case 4: out_bits = 24; break;
    case 6: out_bits = 32; break;
    case 7: out_bits = 40; break;
    case 8: out_bits = 48; break;
    default:
      error = "invalid base64 length " + std::to_string(n);
      return false;
  }
  const std::uint64_t mask = out_bits == 64 ? 0 : ~std::uint64_t{0} >> out_bits;
  if ((left & mask) != 0) {
    error = "invalid base64 last symbol '" +
            std::string(1, static_cast<char>(last_symbol)) + "' at offset " +
            std::to_string(last_block + static_cast<std::size_t>(morsels) - 1);
    return false;
  }
  for (int b = 0; b < out_bits; b += 8) {
    out.push_back(static_cast<char>((left >> (56 - b)) & 0xFF));
  }
  return true;
}

}  // namespace snaptok::detail
