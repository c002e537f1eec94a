// The worker runtime: piece caches (both tiers, eviction, budget accounting),
// workspaces (one cache per model and budget, orphaned budgets released),
// settings snapshots and a batch's chunk buffers.
#include <doctest/doctest.h>

#include <snaptok/runtime/batch.hpp>
#include <snaptok/runtime/settings.hpp>
#include <snaptok/runtime/workspace.hpp>

#include <cstring>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace runtime_tests {

using snaptok::runtime::CacheBudget;
using snaptok::runtime::PieceCache;
using snaptok::runtime::ShortKey;
using snaptok::runtime::KeySpace;
using snaptok::runtime::Workspace;

TEST_CASE("short keys pack bytes and length, with or without over-reading") {
  const std::string text = "hello world, and then some more bytes";
  for (std::size_t n = 1; n <= PieceCache::kShortMaxBytes; ++n) {
    const ShortKey a = ShortKey::of(text.data(), n, true);
    const ShortKey b = ShortKey::of(text.data(), n, false);
    CHECK(a.lo == b.lo);
    CHECK(a.hi == b.hi);
    CHECK((a.hi >> 56) == n);
  }
  // Same bytes, different length: different keys ("a" vs "a\0").
  const char zeros[2] = {'a', '\0'};
  CHECK(ShortKey::of(zeros, 1, false).hi != ShortKey::of(zeros, 2, false).hi);
}

TEST_CASE("short keys that share their first bytes spread over the table") {
  // SentencePiece pieces all start with the 3 bytes of "▁": their table
  // index (the hash's high bits) must still depend on the rest.
  std::set<std::uint64_t> sets;
  std::size_t keys = 0;
  for (char a = 'a'; a <= 'z'; ++a) {
    for (char b = 'a'; b <= 'z'; ++b) {
      for (char c : std::string("aeiou")) {
        const std::string piece = std::string("\xE2\x96\x81Th") + a + b + c;
        sets.insert(ShortKey::of(piece.data(), piece.size(), false).hash() >> 54);
        ++keys;
      }
    }
  }
  CHECK(keys == 3380);
  CHECK(sets.size() > 900);  // 3380 keys over 1024 sets: ~1000 taken when they spread
}

TEST_CASE("the short tier answers with the ids stored for that very piece, or not at all") {
  PieceCache cache(PieceCache::kMinBytes);  // small: most of these pieces collide
  std::vector<std::string> pieces;
  for (int i = 0; i < 20000; ++i) pieces.push_back(std::to_string(i * 7919));
  auto key_of = [](const std::string& s) { return ShortKey::of(s.data(), s.size(), false); };
  // Piece i has 1 + i % 7 ids: i, then i + 1, i + 2, ... (four or more
  // take a second way).
  auto ids_of = [](std::size_t i) {
    std::vector<std::uint32_t> ids(1 + i % PieceCache::kShortMaxIds);
    for (std::size_t k = 0; k < ids.size(); ++k) ids[k] = static_cast<std::uint32_t>(i + k);
    return ids;
  };
  auto answer = [&](const ShortKey& k) {
    std::vector<std::uint32_t> out(PieceCache::kShortMaxIds + PieceCache::kShortCopyWords, 0xEEEEEEEE);
    const std::uint32_t* hit = cache.find_short(k.hash(), k);
    if (!hit) return std::vector<std::uint32_t>{};
    out.resize(PieceCache::copy_hit(hit, out.data()));
    return out;
  };
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const ShortKey k = key_of(pieces[i]);
    const std::vector<std::uint32_t> ids = ids_of(i);
    CHECK(cache.store_short(k.hash(), k, ids.data(), ids.size()));
    REQUIRE(answer(k) == ids);  // the newest piece is always there, whole
  }
  std::size_t found = 0;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const ShortKey k = key_of(pieces[i]);
    const std::vector<std::uint32_t> got = answer(k);
    if (got.empty()) continue;
    ++found;
    CHECK(got == ids_of(i));
    CHECK(answer(k) == got);  // a second lookup (moved to the front) gives the same
  }
  CHECK(found > 0);
  CHECK(found < pieces.size());  // 64 KiB cannot hold 20000 pieces
  // More ids than two ways hold: refused (they go to the long tier).
  const ShortKey k = key_of("many");
  const std::uint32_t many[PieceCache::kShortMaxIds + 1] = {1, 2, 3, 4, 5, 6, 7, 8};
  CHECK_FALSE(cache.store_short(k.hash(), k, many, PieceCache::kShortMaxIds + 1));
}

