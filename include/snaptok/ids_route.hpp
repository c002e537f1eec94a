// The ids-only route: what Pipeline's encode, encode_batch, encode_batch_flat
// and DocumentEncoder run when only ids are asked for, chosen once at load
// from the tokenizer's stages. Top to bottom: added tokens and normalization,
// pre-tokenization and the model, post-processing; the first two stages fused
// into one where a fused path takes the configuration:
//  - byte-level BPE (fast_paths/byte_level_bpe.hpp): the pre-tokenizer's
//    scan and the model over its pieces, through the worker's piece cache;
//  - else a segment path (fast_paths/segment_paths.hpp: SentencePiece BPE,
//    whitespace words) for the text between added tokens, when the added
//    tokens allow;
//  - else the stages one after another, without offsets.
// Truncation and padding need the whole Encoding: those calls go through
// the general stages (general_stages.hpp). A route that proves its cuts
// encodes a long document as parts cut at cut points, in parallel.
// Full Encodings (encode_full) take the fused paths too where they can tell
// each token's input bytes (fast_paths/fused_encoding.hpp: the byte-level
// BPE path where its pieces are views of the text, a segment path that
// implements encode_tokens), else the general stages.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "snaptok/added_tokens.hpp"
#include "snaptok/detail/utf8.hpp"
#include "snaptok/error.hpp"
#include "snaptok/fast_paths/byte_level_bpe.hpp"
#include "snaptok/fast_paths/byte_level_encoding.hpp"
#include "snaptok/fast_paths/segment_paths.hpp"
#include "snaptok/general_stages.hpp"
#include "snaptok/models/model.hpp"
#include "snaptok/normalizers/normalizer.hpp"
#include "snaptok/pre_tokenized_string.hpp"
#include "snaptok/pre_tokenizers/pre_tokenizer.hpp"
#include "snaptok/processors/processor.hpp"
#include "snaptok/processors/sequence_wrap.hpp"
#include "snaptok/runtime/batch.hpp"
#include "snaptok/runtime/settings.hpp"
#include "snaptok/runtime/workspace.hpp"
#include "snaptok/truncation.hpp"

namespace snaptok {

/// One tokenizer's ids-only route (see the file comment). Immutable once
/// built; copies share the stages and the fused paths.
class IdsRoute {
 public:
  IdsRoute() = default;

  /// Chooses the route for these stages (any may be null but the model).
  IdsRoute(NormalizerPtr normalizer, PreTokenizerPtr pre_tokenizer, ModelPtr model, PostProcessorPtr post_processor)
      : normalizer_(std::move(normalizer)),
        pre_tokenizer_(std::move(pre_tokenizer)),
        model_(std::move(model)),
        post_processor_(std::move(post_processor)) {
    byte_level_bpe_ = ByteLevelBpePath::make(pre_tokenizer_.get(), *model_);
    if (!byte_level_bpe_) segment_path_ = make_segment_path(normalizer_.get(), pre_tokenizer_.get(), *model_);
    fused_encoding_ = byte_level_bpe_ && byte_level_bpe_->pieces_are_views() &&
                      byte_level_bpe_->model().keeps_every_byte();
    cut_points_exact_ = byte_level_bpe_ ? byte_level_bpe_->cut_points_exact() &&
                                              (!normalizer_ || normalizer_->keeps_cut_points())
                                        : segment_path_ && segment_path_->cuts_at_cut_points();
    for (const bool add : {false, true}) wraps_[add] = wrap_of(post_processor_.get(), add);
  }

  /// Names the fused stage under `settings`: "byte-level BPE", a segment
  /// path's name, or "none" (the general stages).
  std::string_view fused_path(const EncodeSettings& settings) const noexcept {
    if (byte_level_bpe_) return "byte-level BPE";
    const SegmentPath* segment = segment_path(settings);
    return segment ? segment->name() : "none";
  }

  /// True when documents may be cut at cut points under `settings`: the
  /// fused stage proves its cuts, no added token a cut could change, a
  /// post-processor that only puts ids around the sequence, no truncation
  /// or padding. (A segment path that the added tokens rule out leaves the
  /// text to the general stages, which never cut.)
  bool splits_documents(const EncodeSettings& settings, bool add_special_tokens) const {
    return cut_points_exact_ && (byte_level_bpe_ || segment_path(settings)) &&
           settings.added_tokens->allows_cut_points() && wraps_[add_special_tokens].exact && !settings.truncation &&
           !settings.padding;
  }

