// Parallel and streaming encoding: the engine's thread pool (every task once,
// errors, nesting, concurrent callers, fork, idle workers asleep), documents
// cut at cut points across threads, and DocumentEncoder fed in pieces of any
// size. Every cut result must equal encoding the document whole. Also a
// text's end, where the fused path reads a short last block from a padded
// copy: these tests run under the sanitizers (run_sanitizers.sh).
#include <doctest/doctest.h>

#include <snaptok/detail/code_points.hpp>
#include <snaptok/detail/utf8.hpp>
#include <snaptok/document_encoder.hpp>
#include <snaptok/scanners/cut_points.hpp>
#include <snaptok/runtime/batch.hpp>
#include <snaptok/runtime/thread_pool.hpp>
#include <snaptok/pipeline.hpp>

#include <atomic>
#include <fstream>
#include <limits>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#if defined(__unix__)
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

namespace parallel_tests {

namespace {

using snaptok::runtime::ThreadPool;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string gpt2_json() {
  static const std::string json = read_file(SNAPTOK_TEST_DATA_DIR "/gpt2/tokenizer.json");
  return json;
}

const snaptok::Pipeline& gpt2() {
  static const snaptok::Pipeline tok = snaptok::Pipeline::from_json(gpt2_json());
  return tok;
}

// GPT-2 with `from` replaced by `to` in its tokenizer.json.
snaptok::Pipeline gpt2_with(std::string_view from, std::string_view to) {
  std::string json = gpt2_json();
  const std::size_t at = json.find(from);
  REQUIRE(at != std::string::npos);
  json.replace(at, from.size(), to);
  return snaptok::Pipeline::from_json(json);
}

constexpr std::string_view kByteLevelProcessor =
    R"("post_processor":{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":false})";

// A few MB of text: the bundled sample with special tokens, non-ASCII text,
// long space runs and a run without spaces mixed in.
std::string big_document(std::size_t bytes) {
  const std::string sample = read_file(SNAPTOK_TEST_DATA_DIR "/../../python/snaptok/data/sample.txt");
  REQUIRE(!sample.empty());
  std::mt19937 rng(7);
  const std::vector<std::string> extras = {
      "<|endoftext|>", " caf\xC3\xA9 na\xC3\xAFve ", "\xE4\xB8\xAD\xE6\x96\x87 text", "    indented\n",
      std::string(3000, 'z'), "x <|endoftext|> y", "don't WE'LL", " 12345 678 "};
  std::string doc;
  while (doc.size() < bytes) {
    const std::size_t at = rng() % (sample.size() - 20000);
    doc.append(sample, at, 5000 + rng() % 15000);
    doc += extras[rng() % extras.size()];
  }
  return doc;
}

std::vector<std::uint32_t> flat_ids(const snaptok::Pipeline& tok,
                                    const std::vector<std::string_view>& texts, unsigned threads,
                                    std::vector<std::int64_t>& offsets, bool special = true) {
  std::vector<std::uint32_t> ids;
  tok.encode_batch_flat(texts, special, threads, ids, offsets);
  return ids;
}

}  // namespace

TEST_CASE("thread pool: every task runs once, on several threads") {
  for (const unsigned threads : {1u, 2u, 3u, 8u}) {
    std::vector<std::atomic<int>> runs(1000);
    std::mutex mu;
    std::set<std::thread::id> seen;
    ThreadPool::instance().run(runs.size(), threads, [&](std::size_t i) {
      runs[i].fetch_add(1);
      if (i % 50 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      std::lock_guard lock(mu);
      seen.insert(std::this_thread::get_id());
    });
    for (const auto& r : runs) CHECK(r.load() == 1);
    CHECK(seen.size() <= threads);
    if (threads == 1) CHECK(seen == std::set<std::thread::id>{std::this_thread::get_id()});
    if (threads > 1) CHECK(seen.size() > 1);
  }
  CHECK(ThreadPool::instance().workers() >= 7);
}

TEST_CASE("thread pool: the lowest failing task's error is rethrown, the rest still run") {
  std::atomic<int> ran{0};
  try {
    ThreadPool::instance().run(100, 4, [&](std::size_t i) {
      ran.fetch_add(1);
      if (i == 17 || i == 60) throw std::runtime_error("task " + std::to_string(i));
    });
    FAIL("expected an error");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == "task 17");
  }
  CHECK(ran.load() == 100);
}