TEST_CASE("entries of two ways stay whole as their set fills, reorders and splits") {
  // One set's worth of pieces at a time, in a cache that grows as they
  // arrive: every answer is the whole list stored, or none.
  PieceCache cache(std::size_t{1} << 20);
  std::vector<std::string> pieces;
  for (int i = 0; i < 60000; ++i) pieces.push_back("p" + std::to_string(i));
  std::mt19937 rng(7);
  std::vector<std::vector<std::uint32_t>> stored(pieces.size());
  std::size_t hits = 0;
  for (int round = 0; round < 200000; ++round) {
    const std::size_t i = rng() % (round < 100000 ? 2000 : pieces.size());
    const ShortKey k = ShortKey::of(pieces[i].data(), pieces[i].size(), false);
    std::uint32_t out[PieceCache::kShortMaxIds + PieceCache::kShortCopyWords];
    if (const std::uint32_t* hit = cache.find_short(k.hash(), k)) {
      ++hits;
      const std::size_t n = PieceCache::copy_hit(hit, out);
      REQUIRE(std::vector<std::uint32_t>(out, out + n) == stored[i]);
      continue;
    }
    std::vector<std::uint32_t> ids(1 + rng() % PieceCache::kShortMaxIds);
    for (std::uint32_t& id : ids) id = static_cast<std::uint32_t>(rng() % 100000);
    stored[i] = ids;
    REQUIRE(cache.store_short(k.hash(), k, ids.data(), ids.size()));
  }
  CHECK(hits > 100000);
}

TEST_CASE("the long tier finds what it stored and empties itself when full") {
  PieceCache cache(PieceCache::kMinBytes);
  std::vector<std::string> pieces;
  for (int i = 0; i < 4000; ++i) pieces.push_back(std::string(16 + i % 100, 'a') + std::to_string(i));
  std::size_t found = 0;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const std::uint32_t ids[2] = {static_cast<std::uint32_t>(i), 1};
    cache.store_long(pieces[i], KeySpace::kPiece, ids, 2);
    std::size_t n = 0;
    const std::uint32_t* hit = cache.find_long(pieces[i], KeySpace::kPiece, n);
    REQUIRE(hit != nullptr);  // the newest entry always survives
    CHECK(n == 2);
    CHECK(hit[0] == i);
  }
  for (const std::string& p : pieces) {
    std::size_t n = 0;
    if (cache.find_long(p, KeySpace::kPiece, n)) ++found;
  }
  // 64 KiB cannot hold 4000 pieces of ~70 bytes: it was emptied on the way.
  CHECK(found > 0);
  CHECK(found < pieces.size());
  std::size_t n = 0;
  CHECK(cache.find_long("never stored, sixteen bytes or more", KeySpace::kPiece, n) == nullptr);
}

