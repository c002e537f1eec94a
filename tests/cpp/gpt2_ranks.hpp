// GPT-2's vocabulary as tiktoken's byte ranks, for the tests of
// BpeModel::from_byte_ranks (test_byte_ranks.cpp, test_bpe_merges.cpp).
#pragma once

#include <snaptok/detail/byte_level_table.hpp>
#include <snaptok/detail/utf8.hpp>
#include <snaptok/pipeline.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace snaptok_test {

// Each vocabulary token's bytes (its byte-level chars mapped back) with its
// id; <|endoftext|> is a special token, not a rank.
inline std::vector<std::pair<std::string, std::uint32_t>> gpt2_ranks() {
  const auto tok = snaptok::Pipeline::from_file(SNAPTOK_TEST_DATA_DIR "/gpt2/tokenizer.json");
  const auto& table = snaptok::detail::byte_level_table();
  std::vector<std::pair<std::string, std::uint32_t>> ranks;
  for (std::uint32_t id = 0; id < 50256; ++id) {
    const std::string level = *tok.id_to_token(id);
    std::string bytes;
    for (std::size_t i = 0; i < level.size();) bytes += static_cast<char>(table.byte_of(snaptok::detail::next_cp(level, i)));
    ranks.emplace_back(bytes, id);
  }
  return ranks;
}

}  // namespace snaptok_test