TEST_CASE("thread pool: nested calls run inline; concurrent callers share the pool") {
  std::atomic<int> inner{0};
  ThreadPool::instance().run(8, 4, [&](std::size_t) {
    const auto me = std::this_thread::get_id();
    ThreadPool::instance().run(10, 4, [&](std::size_t) {
      CHECK(std::this_thread::get_id() == me);
      inner.fetch_add(1);
    });
  });
  CHECK(inner.load() == 80);
  std::vector<std::thread> callers;
  std::atomic<int> total{0};
  for (int c = 0; c < 6; ++c) {
    callers.emplace_back([&] {
      for (int round = 0; round < 50; ++round) {
        ThreadPool::instance().run(20, 3, [&](std::size_t) { total.fetch_add(1); });
      }
    });
  }
  for (auto& t : callers) t.join();
  CHECK(total.load() == 6 * 50 * 20);
}

#if defined(__unix__)
TEST_CASE("thread pool: idle workers sleep") {
  ThreadPool::instance().run(64, 8, [](std::size_t) {});
  rusage before{}, after{};
  getrusage(RUSAGE_SELF, &before);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  getrusage(RUSAGE_SELF, &after);
  auto cpu_us = [](const rusage& r) {
    return (r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1000000L + r.ru_utime.tv_usec + r.ru_stime.tv_usec;
  };
  CHECK(cpu_us(after) - cpu_us(before) < 100000);  // spinning workers would burn 300 ms each
}

TEST_CASE("thread pool and documents: a forked child encodes in parallel") {
  const std::string doc = big_document(2 << 20);
  std::vector<std::string_view> texts{doc};
  std::vector<std::int64_t> offsets;
  const std::vector<std::uint32_t> expected = flat_ids(gpt2(), texts, 2, offsets);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    std::vector<std::int64_t> child_offsets;
    const bool same = flat_ids(gpt2(), texts, 3, child_offsets) == expected;
    _exit(same && ThreadPool::instance().workers() >= 2 ? 0 : 1);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}
#endif

TEST_CASE("documents: GPT-2 cuts documents; settings that need the whole text do not") {
  CHECK(gpt2().can_split_documents());
  CHECK(gpt2().can_split_documents(false));
  snaptok::Pipeline tok = snaptok::Pipeline::from_json(gpt2_json());
  snaptok::TruncationParams truncation;
  truncation.max_length = 100;
  tok.set_truncation(truncation);
  CHECK(!tok.can_split_documents());
  tok.set_truncation(std::nullopt);
  tok.set_padding(snaptok::PaddingParams{});
  CHECK(!tok.can_split_documents());
  // Normalizers that keep cut points do not stop them; one that reaches
  // across them (Strip, Prepend, Replace) does, and so does ByteLevel
  // without its regex.
  CHECK(gpt2_with(R"("normalizer":null)", R"("normalizer":{"type":"NFC"})").can_split_documents());
  CHECK(gpt2_with(R"("normalizer":null)",
                  R"("normalizer":{"type":"Sequence","normalizers":[{"type":"NFKC"},{"type":"Lowercase"}]})")
            .can_split_documents());
  CHECK(!gpt2_with(R"("normalizer":null)", R"("normalizer":{"type":"Strip","strip_left":true,"strip_right":true})")
             .can_split_documents());
  CHECK(!gpt2_with(R"("normalizer":null)",
                   R"("normalizer":{"type":"Sequence","normalizers":[{"type":"NFC"},{"type":"Prepend","prepend":"x"}]})")
             .can_split_documents());
  CHECK(!gpt2_with(R"("pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true})",
                   R"("pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":false})")
             .can_split_documents());
  // Added tokens a cut could change.
  const std::string_view eot = R"("content":"<|endoftext|>","single_word":false,"lstrip":false,"rstrip":false)";
  CHECK(!gpt2_with(eot, R"("content":"a b","single_word":false,"lstrip":false,"rstrip":false)").can_split_documents());
  CHECK(!gpt2_with(eot, R"("content":"ab","single_word":false,"lstrip":false,"rstrip":true)").can_split_documents());
  CHECK(!gpt2_with(eot, R"("content":" ab","single_word":true,"lstrip":false,"rstrip":false)").can_split_documents());
  CHECK(gpt2_with(eot, R"("content":"<|endoftext|>","single_word":true,"lstrip":true,"rstrip":true)").can_split_documents());
}

