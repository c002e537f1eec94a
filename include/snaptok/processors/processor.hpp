// The post-processor stage: adds special tokens around one sequence or a
// pair, sets type ids and sequence ranges, and may adjust offsets.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
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
  /// The ids-only equivalent of process_encodings: `parts` holds the ids of
  /// each encoding of the list (one part for a single sequence).
  virtual void process_id_parts(std::vector<std::vector<std::uint32_t>>& parts,
                                bool add_special_tokens) const = 0;
  /// The ids-only equivalent of processing one sequence (no pair): returns in
  /// `ids` exactly the ids encode_full would give.
  virtual void process_ids(std::vector<std::uint32_t>& ids, bool add_special_tokens) const {
    std::vector<std::vector<std::uint32_t>> parts(1);
    parts[0] = std::move(ids);
    process_id_parts(parts, add_special_tokens);
    ids.clear();
    for (const auto& p : parts) ids.insert(ids.end(), p.begin(), p.end());
  }
  /// True when the processor never changes ids (only offsets or ranges).
  virtual bool ids_unchanged() const noexcept { return false; }
};

using PostProcessorPtr = std::shared_ptr<const PostProcessor>;

/// A special token a processor inserts: its string and its id
/// (tokenizer.json form `["[CLS]", 101]`).
struct SpecialPiece {
  std::string token;
  std::uint32_t id = 0;

  /// Reads `["[CLS]", 101]`.
  static SpecialPiece from_json(const detail::Json& json) {
    const std::vector<detail::Json> items = json.array();
    if (items.size() != 2) {
      json.fail("expected [token, id], got " + std::to_string(items.size()) + " items");
    }
    return SpecialPiece{std::string(items[0].str()), items[1].u32()};
  }
};

/// Returns `body` between the optional special tokens `before` and `after`,
/// as BertProcessing / RobertaProcessing build it: specials have no word,
/// offsets (0, 0) and special mask 1; the body's special mask becomes 0, the
/// attention mask 1 everywhere; the body's type ids are kept, or all set to
/// 0 when `zero_types`; the body is sequence `seq_id`. Overflowing parts are
/// not carried over.
inline Encoding surround_with_specials(const Encoding& body, const SpecialPiece* before,
                                       const SpecialPiece* after, std::uint32_t before_type,
                                       std::uint32_t after_type, bool zero_types,
                                       std::size_t seq_id) {
  Encoding out;
  const std::size_t n = body.size() + (before ? 1 : 0) + (after ? 1 : 0);
  out.ids.reserve(n);
  out.type_ids.reserve(n);
  out.tokens.reserve(n);
  out.offsets.reserve(n);
  out.word_ids.reserve(n);
  out.special_tokens_mask.reserve(n);
  out.attention_mask.reserve(n);
  if (before) out.push(before->id, before->token, Offsets{0, 0}, std::nullopt, before_type, 1);
  out.ids.insert(out.ids.end(), body.ids.begin(), body.ids.end());
  if (zero_types) {
    out.type_ids.insert(out.type_ids.end(), body.size(), 0u);
  } else {
    out.type_ids.insert(out.type_ids.end(), body.type_ids.begin(), body.type_ids.end());
  }
  out.tokens.insert(out.tokens.end(), body.tokens.begin(), body.tokens.end());
  out.offsets.insert(out.offsets.end(), body.offsets.begin(), body.offsets.end());
  out.word_ids.insert(out.word_ids.end(), body.word_ids.begin(), body.word_ids.end());
  out.special_tokens_mask.insert(out.special_tokens_mask.end(), body.size(), 0u);
  out.attention_mask.insert(out.attention_mask.end(), body.size(), 1u);
  if (after) out.push(after->id, after->token, Offsets{0, 0}, std::nullopt, after_type, 1);
  const std::size_t start = before ? 1 : 0;
  out.sequence_ranges[seq_id] = Offsets{start, start + body.size()};
  return out;
}

/// Builds the post-processor described by `json`.
PostProcessorPtr make_post_processor(const detail::Json& json);

/// Appends `pair` to `enc` (HF Encoding::merge_with), combining overflowing
/// parts and shifting sequence ranges; offsets grow only when requested.
inline void merge_encodings(Encoding& enc, Encoding pair, bool growing_offsets) {
  if (enc.empty() && enc.overflowing.empty() && enc.sequence_ranges.empty()) {
    enc = std::move(pair);  // what the steps below give, without the copies
    return;
  }
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

/// Replaces encoding i, and each of its overflowing parts, by
/// wrap(part, i == 0) (how Bert and Roberta add their special tokens).
template <class Wrap>
void wrap_each(std::vector<Encoding>& encodings, Wrap&& wrap) {
  for (std::size_t i = 0; i < encodings.size(); ++i) {
    Encoding& e = encodings[i];
    Encoding out = wrap(e, i == 0);
    for (const Encoding& o : e.overflowing) out.overflowing.push_back(wrap(o, i == 0));
    e = std::move(out);
  }
}

/// Puts `first` before and `last` after the ids of one sequence.
inline void surround_ids(std::vector<std::uint32_t>& ids, std::uint32_t first, std::uint32_t last) {
  ids.insert(ids.begin(), first);
  ids.push_back(last);
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
