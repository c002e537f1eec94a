// Byte classes for the SIMD pre-tokenizer scanners: the masks that
// classify_block (snaptok/simd/dispatch.hpp) returns, and the plain scalar
// reference every SIMD target is tested against.
//
// A scanner classifies 64 input bytes at a time and then finds run ends with
// count-trailing-zeros over these masks instead of walking byte by byte:
//
//   snaptok::simd::ByteClassMasks m;
//   snaptok::simd::classify_block(text.data() + pos, 64, m);
//   // length of the ASCII-letter run starting at pos:
//   std::size_t run = std::countr_zero(~m.letter);
//
// This header needs no Highway; classify_block_portable is what builds
// without Highway (SNAPTOK_NO_HIGHWAY) and Highway's HWY_SCALAR target use.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <cstring>

namespace snaptok::simd {

// One bitmask per byte class over a block of at most 64 bytes: bit i stands
// for byte p[i]. Bits at or past the block length are 0 in every mask. Each
// byte of the block is in exactly one of letter, digit, space, nonascii,
// apostrophe, other; newline and blank are subsets of space, upper of letter;
// control holds the ASCII control characters (some of them in space).
struct ByteClassMasks {
  std::uint64_t letter = 0;      // ASCII A-Z a-z
  std::uint64_t upper = 0;       // A-Z
  std::uint64_t digit = 0;       // 0-9
  std::uint64_t space = 0;       // \t \n \v \f \r and ' ' (ASCII `\s`)
  std::uint64_t newline = 0;     // \r and \n
  std::uint64_t blank = 0;       // ' ' (the optional prefix of a word)
  std::uint64_t nonascii = 0;    // bytes >= 0x80 (any part of a multi-byte UTF-8 sequence)
  std::uint64_t apostrophe = 0;  // '
  std::uint64_t other = 0;       // every remaining ASCII byte
  std::uint64_t control = 0;     // 0x00-0x1F and 0x7F

  // Clears every bit at or past n (n <= 64): the masks of a short block.
  void keep_first(std::size_t n) noexcept {
    const std::uint64_t valid = n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
    for (std::uint64_t* m :
         {&letter, &upper, &digit, &space, &newline, &blank, &nonascii, &apostrophe, &other, &control}) {
      *m &= valid;
    }
  }

