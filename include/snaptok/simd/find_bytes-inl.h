// Per-target kernels: the first byte of a text in a set of up to four byte
// values, the first of two given adjacent bytes, the first pair of a set of
// adjacent byte pairs, the first byte not ASCII or in an ASCII range, or
// the first place a byte or two may start something (see snaptok/simd/find_bytes.hpp
// for the sets and the scalar references). Included once per Highway target by snaptok/simd/dispatch.hpp;
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
#include <cstring>

#include "snaptok/simd/find_bytes.hpp"

HWY_BEFORE_NAMESPACE();
namespace snaptok::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Returns the lanes of v that hold one of the four bytes of `set` (four
// compares; the broadcasts are loop-invariant where a loop calls it).
template <class D, class V>
HWY_INLINE auto lanes_in(D d, V v, const ByteQuad& set) {
  return hn::Or(hn::Or(hn::Eq(v, hn::Set(d, set.bytes[0])), hn::Eq(v, hn::Set(d, set.bytes[1]))),
                hn::Or(hn::Eq(v, hn::Set(d, set.bytes[2])), hn::Eq(v, hn::Set(d, set.bytes[3]))));
}

// Returns the index of the first byte of p[0..n) in `set`, or n: a vector
// of bytes at a time (four compares), the tail one byte at a time.
inline std::size_t find_byte_in(const char* HWY_RESTRICT p, std::size_t n, const ByteQuad& set) {
  const hn::ScalableTag<std::uint8_t> d;
  const std::size_t lanes = hn::Lanes(d);
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(p);
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const std::intptr_t k = hn::FindFirstTrue(d, lanes_in(d, hn::LoadU(d, bytes + i), set));
    if (k >= 0) return i + static_cast<std::size_t>(k);
  }
  return i + find_byte_in_scalar(p + i, n - i, set);
}

// Returns the first i with p[i] == first and p[i + 1] == second, or n: two
// overlapping loads a vector at a time, the tail one byte at a time.
inline std::size_t find_byte_pair(const char* HWY_RESTRICT p, std::size_t n, std::uint8_t first,
                                  std::uint8_t second) {
  const hn::ScalableTag<std::uint8_t> d;
  const std::size_t lanes = hn::Lanes(d);
  const auto a = hn::Set(d, first);
  const auto b = hn::Set(d, second);
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(p);
  std::size_t i = 0;
  for (; i + lanes < n; i += lanes) {
    const auto hit = hn::And(hn::Eq(hn::LoadU(d, bytes + i), a), hn::Eq(hn::LoadU(d, bytes + i + 1), b));
    const std::intptr_t k = hn::FindFirstTrue(d, hit);
    if (k >= 0) return i + static_cast<std::size_t>(k);
  }
  return i + find_byte_pair_scalar(p + i, n - i, first, second);
}

// Returns the first i with (p[i], p[i + 1]) in `set` (i + 1 < n), or n: a
// vector at a time, the bytes of set.firsts (four compares) followed by a
// byte of set.seconds (two table lookups), each such pair checked in the
// map; the tail one byte at a time. (Checking the second byte in the vector
// as well: in the bench's English, ~15,000 "<unk>" per 4 MB each stopped
// DeepSeek V3's skip, whose tokens start "<｜", "<|", "</", "<t" and "<d".)
inline std::size_t find_byte_pair_in(const char* HWY_RESTRICT p, std::size_t n, const BytePairSet& set) {
  const hn::ScalableTag<std::uint8_t> d;
  const std::size_t lanes = hn::Lanes(d);
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(p);
#if HWY_TARGET != HWY_SCALAR  // (one lane: no 16-byte table lookup)
  const auto seconds_lo = hn::LoadDup128(d, set.seconds.lo);
  const auto seconds_hi = hn::LoadDup128(d, set.seconds.hi);
  const auto low_nibble = hn::Set(d, std::uint8_t{0x0F});
#endif
  std::size_t i = 0;
  for (; i + lanes < n; i += lanes) {  // every lane's next byte is in the text
    auto hit = lanes_in(d, hn::LoadU(d, bytes + i), set.firsts);
#if HWY_TARGET != HWY_SCALAR
    const auto next = hn::LoadU(d, bytes + i + 1);
    const auto second = hn::And(hn::TableLookupBytes(seconds_lo, hn::And(next, low_nibble)),
                                hn::TableLookupBytes(seconds_hi, hn::ShiftRight<4>(next)));
    hit = hn::AndNot(hn::Eq(second, hn::Zero(d)), hit);
#endif
    for (std::intptr_t k; (k = hn::FindFirstTrue(d, hit)) >= 0;) {
      const std::size_t at = i + static_cast<std::size_t>(k);
      if (set.contains(bytes[at], bytes[at + 1])) return at;
      hit = hn::AndNot(hn::FirstN(d, static_cast<std::size_t>(k) + 1), hit);
    }
  }
  return i + find_byte_pair_in_scalar(p + i, n - i, set);
}

// Moves i by whole vectors of d to the first byte of bytes[i..n) whose lane
// flagged(d, v) sets and returns true, or to where fewer than a vector of
// bytes is left and returns false.
template <class D, class Flagged>
HWY_INLINE bool find_flagged_vectors(D d, const std::int8_t* HWY_RESTRICT bytes, std::size_t& i, std::size_t n,
                                     const Flagged& flagged) {
  const std::size_t lanes = hn::Lanes(d);
  for (; i + lanes <= n; i += lanes) {
    const std::intptr_t k = hn::FindFirstTrue(d, flagged(d, hn::LoadU(d, bytes + i)));
    if (k >= 0) {
      i += static_cast<std::size_t>(k);
      return true;
    }
  }
  return false;
}

