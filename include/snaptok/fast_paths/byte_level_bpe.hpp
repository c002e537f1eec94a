// Fused ids-only model stage for byte-level BPE tokenizers (GPT-2, Llama 3,
// Qwen, DeepSeek, StarCoder2, Falcon, ...): pre-tokenizer = [Split(regex)...]
// then ByteLevel, then more cuts (Falcon's Digits and Split), where any of
// the Splits may be another pre-tokenizer that only cuts (Digits,
// Punctuation, Whitespace, WhitespaceSplit, CharDelimiterSplit:
// CuttingPreTokenizer), model = BPE whose vocabulary holds all 256
// byte-level chars. Pieces are
// cut as views of the text (no NormalizedString, no alignments) by the
// patterns' scanners, looked up in the worker's piece cache, and merged from
// raw bytes on a miss, skipping the byte -> char rewrite. Selected at load
// time by make(); it must give the same ids as the general path on every
// input, and the tests check that it does.
#pragma once

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "snaptok/detail/byte_level_table.hpp"
#include "snaptok/detail/inline.hpp"
#include "snaptok/detail/utf8.hpp"
#include "snaptok/models/bpe.hpp"
#include "snaptok/pre_tokenizers/byte_level.hpp"
#include "snaptok/pre_tokenizers/char_cut.hpp"
#include "snaptok/pre_tokenizers/cuts.hpp"
#include "snaptok/pre_tokenizers/sequence.hpp"
#include "snaptok/pre_tokenizers/split.hpp"
#include "snaptok/runtime/piece_batch.hpp"
#include "snaptok/runtime/piece_cache.hpp"
#include "snaptok/scanners/char_class.hpp"
#include "snaptok/scanners/cut_points.hpp"
#include "snaptok/scanners/deepseek.hpp"

namespace snaptok {

class ByteLevelBpePath {
 public:
  /// Returns the fused path for this pre-tokenizer and model, or nullptr
  /// when their configuration is not one it reproduces exactly.
  static std::unique_ptr<ByteLevelBpePath> make(const PreTokenizer* pre_tokenizer,
                                                const Model& model) {
    const auto* bpe = dynamic_cast<const BpeModel*>(&model);
    if (!bpe || !bpe->byte_level_ready() || !pre_tokenizer) return nullptr;
    auto path = std::unique_ptr<ByteLevelBpePath>(new ByteLevelBpePath(*bpe));
    const std::vector<const PreTokenizer*> steps = flatten_pre_tokenizers(pre_tokenizer);
    const auto level = std::find_if(steps.begin(), steps.end(), [](const PreTokenizer* step) {
      return dynamic_cast<const ByteLevelPreTokenizer*>(step) != nullptr;
    });
    if (level == steps.end()) return nullptr;
    for (auto after = level + 1; after != steps.end(); ++after) {
      const auto* cutting = dynamic_cast<const CuttingPreTokenizer*>(*after);
      if (!cutting) return nullptr;
      path->after_.push_back(cutting);
    }
    const auto* byte_level = static_cast<const ByteLevelPreTokenizer*>(*level);
    path->byte_level_ = byte_level;
    path->plain_byte_level_ =
        !byte_level->add_prefix_space() && !byte_level->use_regex() && path->after_.empty();
    bool scanners_only = path->after_.empty();  // a cut after ByteLevel proves nothing either
    bool cuts = byte_level->use_regex();  // the GPT-2 pattern
    std::vector<scanners::ScannerKind> kinds;
    for (std::size_t i = 0; steps.begin() + i != level; ++i) {
      const auto* cutting = dynamic_cast<const CuttingPreTokenizer*>(steps[i]);
      if (!cutting) return nullptr;
      path->stages_.push_back(cutting);
      const auto* split = cutting->cut_kind() == CuttingPreTokenizer::CutKind::split
                              ? static_cast<const SplitPreTokenizer*>(cutting)
                              : nullptr;
      path->splits_.push_back(split);
      if (!split) {  // cuts what no scanner proves about cut points
        scanners_only = false;
        kinds.push_back(scanners::ScannerKind::kNone);
        continue;
      }
      const scanners::ScannerKind kind = split->regex().scanner();
      kinds.push_back(kind);
      scanners_only = scanners_only && split->behavior() == SplitBehavior::isolated &&
                      !split->invert() && kind != scanners::ScannerKind::kNone;
      cuts = cuts || scanners::cuts_at_cut_points(kind);
    }
    path->cut_points_exact_ = scanners_only && cuts;
    const std::vector<scanners::ScannerKind> deepseek = {scanners::ScannerKind::kDeepSeekDigits,
                                                         scanners::ScannerKind::kDeepSeekCjk,
                                                         scanners::ScannerKind::kDeepSeek};
    path->deepseek_chain_ = scanners_only && path->plain_byte_level_ && kinds == deepseek;
    if (path->stages_.size() == 1 && byte_level->use_regex() && !byte_level->add_prefix_space() &&
        path->stages_[0]->cut_kind() == CuttingPreTokenizer::CutKind::chars) {
      const auto* chars = static_cast<const CharCutPreTokenizer*>(path->stages_[0]);
      const SplitBehavior behavior = chars->cut_behavior();
      if (chars->members() == CharCutPreTokenizer::Members::punctuation &&
          (behavior == SplitBehavior::isolated || behavior == SplitBehavior::contiguous)) {
        path->punctuation_first_ = chars;
      }
    }
    return path;
  }

