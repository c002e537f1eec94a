// How a batch call spreads its work over the engine's threads. Each text,
// or each part of a long one cut at cut points, is a Unit; units are
// grouped into chunks of about equal bytes that the pool's threads take in
// turn (run_tasks), and encode_units gathers the chunks' ids in text order.
// The buffers a call needs are kept by its thread from call to call, so a
// repeated call reuses its memory.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "snaptok/detail/code_points.hpp"
#include "snaptok/detail/utf8.hpp"
#include "snaptok/runtime/thread_pool.hpp"
#include "snaptok/runtime/workspace.hpp"
#include "snaptok/scanners/cut_points.hpp"

namespace snaptok::runtime {

// A value of this thread's kept from call to call (Tag tells apart the
// uses of one type); a nested use on the same thread gets a fresh one.
// value() is the constructing thread's, also when tasks on other threads
// reach it through this object.
template <class V, class Tag>
class ThreadKept {
 public:
  ThreadKept() : busy_(in_use()), value_(busy_ ? &own_ : &kept()) { in_use() = true; }
  ~ThreadKept() {
    if (!busy_) in_use() = false;
  }
  ThreadKept(const ThreadKept&) = delete;
  ThreadKept& operator=(const ThreadKept&) = delete;
  V& value() noexcept { return *value_; }
  const V& value() const noexcept { return *value_; }

 private:
  static V& kept() {
    thread_local V v;
    return v;
  }
  static bool& in_use() {
    thread_local bool busy = false;
    return busy;
  }
  bool busy_;
  V own_;
  V* value_;
};

// The id buffers of encode_units' chunks (all but chunk 0, which writes
// into the caller's vector). A chunk takes a buffer when it starts and
// gives it back once its ids are placed, so a call writes into about one
// buffer per thread, however many chunks it has: a buffer per chunk made a
// two-thread call on a 64 MB document touch some 60 MB more. The buffers
// are the calling thread's, kept from call to call up to kKeptBytes of
// capacity in all: a repeated call then writes into pages it already has,
// not fresh ones the kernel must fault in and zero (a tenth of a
// two-thread call's time). Workers write into the caller's buffers, so
// concurrent calls never share one. take and give_back run under the
// call's lock; a chunk's buffer stays put between them.
class ChunkBuffers {
 public:
  static constexpr std::size_t kKeptBytes = std::size_t{64} << 20;
  explicit ChunkBuffers(std::size_t chunks) { kept_.value().slots.resize(chunks); }
  ~ChunkBuffers() {
    // Every buffer back in the pool (a failed call may leave some out),
    // then no more than kKeptBytes of them kept.
    Kept& all = kept_.value();
    for (std::vector<std::uint32_t>& b : all.slots) {
      if (b.capacity() != 0) all.pool.push_back(std::move(b));
    }
    all.slots.clear();
    std::size_t kept = 0;
    for (std::vector<std::uint32_t>& b : all.pool) {
      b.clear();
      kept += b.capacity() * sizeof(std::uint32_t);
      if (kept > kKeptBytes) std::vector<std::uint32_t>().swap(b);
    }
    std::erase_if(all.pool, [](const std::vector<std::uint32_t>& b) { return b.capacity() == 0; });
  }
  ChunkBuffers(const ChunkBuffers&) = delete;
  ChunkBuffers& operator=(const ChunkBuffers&) = delete;

  // Returns the buffer of `chunk` (> 0), which starts now: empty, one of
  // the pool's when it has one.
  std::vector<std::uint32_t>& take(std::size_t chunk) {
    Kept& all = kept_.value();
    if (!all.pool.empty()) {
      all.slots[chunk] = std::move(all.pool.back());
      all.pool.pop_back();
    }
    return all.slots[chunk];
  }
  // Returns the ids of `chunk`, taken before.
  const std::vector<std::uint32_t>& operator[](std::size_t chunk) const { return kept_.value().slots[chunk]; }
  // Puts the buffer of `chunk` (its ids are placed) back in the pool.
  void give_back(std::size_t chunk) {
    Kept& all = kept_.value();
    all.slots[chunk].clear();
    all.pool.push_back(std::move(all.slots[chunk]));
  }

 private:
  struct Kept {
    std::vector<std::vector<std::uint32_t>> pool;   // buffers no chunk holds now
    std::vector<std::vector<std::uint32_t>> slots;  // slot c: chunk c's buffer
  };
  ThreadKept<Kept, ChunkBuffers> kept_;
};

// A vector of this thread's that keeps its capacity from call to call
// (cleared on get()) up to kKeptElements, so that small batches allocate
// nothing and a huge one does not pin its memory.
template <class T>
class Scratch {
 public:
  static constexpr std::size_t kKeptElements = std::size_t{1} << 16;
  ~Scratch() {
    if (vector_.value().capacity() > kKeptElements) std::vector<T>().swap(vector_.value());
  }
  std::vector<T>& get() {
    vector_.value().clear();
    return vector_.value();
  }

