// The textbook BPE merge, slow and obviously right: while some adjacent
// pair has a merge, merge the one of lowest rank, the leftmost of those.
// It is what HF's heap (Word::merge_all, without dropout) and tiktoken's
// byte-pair merge compute; the tests and fuzzers compare every fast merge
// of models/bpe/ (on the stack, on the heap, in chunks) with it.
#pragma once

#include <cstdint>
#include <vector>

#include "snaptok/models/bpe/merges.hpp"

namespace snaptok::bpe {

/// Returns the ids left after merging `symbols` (initial token ids) by
/// `merges`, e.g. with "a"+"b" -> "ab" at rank 0 and "ab"+"c" at rank 1,
/// reference_merge(merges, {a, b, c}) == {abc}. Quadratic: for tests.
inline std::vector<std::uint32_t> reference_merge(const MergeTable& merges, std::vector<std::uint32_t> symbols) {
  for (;;) {
    std::size_t best = symbols.size();
    std::uint32_t best_rank = 0;
    std::uint32_t best_id = kNoId;
    for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
      const std::uint64_t m = merges.find(symbols[i], symbols[i + 1]);
      if (m == MergeTable::kNoMerge) continue;
      if (best == symbols.size() || merge_rank(m) < best_rank) {
        best = i;
        best_rank = merge_rank(m);
        best_id = merged_id(m);
      }
    }
    if (best == symbols.size()) return symbols;
    symbols[best] = best_id;
    symbols.erase(symbols.begin() + static_cast<std::ptrdiff_t>(best) + 1);
  }
}

}  // namespace snaptok::bpe
