// Encoding: the output of Tokenizer::encode_full, field for field what Hugging Face
// `tokenizers` returns (ids, type ids, token strings, offsets, masks, word ids,
// sequence ranges, overflowing parts).
#pragma once

#include <algorithm>
#include <cstddef>
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

  /// Makes room for `n` more tokens (growing at least twofold, so that
  /// calls per part of a text stay linear).
  void reserve_more(std::size_t n) {
    if (ids.capacity() - ids.size() >= n) return;
    const std::size_t want = std::max(ids.size() + n, 2 * ids.capacity());
    ids.reserve(want);
    type_ids.reserve(want);
    tokens.reserve(want);
    offsets.reserve(want);
    word_ids.reserve(want);
    special_tokens_mask.reserve(want);
    attention_mask.reserve(want);
  }

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

  /// Drops the alignments, as HF encode_fast leaves them: every offset
  /// (0, 0), no word ids, and no token strings but those of the tokens the
  /// post-processor or the padding put in (special_tokens_mask 1); in the
  /// overflowing parts too.
  void drop_alignments() {
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (special_tokens_mask[i] == 0) tokens[i].clear();
      offsets[i] = Offsets{0, 0};
      word_ids[i] = std::nullopt;
    }
    for (Encoding& part : overflowing) part.drop_alignments();
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

  // Alignment lookups, with HF Encoding's answers (and its edge cases)
  // everywhere; nullopt where HF returns None. `seq` picks the input
  // sequence of a pair (0: the first).

  /// Returns the [start, end) tokens of sequence `seq` (all of them when it
  /// has no range of its own).
  Offsets sequence_range(std::size_t seq) const {
    const auto it = sequence_ranges.find(seq);
    return it != sequence_ranges.end() ? it->second : Offsets{0, ids.size()};
  }

  /// Returns the sequence that token `token` belongs to. As in HF, one past
  /// the last token still answers 0 when there is one sequence.
  std::optional<std::size_t> token_to_sequence(std::size_t token) const {
    if (token > ids.size()) return std::nullopt;
    if (sequence_ranges.empty()) return 0;
    for (const auto& [seq, r] : sequence_ranges) {
      if (token >= r.start && token < r.end) return seq;
    }
    return std::nullopt;
  }

  /// Returns the char offsets of token `token` (in its own sequence's text).
  std::optional<Offsets> token_to_chars(std::size_t token) const {
    if (!token_to_sequence(token) || token >= offsets.size()) return std::nullopt;
    return offsets[token];
  }

  /// Returns the word that token `token` is part of (nullopt for specials).
  std::optional<std::uint32_t> token_to_word(std::size_t token) const {
    if (!token_to_sequence(token) || token >= word_ids.size()) return std::nullopt;
    return word_ids[token];
  }

  /// Returns the [first, last + 1) tokens of word `word` of sequence `seq`.
  /// Like HF, it reads words in order and stops at the first larger one.
  std::optional<std::pair<std::size_t, std::size_t>> word_to_tokens(std::uint32_t word,
                                                                     std::size_t seq = 0) const {
    const Offsets r = sequence_range(seq);
    if (r.start > r.end || r.end > word_ids.size()) return std::nullopt;
    std::optional<std::pair<std::size_t, std::size_t>> out;
    for (std::size_t i = r.start; i < r.end; ++i) {
      const auto& w = word_ids[i];
      if (w && *w > word) break;  // None sorts before every word, as in Rust
      if (w != word) continue;
      if (!out) out.emplace(i, i + 1);
      out->second = i + 1;
    }
    return out;
  }

  /// Returns the char offsets that word `word` of sequence `seq` spans.
  std::optional<Offsets> word_to_chars(std::uint32_t word, std::size_t seq = 0) const {
    const auto tokens = word_to_tokens(word, seq);
    if (!tokens || tokens->second == 0) return std::nullopt;
    return Offsets{offsets[tokens->first].start, offsets[tokens->second - 1].end};
  }

  /// Returns the first token of sequence `seq` whose offsets hold char `pos`.
  std::optional<std::size_t> char_to_token(std::size_t pos, std::size_t seq = 0) const {
    const Offsets r = sequence_range(seq);
    if (r.start > r.end || r.end > offsets.size()) return std::nullopt;
    for (std::size_t i = r.start; i < r.end; ++i) {
      if (pos >= offsets[i].start && pos < offsets[i].end) return i;
    }
    return std::nullopt;
  }

  /// Returns the word of sequence `seq` that holds char `pos`.
  std::optional<std::uint32_t> char_to_word(std::size_t pos, std::size_t seq = 0) const {
    const auto token = char_to_token(pos, seq);
    return token ? token_to_word(*token) : std::nullopt;
  }
};

}  // namespace snaptok