 private:
  ThreadKept<std::vector<T>, Scratch> vector_;
};

// A batch is cut into about this many chunks per thread (free threads
// take the next chunk, so uneven texts even out), each of at least
// kMinChunkBytes (below that, handing work over costs more than it saves)
// and, where the texts can be cut that fine, at most kMaxChunkBytes: a
// chunk's ids wait in a buffer until every chunk before it is placed, so
// the chunk size bounds the memory a call holds beside its result. (One
// 64 MB document on two threads in 16 chunks of 4 MB peaked 28 MB higher
// than in chunks of 1 MB, at the same speed.)
inline constexpr std::size_t kChunksPerThread = 8;
inline constexpr std::size_t kMinChunkBytes = 64 << 10;
inline constexpr std::size_t kMaxChunkBytes = 1 << 20;
// A text that may be cut is cut into parts of about this size, on any
// number of threads: each stage's pass over a part (UTF-8 check, added
// tokens, the scan) then finds it in the core's L2 cache, where one pass
// over a whole long text after another would stream it from memory.
inline constexpr std::size_t kPartBytes = 256 << 10;
// add_units cuts a text into parts only from this size on (a last part
// is 0.5 to 1.5 times kPartBytes).
inline constexpr std::size_t kShortestCutText = kPartBytes + kPartBytes / 2;

// Returns the size of the parts to cut texts into, or 0 (no cuts) when
// documents may not be cut.
inline std::size_t part_bytes_for(bool may_cut) { return may_cut ? kPartBytes : 0; }

// Threads used when a call asks for 0: $SNAPTOK_NUM_THREADS when set to a
// positive number, else every core this process may run on.
inline unsigned default_threads() {
  static const unsigned n = [] {
    if (const char* env = std::getenv("SNAPTOK_NUM_THREADS")) {
      const long v = std::strtol(env, nullptr, 10);
      if (v > 0) return static_cast<unsigned>(v);
    }
    return available_cores();
  }();
  return n;
}
inline unsigned resolve_threads(unsigned num_threads) {
  return num_threads ? num_threads : default_threads();
}

// Returns the name of batch item `i` of `list` ("texts[" or "pairs["): "texts[i]".
inline std::string item_name(const char* list, std::size_t i) { return list + std::to_string(i) + "]"; }

// The invalid-UTF-8 error of batch item `i`, naming it: "texts[i]" (or
// "pairs[i]" for a pair's text) instead of "input text".
inline detail::InvalidUtf8 item_error(const detail::InvalidUtf8& e, std::size_t i) {
  return detail::InvalidUtf8(item_name(e.subject() == "input pair text" ? "pairs[" : "texts[", i), e.byte());
}

// Sets `bounds` to those of contiguous chunks of items [0, count) of
// about equal bytes (size_of(i) each): chunk c is [bounds[c], bounds[c + 1]);
// at least one chunk. (An out-parameter: a reused vector costs no allocation.)
template <class SizeOf>
void chunk_bounds(std::size_t count, SizeOf&& size_of, unsigned threads,
                         std::vector<std::size_t>& bounds) {
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < count; ++i) bytes += size_of(i);
  const std::size_t wanted =
      threads <= 1 ? 1
                   : std::min<std::size_t>({std::max(std::size_t{threads} * kChunksPerThread, bytes / kMaxChunkBytes),
                                            count, bytes / kMinChunkBytes + 1});
  bounds.assign(1, 0);
  std::size_t acc = 0, next_cut = bytes / std::max<std::size_t>(wanted, 1);
  for (std::size_t i = 0; i < count && bounds.size() < wanted; ++i) {
    acc += size_of(i);
    if (acc >= next_cut) {
      bounds.push_back(i + 1);
      next_cut = bytes * bounds.size() / wanted;
    }
  }
  if (bounds.back() != count || bounds.size() == 1) bounds.push_back(count);
}

// Runs fn(task, workspace) for every task in [0, tasks) on the engine's
// pool (the calling thread too), at most `threads` at once; rethrows the
// first error. Each thread's cache counts reach the budget afterwards.
template <class Fn>
void run_tasks(std::size_t tasks, unsigned threads, Fn&& fn) {
  ThreadPool::instance().run(tasks, threads, [&](std::size_t task) {
    Workspace& ws = Workspace::current();
    struct FlushCounts {
      runtime::Workspace& ws;
      ~FlushCounts() { ws.flush_counts(); }
    } flush{ws};
    fn(task, ws);
  });
}

