// Per-target kernels: the leading ASCII code units of a UCS-2 or UTF-32
// text written as bytes (see snaptok/simd/narrow_ascii.hpp for the scalar
// reference). Included once per Highway target by snaptok/simd/dispatch.hpp;
// do not include it directly.

// Per-target include guard (toggled by hwy/foreach_target.h).
#if defined(SNAPTOK_SIMD_NARROW_ASCII_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SNAPTOK_SIMD_NARROW_ASCII_INL_H_
#undef SNAPTOK_SIMD_NARROW_ASCII_INL_H_
#else
#define SNAPTOK_SIMD_NARROW_ASCII_INL_H_
#endif

#include <hwy/highway.h>

#include <cstddef>
#include <cstdint>

#include "snaptok/simd/narrow_ascii.hpp"

HWY_BEFORE_NAMESPACE();
namespace snaptok::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Returns the length of the leading run of p[0..n) below 0x80, written to
// out as bytes: four vectors at a time while all of them are ASCII, then
// one, then the scalar reference up to the first other unit. A vector is
// stored only when all of it is ASCII, so nothing is written past the run.
template <class Unit>
HWY_INLINE std::size_t narrow_ascii_units(const Unit* HWY_RESTRICT p, std::size_t n, char* HWY_RESTRICT out) {
  const hn::ScalableTag<Unit> d;
  const hn::RebindToSigned<decltype(d)> ds;  // ASCII units are positive: demoted as signed
  const hn::Rebind<std::uint8_t, decltype(d)> d8;
  const std::size_t lanes = hn::Lanes(d);
  const auto high_bits = hn::Set(d, static_cast<Unit>(~Unit{0x7F}));
  auto ascii = [&](auto v) { return hn::AllTrue(d, hn::Eq(hn::And(v, high_bits), hn::Zero(d))); };
  auto* bytes = reinterpret_cast<std::uint8_t*>(out);
  std::size_t i = 0;
  for (; i + 4 * lanes <= n; i += 4 * lanes) {
    const auto v0 = hn::LoadU(d, p + i);
    const auto v1 = hn::LoadU(d, p + i + lanes);
    const auto v2 = hn::LoadU(d, p + i + 2 * lanes);
    const auto v3 = hn::LoadU(d, p + i + 3 * lanes);
    if (!ascii(hn::Or(hn::Or(v0, v1), hn::Or(v2, v3)))) break;
    hn::StoreU(hn::DemoteTo(d8, hn::BitCast(ds, v0)), d8, bytes + i);
    hn::StoreU(hn::DemoteTo(d8, hn::BitCast(ds, v1)), d8, bytes + i + lanes);
    hn::StoreU(hn::DemoteTo(d8, hn::BitCast(ds, v2)), d8, bytes + i + 2 * lanes);
    hn::StoreU(hn::DemoteTo(d8, hn::BitCast(ds, v3)), d8, bytes + i + 3 * lanes);
  }
  for (; i + lanes <= n; i += lanes) {
    const auto v = hn::LoadU(d, p + i);
    if (!ascii(v)) break;
    hn::StoreU(hn::DemoteTo(d8, hn::BitCast(ds, v)), d8, bytes + i);
  }
  return i + narrow_ascii_scalar(p + i, n - i, out + i);
}

inline std::size_t narrow_ascii16(const std::uint16_t* HWY_RESTRICT p, std::size_t n, char* HWY_RESTRICT out) {
  return narrow_ascii_units(p, n, out);
}

inline std::size_t narrow_ascii32(const std::uint32_t* HWY_RESTRICT p, std::size_t n, char* HWY_RESTRICT out) {
  return narrow_ascii_units(p, n, out);
}

}  // namespace HWY_NAMESPACE
}  // namespace snaptok::simd
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
