// The batch a fused ids-only path queues its pieces in: cache lookups with
// overlapped memory misses, misses encoded by the path and cached, ids
// gathered in order (see PieceBatch).
#pragma once

#include <cstddef>
#include <cstdint>
#include <bit>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

#include "snaptok/detail/inline.hpp"
#include "snaptok/runtime/piece_cache.hpp"

namespace snaptok::runtime {

/// Where a fused path's pieces go: each piece is queued with its cache key
/// (short pieces), and a prefetch of its cache set starts; a full batch (and
/// flush()) is then looked up in order, so the batch's memory misses overlap
/// instead of following one another. A miss is encoded by `Encoder` and
/// cached. Ids gather in a small buffer that is appended to the result when
/// full and at finish().
///
/// Encoder: `std::size_t encode_piece(std::string_view piece, std::uint32_t*
/// out) const` writes a piece's ids and returns their count, at most
/// piece.size() + Encoder::kExtraIds (it may write up to
/// PieceCache::kShortCopyWords words past them); the same piece always
/// gives the same ids (so they may be cached).
template <class Encoder>
class PieceBatch {
 public:
  // `readable_end` bounds the buffer the pieces lie in (short keys are
  // read 16 bytes at a time when the buffer allows). `cache` may be null.
  PieceBatch(const Encoder& encoder, std::vector<std::uint32_t>& ids, PieceCache* cache,
             const char* readable_end)
      : encoder_(encoder), ids_(ids), cache_(cache), readable_end_(readable_end) {
    if (cache_) table_ = cache_->short_table();
  }
  PieceBatch(const PieceBatch&) = delete;
  PieceBatch& operator=(const PieceBatch&) = delete;

  // Pieces added from now on lie in a buffer ending at `readable_end`
  // (the queued ones are encoded first); returns the previous end.
  const char* set_readable_end(const char* readable_end) {
    flush();
    return std::exchange(readable_end_, readable_end);
  }

  // Queues `piece` (a full batch is encoded first).
  SNAPTOK_ALWAYS_INLINE void add(std::string_view piece) {
    if (piece.empty()) return;
    if (count_ >= kBatch) flush();
    queue(batch_[count_++], piece.data(), piece.size(), readable_end_ - piece.data() >= 16, table_);
    queued_bytes_ += piece.size();
  }

  // Queues the pieces of one block whose starts are the bits of `starts`
  // (bit k: a piece starts at base + k), the first from `cur`; sets `cur`
  // to the last start. Count, position and table stay in registers.
  SNAPTOK_ALWAYS_INLINE void add_starts(const char* text, std::size_t& cur, std::size_t base,
                                        std::uint64_t starts) {
    // Every piece starts before the block's end.
    if (readable_end_ - (text + base) >= 64 + 16) {
      add_starts<true>(text, cur, base, starts);
    } else {
      add_starts<false>(text, cur, base, starts);
    }
  }

  // Encodes every queued piece, in order, appending their ids to the result.
  void flush() {
    if (count_ == 0) return;
    encode_queued();
    count_ = 0;
    queued_bytes_ = 0;
  }

  // Encodes the queued pieces and appends every gathered id to the result
  // (the batch stays usable: other ids may be appended in between).
  void finish() {
    flush();
    spill();
  }

 private:
  // A batch is looked up once it holds kBatch pieces; a block's pieces
  // (at most 64) are queued whole, so a batch may hold kBatch + 63.
  static constexpr std::size_t kBatch = 128;
  static constexpr std::size_t kBatchSlots = kBatch + 64;
  static constexpr std::size_t kOut = 4096;  // ids gathered before an append

  void spill() {
    ids_.insert(ids_.end(), out_, out_ + out_n_);
    out_n_ = 0;
  }

  // A queued piece with, when it is short, its cache key and the set the
  // key lives in (trivial, so a new batch initialises nothing).
  struct Queued {
    const char* data;
    std::size_t size;
    ShortKey key;
    PieceCache::ShortTable::Set set;
    std::string_view view() const noexcept { return {data, size}; }
  };

  // Fills `q` with the n > 0 bytes at p, their key (reading 16 bytes when
  // `overread`) and the key's cache set, which starts loading. The
  // key of a piece longer than kShortMaxBytes is never used (computing it
  // costs less than a branch).
  SNAPTOK_ALWAYS_INLINE static void queue(Queued& q, const char* p, std::size_t n, bool overread,
                                          const PieceCache::ShortTable& table) {
    q.data = p;
    q.size = n;
    static_assert(PieceCache::kShortMaxBytes == 15);
    q.key = overread ? ShortKey::of(p, n & 15, true) : ShortKey::of(p, n <= 15 ? n : 15, false);
    q.set = table.locate(q.key.hash());
  }

