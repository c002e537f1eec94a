// Per-worker piece cache: pre-tokenized piece (raw bytes) -> model ids.
//
// Pieces repeat with Zipf frequencies, so most lookups hit. A cache belongs to
// one worker thread (no locks, no atomics on the hot path) and one model; the
// model itself stays const and shareable. Two tiers:
//  - short: pieces of at most 15 bytes with at most 7 ids, packed with their
//    length into a 128-bit key, ids inline (three in a way, the rest in the
//    next: one piece in a hundred has more than three, and asking the long
//    tier for them took 5% of the time), in four-way sets of two cache
//    lines, the most recently used first; the table starts small (inside
//    the core's L2) and doubles whenever an eighth of its ways are taken, up
//    to its share of the budget, so a lookup nearly always ends at the first
//    way it reads and a set rarely overflows (at a quarter, the sets that
//    five or more pieces share kept evicting them in turn: GPT-2 on 16 MB of
//    English missed 3,700 pieces a pass, and ran 13% slower);
//  - long: every other piece of up to kLongMaxBytes bytes, in an
//    open-addressed table whose keys and ids live in one arena; both
//    double while the cache's bytes allow, and the tier is emptied when
//    full after that.
// The two tiers share the cache's bytes as they grow: either may take what
// the other has not touched, but neither is kept below a quarter of them.
// Text without spaces (Japanese, Chinese) fills the long tier with whole
// sentences, English fills the short tier.
// Every worker's cache of one tokenizer draws its bytes from one CacheBudget,
// so all of them together stay within the budget a user sets.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>

#include "snaptok/detail/hash.hpp"
#include "snaptok/detail/inline.hpp"
#include "snaptok/detail/short_key.hpp"
#include "snaptok/runtime/huge_pages.hpp"
#include "snaptok/simd/piece_keys.hpp"

