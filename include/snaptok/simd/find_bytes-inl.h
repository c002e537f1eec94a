// Per-target kernel: the first byte of a text in a set of up to four byte
// values (see snaptok/simd/find_bytes.hpp for the set and the scalar
// reference). Included once per Highway target by snaptok/simd/dispatch.hpp;
// do not include it directly.

// Per-target include guard (toggled by hwy/foreach_target.h).
#if defined(SNAPTOK_SIMD_FIND_BYTES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SNAPTOK_SIMD_FIND_BYTES_INL_H_
#undef SNAPTOK_SIMD_FIND_BYTES_INL_H_
#else
#define SNAPTOK_SIMD_FIND_BYTES_INL_H_
#endif

#include <hwy/highway.h>

#include <cstddef>
#include <cstdint>

#include "snaptok/simd/find_bytes.hpp"

HWY_BEFORE_NAMESPACE();
namespace snaptok::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Returns the index of the first byte of p[0..n) in `set`, or n: a vector
// of bytes at a time (four compares), the tail one byte at a time.
inline std::size_t find_byte_in(const char* HWY_RESTRICT p, std::size_t n, const ByteQuad& set) {
  const hn::ScalableTag<std::uint8_t> d;
  const std::size_t lanes = hn::Lanes(d);
  const auto b0 = hn::Set(d, set.bytes[0]);
  const auto b1 = hn::Set(d, set.bytes[1]);
  const auto b2 = hn::Set(d, set.bytes[2]);
  const auto b3 = hn::Set(d, set.bytes[3]);
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(p);
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto v = hn::LoadU(d, bytes + i);
    const auto hit = hn::Or(hn::Or(hn::Eq(v, b0), hn::Eq(v, b1)), hn::Or(hn::Eq(v, b2), hn::Eq(v, b3)));
    const std::intptr_t k = hn::FindFirstTrue(d, hit);
    if (k >= 0) return i + static_cast<std::size_t>(k);
  }
  return i + find_byte_in_scalar(p + i, n - i, set);
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace snaptok::simd
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
