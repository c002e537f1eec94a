// The general stages with offsets: what HF's TokenizerImpl runs for a full
// Encoding. The added tokens and the normalizer, the pre-tokenizer, the model
// over each split (stopping early when truncation is sure to cut and only
// ids are read), the splits into an Encoding with char offsets, then
// truncation, the post-processor and padding. Pipeline's encode_full,
// encode_words, post_process and its ids under truncation or padding go
// through here; its ids-only route (ids_route.hpp) skips offsets and tokens.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "snaptok/added_tokens.hpp"
#include "snaptok/detail/utf8.hpp"
#include "snaptok/encoding.hpp"
#include "snaptok/models/model.hpp"
#include "snaptok/normalizers/normalizer.hpp"
#include "snaptok/pre_tokenized_string.hpp"
#include "snaptok/pre_tokenizers/pre_tokenizer.hpp"
#include "snaptok/processors/processor.hpp"
#include "snaptok/runtime/settings.hpp"
#include "snaptok/truncation.hpp"

namespace snaptok {

/// One tokenizer's stages (a normalizer, a pre-tokenizer and a
/// post-processor where it has them, and its model), viewed for one call:
/// the Encodings HF builds from them, under a settings snapshot.
class GeneralStages {
 public:
  GeneralStages(const Normalizer* normalizer, const PreTokenizer* pre_tokenizer, const Model& model,
                const PostProcessor* post_processor) noexcept
      : normalizer_(normalizer), pre_tokenizer_(pre_tokenizer), model_(model), post_processor_(post_processor) {}

  /// The Encoding of `text` (and `pair`): HF encode_char_offsets, then
  /// post_process. `ids_only`: only the ids of the result will be read, so
  /// the model may stop early once truncation is sure to cut (the pinned HF
  /// wheel tokenizes everything: its overflowing parts cover the whole
  /// input). `pair_type_id`: the type id of the pair's tokens before
  /// post-processing.
  Encoding encode(const EncodeSettings& settings, std::string_view text, std::optional<std::string_view> pair,
                  bool add_special_tokens, bool ids_only, std::uint32_t pair_type_id = 1) const {
    // With max_length below the special tokens nothing is cut (see post_process).
    const std::optional<TruncationParams>& truncation = settings.truncation;
    const bool early_exit =
        ids_only && !pair && truncation &&
        !(add_special_tokens && post_processor_ &&
          post_processor_->added_tokens(false) > truncation->max_length);
    return encode_with(settings, text, pair, add_special_tokens, pair_type_id,
                       [&](std::string_view sequence, std::uint32_t type_id) {
                         return encode_sequence(settings, sequence, type_id, early_exit);  // (no pair then)
                       });
  }

  /// encode() with each sequence's Encoding before post-processing from
  /// `sequence(text, type_id)` (HF encode_char_offsets): the input checked,
  /// both sequences encoded, then post_process.
  template <class EncodeSequence>
  Encoding encode_with(const EncodeSettings& settings, std::string_view text, std::optional<std::string_view> pair,
                       bool add_special_tokens, std::uint32_t pair_type_id, EncodeSequence&& sequence) const {
    detail::require_utf8(text, "input text");
    if (pair) detail::require_utf8(*pair, "input pair text");
    Encoding enc = sequence(text, 0);
    std::optional<Encoding> pair_enc;
    if (pair) pair_enc = sequence(*pair, pair_type_id);
    return post_process(settings, std::move(enc), std::move(pair_enc), add_special_tokens);
  }

  /// The Encoding of pre-tokenized input: HF encode_single_sequence for
  /// each word alone, merged without growing offsets, then post_process.
  Encoding encode_words(const EncodeSettings& settings, std::span<const std::string_view> words,
                        std::optional<std::span<const std::string_view>> pair, bool add_special_tokens,
                        std::uint32_t pair_type_id = 1) const {
    auto sequence = [&](std::span<const std::string_view> seq, std::uint32_t type_id, const char* what) {
      Encoding out;
      for (std::size_t i = 0; i < seq.size(); ++i) {
        detail::require_utf8(seq[i], what);
        Encoding word = encode_sequence(settings, seq[i], type_id, false);
        for (auto& w : word.word_ids) w = static_cast<std::uint32_t>(i);
        merge_encodings(out, std::move(word), /*growing_offsets=*/false);
      }
      return out;
    };
    std::optional<Encoding> pair_enc;
    if (pair) pair_enc = sequence(*pair, pair_type_id, "input pair word");
    return post_process(settings, sequence(words, 0, "input word"), std::move(pair_enc), add_special_tokens);
  }

  /// HF encode_single_sequence for a raw (not pre-tokenized) valid UTF-8
  /// input, with char offsets, before post-processing; `early_exit` allows
  /// stopping the model at max_length tokens (see encode).
  Encoding encode_sequence(const EncodeSettings& settings, std::string_view text, std::uint32_t type_id,
                           bool early_exit) const {
    PreTokenizedString pts(text, /*track_offsets=*/true);
    run_stages(settings, pts);
    std::optional<std::size_t> limit;
    bool from_left = false;
    const std::optional<TruncationParams>& truncation = settings.truncation;
    if (early_exit && truncation &&
        (truncation->strategy != TruncationStrategy::only_second || type_id != 0)) {
      limit = truncation->max_length;
      from_left = truncation->direction == TruncationDirection::left;
    }
    tokenize_splits(pts, limit, from_left);
    return into_encoding(pts, type_id);
  }

