// A process-wide pool of id buffers for the snaptok._core module (see
// IdBufferPool).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include <snaptok/runtime/batch.hpp>

namespace snaptok_python {

// The id buffers of arrays NumPy has dropped, kept for the next batch call
// (encode_to_numpy, encode_to_arrow): a corpus job encodes batch after
// batch, dropping each result once written, and a buffer the engine writes
// for the first time costs a page fault per page. (A fresh process on the
// bench's VM first-touched memory at 1.4 GB/s, 7x slower than memory it had
// touched before: a 16 MB batch's ids, 22 MB, spent a quarter of its
// encode time in the kernel zeroing pages; the C++ corpus pass, which
// reuses its vector, ran 5-10% faster than with a new one each batch.)
// At most kKeptBuffers buffers of kMinKeptBytes or more, and kKeptBytes of
// capacity in all; shared by every tokenizer and thread of the process.
class IdBufferPool {
 public:
  static constexpr std::size_t kKeptBuffers = 4;
  static constexpr std::size_t kKeptBytes = std::size_t{256} << 20;
  // Any buffer of up to this many ids may serve a smaller result.
  static constexpr std::size_t kSmallIds = std::size_t{1} << 16;
  // Smaller buffers are not kept.
  static constexpr std::size_t kMinKeptBytes = std::size_t{1} << 20;

  // Never destroyed: arrays may be dropped while the interpreter exits.
  static IdBufferPool& instance() {
    static IdBufferPool* pool = new IdBufferPool;
    return *pool;
  }

  // Returns an empty buffer with room for `want` ids: the smallest kept one
  // with that room, unless even that is more than four times too large (a
  // small result must not hold a large batch's buffer), else a new one with
  // an eighth more (the next batch of a loop is seldom exactly the size of
  // this one, and must fit to reuse it).
  std::vector<std::uint32_t> take(std::size_t want) {
    {
      std::lock_guard lock(mutex_);
      auto best = kept_.end();
      for (auto it = kept_.begin(); it != kept_.end(); ++it) {
        if (it->capacity() >= want && (best == kept_.end() || it->capacity() < best->capacity())) best = it;
      }
      if (best != kept_.end() && best->capacity() <= 4 * want + kSmallIds) {
        std::vector<std::uint32_t> buffer = std::move(*best);
        kept_.erase(best);
        bytes_ -= bytes_of(buffer);
        return buffer;
      }
    }
    std::vector<std::uint32_t> buffer;
    buffer.reserve(want + want / 8);  // small pages: snaptok/runtime/huge_pages.hpp says why
    return buffer;
  }

  // The buffers kept now and their bytes (for the tests).
  std::pair<std::size_t, std::size_t> kept() {
    std::lock_guard lock(mutex_);
    return {kept_.size(), bytes_};
  }

  // Keeps `buffer` for a later take, else frees it: a buffer under
  // kMinKeptBytes is freed (malloc reuses small blocks itself), and when the
  // pool is full the smallest kept buffers make way for a larger one, so
  // that small results dropped first never keep a corpus loop's batches out.
  void give_back(std::vector<std::uint32_t>&& buffer) noexcept {
    buffer.clear();
    const std::size_t bytes = bytes_of(buffer);
    if (bytes < kMinKeptBytes || bytes > kKeptBytes) return;
    std::lock_guard lock(mutex_);
    while (kept_.size() >= kKeptBuffers || bytes_ + bytes > kKeptBytes) {
      auto smallest = std::min_element(kept_.begin(), kept_.end(),
                                       [](const auto& a, const auto& b) { return a.capacity() < b.capacity(); });
      if (smallest->capacity() >= buffer.capacity()) return;
      bytes_ -= bytes_of(*smallest);
      kept_.erase(smallest);
    }
    kept_.push_back(std::move(buffer));  // capacity reserved in the constructor: no throw
    bytes_ += bytes;
  }

 private:
  IdBufferPool() { kept_.reserve(kKeptBuffers); }
  static std::size_t bytes_of(const std::vector<std::uint32_t>& v) noexcept {
    return v.capacity() * sizeof(std::uint32_t);
  }

  std::mutex mutex_;
  std::vector<std::vector<std::uint32_t>> kept_;
  std::size_t bytes_ = 0;
};

}  // namespace snaptok_python
