// The post-processor stage: adds special tokens around one sequence or a
// pair, sets type ids and sequence ranges, and may adjust offsets.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "snaptok/detail/json.hpp"
#include "snaptok/encoding.hpp"

namespace snaptok {

class PostProcessor {
 public:
  virtual ~PostProcessor() = default;
  /// Number of special tokens added to a single sequence or a pair.
  virtual std::size_t added_tokens(bool is_pair) const = 0;
  /// HF process_encodings: `encodings` holds one or two encodings (with
  /// sequence ids and type ids already set); the result is merged afterwards.
  virtual void process_encodings(std::vector<Encoding>& encodings,
                                 bool add_special_tokens) const = 0;
  /// The ids-only equivalent of processing one sequence (no pair).
  virtual void process_ids(std::vector<std::uint32_t>& ids,
                           bool add_special_tokens) const = 0;
};

using PostProcessorPtr = std::shared_ptr<const PostProcessor>;

/// Builds the post-processor described by `json`.
PostProcessorPtr make_post_processor(const detail::Json& json);

/// Appends `pair` to `enc` (HF Encoding::merge_with), combining overflowing
/// parts and shifting sequence ranges; offsets grow only when requested.
inline void merge_encodings(Encoding& enc, Encoding pair, bool growing_offsets) {
  std::vector<Encoding> overflowing;
  for (const Encoding& self_o : enc.overflowing) {
    Encoding n = self_o;
    merge_encodings(n, pair, growing_offsets);
    overflowing.push_back(std::move(n));
    for (const Encoding& other_o : pair.overflowing) {
      Encoding m = self_o;
      merge_encodings(m, other_o, growing_offsets);
      overflowing.push_back(std::move(m));
    }
  }
  for (const Encoding& other_o : pair.overflowing) {
    Encoding n = enc;
    merge_encodings(n, other_o, growing_offsets);
    overflowing.push_back(std::move(n));
  }
  const std::size_t base = enc.size();
  for (const auto& [seq, r] : pair.sequence_ranges) {
    enc.sequence_ranges[seq] = Offsets{base + r.start, base + r.end};
  }
  const std::size_t shift =
      growing_offsets && !enc.offsets.empty() ? enc.offsets.back().end : 0;
  auto append = [](auto& dst, auto& src) {
    dst.insert(dst.end(), std::make_move_iterator(src.begin()),
               std::make_move_iterator(src.end()));
  };
  append(enc.ids, pair.ids);
  append(enc.type_ids, pair.type_ids);
  append(enc.tokens, pair.tokens);
  append(enc.word_ids, pair.word_ids);
  for (const Offsets& o : pair.offsets) {
    enc.offsets.push_back({o.start + shift, o.end + shift});
  }
  append(enc.special_tokens_mask, pair.special_tokens_mask);
  append(enc.attention_mask, pair.attention_mask);
  enc.overflowing = std::move(overflowing);
}

/// HF PostProcessor::process: tags sequences, runs `processor`, merges.
inline Encoding run_post_processor(const PostProcessor& processor, Encoding enc,
                                   std::optional<Encoding> pair,
                                   bool add_special_tokens) {
  std::vector<Encoding> encodings;
  encodings.push_back(std::move(enc));
  if (pair) encodings.push_back(std::move(*pair));
  for (std::size_t i = 0; i < encodings.size(); ++i) {
    Encoding& e = encodings[i];
    e.set_sequence_id(i);
    for (Encoding& o : e.overflowing) o.set_sequence_id(i);
    e.type_ids.assign(e.size(), static_cast<std::uint32_t>(i));
  }
  processor.process_encodings(encodings, add_special_tokens);
  Encoding out;
  for (Encoding& e : encodings) merge_encodings(out, std::move(e), false);
  return out;
}

/// HF default_process (no post-processor): a pair is merged as is.
inline Encoding default_post_process(Encoding enc, std::optional<Encoding> pair) {
  if (!pair) return enc;
  Encoding out;
  enc.set_sequence_id(0);
  merge_encodings(out, std::move(enc), false);
  pair->set_sequence_id(1);
  merge_encodings(out, std::move(*pair), false);
  return out;
}

}  // namespace snaptok
