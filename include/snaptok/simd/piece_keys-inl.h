// Per-target kernel: the cache keys of a block's pieces (see
// snaptok/simd/piece_keys.hpp for the contract and the scalar reference).
// Included once per Highway target by snaptok/simd/dispatch.hpp; do not
// include it directly.

// Per-target include guard (toggled by hwy/foreach_target.h).
#if defined(SNAPTOK_SIMD_PIECE_KEYS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SNAPTOK_SIMD_PIECE_KEYS_INL_H_
#undef SNAPTOK_SIMD_PIECE_KEYS_INL_H_
#else
#define SNAPTOK_SIMD_PIECE_KEYS_INL_H_
#endif

#include <hwy/highway.h>

#include <bit>
#include <cstddef>
#include <cstdint>

#include "snaptok/detail/inline.hpp"
#include "snaptok/simd/piece_keys.hpp"

HWY_BEFORE_NAMESPACE();
namespace snaptok::simd {
namespace HWY_NAMESPACE {

#if HWY_TARGET == HWY_AVX3_DL
// GCC 12's AVX-512 intrinsics start some results from an "undefined"
// vector and then warn that it may be used uninitialized (GCC bug 105593).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
// Returns block_piece_keys: eight pieces per step, each in a 64-bit lane.
// The starts are compressed into byte offsets (vpcompressb); a lane's key
// bytes are permuted out of the block (vpermb) and masked to the piece's
// length, and the key's hash (ShortKey::hash, with its constants) gives its
// set.
SNAPTOK_HOT_CODE inline std::size_t block_piece_keys(const char* block, std::uint64_t starts,
                                                     const PieceKeyTable& table, const PieceKeyColumns& out,
                                                     std::size_t at) {
  if ((starts & (starts - 1)) == 0) return 0;  // one start or none: no piece ends in the block
  const std::size_t count = static_cast<std::size_t>(std::popcount(starts)) - 1;
  // offsets[k]: the k-th start; zeros past the last (read by the last step).
  alignas(64) std::uint8_t offsets[64 + 16];
  const __m512i iota = _mm512_set_epi8(63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46,
                                       45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28,
                                       27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9,
                                       8, 7, 6, 5, 4, 3, 2, 1, 0);
  _mm512_store_si512(offsets, _mm512_maskz_compress_epi8(starts, iota));
  _mm_store_si128(reinterpret_cast<__m128i*>(offsets + 64), _mm_setzero_si128());

  const __m512i bytes = _mm512_loadu_si512(block);
  // Byte 0 of each lane to all eight bytes of the lane, plus 0..7: the
  // permute indices of the lane's first eight key bytes.
  const __m512i lane_byte0 = _mm512_set_epi8(8, 8, 8, 8, 8, 8, 8, 8, 0, 0, 0, 0, 0, 0, 0, 0, 8, 8, 8, 8, 8, 8, 8,
                                             8, 0, 0, 0, 0, 0, 0, 0, 0, 8, 8, 8, 8, 8, 8, 8, 8, 0, 0, 0, 0, 0, 0,
                                             0, 0, 8, 8, 8, 8, 8, 8, 8, 8, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m512i byte_steps = _mm512_set1_epi64(0x0706050403020100ll);
  const __m512i eight = _mm512_set1_epi8(8);
  const __m512i all_ones = _mm512_set1_epi64(-1);
  const __m512i bits_128 = _mm512_set1_epi64(128);
  using snaptok::detail::ShortKey;
  const __m512i multiplier = _mm512_set1_epi64(static_cast<long long>(ShortKey::kHashMultiplier));
  const __m512i sets = _mm512_set1_epi64(reinterpret_cast<long long>(table.sets));
  const __m512i block_at = _mm512_set1_epi64(reinterpret_cast<long long>(block));
  const __m128i shift = _mm_cvtsi32_si128(static_cast<int>(table.shift));
  const __m128i set_log2 = _mm_cvtsi32_si128(static_cast<int>(table.set_log2));

  for (std::size_t k = 0; k < count; k += 8) {
    const __m512i start = _mm512_cvtepu8_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(offsets + k)));
    const __m512i end = _mm512_cvtepu8_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(offsets + k + 1)));
    const __m512i size = _mm512_sub_epi64(end, start);
    const __m512i index = _mm512_add_epi8(_mm512_shuffle_epi8(start, lane_byte0), byte_steps);
    // Bytes past the piece are cleared: lo keeps 8 * size bits (all when
    // size >= 8; a variable shift by 64 or more gives 0), hi keeps
    // 8 * size - 64 (none when size <= 8), then takes the size in its top
    // byte. A piece of 16 bytes or more gets some key (unspecified).
    const __m512i bits = _mm512_slli_epi64(size, 3);
    const __m512i lo = _mm512_andnot_si512(_mm512_sllv_epi64(all_ones, bits), _mm512_permutexvar_epi8(index, bytes));
    __m512i hi = _mm512_permutexvar_epi8(_mm512_add_epi8(index, eight), bytes);
    hi = _mm512_and_si512(hi, _mm512_srlv_epi64(all_ones, _mm512_sub_epi64(bits_128, bits)));
    hi = _mm512_or_si512(hi, _mm512_slli_epi64(size, 56));
    const __m512i hash = _mm512_mullo_epi64(_mm512_xor_si512(lo, _mm512_rol_epi64(hi, ShortKey::kHashRotate)), multiplier);
    const __m512i set = _mm512_add_epi64(sets, _mm512_sll_epi64(_mm512_srl_epi64(hash, shift), set_log2));
    const std::size_t i = at + k;
    _mm512_storeu_si512(out.data + i, _mm512_add_epi64(block_at, start));
    _mm512_storeu_si512(out.size + i, size);
    _mm512_storeu_si512(out.lo + i, lo);
    _mm512_storeu_si512(out.hi + i, hi);
    _mm512_storeu_si512(out.set + i, set);
  }
  return count;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// Returns the kernel of this target: here, the vector one.
inline PieceKeysFn piece_keys_kernel() { return &block_piece_keys; }

#else
// Returns block_piece_keys: the scalar reference (this target has no byte
// permutes across a whole block).
inline std::size_t block_piece_keys(const char* block, std::uint64_t starts, const PieceKeyTable& table,
                                    const PieceKeyColumns& out, std::size_t at) {
  return block_piece_keys_scalar(block, starts, table, out, at);
}

// Returns nullptr: no kernel beats queueing the pieces one by one inline.
inline PieceKeysFn piece_keys_kernel() { return nullptr; }
#endif

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace snaptok::simd
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
