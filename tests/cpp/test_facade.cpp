// snaptok::Tokenizer, the public handle (compiled-library mode here: this
// binary links snaptok::snaptok): the same results as the engine, the try_
// calls that return errors as values, copies with their own settings, and
// steady-state requests that allocate nothing, counted by replacing the
// global operator new for this test binary (calls on the counting thread
// only, while a test asks for it).
#include <doctest/doctest.h>

#include <snaptok/pipeline.hpp>
#include <snaptok/tokenizer.hpp>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <new>
#include <span>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace facade_tests {
namespace {

thread_local bool counting = false;
thread_local std::size_t allocations = 0;

void* counted_alloc(std::size_t n) {
  if (counting) ++allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}

void* counted_aligned_alloc(std::size_t n, std::align_val_t align) {
  if (counting) ++allocations;
  const auto a = static_cast<std::size_t>(align);
  if (void* p = std::aligned_alloc(a, (n + a - 1) / a * a)) return p;
  throw std::bad_alloc();
}

// Counts operator new calls made on this thread while `run` runs.
template <class Fn>
std::size_t allocations_during(Fn&& run) {
  allocations = 0;
  counting = true;
  run();
  counting = false;
  return allocations;
}

const char* const kRequests[] = {
    "What is the capital of France? Answer in one word, then explain the history in detail.",
    "Summarize: the quick brown fox jumps over the lazy dog, twice, at 10:30 on 2024-05-01.",
    "Ünïcödé and emoji 😀👍🏽 in a request, with <|endoftext|> in the middle and 東京 at the end.",
};

snaptok::Tokenizer gpt2() {
  return snaptok::Tokenizer::from_file(SNAPTOK_TEST_DATA_DIR "/gpt2/tokenizer.json");
}

}  // namespace
}  // namespace facade_tests

