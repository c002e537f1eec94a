// The BPE merges of models/bpe/ against the textbook merge
// (bpe::reference_merge): the reference itself on a hand-made table, then
// BpeModel::merge_raw (on the stack, on the heap, in chunks through the raw
// tokens' trie, with ignore_merges' whole-token lookup) on random pieces
// for GPT-2 from its tokenizer.json (no trie: long pieces on the heap), from
// its .st image (trie: chunks from 16 bytes on), and from its byte ranks as
// tiktoken has them (ignore_merges, any pair forming a token merges).
#include <doctest/doctest.h>

#include <snaptok/models/bpe.hpp>
#include <snaptok/models/bpe/reference.hpp>
#include <snaptok/pipeline.hpp>

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gpt2_ranks.hpp"

namespace bpe_merges_tests {

namespace {

using snaptok::BpeModel;
namespace bpe = snaptok::bpe;

// A table of merges given as (left, right, new id), ranked in order.
bpe::MergeTable table(std::initializer_list<std::array<std::uint32_t, 3>> merges) {
  snaptok::detail::U64MapBuilder builder;
  std::uint64_t rank = 0;
  for (const auto& [left, right, id] : merges) builder.put(bpe::MergeTable::key(left, right), rank++ << 32 | id);
  return bpe::MergeTable(std::move(builder).build());
}

const BpeModel& bpe_of(const snaptok::Pipeline& p) { return dynamic_cast<const BpeModel&>(p.model()); }

// Random raw pieces: words, runs of one byte, ASCII punctuation and digits,
// accented and CJK chars, emoji, and any bytes at all; mostly short (as
// pre-tokenized pieces are), some past BpeModel::kStackMergeBytes.
std::vector<std::string> random_pieces(std::size_t count, std::uint32_t seed) {
  static const std::vector<std::string> parts = {
      " the", "ing", "tion", " un", "believ", "able", "ly", "e", "s", "'s", " ", "  ", "\n", "\t", "0", "42",
      "1999", "!", "...", "--", "==", "(", ")", "{", "\xc3\xa9", "\xc3\xb1", "\xe4\xb8\xad", "\xe6\x96\x87",
      "\xe3\x81\xae", "\xf0\x9f\x98\x80", "a", "aa", "x", "Q", "Z", "_", "/", "http", "://", ".com"};
  std::mt19937 rng(seed);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < count; ++i) {
    std::string piece;
    const std::size_t target = rng() % 8 == 0 ? 49 + rng() % 200 : 1 + rng() % 20;
    while (piece.size() < target) {
      switch (rng() % 10) {
        case 0: piece.append(1 + rng() % 40, static_cast<char>("a -=9\xe4"[rng() % 6])); break;  // a run
        case 1: piece += static_cast<char>(rng() % 256); break;                                  // any byte
        default: piece += parts[rng() % parts.size()];
      }
    }
    out.push_back(piece);
  }
  return out;
}

// Checks merge_raw against merge_raw_reference on every piece.
void check_merges(const BpeModel& model, const std::vector<std::string>& pieces) {
  std::size_t differ = 0;
  for (const std::string& piece : pieces) {
    std::vector<std::uint32_t> ids(piece.size() + 1);
    ids.resize(model.merge_raw(piece, ids.data()));
    if (ids != model.merge_raw_reference(piece) && ++differ <= 5) {
      CHECK_MESSAGE(false, "piece of " << piece.size() << " bytes: " << piece);
    }
  }
  CHECK(differ == 0);
}

}  // namespace

TEST_CASE("BPE: the reference merge takes the lowest rank first, the leftmost on ties") {
  enum : std::uint32_t { a, b, c, ab, bc, abc, aa, aaa };
  const bpe::MergeTable merges = table({{a, b, ab}, {ab, c, abc}, {b, c, bc}, {a, a, aa}, {aa, a, aaa}});
  CHECK(bpe::reference_merge(merges, {a, b, c}) == std::vector<std::uint32_t>{abc});
  CHECK(bpe::reference_merge(merges, {c, b, c}) == std::vector<std::uint32_t>{c, bc});
  CHECK(bpe::reference_merge(merges, {a, a, a}) == std::vector<std::uint32_t>{aaa});     // (a a) a
  CHECK(bpe::reference_merge(merges, {a, a, a, a}) == std::vector<std::uint32_t>{aa, aa});  // leftmost first
  CHECK(bpe::reference_merge(merges, {}).empty());
  // The stack's merge agrees.
  std::uint32_t sym[4 + bpe::kShiftStep] = {a, a, a, a};
  std::uint32_t out[4];
  REQUIRE(bpe::merge_on_stack(merges, sym, 4, out) == 2);
  CHECK(out[0] == aa);
  CHECK(out[1] == aa);
}

TEST_CASE("BPE: merge_raw on the stack, on the heap and in chunks gives the reference merge's ids") {
  const auto json = snaptok::Pipeline::from_file(SNAPTOK_TEST_DATA_DIR "/gpt2/tokenizer.json");
  const std::string image = json.to_st_bytes();
  const auto mapped = snaptok::Pipeline::from_st_buffer(std::as_bytes(std::span(image.data(), image.size())));
  const auto ranked = BpeModel::from_byte_ranks(snaptok_test::gpt2_ranks());
  const std::vector<std::string> pieces = random_pieces(1500, 7);
  SUBCASE("GPT-2 from its tokenizer.json: no trie, long pieces on the heap") {
    auto fresh = snaptok::Pipeline::from_file(SNAPTOK_TEST_DATA_DIR "/gpt2/tokenizer.json");
    REQUIRE_FALSE(bpe_of(fresh).long_piece_tables_ready());
    check_merges(bpe_of(fresh), pieces);
  }
  SUBCASE("GPT-2 from its .st image: chunks from 16 bytes on") {
    REQUIRE(bpe_of(mapped).long_piece_tables_ready());
    check_merges(bpe_of(mapped), pieces);
  }
  SUBCASE("GPT-2's byte ranks: a piece that is a token is that token") {
    check_merges(*ranked, pieces);
    std::vector<std::uint32_t> ids(16);
    ids.resize(ranked->merge_raw(" unbelievable", ids.data()));
    CHECK(ids == ranked->merge_raw_reference(" unbelievable"));
  }
}

}  // namespace bpe_merges_tests