  friend bool operator==(const ByteClassMasks&, const ByteClassMasks&) = default;
};

// The most bytes one classify_block call looks at.
inline constexpr std::size_t kBlockBytes = 64;

namespace detail {

enum : std::uint8_t {
  kClassLetter = 1,
  kClassDigit = 2,
  kClassSpace = 4,
  kClassNewline = 8,
  kClassNonascii = 16,
  kClassApostrophe = 32,
  kClassOther = 64,
  kClassBlank = 128,
};
// (A-Z is kClassLetter; the table has no bit left for case.)

// Returns the class bits of every byte value.
constexpr std::array<std::uint8_t, 256> make_byte_class_table() {
  std::array<std::uint8_t, 256> t{};
  for (unsigned b = 0; b < 256; ++b) {
    std::uint8_t c;
    if (b >= 0x80) {
      c = kClassNonascii;
    } else if ((b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z')) {
      c = kClassLetter;
    } else if (b >= '0' && b <= '9') {
      c = kClassDigit;
    } else if (b == '\n' || b == '\r') {
      c = kClassSpace | kClassNewline;
    } else if (b == ' ') {
      c = kClassSpace | kClassBlank;
    } else if (b == '\t' || b == '\v' || b == '\f') {
      c = kClassSpace;
    } else if (b == '\'') {
      c = kClassApostrophe;
    } else {
      c = kClassOther;
    }
    t[b] = c;
  }
  return t;
}

inline constexpr std::array<std::uint8_t, 256> kByteClassTable =
    make_byte_class_table();

}  // namespace detail

// Returns (in out) the class masks of the n <= 64 bytes at p, one byte at a
// time from a table: the reference the SIMD targets are compared with. Reads
// exactly n bytes; n > 64 is treated as 64.
inline void classify_block_scalar(const char* p, std::size_t n,
                                  ByteClassMasks& out) {
  if (n > kBlockBytes) n = kBlockBytes;
  ByteClassMasks m;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t c =
        detail::kByteClassTable[static_cast<unsigned char>(p[i])];
    const std::uint64_t bit = std::uint64_t{1} << i;
    if (c & detail::kClassLetter) m.letter |= bit;
    if (p[i] >= 'A' && p[i] <= 'Z') m.upper |= bit;
    if (c & detail::kClassDigit) m.digit |= bit;
    if (c & detail::kClassSpace) m.space |= bit;
    if (c & detail::kClassNewline) m.newline |= bit;
    if (c & detail::kClassBlank) m.blank |= bit;
    if (c & detail::kClassNonascii) m.nonascii |= bit;
    if (c & detail::kClassApostrophe) m.apostrophe |= bit;
    if (c & detail::kClassOther) m.other |= bit;
    if (static_cast<unsigned char>(p[i]) < 0x20 || p[i] == 0x7F) m.control |= bit;
  }
  out = m;
}

namespace detail {

inline constexpr std::uint64_t kOnes = 0x0101010101010101ull;
inline constexpr std::uint64_t kHigh = 0x8080808080808080ull;
inline constexpr std::uint64_t kLow7 = 0x7F7F7F7F7F7F7F7Full;

// Returns the high bit of every byte of x that equals c.
constexpr std::uint64_t swar_eq(std::uint64_t x, std::uint8_t c) {
  const std::uint64_t y = x ^ (kOnes * c);
  return ~(((y & kLow7) + kLow7) | y) & kHigh;
}

// Returns the high bit of every byte of x in [lo, hi] (lo <= hi < 0x80).
constexpr std::uint64_t swar_in(std::uint64_t x, std::uint8_t lo,
                                std::uint8_t hi) {
  const std::uint64_t a = x & kLow7;
  const std::uint64_t ge_lo = a + kOnes * static_cast<std::uint8_t>(0x80 - lo);
  const std::uint64_t gt_hi = a + kOnes * static_cast<std::uint8_t>(0x7F - hi);
  return ge_lo & ~gt_hi & ~x & kHigh;
}

// Returns bit k set iff byte k of m (only high bits set) is set.
constexpr std::uint64_t swar_movemask(std::uint64_t m) {
  return ((m >> 7) * 0x0102040810204080ull) >> 56;
}

// Returns the 8 bytes at p as a little-endian word: byte k in bits 8k..8k+7.
inline std::uint64_t load_le64(const char* p) {
  std::uint64_t x;
  std::memcpy(&x, p, 8);
  if constexpr (std::endian::native == std::endian::big) {
    std::uint64_t r = 0;
    for (int k = 0; k < 8; ++k) r = (r << 8) | ((x >> (8 * k)) & 0xFF);
    x = r;
  }
  return x;
}

// Returns the class masks of the 64 bytes at p, 8 at a time.
inline ByteClassMasks classify64_swar(const char* p) {
  ByteClassMasks m;
  for (unsigned i = 0; i < 64; i += 8) {
    const std::uint64_t x = load_le64(p + i);
    const std::uint64_t letter = swar_in(x | (kOnes * 0x20), 'a', 'z');
    const std::uint64_t upper = swar_in(x, 'A', 'Z');
    const std::uint64_t digit = swar_in(x, '0', '9');
    const std::uint64_t blank = swar_eq(x, ' ');
    const std::uint64_t space = swar_in(x, '\t', '\r') | blank;
    const std::uint64_t newline = swar_eq(x, '\n') | swar_eq(x, '\r');
    const std::uint64_t apostrophe = swar_eq(x, '\'');
    const std::uint64_t control = swar_in(x, 0x00, 0x1F) | swar_eq(x, 0x7F);
    m.letter |= swar_movemask(letter) << i;
    m.upper |= swar_movemask(upper) << i;
    m.digit |= swar_movemask(digit) << i;
    m.space |= swar_movemask(space) << i;
    m.newline |= swar_movemask(newline) << i;
    m.blank |= swar_movemask(blank) << i;
    m.nonascii |= swar_movemask(x & kHigh) << i;
    m.apostrophe |= swar_movemask(apostrophe) << i;
    m.control |= swar_movemask(control) << i;
  }
  m.other = ~(m.letter | m.digit | m.space | m.nonascii | m.apostrophe);
  return m;
}

}  // namespace detail

// Returns (in out) the same masks as classify_block_scalar, 8 bytes at a time
// in plain 64-bit arithmetic (SWAR): the path for builds without Highway and
// for Highway's 1-lane HWY_SCALAR target. Reads exactly min(n, 64) bytes.
inline void classify_block_portable(const char* p, std::size_t n,
                                    ByteClassMasks& out) {
  if (n >= kBlockBytes) {
    out = detail::classify64_swar(p);
    return;
  }
  char buf[kBlockBytes] = {};
  if (n != 0) std::memcpy(buf, p, n);
  out = detail::classify64_swar(buf);
  out.keep_first(n);
}

// classify_blocks (snaptok/simd/dispatch.hpp) in portable C++: the masks of
// the blocks p[64k, 64k + 64) for k < count, 64 * (count - 1) < n.
inline void classify_blocks_portable(const char* p, std::size_t n, ByteClassMasks* out,
                                     std::size_t count) {
  for (std::size_t k = 0; k < count; ++k) {
    classify_block_portable(p + k * kBlockBytes, n - k * kBlockBytes, out[k]);
  }
}

}  // namespace snaptok::simd