  /// The Encoding of `span`, text that holds no added token, through the
  /// normalizer, the pre-tokenizer and the model (char offsets into
  /// `span`, word ids from 0), as a fused path hands it over.
  Encoding encode_span(std::string_view span, std::uint32_t type_id) const {
    PreTokenizedString pts(span, /*track_offsets=*/true);
    if (normalizer_) pts.normalize([&](NormalizedString& ns) { normalizer_->normalize(ns); });
    if (pre_tokenizer_) pre_tokenizer_->pre_tokenize(pts);
    tokenize_splits(pts, std::nullopt, false);
    return into_encoding(pts, type_id);
  }

  /// HF TokenizerImpl::post_process: truncate, post-process, pad.
  Encoding post_process(const EncodeSettings& settings, Encoding enc, std::optional<Encoding> pair,
                        bool add_special_tokens) const {
    if (settings.truncation) {
      TruncationParams params = *settings.truncation;
      const std::size_t n_added =
          post_processor_ ? post_processor_->added_tokens(pair.has_value()) : 0;
      bool cut = true;
      if (add_special_tokens && n_added > 0) {
        // HF computes max_length - n_added in usize: below n_added it wraps
        // to a huge length, so nothing is cut.
        if (params.max_length < n_added) {
          cut = false;
        } else {
          params.max_length -= n_added;
        }
      }
      if (cut) truncate_encodings(enc, pair, params);
    }
    Encoding out = post_processor_
                       ? run_post_processor(*post_processor_, std::move(enc), std::move(pair),
                                            add_special_tokens)
                       : default_post_process(std::move(enc), std::move(pair));
    if (settings.padding) {
      std::vector<Encoding> one;
      one.push_back(std::move(out));
      pad_encodings(one, *settings.padding);
      out = std::move(one.front());
    }
    return out;
  }


 private:
  // The added tokens and the normalizer, then the pre-tokenizer.
  void run_stages(const EncodeSettings& settings, PreTokenizedString& pts) const {
    settings.added_tokens->extract_and_normalize(pts, normalizer_, settings.encode_special_tokens);
    if (pre_tokenizer_) pre_tokenizer_->pre_tokenize(pts);
  }

  // Runs the model over untokenized splits; with a limit, stops once that
  // many tokens exist on the kept side and drops the splits beyond
  // (HF tokenize_with_limit).
  void tokenize_splits(PreTokenizedString& pts, std::optional<std::size_t> limit,
                       bool from_left) const {
    auto& splits = pts.splits();
    auto tokenize = [&](Split& s) {
      if (!s.tokenized) {
        model_.tokenize(s.normalized.get(), s.tokens);
        s.tokenized = true;
      }
      return s.tokens.size();
    };
    if (!limit) {
      for (Split& s : splits) tokenize(s);
      return;
    }
    std::size_t total = 0;
    if (from_left) {
      std::size_t first = splits.size();
      for (std::size_t i = splits.size(); i-- > 0;) {
        const bool was_tokenized = splits[i].tokenized;
        total += tokenize(splits[i]);
        first = i;
        if (!was_tokenized && total >= *limit) break;
      }
      splits.erase(splits.begin(), splits.begin() + static_cast<std::ptrdiff_t>(first));
    } else {
      std::size_t last = 0;
      for (std::size_t i = 0; i < splits.size(); ++i) {
        const bool was_tokenized = splits[i].tokenized;
        total += tokenize(splits[i]);
        last = i + 1;
        if (!was_tokenized && total >= *limit) break;
      }
      splits.resize(last);
    }
  }

  // HF PreTokenizedString::into_encoding with char offsets.
  Encoding into_encoding(const PreTokenizedString& pts, std::uint32_t type_id) const {
    Encoding enc;
    const std::string_view original = pts.original();
    const std::vector<std::uint32_t> char_of = detail::char_index_of_bytes(original);
    auto to_chars = [&](Offsets o) -> Offsets {
      if (o.start >= original.size()) return o;  // not in HF's map: kept as bytes
      const std::size_t start = char_of[o.start];
      if (o.end < original.size()) return {start, char_of[o.end]};
      if (o.end == original.size()) return {start, char_of[o.end - 1] + 1};
      // Ends past the text (byte-fallback tokens of a prefixed word count
      // the prefix): HF finds no char for the end, and gives start + 2.
      return {start, start + 2};
    };
    const auto& splits = pts.splits();
    for (std::size_t idx = 0; idx < splits.size(); ++idx) {
      const Split& s = splits[idx];
      const NormalizedString& ns = s.normalized;
      const std::size_t shift = ns.offsets_original().start;
      for (const RawToken& t : s.tokens) {
        Offsets off{t.start, t.end};
        if (auto r = ns.normalized_to_original(t.start, t.end)) {
          off = {shift + r->start, shift + r->end};
        }
        std::string value;
        if (t.text_value) {
          value = ns.get().substr(t.start, t.end - t.start);
        } else if (auto v = model_.id_to_token(t.id)) {
          value = *v;
        }
        enc.push(t.id, std::move(value), to_chars(off), static_cast<std::uint32_t>(idx),
                 type_id, 0);
      }
    }
    return enc;
  }

  const Normalizer* normalizer_;
  const PreTokenizer* pre_tokenizer_;
  const Model& model_;
  const PostProcessor* post_processor_;
};

}  // namespace snaptok
