// Fused ids-only stage for pipelines whose pre-tokenizer first drops the
// whitespace between words, with a normalizer that maps ASCII byte by byte:
//
//   WordPiece and friends: BertNormalizer (or none), BertPreTokenizer
//     "Hello, world!" -> "hello" "," "world" "!"
//   Unigram and friends: Precompiled / Nmt / Lowercase ... (or none), then
//     WhitespaceSplit, optionally followed by Metaspace (prepend "always")
//     "Hello world" -> "▁Hello" "▁world"
//   or Metaspace alone (split, prepend "always"): only ' ' separates, and
//     every space but the one that goes with the next word is a piece
//     "Hello  world " -> "▁Hello" "▁" "▁world" "▁"
//     (SentencePiece conversions' Strip(right) and Replace(" {2,}") make a
//     run one space and drop the last one: "▁Hello" "▁world")
//
// A segment is scanned as words and whitespace runs (SIMD byte classes). A
// word made only of bytes the normalizer maps alone (AsciiProfile) is looked
// up whole in the worker's cache by its raw bytes; a miss maps the bytes and
// runs the rest of the pipeline on the word: the punctuation cuts of
// BertPreTokenizer, the "▁" of Metaspace, then the model. Any other text
// (non-ASCII words, control chars, whitespace the normalizer rewrites) goes
// to the general stages as a span between cuts. A whitespace run is a cut
// when every byte of it is whitespace the normalizer keeps whitespace, and no
// grapheme cluster reaches across it (a Prepend char before it, an Extend,
// ZWJ or SpacingMark char after it): normalizers see no further than that,
// and the pre-tokenizer cuts there too.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "snaptok/detail/grapheme.hpp"
#include "snaptok/detail/inline.hpp"
#include "snaptok/detail/utf8.hpp"
#include "snaptok/fast_paths/fused_encoding.hpp"
#include "snaptok/fast_paths/segment_path.hpp"
#include "snaptok/models/bpe.hpp"
#include "snaptok/models/unigram.hpp"
#include "snaptok/models/wordlevel.hpp"
#include "snaptok/models/wordpiece.hpp"
#include "snaptok/normalizers/normalizer.hpp"
#include "snaptok/normalizers/replace.hpp"
#include "snaptok/normalizers/sequence.hpp"
#include "snaptok/normalizers/strip.hpp"
#include "snaptok/pre_tokenizers/bert.hpp"
#include "snaptok/pre_tokenizers/metaspace.hpp"
#include "snaptok/pre_tokenizers/sequence.hpp"
#include "snaptok/pre_tokenizers/whitespace_split.hpp"
#include "snaptok/runtime/piece_batch.hpp"
#include "snaptok/scanners/block_masks.hpp"
#include "snaptok/scanners/cut_points.hpp"
#include "snaptok/simd/byte_classes.hpp"
#include "snaptok/unicode/properties.hpp"

