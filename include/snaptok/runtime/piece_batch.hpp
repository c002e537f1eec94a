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

/// Where a fused path's pieces go: they queue in a batch; a full batch (and
/// flush()) is encoded in two passes: the first packs each short piece's key
/// and prefetches its cache set, the second looks the pieces up in order, so
/// the batch's memory misses overlap instead of following one another. A
/// miss is encoded by `Encoder` and cached. Ids gather in a small buffer
/// that is appended to the result when full and at finish().
///
/// Encoder: `std::size_t encode_piece(std::string_view piece, std::uint32_t*
/// out) const` writes a piece's ids and returns their count, at most
/// piece.size() + Encoder::kExtraIds; the same piece always gives the same
/// ids (so they may be cached).
template <class Encoder>
class PieceBatch {
 public:
  // `readable_end` bounds the buffer the pieces lie in (short keys are
  // read 16 bytes at a time when the buffer allows). `cache` may be null.
  PieceBatch(const Encoder& encoder, std::vector<std::uint32_t>& ids, PieceCache* cache,
             const char* readable_end)
      : encoder_(encoder), ids_(ids), cache_(cache), readable_end_(readable_end) {}
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
    if (count_ == kBatch) flush();
    batch_[count_] = {piece.data(), piece.size()};
    count_ += !piece.empty();
  }

  // Queues the pieces of one block whose starts are the bits of `starts`
  // (bit k: a piece starts at base + k), the first from `cur`; sets `cur`
  // to the last start. Count and position stay in registers.
  SNAPTOK_ALWAYS_INLINE void add_starts(const char* text, std::size_t& cur, std::size_t base,
                                        std::uint64_t starts) {
    std::size_t count = count_;
    std::size_t at = cur;
    for (; starts != 0; starts &= starts - 1) {
      if (count == kBatch) {
        count_ = count;
        flush();
        count = 0;
      }
      const std::size_t j = base + static_cast<std::size_t>(std::countr_zero(starts));
      batch_[count] = {text + at, j - at};
      ++count;
      at = j;
    }
    count_ = count;
    cur = at;
  }

  // Encodes every queued piece, in order, appending their ids to the result.
  void flush() {
    if (count_ == 0) return;
    ShortKey keys[kBatch];
    std::uint64_t hashes[kBatch];
    std::size_t bytes = count_ * Encoder::kExtraIds;
    if (cache_) {
      for (std::size_t i = 0; i < count_; ++i) {
        const std::string_view p = batch_[i].view();
        bytes += p.size();
        if (p.size() <= PieceCache::kShortMaxBytes) {
          keys[i] = ShortKey::of(p.data(), p.size(), readable_end_ - p.data() >= 16);
          hashes[i] = keys[i].hash();
          cache_->prefetch_short(hashes[i]);
        }
      }
    } else {
      for (std::size_t i = 0; i < count_; ++i) bytes += batch_[i].size;
    }
    // A piece has at most one id per byte and kExtraIds more; a short hit
    // copies a whole entry (kShortCopyWords words) whatever its count.
    const std::size_t room = bytes + PieceCache::kShortCopyWords;
    if (out_n_ + room > kOut) spill();
    if (room > kOut) {  // long pieces: straight into the result
      const std::size_t at = ids_.size();
      ids_.resize(at + room);
      std::uint32_t* out = ids_.data() + at;
      for (std::size_t i = 0; i < count_; ++i) out += encode(batch_[i].view(), keys[i], hashes[i], out);
      ids_.resize(static_cast<std::size_t>(out - ids_.data()));
    } else if (cache_) {
      // The write position lives in a register: kept in out_n_, every hit
      // would wait on the store of the last one.
      std::uint32_t* out = out_ + out_n_;
      for (std::size_t i = 0; i < count_; ++i) {
        std::size_t n = 0;
        const std::uint32_t* hit = batch_[i].size <= PieceCache::kShortMaxBytes
                                       ? cache_->find_short(hashes[i], keys[i], n)
                                       : nullptr;
        if (hit) {  // the common case, inline
          std::memcpy(out, hit, PieceCache::kShortCopyWords * sizeof(std::uint32_t));
          out += n;
        } else {
          out += encode(batch_[i].view(), keys[i], hashes[i], out);
        }
      }
      out_n_ = static_cast<std::size_t>(out - out_);
    } else {
      for (std::size_t i = 0; i < count_; ++i) out_n_ += encoder_.encode_piece(batch_[i].view(), out_ + out_n_);
    }
    count_ = 0;
  }

  // Encodes the queued pieces and appends every gathered id to the result
  // (the batch stays usable: other ids may be appended in between).
  void finish() {
    flush();
    spill();
  }

 private:
  static constexpr std::size_t kBatch = 128;
  static constexpr std::size_t kOut = 4096;  // ids gathered before an append

  void spill() {
    ids_.insert(ids_.end(), out_, out_ + out_n_);
    out_n_ = 0;
  }

  // Writes the ids of `piece` (with its short key and hash when it is
  // short) at `out`; returns their count. The path of pieces the short
  // tier does not hold: the long tier, else the encoder, whose result is
  // cached.
#if defined(__GNUC__) || defined(__clang__)
  __attribute__((noinline))
#endif
  std::size_t encode(std::string_view piece, const ShortKey& key, std::uint64_t hash,
                     std::uint32_t* out) {
    const std::size_t n = piece.size();
    if (!cache_ || n > PieceCache::kLongMaxBytes) return encoder_.encode_piece(piece, out);
    std::size_t count = 0;
    if (const std::uint32_t* hit = cache_->find_long(piece, count)) {
      std::memcpy(out, hit, count * sizeof(std::uint32_t));
      return count;
    }
    count = encoder_.encode_piece(piece, out);
    if (n > PieceCache::kShortMaxBytes || !cache_->store_short(hash, key, out, count)) {
      cache_->store_long(piece, out, count);
    }
    return count;
  }

  const Encoder& encoder_;
  std::vector<std::uint32_t>& ids_;
  PieceCache* cache_;
  const char* readable_end_;
  std::size_t count_ = 0;  // queued pieces
  // A queued piece (trivial, so a new Pieces initialises no batch).
  struct Queued {
    const char* data;
    std::size_t size;
    std::string_view view() const noexcept { return {data, size}; }
  };
  Queued batch_[kBatch];
  std::size_t out_n_ = 0;
  std::uint32_t out_[kOut];
};

}  // namespace snaptok::runtime