  /// True when the pre-tokenizer cuts every text at every cut point
  /// (scanners/cut_points.hpp) into the pieces of the parts on each side:
  /// every stage is a Split (Isolated, not inverted) on a hand-written
  /// scanner's pattern, or ByteLevel's own GPT-2 regex, and one of them
  /// cuts at every cut point.
  bool cut_points_exact() const noexcept { return cut_points_exact_; }

  /// The model whose ids the path gives.
  const BpeModel& model() const noexcept { return bpe_; }

  /// The owner key of the worker's piece cache for this path: the model's
  /// (a piece merges the same in any pipeline), or the path's own when
  /// stages follow ByteLevel (a piece's ids then depend on them too).
  std::uint64_t cache_owner() const noexcept { return after_.empty() ? bpe_.uid() : own_cache_owner_; }

  /// Appends the model ids of one untokenized split's text. `cache` is the
  /// worker's cache for this model, or nullptr for none.
  void encode(std::string_view text, std::vector<std::uint32_t>& ids,
              runtime::PieceCache* cache) const {
    if (!bpe_.deterministic()) cache = nullptr;
    const Merger merger(*this, cache);
    Pieces out(merger, ids, cache, text.data() + text.size());
    scan(text, out);
    out.finish();
  }

  /// True when the pieces encode() merges are views of its text: ByteLevel
  /// adds no space and no stage follows it (for_each_piece).
  bool pieces_are_views() const noexcept { return !byte_level_->add_prefix_space() && after_.empty(); }

  /// Calls give(piece) for each piece of `text` that encode() merges, in
  /// order: the splits of HF's pre-tokenizer, as views of `text`. Requires
  /// pieces_are_views().
  template <class Give>
  void for_each_piece(std::string_view text, Give&& give) const {
    PieceSink<Give> sink{give};
    scan(text, sink);
  }

 private:
  explicit ByteLevelBpePath(const BpeModel& bpe) : bpe_(bpe) {}

  // The cutting stages after ByteLevel, run on pieces of raw bytes: they
  // cut a piece's byte-level text, one char per byte, so a cut after char
  // k is a cut after byte k, and the parts go to the model as raw bytes.
  // The scratch serves the pieces of one encode() call.
  class CutsAfter {
   public:
    explicit CutsAfter(const std::vector<const CuttingPreTokenizer*>& stages) : stages_(stages) {}

    bool empty() const noexcept { return stages_.empty(); }

