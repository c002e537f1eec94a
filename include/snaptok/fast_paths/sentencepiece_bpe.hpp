// Fused ids-only stage for SentencePiece-style BPE (Llama 2, Mistral, Phi-3,
// Gemma-like conversions): every ' ' becomes the replacement "▁" and one is
// put in front (the normalizers Prepend("▁") + Replace(" ", "▁"), or the
// Metaspace pre-tokenizer without split, after any normalizer), then BPE, with byte_fallback and fuse_unk, runs over the
// whole segment as one word.
//
// Cut points: when no vocabulary token holds a "▁" right after a char that
// is not "▁", no merge can join such a "▁" to what comes before it, so BPE
// of the segment is BPE of its pieces cut before every such "▁":
//
//   "▁Hello▁▁world" -> "▁Hello" "▁▁world"
//
// (BPE ranks are integers and every merge result is a vocabulary token, so
// the pieces merge exactly as they do inside the whole.) make() proves this
// from the vocabulary at load and returns nullptr when it does not hold.
// Pieces are looked up in the worker's cache by their normalized bytes.
#pragma once

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "snaptok/fast_paths/segment_path.hpp"
#include "snaptok/models/bpe.hpp"
#include "snaptok/normalizers/prepend.hpp"
#include "snaptok/normalizers/replace.hpp"
#include "snaptok/normalizers/sequence.hpp"
#include "snaptok/pre_tokenizers/metaspace.hpp"
#include "snaptok/pre_tokenizers/sequence.hpp"
#include "snaptok/runtime/piece_batch.hpp"

namespace snaptok {

class SentencePieceBpePath final : public SegmentPath {
 public:
  /// Returns the path for this normalizer, pre-tokenizer and model, or
  /// nullptr when they are not a configuration it reproduces exactly.
  static std::unique_ptr<SentencePieceBpePath> make(const Normalizer* normalizer,
                                                    const PreTokenizer* pre_tokenizer,
                                                    const Model& model) {
    const auto* bpe = dynamic_cast<const BpeModel*>(&model);
    if (!bpe || !bpe->deterministic() || bpe->has_affixes() || bpe->ignore_merges()) {
      return nullptr;
    }
    std::unique_ptr<SentencePieceBpePath> path(new SentencePieceBpePath(*bpe));
    if (!path->read_normalizer(normalizer, pre_tokenizer) && !path->read_metaspace(normalizer, pre_tokenizer)) {
      return nullptr;
    }
    if (path->space_.empty() || path->space_.find(' ') != std::string::npos ||
        !bpe->token_to_id(path->space_) || !path->cuts_are_exact()) {
      return nullptr;
    }
    return path;
  }

  std::string_view name() const noexcept override { return "SentencePiece BPE"; }

  // A long segment is normalized and cut one window of about kWindowBytes
  // at a time (each window ends at a cut), so the buffers stay small.
  void encode(std::string_view segment, bool at_text_start, std::vector<std::uint32_t>& ids,
              runtime::PieceCache* cache, General) const override {
    if (segment.empty()) return;
    thread_local std::string whole, window, out;
    thread_local std::vector<std::size_t> cuts;
    // A normalizer that is no per-byte map of this text runs on all of it.
    const bool mapped = normalizer_ && maps_alone(segment);
    std::string_view text = segment;
    if (normalizer_ && !mapped) {
      NormalizedString ns(segment, 0, segment, /*track_offsets=*/false);
      normalizer_->normalize(ns);
      whole = ns.get();
      text = whole;
      if (text.empty()) return;
    }
    const char first = mapped ? map(text.front()) : text.front();
    const bool prepend =
        prepend_unconditionally_ ||
        (first != ' ' && !(!mapped && text.starts_with(space_)) &&
         (prepend_ == PrependScheme::always || (prepend_ == PrependScheme::first && at_text_start)));
    const Encoder encoder{bpe_};
    runtime::PieceBatch<Encoder> pieces(encoder, ids, cache, nullptr);
    for (std::size_t begin = 0; begin < text.size();) {
      const std::size_t end = window_end(text, begin, mapped);
      std::string_view part = text.substr(begin, end - begin);
      pieces.set_readable_end(nullptr);  // encodes the queued pieces: `out` is rewritten
      if (mapped) {
        window.resize(part.size());
        for (std::size_t i = 0; i < part.size(); ++i) window[i] = map(part[i]);
        part = window;
      }
      replace_spaces(part, prepend && begin == 0, out, cuts);
      pieces.set_readable_end(out.data() + out.size());
      const std::string_view o = out;
      std::size_t start = 0;
      for (const std::size_t cut : cuts) {
        pieces.add(o.substr(start, cut - start));
        start = cut;
      }
      pieces.add(o.substr(start));
      begin = end;
    }
    pieces.finish();
  }

 private:
  explicit SentencePieceBpePath(const BpeModel& bpe) : bpe_(bpe) {}

  // Misses merge the piece (at most one id per byte), past the model's own cache.
  struct Encoder {
    static constexpr std::size_t kExtraIds = 0;
    const BpeModel& bpe;
    std::size_t encode_piece(std::string_view piece, std::uint32_t* out) const {
      return bpe.merge_ids(piece, out);
    }
  };