namespace snaptok::runtime {

/// Returns a number no earlier call in this process returned: the owner key
/// of a model's or a fused path's worker caches (Workspace::cache).
inline std::uint64_t new_cache_owner() noexcept {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

/// The byte budget that every worker's cache of one tokenizer shares, and
/// their hit and miss counts.
class CacheBudget {
 public:
  /// Default budget: 64 MiB for all workers together.
  static constexpr std::size_t kDefaultBytes = std::size_t{64} << 20;

  explicit CacheBudget(std::size_t bytes) noexcept : total_(bytes) {}

  std::size_t total() const noexcept { return total_; }
  std::size_t used() const noexcept { return used_.load(std::memory_order_relaxed); }

  /// Returns the bytes granted of `want`: all of it, what is left when that
  /// is at least `min`, else 0.
  std::size_t claim(std::size_t want, std::size_t min) noexcept {
    std::size_t used = used_.load(std::memory_order_relaxed);
    for (;;) {
      const std::size_t left = total_ > used ? total_ - used : 0;
      const std::size_t grant = std::min(want, left);
      if (grant < min || grant == 0) return 0;
      if (used_.compare_exchange_weak(used, used + grant, std::memory_order_relaxed)) return grant;
    }
  }
  void release(std::size_t bytes) noexcept { used_.fetch_sub(bytes, std::memory_order_relaxed); }

  struct Stats {
    std::uint64_t hits = 0;
    std::uint64_t misses = 0;
    std::size_t bytes_used = 0;   // claimed by live caches
    std::size_t bytes_total = 0;  // the budget
  };
  Stats stats() const noexcept {
    return {hits_.load(std::memory_order_relaxed), misses_.load(std::memory_order_relaxed),
            used(), total_};
  }
  void add_counts(std::uint64_t hits, std::uint64_t misses) noexcept {
    if (hits) hits_.fetch_add(hits, std::memory_order_relaxed);
    if (misses) misses_.fetch_add(misses, std::memory_order_relaxed);
  }

 private:
  const std::size_t total_;
  std::atomic<std::size_t> used_{0};
  std::atomic<std::uint64_t> hits_{0};
  std::atomic<std::uint64_t> misses_{0};
};

using detail::KeySpace;
using detail::ShortKey;

class PieceCache {
 public:
  /// A short entry holds this many ids; a piece with more (up to
  /// kShortMaxIds) takes the next way of its set too, for the rest.
  static constexpr std::size_t kShortInlineIds = 3;
  static constexpr std::size_t kShortMaxIds = 7;

 private:
  // key_hi of the way after an entry of more than kShortInlineIds ids: its
  // ids and n fields hold the rest of the ids. No key has bit 63 (the
  // length and the key space fill bits 56-62), so it never matches.
  static constexpr std::uint64_t kContinued = std::uint64_t{1} << 63;
  struct ShortEntry {
    std::uint64_t key_lo;
    std::uint64_t key_hi;  // 0: empty (a real key has its length here); kContinued: see below
    std::uint32_t ids[kShortInlineIds];
    std::uint32_t n;  // right after the ids (ids[kShortInlineIds]): a hit copies all 16 bytes at once

    // Returns 0 when this entry holds `key`, else some other number.
    SNAPTOK_ALWAYS_INLINE std::uint64_t differs(const ShortKey& key) const noexcept {
      return (key_lo ^ key.lo) | (key_hi ^ key.hi);
    }
    // The ways the entry takes: two when its ids go on in the next way
    // (one for the way holding that rest, whose n is an id).
    std::size_t ways() const noexcept { return key_hi != kContinued && n > kShortInlineIds ? 2 : 1; }
  };
  static_assert(offsetof(ShortEntry, n) == offsetof(ShortEntry, ids) + sizeof(ShortEntry::ids));
  static constexpr std::size_t kWays = 4;
  struct alignas(128) ShortSet {
    ShortEntry ways[kWays];
  };
  static constexpr unsigned kSetLog2 = 7;
  static_assert(sizeof(ShortSet) == std::size_t{1} << kSetLog2);
  // From a hit's ids to the ids of the way after it.
  static constexpr std::size_t kNextWayWords = sizeof(ShortEntry) / sizeof(std::uint32_t);

 public:
  static constexpr std::size_t kShortMaxBytes = ShortKey::kMaxBytes;
  /// Writing a short hit's ids (copy_hit) may write this many words past
  /// them: its entry is copied whole, whatever the count.
  static constexpr std::size_t kShortCopyWords = kShortInlineIds + 1;
  /// Longer pieces are rare (a sentence of CJK text runs to a few hundred
  /// bytes) and always encoded.
  static constexpr std::size_t kLongMaxBytes = 1024;
  /// The smallest claim worth a cache.
  static constexpr std::size_t kMinBytes = std::size_t{64} << 10;
  /// The short tier's first size: it doubles as pieces arrive, so a worker
  /// that sees few distinct pieces probes a table that stays in its L2.
  static constexpr std::size_t kFirstShortBytes = std::size_t{128} << 10;

  /// A cache of about `bytes` bytes (claimed from `budget` by the caller).
  explicit PieceCache(std::size_t bytes) : bytes_(bytes) {
    // Each tier may grow to three quarters of the bytes. The short tier's
    // sets are reserved at that size, and pages are touched only as it grows
    // into them; the long tier's slots and arena start small and double.
    const std::size_t sets = std::bit_floor(std::max<std::size_t>(bytes / 4 * 3 / sizeof(ShortSet), 2));
    short_sets_ = make_huge_array<ShortSet>(sets, HugePages::kWhenSettled);
    short_capacity_ = sets;
    short_shift_ = 64 - std::countr_zero(std::min(sets, kFirstShortBytes / sizeof(ShortSet)));
    const std::size_t slots = std::clamp<std::size_t>(std::bit_floor(bytes / 64 / sizeof(LongSlot)), 16, 1024);
    long_slots_ = make_huge_array<LongSlot>(slots, HugePages::kWhenSettled);
    long_mask_ = slots - 1;
    arena_words_ = std::max<std::size_t>(bytes / 32 / sizeof(std::uint32_t), 64);
    arena_ = make_huge_array<std::uint32_t>(arena_words_, HugePages::kWhenSettled);
  }

  /// The short tier's table for a run of lookups that count their hits
  /// themselves (count_hits): valid until the next store_short, which may
  /// grow the table.
  class ShortTable {
   public:
    /// No table (a batch without a cache): locate only, in two empty sets.
    ShortTable() noexcept : ShortTable(no_sets(), 63) {}

    /// The set a short piece lives in (from locate, or key_table().locate
    /// in simd::block_piece_keys; valid for this table): its address.
    using Set = std::byte*;

    /// Returns the set where the short piece with key hash `h` lives, as
    /// simd::block_piece_keys does.
    SNAPTOK_ALWAYS_INLINE Set locate(std::uint64_t h) const noexcept { return key_table().locate(h); }

    /// Returns the cached entry of the short piece `key` in `set` (located
    /// on this table), or nullptr: a hit for copy_hit. A hit in a later way
    /// moves to the front, so a hot piece is nearly always found at once.
    SNAPTOK_ALWAYS_INLINE static const std::uint32_t* find(Set where, const ShortKey& key) noexcept {
      ShortSet& set = *reinterpret_cast<ShortSet*>(where);
      if (set.ways[0].differs(key) == 0) [[likely]] {
        return set.ways[0].ids;
      }
      return find_in_later_ways(set, key);
    }

    /// This table as simd::block_piece_keys sees it: its sets, the shift
    /// from a key's hash to its set's index, and the size of a set. (A
    /// reference to the table's own: a caller passes it to the kernel
    /// without building one on the stack for each block, which cost o200k
    /// 5%.)
    const simd::PieceKeyTable& key_table() const noexcept { return keys_; }

    bool operator==(const ShortTable&) const noexcept = default;

   private:
    friend class PieceCache;
    ShortTable(ShortSet* sets, unsigned shift) noexcept
        : keys_{reinterpret_cast<std::byte*>(sets), shift, kSetLog2} {}
    static ShortSet* no_sets() noexcept {
      static ShortSet sets[2];
      return sets;
    }
    simd::PieceKeyTable keys_;
  };

  ShortTable short_table() noexcept { return {short_sets_.get(), short_shift_}; }

  /// Writes the ids of a short hit (from ShortTable::find or find_short)
  /// to out[0..) and returns their count; up to kShortCopyWords words past
  /// them may be written.
  SNAPTOK_ALWAYS_INLINE static std::size_t copy_hit(const std::uint32_t* hit, std::uint32_t* out) noexcept {
    std::memcpy(out, hit, kShortCopyWords * sizeof(std::uint32_t));
    const std::uint32_t n = hit[kShortInlineIds];
    if (n > kShortInlineIds) [[unlikely]] {  // the rest, from the next way
      std::memcpy(out + kShortInlineIds, hit + kNextWayWords, kShortCopyWords * sizeof(std::uint32_t));
    }
    return n;
  }

  /// Adds `n` hits found through a ShortTable to this cache's count.
  void count_hits(std::size_t n) noexcept { hits_ += n; }

  /// Returns the short hit of the short piece `key` whose hash is `h` (for
  /// copy_hit), or nullptr (a miss is not counted: the long tier is asked
  /// next). A hit in a later way moves to the front.
  const std::uint32_t* find_short(std::uint64_t h, const ShortKey& key) noexcept {
    const std::uint32_t* hit = ShortTable::find(short_table().key_table().locate(h), key);
    if (hit) ++hits_;
    return hit;
  }

  /// Remembers `ids` for the short piece `key` whose hash is `h`, as the
  /// first way of its set, or the first two for more than kShortInlineIds
  /// ids (what no longer fits is dropped). Returns false when they do not
  /// fit (store_long them).
  bool store_short(std::uint64_t h, const ShortKey& key, const std::uint32_t* ids,
                   std::size_t n) noexcept {
    if (n > kShortMaxIds) return false;
    if (2 * short_count_ > short_sets() && short_sets() < short_capacity_ &&
        2 * short_bytes() <= room_beside(long_bytes())) {
      grow_short();
    }
    ShortSet& s = short_sets_[h >> short_shift_];
    ShortEntry head{key.lo, key.hi, {}, static_cast<std::uint32_t>(n)};
    ShortEntry rest{0, kContinued, {}, 0};
    std::memcpy(head.ids, ids, std::min(n, kShortInlineIds) * sizeof(std::uint32_t));
    if (n > kShortInlineIds) std::memcpy(rest.ids, ids + kShortInlineIds, (n - kShortInlineIds) * sizeof(std::uint32_t));
    const std::size_t taken = head.ways();
    for (std::size_t w = kWays - taken; w < kWays; ++w) short_count_ += s.ways[w].key_hi == 0;
    put_first(s, kWays - taken, {head, rest}, taken);
    // An entry pushed to the last way whose rest fell out goes too.
    if (s.ways[kWays - 1].ways() == 2) s.ways[kWays - 1] = ShortEntry{};
    return true;
  }

  /// Writes the ids of `piece` (in key space `space`) to out[0..) and
  /// returns their count: the cached ones, else those encode(out) writes
  /// (returning their count), which are then cached. A piece longer than
  /// kLongMaxBytes is always encoded. `out` has room for the ids and
  /// kShortCopyWords words at least (a short hit copies a whole entry).
  template <class Encode>
  std::size_t ids_of(std::string_view piece, KeySpace space, std::uint32_t* out, Encode&& encode) {
    const std::size_t size = piece.size();
    if (size > kLongMaxBytes) return encode(out);
    if (size > kShortMaxBytes) return ids_past_short_tier(piece, space, nullptr, out, encode);
    const ShortKey key = ShortKey::of(piece.data(), size, false).in(space);
    if (const std::uint32_t* hit = find_short(key.hash(), key)) return copy_hit(hit, out);
    return ids_past_short_tier(piece, space, &key, out, encode);
  }

  /// ids_of for a piece of up to kLongMaxBytes bytes that the short tier
  /// does not hold: `key` is its short key (in `space`), or nullptr when it
  /// is longer than kShortMaxBytes. For a caller that has just asked the
  /// short tier itself (a batch's lookups), so that it is not asked twice.
  template <class Encode>
  std::size_t ids_past_short_tier(std::string_view piece, KeySpace space, const ShortKey* key, std::uint32_t* out,
                                  Encode&& encode) {
    const std::uint64_t h = key ? key->hash() : 0;
    std::size_t n = 0;
    if (!key || long_tier_may_hold(h)) {
      if (const std::uint32_t* hit = find_long(piece, space, n)) {
        std::memcpy(out, hit, n * sizeof(std::uint32_t));
        return n;
      }
    } else {
      ++misses_;
    }
    n = encode(out);
    if (key && store_short(h, *key, out, n)) return n;
    store_long(piece, space, out, n);
    if (key) mark_in_long_tier(h);  // after: storing may have emptied the tier and the filter
    return n;
  }

  /// Returns the cached ids of a piece of up to kLongMaxBytes bytes that the
  /// short tier does not hold, or nullptr.
  const std::uint32_t* find_long(std::string_view piece, KeySpace space, std::size_t& n) noexcept {
    const std::uint64_t h = long_hash(piece, space);
    for (std::size_t i = h & long_mask_;; i = (i + 1) & long_mask_) {
      const LongSlot& s = long_slots_[i];
      if (s.hash == 0) break;
      if (s.hash == h && s.len == piece.size() &&
          std::memcmp(&arena_[s.at], piece.data(), piece.size()) == 0) {
        ++hits_;
        n = s.n;
        return &arena_[s.at + words(piece.size())];
      }
    }
    ++misses_;
    return nullptr;
  }

  /// Remembers `ids` for a piece of up to kLongMaxBytes bytes that the short
  /// tier does not take. A full long tier grows while the cache's bytes
  /// allow, and is emptied after that.
  void store_long(std::string_view piece, KeySpace space, const std::uint32_t* ids, std::size_t n) {
    const std::size_t need = words(piece.size()) + n;
    const std::size_t room = room_beside(short_bytes());
    if (need * sizeof(std::uint32_t) > room / 8) return;  // one piece takes no more than that
    if (2 * (long_count_ + 1) > long_slot_count() &&
        !grow_long(2 * long_slot_count(), arena_words_, room)) {
      empty_long_tier();
    }
    if (arena_used_ + need > arena_words_) {
      // Double the arena, or take what room is left.
      const std::size_t slot_bytes = long_slot_count() * sizeof(LongSlot);
      const std::size_t words = std::min(2 * arena_words_, (room - std::min(room, slot_bytes)) / sizeof(std::uint32_t));
      if (words < arena_used_ + need || !grow_long(long_slot_count(), words, room)) {
        empty_long_tier();
        if (need > arena_words_) return;
      }
    }
    const std::uint64_t h = long_hash(piece, space);
    std::size_t i = h & long_mask_;
    while (long_slots_[i].hash != 0) i = (i + 1) & long_mask_;
    const auto at = static_cast<std::uint32_t>(arena_used_);
    std::memcpy(&arena_[at], piece.data(), piece.size());
    std::memcpy(&arena_[at + words(piece.size())], ids, n * sizeof(std::uint32_t));
    arena_used_ += need;
    ++long_count_;
    long_slots_[i] = {h, at, static_cast<std::uint16_t>(piece.size()), static_cast<std::uint16_t>(n)};
  }

  /// The bytes both tiers have taken: at most the bytes the cache was made with.
  std::size_t touched_bytes() const noexcept { return short_bytes() + long_bytes(); }

  /// Moves this cache's hit and miss counts into `budget`'s totals (at the
  /// end of each call), settling the cache once it is warm.
  void flush_counts(CacheBudget& budget) noexcept {
    settle_when_warm();
    budget.add_counts(hits_, misses_);
    hits_ = misses_ = 0;
  }

  /// A cache is warm when at most one lookup in kWarmMissRatio missed over
  /// kWarmLookups or more (calls add up to them): its working set is in it.
  /// Its tables, on small pages until then (huge_pages.hpp: fresh huge pages
  /// cost a corpus job's pass over unseen text, which misses about one
  /// piece in a hundred and never settles, 40% of its speed on a VM), are
  /// then collapsed into huge pages once, so the probes of a server or a
  /// repeated batch skip the page walks (GPT-2's warm batch: 6% faster).
  static constexpr std::uint64_t kWarmLookups = std::uint64_t{1} << 18;
  static constexpr std::uint64_t kWarmMissRatio = 1000;
  bool settled() const noexcept { return settled_; }

 private:
  struct LongSlot {
    std::uint64_t hash = 0;  // 0: empty
    std::uint32_t at = 0;    // arena index (in 32-bit words) of the key, then the ids
    std::uint16_t len = 0;
    std::uint16_t n = 0;
  };

  // ShortTable::find past the first way: a hit moves to the front (with
  // the rest of its ids, if they take the next way), the ways before it
  // move down. The key comes by value, in two registers: by reference, a
  // batch's lookup loop stored every piece's key on the stack for this
  // rare call (GPT-2 ran 2-5% slower).
#if defined(__GNUC__) || defined(__clang__)
  __attribute__((noinline))
#endif
  SNAPTOK_HOT_CODE static const std::uint32_t* find_in_later_ways(ShortSet& s, ShortKey key) noexcept {
    for (std::size_t w = 1; w < kWays; ++w) {
      if (s.ways[w].differs(key) != 0) continue;
      const std::size_t taken = s.ways[w].ways();
      put_first(s, w, {s.ways[w], s.ways[w + taken - 1]}, taken);
      return s.ways[0].ids;
    }
    return nullptr;
  }

  // Moves ways [0, shifted) of `s` down by `taken` (1 or 2) and puts the
  // first `taken` of `item` in front: an entry, with its rest when it has
  // one. (What moves past the last way is dropped.)
  SNAPTOK_ALWAYS_INLINE static void put_first(ShortSet& s, std::size_t shifted, const std::array<ShortEntry, 2>& item,
                        std::size_t taken) noexcept {
    for (std::size_t i = shifted; i-- > 0;) s.ways[i + taken] = s.ways[i];
    s.ways[0] = item[0];
    if (taken == 2) s.ways[1] = item[1];  // (not a loop: GCC makes that a slow rep movsq)
  }

  std::size_t short_sets() const noexcept { return std::size_t{1} << (64 - short_shift_); }
  std::size_t long_slot_count() const noexcept { return long_mask_ + 1; }

  // The bytes each tier has taken (the long tier's arena counts whole).
  std::size_t short_bytes() const noexcept { return short_sets() * sizeof(ShortSet); }
  std::size_t long_bytes() const noexcept {
    return long_slot_count() * sizeof(LongSlot) + arena_words_ * sizeof(std::uint32_t);
  }

  // The bytes one tier may touch beside the other's `other_bytes`: the
  // other keeps at least a quarter of the cache.
  std::size_t room_beside(std::size_t other_bytes) const noexcept {
    const std::size_t kept = std::max(other_bytes, bytes_ / 4);
    return bytes_ > kept ? bytes_ - kept : 0;
  }

  // Gives the long tier `slots` slots and an arena of `arena_words` words
  // (each as many or more than now; entries are placed again, the arena
  // copied) when that fits in `room` bytes; returns false when it does not.
  bool grow_long(std::size_t slots, std::size_t arena_words, std::size_t room) {
    if (slots * sizeof(LongSlot) + arena_words * sizeof(std::uint32_t) > room) return false;
    if (arena_words != arena_words_) {
      HugeArray<std::uint32_t> arena = make_huge_array<std::uint32_t>(arena_words, new_pages());
      std::memcpy(arena.get(), arena_.get(), arena_used_ * sizeof(std::uint32_t));
      arena_ = std::move(arena);
      arena_words_ = arena_words;
    }
    if (slots != long_slot_count()) {
      HugeArray<LongSlot> grown = make_huge_array<LongSlot>(slots, new_pages());
      for (std::size_t i = 0; i < long_slot_count(); ++i) {
        const LongSlot& s = long_slots_[i];
        if (s.hash == 0) continue;
        std::size_t j = s.hash & (slots - 1);
        while (grown[j].hash != 0) j = (j + 1) & (slots - 1);
        grown[j] = s;
      }
      long_slots_ = std::move(grown);
      long_mask_ = slots - 1;
    }
    return true;
  }

  // Empties the long tier (its slots and arena stay, for the next pieces).
  void empty_long_tier() noexcept {
    std::fill(long_slots_.get(), long_slots_.get() + long_slot_count(), LongSlot{});
    short_in_long_.fill(0);
    arena_used_ = 0;
    long_count_ = 0;
  }

  // A short piece goes to the long tier only when it has more ids than a
  // short entry holds (rare), so a short piece's miss asks the long tier
  // (a memory miss of its own) only when a filter bit says one with its
  // hash went there since the tier was last emptied.
  static constexpr unsigned kFilterBitsLog2 = 16;
  bool long_tier_may_hold(std::uint64_t h) const noexcept {
    const std::uint64_t bit = h >> (64 - kFilterBitsLog2);
    return (short_in_long_[bit >> 6] >> (bit & 63)) & 1;
  }
  void mark_in_long_tier(std::uint64_t h) noexcept {
    const std::uint64_t bit = h >> (64 - kFilterBitsLog2);
    short_in_long_[bit >> 6] |= std::uint64_t{1} << (bit & 63);
  }

  static std::size_t words(std::size_t bytes) noexcept { return (bytes + 3) / 4; }

  // A long-tier slot's hash of `piece` in `space` (never 0: 0 marks an
  // empty slot). A slot matches on hash, length and bytes, so the spaces
  // never share an entry.
  static std::uint64_t long_hash(std::string_view piece, KeySpace space) noexcept {
    return (detail::hash_bytes(piece) ^ (std::uint64_t(space) << 1)) | 1;
  }

  // Counts this call's lookups toward the warm test (flush_counts) and
  // collapses the tables into huge pages when it passes.
  void settle_when_warm() noexcept {
    if (settled_) return;
    window_lookups_ += hits_ + misses_;
    window_misses_ += misses_;
    if (window_lookups_ < kWarmLookups) return;
    settled_ = window_misses_ * kWarmMissRatio <= window_lookups_;
    window_lookups_ = window_misses_ = 0;
    if (settled_) collapse_tables();
  }

  // When a table allocated now gets huge pages: at once in a settled
  // cache, else once it settles.
  HugePages new_pages() const noexcept { return settled_ ? HugePages::kAtFirstTouch : HugePages::kWhenSettled; }

  // The pages the tiers use, as huge pages (those touched are copied once).
  void collapse_tables() noexcept {
    collapse_to_huge_pages(short_sets_.get(), short_bytes());
    collapse_to_huge_pages(arena_.get(), arena_used_ * sizeof(std::uint32_t));
  }

  // Doubles the sets in use (when an eighth of their ways are taken): the
  // index takes one more bit of the hash, so the entries of set s (with
  // the ways their ids go on in) go to set 2s or 2s + 1, in order. Sets
  // are rewritten from the last down: the two a set moves to are past it
  // (or are it, for set 0) and already moved out.
  void grow_short() noexcept {
    const std::size_t old = short_sets();
    // The new half is written whole below: faulted in with one call, as
    // huge pages at once when the cache has settled.
    if (settled_) collapse_to_huge_pages(short_sets_.get(), 2 * old * sizeof(ShortSet));
    populate_pages(&short_sets_[old], old * sizeof(ShortSet));
    --short_shift_;
    for (std::size_t i = old; i-- > 0;) {
      const ShortSet from = short_sets_[i];
      ShortSet& even = short_sets_[2 * i];
      ShortSet& odd = short_sets_[2 * i + 1];
      even = ShortSet{};
      odd = ShortSet{};
      std::size_t evens = 0, odds = 0;
      for (std::size_t w = 0; w < kWays; ++w) {
        const ShortEntry& e = from.ways[w];
        if (e.key_hi == 0 || e.key_hi == kContinued) continue;  // a rest moves with its entry
        const bool to_even = (ShortKey{e.key_lo, e.key_hi}.hash() >> short_shift_) == 2 * i;
        ShortSet& to = to_even ? even : odd;
        std::size_t& at = to_even ? evens : odds;
        for (std::size_t k = 0; k < e.ways(); ++k) to.ways[at++] = from.ways[w + k];
      }
    }
  }

  HugeArray<ShortSet> short_sets_;
  unsigned short_shift_ = 64;       // 64 - log2(sets in use): the index is hash >> shift
  std::size_t short_capacity_ = 0;  // sets allocated (a power of two)
  std::size_t short_count_ = 0;     // filled ways
  std::size_t bytes_;  // both tiers together touch at most this many
  HugeArray<LongSlot> long_slots_;
  std::size_t long_mask_ = 0;  // slots - 1 (a power of two)
  std::size_t long_count_ = 0;
  HugeArray<std::uint32_t> arena_;
  std::size_t arena_words_ = 0;  // its size
  std::size_t arena_used_ = 0;   // words in use
  std::array<std::uint64_t, (std::size_t{1} << kFilterBitsLog2) / 64> short_in_long_{};
  std::uint64_t hits_ = 0;
  std::uint64_t misses_ = 0;
  std::uint64_t window_lookups_ = 0;  // toward the warm test (settle_when_warm)
  std::uint64_t window_misses_ = 0;
  bool settled_ = false;  // warm: the tables are on huge pages
};

}  // namespace snaptok::runtime
