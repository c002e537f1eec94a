// A BPE model's merges as one flat table: (left id, right id) -> (rank,
// new id), what every merge algorithm of models/bpe/ reads. Ranks order
// the merges (lowest first, leftmost on ties, as HF's Word::merge_all);
// tiktoken's byte ranks give every pair that forms a token that token's
// rank (byte_ranks.hpp).
#pragma once

#include <cstdint>
#include <utility>

#include "snaptok/detail/hash.hpp"

namespace snaptok::bpe {

/// An id no token has (a byte without a token, an empty slot).
inline constexpr std::uint32_t kNoId = 0xFFFFFFFFu;

class MergeTable {
 public:
  /// What find returns for a pair without a merge: above every merge, so a
  /// scan for the lowest (rank, position) never picks it.
  static constexpr std::uint64_t kNoMerge = ~std::uint64_t{0};

  MergeTable() = default;
  /// The table over `map`, whose keys are key(left, right) and values
  /// rank << 32 | new id.
  explicit MergeTable(detail::U64Map map) noexcept : map_(std::move(map)) {}

  /// The map key of the pair (left, right).
  static constexpr std::uint64_t key(std::uint32_t left, std::uint32_t right) noexcept {
    return (std::uint64_t{left} << 32) | right;
  }

  /// Returns rank << 32 | new id of merging `left` and `right`, or kNoMerge.
  std::uint64_t find(std::uint32_t left, std::uint32_t right) const noexcept {
    const std::uint64_t* m = map_.find(key(left, right));
    return m ? *m : kNoMerge;
  }

  /// Starts loading the slot of the pair (left, right), so that several
  /// lookups' memory misses overlap.
  void prefetch(std::uint32_t left, std::uint32_t right) const noexcept { map_.prefetch(key(left, right)); }

  /// The map (for .st sections and listing the merges).
  const detail::U64Map& map() const noexcept { return map_; }

 private:
  detail::U64Map map_;
};

/// The new id of a find result.
constexpr std::uint32_t merged_id(std::uint64_t merge) noexcept { return static_cast<std::uint32_t>(merge); }
/// The rank of a find result.
constexpr std::uint32_t merge_rank(std::uint64_t merge) noexcept { return static_cast<std::uint32_t>(merge >> 32); }

}  // namespace snaptok::bpe