TEST_CASE("the long tier takes what the short tier leaves, and both stay within the cache's bytes") {
  constexpr std::size_t kBytes = std::size_t{1} << 20;
  PieceCache cache(kBytes);
  // 1,500 pieces of 200 bytes and 50 ids: about 600 KB, more than the
  // quarter of the cache a fixed split would leave the long tier.
  auto long_piece = [](int i) { return std::to_string(i) + std::string(200 - std::to_string(i).size(), 'j'); };
  std::vector<std::uint32_t> ids(50);
  for (int i = 0; i < 1500; ++i) {
    ids[0] = static_cast<std::uint32_t>(i);
    cache.store_long(long_piece(i), KeySpace::kPiece, ids.data(), ids.size());
    REQUIRE(cache.touched_bytes() <= kBytes);
  }
  for (int i = 0; i < 1500; ++i) {
    std::size_t n = 0;
    const std::uint32_t* hit = cache.find_long(long_piece(i), KeySpace::kPiece, n);
    REQUIRE(hit != nullptr);  // none was dropped
    CHECK(n == 50);
    CHECK(hit[0] == static_cast<std::uint32_t>(i));
  }
  // Short pieces now grow the short tier only into what is left; it still
  // answers for the newest ones.
  for (int i = 0; i < 200000; ++i) {
    const std::string piece = "s" + std::to_string(i);
    const ShortKey k = ShortKey::of(piece.data(), piece.size(), false);
    const std::uint32_t id = static_cast<std::uint32_t>(i);
    CHECK(cache.store_short(k.hash(), k, &id, 1));
    REQUIRE(cache.find_short(k.hash(), k) != nullptr);
    REQUIRE(cache.touched_bytes() <= kBytes);
  }
  CHECK(cache.touched_bytes() > kBytes / 2);
  // More long pieces than fit: the long tier empties itself, within the bytes.
  for (int i = 1500; i < 6000; ++i) {
    ids[0] = static_cast<std::uint32_t>(i);
    cache.store_long(long_piece(i), KeySpace::kPiece, ids.data(), ids.size());
    REQUIRE(cache.touched_bytes() <= kBytes);
    std::size_t n = 0;
    REQUIRE(cache.find_long(long_piece(i), KeySpace::kPiece, n) != nullptr);
  }
  std::size_t n = 0;
  CHECK(cache.find_long(long_piece(0), KeySpace::kPiece, n) == nullptr);
  // Many small pieces: the slots, not the arena, fill the room.
  for (int i = 0; i < 100000; ++i) {
    const std::string piece = "small piece " + std::to_string(i);
    cache.store_long(piece, KeySpace::kPiece, ids.data(), 1);
    REQUIRE(cache.touched_bytes() <= kBytes);
    REQUIRE(cache.find_long(piece, KeySpace::kPiece, n) != nullptr);
  }
}

TEST_CASE("ids_of encodes a piece once, and keeps pieces and chunks of the same bytes apart") {
  PieceCache cache(PieceCache::kMinBytes);
  const std::string pieces[] = {"abc", std::string(40, 'q'), std::string(PieceCache::kLongMaxBytes + 1, 'z')};
  for (const std::string& piece : pieces) {
    INFO(piece.size() << " bytes");
    int encoded = 0;
    auto ids_in = [&](KeySpace space, std::uint32_t first) {
      std::uint32_t out[8] = {};
      const std::size_t n = cache.ids_of(piece, space, out, [&](std::uint32_t* at) {
        ++encoded;
        at[0] = first;
        at[1] = first + 1;
        return std::size_t{2};
      });
      return std::vector<std::uint32_t>(out, out + n);
    };
    CHECK(ids_in(KeySpace::kPiece, 10) == std::vector<std::uint32_t>{10, 11});
    CHECK(ids_in(KeySpace::kChunk, 20) == std::vector<std::uint32_t>{20, 21});
    CHECK(encoded == 2);
    // Cached (the encoder would now give other ids), except past kLongMaxBytes.
    const bool cached = piece.size() <= PieceCache::kLongMaxBytes;
    CHECK(ids_in(KeySpace::kPiece, 30) == std::vector<std::uint32_t>{cached ? 10u : 30u, cached ? 11u : 31u});
    CHECK(ids_in(KeySpace::kChunk, 40) == std::vector<std::uint32_t>{cached ? 20u : 40u, cached ? 21u : 41u});
    CHECK(encoded == (cached ? 2 : 4));
  }
}

