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
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "snaptok/fast_paths/fused_encoding.hpp"
#include "snaptok/fast_paths/segment_path.hpp"
#include "snaptok/models/bpe.hpp"
#include "snaptok/normalizers/prepend.hpp"
#include "snaptok/normalizers/replace.hpp"
#include "snaptok/normalizers/sequence.hpp"
#include "snaptok/pre_tokenizers/metaspace.hpp"
#include "snaptok/pre_tokenizers/sequence.hpp"
#include "snaptok/pre_tokenizers/split.hpp"
#include "snaptok/runtime/piece_batch.hpp"
#include "snaptok/scanners/block_masks.hpp"
#include "snaptok/simd/byte_classes.hpp"

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

  // A cut point ("word| word") stays one after a normalizer that keeps cut
  // points, and every ' ' after a letter is a cut of the path: the pieces
  // on either side are those of the whole.
  bool cuts_at_cut_points() const noexcept override {
    return !normalizer_ || normalizer_->keeps_cut_points();
  }

  // Pieces are cached by their text before ' ' -> "▁" (shorter keys: more
  // fit the short tier); a miss replaces the spaces and merges. A segment
  // the normalizer maps byte by byte is mapped one window of about
  // kWindowBytes at a time (each window ends at a cut).
  void encode(std::string_view segment, SegmentStart start, std::vector<std::uint32_t>& ids,
              runtime::PieceCache* cache, General) const override {
    if (segment.empty()) return;
    thread_local std::string whole, window;
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
    const bool prepend = prepends(text, mapped, start);
    const Encoder encoder{*this};
    Pieces pieces(encoder, ids, cache, nullptr);
    for (std::size_t begin = 0; begin < text.size();) {
      const std::size_t end = mapped ? window_end(text, begin) : text.size();
      std::string_view part = text.substr(begin, end - begin);
      if (mapped) {
        pieces.set_readable_end(nullptr);  // encodes the queued pieces: `window` is rewritten
        window.resize(part.size());
        for (std::size_t i = 0; i < part.size(); ++i) window[i] = map(part[i]);
        part = window;
      }
      add_pieces(part, prepend && begin == 0, pieces);
      begin = end;
    }
    pieces.finish();
  }

  // The segment is one split. Its normalized text is walked token by
  // token: each token is the text's next bytes, or the byte a
  // byte-fallback token stands for.
  bool encode_tokens(std::string_view segment, SegmentStart start, runtime::PieceCache* cache,
                     std::vector<std::uint32_t>& ids, SpanTokens, EncodingBuilder& out) const override {
    if (segment.empty()) return true;
    if (normalizer_ && !normalizer_->leaves_unchanged(segment)) return false;
    ids.clear();
    auto no_span = [](std::string_view, std::vector<std::uint32_t>&) {};
    encode(segment, start, ids, cache, no_span);
    out.reserve_more(ids.size());
    const std::size_t base = out.offset_of(segment);
    ReplacedSpaces text(segment, space_, prepends(segment, normalizer_ && maps_alone(segment), start));
    for (const std::uint32_t id : ids) {
      const std::string_view token = bpe_.id_to_token(id).value_or(std::string_view());
      const std::optional<unsigned char> byte = bpe_.fallback_byte(id);
      // ("<0x3C>" is also the text "<0x3C>": left to the general stages.)
      if (token.empty() || byte == '<') return false;
      const std::size_t begin = text.source();
      if (!(byte ? text.pass(static_cast<char>(*byte)) : text.pass(token))) return false;
      out.push(id, token, base + begin, base + text.last_source() + 1);
    }
    out.next_split();
    return text.done();
  }

 private:
  explicit SentencePieceBpePath(const BpeModel& bpe) : bpe_(bpe) {}

  // True when a "▁" goes in front of `text`: a segment after the
  // normalizer, or before it when `mapped` (the normalizer maps it byte by
  // byte). A part from a cut point continues a segment: its "▁" was
  // prepended to the part that begins the segment.
  bool prepends(std::string_view text, bool mapped, SegmentStart start) const noexcept {
    const char first = mapped ? map(text.front()) : text.front();
    return start != SegmentStart::kCutPoint &&
           (prepend_unconditionally_ ||
            (first != ' ' && !(!mapped && text.starts_with(space_)) &&
             (prepend_ == PrependScheme::always || (prepend_ == PrependScheme::first && start == SegmentStart::kText))));
  }

  // A segment's normalized text, walked byte by byte: the replacement in
  // front when prepended, then the segment with each ' ' replaced. Each
  // byte comes from one byte of the segment (the prepended replacement
  // from its first), to whose char the normalizers align it.
  class ReplacedSpaces {
   public:
    ReplacedSpaces(std::string_view segment, std::string_view space, bool prepended) noexcept
        : segment_(segment), space_(space), in_prepended_(prepended) {}

    /// The segment byte the next byte comes from.
    std::size_t source() const noexcept { return in_prepended_ ? 0 : at_; }
    /// The segment byte the last byte passed came from.
    std::size_t last_source() const noexcept { return last_; }
    /// True when every byte has been passed.
    bool done() const noexcept { return !in_prepended_ && at_ == segment_.size(); }

    /// Passes the next bytes when they are `bytes`; returns false when not.
    bool pass(std::string_view bytes) noexcept {
      for (const char c : bytes) {
        if (!pass(c)) return false;
      }
      return true;
    }
    bool pass(char c) noexcept {
      if (in_prepended_ || (at_ < segment_.size() && segment_[at_] == ' ')) {
        if (c != space_[in_space_]) return false;
        last_ = source();
        if (++in_space_ < space_.size()) return true;
        in_space_ = 0;
        at_ += in_prepended_ ? 0 : 1;
        in_prepended_ = false;
        return true;
      }
      if (at_ == segment_.size() || segment_[at_] != c) return false;
      last_ = at_++;
      return true;
    }

   private:
    std::string_view segment_, space_;
    bool in_prepended_;
    std::size_t at_ = 0;        // the segment byte the next byte comes from (past the prepended)
    std::size_t in_space_ = 0;  // bytes of the current replacement passed
    std::size_t last_ = 0;
  };

  // A miss replaces the piece's spaces and merges it past the model's own
  // cache (at most one id per byte of the piece: "▁" is one token).
  struct Encoder {
    static constexpr std::size_t kExtraIds = 0;
    const SentencePieceBpePath& path;
    std::size_t encode_piece(std::string_view piece, std::uint32_t* out) const {
      thread_local std::string normalized;
      const std::string_view space = path.space_;
      normalized.resize(piece.size() * space.size());  // room for a piece of spaces
      char* at = normalized.data();
      for (const char c : piece) {
        if (c == ' ') {
          std::memcpy(at, space.data(), space.size());
          at += space.size();
        } else {
          *at++ = c;
        }
      }
      return path.bpe_.merge_ids({normalized.data(), static_cast<std::size_t>(at - normalized.data())}, out);
    }
  };
  using Pieces = runtime::PieceBatch<Encoder>;

  // Queues the pieces of `text` (spaces not yet replaced): cut before every
  // ' ' that follows a char that is neither ' ' nor "▁" (before a literal
  // "▁" there is no cut: fewer cuts are as exact). With `prepend`, the first
  // piece gets a ' ' in front, standing for the prepended "▁". The cuts of
  // each 64-byte block come from its class masks: a ' ' after a byte that
  // cannot end "▁" is a cut, one after a byte that may (and one at a
  // block's start) is checked by is_cut.
  void add_pieces(std::string_view text, bool prepend, Pieces& pieces) const {
    thread_local std::string first;
    const char* const end = text.data() + text.size();
    pieces.set_readable_end(end);
    std::size_t cur = 0;  // the start of the piece in progress
    if (prepend) {
      std::size_t cut = 1;
      while (cut < text.size() && !(text[cut] == ' ' && is_cut(text, cut))) ++cut;
      add_prepended(text.substr(0, cut), pieces, first, end);
      cur = cut;
    }
    // A replacement ending in a non-ASCII byte ("▁") follows no ASCII byte;
    // one ending in ASCII may follow any.
    const bool space_ends_nonascii = static_cast<unsigned char>(space_.back()) >= 0x80;
    scanners::ForwardBlocks blocks(text);
    for (std::size_t base = cur & ~(simd::kBlockBytes - 1); base < text.size(); base += simd::kBlockBytes) {
      const simd::ByteClassMasks& m = blocks.at(base);
      const std::uint64_t may_end_space = space_ends_nonascii ? m.nonascii : ~m.nonascii;
      const std::uint64_t candidates = m.blank & ~(m.blank << 1) & ~std::uint64_t{base == 0};
      const std::uint64_t unsure = candidates & ((may_end_space << 1) | 1);
      std::uint64_t starts = candidates & ~unsure;
      for (std::uint64_t u = unsure; u != 0; u &= u - 1) {
        if (is_cut(text, base + static_cast<std::size_t>(std::countr_zero(u)))) starts |= u & -u;
      }
      if (cur >= base) starts &= (~std::uint64_t{0} << (cur - base)) << 1;  // cuts after cur only
      pieces.add_starts(text.data(), cur, base, starts);
    }
    pieces.add(text.substr(cur));
  }

  // Queues " " + `piece` (from a buffer that outlives the batch's flush).
  static void add_prepended(std::string_view piece, Pieces& pieces, std::string& buffer,
                            const char* readable_end) {
    buffer.assign(1, ' ');
    buffer.append(piece);
    pieces.set_readable_end(buffer.data() + buffer.size());
    pieces.add(buffer);
    pieces.set_readable_end(readable_end);  // encodes it before `buffer` changes
  }

  // True when the ' ' at text[at] (at > 0) is a cut: neither a space nor a
  // "▁" right before it.
  bool is_cut(std::string_view text, std::size_t at) const noexcept {
    const std::size_t k = space_.size();
    return text[at - 1] != ' ' && (at < k || text.compare(at - k, k, space_) != 0);
  }

  // The normalizers SentencePiece conversions write, before no
  // pre-tokenizer (or one that cuts nothing once every ' ' is replaced:
  // Gemma's Split(" ")):
  //   ..., Prepend(r or " "), Replace(" " -> r)   Llama 2, Phi-3, Helium
  //   ..., Replace(" " -> r), Prepend(r)
  //   ..., Replace(" " -> r)                     Gemma: nothing prepended
  // The steps before them ("...": NFKC, Strip, ...) run as normalizer_.
  bool read_normalizer(const Normalizer* normalizer, const PreTokenizer* pre_tokenizer) {
    if (!cuts_nothing_without_spaces(pre_tokenizer)) return false;
    std::vector<const Normalizer*> steps = flatten_normalizers(normalizer);
    const auto last_is = [&steps]<class T>(const T*& step) {
      step = steps.empty() ? nullptr : dynamic_cast<const T*>(steps.back());
      if (step) steps.pop_back();
      return step != nullptr;
    };
    const PrependNormalizer* prepend = nullptr;
    const ReplaceNormalizer* replace = nullptr;
    const bool prepend_last = last_is(prepend);
    if (!last_is(replace) || replace->literal() != std::string(" ") || replace->content().empty() ||
        replace->content().find(' ') != std::string::npos) {
      return false;
    }
    const std::string& space = replace->content();
    if (prepend_last && prepend->prepend() != space) return false;
    if (!prepend_last && last_is(prepend) && prepend->prepend() != space && prepend->prepend() != " ") {
      steps.push_back(prepend);  // another string: one of the steps before
      prepend = nullptr;
    }
    space_ = space;
    prepend_ = prepend ? PrependScheme::always : PrependScheme::never;
    prepend_unconditionally_ = prepend != nullptr;
    if (!steps.empty()) {
      std::vector<NormalizerPtr> owned;
      // Not owned: the pipeline keeps its normalizer as long as this path.
      for (const Normalizer* step : steps) owned.emplace_back(NormalizerPtr(), step);
      steps_before_ = std::make_unique<SequenceNormalizer>(std::move(owned));
      set_normalizer(steps_before_.get());
    }
    return true;
  }

  // True when `pre_tokenizer` leaves text without ' ' whole: none, or Splits
  // on " " (not inverted) only.
  static bool cuts_nothing_without_spaces(const PreTokenizer* pre_tokenizer) {
    for (const PreTokenizer* step : flatten_pre_tokenizers(pre_tokenizer)) {
      const auto* split = dynamic_cast<const SplitPreTokenizer*>(step);
      if (!split || split->invert() || split->regex().pattern() != " ") return false;
    }
    return true;
  }

  // `normalizer` runs on each segment before the spaces are replaced.
  void set_normalizer(const Normalizer* normalizer) {
    if (!normalizer || normalizer->is_identity()) return;
    profile_ = normalizer->ascii_profile();
    normalizer_ = normalizer;
  }

  // Metaspace(split: false), alone or as a one-step Sequence, after any
  // normalizer: it runs on the whole segment, as in HF (a segment of bytes
  // its ASCII profile maps alone is mapped here instead).
  bool read_metaspace(const Normalizer* normalizer, const PreTokenizer* pre_tokenizer) {
    const std::vector<const PreTokenizer*> steps = flatten_pre_tokenizers(pre_tokenizer);
    const auto* meta = steps.size() == 1 ? dynamic_cast<const MetaspacePreTokenizer*>(steps[0]) : nullptr;
    if (!meta || meta->split()) return false;
    set_normalizer(normalizer);
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

  // Returns where the window from `begin` of `text` (which the normalizer
  // maps byte by byte) ends: the first ' ' at or past begin + kWindowBytes
  // that stays a space and is a cut, else the end of `text`.
  std::size_t window_end(std::string_view text, std::size_t begin) const {
    for (std::size_t at = begin + kWindowBytes; at < text.size(); ++at) {
      at = text.find(' ', at);
      if (at == std::string_view::npos) break;
      if (map(text[at]) == ' ' && map(text[at - 1]) != ' ') return at;
    }
    return text.size();
  }

  const BpeModel& bpe_;
  std::string space_;  // the replacement ("▁")
  PrependScheme prepend_ = PrependScheme::always;
  bool prepend_unconditionally_ = false;  // Prepend normalizer: even before a space
  const Normalizer* normalizer_ = nullptr;  // before the spaces are replaced, when it changes text
  std::optional<AsciiProfile> profile_;     // normalizer_'s
  std::unique_ptr<SequenceNormalizer> steps_before_;  // normalizer_, when read_normalizer made it
};

}  // namespace snaptok
