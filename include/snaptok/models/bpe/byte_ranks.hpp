// A byte-level BPE from tiktoken's byte ranks: each token's bytes with its
// rank, which is also its id. The vocabulary is the tokens' byte-level
// text; ANY two adjacent symbols whose concatenation is a token merge at
// that token's rank (lowest rank first, leftmost on ties, as tiktoken's
// byte-pair merge). A merge list in HF's form cannot say this when two
// splits form the same token ("ab"+"a" and "a"+"ba" both form "aba"): one
// rank per token does.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "snaptok/detail/byte_level_table.hpp"
#include "snaptok/detail/hash.hpp"
#include "snaptok/error.hpp"
#include "snaptok/models/bpe/merges.hpp"

namespace snaptok::bpe {

/// A vocabulary and its merges.
struct VocabAndMerges {
  detail::Vocab vocab;
  MergeTable merges;
};

/// Returns the vocabulary and merges tiktoken's `ranks` define (see the top
/// of this file). Throws snaptok::Error, naming the token, for an empty
/// token, a token or rank given twice, rank 4294967295 (reserved), or a
/// byte without a rank (tiktoken needs every single byte).
inline VocabAndMerges from_byte_ranks(std::span<const std::pair<std::string, std::uint32_t>> ranks) {
  auto level_text = [](std::string_view bytes) { return detail::byte_level_table().text_of(bytes); };
  std::unordered_map<std::string_view, std::uint32_t> rank_of;
  std::unordered_map<std::uint32_t, std::string_view> token_of;
  rank_of.reserve(ranks.size());
  token_of.reserve(ranks.size());
  detail::VocabBuilder vocab;
  for (const auto& [bytes, rank] : ranks) {
    if (bytes.empty()) throw Error("byte ranks: token of rank " + std::to_string(rank) + " is empty");
    if (rank == kNoId) throw Error("byte ranks: rank 4294967295 is reserved (token \"" + level_text(bytes) + "\")");
    if (!rank_of.emplace(bytes, rank).second) {
      throw Error("byte ranks: token \"" + level_text(bytes) + "\" (byte-level text) is given twice");
    }
    if (auto [at, fresh] = token_of.emplace(rank, bytes); !fresh) {
      throw Error("byte ranks: rank " + std::to_string(rank) + " is given to both \"" + level_text(at->second) +
                  "\" and \"" + level_text(bytes) + "\" (byte-level text)");
    }
    vocab.add(level_text(bytes), rank);
  }
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    if (!rank_of.contains(std::string_view(&c, 1))) {
      static constexpr char hex[] = "0123456789ABCDEF";
      throw Error(std::string("byte ranks: byte 0x") + hex[b >> 4] + hex[b & 15] +
                  " has no rank (every single byte needs one)");
    }
  }
  detail::U64MapBuilder merges;
  merges.reserve(2 * ranks.size());
  for (const auto& [bytes, rank] : ranks) {
    const std::string_view token = bytes;
    for (std::size_t cut = 1; cut < token.size(); ++cut) {
      const auto left = rank_of.find(token.substr(0, cut));
      if (left == rank_of.end()) continue;
      const auto right = rank_of.find(token.substr(cut));
      if (right == rank_of.end()) continue;
      merges.put(MergeTable::key(left->second, right->second), (std::uint64_t{rank} << 32) | rank);
    }
  }
  return {std::move(vocab).build("byte ranks"), MergeTable(std::move(merges).build())};
}

}  // namespace snaptok::bpe
