// The merge of any piece through a min-heap, as HF's Word::merge_all: the
// heap holds (rank, position) of candidate pairs; a popped entry whose
// pair has changed since it was pushed is skipped; with dropout, a popped
// merge is skipped with that probability and pushed back after the next
// merge. O(n log n): long pieces without the chunks' trie, and dropout.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "snaptok/models/bpe/merges.hpp"

namespace snaptok::bpe {

/// A symbol of a piece being merged: its token, its neighbours' indices
/// (-1: none), and the bytes it covers (0 once merged into its left
/// neighbour, whose index it keeps).
struct Symbol {
  std::uint32_t id;
  std::int32_t prev;
  std::int32_t next;
  std::uint32_t len;
};

/// A thread's reusable heap arrays and dropout draws (see BpeModel's note
/// on per-thread state).
struct HeapScratch {
  struct Merge {
    std::uint64_t order;  // rank << 32 | position: HF's Merge Ord (lowest rank, then leftmost)
    std::uint32_t new_id;
    std::uint32_t pos() const noexcept { return static_cast<std::uint32_t>(order); }
  };
  std::vector<Merge> heap;
  std::vector<Merge> skipped;  // with dropout: popped, to be pushed back
  std::optional<std::mt19937> rng;  // seeded at the first merge with dropout
};

/// Applies every merge to `symbols` (linked in order, as Symbol says), in
/// HF's order; with `dropout`, skips each popped merge with that
/// probability. Without dropout the symbols left are reference_merge's.
inline void merge_all(const MergeTable& merges, std::vector<Symbol>& symbols, std::optional<float> dropout,
                      HeapScratch& scratch) {
  using Merge = HeapScratch::Merge;
  // The heap's order, as a function object (the heap calls inline it): the
  // merge to apply first is the greatest.
  struct Later {
    bool operator()(const Merge& a, const Merge& b) const noexcept { return a.order > b.order; }
  };
  std::vector<Merge>& heap = scratch.heap;
  std::vector<Merge>& skipped = scratch.skipped;
  heap.clear();
  skipped.clear();
  auto push = [&](std::uint32_t pos, std::uint32_t left, std::uint32_t right) {
    const std::uint64_t m = merges.find(left, right);
    if (m == MergeTable::kNoMerge) return;
    heap.push_back({(m >> 32 << 32) | pos, merged_id(m)});
    std::push_heap(heap.begin(), heap.end(), Later{});
  };
  for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
    push(static_cast<std::uint32_t>(i), symbols[i].id, symbols[i + 1].id);
  }
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  if (dropout && !scratch.rng) scratch.rng.emplace(std::random_device{}());
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), Later{});
    const Merge top = heap.back();
    heap.pop_back();
    if (dropout && uniform(*scratch.rng) < *dropout) {
      skipped.push_back(top);
      continue;
    }
    for (const Merge& m : skipped) {
      heap.push_back(m);
      std::push_heap(heap.begin(), heap.end(), Later{});
    }
    skipped.clear();
    Symbol& cur = symbols[top.pos()];
    if (cur.len == 0 || cur.next == -1) continue;
    const auto next_pos = static_cast<std::size_t>(cur.next);
    const Symbol right = symbols[next_pos];
    const std::uint64_t m = merges.find(cur.id, right.id);
    if (m == MergeTable::kNoMerge || merged_id(m) != top.new_id) continue;
    cur.id = top.new_id;
    cur.len += right.len;
    cur.next = right.next;
    symbols[next_pos].len = 0;
    if (right.next >= 0 && static_cast<std::size_t>(right.next) < symbols.size()) {
      symbols[static_cast<std::size_t>(right.next)].prev = static_cast<std::int32_t>(top.pos());
    }
    const Symbol& now = symbols[top.pos()];
    if (now.prev >= 0) {
      push(static_cast<std::uint32_t>(now.prev), symbols[static_cast<std::size_t>(now.prev)].id, now.id);
    }
    if (now.next >= 0 && static_cast<std::size_t>(now.next) < symbols.size()) {
      push(top.pos(), now.id, symbols[static_cast<std::size_t>(now.next)].id);
    }
  }
}

}  // namespace snaptok::bpe
