// Per-target kernel: classify up to 64 bytes into ByteClassMasks (see
// snaptok/simd/byte_classes.hpp for the classes and the scalar reference).
// Included once per Highway target by snaptok/simd/dispatch.hpp; do not
// include it directly.

// Per-target include guard (toggled by hwy/foreach_target.h).
#if defined(SNAPTOK_SIMD_BYTE_CLASSES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SNAPTOK_SIMD_BYTE_CLASSES_INL_H_
#undef SNAPTOK_SIMD_BYTE_CLASSES_INL_H_
#else
#define SNAPTOK_SIMD_BYTE_CLASSES_INL_H_
#endif

#include <hwy/highway.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "snaptok/detail/inline.hpp"
#include "snaptok/simd/byte_classes.hpp"

HWY_BEFORE_NAMESPACE();
namespace snaptok::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE

// Returns the bits of mask m, lane i in bit i. (Highway 1.0.3 has no public
// BitsFromMask: StoreMaskBits to bytes, then one load of exactly that many
// bytes, which the compiler keeps in registers; a wider load of several
// narrower stores would stall store forwarding.)
template <class D, class M>
HWY_INLINE std::uint64_t mask_bits(D d, M m) {
  constexpr std::size_t kBytes = (hn::MaxLanes(D()) + 7) / 8;
  std::uint8_t bytes[8];
  hn::StoreMaskBits(d, m, bytes);
  if constexpr (std::endian::native == std::endian::little) {
    if constexpr (kBytes == 8) {
      std::uint64_t x;
      std::memcpy(&x, bytes, 8);
      return x;
    } else if constexpr (kBytes == 4) {
      std::uint32_t x;
      std::memcpy(&x, bytes, 4);
      return x;
    } else {
      static_assert(kBytes == 2, "8-bit lanes in 128, 256 or 512-bit vectors");
      std::uint16_t x;
      std::memcpy(&x, bytes, 2);
      return x;
    }
  } else {
    std::uint64_t x = 0;
    for (std::size_t b = kBytes; b-- > 0;) x = (x << 8) | bytes[b];
    return x;
  }
}

// Returns the class masks of the 64 bytes at p (all readable). Each class is
// one or two byte compares per vector.
inline ByteClassMasks classify64(const std::uint8_t* HWY_RESTRICT p) {
  const hn::CappedTag<std::int8_t, 64> d;
  constexpr std::size_t N = hn::MaxLanes(decltype(d)());
  static_assert(64 % N == 0 && N >= 16, "fixed-width target of 16+ bytes");
  // Lane-range tests use one add and one signed compare: for lo <= hi < 0x80,
  // byte b is in [lo, hi] iff (b + 0x80 - lo) as int8 < -128 + (hi - lo + 1).
  const auto bias_letter = hn::Set(d, static_cast<std::int8_t>(0x80 - 'a'));
  const auto lim_letter = hn::Set(d, static_cast<std::int8_t>(-128 + 26));
  const auto case_bit = hn::Set(d, static_cast<std::int8_t>(0x20));
  const auto bias_upper = hn::Set(d, static_cast<std::int8_t>(0x80 - 'A'));
  const auto bias_digit = hn::Set(d, static_cast<std::int8_t>(0x80 - '0'));
  const auto lim_digit = hn::Set(d, static_cast<std::int8_t>(-128 + 10));
  const auto bias_ctl = hn::Set(d, static_cast<std::int8_t>(0x80 - '\t'));
  const auto lim_ctl = hn::Set(d, static_cast<std::int8_t>(-128 + 5));  // \t..\r
  const auto k_space = hn::Set(d, static_cast<std::int8_t>(' '));
  const auto k_lf = hn::Set(d, static_cast<std::int8_t>('\n'));
  const auto k_cr = hn::Set(d, static_cast<std::int8_t>('\r'));
  const auto k_apos = hn::Set(d, static_cast<std::int8_t>('\''));
  const auto bias_control = hn::Set(d, static_cast<std::int8_t>(0x80));
  const auto lim_control = hn::Set(d, static_cast<std::int8_t>(-128 + 0x20));  // 0x00..0x1F
  const auto k_del = hn::Set(d, static_cast<std::int8_t>(0x7F));
  const auto zero = hn::Zero(d);

  ByteClassMasks m;
  for (std::size_t i = 0; i < 64; i += N) {
    const auto v = hn::LoadU(d, reinterpret_cast<const std::int8_t*>(p + i));
    const auto letter =
        hn::Lt(hn::Add(hn::Or(v, case_bit), bias_letter), lim_letter);
    const auto upper = hn::Lt(hn::Add(v, bias_upper), lim_letter);
    const auto digit = hn::Lt(hn::Add(v, bias_digit), lim_digit);
    const auto blank = hn::Eq(v, k_space);
    const auto space = hn::Or(hn::Lt(hn::Add(v, bias_ctl), lim_ctl), blank);
    const auto newline = hn::Or(hn::Eq(v, k_lf), hn::Eq(v, k_cr));
    const auto nonascii = hn::Lt(v, zero);
    const auto apostrophe = hn::Eq(v, k_apos);
    const auto control = hn::Or(hn::Lt(hn::Add(v, bias_control), lim_control), hn::Eq(v, k_del));
    m.letter |= mask_bits(d, letter) << i;
    m.upper |= mask_bits(d, upper) << i;
    m.digit |= mask_bits(d, digit) << i;
    m.space |= mask_bits(d, space) << i;
    m.newline |= mask_bits(d, newline) << i;
    m.blank |= mask_bits(d, blank) << i;
    m.nonascii |= mask_bits(d, nonascii) << i;
    m.apostrophe |= mask_bits(d, apostrophe) << i;
    m.control |= mask_bits(d, control) << i;
  }
  m.other = ~(m.letter | m.digit | m.space | m.nonascii | m.apostrophe);
  return m;
}