TEST_CASE("documents: a document cut across threads has the ids of the whole") {
  const std::string doc = big_document(3 << 20);
  const std::vector<std::uint32_t> whole = gpt2().encode(doc);
  for (const unsigned threads : {1u, 2u, 3u, 7u}) {  // one thread cuts it into parts too
    std::vector<std::int64_t> offsets;
    CHECK(flat_ids(gpt2(), {doc}, threads, offsets) == whole);
    CHECK(offsets == std::vector<std::int64_t>{0, static_cast<std::int64_t>(whole.size())});
  }
  // Through a normalizer that keeps cut points.
  const snaptok::Pipeline folded = gpt2_with(
      R"("normalizer":null)", R"("normalizer":{"type":"Sequence","normalizers":[{"type":"NFKC"},{"type":"Lowercase"}]})");
  std::vector<std::int64_t> folded_offsets;
  CHECK(flat_ids(folded, {doc}, 3, folded_offsets) == folded.encode(doc));
  // Seven times over on two threads: 21 MB, cut into chunks of about 1 MB
  // (runtime::kMaxChunkBytes), more than kChunksPerThread per thread.
  const std::vector<std::string_view> seven(7, doc);
  std::vector<std::int64_t> offsets_one, offsets_two;
  const std::vector<std::uint32_t> one_thread = flat_ids(gpt2(), seven, 1, offsets_one);
  CHECK(flat_ids(gpt2(), seven, 2, offsets_two) == one_thread);
  CHECK(offsets_two == offsets_one);
  CHECK(one_thread.size() == 7 * whole.size());
  // Between small texts, and twice.
  std::vector<std::string_view> texts = {"first", "", doc, "x <|endoftext|>", doc, "last one"};
  std::vector<std::int64_t> offsets;
  const std::vector<std::uint32_t> ids = flat_ids(gpt2(), texts, 4, offsets);
  REQUIRE(offsets.size() == texts.size() + 1);
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const std::vector<std::uint32_t> row(ids.begin() + offsets[i], ids.begin() + offsets[i + 1]);
    CHECK(row == gpt2().encode(texts[i]));
  }
}

TEST_CASE("documents: the segment paths cut documents with the ids of the whole") {
  const std::string doc = big_document(2 << 20);
  // Whitespace words: the bundled T5 (Unigram after Metaspace).
  const snaptok::Pipeline t5 =
      snaptok::Pipeline::from_json(read_file(SNAPTOK_TEST_DATA_DIR "/spm-botchan-unigram-1000-t5/tokenizer.json"));
  REQUIRE(t5.fused_path() == "whitespace words");
  CHECK(t5.can_split_documents());
  std::vector<std::int64_t> offsets;
  CHECK(flat_ids(t5, {doc}, 3, offsets) == t5.encode(doc));
  // SentencePiece BPE (Llama's Prepend + Replace): a part after the first
  // continues a segment, so no "▁" goes in front of it.
  const std::string llama_like = R"({"version":"1.0","added_tokens":[
      {"id":0,"content":"<unk>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true}],
    "normalizer":{"type":"Sequence","normalizers":[{"type":"Prepend","prepend":"\u2581"},
                  {"type":"Replace","pattern":{"String":" "},"content":"\u2581"}]},
    "pre_tokenizer":null,"post_processor":null,"decoder":null,
    "model":{"type":"BPE","unk_token":"<unk>","fuse_unk":true,"byte_fallback":false,
             "vocab":{"<unk>":0,"\u2581":1,"t":2,"h":3,"e":4,"\u2581t":5,"he":6,"\u2581the":7,"\u2581\u2581":8},
             "merges":["\u2581 t","h e","\u2581t he","\u2581 \u2581"]}})";
  const snaptok::Pipeline spm = snaptok::Pipeline::from_json(llama_like);
  REQUIRE(spm.fused_path() == "SentencePiece BPE");
  CHECK(spm.can_split_documents());
  const std::vector<std::uint32_t> whole = spm.encode(doc);
  for (const unsigned threads : {2u, 3u}) CHECK(flat_ids(spm, {doc}, threads, offsets) == whole);
  snaptok::DocumentEncoder stream(spm, true, 1, 1);  // a cut at every cut point
  std::vector<std::uint32_t> streamed;
  const std::string_view head = std::string_view(doc).substr(0, 7 * 30000);
  for (std::size_t at = 0; at < head.size(); at += 7) stream.feed(head.substr(at, 7), streamed);
  stream.finish(streamed);
  CHECK(streamed == spm.encode(head));
}