TEST_CASE("a cache settles once warm, over calls, and keeps its entries") {
  // Settling moves the tables onto huge pages (where the system allows);
  // what the test sees is when it happens and that every entry survives.
  CacheBudget budget(std::size_t{64} << 20);
  PieceCache cache(std::size_t{8} << 20);
  std::uint32_t next_new = 0;
  auto look_up = [&](std::uint64_t lookups, std::uint64_t miss_every) {
    for (std::uint64_t i = 0; i < lookups; ++i) {
      const bool miss = i % miss_every == 0;
      const std::string piece = "w" + std::to_string(miss ? 1000 + next_new++ : i % 1000);
      std::uint32_t out[8] = {};
      cache.ids_of(piece, KeySpace::kPiece, out, [&](std::uint32_t* at) {
        at[0] = static_cast<std::uint32_t>(piece.size());
        return std::size_t{1};
      });
    }
  };
  look_up(1000, 1);  // the working set
  cache.flush_counts(budget);
  CHECK_FALSE(cache.settled());
  look_up(PieceCache::kWarmLookups, 100);  // a corpus pass: one in a hundred new
  cache.flush_counts(budget);
  CHECK_FALSE(cache.settled());
  look_up(PieceCache::kWarmLookups / 2, PieceCache::kWarmLookups);  // warm, in two calls
  cache.flush_counts(budget);
  CHECK_FALSE(cache.settled());
  look_up(PieceCache::kWarmLookups / 2, PieceCache::kWarmLookups);
  cache.flush_counts(budget);
  CHECK(cache.settled());
  int encoded = 0;
  for (int i = 0; i < 1000; ++i) {
    const std::string piece = "w" + std::to_string(i);
    std::uint32_t out[8] = {};
    const std::size_t n = cache.ids_of(piece, KeySpace::kPiece, out, [&](std::uint32_t*) {
      ++encoded;
      return std::size_t{0};
    });
    CHECK(n == 1);
    CHECK(out[0] == piece.size());
  }
  CHECK(encoded == 0);
}

TEST_CASE("a short piece with more ids than a short entry holds is found in the long tier") {
  // Its miss in the short tier asks the long tier only when the filter says
  // a short piece with its hash went there since the tier was emptied.
  PieceCache cache(PieceCache::kMinBytes);
  constexpr std::uint32_t kIds = PieceCache::kShortMaxIds + 1;
  int encoded = 0;
  auto ids_of = [&](const std::string& piece, std::uint32_t first) {
    std::uint32_t out[kIds + PieceCache::kShortCopyWords] = {};
    const std::size_t n = cache.ids_of(piece, KeySpace::kPiece, out, [&](std::uint32_t* at) {
      ++encoded;
      for (std::uint32_t k = 0; k < kIds; ++k) at[k] = first + k;
      return std::size_t{kIds};
    });
    return std::vector<std::uint32_t>(out, out + n);
  };
  auto run = [&](std::uint32_t first) {
    std::vector<std::uint32_t> ids(kIds);
    for (std::uint32_t k = 0; k < kIds; ++k) ids[k] = first + k;
    return ids;
  };
  CHECK(ids_of("abcdef", 7) == run(7));
  CHECK(ids_of("abcdef", 70) == run(7));  // cached
  CHECK(encoded == 1);
  for (int i = 0; i < 300; ++i) {  // each found right after it was stored
    const std::string piece = "p" + std::to_string(i);
    const auto want = ids_of(piece, 100 * i);
    CHECK(ids_of(piece, 1) == want);
  }
  CHECK(encoded == 301);
  for (int i = 0; i < 4000; ++i) {  // the long tier fills and empties
    const std::uint32_t ids[2] = {1, 2};
    cache.store_long(std::string(100, 'x') + std::to_string(i), KeySpace::kPiece, ids, 2);
  }
  CHECK(ids_of("abcdef", 20) == run(20));  // encoded again
  CHECK(ids_of("abcdef", 30) == run(20));
  CHECK(encoded == 302);
}