namespace snaptok {

class WhitespaceWordsPath final : public SegmentPath {
 public:
  /// Returns the path for this normalizer, pre-tokenizer and model, or
  /// nullptr when they are not a configuration it reproduces exactly.
  static std::unique_ptr<WhitespaceWordsPath> make(const Normalizer* normalizer,
                                                   const PreTokenizer* pre_tokenizer,
                                                   const Model& model) {
    if (!deterministic(model)) return nullptr;
    std::unique_ptr<WhitespaceWordsPath> path(new WhitespaceWordsPath(model));
    const std::optional<AsciiProfile> profile = path->read_normalizer(normalizer);
    if (!profile) return nullptr;
    if (dynamic_cast<const BertPreTokenizer*>(pre_tokenizer)) {
      path->split_punctuation_ = true;
    } else if (!path->read_whitespace_split(pre_tokenizer) && !path->read_metaspace(pre_tokenizer)) {
      return nullptr;
    }
    for (unsigned b = 0; b < 128; ++b) {
      if (!profile->safe[b]) continue;
      const std::uint8_t to = profile->map[b];
      path->map_[b] = static_cast<char>(to);
      if (path->space_pieces_ ? to == ' ' : unicode::is_whitespace(to)) {
        path->kind_[b] = kSeparator;
      } else if (to > 0x20 && to < 0x7F &&
                 (!path->split_punctuation_ || is_alnum(static_cast<char>(to)) ||
                  unicode::bert_is_punctuation(to))) {
        path->kind_[b] = kWordByte;
      }
    }
    // The run rules are read for Metaspace alone, whose replacement a
    // collapsed run may be.
    if ((path->collapse_runs_ || path->strip_right_) && !path->space_pieces_) return nullptr;
    if (path->collapse_runs_ && path->collapse_to_ != " " && path->collapse_to_ != path->prefix_) {
      return nullptr;
    }
    path->read_token_rules();
    path->printable_fast_ = true;
    for (unsigned b = 0x21; b < 0x7F; ++b) path->printable_fast_ &= path->kind_[b] == kWordByte;
    path->ascii_classes_fast_ = true;
    for (unsigned b = 0; b < 128; ++b) {
      if (is_alnum(static_cast<char>(b)) || b == '\'') path->ascii_classes_fast_ &= path->kind_[b] == kWordByte;
    }
    return path;
  }

  std::string_view name() const noexcept override { return "whitespace words"; }

  // The text between two cuts is encoded alone (and a segment's start
  // matters to no configuration the path takes): see cuts_at_cut_points.
  void encode(std::string_view segment, SegmentStart, std::vector<std::uint32_t>& ids,
              runtime::PieceCache* cache, General general) const override {
    runtime::PieceBatch<WhitespaceWordsPath> words(*this, ids, cache,
                                                   segment.data() + segment.size());
    scan(segment, words, [&](std::string_view span) {
      words.finish();  // the ids so far, then the span's
      general(span, ids);
    });
    words.finish();
  }

  // The pieces the scan settles are tiled by their ids' tokens (each a
  // split, or with BertPreTokenizer each run of letters and digits and each
  // other char of one); the spans it leaves go to `span_tokens`.
  bool encode_tokens(std::string_view segment, SegmentStart, runtime::PieceCache* cache,
                     std::vector<std::uint32_t>& ids, SpanTokens span_tokens,
                     EncodingBuilder& out) const override {
    if (!tokens_tile_) return false;
    TileScratch scratch;
    ids.clear();
    {
      runtime::PieceBatch<WhitespaceWordsPath> batch(*this, ids, cache, segment.data() + segment.size());
      PieceRecorder words{batch, scratch.pieces};
      scan(segment, words, [&](std::string_view span) { scratch.pieces.push_back({span, true}); });
      batch.finish();
    }
    out.reserve_more(ids.size());
    std::size_t next = 0;  // the first id not yet placed
    for (const Piece& piece : scratch.pieces) {
      if (!piece.span) {
        if (!tile_piece(segment, piece.text, ids, next, scratch, out)) return false;
        continue;
      }
      // A span that starts the segment is left whole to the general
      // stages: a char the normalizer removes at a text's start shifts
      // HF's alignments of all that follows (T5's Precompiled on "\x01a (":
      // "▁(" at chars 2-3).
      if (!spans_tile_ || piece.text.data() == segment.data()) return false;
      // The separator before a span (the last of a cut's run) goes with it:
      // the ids are the same, and so are the offsets of the whole (with
      // Metaspace alone it is the "▁" of the span's first piece; a char the
      // normalizer removes at the span's start is aligned to it, as in the
      // whole, not to the char after).
      if (!span_tokens(std::string_view(piece.text.data() - 1, piece.text.size() + 1), out)) return false;
    }
    return next == ids.size();
  }

