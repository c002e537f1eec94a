// A bounded, thread-safe cache from a piece of text to its model tokens.
// Pieces repeat with Zipf frequencies, so most lookups hit. The cache is
// split into shards, each with its own lock and a byte budget; a full shard
// is cleared and refilled, so memory never exceeds the budget.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "snaptok/detail/hash.hpp"
#include "snaptok/pre_tokenized_string.hpp"

namespace snaptok::detail {

class PieceCache {
 public:
  /// Default budget: 64 MiB across all shards.
  static constexpr std::size_t kDefaultBudget = 64u << 20;
  /// Pieces longer than this are never cached.
  static constexpr std::size_t kMaxPieceBytes = 256;

  explicit PieceCache(std::size_t budget_bytes = kDefaultBudget) {
    set_budget(budget_bytes);
  }

  /// Sets the total byte budget (0 disables the cache) and empties it.
  void set_budget(std::size_t budget_bytes) {
    budget_.store(budget_bytes / kShards, std::memory_order_relaxed);
    clear();
  }
  std::size_t budget() const noexcept {
    return budget_.load(std::memory_order_relaxed) * kShards;
  }

  void clear() {
    for (Shard& s : shards_) {
      std::lock_guard lock(s.mu);
      s.map.clear();
      s.bytes = 0;
    }
  }

  /// Appends the cached tokens of `piece` to `out` and returns true on a hit.
  bool lookup(std::string_view piece, std::vector<RawToken>& out) const {
    if (piece.size() > kMaxPieceBytes || budget_.load(std::memory_order_relaxed) == 0) {
      return false;
    }
    const std::uint64_t h = hash_bytes(piece);
    const Shard& s = shards_[h % kShards];
    std::lock_guard lock(s.mu);
    auto it = s.map.find(Key{piece, h});
    if (it == s.map.end()) return false;
    out.insert(out.end(), it->second.begin(), it->second.end());
    return true;
  }

  /// Stores `tokens` for `piece` when it is short enough and fits the budget.
  void store(std::string_view piece, const RawToken* tokens, std::size_t n) {
    const std::size_t limit = budget_.load(std::memory_order_relaxed);
    if (piece.size() > kMaxPieceBytes || limit == 0) return;
    const std::uint64_t h = hash_bytes(piece);
    Shard& s = shards_[h % kShards];
    const std::size_t cost = kEntryOverhead + piece.size() + n * sizeof(RawToken);
    std::lock_guard lock(s.mu);
    if (s.bytes + cost > limit) {
      s.map.clear();
      s.bytes = 0;
    }
    OwnedKey key{std::string(piece), h};
    auto [it, inserted] = s.map.try_emplace(std::move(key), tokens, tokens + n);
    if (inserted) s.bytes += cost;
  }

 private:
  static constexpr std::size_t kShards = 64;
  static constexpr std::size_t kEntryOverhead = 96;

  struct OwnedKey {
    std::string text;
    std::uint64_t hash;
  };
  struct Key {
    std::string_view text;
    std::uint64_t hash;
  };
  struct Hasher {
    using is_transparent = void;
    std::size_t operator()(const OwnedKey& k) const noexcept { return k.hash; }
    std::size_t operator()(const Key& k) const noexcept { return k.hash; }
  };
  struct Equal {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const noexcept {
      return a.hash == b.hash && std::string_view(a.text) == std::string_view(b.text);
    }
  };
  struct Shard {
    mutable std::mutex mu;
    std::unordered_map<OwnedKey, std::vector<RawToken>, Hasher, Equal> map;
    std::size_t bytes = 0;
  };

  std::array<Shard, kShards> shards_;
  std::atomic<std::size_t> budget_{0};
};

}  // namespace snaptok::detail