    // Calls give(part) for each non-empty part of `piece`, in order.
    template <class Give>
    void cut(std::string_view piece, Give&& give) {
      if (piece.empty()) return;
      const detail::ByteLevelTable& table = detail::byte_level_table();
      mapped_.clear();
      byte_at_.resize(2 * piece.size() + 1);  // a char is at most 2 bytes (below U+0800)
      for (std::size_t k = 0; k < piece.size(); ++k) {
        byte_at_[mapped_.size()] = static_cast<std::uint32_t>(k);
        mapped_ += table.byte_to_utf8[static_cast<unsigned char>(piece[k])];
      }
      byte_at_[mapped_.size()] = static_cast<std::uint32_t>(piece.size());
      run(0, 0, mapped_.size(), piece, give);
    }

   private:
    // Cuts mapped_[begin, end) with stage `stage` (past the last: gives it).
    template <class Give>
    void run(std::size_t stage, std::size_t begin, std::size_t end, std::string_view piece, Give& give) {
      if (begin == end) return;
      if (stage == stages_.size()) {
        give(piece.substr(byte_at_[begin], byte_at_[end] - byte_at_[begin]));
        return;
      }
      for_each_cut(*stages_[stage], std::string_view(mapped_).substr(begin, end - begin),
                   [&](std::size_t s, std::size_t e) { run(stage + 1, begin + s, begin + e, piece, give); });
    }

    const std::vector<const CuttingPreTokenizer*>& stages_;
    std::string mapped_;                  // the piece's byte-level text
    std::vector<std::uint32_t> byte_at_;  // byte of the piece where each char of mapped_ starts
  };

  // Misses merge from the raw bytes (at most one id per byte). A long
  // piece merges in chunks, each looked up in the cache first: Japanese or
  // Chinese pieces run for a whole sentence and seldom repeat, but their
  // chunks of a char or two do. With stages after ByteLevel, a miss cuts
  // the piece by them first (CutsAfter) and merges each part, so a cached
  // piece skips them too.
  struct Merger {
    static constexpr std::size_t kExtraIds = 0;
    Merger(const ByteLevelBpePath& path, runtime::PieceCache* cache)
        : bpe(path.bpe_), cache(cache), cuts_after(path.after_) {}

    const BpeModel& bpe;
    runtime::PieceCache* cache;  // the worker's, or nullptr
    mutable CutsAfter cuts_after;

    std::size_t encode_piece(std::string_view piece, std::uint32_t* out) const {
      if (cuts_after.empty()) return merge(piece, out);
      std::size_t written = 0;
      cuts_after.cut(piece, [&](std::string_view part) { written += merge(part, out + written); });
      return written;
    }
    std::size_t merge(std::string_view piece, std::uint32_t* out) const {
      if (!cache) return bpe.merge_raw(piece, out);
      return bpe.merge_raw(piece, out, [this](std::string_view chunk, std::uint32_t* at) {
        return cache->ids_of(chunk, runtime::KeySpace::kChunk, at,
                             [&](std::uint32_t* o) { return bpe.merge_raw_chunk(chunk, o); });
      });
    }
  };
  using Pieces = runtime::PieceBatch<Merger>;

  // Where scan() puts pieces besides the batch: give(piece) for each
  // non-empty one (as the batch skips empty pieces). Pieces are not read
  // ahead, so the buffer they lie in needs no bound.
  template <class Give>
  struct PieceSink {
    Give& give;
    void add(std::string_view piece) {
      if (!piece.empty()) give(piece);
    }
    const char* set_readable_end(const char*) noexcept { return nullptr; }
  };

  // Gives the pieces of `text`, in order, to out.add: the pre-tokenizer's
  // stages (one scan where a chain of them has one), ByteLevel's regex.
  template <class Out>
  void scan(std::string_view text, Out& out) const {
    if (deepseek_chain_) {
      IsolatedPieces<Out> sink{out, text};
      scanners::scan_deepseek_chain(text, sink);
      sink.finish();
    } else if (punctuation_first_) {
      PunctuationCuts<Out> cuts(out, *punctuation_first_);
      for_each_isolated(ByteLevelPreTokenizer::gpt2_regex(), text, cuts);
      cuts.finish();
    } else {
      run_split(0, text, out);
    }
  }