  // When ' ' is a separator and every ASCII letter a word byte, the ' ' of
  // a cut point ("word| word") is a cut of the whole segment
  // (single_space_cuts), and at the start of the part from it (is_cut):
  // either way the ' ' yields no piece of its own and the word after it is
  // encoded alone.
  bool cuts_at_cut_points() const noexcept override {
    if (kind_[' '] != kSeparator) return false;
    for (unsigned c = 'A'; c <= 'z'; ++c) {
      if (scanners::is_ascii_letter(static_cast<char>(c)) && kind_[c] != kWordByte) return false;
    }
    return true;
  }

  /// PieceBatch's encoder: the ids of a fast word (at most one per byte,
  /// and the replacement's).
  static constexpr std::size_t kExtraIds = 4;
  std::size_t encode_piece(std::string_view word, std::uint32_t* out) const {
    thread_local std::string normalized;
    std::size_t count = 0;
    for_each_split(word, normalized, [&](std::string_view split, std::size_t, std::size_t) {
      count += model_ids(model_, split, out + count);
      return true;
    });
    return count;
  }

 private:
  // A piece the scan settles, or a span it leaves to the general stages.
  struct Piece {
    std::string_view text;
    bool span;
  };
  // encode_tokens' buffers.
  struct TileScratch {
    std::vector<Piece> pieces;     // the scan's, in order
    std::string normalized;        // a piece's normalized text
    std::vector<RawToken> tokens;  // a split's tokens
  };
  // The scan's words for encode_tokens: queued for their ids and recorded.
  struct PieceRecorder {
    runtime::PieceBatch<WhitespaceWordsPath>& batch;
    std::vector<Piece>& pieces;
    void add(std::string_view piece) {
      batch.add(piece);
      pieces.push_back({piece, false});
    }
  };

  // Adds the pieces of `segment` to `words` (add(view)) and hands the
  // spans between cuts that it does not settle to `span(view)`, in order.
  template <class Words, class Span>
  void scan(std::string_view segment, Words& words, Span&& span) const {
    constexpr unsigned kNotSpace = scanners::kBytesAscii & ~scanners::kBytesSpace;
    scanners::BlockMasks masks(segment);
    const std::size_t n = segment.size();
    std::size_t open = 0;  // start of the text not yet encoded (after the last cut)
    CleanBlocks seen;
    for (std::size_t i = 0; i < n;) {
      if (open == i) {
        // The words that lie in clean blocks, by the blocks' masks.
        i = add_clean_words(segment, i, masks, seen, words);
        open = i;
      }
      const std::size_t word_end = masks.run_end<kNotSpace | scanners::kBytesNonascii>(i);
      // The common case first: one ' ' between two ASCII words.
      const bool one_space = word_end > 0 && word_end + 1 < n && segment[word_end] == ' ' &&
                             kind_[static_cast<unsigned char>(segment[word_end + 1])] == kWordByte;
      const std::size_t run_end =
          one_space ? word_end + 1 : masks.run_end<scanners::kBytesSpace>(word_end);
      if (one_space ? single_space_cuts(segment, word_end) : is_cut(segment, word_end, run_end)) {
        if (open == i && word_end > i &&
            is_fast_word(segment.substr(i, word_end - i), segment.data() + n)) {
          words.add(segment.substr(i, word_end - i));
        } else if (open < word_end) {
          span(segment.substr(open, word_end - open));
        }
        open = run_end;
        if (space_pieces_ && run_end > word_end) {
          // Each separator byte is one space (a collapsed run: one in all);
          // the last goes with the next word, at the end it is stripped or
          // alone.
          const std::size_t spaces = collapse_runs_ ? 1 : run_end - word_end;
          const std::size_t alone = run_end < n ? spaces - 1 : strip_right_ ? 0 : spaces;
          // (A collapsed run's space is its last, to which it is aligned.)
          const std::size_t first = collapse_runs_ ? run_end - alone : word_end;
          for (std::size_t k = 0; k < alone; ++k) words.add(segment.substr(first + k, 1));
        }
      }
      i = run_end;
    }
    if (open < n) span(segment.substr(open));  // a last run that is no cut
  }