#endif  // HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE

// Returns (in out) the class masks of the n <= 64 bytes at p; reads exactly n
// bytes (a short block is copied to a zeroed stack buffer first). n > 64 is
// treated as 64.
inline void classify_block(const char* HWY_RESTRICT p, std::size_t n,
                           ByteClassMasks& out) {
  if (n > kBlockBytes) n = kBlockBytes;
#if HWY_TARGET == HWY_SCALAR || HWY_HAVE_SCALABLE
  // HWY_SCALAR's 1-lane vectors cannot build 8 mask bits at once, and
  // scalable vectors (SVE, RVV) need not divide 64 bytes: portable path.
  classify_block_portable(p, n, out);
#else
  if (HWY_LIKELY(n == kBlockBytes)) {
    out = classify64(reinterpret_cast<const std::uint8_t*>(p));
    return;
  }
  HWY_ALIGN std::uint8_t buf[kBlockBytes] = {};
  if (n != 0) std::memcpy(buf, p, n);
  out = classify64(buf);
  out.keep_first(n);
#endif
}

// Returns (in out[0..count)) the class masks of the blocks p[64k, 64k + 64)
// of the n bytes at p, as classify_block(p + 64k, n - 64k, out[k]) would;
// 64 * (count - 1) < n. One dispatched call for several blocks.
SNAPTOK_HOT_CODE inline void classify_blocks(const char* HWY_RESTRICT p, std::size_t n,
                                             ByteClassMasks* HWY_RESTRICT out, std::size_t count) {
  std::size_t k = 0;
#if !(HWY_TARGET == HWY_SCALAR || HWY_HAVE_SCALABLE)
  // Whole blocks first, in a loop of their own: the compiler then keeps
  // classify64's constants in registers instead of making them anew for
  // every block.
  const std::size_t whole = std::min(count, n / kBlockBytes);
  for (; k < whole; ++k) out[k] = classify64(reinterpret_cast<const std::uint8_t*>(p) + k * kBlockBytes);
#endif
  for (; k < count; ++k) {
    const std::size_t at = k * kBlockBytes;
    classify_block(p + at, n - at, out[k]);
  }
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace snaptok::simd
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
