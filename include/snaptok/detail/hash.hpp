// Flat hash tables used by the models: a string -> id table over packed token
// bytes, and a 64-bit key -> 64-bit value map. Open addressing with linear
// probing, power-of-two capacity, no per-entry allocation.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "snaptok/detail/flat.hpp"
#include "snaptok/error.hpp"
#include "snaptok/runtime/huge_pages.hpp"
#include "snaptok/st/image.hpp"
#include "snaptok/st/writer.hpp"

namespace snaptok::detail {

// hash_bytes, hash_u64 and table_capacity place the slots of tables stored in
// .st files: they are frozen for .st format version 1 (st/format.hpp), and a
// test pins their values.

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
/// string -> id. Ids need not be dense; a string maps to one id. Built by
/// VocabBuilder, or viewed in a .st image (load()); immutable either way.
class Vocab {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;

  struct Entry {
    std::uint32_t offset;  // into the packed bytes
    std::uint32_t len;
    std::uint32_t id;
  };

  /// Returns the id of `token`, if any.
  std::optional<std::uint32_t> find(std::string_view token) const noexcept {
    if (slots_.empty()) return std::nullopt;
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

  /// Adds the vocab.* sections (they view this table: keep it alive until
  /// the writer is done).
  void save(st::Writer& out) const {
    out.add(st::SectionType::vocab_bytes, bytes_.span());
    out.add(st::SectionType::vocab_entries, entries_.span());
    out.add(st::SectionType::vocab_slots, slots_.span());
    out.add(st::SectionType::vocab_ids, by_id_.span());
  }

  /// Views the vocab.* sections of `image`, after checking that every
  /// index is in range and every probe chain ends.
  static Vocab load(const st::Image& image) {
    Vocab v;
    v.bytes_ = image.section<char>(st::SectionType::vocab_bytes);
    v.entries_ = image.section<Entry>(st::SectionType::vocab_entries);
    v.slots_ = image.section<std::uint32_t>(st::SectionType::vocab_slots);
    v.by_id_ = image.section<std::uint32_t>(st::SectionType::vocab_ids);
    const std::size_t n_slots = v.slots_.size();
    if (n_slots == 0 || (n_slots & (n_slots - 1)) != 0) {
      image.fail("vocab.slots: " + std::to_string(n_slots) + " slots, not a power of two");
    }
    // Branch-free scans (one pass each at memory speed), then the verdicts.
    std::uint64_t end = 0;
    std::uint32_t max_id = 0;
    for (const Entry& e : v.entries_) {
      end = std::max(end, std::uint64_t{e.offset} + e.len);
      max_id = std::max(max_id, e.id);
    }
    if (end > v.bytes_.size() || (!v.entries_.empty() && max_id >= v.by_id_.size())) {
      image.fail("vocab.entries: an entry points outside the vocabulary");
    }
    const auto n_entries = static_cast<std::uint32_t>(std::min<std::size_t>(v.entries_.size(), kNone));
    auto out_of_range = [n_entries](std::uint32_t at) { return at != kNone && at >= n_entries; };
    std::size_t bad = 0;
    for (const auto slot : v.slots_) {
      bad += out_of_range(slot);
      v.size_ += slot != kNone;
    }
    if (bad) image.fail("vocab.slots: a slot points past the entries");
    if (v.size_ == n_slots) image.fail("vocab.slots: no empty slot, so a probe would never end");
    for (const auto at : v.by_id_) bad += out_of_range(at);
    if (bad) image.fail("vocab.ids: an id points past the entries");
    v.mask_ = n_slots - 1;
    return v;
  }

 private:
  friend class VocabBuilder;

  std::string_view view(const Entry& e) const noexcept {
    return std::string_view(bytes_.data() + e.offset, e.len);
  }

  Flat<char> bytes_;
  Flat<Entry> entries_;
  Flat<std::uint32_t> slots_;  // hash slot -> entry, or kNone
  Flat<std::uint32_t> by_id_;  // id -> entry, or kNone
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

/// Collects (string, id) pairs, then builds the Vocab.
class VocabBuilder {
 public:
  /// Adds `token` with `id`; a repeated string keeps the last id (as a
  /// HashMap insert does), a repeated id keeps the last string.
  void add(std::string_view token, std::uint32_t id) {
    entries_.push_back({static_cast<std::uint32_t>(bytes_.size()),
                        static_cast<std::uint32_t>(token.size()), id});
    bytes_.insert(bytes_.end(), token.begin(), token.end());
  }

  /// The id -> token table is flat, so ids may run past the number of tokens
  /// only this far: max(kDenseIds, kSparsity x tokens). Real vocabularies have
  /// a few reserved holes; a 7 KB file whose one token has id 333,333,346
  /// would otherwise take 1.3 GB.
  static constexpr std::size_t kDenseIds = std::size_t{1} << 22;
  static constexpr std::size_t kSparsity = 16;

  /// Returns the table of everything added (the builder is left empty).
  /// Throws Error, naming `where`, when the ids are too sparse (above).
  Vocab build(std::string_view where = "vocab") && {
    std::uint32_t max_id = 0;
    for (const auto& e : entries_) max_id = std::max(max_id, e.id + 1);
    if (max_id > std::max(kDenseIds, kSparsity * entries_.size())) {
      throw Error(std::string(where) + ": id " + std::to_string(max_id - 1) + " is far past the " +
                  std::to_string(entries_.size()) + " tokens; ids may reach max(" +
                  std::to_string(kDenseIds) + ", " + std::to_string(kSparsity) +
                  " x tokens), as the id -> token table is flat");
    }
    std::vector<std::uint32_t> by_id(max_id, Vocab::kNone);
    std::vector<std::uint32_t> slots(table_capacity(entries_.size()), Vocab::kNone);
    const std::size_t mask = slots.size() - 1;
    std::size_t size = 0;
    auto view = [&](std::uint32_t entry) {
      const Vocab::Entry& e = entries_[entry];
      return std::string_view(bytes_.data() + e.offset, e.len);
    };
    for (std::uint32_t i = 0; i < entries_.size(); ++i) {
      const std::string_view s = view(i);
      std::size_t pos = hash_bytes(s) & mask;
      while (slots[pos] != Vocab::kNone && view(slots[pos]) != s) pos = (pos + 1) & mask;
      if (slots[pos] == Vocab::kNone) {
        ++size;
      } else {
        // The string was seen before: the new id wins; drop the old id's
        // reverse entry only if it still points at that entry.
        const auto old = entries_[slots[pos]].id;
        if (by_id[old] == slots[pos]) by_id[old] = Vocab::kNone;
      }
      slots[pos] = i;
      by_id[entries_[i].id] = i;
    }
    Vocab v;
    v.bytes_ = Flat<char>(std::move(bytes_));
    v.entries_ = Flat<Vocab::Entry>(std::move(entries_));
    v.slots_ = Flat<std::uint32_t>(std::move(slots));
    v.by_id_ = Flat<std::uint32_t>(std::move(by_id));
    v.mask_ = mask;
    v.size_ = size;
    return v;
  }

 private:
  std::vector<char> bytes_;
  std::vector<Vocab::Entry> entries_;
};

/// Open-addressed map from a 64-bit key to a 64-bit value (key and value
/// side by side: one cache line per probe); the key
/// 0xFFFF'FFFF'FFFF'FFFF is reserved. Built by U64MapBuilder, or viewed in
/// a .st image (load()); immutable either way.
class U64Map {
 public:
  static constexpr std::uint64_t kEmpty = ~0ull;

  struct Slot {
    std::uint64_t key = kEmpty;
    std::uint64_t value = 0;
  };

  const std::uint64_t* find(std::uint64_t key) const noexcept {
    if (slots_.empty()) return nullptr;
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
    if (!slots_.empty()) __builtin_prefetch(&slots_[hash_u64(key) & mask_]);
#endif
  }

  std::size_t size() const noexcept { return size_; }

  /// Calls fn(key, value) for every entry.
  template <class Fn>
  void for_each(Fn&& fn) const {
    for (const Slot& s : slots_) {
      if (s.key != kEmpty) fn(s.key, s.value);
    }
  }

  /// The slots, as a .st section holds them.
  std::span<const Slot> slots() const noexcept { return slots_.span(); }

  /// Views `slots` (a .st section) after checking the capacity, that every
  /// probe chain ends, and that valid(key, value) holds for every entry
  /// (else the error says `what`: `invalid`); one branch-free pass.
  template <class Valid>
  static U64Map view(Flat<Slot> slots, const st::Image& image, std::string_view what,
                     std::string_view invalid, Valid&& valid) {
    U64Map m;
    const std::size_t n = slots.size();
    if (n != 0 && (n & (n - 1)) != 0) {
      image.fail(std::string(what) + ": " + std::to_string(n) + " slots, not a power of two");
    }
    bool bad = false;
    for (const Slot& s : slots) {
      const bool used = s.key != kEmpty;
      m.size_ += used;
      bad |= used & !valid(s.key, s.value);
    }
    if (bad) image.fail(std::string(what) + ": " + std::string(invalid));
    if (n != 0 && m.size_ == n) {
      image.fail(std::string(what) + ": no empty slot, so a probe would never end");
    }
    m.slots_ = std::move(slots);
    m.mask_ = n ? n - 1 : 0;
    return m;
  }

 private:
  friend class U64MapBuilder;

  Flat<Slot> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

/// Fills the slots of a U64Map, then hands them over.
class U64MapBuilder {
 public:
  void reserve(std::size_t n) {
    capacity_ = table_capacity(n);
    slots_ = runtime::make_huge_array<U64Map::Slot>(capacity_);
    std::fill(slots_.get(), slots_.get() + capacity_, U64Map::Slot{});
    mask_ = capacity_ - 1;
  }

  /// Inserts or overwrites.
  void put(std::uint64_t key, std::uint64_t value) {
    if (2 * (size_ + 1) > capacity_) grow();
    std::size_t pos = hash_u64(key) & mask_;
    while (slots_[pos].key != U64Map::kEmpty && slots_[pos].key != key) pos = (pos + 1) & mask_;
    if (slots_[pos].key == U64Map::kEmpty) ++size_;
    slots_[pos] = {key, value};
  }

  /// Returns the map of everything put (the builder is left empty).
  U64Map build() && {
    if (capacity_ == 0) reserve(0);
    U64Map m;
    const U64Map::Slot* data = slots_.get();
    m.slots_ = Flat<U64Map::Slot>(
        data, capacity_, std::make_shared<runtime::HugeArray<U64Map::Slot>>(std::move(slots_)));
    m.mask_ = mask_;
    m.size_ = size_;
    capacity_ = mask_ = size_ = 0;
    return m;
  }

 private:
  void grow() {
    runtime::HugeArray<U64Map::Slot> old = std::move(slots_);
    const std::size_t old_capacity = capacity_;
    reserve(std::max<std::size_t>(16, old_capacity));
    size_ = 0;
    for (std::size_t i = 0; i < old_capacity; ++i) {
      if (old[i].key != U64Map::kEmpty) put(old[i].key, old[i].value);
    }
  }

  runtime::HugeArray<U64Map::Slot> slots_;
  std::size_t capacity_ = 0;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace snaptok::detail
