// The merge of a short piece (at most kStackMergeBytes symbols), in arrays
// on the stack: each round a linear scan finds the adjacent pair of lowest
// rank, leftmost on ties (what HF's heap pops first), and only the two
// pairs beside the merge are looked up again. No allocation, no heap.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "snaptok/detail/inline.hpp"
#include "snaptok/models/bpe/merges.hpp"

namespace snaptok::bpe {

/// Pieces of up to this many symbols merge on the stack.
inline constexpr std::size_t kStackMergeBytes = 48;
/// merge_on_stack's arrays have room for this many symbols past the piece.
inline constexpr std::size_t kShiftStep = 8;

// Moves a[from + 1..to) down to a[from..to - 1), kShiftStep elements at a
// time (a is readable kShiftStep past `to`): a round moves a few elements,
// where a loop became a call to memmove.
template <class T>
SNAPTOK_ALWAYS_INLINE void shift_down(T* a, std::size_t from, std::size_t to) noexcept {
  for (std::size_t i = from; i + 1 < to; i += kShiftStep) {
    T step[kShiftStep];
    std::memcpy(step, a + i + 1, sizeof step);
    std::memcpy(a + i, step, sizeof step);
  }
}

/// Merges the n <= kStackMergeBytes symbols sym[0..n) (sym has room for
/// kShiftStep more), writes the ids left to out[0..) and returns their
/// count: reference_merge's result.
inline std::size_t merge_on_stack(const MergeTable& merges, std::uint32_t* sym, std::size_t n, std::uint32_t* out) {
  std::uint64_t pair[kStackMergeBytes + kShiftStep];  // merge of (sym[i], sym[i + 1])
  // Lookups are memory bound: start all of a round's loads, then read.
  for (std::size_t i = 0; i + 1 < n; ++i) merges.prefetch(sym[i], sym[i + 1]);
  for (std::size_t i = 0; i + 1 < n; ++i) pair[i] = merges.find(sym[i], sym[i + 1]);
  while (n > 1) {
    std::size_t best = 0;
    for (std::size_t i = 1; i + 1 < n; ++i) {
      if (pair[i] < pair[best]) best = i;  // rank in the high bits: lowest rank, then leftmost
    }
    if (pair[best] == MergeTable::kNoMerge) break;
    sym[best] = merged_id(pair[best]);
    shift_down(sym, best + 1, n);
    shift_down(pair, best + 1, n - 1);
    --n;
    const bool left = best > 0, right = best + 1 < n;
    if (left) merges.prefetch(sym[best - 1], sym[best]);
    if (right) merges.prefetch(sym[best], sym[best + 1]);
    if (left) pair[best - 1] = merges.find(sym[best - 1], sym[best]);
    if (right) pair[best] = merges.find(sym[best], sym[best + 1]);
  }
  std::copy(sym, sym + n, out);
  return n;
}

}  // namespace snaptok::bpe