TEST_CASE("documents: concurrent callers, each with chunks on several threads, get their own ids") {
  // Each caller's chunks go into that caller's kept buffers; the buffers are
  // reused from call to call, and a smaller call after a larger one leaves
  // nothing of the larger behind.
  const std::string big = big_document(1 << 20);
  std::size_t small_end = 200 << 10;  // a char boundary
  while ((static_cast<unsigned char>(big[small_end]) & 0xC0) == 0x80) ++small_end;
  const std::string small = big.substr(0, small_end);
  const std::vector<std::uint32_t> big_ids = gpt2().encode(big), small_ids = gpt2().encode(small);
  const std::vector<std::uint32_t> tail = gpt2().encode("tail");
  std::atomic<int> wrong{0};
  auto run_calls = [&](int caller) {
    for (int call = 0; call < 6; ++call) {
      const bool use_big = (call + caller) % 2 == 0;
      std::vector<std::int64_t> offsets;
      const std::vector<std::string_view> texts = {use_big ? big : small, "tail"};
      const std::vector<std::uint32_t> ids = flat_ids(gpt2(), texts, 3, offsets);
      std::vector<std::uint32_t> want = use_big ? big_ids : small_ids;
      const auto first_end = static_cast<std::int64_t>(want.size());
      want.insert(want.end(), tail.begin(), tail.end());
      if (ids != want || offsets[1] != first_end) ++wrong;
    }
  };
  std::vector<std::thread> callers;
  for (int caller = 0; caller < 3; ++caller) {
    callers.emplace_back([&, caller] {
      try {
        run_calls(caller);
      } catch (...) {
        ++wrong;
      }
    });
  }
  for (std::thread& t : callers) t.join();
  CHECK(wrong == 0);
}

TEST_CASE("documents: the post-processor's ids go before the first part and after the last") {
  const snaptok::Pipeline tok = gpt2_with(
      kByteLevelProcessor,
      R"("post_processor":{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<|endoftext|>","type_id":0}},{"Sequence":{"id":"A","type_id":0}},{"SpecialToken":{"id":"<|endoftext|>","type_id":0}}],"pair":[{"Sequence":{"id":"A","type_id":0}},{"Sequence":{"id":"B","type_id":1}}],"special_tokens":{"<|endoftext|>":{"id":"<|endoftext|>","ids":[50256],"tokens":["<|endoftext|>"]}}})");
  REQUIRE(tok.can_split_documents());
  const std::string doc = big_document(2 << 20);
  for (const bool special : {true, false}) {
    const std::vector<std::uint32_t> whole = tok.encode(doc, special);
    CHECK((whole.front() == 50256) == special);
    std::vector<std::int64_t> offsets;
    CHECK(flat_ids(tok, {doc}, 3, offsets, special) == whole);
    snaptok::DocumentEncoder stream(tok, special, 2);
    std::vector<std::uint32_t> ids;
    for (std::size_t at = 0; at < doc.size(); at += 300001) stream.feed(std::string_view(doc).substr(at, 300001), ids);
    stream.finish(ids);
    CHECK(ids == whole);
  }
}

TEST_CASE("text ends: texts of every length give the general path's ids, cold, warm and batched") {
  // The fused path keys a block's pieces 64 bytes at a time; a text's last
  // block, cut short, is keyed from a padded copy. Texts of every length
  // (so that pieces end anywhere in a block) of random words, most of them
  // new to the cache (a miss merges the piece's bytes, read through the
  // piece's pointer), each in a heap block of its exact size (ASan catches
  // a read past it); encoded cold, then by the general path, then warm.
  std::uint32_t seed = 17;
  auto next = [&] { return seed = seed * 1664525u + 1013904223u; };
  std::vector<std::unique_ptr<char[]>> texts;
  std::vector<std::string_view> views;
  std::vector<std::uint32_t> one_by_one;
  for (std::size_t n = 1; n <= 300; ++n) {
    std::string words;
    while (words.size() < n) {
      words += next() % 4 == 0 ? ", " : " ";
      for (std::uint32_t k = 1 + next() % 9; k > 0; --k) words += static_cast<char>('a' + next() % 26);
    }
    std::unique_ptr<char[]> exact(new char[n]);
    std::copy(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(n), exact.get());
    const std::string_view text(exact.get(), n);
    INFO(n << " bytes: '" << text << "'");
    const std::vector<std::uint32_t> cold = gpt2().encode(text, false);
    CHECK(cold == gpt2().encode_full(text, false).ids);
    CHECK(gpt2().encode(text, false) == cold);
    one_by_one.insert(one_by_one.end(), cold.begin(), cold.end());
    views.push_back(text);
    texts.push_back(std::move(exact));
  }
  std::vector<std::int64_t> offsets;
  CHECK(flat_ids(gpt2(), views, 1, offsets, false) == one_by_one);
}

