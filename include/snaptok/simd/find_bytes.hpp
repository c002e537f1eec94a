// Byte searches and their scalar references: the first byte of a text in a
// set of at most four values (find_byte_in: AhoCorasick skips to the next
// byte that can start a pattern), the first place where two given bytes
// follow each other (find_byte_pair: the same skip when every pattern starts
// with the same two bytes, as "<|"), the first of a set of such pairs
// (find_byte_pair_in: the skip when patterns start with a few first bytes
// and several second ones, as "<｜" and "<|"), and the first byte that is not ASCII or
// lies in one ASCII range (find_nonascii_or_in: the end of an ASCII run, the
// next digit of DeepSeek's digit split), and the first place where a byte
// or two may start something (find_start: the next char a Punctuation or
// Digits pre-tokenizer may cut at, the next start of an automaton's match),
// and the masks of a few byte sets over 64-byte blocks (set_masks: the
// starts and runs of an automaton's class-run search). The references are what the SIMD
// kernels (find_bytes-inl.h, dispatched by snaptok/simd/dispatch.hpp) are
// tested against, and the path of builds without Highway.
//
//   snaptok::simd::ByteQuad set = snaptok::simd::ByteQuad::of({'<', '['});
//   std::size_t i = snaptok::simd::find_byte_in(text.data(), text.size(), set);
//   std::size_t d = snaptok::simd::find_nonascii_or_in(text.data(), text.size(), {'0', 10});
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>

namespace snaptok::simd {

/// Up to four byte values (a shorter set repeats its first value).
struct ByteQuad {
  std::uint8_t bytes[4] = {0, 0, 0, 0};

  /// Returns the set of `values` (1 to 4 of them).
  static ByteQuad of(std::span<const std::uint8_t> values) noexcept {
    ByteQuad q;
    for (std::size_t j = 0; j < 4; ++j) q.bytes[j] = values[j < values.size() ? j : 0];
    return q;
  }
  static ByteQuad of(std::initializer_list<std::uint8_t> values) noexcept {
    return of(std::span<const std::uint8_t>(values.begin(), values.size()));
  }

  bool contains(std::uint8_t b) const noexcept {
    return b == bytes[0] || b == bytes[1] || b == bytes[2] || b == bytes[3];
  }
};

/// Returns the index of the first byte of p[0..n) in `set`, or n, one byte
/// at a time.
inline std::size_t find_byte_in_scalar(const char* p, std::size_t n, const ByteQuad& set) noexcept {
  for (std::size_t i = 0; i < n; ++i) {
    if (set.contains(static_cast<std::uint8_t>(p[i]))) return i;
  }
  return n;
}

/// Returns the first i with p[i] == first and p[i + 1] == second (i + 1 <
/// n), or n, one byte at a time.
inline std::size_t find_byte_pair_scalar(const char* p, std::size_t n, std::uint8_t first,
                                         std::uint8_t second) noexcept {
  for (std::size_t i = 0; i + 1 < n; ++i) {
    if (static_cast<std::uint8_t>(p[i]) == first && static_cast<std::uint8_t>(p[i + 1]) == second) return i;
  }
  return n;
}

/// A set of byte values that a vector tests with two 16-byte table lookups:
/// b is in it when lo[b & 15] & hi[b >> 4] is not 0. Exact for a set whose
/// bytes have at most eight distinct high nibbles (each gets a bit); a
/// larger set takes in every byte.
struct NibbleSet {
  std::uint8_t lo[16] = {};
  std::uint8_t hi[16] = {};

  /// Every byte.
  static NibbleSet all() noexcept {
    NibbleSet s;
    for (std::size_t k = 0; k < 16; ++k) s.lo[k] = s.hi[k] = 0xFF;
    return s;
  }
  /// The bytes b with in[b] (every byte when they have more than eight
  /// high nibbles).
  static NibbleSet of(const bool (&in)[256]) noexcept {
    NibbleSet s;
    unsigned next_bit = 0;
    for (unsigned high = 0; high < 16; ++high) {
      bool any = false;
      for (unsigned low = 0; low < 16; ++low) any = any || in[high << 4 | low];
      if (!any) continue;
      if (next_bit == 8) return all();
      const auto bit = static_cast<std::uint8_t>(1u << next_bit++);
      s.hi[high] = bit;
      for (unsigned low = 0; low < 16; ++low) {
        if (in[high << 4 | low]) s.lo[low] = static_cast<std::uint8_t>(s.lo[low] | bit);
      }
    }
    return s;
  }
  /// The ASCII bytes b with in[b] (always exact: eight high nibbles).
  static NibbleSet ascii(const bool (&in)[128]) noexcept {
    bool all[256] = {};
    std::copy(in, in + 128, all);
    return of(all);
  }
  bool contains(std::uint8_t b) const noexcept { return (lo[b & 15] & hi[b >> 4]) != 0; }
};

/// Pairs of adjacent bytes (a, b): bit (a << 8 | b) of a 65,536-bit map,
/// whose pairs all start with one of the up to four bytes of `firsts` and
/// go on with a byte of `seconds` (the vector search looks for both, then
/// checks the map).
struct BytePairSet {
  ByteQuad firsts;
  const std::uint64_t* bits;  // kWords words
  NibbleSet seconds = NibbleSet::all();