  // Sequence[Prepend(r), Replace(" " -> r)] and no pre-tokenizer.
  bool read_normalizer(const Normalizer* normalizer, const PreTokenizer* pre_tokenizer) {
    const auto* seq = dynamic_cast<const SequenceNormalizer*>(normalizer);
    if (!seq || pre_tokenizer || seq->steps().size() != 2) return false;
    const auto* prepend = dynamic_cast<const PrependNormalizer*>(seq->steps()[0].get());
    const auto* replace = dynamic_cast<const ReplaceNormalizer*>(seq->steps()[1].get());
    if (!prepend || !replace || replace->literal() != std::string(" ") ||
        replace->content() != prepend->prepend()) {
      return false;
    }
    space_ = replace->content();
    prepend_ = PrependScheme::always;
    prepend_unconditionally_ = true;
    return true;
  }

  // Metaspace(split: false), alone or as a one-step Sequence, after any
  // normalizer: it runs on the whole segment, as in HF (a segment of bytes
  // its ASCII profile maps alone is mapped here instead).
  bool read_metaspace(const Normalizer* normalizer, const PreTokenizer* pre_tokenizer) {
    if (normalizer && !normalizer->is_identity()) {
      profile_ = normalizer->ascii_profile();
      normalizer_ = normalizer;
    }
    if (const auto* seq = dynamic_cast<const SequencePreTokenizer*>(pre_tokenizer)) {
      if (seq->steps().size() != 1) return false;
      pre_tokenizer = seq->steps()[0].get();
    }
    const auto* meta = dynamic_cast<const MetaspacePreTokenizer*>(pre_tokenizer);
    if (!meta || meta->split()) return false;
    detail::append_cp(space_, meta->replacement());
    prepend_ = meta->prepend_scheme();
    return true;
  }

  // True when no vocabulary token holds the replacement right after a char
  // that is not the replacement.
  bool cuts_are_exact() const {
    const std::size_t k = space_.size();
    for (const auto& [token, id] : bpe_.vocab()) {
      for (std::size_t at = token.find(space_, 1); at != std::string::npos;
           at = token.find(space_, at + 1)) {
        if (at < k || token.compare(at - k, k, space_) != 0) return false;
      }
    }
    return true;
  }

  static constexpr std::size_t kWindowBytes = std::size_t{64} << 10;

  // True when every byte of `segment` is one the normalizer maps alone.
  bool maps_alone(std::string_view segment) const noexcept {
    if (!profile_) return false;
    bool safe = true;
    for (const char c : segment) {
      const auto b = static_cast<unsigned char>(c);
      safe &= b < 0x80 && profile_->safe[b & 0x7F];
    }
    return safe;
  }
  char map(char c) const noexcept {
    return static_cast<char>(profile_->map[static_cast<unsigned char>(c) & 0x7F]);
  }

  // Returns where the window from `begin` ends: the first ' ' at or past
  // begin + kWindowBytes that is a cut (no space, and no "▁", right before
  // it), else the end of `text`. (`mapped`: compare the normalizer's map.)
  std::size_t window_end(std::string_view text, std::size_t begin, bool mapped) const {
    const std::size_t k = space_.size();
    for (std::size_t at = begin + kWindowBytes; at < text.size(); ++at) {
      at = text.find(' ', at);
      if (at == std::string_view::npos) break;
      const char before = mapped ? map(text[at - 1]) : text[at - 1];
      if (before != ' ' && (mapped || at - begin < k || text.compare(at - k, k, space_) != 0) &&
          (!mapped || map(text[at]) == ' ')) {
        return at;
      }
    }
    return text.size();
  }

  // Writes `segment` (normalized) into `out` with ' ' -> replacement and,
  // with `prepend`, one replacement in front; `cuts` gets the positions in
  // `out` of the replacements of spaces that follow no replacement (a
  // literal "▁" in the text is never cut before: fewer cuts are as exact).
  void replace_spaces(std::string_view segment, bool prepend, std::string& out,
                      std::vector<std::size_t>& cuts) const {
    cuts.clear();
    const std::size_t k = space_.size();
    const auto spaces = static_cast<std::size_t>(std::count(segment.begin(), segment.end(), ' '));
    out.resize(segment.size() + spaces * (k - 1) + (prepend ? k : 0));
    char* const begin = out.data();
    char* w = begin;
    if (prepend) w = std::copy_n(space_.data(), k, w);
    for (std::size_t i = 0;;) {
      const void* hit = std::memchr(segment.data() + i, ' ', segment.size() - i);
      const std::size_t at =
          hit ? static_cast<std::size_t>(static_cast<const char*>(hit) - segment.data()) : segment.size();
      w = std::copy_n(segment.data() + i, at - i, w);
      if (at == segment.size()) break;
      const auto done = static_cast<std::size_t>(w - begin);
      if (done > 0 && (done < k || std::memcmp(w - k, space_.data(), k) != 0)) cuts.push_back(done);
      w = std::copy_n(space_.data(), k, w);
      i = at + 1;
    }
  }

  const BpeModel& bpe_;
  std::string space_;  // the replacement ("▁")
  PrependScheme prepend_ = PrependScheme::always;
  bool prepend_unconditionally_ = false;  // Prepend normalizer: even before a space
  const Normalizer* normalizer_ = nullptr;  // before Metaspace, when it changes text
  std::optional<AsciiProfile> profile_;     // normalizer_'s
};

}  // namespace snaptok