  /// Appends the ids of `text` to `ids`, the whole route.
  /// `utf8_checked`: `text` is known to be valid UTF-8.
  void encode_ids(const EncodeSettings& settings, runtime::Workspace& ws, std::string_view text,
                  bool add_special_tokens, std::vector<std::uint32_t>& ids, bool utf8_checked = false) const {
    if (!utf8_checked) detail::require_utf8(text, "input text");
    if (settings.truncation || settings.padding) {
      const Encoding enc = general().encode(settings, text, std::nullopt, add_special_tokens, /*ids_only=*/true);
      ids.insert(ids.end(), enc.ids.begin(), enc.ids.end());
      return;
    }
    // A post-processor that only puts ids around the sequence (or none):
    // everything goes straight into `ids`, with no copy of the sequence.
    const SequenceWrap& wrap = wraps_[add_special_tokens];
    if (wrap.exact) {
      ids.insert(ids.end(), wrap.before.begin(), wrap.before.end());
      encode_model_ids(settings, ws, text, ids);
      ids.insert(ids.end(), wrap.after.begin(), wrap.after.end());
      return;
    }
    std::vector<std::uint32_t>& seq = ws.scratch_ids();
    seq.clear();
    encode_model_ids(settings, ws, text, seq);
    post_processor_->process_ids(seq, add_special_tokens);
    ids.insert(ids.end(), seq.begin(), seq.end());
  }

  /// Appends the ids of `units` (in text order) to `ids` on up to `threads`
  /// threads (runtime::encode_units); `offsets` as there.
  void encode_units(const EncodeSettings& settings, std::span<const runtime::Unit> units, bool add_special_tokens,
                    unsigned threads, std::vector<std::uint32_t>& ids, std::span<std::int64_t> offsets) const {
    runtime::encode_units(units, threads, ids, offsets,
                          [&](const runtime::Unit& unit, runtime::Workspace& ws, std::vector<std::uint32_t>& out) {
                            encode_unit(settings, ws, unit, add_special_tokens, out);
                          });
  }

  /// Returns the ids of every text, padded together when padding is set.
  std::vector<std::vector<std::uint32_t>> encode_rows(const EncodeSettings& settings,
                                                      std::span<const std::string_view> texts,
                                                      bool add_special_tokens, unsigned num_threads) const {
    std::vector<std::vector<std::uint32_t>> rows(texts.size());
    const unsigned threads = runtime::resolve_threads(num_threads);
    std::vector<std::size_t> bounds;
    runtime::chunk_bounds(texts.size(), [&](std::size_t i) { return texts[i].size(); }, threads, bounds);
    runtime::run_tasks(bounds.size() - 1, threads, [&](std::size_t c, runtime::Workspace& ws) {
      for (std::size_t i = bounds[c]; i < bounds[c + 1]; ++i) {
        try {
          encode_ids(settings, ws, texts[i], add_special_tokens, rows[i]);
        } catch (const detail::InvalidUtf8& e) {
          throw runtime::item_error(e, i);
        }
      }
    });
    if (!settings.padding || rows.empty()) return rows;
    std::size_t longest = 0;
    for (const auto& r : rows) longest = std::max(longest, r.size());
    const std::size_t target = padded_length(*settings.padding, longest);
    for (auto& r : rows) {
      if (r.size() >= target) continue;
      const auto at = settings.padding->direction == PaddingDirection::left ? r.begin() : r.end();
      r.insert(at, target - r.size(), settings.padding->pad_id);
    }
    return rows;
  }

  /// The full Encoding of `text` (and `pair`), as GeneralStages::encode
  /// gives it; a sequence goes through a fused path where it gives the same
  /// Encoding (fast_paths/fused_encoding.hpp), else the general stages.
  /// `pair_type_id`: the type id of the pair's tokens before
  /// post-processing. (The caller flushes `ws`'s cache counts.)
  Encoding encode_full(const EncodeSettings& settings, runtime::Workspace& ws, std::string_view text,
                       std::optional<std::string_view> pair, bool add_special_tokens,
                       std::uint32_t pair_type_id = 1) const {
    return general().encode_with(settings, text, pair, add_special_tokens, pair_type_id,
                                 [&](std::string_view sequence, std::uint32_t type_id) {
                                   return encode_sequence(settings, ws, sequence, type_id);
                                 });
  }

