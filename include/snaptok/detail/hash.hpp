// Flat hash tables used by the models: a string -> id table over packed token
// bytes, and a 64-bit key -> 64-bit value map. Open addressing with linear
// probing, power-of-two capacity, no per-entry allocation.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "snaptok/runtime/huge_pages.hpp"

namespace snaptok::detail {

// Returns a 64-bit hash of `s` (multiply-xorshift over 8-byte words).
inline std::uint64_t hash_bytes(std::string_view s) noexcept {
  constexpr std::uint64_t k = 0x9E3779B97F4A7C15ull;
  std::uint64_t h = 0x243F6A8885A308D3ull ^ (s.size() * k);
  const char* p = s.data();
  std::size_t n = s.size();
  while (n >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * k;
    h ^= h >> 29;
    p += 8;
    n -= 8;
  }
  if (n) {
    std::uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = (h ^ w) * k;
    h ^= h >> 29;
  }
  h *= 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 31);
}

// Returns a 64-bit mix of an integer key.
inline std::uint64_t hash_u64(std::uint64_t x) noexcept {
  x ^= x >> 33;
  x *= 0xFF51AFD7ED558CCDull;
  x ^= x >> 33;
  x *= 0xC4CEB9FE1A85EC53ull;
  return x ^ (x >> 33);
}

// Returns the smallest power of two >= 2 * n (and >= 16).
inline std::size_t table_capacity(std::size_t n) noexcept {
  std::size_t cap = 16;
  while (cap < 2 * n) cap <<= 1;
  return cap;
}

/// Vocabulary: token strings packed in one buffer, id -> string and
/// string -> id. Ids need not be dense; a string maps to one id.
class Vocab {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;

  /// Adds `token` with `id`; a repeated string keeps the last id (as a
  /// HashMap insert does), a repeated id keeps the last string.
  void add(std::string_view token, std::uint32_t id) {
    entries_.push_back({static_cast<std::uint32_t>(bytes_.size()),
                        static_cast<std::uint32_t>(token.size()), id});
    bytes_.append(token);
    built_ = false;
  }

  /// Builds the lookup tables; call after the last add().
  void build() {
    std::uint32_t max_id = 0;
    for (const auto& e : entries_) max_id = std::max(max_id, e.id + 1);
    by_id_.assign(max_id, kNone);
    slots_.assign(table_capacity(entries_.size()), kNone);
    mask_ = slots_.size() - 1;
    size_ = 0;
    for (std::uint32_t i = 0; i < entries_.size(); ++i) {
      const std::string_view s = view(entries_[i]);
      std::size_t pos = hash_bytes(s) & mask_;
      while (slots_[pos] != kNone && view(entries_[slots_[pos]]) != s) {
        pos = (pos + 1) & mask_;
      }
      if (slots_[pos] == kNone) {
        ++size_;
      } else {
        // The string was seen before: the new id wins; drop the old id's
        // reverse entry only if it still points at that entry.
        const auto old = entries_[slots_[pos]].id;
        if (by_id_[old] == slots_[pos]) by_id_[old] = kNone;
      }
      slots_[pos] = i;
      by_id_[entries_[i].id] = i;
    }
    built_ = true;
  }

  /// Returns the id of `token`, if any.
  std::optional<std::uint32_t> find(std::string_view token) const noexcept {
    std::size_t pos = hash_bytes(token) & mask_;
    while (slots_[pos] != kNone) {
      const Entry& e = entries_[slots_[pos]];
      if (view(e) == token) return e.id;
      pos = (pos + 1) & mask_;
    }
    return std::nullopt;
  }

  /// Returns the string of `id`, if any.
  std::optional<std::string_view> token(std::uint32_t id) const noexcept {
    if (id >= by_id_.size() || by_id_[id] == kNone) return std::nullopt;
    return view(entries_[by_id_[id]]);
  }

  /// Number of distinct strings (HF vocab.len()).
  std::size_t size() const noexcept { return size_; }
  /// One past the largest id.
  std::size_t id_bound() const noexcept { return by_id_.size(); }

  /// Calls fn(string, id) for every distinct string.
  template <class Fn>
  void for_each(Fn&& fn) const {
    for (const auto slot : slots_) {
      if (slot != kNone) fn(view(entries_[slot]), entries_[slot].id);
    }
  }

 private:
  struct Entry {
    std::uint32_t offset;
    std::uint32_t len;
    std::uint32_t id;
  };
  std::string_view view(const Entry& e) const noexcept {
    return std::string_view(bytes_).substr(e.offset, e.len);
  }

  std::string bytes_;
  std::vector<Entry> entries_;
  std::vector<std::uint32_t> slots_;
  std::vector<std::uint32_t> by_id_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
  bool built_ = false;
};

/// Open-addressed map from a 64-bit key to a 64-bit value (key and value
/// side by side: one cache line per probe); the key
/// 0xFFFF'FFFF'FFFF'FFFF is reserved.
class U64Map {
 public:
  static constexpr std::uint64_t kEmpty = ~0ull;

  void reserve(std::size_t n) {
    capacity_ = table_capacity(n);
    slots_ = runtime::make_huge_array<Slot>(capacity_);
    std::fill(slots_.get(), slots_.get() + capacity_, Slot{});
    mask_ = capacity_ - 1;
  }

  /// Inserts or overwrites.
  void put(std::uint64_t key, std::uint64_t value) {
    if (2 * (size_ + 1) > capacity_) grow();
    std::size_t pos = hash_u64(key) & mask_;
    while (slots_[pos].key != kEmpty && slots_[pos].key != key) pos = (pos + 1) & mask_;
    if (slots_[pos].key == kEmpty) ++size_;
    slots_[pos] = {key, value};
  }

  const std::uint64_t* find(std::uint64_t key) const noexcept {
    if (capacity_ == 0) return nullptr;
    std::size_t pos = hash_u64(key) & mask_;
    while (slots_[pos].key != kEmpty) {
      if (slots_[pos].key == key) return &slots_[pos].value;
      pos = (pos + 1) & mask_;
    }
    return nullptr;
  }

  /// Starts loading the slot where `key` would be (so that several lookups'
  /// memory misses overlap).
  void prefetch(std::uint64_t key) const noexcept {
#if defined(__GNUC__) || defined(__clang__)
    if (capacity_ != 0) __builtin_prefetch(&slots_[hash_u64(key) & mask_]);
#endif
  }

  std::size_t size() const noexcept { return size_; }

 private:
  struct Slot {
    std::uint64_t key = kEmpty;
    std::uint64_t value = 0;
  };

  void grow() {
    runtime::HugeArray<Slot> old = std::move(slots_);
    const std::size_t old_capacity = capacity_;
    reserve(std::max<std::size_t>(16, old_capacity));
    size_ = 0;
    for (std::size_t i = 0; i < old_capacity; ++i) {
      if (old[i].key != kEmpty) put(old[i].key, old[i].value);
    }
  }

  runtime::HugeArray<Slot> slots_;
  std::size_t capacity_ = 0;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace snaptok::detail