  // Pushes the tokens of a piece the scan settled (a view into `segment`),
  // from ids[next] on: its normalized text is the Metaspace replacement in
  // front, then each byte mapped (tile_split). Returns false when the
  // tokens do not tile it.
  bool tile_piece(std::string_view segment, std::string_view piece, const std::vector<std::uint32_t>& ids,
                  std::size_t& next, TileScratch& scratch, EncodingBuilder& out) const {
    const std::size_t at = out.offset_of(piece);
    // The input byte the replacement comes from: a space that is a piece
    // itself, the space before the word (Metaspace alone; a run collapsed
    // to one space is aligned to its last), else the word's first char
    // (prepended).
    const bool separator = kind_[static_cast<unsigned char>(piece[0])] == kSeparator;
    const std::size_t prefix_source =
        separator || (space_pieces_ && piece.data() > segment.data()) ? at - !separator : at;
    return for_each_split(piece, scratch.normalized, [&](std::string_view split, std::size_t prefix, std::size_t first) {
      return tile_split(split, prefix, prefix_source, at + first, ids, next, scratch.tokens, out);
    });
  }

  // Calls fn(split, prefix, first) for each split of a piece the scan
  // settles (a fast word, or a separator alone), in order, while it returns
  // true: `split` is the split's normalized text (in `normalized`),
  // beginning with `prefix` bytes of the Metaspace replacement, and its
  // byte after them comes from byte `first` of the piece. A piece is one
  // split, but with BertPreTokenizer (no replacement): every ASCII char
  // that is not a letter or digit is punctuation, a split of its own.
  template <class Fn>
  bool for_each_split(std::string_view piece, std::string& normalized, Fn&& fn) const {
    normalized.assign(prefix_);
    if (kind_[static_cast<unsigned char>(piece[0])] == kSeparator) {
      return fn(std::string_view(normalized), prefix_.size(), std::size_t{0});
    }
    for (const char c : piece) normalized += map_[static_cast<unsigned char>(c)];
    if (!split_punctuation_) return fn(std::string_view(normalized), prefix_.size(), std::size_t{0});
    const std::string_view s = normalized;
    for (std::size_t i = 0; i < s.size();) {
      std::size_t j = i + 1;
      if (is_alnum(s[i])) {
        while (j < s.size() && is_alnum(s[j])) ++j;
      }
      if (!fn(s.substr(i, j - i), std::size_t{0}, i)) return false;
      i = j;
    }
    return true;
  }

  // Pushes the tokens of one split whose normalized text is `split`, from
  // ids[next] on: its first `prefix` bytes come from input byte
  // `prefix_source`, the others one for one from `source` on. Tiled by the
  // tokens' text, else (an unknown run of Unigram, say) by the model's own
  // tokens when they are those ids. `tokens` is scratch.
  bool tile_split(std::string_view split, std::size_t prefix, std::size_t prefix_source, std::size_t source,
                  const std::vector<std::uint32_t>& ids, std::size_t& next, std::vector<RawToken>& tokens,
                  EncodingBuilder& out) const {
    tokens.clear();
    if (!tile_by_text(split, ids, next, tokens)) {
      tokens.clear();
      model_.tokenize_uncached(split, tokens);
      if (tokens.empty() || tokens.size() > ids.size() - next) return false;
      for (std::size_t k = 0; k < tokens.size(); ++k) {
        if (tokens[k].id != ids[next + k]) return false;
      }
    }
    next += tokens.size();
    auto source_of = [&](std::size_t k) { return k < prefix ? prefix_source : source + (k - prefix); };
    for (const RawToken& t : tokens) {
      if (t.end <= t.start || t.end > split.size()) return false;
      const std::string_view value =
          t.text_value ? split.substr(t.start, t.end - t.start) : model_.id_to_token(t.id).value_or(std::string_view());
      out.push(t.id, value, source_of(t.start), source_of(t.end - 1) + 1);
    }
    out.next_split();
    return true;
  }