  // Applies cutting stage `i` (or, past the last one, ByteLevel + BPE) to `text`.
  template <class Out>
  void run_split(std::size_t i, std::string_view text, Out& out) const {
    if (text.empty()) return;
    if (i == stages_.size()) {
      run_byte_level(text, out);
      return;
    }
    const SplitPreTokenizer* split = splits_[i];
    if (split && split->behavior() == SplitBehavior::isolated && !split->invert()) {
      if (i + 1 == stages_.size() && plain_byte_level_) {
        // The last cut, and ByteLevel only maps bytes: pieces go straight
        // to the model.
        for_each_isolated(split->regex(), text, out);
      } else {
        auto next = [&](std::string_view p) { run_split(i + 1, p, out); };
        for_each_isolated(split->regex(), text, next);
      }
      return;
    }
    for_each_cut(*stages_[i], text, [&](std::size_t s, std::size_t e) { run_split(i + 1, text.substr(s, e - s), out); });
  }

  template <class Out>
  void run_byte_level(std::string_view text, Out& out) const {
    if (byte_level_->add_prefix_space() && text.front() != ' ') {
      // set_readable_end encodes the queued pieces, so none points into
      // the copy when it is reused.
      thread_local std::string prefixed;
      const char* outer_end = out.set_readable_end(nullptr);
      prefixed.assign(1, ' ');
      prefixed.append(text);
      out.set_readable_end(prefixed.data() + prefixed.size());
      run_byte_level_pieces(prefixed, out);
      out.set_readable_end(outer_end);
      return;
    }
    run_byte_level_pieces(text, out);
  }

  template <class Out>
  void run_byte_level_pieces(std::string_view text, Out& out) const {
    if (!byte_level_->use_regex()) {
      out.add(text);
      return;
    }
    for_each_isolated(ByteLevelPreTokenizer::gpt2_regex(), text, out);
  }

  // The pieces of a Split with behavior Isolated (every match of the regex
  // and every gap between matches is a piece), in order, to `out`: the
  // piece batch (out.add), or a function. Into the batch, scan_blocks hands
  // its all-ASCII blocks over at once (add_starts), so the batch's count and
  // the position stay in registers.
  template <class Out>
  struct IsolatedPieces {
    Out& out;
    std::string_view text;
    std::size_t prev = 0;  // end of the last piece given
    SNAPTOK_ALWAYS_INLINE void give(std::size_t begin, std::size_t end) {
      const std::string_view piece(text.data() + begin, end - begin);
      if constexpr (requires { out.add(piece); }) {
        out.add(piece);
      } else {
        out(piece);
      }
    }
    SNAPTOK_ALWAYS_INLINE void operator()(std::size_t s, std::size_t e) {
      if (prev != s) give(prev, s);
      give(s, e);
      prev = e;
    }
    SNAPTOK_ALWAYS_INLINE void add_starts(std::size_t& cur, std::size_t base, std::uint64_t starts)
      requires std::is_same_v<Out, Pieces>
    {
      out.add_starts(text.data(), cur, base, starts);  // from cur == prev: scan_blocks' matches tile
      prev = cur;
    }
    void finish() {
      if (prev < text.size()) give(prev, text.size());
    }
  };

  // Punctuation (Isolated or Contiguous) and then ByteLevel's GPT-2 regex,
  // in one scan: the regex's pieces of the whole text, cut where a
  // punctuation char (Isolated) or a run of them (Contiguous) begins and
  // ends, are the regex's pieces of each part between, but for two things.
  // Whitespace right before punctuation ends its part, and `\s+(?!\S)`
  // takes all of it there; in the whole text it is two pieces (all but its
  // last char, then that char alone or as the ' ' of " ?[^\s\p{L}\p{N}]+"),
  // which are joined. And a contraction ('s, 'll, ...) loses its apostrophe
  // to the punctuation: its letters start the next part, and \p{L}+ takes
  // them with the letters after them, the next piece of the whole text.
  // (No punctuation char is \s, \p{L} or \p{N}: a run of them lies within
  // one piece of the regex, but for a contraction's apostrophe.) Falcon's
  // pre-tokenizer.
  template <class Out>
  class PunctuationCuts {
   public:
    PunctuationCuts(Out& out, const CharCutPreTokenizer& punctuation)
        : out_(out), punctuation_(punctuation), isolated_(punctuation.cut_behavior() == SplitBehavior::isolated) {}

