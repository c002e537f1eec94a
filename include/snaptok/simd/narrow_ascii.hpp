// Code units to bytes: the leading run of ASCII code units (below 0x80) of
// a UCS-2 or UTF-32 text (CPython's 2- and 4-byte strs), written as bytes
// (narrow_ascii: the fast path of detail::to_utf8, which converts a long
// str part by part). The scalar reference is what the kernels
// (narrow_ascii-inl.h, dispatched by snaptok/simd/dispatch.hpp) are tested
// against, and the path of builds without Highway.
//
//   const std::u32string s = U"abc\u00e9";
//   char out[4];
//   std::size_t n = snaptok::simd::narrow_ascii(
//       reinterpret_cast<const std::uint32_t*>(s.data()), s.size(), out);  // 3: "abc"
#pragma once

#include <cstddef>
#include <cstdint>

namespace snaptok::simd {

/// Writes the leading code units of p[0..n) that are below 0x80 to out as
/// bytes and returns how many (n when all are), one at a time. Writes
/// nothing past out[returned).
template <class Unit>
std::size_t narrow_ascii_scalar(const Unit* p, std::size_t n, char* out) noexcept {
  std::size_t i = 0;
  for (; i < n && p[i] < 0x80; ++i) out[i] = static_cast<char>(p[i]);
  return i;
}

}  // namespace snaptok::simd