TEST_CASE("DocumentEncoder: any feed sizes give the ids of the whole document") {
  const std::string doc = big_document(3 << 20);
  const std::vector<std::uint32_t> whole = gpt2().encode(doc);
  std::mt19937 rng(11);
  for (const std::size_t piece : {std::size_t{1} << 22, std::size_t{65537}, std::size_t{1000003}, std::size_t{0}}) {
    for (const unsigned threads : {1u, 2u}) {
      snaptok::DocumentEncoder stream(gpt2(), true, threads);
      std::vector<std::uint32_t> ids;
      std::size_t at = 0, most_pending = 0, largest_feed = 0;
      while (at < doc.size()) {
        const std::size_t n = std::min(doc.size() - at, piece ? piece : 1 + rng() % 400000);
        stream.feed(std::string_view(doc).substr(at, n), ids);
        at += n;
        largest_feed = std::max(largest_feed, n);
        CHECK(stream.bytes_fed() == at);
        most_pending = std::max(most_pending, stream.pending_bytes());
      }
      if (piece < (std::size_t{1} << 20)) {
        CHECK(most_pending < snaptok::DocumentEncoder::kDefaultPartBytes + largest_feed + 5000);
        CHECK(!ids.empty());  // ids came before finish
      }
      stream.finish(ids);
      CHECK(ids == whole);
      CHECK(stream.finished());
      CHECK_THROWS_AS(stream.finish(ids), snaptok::Error);
    }
  }
  // Byte by byte, across a UTF-8 char cut in the middle.
  const std::string small = "caf\xC3\xA9 and \xF0\x9F\x98\x80 emoji, words words <|endoftext|> end";
  snaptok::DocumentEncoder bytes(gpt2());
  std::vector<std::uint32_t> ids;
  for (const char c : small) bytes.feed(std::string_view(&c, 1), ids);
  bytes.finish(ids);
  CHECK(ids == gpt2().encode(small));
}

TEST_CASE("DocumentEncoder: without cuts it holds the text and encodes it whole") {
  snaptok::Pipeline tok = snaptok::Pipeline::from_json(gpt2_json());
  snaptok::TruncationParams truncation;
  truncation.max_length = 50;
  tok.set_truncation(truncation);
  snaptok::DocumentEncoder stream(tok);
  tok.set_truncation(std::nullopt);  // the encoder keeps the settings it started with
  const std::string doc = big_document(1500000);
  std::vector<std::uint32_t> ids;
  stream.feed(doc, ids);
  CHECK(ids.empty());
  CHECK(stream.pending_bytes() == doc.size());
  stream.finish(ids);
  CHECK(ids.size() == 50);
  const std::vector<std::uint32_t> whole = gpt2().encode(doc);
  CHECK(ids == std::vector<std::uint32_t>(whole.begin(), whole.begin() + 50));
}