  // Sets `tokens` to the tokens of ids[next] on that tile `split` by their
  // text (a WordPiece token after the first without its prefix; a split's
  // only token may be the unknown token of WordPiece or WordLevel, which
  // covers it) and returns true, or returns false.
  bool tile_by_text(std::string_view split, const std::vector<std::uint32_t>& ids, std::size_t next,
                    std::vector<RawToken>& tokens) const {
    for (std::size_t pos = 0; pos < split.size();) {
      if (next == ids.size()) return false;
      const std::uint32_t id = ids[next++];
      std::string_view text = model_.id_to_token(id).value_or(std::string_view());
      if (pos > 0 && wordpiece_prefix_) {
        if (!text.starts_with(*wordpiece_prefix_)) return false;
        text.remove_prefix(wordpiece_prefix_->size());
      }
      std::size_t len = text.size();
      if (len == 0 || split.compare(pos, len, text) != 0) {
        if (pos > 0 || id != unk_id_) return false;
        len = split.size();
      }
      tokens.push_back({id, static_cast<std::uint32_t>(pos), static_cast<std::uint32_t>(pos + len)});
      pos += len;
    }
    return true;
  }


  enum Kind : std::uint8_t { kOther, kWordByte, kSeparator };

  explicit WhitespaceWordsPath(const Model& model) : model_(model) { kind_.fill(kOther); }

  static bool deterministic(const Model& model) {
    if (const auto* bpe = dynamic_cast<const BpeModel*>(&model)) return bpe->deterministic();
    return dynamic_cast<const WordPieceModel*>(&model) || dynamic_cast<const UnigramModel*>(&model) ||
           dynamic_cast<const WordLevelModel*>(&model);
  }

  // What tile_piece needs of the model: WordPiece's prefix, the unknown
  // token that covers a whole split (WordPiece, WordLevel), and whether a
  // non-empty split always has a token (spans are then encoded apart).
  void read_token_rules() {
    if (const auto* wordpiece = dynamic_cast<const WordPieceModel*>(&model_)) {
      if (!wordpiece->continuing_subword_prefix().empty()) wordpiece_prefix_ = wordpiece->continuing_subword_prefix();
      unk_id_ = model_.token_to_id(wordpiece->unk_token()).value_or(kNoId);
    } else if (const auto* wordlevel = dynamic_cast<const WordLevelModel*>(&model_)) {
      unk_id_ = model_.token_to_id(wordlevel->unk_token()).value_or(kNoId);
    }
    spans_tile_ = !dynamic_cast<const BpeModel*>(&model_);
    // (Unigram's byte-fallback tokens, each over a whole unknown run, are
    // left to the general stages: their offsets differed from HF's.)
    const auto* unigram = dynamic_cast<const UnigramModel*>(&model_);
    tokens_tile_ = !(unigram && unigram->byte_fallback());
  }

  // WhitespaceSplit, alone or followed by Metaspace (prepend "always" or
  // "never"; its replacement not ASCII, so a word holds none).
  bool read_whitespace_split(const PreTokenizer* pre_tokenizer) {
    const std::vector<const PreTokenizer*> steps = flatten_pre_tokenizers(pre_tokenizer);
    if (steps.empty() || steps.size() > 2 || !dynamic_cast<const WhitespaceSplitPreTokenizer*>(steps[0])) {
      return false;
    }
    if (steps.size() == 2) {
      const auto* meta = dynamic_cast<const MetaspacePreTokenizer*>(steps[1]);
      if (!meta || meta->replacement() < 0x80 || meta->prepend_scheme() == PrependScheme::first) {
        return false;
      }
      if (meta->prepend_scheme() == PrependScheme::always) detail::append_cp(prefix_, meta->replacement());
    }
    return true;
  }