TEST_CASE("a worker claims its share of a large budget, not a fixed most") {
  auto budget = std::make_shared<CacheBudget>(std::size_t{1} << 30);
  std::thread([&] {
    Workspace ws;
    PieceCache* cache = ws.cache(1, budget, 2);
    REQUIRE(cache != nullptr);
    CHECK(budget->used() == std::size_t{512} << 20);
    // The short tier grows past what a 32 MiB cache held (a quarter of the
    // bytes is kept for the long tier): 300,000 pieces stay cached.
    std::uint32_t ids[1];
    auto key_of = [](std::uint32_t i) {
      char text[8];
      std::memcpy(text, &i, 4);
      std::memcpy(text + 4, "piece", 4);
      return ShortKey::of(text, 8, false);
    };
    for (std::uint32_t i = 0; i < 300000; ++i) {
      ids[0] = i;
      const ShortKey key = key_of(i);
      REQUIRE(cache->store_short(key.hash(), key, ids, 1));
    }
    std::size_t found = 0;
    for (std::uint32_t i = 0; i < 300000; ++i) {
      const ShortKey key = key_of(i);
      const std::uint32_t* hit = cache->find_short(key.hash(), key);
      found += hit != nullptr && hit[0] == i;
    }
    CHECK(found == 300000);
    CHECK(cache->touched_bytes() > std::size_t{32} << 20);
    CHECK(cache->touched_bytes() <= std::size_t{512} << 20);
  }).join();
}

TEST_CASE("workspaces claim from the budget; ended threads' caches wait for the next thread") {
  using snaptok::runtime::IdleCaches;
  auto budget = std::make_shared<CacheBudget>(3 * PieceCache::kMinBytes);
  const auto key = ShortKey::of("warm", 4, false);
  const std::uint32_t ids[1] = {42};
  {
    Workspace ws;
    PieceCache* a = ws.cache(1, budget, 3);
    REQUIRE(a != nullptr);
    CHECK(budget->used() == PieceCache::kMinBytes);
    CHECK(ws.cache(1, budget, 3) == a);  // the same cache for the same model
    PieceCache* b = ws.cache(2, budget, 3);
    REQUIRE(b != nullptr);
    CHECK(b != a);
    CHECK(budget->used() == 2 * PieceCache::kMinBytes);
    // Other threads share the rest; once it is spent they run uncached.
    std::thread([&] {
      Workspace other;
      PieceCache* c = other.cache(3, budget, 3);
      REQUIRE(c != nullptr);
      CHECK(c->store_short(key.hash(), key, ids, 1));
      CHECK(budget->used() == 3 * PieceCache::kMinBytes);
      Workspace third;
      CHECK(third.cache(4, budget, 3) == nullptr);
    }).join();
    // The ended thread's cache waits, still claimed.
    CHECK(budget->used() == 3 * PieceCache::kMinBytes);
  }
  CHECK(budget->used() == 3 * PieceCache::kMinBytes);
  std::thread([&] {
    // A new thread serving model 3 gets the warm cache back, claiming nothing new.
    Workspace next;
    PieceCache* c = next.cache(3, budget, 3);
    REQUIRE(c != nullptr);
    const std::uint32_t* hit = c->find_short(key.hash(), key);
    REQUIRE(hit != nullptr);
    CHECK(hit[0] == 42);
    CHECK(budget->used() == 3 * PieceCache::kMinBytes);
  }).join();
  // Once nobody but idle caches holds the budget, they are freed.
  std::weak_ptr<CacheBudget> gone = budget;
  budget.reset();
  CHECK_FALSE(gone.expired());
  IdleCaches::instance().take(0, nullptr);
  CHECK(gone.expired());

  // A zero budget gives no cache.
  Workspace ws;
  CHECK(ws.cache(1, std::make_shared<CacheBudget>(0), 1) == nullptr);
}

TEST_CASE("a budget nobody else holds is released by the workspace") {
  Workspace ws;
  std::weak_ptr<CacheBudget> gone;
  {
    auto budget = std::make_shared<CacheBudget>(CacheBudget::kDefaultBytes);
    gone = budget;
    CHECK(ws.cache(1, budget, 1) != nullptr);
  }
  CHECK_FALSE(gone.expired());  // the workspace still holds it...
  auto fresh = std::make_shared<CacheBudget>(CacheBudget::kDefaultBytes);
  CHECK(ws.cache(2, fresh, 1) != nullptr);
  CHECK(gone.expired());  // ...until its next call notices nobody else does
}

