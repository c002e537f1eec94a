// ShortTokenMap: the token id of a piece of 1..15 raw bytes, answered from
// one cache line. A byte-level BPE that ignores merges (o200k, Llama 3) asks
// for every piece its workers have not cached whether the whole piece is a
// token; the vocabulary's own table takes three dependent memory misses for
// that (slot, entry, bytes, after rewriting the bytes as byte-level chars),
// this map one. Built from (key, id) pairs, or viewed in a .st image
// (section bpe.short_tokens); immutable either way.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>

#include "snaptok/detail/flat.hpp"
#include "snaptok/detail/short_key.hpp"
#include "snaptok/runtime/huge_pages.hpp"
#include "snaptok/st/image.hpp"

namespace snaptok::detail {

class ShortTokenMap {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  static constexpr std::size_t kMaxBytes = ShortKey::kMaxBytes;

  // Three keys and their ids to a cache line.
  static constexpr std::size_t kWays = 3;
  struct alignas(64) Bucket {
    ShortKey keys[kWays] = {};  // hi == 0: empty (a key holds its length there)
    std::uint32_t ids[kWays] = {};
    std::uint32_t unused = 0;  // written as 0: a .st file's bytes are the same every time
  };
  static_assert(sizeof(Bucket) == 64);

  ShortTokenMap() = default;

  /// The map of `tokens`: distinct keys (pieces of 1..kMaxBytes bytes,
  /// KeySpace::kPiece), each with its id.
  explicit ShortTokenMap(std::span<const std::pair<ShortKey, std::uint32_t>> tokens) {
    // Buckets half full: a probe nearly always ends in the bucket it starts
    // in (at three quarters, lookups read 2.3 lines on average).
    const std::size_t count = std::max<std::size_t>(1, (tokens.size() * 2 + 2) / 3);
    auto buckets = runtime::make_huge_array<Bucket>(count);
    std::fill(buckets.get(), buckets.get() + count, Bucket{});
    for (const auto& [key, id] : tokens) {
      for (std::size_t b = bucket_of(key, count);; b = next(b, count)) {
        Bucket& bucket = buckets[b];
        std::size_t w = 0;
        while (w < kWays && bucket.keys[w].hi != 0) ++w;
        if (w == kWays) continue;
        bucket.keys[w] = key;
        bucket.ids[w] = id;
        break;
      }
    }
    const Bucket* data = buckets.get();
    buckets_ = Flat<Bucket>(data, count, std::make_shared<runtime::HugeArray<Bucket>>(std::move(buckets)));
  }

  /// Views the buckets of a .st section after checking that each fills its
  /// ways in order, that every id is below `id_bound`, and that some bucket
  /// has room (so every probe ends); one pass.
  static ShortTokenMap view(Flat<Bucket> buckets, const st::Image& image, std::uint64_t id_bound) {
    const std::string what = "bpe.short_tokens: ";
    if (buckets.empty()) image.fail(what + "no buckets");
    bool bad_order = false, bad_id = false, room = false;
    for (const Bucket& b : buckets) {
      bool ended = false;
      for (std::size_t w = 0; w < kWays; ++w) {
        const bool used = b.keys[w].hi != 0;
        bad_order |= used & ended;
        bad_id |= used & (b.ids[w] >= id_bound);
        ended |= !used;
      }
      room |= ended;
    }
    if (bad_order) image.fail(what + "a bucket has a key after an empty way");
    if (bad_id) image.fail(what + "a token id is past the vocabulary");
    if (!room) image.fail(what + "every bucket is full, so a probe would never end");
    ShortTokenMap m;
    m.buckets_ = std::move(buckets);
    return m;
  }

  bool empty() const noexcept { return buckets_.empty(); }
  /// The buckets, as a .st section holds them.
  std::span<const Bucket> buckets() const noexcept { return buckets_.span(); }

  /// Returns the id of the piece whose key is `key`, or kNone.
  std::uint32_t find(const ShortKey& key) const noexcept {
    if (buckets_.empty()) return kNone;
    const std::size_t count = buckets_.size();
    for (std::size_t b = bucket_of(key, count);; b = next(b, count)) {
      const Bucket& bucket = buckets_[b];
      for (std::size_t w = 0; w < kWays; ++w) {
        if (((bucket.keys[w].lo ^ key.lo) | (bucket.keys[w].hi ^ key.hi)) == 0) return bucket.ids[w];
      }
      // Keys fill a bucket's ways in order and none is ever removed: a key
      // went on to the next bucket only when this one was full.
      if (bucket.keys[kWays - 1].hi == 0) return kNone;
    }
  }

 private:
  // The bucket a key's probe starts in: the hash's high bits scaled to the
  // bucket count (which need not be a power of two).
  static std::size_t bucket_of(const ShortKey& key, std::size_t count) noexcept {
    return static_cast<std::size_t>(((key.hash() >> 32) * count) >> 32);
  }
  static std::size_t next(std::size_t b, std::size_t count) noexcept { return b + 1 == count ? 0 : b + 1; }

  Flat<Bucket> buckets_;
};

}  // namespace snaptok::detail
