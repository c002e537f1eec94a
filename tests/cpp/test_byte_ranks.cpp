// Byte-level BPE built from tiktoken-style ranks (BpeModel::from_byte_ranks,
// Pipeline::from_byte_ranks): GPT-2's ranks give GPT-2's ids, a piece that
// is a token is that token, any pair forming a token merges at its rank,
// the .st image keeps the ranks, ids map back to their bytes, and bad
// tables are refused by name.
#include <doctest/doctest.h>

#include <snaptok/pipeline.hpp>
#include <snaptok/tokenizer.hpp>

#include <cstdint>
#include <fstream>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gpt2_ranks.hpp"

namespace byte_ranks_tests {

namespace {

using Ranks = std::vector<std::pair<std::string, std::uint32_t>>;

// The 256 single bytes with ranks 0..255.
Ranks byte_ranks() {
  Ranks ranks;
  for (int b = 0; b < 256; ++b) ranks.emplace_back(std::string(1, static_cast<char>(b)), b);
  return ranks;
}

using snaptok_test::gpt2_ranks;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string error_of(std::string_view pattern, const Ranks& ranks) {
  try {
    snaptok::Pipeline::from_byte_ranks(pattern, ranks);
  } catch (const snaptok::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("byte ranks: GPT-2's ranks with tiktoken's pattern give GPT-2's ids, on the fused path") {
  const auto gpt2 = snaptok::Pipeline::from_file(SNAPTOK_TEST_DATA_DIR "/gpt2/tokenizer.json");
  const auto ranked = snaptok::Pipeline::from_byte_ranks(snaptok::scanners::kGpt2TiktokenPattern, gpt2_ranks());
  CHECK(ranked.fused_path() == "byte-level BPE");
  const std::string text = read_text(SNAPTOK_TEST_DATA_DIR "/../../python/snaptok/data/sample.txt") +
                           " I'M here  you'RE 12345 \xC3\xA9t\xC3\xA9 \xF0\x9F\x98\x80!\n\n  x";
  CHECK(ranked.encode(text) == gpt2.encode(text, false));
  CHECK(ranked.decode(ranked.encode(text)) == text);
  const auto facade = snaptok::Tokenizer::from_byte_ranks(snaptok::scanners::kGpt2TiktokenPattern, gpt2_ranks());
  CHECK(facade.encode(text) == gpt2.encode(text, false));
}

TEST_CASE("byte ranks: a piece that is a token is that token; any pair forming a token merges at its rank") {
  Ranks ranks = byte_ranks();
  ranks.emplace_back("xyz", 256);  // neither "xy" nor "yz" is a token: only the whole piece
  ranks.emplace_back("bc", 257);
  ranks.emplace_back("abc", 258);  // from "a" + "bc" (no merge list names it)
  ranks.emplace_back("ab", 259);
  const auto tok = snaptok::Pipeline::from_byte_ranks(R"(\S+|\s+)", ranks);
  CHECK(tok.encode("xyz") == std::vector<std::uint32_t>{256});
  CHECK(tok.encode("xyzx") == std::vector<std::uint32_t>{'x', 'y', 'z', 'x'});
  CHECK(tok.encode("abcx ab") == std::vector<std::uint32_t>{258, 'x', ' ', 259});
}

TEST_CASE("byte ranks: the .st image keeps the ranks") {
  Ranks ranks = byte_ranks();
  ranks.emplace_back("bc", 257);
  ranks.emplace_back("abc", 258);
  ranks.emplace_back("\xFF\xFE", 300);  // not UTF-8: byte-level text all the same
  const auto tok = snaptok::Pipeline::from_byte_ranks(snaptok::scanners::kCl100kTiktokenPattern, ranks);
  const std::string image = tok.to_st_bytes();
  const auto back = snaptok::Pipeline::from_st_buffer(std::as_bytes(std::span(image)));
  CHECK(back.to_st_bytes() == image);
  CHECK(back.fused_path() == "byte-level BPE");
  for (const std::string text : {"abcx abc", "bca", "zabc"}) CHECK(back.encode(text) == tok.encode(text));
  CHECK(tok.encode("abc") == std::vector<std::uint32_t>{258});
  const auto& bpe = dynamic_cast<const snaptok::BpeModel&>(back.model());
  std::string bytes;
  const std::vector<std::uint32_t> ids = {300, 258, ' ', 0};
  CHECK(bpe.append_token_bytes(ids, bytes) == ids.size());
  CHECK(bytes == std::string("\xFF\xFE" "abc ", 6) + '\0');
  const std::vector<std::uint32_t> unknown = {'a', 999, 'b'};
  bytes.clear();
  CHECK(bpe.append_token_bytes(unknown, bytes) == 1);
  CHECK(bytes == "a");
}

TEST_CASE("byte ranks: bad tables are refused, naming the token") {
  Ranks missing = byte_ranks();
  missing.erase(missing.begin() + 0x41);
  CHECK(error_of("x", missing) == "byte ranks: byte 0x41 has no rank (every single byte needs one)");
  Ranks twice = byte_ranks();
  twice.emplace_back("ab", 7);
  CHECK(error_of("x", twice) ==
        "byte ranks: rank 7 is given to both \"\xC4\x87\" and \"ab\" (byte-level text)");
  Ranks repeated = byte_ranks();
  repeated.emplace_back("a", 300);
  CHECK(error_of("x", repeated) == "byte ranks: token \"a\" (byte-level text) is given twice");
  Ranks empty = byte_ranks();
  empty.emplace_back("", 300);
  CHECK(error_of("x", empty) == "byte ranks: token of rank 300 is empty");
}

}  // namespace byte_ranks_tests