// One piece of a batch's work: all of text `text`, or a part of it from
// `at` that begins and ends at cut points (or the text's ends);
// `first` / `last`: the part begins / ends the text (both: the whole). The
// part is UTF-8 `bytes` (`at` counts bytes), or, when `chars` is set, code
// points that the worker converts to UTF-8 as it starts the unit (`at`
// counts chars).
struct Unit {
  std::size_t text;
  std::string_view bytes;
  detail::CodePoints chars;
  std::size_t at;
  bool first, last;
  bool utf8_checked = false;  // known to be valid UTF-8

  // Returns the unit's length: bytes, or chars.
  std::size_t size() const noexcept { return chars ? chars.size : bytes.size(); }
};

namespace batch_detail {
inline std::size_t length(std::string_view text) noexcept { return text.size(); }
inline std::size_t length(detail::CodePoints text) noexcept { return text.size; }
inline std::string_view slice(std::string_view text, std::size_t begin, std::size_t end) noexcept {
  return text.substr(begin, end - begin);
}
inline detail::CodePoints slice(detail::CodePoints text, std::size_t begin, std::size_t end) noexcept {
  return text.sub(begin, end - begin);
}
inline Unit unit_of(std::size_t index, std::string_view part, std::size_t at, bool first, bool last) {
  return {index, part, {}, at, first, last};
}
inline Unit unit_of(std::size_t index, detail::CodePoints part, std::size_t at, bool first, bool last) {
  return {index, {}, part, at, first, last};
}
}  // namespace batch_detail

// Appends the units of `text` (text `index` from `at`; UTF-8 bytes, or
// detail::CodePoints): parts of about `part_size` bytes or chars (the last
// one 0.5 to 1.5 times that) cut at cut points, or one unit when part_size
// is 0 or the text has no cut point where one is wanted.
template <class Text>
void add_units(std::size_t index, Text text, std::size_t at, bool first, bool last,
               std::size_t part_size, std::vector<Unit>& units) {
  using batch_detail::length, batch_detail::slice, batch_detail::unit_of;
  const std::size_t size = length(text);
  std::size_t begin = 0;
  while (part_size && size - begin >= part_size + part_size / 2) {
    const std::size_t cut = scanners::next_cut_point(text, begin + part_size);
    if (cut == std::string_view::npos) break;
    units.push_back(unit_of(index, slice(text, begin, cut), at + begin, first && begin == 0, false));
    begin = cut;
  }
  units.push_back(unit_of(index, slice(text, begin, size), at + begin, first && begin == 0, last));
}

// Returns true when text i of a batch is held as code points: chars[i]
// (else it is UTF-8, texts[i]).
inline bool held_as_chars(std::span<const detail::CodePoints> chars, std::size_t i) noexcept {
  return i < chars.size() && chars[i];
}

// Returns the UTF-8 of every text of a batch: texts[i], or chars[i]
// converted whole into converted[i] (for the calls that need each text
// whole). A char UTF-8 cannot encode throws detail::UnencodableChar
// naming "texts[i]".
inline std::vector<std::string_view> whole_utf8(std::span<const std::string_view> texts,
                                                std::span<const detail::CodePoints> chars,
                                                std::vector<std::string>& converted) {
  std::vector<std::string_view> utf8(texts.begin(), texts.end());
  converted.resize(texts.size());
  detail::Utf8Buffer buffer;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    if (!held_as_chars(chars, i)) continue;
    converted[i] = detail::to_utf8(chars[i], buffer, item_name("texts[", i));
    utf8[i] = converted[i];
  }
  return utf8;
}

// Returns `unit` (of code points) as UTF-8, converted into the buffer of
// `ws`; valid until that buffer's next use.
inline Unit converted(const Unit& unit, Workspace& ws) {
  Unit utf8 = unit;
  utf8.bytes = detail::to_utf8(unit.chars, ws.utf8_buffer(), "input text", unit.at);
  utf8.chars = {};
  utf8.utf8_checked = true;
  return utf8;
}

// The ids encode_units reserves room for, for `bytes` bytes of text: an id
// per 2 bytes (see encode_units), and a few for the post-processor's.
constexpr std::size_t ids_room_for(std::size_t bytes) noexcept { return bytes / 2 + 16; }