  /// The general stages with offsets (general_stages.hpp), over the same stages.
  GeneralStages general() const noexcept {
    return {normalizer_.get(), pre_tokenizer_.get(), *model_, post_processor_.get()};
  }

 private:
  // The fused segment stage, when there is one and `settings`' added
  // tokens allow it: a segment path normalizes the text between added
  // tokens itself, so every added token must be matched on the text as given.
  const SegmentPath* segment_path(const EncodeSettings& settings) const {
    if (!segment_path_ || (normalizer_ && settings.added_tokens->has_normalized_tokens())) return nullptr;
    return segment_path_.get();
  }

  // One sequence's Encoding before post-processing (see encode_full).
  Encoding encode_sequence(const EncodeSettings& settings, runtime::Workspace& ws, std::string_view text,
                           std::uint32_t type_id) const {
    const AddedVocabulary& added = *settings.added_tokens;
    const bool nothing_to_normalize = !normalizer_ || normalizer_->is_identity();
    Encoding enc;
    if (fused_encoding_ && (nothing_to_normalize || !added.has_normalized_tokens())) {
      runtime::PieceCache* cache =
          ws.cache(byte_level_bpe_->cache_owner(), settings.cache_budget, runtime::default_threads());
      std::vector<std::string_view>& tokens = ws.scratch_views();
      const bool exact = encode_by_segments(
          added, settings.encode_special_tokens, text, type_id, enc,
          [&](std::string_view segment, SegmentStart, EncodingBuilder& out) {
            return (nothing_to_normalize || normalizer_->leaves_unchanged(segment)) &&
                   encode_byte_level_segment(*byte_level_bpe_, cache, segment, ws.scratch_ids(), tokens, out);
          });
      if (exact) return enc;
    } else if (const SegmentPath* segment_path = this->segment_path(settings)) {
      runtime::PieceCache* cache =
          ws.cache(segment_path->cache_owner(), settings.cache_budget, runtime::default_threads());
      auto span_tokens = [&](std::string_view span, EncodingBuilder& out) {
        return out.append(general().encode_span(span, type_id), span);
      };
      const bool exact = encode_by_segments(added, settings.encode_special_tokens, text, type_id, enc,
                                            [&](std::string_view segment, SegmentStart start, EncodingBuilder& out) {
                                              return segment_path->encode_tokens(segment, start, cache,
                                                                                 ws.scratch_ids(), span_tokens, out);
                                            });
      if (exact) return enc;
    }
    return general().encode_sequence(settings, text, type_id, /*early_exit=*/false);
  }

  // Appends the model ids of valid UTF-8 `text`: added tokens and
  // normalization, then pre-tokenization and the model (one fused stage for
  // byte-level BPE); no post-processing. `at_cut_point`: `text` is a part
  // of a document from one of its cut points (splits_documents).
  void encode_model_ids(const EncodeSettings& settings, runtime::Workspace& ws, std::string_view text,
                        std::vector<std::uint32_t>& seq, bool at_cut_point = false) const {
    const AddedVocabulary& added = *settings.added_tokens;
    if (const SegmentPath* segment_path = this->segment_path(settings)) {
      runtime::PieceCache* cache =
          ws.cache(segment_path->cache_owner(), settings.cache_budget, runtime::default_threads());
      auto general = [&](std::string_view span, std::vector<std::uint32_t>& out) { encode_span_ids(span, out); };
      added.extract(
          text, settings.encode_special_tokens,
          [&](std::string_view segment) {
            const SegmentStart start = segment.data() != text.data() ? SegmentStart::kAfterToken
                                       : at_cut_point                ? SegmentStart::kCutPoint
                                                                     : SegmentStart::kText;
            segment_path->encode(segment, start, seq, cache, general);
          },
          [&](std::uint32_t id, std::string_view) { seq.push_back(id); });
      return;
    }
    runtime::PieceCache* cache =
        byte_level_bpe_ ? ws.cache(byte_level_bpe_->cache_owner(), settings.cache_budget, runtime::default_threads())
                        : nullptr;
    const bool nothing_to_normalize = !normalizer_ || normalizer_->is_identity();
    if (byte_level_bpe_ && (nothing_to_normalize || !added.has_normalized_tokens())) {
      // Added tokens matched in the raw text (so cut it as views); each
      // piece between them is normalized on its own, as
      // extract_and_normalize does, and copied only when the normalizer
      // would change it (NFC text under NFC is not).
      added.extract(
          text, settings.encode_special_tokens,
          [&](std::string_view piece) {
            if (nothing_to_normalize || normalizer_->leaves_unchanged(piece)) {
              byte_level_bpe_->encode(piece, seq, cache);
              return;
            }
            NormalizedString ns(piece, 0, piece, /*track_offsets=*/false);
            normalizer_->normalize(ns);
            byte_level_bpe_->encode(ns.get(), seq, cache);
          },
          [&](std::uint32_t id, std::string_view) { seq.push_back(id); });
      return;
    }
    PreTokenizedString pts(text, /*track_offsets=*/!byte_level_bpe_ && pre_tokenizer_ &&
                                     pre_tokenizer_->needs_offsets());
    added.extract_and_normalize(pts, normalizer_.get(), settings.encode_special_tokens);
    if (!byte_level_bpe_ && pre_tokenizer_) pre_tokenizer_->pre_tokenize(pts);
    if (!byte_level_bpe_) {
      append_model_ids(pts, seq);
      return;
    }
    for (const Split& s : pts.splits()) {
      if (s.tokenized) {
        for (const RawToken& t : s.tokens) seq.push_back(t.id);
      } else {
        byte_level_bpe_->encode(s.normalized.get(), seq, cache);
      }
    }
  }

