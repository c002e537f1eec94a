// Encoding: the output of Tokenizer::encode_full, field for field what Hugging Face
// `tokenizers` returns (ids, type ids, token strings, offsets, masks, word ids,
// sequence ranges, overflowing parts).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "snaptok/offsets.hpp"

namespace snaptok {

/// The result of encoding one sequence (or a pair, after post-processing).
///
///   auto enc = tok.encode_full("Hello world");
///   enc.ids;      // {15496, 995}
///   enc.offsets;  // {{0, 5}, {5, 11}}  (char offsets into the input)
struct Encoding {
  std::vector<std::uint32_t> ids;
  std::vector<std::uint32_t> type_ids;
  std::vector<std::string> tokens;
  std::vector<Offsets> offsets;
  std::vector<std::optional<std::uint32_t>> word_ids;
  std::vector<std::uint32_t> special_tokens_mask;
  std::vector<std::uint32_t> attention_mask;
  std::vector<Encoding> overflowing;
  /// sequence id -> [start, end) token range; empty means one sequence (id 0).
  std::map<std::size_t, Offsets> sequence_ranges;

  std::size_t size() const noexcept { return ids.size(); }
  bool empty() const noexcept { return ids.empty(); }

  /// Appends one token with all of its fields.
  void push(std::uint32_t id, std::string token, Offsets off,
            std::optional<std::uint32_t> word, std::uint32_t type_id,
            std::uint32_t special, std::uint32_t attention = 1) {
    ids.push_back(id);
    type_ids.push_back(type_id);
    tokens.push_back(std::move(token));
    offsets.push_back(off);
    word_ids.push_back(word);
    special_tokens_mask.push_back(special);
    attention_mask.push_back(attention);
  }

  /// Marks the whole encoding as sequence `id` (HF set_sequence_id).
  void set_sequence_id(std::size_t id) {
    sequence_ranges[id] = Offsets{0, ids.size()};
  }

  /// Returns the sequence id of every token (nullopt for added specials); a
  /// sequence without a range of its own covers the whole encoding (HF).
  std::vector<std::optional<std::size_t>> sequence_ids() const {
    std::vector<std::optional<std::size_t>> out(ids.size());
    for (std::size_t seq = 0; seq < n_sequences(); ++seq) {
      Offsets r{0, ids.size()};
      if (auto it = sequence_ranges.find(seq); it != sequence_ranges.end()) r = it->second;
      for (std::size_t i = r.start; i < r.end && i < out.size(); ++i) out[i] = seq;
    }
    return out;
  }

  /// Number of sequences in this encoding.
  std::size_t n_sequences() const noexcept {
    return sequence_ranges.empty() ? 1 : sequence_ranges.size();
  }
};

}  // namespace snaptok