void* operator new(std::size_t n) { return facade_tests::counted_alloc(n); }
void* operator new[](std::size_t n) { return facade_tests::counted_alloc(n); }
void* operator new(std::size_t n, std::align_val_t a) { return facade_tests::counted_aligned_alloc(n, a); }
void* operator new[](std::size_t n, std::align_val_t a) { return facade_tests::counted_aligned_alloc(n, a); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace facade_tests {

TEST_CASE("facade: the same ids, Encodings and decode as the engine") {
  const snaptok::Tokenizer tok = gpt2();
  const snaptok::Pipeline& engine = tok.pipeline();
  for (const char* r : kRequests) {
    CHECK(tok.encode(r) == engine.encode(r));
    const snaptok::Encoding a = tok.encode_full(r), b = engine.encode_full(r);
    CHECK(a.ids == b.ids);
    CHECK(a.offsets == b.offsets);
    CHECK(tok.decode(a.ids) == engine.decode(b.ids));
  }
  CHECK(tok.encode("Hello world") == std::vector<std::uint32_t>{15496, 995});
  CHECK(tok.token_to_id("Hello") == 15496u);
  CHECK(tok.id_to_token(995) == "\xc4\xa0world");
  CHECK(tok.vocab_size() == 50257);
  CHECK(tok.can_split_documents());
}

TEST_CASE("facade: DecodeStream returns each char once it is whole, on the handle and the engine") {
  const snaptok::Tokenizer tok = gpt2();
  // "Hello 😀 world": the emoji's four bytes are split over two tokens.
  const std::vector<std::uint32_t> ids = tok.encode("Hello \xF0\x9F\x98\x80 world");
  REQUIRE(ids.size() == 4);
  for (int on_engine = 0; on_engine < 2; ++on_engine) {
    snaptok::DecodeStream stream;
    std::vector<std::optional<std::string>> chunks;
    for (const std::uint32_t id : ids) {
      chunks.push_back(on_engine ? stream.step(tok.pipeline(), id) : stream.step(tok, id));
    }
    CHECK(chunks == std::vector<std::optional<std::string>>{"Hello", std::nullopt, " \xF0\x9F\x98\x80", " world"});
  }
  // A stream that continues after a prompt cuts its first chunk after the prompt's text.
  snaptok::DecodeStream after(std::vector<std::uint32_t>(ids.begin(), ids.begin() + 1), false);
  CHECK(after.step(tok, std::span<const std::uint32_t>(ids).subspan(1)) == " \xF0\x9F\x98\x80 world");
}

TEST_CASE("facade: encode_into a span reports the count and fills what fits") {
  const snaptok::Tokenizer tok = gpt2();
  const std::vector<std::uint32_t> want = tok.encode(kRequests[0]);
  std::array<std::uint32_t, 5> small{};
  CHECK(tok.encode_into(kRequests[0], true, small) == want.size());
  CHECK(std::vector<std::uint32_t>(small.begin(), small.end()) ==
        std::vector<std::uint32_t>(want.begin(), want.begin() + 5));
  std::vector<std::uint32_t> big(want.size());
  CHECK(tok.encode_into(kRequests[0], true, std::span(big)) == want.size());
  CHECK(big == want);
}

TEST_CASE("facade: try_ calls return errors as values") {
  const auto missing = snaptok::Tokenizer::try_from_file(SNAPTOK_TEST_DATA_DIR "/no-such/tokenizer.json");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().find("cannot open file") != std::string::npos);
  const auto bad_json = snaptok::Tokenizer::try_from_json("{\"model\": {\"type\": \"Nope\"}}");
  REQUIRE_FALSE(bad_json);
  CHECK(bad_json.error().find("unknown type") != std::string::npos);

  const auto tok = snaptok::Tokenizer::try_from_file(SNAPTOK_TEST_DATA_DIR "/gpt2/tokenizer.json");
  REQUIRE(tok);
  std::vector<std::uint32_t> ids;
  CHECK(tok->try_encode_into("Hello world", true, ids));
  CHECK(ids == std::vector<std::uint32_t>{15496, 995});
  const auto invalid = tok->try_encode_into("ok \xc3", true, ids);
  REQUIRE_FALSE(invalid);
  CHECK(invalid.error().find("invalid UTF-8 at byte 3") != std::string::npos);
  std::array<std::uint32_t, 1> one{};
  const auto n = tok->try_encode_into("Hello world", true, one);
  REQUIRE(n);
  CHECK(*n == 2);
  const auto text = tok->try_decode(ids);
  REQUIRE(text);
  CHECK(*text == "Hello world");
}

TEST_CASE("facade: a copy has its own settings and shares the tables") {
  snaptok::Tokenizer tok = gpt2();
  snaptok::Tokenizer copy = tok;
  snaptok::TruncationParams trunc;
  trunc.max_length = 3;
  copy.set_truncation(trunc);
  CHECK(copy.encode(kRequests[0]).size() == 3);
  CHECK(tok.encode(kRequests[0]).size() > 3);
  CHECK_FALSE(tok.truncation());
  tok = copy;  // copy-assign takes the other's settings
  REQUIRE(tok.truncation());
  CHECK(tok.truncation()->max_length == 3);
  tok.set_cache_budget(1 << 20);
  CHECK(tok.cache_stats().bytes_budget == (1u << 20));
}

TEST_CASE("facade: add_tokens gives HF's ids, on this handle only") {
  snaptok::Tokenizer tok = gpt2();
  const snaptok::Tokenizer before = tok;
  const std::vector<snaptok::AddedToken> tokens{
      {.content = "<tool>", .normalized = false, .special = true},
      {.content = "<tool>", .normalized = false, .special = true},  // the same again: not taken
      {.content = "hello"},                                         // in the vocabulary: keeps 31373
      {.content = ""},                                              // empty: not taken
      {.content = " world!", .lstrip = true}};
  CHECK(tok.add_tokens(tokens) == 3);
  CHECK(tok.token_to_id("<tool>") == 50257u);
  CHECK(tok.token_to_id("hello") == 31373u);
  CHECK(tok.token_to_id(" world!") == 50258u);
  CHECK(tok.vocab_size() == 50259);
  // " world!" swallows the spaces on its left; "<tool>" is special.
  CHECK(tok.encode("hello   world!<tool>x") == std::vector<std::uint32_t>{31373, 50258, 50257, 87});
  CHECK(tok.decode(tok.encode("hi<tool>")) == "hi");
  CHECK(tok.decode(tok.encode("hi<tool>"), false) == "hi<tool>");
  CHECK_FALSE(before.token_to_id("<tool>"));  // the copy made before keeps its vocabulary
  CHECK(before.encode("<tool>").size() > 1);
  CHECK_FALSE(tok.can_split_documents());  // " world!" could span a cut
  CHECK(before.can_split_documents());
}

TEST_CASE("facade: warm requests into a reused buffer allocate nothing") {
  const snaptok::Tokenizer tok = gpt2();
  std::vector<std::uint32_t> ids;
  ids.reserve(256);
  std::array<std::uint32_t, 256> fixed{};
  std::vector<std::string_view> batch(std::begin(kRequests), std::end(kRequests));
  std::vector<std::uint32_t> batch_ids;
  std::vector<std::int64_t> batch_offsets;
  auto requests = [&] {
    for (const char* r : kRequests) {
      ids.clear();
      tok.encode_into(r, true, ids);
      (void)tok.encode_into(r, true, std::span(fixed));
    }
    tok.encode_batch_flat(batch, true, /*num_threads=*/1, batch_ids, batch_offsets);
  };
  for (int warm = 0; warm < 3; ++warm) requests();  // workspace, caches, buffers
  CHECK(allocations_during([&] {
          for (int i = 0; i < 200; ++i) requests();
        }) == 0);
  // The counter itself works: a fresh result allocates.
  CHECK(allocations_during([&] { (void)tok.encode(kRequests[0]); }) > 0);
}

TEST_CASE("facade: warm ASCII requests on the other fused paths allocate nothing") {
  // SentencePiece BPE, and the whitespace-words path for Unigram and
  // WordPiece; the bundled T5-style file always, the shared ones when present.
  const char* const ascii[] = {kRequests[0], kRequests[1], "  leading, trailing and  double  spaces  "};
  std::vector<std::string> files = {SNAPTOK_TEST_DATA_DIR "/spm-botchan-unigram-1000-t5/tokenizer.json"};
  for (const char* name : {"phi-3", "t5-small", "all-MiniLM-L6-v2"}) {
    const std::string path = std::string(SNAPTOK_SHARED_DATA_DIR "/tokenizers/") + name + "/tokenizer.json";
    if (std::filesystem::exists(path)) files.push_back(path);
  }
  for (const std::string& file : files) {
    CAPTURE(file);
    snaptok::Tokenizer tok = snaptok::Tokenizer::from_file(file);
    tok.set_truncation(std::nullopt);
    tok.set_padding(std::nullopt);
    std::vector<std::uint32_t> ids;
    ids.reserve(256);
    auto requests = [&] {
      for (const char* r : ascii) {
        for (const bool special : {false, true}) {
          ids.clear();
          tok.encode_into(r, special, ids);
        }
      }
    };
    for (int warm = 0; warm < 3; ++warm) requests();
    CHECK(allocations_during([&] {
            for (int i = 0; i < 100; ++i) requests();
          }) == 0);
  }
}

TEST_CASE("facade: errors name the batch item, the directory, the padding length") {
  const snaptok::Tokenizer tok = gpt2();
  const std::vector<std::string_view> texts = {"fine", "bad \xff"};
  std::vector<std::uint32_t> ids;
  std::vector<std::int64_t> offsets;
  CHECK_THROWS_WITH_AS(tok.encode_batch_flat(texts, true, 1, ids, offsets),
                       "texts[1]: invalid UTF-8 at byte 4", snaptok::Error);
  CHECK_THROWS_WITH_AS(tok.encode_batch(texts, true, 2), "texts[1]: invalid UTF-8 at byte 4", snaptok::Error);
  CHECK_THROWS_WITH_AS(tok.encode("bad \xff"), "input text: invalid UTF-8 at byte 4", snaptok::Error);
  CHECK_THROWS_WITH_AS(snaptok::Tokenizer::from_file(SNAPTOK_TEST_DATA_DIR),
                       doctest::Contains("is a directory"), snaptok::Error);
  snaptok::Tokenizer padded = tok;
  snaptok::PaddingParams pad;
  pad.fixed_length = std::size_t{1} << 40;
  padded.set_padding(pad);
  CHECK_THROWS_WITH_AS(padded.encode("a"), doctest::Contains("padding: cannot pad to 1099511627776 tokens"),
                       snaptok::Error);
}

}  // namespace facade_tests
