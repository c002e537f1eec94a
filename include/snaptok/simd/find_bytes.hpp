// A set of at most four byte values, and the scalar search for the first
// byte of a text in it: the reference for the SIMD kernel (find_bytes-inl.h,
// dispatched as snaptok::simd::find_byte_in) and the path of builds
// without Highway. AhoCorasick skips to the next byte that can start a
// pattern with it.
//
//   snaptok::simd::ByteQuad set = snaptok::simd::ByteQuad::of({'<', '['});
//   std::size_t i = snaptok::simd::find_byte_in(text.data(), text.size(), set);
#pragma once

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

}  // namespace snaptok::simd