  // Returns the ASCII profile of `normalizer`, with the tail that
  // SentencePiece conversions add (Strip(right), then Replace(Regex " {2,}")
  // by " " or by "▁") read as run rules, or nullopt.
  std::optional<AsciiProfile> read_normalizer(const Normalizer* normalizer) {
    std::vector<const Normalizer*> steps = flatten_normalizers(normalizer);
    if (!steps.empty()) {
      const auto* replace = dynamic_cast<const ReplaceNormalizer*>(steps.back());
      if (replace && !replace->literal() && replace->regex().pattern() == " {2,}" &&
          (replace->content() == " " || replace->content() == "\u2581")) {
        collapse_runs_ = true;
        collapse_to_ = replace->content();
        steps.pop_back();
      }
    }
    if (!steps.empty()) {
      const auto* strip = dynamic_cast<const StripNormalizer*>(steps.back());
      if (strip && strip->strips_right() && !strip->strips_left()) {
        strip_right_ = true;
        steps.pop_back();
      }
    }
    AsciiProfile profile = AsciiProfile::identity();
    for (const Normalizer* step : steps) {
      const std::optional<AsciiProfile> next = step->ascii_profile();
      if (!next) return std::nullopt;
      profile = profile.then(*next);
    }
    return profile;
  }

  // Metaspace alone (split, prepend "always", a replacement that is not
  // ASCII): only ' ' is a separator, and each space but the one that goes
  // with the next word is a "▁" piece of its own.
  bool read_metaspace(const PreTokenizer* pre_tokenizer) {
    const std::vector<const PreTokenizer*> steps = flatten_pre_tokenizers(pre_tokenizer);
    const auto* meta = steps.size() == 1 ? dynamic_cast<const MetaspacePreTokenizer*>(steps[0]) : nullptr;
    if (!meta || !meta->split() || meta->replacement() < 0x80 ||
        meta->prepend_scheme() != PrependScheme::always) {
      return false;
    }
    detail::append_cp(prefix_, meta->replacement());
    space_pieces_ = true;
    return true;
  }

  // What add_clean_words knows of the blocks it has looked at.
  struct CleanBlocks {
    std::size_t clean = static_cast<std::size_t>(-1);    // the last block found clean
    std::size_t unclean = static_cast<std::size_t>(-1);  // the last block found not clean
  };

  // Adds the words from i, a word start, while they lie in clean blocks: 64
  // ASCII bytes, each a word byte or a separator. Every whitespace run
  // between two words there is a cut (is_cut's conditions all look at the
  // bytes around the run, which are ASCII word bytes there), and every word
  // is fast. Returns the start of the first word it leaves to encode's loop:
  // one that reaches a block that is not clean (or the text's last 64
  // bytes), or whose run of separators does.
  template <class Words>
  std::size_t add_clean_words(std::string_view s, std::size_t i, scanners::BlockMasks& masks,
                              CleanBlocks& seen, Words& words) const {
    for (;;) {
      // The words inside i's block, by its masks alone.
      std::size_t base;
      const simd::ByteClassMasks& m = masks.block_of(i, base);
      if (!is_clean(s, base, m, seen)) return i;
      const std::uint64_t separators = m.space;
      const std::uint64_t word_bytes = ~m.space;
      const std::size_t at = i - base;
      if (((word_bytes >> at) & 1) == 0) return i;
      // Word starts and ends (the separator after a word's last byte) from
      // i on, taken in turn: independent bit scans, no chain through them.
      const std::uint64_t from = ~std::uint64_t{0} << at;
      std::uint64_t starts = ((word_bytes & ~(word_bytes << 1)) & from) | (std::uint64_t{1} << at);
      std::uint64_t ends = separators & (word_bytes << 1) & from;
      std::size_t begin;
      for (;;) {
        begin = static_cast<std::size_t>(std::countr_zero(starts));
        starts &= starts - 1;
        if (ends == 0 || starts == 0) break;  // the word, or its run, reaches the block's end
        const auto end = static_cast<std::size_t>(std::countr_zero(ends));
        ends &= ends - 1;
        add_word(s, base + begin, base + end, base + static_cast<std::size_t>(std::countr_zero(starts)), words);
      }
      // A word, or its run of separators, that goes on into the next block.
      i = base + begin;
      std::size_t word_end, next;
      if (!clean_run_end(s, i, /*separators=*/false, masks, seen, word_end) ||
          !clean_run_end(s, word_end, /*separators=*/true, masks, seen, next)) {
        return i;
      }
      add_word(s, i, word_end, next, words);
      i = next;
    }
  }

