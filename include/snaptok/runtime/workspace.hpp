// A worker's workspace: what one encoding thread keeps between calls, so the
// models and tokenizers it serves stay const and shared: its private piece
// caches (one per model it recently served) and scratch buffers.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "snaptok/runtime/piece_cache.hpp"

namespace snaptok::runtime {

class Workspace {
 public:
  /// How many models one worker keeps a cache for; the least recently used
  /// is dropped beyond that.
  static constexpr std::size_t kCachedModels = 4;
  /// The most one worker's cache of one model claims from its budget.
  static constexpr std::size_t kMaxCacheBytes = std::size_t{8} << 20;

  /// Returns the calling thread's workspace.
  static Workspace& current() {
    thread_local Workspace ws;
    return ws;
  }

  Workspace() = default;
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  ~Workspace() {
    for (Entry& e : entries_) drop(e);
  }

  /// Returns this worker's cache for the model `owner` under `budget`, or
  /// nullptr when the budget is 0 or spent. `share` is how many workers the
  /// budget is meant for: each claims about budget / share bytes.
  PieceCache* cache(std::uint64_t owner, const std::shared_ptr<CacheBudget>& budget,
                    std::size_t share) {
    ++clock_;
    Entry* free_entry = nullptr;
    for (Entry& e : entries_) {
      if (e.owner == owner && e.budget == budget) {
        e.last_use = clock_;
        return e.cache.get();
      }
      // A budget held by nobody else belongs to a tokenizer that is gone,
      // or to a settings snapshot that was replaced.
      if (e.budget && e.budget.use_count() == 1) drop(e);
      if (!e.budget && !free_entry) free_entry = &e;
    }
    if (!budget || budget->total() == 0) return nullptr;
    Entry* slot = free_entry;
    if (!slot) {
      slot = &entries_[0];
      for (Entry& e : entries_) {
        if (e.last_use < slot->last_use) slot = &e;
      }
      drop(*slot);
    }
    const std::size_t want =
        std::clamp<std::size_t>(budget->total() / std::max<std::size_t>(share, 1),
                                PieceCache::kMinBytes, kMaxCacheBytes);
    const std::size_t got = budget->claim(want, PieceCache::kMinBytes);
    if (got == 0) return nullptr;
    slot->owner = owner;
    slot->budget = budget;
    slot->claimed = got;
    slot->last_use = clock_;
    slot->cache = std::make_unique<PieceCache>(got);
    return slot->cache.get();
  }

  /// Moves every cache's hit and miss counts into its budget's totals.
  void flush_counts() noexcept {
    for (Entry& e : entries_) {
      if (e.cache) e.cache->flush_counts(*e.budget);
    }
  }

  /// Scratch ids for a stage that must finish a sequence before appending it.
  std::vector<std::uint32_t>& scratch_ids() noexcept { return scratch_ids_; }

 private:
  struct Entry {
    std::uint64_t owner = 0;
    std::shared_ptr<CacheBudget> budget;
    std::unique_ptr<PieceCache> cache;
    std::size_t claimed = 0;
    std::uint64_t last_use = 0;
  };

  static void drop(Entry& e) noexcept {
    if (e.cache) e.cache->flush_counts(*e.budget);
    if (e.budget) e.budget->release(e.claimed);
    e = Entry{};
  }

  std::array<Entry, kCachedModels> entries_;
  std::uint64_t clock_ = 0;
  std::vector<std::uint32_t> scratch_ids_;
};

}  // namespace snaptok::runtime