    // Per byte: whether it is an ASCII \s char, an ASCII punctuation char,
    // not ASCII (the char it starts is looked up), or an ASCII letter or
    // digit (kWord).
    struct ByteKinds {
      static constexpr std::uint8_t kSpace = 1, kPunctuation = 2, kNonAscii = 4, kWord = 8;
      std::uint8_t of[256];
      explicit ByteKinds(const CharCutPreTokenizer& punctuation) {
        for (unsigned b = 0; b < 256; ++b) {
          const unsigned flags = b < 0x80 ? scanners::char_flags()(b) : 0;
          of[b] = b >= 0x80 ? kNonAscii
                  : (flags & (scanners::kFlagL | scanners::kFlagN)) && !punctuation.is_member(b)
                      ? kWord
                      : static_cast<std::uint8_t>(((flags & scanners::kFlagSpace) ? kSpace : 0) |
                                                  (punctuation.is_member(b) ? kPunctuation : 0));
        }
      }
    };

    // Takes the regex's next piece.
    void operator()(std::string_view piece) {
      // Most pieces are words or numbers, " ?\p{L}+" or " ?\p{N}+", which
      // hold no punctuation: one that starts with an ASCII letter or digit
      // (after its space) goes out whole, when nothing is held.
      if (letters_.empty() && held_ == 0) {
        const std::size_t first = piece[0] == ' ' ? 1 : 0;
        if (first < piece.size() && kinds_.of[static_cast<unsigned char>(piece[first])] == ByteKinds::kWord) {
          out_.add(piece);
          return;
        }
      }
      if (!letters_.empty()) {  // a contraction's letters, and letters after them
        const bool joins = (flags_(first_char(piece)) & scanners::kFlagL) != 0;
        out_.add(joins ? std::string_view(letters_.data(), letters_.size() + piece.size()) : letters_);
        letters_ = {};
        if (joins) return;
      }
      if (piece.size() > 1 && piece[0] == '\'' && (flags_(first_char(piece.substr(1))) & scanners::kFlagL)) {
        give_held_as_one(piece.data());
        out_.add(piece.substr(0, 1));
        letters_ = piece.substr(1);
        return;
      }
      if (held_ != 0) {
        if (punctuation_.is_member(first_char(piece))) {
          give_held_as_one(piece.data());
          cut(piece);
          return;
        }
        if (piece.size() > 1 && piece[0] == ' ' && punctuation_.is_member(first_char(piece.substr(1)))) {
          give_held_as_one(piece.data() + 1);
          cut(piece.substr(1));
          return;
        }
      }
      if (is_whitespace(piece)) {
        if (held_ == kMaxHeld) give_held();
        held_pieces_[held_++] = piece;
        return;
      }
      give_held();
      cut(piece);
    }
    void finish() {
      give_held();
      if (!letters_.empty()) out_.add(letters_);
    }

   private:
    static constexpr std::size_t kMaxHeld = 2;  // \s+(?!\S), then \s+

