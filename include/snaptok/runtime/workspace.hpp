// A worker's workspace: what one encoding thread keeps between calls, so the
// models and tokenizers it serves stay const and shared: its private piece
// caches (one per model it recently served) and scratch buffers. When a
// thread ends, its caches wait in IdleCaches for the next thread that
// serves the same model under the same budget (threads started per call
// then begin warm); they keep their claims, so the budget still holds.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#endif

#include "snaptok/detail/code_points.hpp"
#include "snaptok/runtime/piece_cache.hpp"

namespace snaptok::runtime {

/// One model's cache under one budget, with the bytes it claimed.
struct OwnedCache {
  std::uint64_t owner = 0;
  std::shared_ptr<CacheBudget> budget;
  std::unique_ptr<PieceCache> cache;
  std::size_t claimed = 0;
  std::uint64_t last_use = 0;

  /// Hands the counts and the claimed bytes back to the budget and empties this.
  void drop() noexcept {
    if (cache) cache->flush_counts(*budget);
    if (budget) budget->release(claimed);
    *this = OwnedCache{};
  }
};

/// The caches of threads that ended, process-wide, for threads to come.
class IdleCaches {
 public:
  /// At most this many idle caches are kept; more are dropped.
  static constexpr std::size_t kMaxIdle = 64;

  static IdleCaches& instance() {
    // Never destroyed: threads may end during static destruction.
    static IdleCaches* idle = [] {
      auto* p = new IdleCaches;
#if defined(__unix__) || defined(__APPLE__)
      // A fork while another thread holds the lock must not leave the child
      // a locked mutex.
      pthread_atfork([] { instance().mu_.lock(); }, [] { instance().mu_.unlock(); },
                     [] { instance().mu_.unlock(); });
#endif
      return p;
    }();
    return *idle;
  }

  /// Keeps `c` (when its tokenizer may still want it) for a later take().
  void give(OwnedCache&& c) {
    if (!c.cache) return;
    std::lock_guard lock(mu_);
    drop_orphans();
    if (idle_.size() < kMaxIdle && c.budget.use_count() > 1) {
      idle_.push_back(std::move(c));
    } else {
      c.drop();
    }
  }

  /// Returns an idle cache of `owner` under `budget`, or an empty one.
  OwnedCache take(std::uint64_t owner, const std::shared_ptr<CacheBudget>& budget) {
    std::lock_guard lock(mu_);
    drop_orphans();
    for (std::size_t i = 0; i < idle_.size(); ++i) {
      if (idle_[i].owner == owner && idle_[i].budget == budget) {
        OwnedCache c = std::move(idle_[i]);
        idle_.erase(idle_.begin() + static_cast<std::ptrdiff_t>(i));
        return c;
      }
    }
    return {};
  }

  std::size_t size() {
    std::lock_guard lock(mu_);
    return idle_.size();
  }

 private:
  IdleCaches() = default;

  // Drops the caches whose budget only idle caches still hold (the
  // tokenizer is gone, or its budget was replaced).
  void drop_orphans() noexcept {
    for (std::size_t i = 0; i < idle_.size();) {
      const CacheBudget* b = idle_[i].budget.get();
      const auto holders = std::count_if(idle_.begin(), idle_.end(),
                                         [&](const OwnedCache& c) { return c.budget.get() == b; });
      if (idle_[i].budget.use_count() == holders) {
        idle_[i].drop();
        idle_.erase(idle_.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        ++i;
      }
    }
  }

  std::mutex mu_;
  std::vector<OwnedCache> idle_;
};

class Workspace {
 public:
  /// How many models one worker keeps a cache for; the least recently used
  /// is dropped beyond that.
  static constexpr std::size_t kCachedModels = 4;

  /// Returns the calling thread's workspace.
  static Workspace& current() {
    thread_local Workspace ws;
    return ws;
  }

  Workspace() = default;
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  ~Workspace() {
    for (OwnedCache& e : entries_) IdleCaches::instance().give(std::move(e));
  }

  /// Returns this worker's cache for the model `owner` under `budget`, or
  /// nullptr when the budget is 0 or spent. `share` is how many workers the
  /// budget is meant for: each claims about budget / share bytes, however
  /// large (pages are touched only as the tables grow into them). (Claims
  /// stopped at 32 MiB until a budget had to bound what a user asked for,
  /// not less: on one pass over 192 MB of unseen English, GPT-2, one
  /// thread, 16, 32, 128 and 512 MiB caches missed 580K, 530K, 511K and
  /// 510K pieces, most of them first sightings, and the larger tables ran
  /// slower: 252, 229, 218 and 143 MB/s.)
  PieceCache* cache(std::uint64_t owner, const std::shared_ptr<CacheBudget>& budget,
                    std::size_t share) {
    ++clock_;
    OwnedCache* free_entry = nullptr;
    for (OwnedCache& e : entries_) {
      if (e.owner == owner && e.budget == budget) {
        e.last_use = clock_;
        return e.cache.get();
      }
      // A budget held by nobody else belongs to a tokenizer that is gone,
      // or to a settings snapshot that was replaced.
      if (e.budget && e.budget.use_count() == 1) e.drop();
      if (!e.budget && !free_entry) free_entry = &e;
    }
    if (!budget || budget->total() == 0) return nullptr;
    OwnedCache* slot = free_entry;
    if (!slot) {
      slot = &entries_[0];
      for (OwnedCache& e : entries_) {
        if (e.last_use < slot->last_use) slot = &e;
      }
      slot->drop();
    }
    if (OwnedCache idle = IdleCaches::instance().take(owner, budget); idle.cache) {
      *slot = std::move(idle);
      slot->last_use = clock_;
      return slot->cache.get();
    }
    const std::size_t want =
        std::max(budget->total() / std::max<std::size_t>(share, 1), PieceCache::kMinBytes);
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
    for (OwnedCache& e : entries_) {
      if (e.cache) e.cache->flush_counts(*e.budget);
    }
  }

  /// Scratch ids for a stage that must finish a sequence before appending it.
  std::vector<std::uint32_t>& scratch_ids() noexcept { return scratch_ids_; }
  /// Scratch token views (a segment's tokens, fast_paths/byte_level_encoding.hpp).
  std::vector<std::string_view>& scratch_views() noexcept { return scratch_views_; }
  /// The UTF-8 of the code-point unit in progress (runtime::converted).
  detail::Utf8Buffer& utf8_buffer() noexcept { return utf8_buffer_; }

 private:
  std::array<OwnedCache, kCachedModels> entries_;
  std::uint64_t clock_ = 0;
  std::vector<std::uint32_t> scratch_ids_;
  std::vector<std::string_view> scratch_views_;
  detail::Utf8Buffer utf8_buffer_;
};

}  // namespace snaptok::runtime