TEST_CASE("at most kCachedModels caches per workspace, least recently used dropped") {
  auto budget = std::make_shared<CacheBudget>(CacheBudget::kDefaultBytes);
  Workspace ws;
  for (std::uint64_t owner = 1; owner <= Workspace::kCachedModels + 2; ++owner) {
    CHECK(ws.cache(owner, budget, 16) != nullptr);
  }
  CHECK(budget->used() <= Workspace::kCachedModels * (CacheBudget::kDefaultBytes / 16));
}

TEST_CASE("settings snapshots: an update never loses a concurrent one") {
  snaptok::runtime::SettingsSlot slot;
  const auto before = slot.load();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 500; ++i) {
        slot.update([](snaptok::EncodeSettings& s) {
          s.truncation = s.truncation.value_or(snaptok::TruncationParams{});
          ++s.truncation->max_length;
        });
      }
    });
  }
  for (auto& t : threads) t.join();
  const auto after = slot.load();
  REQUIRE(after->truncation.has_value());
  CHECK(after->truncation->max_length == snaptok::TruncationParams{}.max_length + 2000);
  CHECK_FALSE(before->truncation.has_value());  // a held snapshot never changes
}

TEST_CASE("a batch's chunks reuse the buffers of chunks already placed, from call to call") {
  using snaptok::runtime::ChunkBuffers;
  const std::uint32_t* first = nullptr;
  {
    ChunkBuffers buffers(16);
    std::vector<std::uint32_t>& one = buffers.take(1);
    CHECK(one.empty());
    one.reserve(1000);
    one.assign(10, 7);
    first = one.data();
    std::vector<std::uint32_t>& two = buffers.take(2);  // chunk 1 is not placed yet: another buffer
    two.assign(5, 9);
    CHECK(two.data() != first);
    CHECK(buffers[1].size() == 10);
    buffers.give_back(1);
    std::vector<std::uint32_t>& three = buffers.take(3);  // chunk 1's buffer, emptied
    CHECK(three.empty());
    CHECK(three.data() == first);
    CHECK(three.capacity() >= 1000);
    three.push_back(1);
    CHECK(buffers[2].size() == 5);
    buffers.give_back(2);
    buffers.give_back(3);
  }
  ChunkBuffers next_call(4);
  CHECK(next_call.take(1).data() == first);  // kept by this thread
}

TEST_CASE("a batch is cut into chunks of at most about kMaxChunkBytes where its units allow") {
  using namespace snaptok::runtime;
  std::vector<std::size_t> bounds;
  auto chunk_bytes = [&](std::size_t unit_bytes, std::size_t c) { return (bounds[c + 1] - bounds[c]) * unit_bytes; };
  // One 64 MB document in 256 KB parts, on two threads: 64 chunks of 1 MB,
  // not 16 of 4 MB (each chunk's ids wait in a buffer until placed).
  chunk_bounds(256, [](std::size_t) { return std::size_t{256} << 10; }, 2, bounds);
  REQUIRE(bounds.front() == 0);
  REQUIRE(bounds.back() == 256);
  CHECK(bounds.size() - 1 == 64);
  for (std::size_t c = 0; c + 1 < bounds.size(); ++c) CHECK(chunk_bytes(std::size_t{256} << 10, c) <= kMaxChunkBytes);
  // A small batch still gets kChunksPerThread chunks per thread; one thread, one chunk.
  chunk_bounds(1000, [](std::size_t) { return std::size_t{1} << 10; }, 2, bounds);
  CHECK(bounds.size() - 1 == 2 * kChunksPerThread);
  chunk_bounds(256, [](std::size_t) { return std::size_t{256} << 10; }, 1, bounds);
  CHECK(bounds == std::vector<std::size_t>{0, 256});
  // Texts that cannot be cut stay whole: no more chunks than units.
  chunk_bounds(3, [](std::size_t) { return std::size_t{8} << 20; }, 2, bounds);
  CHECK(bounds == std::vector<std::size_t>{0, 1, 2, 3});
}

}  // namespace runtime_tests
