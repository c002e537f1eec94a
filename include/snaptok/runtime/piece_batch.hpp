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
#include "snaptok/simd/dispatch.hpp"

namespace snaptok::runtime {

/// Where a fused path's pieces go: each piece is queued with its cache key
/// (short pieces) and its cache set; a full batch (and flush()) is then
/// looked up in order, each lookup prefetching the set of the piece
/// kLookAhead places on, so that memory misses overlap instead of following
/// one another. A miss is encoded by `Encoder` and
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
    if (cache_) {
      table_ = cache_->short_table();
      block_keys_ = simd::piece_keys_kernel();
    }
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
    queue(count_++, piece.data(), piece.size(), readable_end_ - piece.data() >= 16, table_);
    queued_bytes_ += piece.size();
  }

  // Queues the pieces of one block whose starts are the bits of `starts`
  // (bit k: a piece starts at base + k), the first from `cur`; sets `cur`
  // to the last start. Count, position and table stay in registers.
  SNAPTOK_ALWAYS_INLINE void add_starts(const char* text, std::size_t& cur, std::size_t base,
                                        std::uint64_t starts) {
    if (block_keys_) {
      add_block_keys(text, cur, base, starts);
    } else if (readable_end_ - (text + base) >= 64 + 16) {  // every piece starts before the block's end
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
  // (at most 64) are queued whole, so a batch may hold kBatch + 63, and
  // simd::block_piece_keys may write a few entries past them. (The first
  // kLookAhead lookups of a batch find their sets still loading: 256
  // pieces ran 1-3% faster than 128 on every model; 512, no better.)
  static constexpr std::size_t kBatch = 256;
  static constexpr std::size_t kBatchSlots = kBatch + 64 + simd::kPieceKeysSlack;
  static constexpr std::size_t kOut = 4096;  // ids gathered before an append
  // A lookup prefetches the first line of the set of the piece this many
  // places on. (The sets' first lines were prefetched as the pieces were
  // queued until the prefetches of a whole batch, 128 and more in a burst,
  // were seen to stall the scanner and the key kernel behind them: 1-2%
  // slower on every model. 8 and 32 places on were no better than 16. The
  // second line holds a set's least recently used ways: prefetching it too
  // cost about 3%.)
  static constexpr std::size_t kLookAhead = 16;

  void spill() {
    ids_.insert(ids_.end(), out_, out_ + out_n_);
    out_n_ = 0;
  }

  // The queued pieces, a column per field (so that block_piece_keys
  // stores eight entries of a field at once): piece i is data[i], size[i],
  // and when it is short, its cache key {lo[i], hi[i]} and the set the key
  // lives in. (Trivial: a new batch initialises
  // nothing.)
  struct Queue : simd::PieceKeyArrays<kBatchSlots> {
    std::string_view view(std::size_t i) const noexcept { return {data[i], size[i]}; }
    ShortKey key(std::size_t i) const noexcept { return {lo[i], hi[i]}; }
  };

  // Queues piece i: the n > 0 bytes at p, their key (reading 16 bytes when
  // `overread`) and the key's cache set. The key of a
  // piece longer than kShortMaxBytes is never used (computing it costs less
  // than a branch).
  SNAPTOK_ALWAYS_INLINE void queue(std::size_t i, const char* p, std::size_t n, bool overread,
                                   const PieceCache::ShortTable& table) {
    static_assert(PieceCache::kShortMaxBytes == 15);
    const ShortKey key = overread ? ShortKey::of(p, n & 15, true) : ShortKey::of(p, n <= 15 ? n : 15, false);
    queue_.data[i] = p;
    queue_.size[i] = n;
    queue_.lo[i] = key.lo;
    queue_.hi[i] = key.hi;
    queue_.set[i] = table.locate(key.hash());
  }

  // add_starts with the target's block_piece_keys: the piece in progress,
  // then the block's own pieces at once; the piece from the last start
  // stays in progress. A block cut short by the end of the buffer (the
  // kernel loads 64 bytes) goes through a padded copy, and its pieces are
  // pointed back at the text.
  SNAPTOK_ALWAYS_INLINE void add_block_keys(const char* text, std::size_t& cur, std::size_t base,
                                            std::uint64_t starts) {
    if (count_ >= kBatch) flush();
    if (starts == 0) return;
    const char* const block = text + base;
    const char* const at = text + cur;
    const char* const first = block + std::countr_zero(starts);
    queue(count_, at, static_cast<std::size_t>(first - at), readable_end_ - at >= 16, table_);
    const std::size_t from = count_ + 1;
    const std::ptrdiff_t readable = readable_end_ - block;
    if (readable >= 64) [[likely]] {
      count_ = from + block_keys_(block, starts, table_.key_table(), columns_, from);
    } else {
      alignas(64) char padded[64] = {};
      std::memcpy(padded, block, static_cast<std::size_t>(readable));
      count_ = from + block_keys_(padded, starts, table_.key_table(), columns_, from);
      for (std::size_t i = from; i < count_; ++i) queue_.data[i] = block + (queue_.data[i] - padded);
    }
    const auto end = base + static_cast<std::size_t>(63 - std::countl_zero(starts));
    queued_bytes_ += end - cur;
    cur = end;
  }

  // add_starts one piece at a time (reading 16 bytes for a key when
  // kOverread).
  template <bool kOverread>
  SNAPTOK_ALWAYS_INLINE void add_starts(const char* text, std::size_t& cur, std::size_t base,
                                        std::uint64_t starts) {
    if (count_ >= kBatch) flush();
    if (starts == 0) return;
    const PieceCache::ShortTable table = table_;
    const char* const block = text + base;
    const char* at = text + cur;
    std::size_t i = count_;
    for (; starts != 0; starts &= starts - 1) {
      const char* next = block + std::countr_zero(starts);
      queue(i++, at, static_cast<std::size_t>(next - at), kOverread, table);
      at = next;
    }
    count_ = i;
    const auto end = static_cast<std::size_t>(at - text);
    queued_bytes_ += end - cur;
    cur = end;
  }

  // Encodes the queued pieces, in order, appending their ids to the result.
  void encode_queued() {
    // A piece has at most one id per byte and kExtraIds more; a short hit
    // may write kShortCopyWords words past its ids (copy_hit).
    const std::size_t room = queued_bytes_ + count_ * Encoder::kExtraIds + PieceCache::kShortCopyWords;
    if (out_n_ + room > kOut) spill();
    if (room <= kOut) {
      out_n_ = static_cast<std::size_t>(look_up(count_, out_ + out_n_) - out_);
      return;
    }
    // Long pieces: straight into the result.
    const std::size_t at = ids_.size();
    ids_.resize(at + room);
    std::uint32_t* out = look_up(count_, ids_.data() + at);
    ids_.resize(static_cast<std::size_t>(out - ids_.data()));
  }

  // Writes the ids of the first `count` queued pieces from `out` on (which
  // has room for them and a short hit's whole entry) and returns the end: a
  // short piece from the short tier, else the long tier, else the encoder.
#if defined(__GNUC__) || defined(__clang__)
  __attribute__((noinline))
#endif
  SNAPTOK_HOT_CODE std::uint32_t* look_up(std::size_t count, std::uint32_t* out) {
    if (!cache_) {
      for (std::size_t i = 0; i < count; ++i) out += encoder_.encode_piece(queue_.view(i), out);
      return out;
    }
    std::size_t misses = 0;
    for (std::size_t i = 0; i < kLookAhead && i < count; ++i) prefetch(queue_.set[i]);
    for (std::size_t i = 0; i < count; ++i) {
      if (i + kLookAhead < count) prefetch(queue_.set[i + kLookAhead]);
      const std::uint32_t* hit =
          queue_.size[i] <= PieceCache::kShortMaxBytes
              ? PieceCache::ShortTable::find(queue_.set[i], queue_.key(i))
              : nullptr;
      if (hit) [[likely]] {
        out += PieceCache::copy_hit(hit, out);
      } else {
        out += encode(i, out);
        ++misses;
        if (cache_->short_table() != table_) relocate(i + 1, count);
      }
    }
    cache_->count_hits(count - misses);
    return out;
  }

  // Starts loading the first line of `set`.
  SNAPTOK_ALWAYS_INLINE static void prefetch(const std::byte* set) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(set);
#endif
  }

  // The short tier grew (its sets moved): takes its new table and locates
  // the queued pieces [i, end) in it again.
#if defined(__GNUC__) || defined(__clang__)
  __attribute__((noinline))
#endif
  void relocate(std::size_t i, std::size_t end) {
    table_ = cache_->short_table();
    for (; i != end; ++i) queue_.set[i] = table_.locate(queue_.key(i).hash());
  }

  // Writes the ids of queued piece i, which the short tier does not hold, at
  // `out` and returns their count: from the long tier, else the encoder,
  // whose result is cached. (The piece's key is queued: kPiece space.)
#if defined(__GNUC__) || defined(__clang__)
  __attribute__((noinline))
#endif
  std::size_t encode(std::size_t i, std::uint32_t* out) {
    const std::string_view piece = queue_.view(i);
    auto encode_piece = [&](std::uint32_t* at) { return encoder_.encode_piece(piece, at); };
    if (piece.size() > PieceCache::kShortMaxBytes) return cache_->ids_of(piece, KeySpace::kPiece, out, encode_piece);
    const ShortKey key = queue_.key(i);  // look_up asked the short tier already
    return cache_->ids_past_short_tier(piece, KeySpace::kPiece, &key, out, encode_piece);
  }

  const Encoder& encoder_;
  std::vector<std::uint32_t>& ids_;
  PieceCache* cache_;
  const char* readable_end_;
  PieceCache::ShortTable table_;  // the cache's short tier, when there is a cache
  simd::PieceKeysFn block_keys_ = nullptr;  // the target's vector block_piece_keys, if any
  std::size_t count_ = 0;          // queued pieces
  std::size_t queued_bytes_ = 0;   // and their bytes
  Queue queue_;
  // queue_ as block_keys_ takes it, kept (as table_'s key_table()) rather
  // than built on the stack for each block's call.
  const simd::PieceKeyColumns columns_ = queue_.columns();
  std::size_t out_n_ = 0;
  std::uint32_t out_[kOut];
};

}  // namespace snaptok::runtime