    // The table of the one punctuation set (Rust's is_ascii_punctuation on
    // ASCII), built once.
    static const ByteKinds& byte_kinds(const CharCutPreTokenizer& punctuation) {
      static const ByteKinds kinds(punctuation);
      return kinds;
    }
    static char32_t first_char(std::string_view piece) noexcept {
      std::size_t i = 0;
      return detail::next_cp(piece, i);
    }
    // A piece of \s+(?!\S) or \s+: its first char is \s, and so is its
    // second (a ' ' before anything else prefixes a match of its own).
    bool is_whitespace(std::string_view piece) const noexcept {
      const std::uint8_t first = kinds_.of[static_cast<unsigned char>(piece[0])];
      if (!(first & (ByteKinds::kSpace | ByteKinds::kNonAscii))) return false;
      std::size_t i = 0;
      if (!(flags_(detail::next_cp(piece, i)) & scanners::kFlagSpace)) return false;
      return i == piece.size() || (flags_(detail::next_cp(piece, i)) & scanners::kFlagSpace) != 0;
    }
    void give_held() {
      for (std::size_t k = 0; k < held_; ++k) out_.add(held_pieces_[k]);
      held_ = 0;
    }
    // The held whitespace, up to `end`, as one piece.
    void give_held_as_one(const char* end) {
      if (held_ == 0) return;
      const char* begin = held_pieces_[0].data();
      out_.add(std::string_view(begin, static_cast<std::size_t>(end - begin)));
      held_ = 0;
    }
    // Gives `piece` cut where punctuation begins and ends.
    void cut(std::string_view piece) {
      // Most pieces hold no punctuation: a byte loop finds that out.
      const auto* bytes = reinterpret_cast<const unsigned char*>(piece.data());
      std::size_t plain = 0;
      while (plain < piece.size() && !(kinds_.of[bytes[plain]] & (ByteKinds::kPunctuation | ByteKinds::kNonAscii))) ++plain;
      if (plain == piece.size()) {
        out_.add(piece);
        return;
      }
      std::size_t part = 0;  // where the part being read begins
      bool in_punctuation = false;
      for (std::size_t i = plain; i < piece.size();) {
        const std::size_t at = i;
        const std::uint8_t kind = kinds_.of[bytes[i]];
        const bool member = kind != ByteKinds::kNonAscii ? (++i, kind == ByteKinds::kPunctuation)
                                                         : punctuation_.is_member(detail::next_cp(piece, i));
        if (at != 0 && (member != in_punctuation || (member && isolated_))) {
          out_.add(piece.substr(part, at - part));
          part = at;
        }
        in_punctuation = member;
      }
      out_.add(piece.substr(part));
    }

    Out& out_;
    const CharCutPreTokenizer& punctuation_;
    const bool isolated_;
    const ByteKinds& kinds_ = byte_kinds(punctuation_);
    const scanners::FlagTable& flags_ = scanners::char_flags();
    std::string_view held_pieces_[kMaxHeld];
    std::size_t held_ = 0;
    std::string_view letters_;  // of a contraction, not yet given
  };

  // Gives the Isolated pieces of `regex` on `text` to `out` (see
  // IsolatedPieces): its scanner's matches, else Oniguruma's.
  template <class Out>
  static void for_each_isolated(const detail::Regex& regex, std::string_view text, Out& out) {
    IsolatedPieces<Out> sink{out, text};
    regex.for_each_match(text, sink);
    sink.finish();
  }

  const BpeModel& bpe_;
  const ByteLevelPreTokenizer* byte_level_ = nullptr;
  // ByteLevel adds no space and cuts nothing, and no stage follows: the
  // pieces before it go to the model.
  bool plain_byte_level_ = false;
  bool cut_points_exact_ = false;
  // The Splits are DeepSeek V3's three, run as one (scan_deepseek_chain).
  bool deepseek_chain_ = false;
  // The one stage before ByteLevel's regex is Punctuation (PunctuationCuts).
  const CharCutPreTokenizer* punctuation_first_ = nullptr;
  // The stages before ByteLevel, and each one's Split (nullptr for another
  // kind of cut).
  std::vector<const CuttingPreTokenizer*> stages_;
  std::vector<const SplitPreTokenizer*> splits_;
  // The stages after ByteLevel (CutsAfter).
  std::vector<const CuttingPreTokenizer*> after_;
  std::uint64_t own_cache_owner_ = runtime::new_cache_owner();
};

}  // namespace snaptok