  // Adds the word [begin, end) of a clean block and the pieces of the run
  // of separators after it, up to the next word at `next` (as encode's loop
  // does: with Metaspace alone, every separator but the one that goes with
  // the next word is a piece of its own).
  template <class Words>
  SNAPTOK_ALWAYS_INLINE void add_word(std::string_view s, std::size_t begin, std::size_t end, std::size_t next,
                                      Words& words) const {
    words.add(s.substr(begin, end - begin));
    if (space_pieces_) {
      const std::size_t alone = collapse_runs_ ? 0 : next - end - 1;
      for (std::size_t k = 0; k < alone; ++k) words.add(s.substr(end + k, 1));
    }
  }

  // True when the block at `base` (masks `m`) is clean and holds 64 bytes
  // of `s`; remembers the answer in `seen`.
  bool is_clean(std::string_view s, std::size_t base, const simd::ByteClassMasks& m,
                CleanBlocks& seen) const noexcept {
    if (base == seen.clean) return true;
    if (base == seen.unclean || base + simd::kBlockBytes > s.size() || !is_clean_block(s, base, m)) {
      seen.unclean = base;
      return false;
    }
    seen.clean = base;
    return true;
  }

  // Sets `end` to the end of the run of word bytes (or of separators) from
  // i, and returns true, when the run is not empty and it and the byte that
  // ends it lie in clean blocks; else returns false.
  bool clean_run_end(std::string_view s, std::size_t i, bool separators, scanners::BlockMasks& masks,
                     CleanBlocks& seen, std::size_t& end) const noexcept {
    const std::size_t start = i;
    for (;;) {
      std::size_t base;
      const simd::ByteClassMasks& m = masks.block_of(i, base);
      if (!is_clean(s, base, m, seen)) return false;
      const std::uint64_t run = (separators ? m.space : ~m.space) >> (i - base);
      const auto len = static_cast<std::size_t>(std::countr_zero(~run));
      if (i - base + len < simd::kBlockBytes) {
        end = i + len;
        return end > start;
      }
      i = base + simd::kBlockBytes;
      if (i >= s.size()) return false;
    }
  }

  // True when the 64 bytes at `base` (masks `m`) are all ASCII, each a word
  // byte or a separator.
  bool is_clean_block(std::string_view s, std::size_t base, const simd::ByteClassMasks& m) const noexcept {
    if (m.nonascii != 0 || !ascii_classes_fast_ || (m.blank != 0 && kind_[' '] != kSeparator)) return false;
    for (std::uint64_t b = m.space & ~m.blank; b != 0; b &= b - 1) {
      if (kind_[static_cast<unsigned char>(s[base + static_cast<std::size_t>(std::countr_zero(b))])] != kSeparator) {
        return false;
      }
    }
    for (std::uint64_t b = m.other; b != 0; b &= b - 1) {
      if (kind_[static_cast<unsigned char>(s[base + static_cast<std::size_t>(std::countr_zero(b))])] != kWordByte) {
        return false;
      }
    }
    return true;
  }

  static bool is_alnum(char c) noexcept {
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
  }

  // True when every byte of `word` is a word byte; `readable_end` bounds
  // the buffer it lies in (a short word is tested 16 bytes at a time).
  bool is_fast_word(std::string_view word, const char* readable_end) const noexcept {
    using simd::detail::kHigh;
    const std::size_t n = word.size();
    if (printable_fast_ && n <= 16 && readable_end - word.data() >= 16) {
      const std::uint64_t lo = simd::detail::load_le64(word.data());
      const std::uint64_t hi = simd::detail::load_le64(word.data() + 8);
      // Bytes at or past n pass.
      const std::uint64_t pad_lo = n >= 8 ? 0 : kHigh << (8 * n);
      const std::uint64_t pad_hi = n >= 16 ? 0 : n <= 8 ? kHigh : kHigh << (8 * (n - 8));
      return ((simd::detail::swar_in(lo, 0x21, 0x7E) | pad_lo) &
              (simd::detail::swar_in(hi, 0x21, 0x7E) | pad_hi)) == kHigh;
    }
    bool fast = true;
    for (const char c : word) fast &= kind_[static_cast<unsigned char>(c)] == kWordByte;
    return fast;
  }