  // Appends the ids of `span`, text between added tokens that a segment
  // path leaves to the general stages: normalization, pre-tokenization and
  // the model.
  void encode_span_ids(std::string_view span, std::vector<std::uint32_t>& seq) const {
    PreTokenizedString pts(span, /*track_offsets=*/pre_tokenizer_ && pre_tokenizer_->needs_offsets());
    if (normalizer_) pts.normalize([&](NormalizedString& ns) { normalizer_->normalize(ns); });
    if (pre_tokenizer_) pre_tokenizer_->pre_tokenize(pts);
    append_model_ids(pts, seq);
  }

  // Appends the ids of every split of `pts`: a tokenized one's, else the
  // model's for its text.
  void append_model_ids(const PreTokenizedString& pts, std::vector<std::uint32_t>& seq) const {
    thread_local std::vector<RawToken> tokens;
    for (const Split& s : pts.splits()) {
      if (s.tokenized) {
        for (const RawToken& t : s.tokens) seq.push_back(t.id);
        continue;
      }
      tokens.clear();
      model_->tokenize(s.normalized.get(), tokens);
      for (const RawToken& t : tokens) seq.push_back(t.id);
    }
  }

  // Appends the ids of `unit` to `out`: a whole text through encode_ids, a
  // part through the model stage with the post-processor's ids before the
  // first part and after the last.
  void encode_unit(const EncodeSettings& settings, runtime::Workspace& ws, const runtime::Unit& unit,
                   bool add_special_tokens, std::vector<std::uint32_t>& out) const {
    if (unit.first && unit.last) {
      encode_ids(settings, ws, unit.bytes, add_special_tokens, out, unit.utf8_checked);
      return;
    }
    if (!unit.utf8_checked) detail::require_utf8(unit.bytes, "input text", unit.at);
    const SequenceWrap& wrap = wraps_[add_special_tokens];
    if (unit.first) out.insert(out.end(), wrap.before.begin(), wrap.before.end());
    encode_model_ids(settings, ws, unit.bytes, out, /*at_cut_point=*/!unit.first);
    if (unit.last) out.insert(out.end(), wrap.after.begin(), wrap.after.end());
  }

  NormalizerPtr normalizer_;
  PreTokenizerPtr pre_tokenizer_;
  ModelPtr model_;
  PostProcessorPtr post_processor_;
  // The fused byte-level BPE stage, when the configuration allows it.
  std::shared_ptr<const ByteLevelBpePath> byte_level_bpe_;
  // The fused stage for the text between added tokens, when not byte-level
  // (used when the added tokens allow: segment_path()).
  std::shared_ptr<const SegmentPath> segment_path_;
  // Full Encodings may come from the byte-level path (encode_sequence).
  bool fused_encoding_ = false;
  // The fused stage proves its cuts at cut points: documents may be cut
  // there when the settings and the added tokens allow (splits_documents).
  bool cut_points_exact_ = false;
  // What the post-processor puts around a sequence, without and with
  // special tokens.
  SequenceWrap wraps_[2];
};

}  // namespace snaptok
