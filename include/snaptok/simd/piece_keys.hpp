// Cache keys of a block's pieces, and their scalar reference: the pieces a
// scanner finds in one 64-byte block (bit k of `starts`: a piece starts at
// block + k) are queued for the piece cache with their short key
// (snaptok::detail::ShortKey) and the set of the cache's short table the key
// hashes to. The SIMD kernel (piece_keys-inl.h, dispatched
// by snaptok/simd/dispatch.hpp) does eight pieces at a time where the target
// has byte permutes and compresses (AVX3_DL); runtime::PieceBatch calls it
// for its all-ASCII blocks and queues pieces one by one elsewhere.
//
//   const simd::PieceKeysFn keys = simd::piece_keys_kernel();  // or nullptr
//   std::size_t n = keys ? keys(block, starts, table, columns, at) : 0;
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include "snaptok/detail/short_key.hpp"

namespace snaptok::simd {

/// A short table's sets: set i lies at sets + (i << set_log2), and a key
/// with hash h lives in set h >> shift.
struct PieceKeyTable {
  std::byte* sets;
  unsigned shift;
  unsigned set_log2;

  std::byte* locate(std::uint64_t hash) const noexcept {
    return sets + ((hash >> shift) << set_log2);
  }

  bool operator==(const PieceKeyTable&) const noexcept = default;
};

/// Where the keys go: entry i of a queue is data[i], size[i], the key
/// {lo[i], hi[i]} and set[i] (a structure of arrays, so a vector of entries
/// is stored at once).
struct PieceKeyColumns {
  const char** data;
  std::uint64_t* size;
  std::uint64_t* lo;
  std::uint64_t* hi;
  std::byte** set;
};

/// Storage for n entries, a column per field (a queue of pieces).
/// Trivial: a new one initialises nothing.
template <std::size_t n>
struct PieceKeyArrays {
  const char* data[n];
  std::uint64_t size[n];
  std::uint64_t lo[n];
  std::uint64_t hi[n];
  std::byte* set[n];

  PieceKeyColumns columns() noexcept { return {data, size, lo, hi, set}; }
};

/// The most entries block_piece_keys writes past the ones it returns (room
/// a queue keeps after its last entry).
inline constexpr std::size_t kPieceKeysSlack = 8;

/// Writes, at out[at..), one entry per piece between two consecutive start
/// bits of `starts` (bit k: a piece starts at block + k; the piece that
/// starts at the last bit is not written): its data and size, its key
/// (detail::ShortKey::of) and its set in `table` (not loaded yet: the
/// lookups prefetch it, runtime::PieceBatch::look_up). Returns the count (popcount(starts) - 1, or 0). The key
/// and set of a piece of 16 bytes or more are unspecified (a cache never
/// looks one up). Reads block[0..64); entries up to kPieceKeysSlack past
/// the count may be overwritten.
using PieceKeysFn = std::size_t (*)(const char* block, std::uint64_t starts, const PieceKeyTable& table,
                                    const PieceKeyColumns& out, std::size_t at);

/// block_piece_keys one piece at a time: the reference the kernels are
/// tested against.
inline std::size_t block_piece_keys_scalar(const char* block, std::uint64_t starts, const PieceKeyTable& table,
                                           const PieceKeyColumns& out, std::size_t at) noexcept {
  if (starts == 0) return 0;
  std::size_t count = 0;
  const char* piece = block + std::countr_zero(starts);
  for (starts &= starts - 1; starts != 0; starts &= starts - 1, ++count) {
    const char* next = block + std::countr_zero(starts);
    const auto size = static_cast<std::size_t>(next - piece);
    const std::size_t i = at + count;
    const snaptok::detail::ShortKey key =
        size <= snaptok::detail::ShortKey::kMaxBytes ? snaptok::detail::ShortKey::of(piece, size, false) : snaptok::detail::ShortKey{0, 0};
    out.data[i] = piece;
    out.size[i] = size;
    out.lo[i] = key.lo;
    out.hi[i] = key.hi;
    out.set[i] = table.locate(key.hash());
    piece = next;
  }
  return count;
}

}  // namespace snaptok::simd