  // is_cut for the run of one ' ' at s[at], between a char and a word byte.
  SNAPTOK_ALWAYS_INLINE bool single_space_cuts(std::string_view s, std::size_t at) const noexcept {
    const auto before = static_cast<unsigned char>(s[at - 1]);
    if (before >= 0x80) return is_cut(s, at, at + 1);  // a Prepend char joins the space
    if (kind_[' '] != kSeparator) return false;
    return !(collapse_runs_ || strip_right_) || kind_[before] == kWordByte;
  }

  // True when the whitespace run [begin, end) of `s` is a cut (an empty run
  // only at the end of `s`, which always is one).
  bool is_cut(std::string_view s, std::size_t begin, std::size_t end) const noexcept {
    if (begin == end) return true;
    for (std::size_t i = begin; i < end; ++i) {
      if (kind_[static_cast<unsigned char>(s[i])] != kSeparator) return false;
    }
    if (begin > 0 && static_cast<unsigned char>(s[begin - 1]) >= 0x80) {
      std::size_t at = begin;
      detail::prev_cp(s, at);
      if (gcb(detail::next_cp(s, at)) == detail::Gcb::prepend) return false;
    }
    // Metaspace alone: the run's last space goes with the next word only
    // when that word's normalized text starts with no "▁" of its own.
    if (space_pieces_ && end < s.size() && kind_[static_cast<unsigned char>(s[end])] != kWordByte) {
      return false;
    }
    // Collapsing and stripping see the normalized run whole only when the
    // chars around it normalize to no whitespace.
    if ((collapse_runs_ || strip_right_) && begin > 0 &&
        kind_[static_cast<unsigned char>(s[begin - 1])] != kWordByte) {
      return false;
    }
    if (end < s.size() && static_cast<unsigned char>(s[end]) >= 0x80) {
      std::size_t at = end;
      const detail::Gcb g = gcb(detail::next_cp(s, at));
      if (g == detail::Gcb::extend || g == detail::Gcb::zwj || g == detail::Gcb::spacing_mark) {
        return false;
      }
    }
    return true;
  }

  static detail::Gcb gcb(char32_t cp) noexcept {
    return static_cast<detail::Gcb>(detail::grapheme_flags(cp) & 0x0F);
  }

  const Model& model_;
  std::array<Kind, 256> kind_{};  // what each byte is to a word (non-ASCII: kOther)
  std::array<char, 128> map_{};   // the normalizer's map of each safe byte
  std::string prefix_;            // Metaspace's replacement before every word
  bool split_punctuation_ = false;  // BertPreTokenizer
  bool space_pieces_ = false;       // Metaspace alone: spaces are pieces too
  bool collapse_runs_ = false;      // the normalizer makes a run of 2+ spaces one
  std::string collapse_to_;         // ... this one (" " or the replacement)
  bool strip_right_ = false;        // the normalizer strips whitespace at the end
  bool printable_fast_ = false;     // every byte 0x21-0x7E is a word byte
  bool ascii_classes_fast_ = false;  // every ASCII letter and digit, and ', is a word byte
  static constexpr std::uint32_t kNoId = 0xFFFFFFFFu;
  std::optional<std::string> wordpiece_prefix_;  // WordPiece's continuing_subword_prefix
  std::uint32_t unk_id_ = kNoId;                 // an unknown token that covers a split
  bool spans_tile_ = false;  // the model gives every non-empty split a token (not BPE)
  bool tokens_tile_ = false;  // encode_tokens may run (not Unigram with byte fallback)
};

}  // namespace snaptok