// Returns the index of the first byte of p[0..n) that is >= 0x80 or in
// `range`, or n: full vectors, then 16-byte vectors, then one byte at a
// time. As signed lanes: a negative byte, or one below -128 + range.count
// after adding 0x80 - range.first.
inline std::size_t find_nonascii_or_in(const char* HWY_RESTRICT p, std::size_t n, AsciiRange range) {
  const auto flagged = [range](auto d, auto v) {
    const auto bias = hn::Set(d, static_cast<std::int8_t>(0x80 - range.first));
    const auto limit = hn::Set(d, static_cast<std::int8_t>(-128 + range.count));
    return hn::Or(hn::Lt(v, hn::Zero(d)), hn::Lt(hn::Add(v, bias), limit));
  };
  const auto* bytes = reinterpret_cast<const std::int8_t*>(p);
  std::size_t i = 0;
  if (find_flagged_vectors(hn::ScalableTag<std::int8_t>(), bytes, i, n, flagged)) return i;
  if (find_flagged_vectors(hn::CappedTag<std::int8_t, 16>(), bytes, i, n, flagged)) return i;
  return i + find_nonascii_or_in_scalar(p + i, n - i, range);
}

// Returns the first i with starts.at(p, i, n), or n: full vectors, then
// 16-byte vectors (each byte and the next: a negative lane or two table
// lookups per set), then one byte at a time.
inline std::size_t find_start(const char* HWY_RESTRICT p, std::size_t n, const AsciiStarts& starts) {
  std::size_t i = 0;
#if HWY_TARGET != HWY_SCALAR  // (one lane: no 16-byte table lookup)
  const auto* bytes = reinterpret_cast<const std::int8_t*>(p);
  // Finds by whole vectors while every lane's next byte is in the text.
  const auto find = [&](auto d) {
    const hn::RebindToUnsigned<decltype(d)> du;
    const auto low_nibble = hn::Set(du, std::uint8_t{0x0F});
    const auto in = [&](const NibbleSet& set, auto v) {
      const auto u = hn::BitCast(du, v);
      const auto lo = hn::TableLookupBytes(hn::LoadDup128(du, set.lo), hn::And(u, low_nibble));
      const auto hi = hn::TableLookupBytes(hn::LoadDup128(du, set.hi), hn::ShiftRight<4>(u));
      return hn::RebindMask(d, hn::Ne(hn::And(lo, hi), hn::Zero(du)));
    };
    const std::size_t lanes = hn::Lanes(d);
    for (; i + lanes < n; i += lanes) {
      const auto v = hn::LoadU(d, bytes + i);
      const auto next = hn::LoadU(d, bytes + i + 1);
      const auto then = hn::Or(hn::Lt(next, hn::Zero(d)), in(starts.then, next));
      const auto hit = hn::Or(hn::Or(hn::Lt(v, hn::Zero(d)), in(starts.alone, v)),
                              hn::And(in(starts.prefix, v), then));
      const std::intptr_t k = hn::FindFirstTrue(d, hit);
      if (k >= 0) {
        i += static_cast<std::size_t>(k);
        return true;
      }
    }
    return false;
  };
  if (find(hn::ScalableTag<std::int8_t>())) return i;
  if (find(hn::CappedTag<std::int8_t, 16>())) return i;
#endif
  return i + find_start_scalar(p + i, n - i, starts);
}

#if HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE
// The masks of `count` sets over the 64 bytes at p (two table lookups per
// set and vector, as find_start's).
inline void set_masks64(const std::uint8_t* HWY_RESTRICT p, const NibbleSet* HWY_RESTRICT sets,
                        std::size_t count, std::uint64_t* HWY_RESTRICT out) {
  const hn::CappedTag<std::uint8_t, 64> d;
  constexpr std::size_t N = hn::MaxLanes(decltype(d)());
  static_assert(64 % N == 0 && N >= 16, "fixed-width target of 16+ bytes");
  const auto low_nibble = hn::Set(d, std::uint8_t{0x0F});
  for (std::size_t s = 0; s < count; ++s) out[s] = 0;
  for (std::size_t i = 0; i < 64; i += N) {
    const auto v = hn::LoadU(d, p + i);
    const auto low = hn::And(v, low_nibble);
    const auto high = hn::ShiftRight<4>(v);
    for (std::size_t s = 0; s < count; ++s) {
      const auto lo = hn::TableLookupBytes(hn::LoadDup128(d, sets[s].lo), low);
      const auto hi = hn::TableLookupBytes(hn::LoadDup128(d, sets[s].hi), high);
      out[s] |= mask_bits(d, hn::Ne(hn::And(lo, hi), hn::Zero(d))) << i;
    }
  }
}
#endif

// The masks of set_masks_scalar: whole blocks a vector at a time, a last
// short block through a zeroed copy.
inline void set_masks(const char* HWY_RESTRICT p, std::size_t n, const NibbleSet* HWY_RESTRICT sets,
                      std::size_t count, std::uint64_t* HWY_RESTRICT out, std::size_t blocks) {
#if HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(p);
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::size_t at = b * 64;
    if (HWY_LIKELY(n - at >= 64)) {
      set_masks64(bytes + at, sets, count, out + b * count);
      continue;
    }
    HWY_ALIGN std::uint8_t buf[64] = {};
    std::memcpy(buf, bytes + at, n - at);
    set_masks64(buf, sets, count, out + b * count);
    const std::uint64_t valid = (std::uint64_t{1} << (n - at)) - 1;
    for (std::size_t s = 0; s < count; ++s) out[b * count + s] &= valid;
  }
#else
  set_masks_scalar(p, n, sets, count, out, blocks);
#endif
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace snaptok::simd
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