TEST_CASE("documents: invalid UTF-8 in a cut document names its byte in the whole") {
  std::string doc = big_document(3 << 20);
  const std::size_t bad = doc.size() - 1000;
  doc[bad] = '\xFF';
  auto message_of = [](auto&& run) {
    try {
      run();
    } catch (const snaptok::Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string expected = "input text: invalid UTF-8 at byte " + std::to_string(bad);
  CHECK(message_of([&] { gpt2().encode(doc); }) == expected);
  CHECK(message_of([&] {  // a batch names the item
          std::vector<std::int64_t> offsets;
          flat_ids(gpt2(), {doc}, 3, offsets);
        }) == "texts[0]: invalid UTF-8 at byte " + std::to_string(bad));
  snaptok::DocumentEncoder stream(gpt2(), true, 2);
  std::vector<std::uint32_t> ids;
  CHECK(message_of([&] {
          for (std::size_t at = 0; at < doc.size(); at += 1 << 20) stream.feed(std::string_view(doc).substr(at, 1 << 20), ids);
          stream.finish(ids);
        }) == expected);
  CHECK(stream.finished());
  CHECK_THROWS_AS(stream.feed("more", ids), snaptok::Error);
}

namespace {

// The code points of UTF-8 `text`, `Unit` wide each (each must fit).
template <class Unit>
std::vector<Unit> code_units_of(std::string_view text) {
  std::vector<Unit> out;
  bool fits = true;
  for (std::size_t i = 0; i < text.size();) {
    const char32_t cp = snaptok::detail::next_cp(text, i);
    fits = fits && cp <= std::numeric_limits<Unit>::max();
    out.push_back(static_cast<Unit>(cp));
  }
  REQUIRE(fits);
  return out;
}

template <class Unit>
snaptok::detail::CodePoints view_of(const std::vector<Unit>& units) {
  return {units.data(), units.size(), sizeof(Unit)};
}

}  // namespace

TEST_CASE("code points: to_utf8 writes every width's chars as UTF-8 and names the char it cannot encode") {
  snaptok::detail::Utf8Buffer buffer;
  auto utf8_of = [](const std::vector<char32_t>& cps) {
    std::string s;
    for (const char32_t c : cps) snaptok::detail::append_cp(s, c);
    return s;
  };
  // Every length class and its edges, in runs long and short (the ASCII
  // blocks of 16), at every alignment.
  const std::vector<char32_t> edges = {0, 'a', 0x7F, 0x80, 0xFF, 0x100, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFF, 0x10000, 0x10FFFF};
  std::mt19937 rng(11);
  for (const unsigned width : {1u, 2u, 4u}) {
    const char32_t top = width == 1 ? 0xFF : width == 2 ? 0xFFFF : 0x10FFFF;
    for (int round = 0; round < 200; ++round) {
      std::vector<char32_t> cps;
      const std::size_t n = rng() % 100;
      if (round < static_cast<int>(edges.size())) {  // a run of one char: whole blocks of it
        if (edges[round] <= top) cps.assign(n, edges[round]);
      } else {
        for (std::size_t i = 0; i < n; ++i) {
          const char32_t c = rng() % 3 ? 'a' + rng() % 26 : edges[rng() % edges.size()];
          if (c <= top) cps.push_back(c);
        }
      }
      std::vector<std::uint8_t> u8(cps.begin(), cps.end());
      std::vector<std::uint16_t> u16(cps.begin(), cps.end());
      std::vector<std::uint32_t> u32(cps.begin(), cps.end());
      const snaptok::detail::CodePoints view = width == 1 ? view_of(u8) : width == 2 ? view_of(u16) : view_of(u32);
      CHECK(snaptok::detail::to_utf8(view, buffer, "t") == utf8_of(cps));
    }
  }
  // A lone surrogate (UCS-2 or UTF-32) or a value above U+10FFFF: the error
  // names the char, counted from where the view starts in its text.
  for (const char32_t bad : {char32_t{0xD800}, char32_t{0xDFFF}, char32_t{0x110000}}) {
    std::vector<std::uint32_t> text(40, 'a');
    text[37] = bad;
    try {
      snaptok::detail::to_utf8(view_of(text), buffer, "texts[3]", 1000);
      FAIL("no error for " << static_cast<std::uint32_t>(bad));
    } catch (const snaptok::detail::UnencodableChar& e) {
      CHECK(e.index() == 1037);
      CHECK(e.value() == bad);
      CHECK(std::string(e.what()).starts_with("texts[3]: char 1037 is U+"));
    }
  }
}

TEST_CASE("code points: cut points are where the UTF-8's are") {
  std::string text = big_document(40000).substr(0, 30000) + "\xF0\x9F\x98\x80 end word";
  const std::vector<std::uint32_t> cps = code_units_of<std::uint32_t>(text);
  std::vector<std::size_t> byte_of(cps.size() + 1, text.size());
  for (std::size_t i = 0, c = 0; i < text.size(); ++c) {
    byte_of[c] = i;
    snaptok::detail::next_cp(text, i);
  }
  std::size_t checked = 0;
  for (std::size_t c = 0; c <= cps.size(); ++c) {
    const std::size_t in_chars = snaptok::scanners::next_cut_point(view_of(cps), c);
    const std::size_t in_bytes = snaptok::scanners::next_cut_point(text, byte_of[c]);
    REQUIRE((in_chars == std::string_view::npos) == (in_bytes == std::string_view::npos));
    if (in_chars != std::string_view::npos) {
      CHECK(byte_of[in_chars] == in_bytes);
      ++checked;
    }
  }
  CHECK(checked > 20000);
}

TEST_CASE("documents: texts held as code points give the ids of their UTF-8") {
  // Latin-1, UCS-2 and UTF-32 (with a char above U+FFFF), each cut into
  // four parts or more (runtime::kPartBytes), between short UTF-8 texts.
  const std::size_t size = 4 * snaptok::runtime::kPartBytes;
  std::string latin1;
  while (latin1.size() < size) latin1 += "Caf\xC3\xA9 na\xC3\xAFve words and more words, ";
  const std::string bmp = big_document(size);
  const std::string astral = big_document(size) + " \xF0\x9F\x98\x80 smile";
  const std::vector<std::uint8_t> latin1_chars = code_units_of<std::uint8_t>(latin1);
  const std::vector<std::uint16_t> bmp_chars = code_units_of<std::uint16_t>(bmp);
  const std::vector<std::uint32_t> astral_chars = code_units_of<std::uint32_t>(astral);
  const std::vector<std::string_view> utf8 = {"first", latin1, bmp, "x <|endoftext|>", astral, "last"};
  const std::vector<snaptok::detail::CodePoints> chars = {
      {}, view_of(latin1_chars), view_of(bmp_chars), {}, view_of(astral_chars), {}};
  const std::vector<std::string_view> views = {"first", {}, {}, "x <|endoftext|>", {}, "last"};
  const snaptok::Pipeline with_processor = gpt2_with(
      kByteLevelProcessor,
      R"("post_processor":{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<|endoftext|>","type_id":0}},{"Sequence":{"id":"A","type_id":0}},{"SpecialToken":{"id":"<|endoftext|>","type_id":0}}],"pair":[{"Sequence":{"id":"A","type_id":0}},{"Sequence":{"id":"B","type_id":1}}],"special_tokens":{"<|endoftext|>":{"id":"<|endoftext|>","ids":[50256],"tokens":["<|endoftext|>"]}}})");
  // Cannot cut: each text is converted whole.
  const snaptok::Pipeline uncut = gpt2_with(R"("normalizer":null)", R"("normalizer":{"type":"Strip","strip_left":true,"strip_right":true})");
  snaptok::Pipeline padded = snaptok::Pipeline::from_json(gpt2_json());
  padded.set_padding(snaptok::PaddingParams{});
  for (const snaptok::Pipeline* tok : std::vector<const snaptok::Pipeline*>{&gpt2(), &with_processor, &uncut, &padded}) {
    for (const unsigned threads : {1u, 2u, 3u}) {
      std::vector<std::uint32_t> want, got;
      std::vector<std::int64_t> want_offsets, got_offsets;
      tok->encode_batch_flat(utf8, true, threads, want, want_offsets);
      tok->encode_batch_flat(views, chars, true, threads, got, got_offsets);
      CHECK(got == want);
      CHECK(got_offsets == want_offsets);
    }
  }
  // A lone surrogate in a later part: the error names the text and the
  // char's index in the whole text.
  std::vector<std::uint16_t> broken = bmp_chars;
  const std::size_t bad = broken.size() - 5000;
  broken[bad] = 0xDC00;
  const std::vector<snaptok::detail::CodePoints> broken_chars = {{}, view_of(broken)};
  for (const snaptok::Pipeline* tok : std::vector<const snaptok::Pipeline*>{&gpt2(), &uncut, &padded}) {
    std::vector<std::uint32_t> ids;
    std::vector<std::int64_t> offsets;
    try {
      tok->encode_batch_flat(std::vector<std::string_view>{"ok", {}}, broken_chars, true, 2, ids, offsets);
      FAIL("no error");
    } catch (const snaptok::detail::UnencodableChar& e) {
      CHECK(e.subject() == "texts[1]");
      CHECK(e.index() == bad);
      CHECK(e.value() == 0xDC00);
    }
  }
}

}  // namespace parallel_tests