  template <bool kOverread>
  SNAPTOK_ALWAYS_INLINE void add_starts(const char* text, std::size_t& cur, std::size_t base,
                                        std::uint64_t starts) {
    if (count_ >= kBatch) flush();
    const PieceCache::ShortTable table = table_;
    Queued* q = batch_ + count_;
    const char* const block = text + base;
    const char* at = text + cur;
    for (; starts != 0; starts &= starts - 1) {
      const char* next = block + std::countr_zero(starts);
      queue(*q++, at, static_cast<std::size_t>(next - at), kOverread, table);
      at = next;
    }
    count_ = static_cast<std::size_t>(q - batch_);
    const auto end = static_cast<std::size_t>(at - text);
    queued_bytes_ += end - cur;
    cur = end;
  }

  // Encodes the queued pieces, in order, appending their ids to the result.
  void encode_queued() {
    // A piece has at most one id per byte and kExtraIds more; a short hit
    // copies a whole entry (kShortCopyWords words) whatever its count.
    const std::size_t room = queued_bytes_ + count_ * Encoder::kExtraIds + PieceCache::kShortCopyWords;
    if (out_n_ + room > kOut) spill();
    if (room <= kOut) {
      out_n_ = static_cast<std::size_t>(look_up(batch_, count_, out_ + out_n_) - out_);
      return;
    }
    // Long pieces: straight into the result.
    const std::size_t at = ids_.size();
    ids_.resize(at + room);
    std::uint32_t* out = look_up(batch_, count_, ids_.data() + at);
    ids_.resize(static_cast<std::size_t>(out - ids_.data()));
  }

  // Writes the ids of `count` queued pieces from `out` on (which has room
  // for them and a short hit's whole entry) and returns the end: a short
  // piece from the short tier, else the long tier, else the encoder.
#if defined(__GNUC__) || defined(__clang__)
  __attribute__((noinline))
#endif
  std::uint32_t* look_up(Queued* pieces, std::size_t count, std::uint32_t* out) {
    if (!cache_) {
      for (std::size_t i = 0; i < count; ++i) out += encoder_.encode_piece(pieces[i].view(), out);
      return out;
    }
    std::size_t misses = 0;
    for (Queued *q = pieces, *end = pieces + count; q != end; ++q) {
      const std::uint32_t* hit =
          q->size <= PieceCache::kShortMaxBytes ? PieceCache::ShortTable::find(q->set, q->key) : nullptr;
      if (hit) [[likely]] {  // inline: copy the whole entry, keep its count
        std::memcpy(out, hit, PieceCache::kShortCopyWords * sizeof(std::uint32_t));
        out += hit[PieceCache::kShortMaxIds];
      } else {
        out += encode(*q, out);
        ++misses;
        if (cache_->short_table() != table_) relocate(q + 1, end);
      }
    }
    cache_->count_hits(count - misses);
    return out;
  }

  // The short tier grew (its sets moved): takes its new table and locates
  // the pieces [q, end) in it again.
#if defined(__GNUC__) || defined(__clang__)
  __attribute__((noinline))
#endif
  void relocate(Queued* q, Queued* end) {
    table_ = cache_->short_table();
    for (; q != end; ++q) q->set = table_.locate(q->key.hash());
  }

  // Writes the ids of a piece the short tier does not hold at `out` and
  // returns their count: from the long tier, else the encoder, whose result
  // is cached.
#if defined(__GNUC__) || defined(__clang__)
  __attribute__((noinline))
#endif
  std::size_t encode(const Queued& q, std::uint32_t* out) {
    return cache_->ids_of(q.view(), KeySpace::kPiece, out,
                          [&](std::uint32_t* at) { return encoder_.encode_piece(q.view(), at); });
  }

  const Encoder& encoder_;
  std::vector<std::uint32_t>& ids_;
  PieceCache* cache_;
  const char* readable_end_;
  PieceCache::ShortTable table_;  // the cache's short tier, when there is a cache
  std::size_t count_ = 0;          // queued pieces
  std::size_t queued_bytes_ = 0;   // and their bytes
  Queued batch_[kBatchSlots];
  std::size_t out_n_ = 0;
  std::uint32_t out_[kOut];
};

}  // namespace snaptok::runtime