  static constexpr std::size_t kWords = 65536 / 64;

  bool contains(std::uint8_t a, std::uint8_t b) const noexcept {
    const std::size_t pair = std::size_t{a} << 8 | b;
    return ((bits[pair / 64] >> (pair % 64)) & 1) != 0;
  }
};

/// Returns the first i with (p[i], p[i + 1]) in `set` (i + 1 < n), or n,
/// one byte at a time.
inline std::size_t find_byte_pair_in_scalar(const char* p, std::size_t n, const BytePairSet& set) noexcept {
  for (std::size_t i = 0; i + 1 < n; ++i) {
    if (set.contains(static_cast<std::uint8_t>(p[i]), static_cast<std::uint8_t>(p[i + 1]))) return i;
  }
  return n;
}

/// The ASCII bytes [first, first + count): first + count <= 0x80; count 0
/// is the empty range.
struct AsciiRange {
  std::uint8_t first = 0;
  std::uint8_t count = 0;

  bool contains(std::uint8_t b) const noexcept { return static_cast<std::uint8_t>(b - first) < count; }
};

/// Returns the index of the first byte of p[0..n) that is >= 0x80 or in
/// `range`, or n, one byte at a time.
inline std::size_t find_nonascii_or_in_scalar(const char* p, std::size_t n, AsciiRange range) noexcept {
  for (std::size_t i = 0; i < n; ++i) {
    const auto b = static_cast<std::uint8_t>(p[i]);
    if (b >= 0x80 || range.contains(b)) return i;
  }
  return n;
}

/// Where a match or a cut may start, by its first byte or two: a byte
/// >= 0x80, a byte of `alone`, or a byte of `prefix` followed by a byte of
/// `then`, by a byte >= 0x80, or by the end of the text (NibbleSet::ascii
/// sets: exact). A byte of neither set starts nothing.
struct AsciiStarts {
  NibbleSet alone;
  NibbleSet prefix;
  NibbleSet then;

  /// Whether something may start at p[i] (i < n).
  bool at(const char* p, std::size_t i, std::size_t n) const noexcept {
    const auto b = static_cast<std::uint8_t>(p[i]);
    if (b >= 0x80 || alone.contains(b)) return true;
    if (!prefix.contains(b)) return false;
    return i + 1 == n || static_cast<std::uint8_t>(p[i + 1]) >= 0x80 ||
           then.contains(static_cast<std::uint8_t>(p[i + 1]));
  }
};

/// The most byte sets one set_masks call classifies.
inline constexpr std::size_t kMaxMaskSets = 4;

/// Writes the masks of `count` byte sets over the 64-byte blocks
/// p[64b, 64b + 64) of the n bytes at p, for b < blocks: bit k of
/// out[b * count + s] is set when byte p[64b + k] is in sets[s]; bits at or
/// past n are 0. Requires 64 * (blocks - 1) < n and count <= kMaxMaskSets.
/// One byte at a time: the reference of simd::set_masks.
inline void set_masks_scalar(const char* p, std::size_t n, const NibbleSet* sets, std::size_t count,
                             std::uint64_t* out, std::size_t blocks) noexcept {
  for (std::size_t b = 0; b < blocks; ++b) {
    std::uint64_t* masks = out + b * count;
    std::fill(masks, masks + count, std::uint64_t{0});
    const std::size_t first = b * 64, end = std::min(n, first + 64);
    for (std::size_t i = first; i < end; ++i) {
      const auto byte = static_cast<std::uint8_t>(p[i]);
      for (std::size_t s = 0; s < count; ++s) {
        if (sets[s].contains(byte)) masks[s] |= std::uint64_t{1} << (i - first);
      }
    }
  }
}

/// Returns the first i with starts.at(p, i, n), or n, one byte at a time.
inline std::size_t find_start_scalar(const char* p, std::size_t n, const AsciiStarts& starts) noexcept {
  for (std::size_t i = 0; i < n; ++i) {
    if (starts.at(p, i, n)) return i;
  }
  return n;
}

}  // namespace snaptok::simd