// Appends the ids of `units` (in text order) to `ids`, on up to `threads`
// threads; encode_unit(unit, workspace, out) appends one unit's ids to
// `out`. Chunks of units of about equal bytes are taken by free threads;
// chunk 0 writes into `ids`, the others into the calling thread's
// ChunkBuffers, appended in order as they complete. When `offsets` is not
// empty, offsets[t + 1] becomes the end of text t's ids for every text
// whose last unit is here; an invalid-UTF-8 error then names its text
// (item_error).
template <class EncodeUnit>
void encode_units(std::span<const Unit> units, unsigned threads, std::vector<std::uint32_t>& ids,
                  std::span<std::int64_t> offsets, EncodeUnit&& encode_unit) {
  // This thread's reused scratch, so that a warm one-thread call allocates
  // nothing (a reference: tasks on other threads must see this thread's).
  Scratch<std::size_t> scratch_bounds;
  std::vector<std::size_t>& bounds = scratch_bounds.get();
  chunk_bounds(units.size(), [&](std::size_t u) { return units[u].size(); }, threads, bounds);
  const std::size_t chunks = bounds.size() - 1;
  ChunkBuffers chunk_ids(chunks);
  // Room for an id per 2 bytes saves the copies of growing from empty
  // (pages never written cost nothing); `ids` gets room for every chunk,
  // so placing them moves nothing already there. (An id per 3 bytes was
  // too little for much real text: GPT-2 gives 0.42-0.44 ids a byte on
  // C headers and Debian changelogs, 0.51 on Japanese, o200k 0.40 on the
  // changelogs. A batch call from Python, whose result is new memory each
  // time, then copied every id into a buffer twice the size, and faulted
  // its pages in: 13% of a one-pass corpus job went to page faults.)
  std::size_t all_bytes = 0;
  for (const Unit& u : units) all_bytes += u.size();
  // (On small pages: huge_pages.hpp says why.)
  auto reserve = [](std::vector<std::uint32_t>& v, std::size_t n) {
    if (v.capacity() < n) v.reserve(n);
  };
  reserve(ids, ids.size() + ids_room_for(all_bytes));
  // Chunks 1.. are appended to `ids` in order, each as soon as every chunk
  // before it is done, by the thread that completes that run: most of the
  // copying then overlaps the encoding of later chunks. (Appending, not
  // growing `ids` to the total first: that would zero every element
  // before the copy overwrote it.)
  std::mutex placing;
  Scratch<std::uint8_t> scratch_done;
  std::vector<std::uint8_t>& done = scratch_done.get();
  done.assign(chunks, 0);
  std::size_t next_to_place = 1;
  auto place = [&](std::size_t c) {
    const auto start = static_cast<std::int64_t>(ids.size());
    ids.insert(ids.end(), chunk_ids[c].begin(), chunk_ids[c].end());
    chunk_ids.give_back(c);
    if (offsets.empty()) return;
    for (std::size_t u = bounds[c]; u < bounds[c + 1]; ++u) {
      if (units[u].last) offsets[units[u].text + 1] += start;
    }
  };
  run_tasks(chunks, threads, [&](std::size_t c, Workspace& ws) {
    std::vector<std::uint32_t>& out = c == 0 ? ids : [&]() -> std::vector<std::uint32_t>& {
      std::lock_guard lock(placing);
      return chunk_ids.take(c);
    }();
    std::size_t bytes = 0;
    for (std::size_t u = bounds[c]; u < bounds[c + 1]; ++u) bytes += units[u].size();
    if (c > 0) reserve(out, ids_room_for(bytes));
    Unit as_utf8{};  // a unit of code points, converted (not a copy of every unit)
    for (std::size_t u = bounds[c]; u < bounds[c + 1]; ++u) {
      try {
        encode_unit(units[u].chars ? (as_utf8 = converted(units[u], ws)) : units[u], ws, out);
      } catch (const detail::InvalidUtf8& e) {
        if (offsets.empty()) throw;  // one document (DocumentEncoder): "input text"
        throw item_error(e, units[u].text);
      } catch (const detail::UnencodableChar& e) {
        if (offsets.empty()) throw;
        throw detail::UnencodableChar(item_name("texts[", units[u].text), e.index(), e.value());
      }
      if (units[u].last && !offsets.empty()) {
        offsets[units[u].text + 1] = static_cast<std::int64_t>(out.size());
      }
    }
    ws.utf8_buffer().trim();
    if (chunks == 1) return;
    std::lock_guard lock(placing);
    done[c] = 1;
    while (done[0] && next_to_place < chunks && done[next_to_place]) place(next_to_place++);
  });
}

}  // namespace snaptok::runtime
