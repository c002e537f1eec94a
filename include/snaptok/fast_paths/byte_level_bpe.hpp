// Fused ids-only model stage for byte-level BPE tokenizers (GPT-2, Llama 3,
// Qwen, DeepSeek, ...): pre-tokenizer = [Split(regex)...] then ByteLevel,
// model = BPE whose vocabulary holds all 256 byte-level chars. Pieces are
// cut as views of the text (no NormalizedString, no alignments) by the
// patterns' scanners, looked up in the worker's piece cache, and merged from
// raw bytes on a miss, skipping the byte -> char rewrite. Selected at load
// time by make(); it must give the same ids as the general path on every
// input, and the tests check that it does.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "snaptok/models/bpe.hpp"
#include "snaptok/pre_tokenizers/byte_level.hpp"
#include "snaptok/pre_tokenizers/sequence.hpp"
#include "snaptok/pre_tokenizers/split.hpp"
#include "snaptok/runtime/piece_cache.hpp"

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
    std::vector<const PreTokenizer*> steps;
    if (const auto* seq = dynamic_cast<const SequencePreTokenizer*>(pre_tokenizer)) {
      for (const auto& step : seq->steps()) steps.push_back(step.get());
    } else {
      steps.push_back(pre_tokenizer);
    }
    if (steps.empty()) return nullptr;
    const auto* last = dynamic_cast<const ByteLevelPreTokenizer*>(steps.back());
    if (!last) return nullptr;
    path->byte_level_ = last;
    path->plain_byte_level_ = !last->add_prefix_space() && !last->use_regex();
    for (std::size_t i = 0; i + 1 < steps.size(); ++i) {
      const auto* split = dynamic_cast<const SplitPreTokenizer*>(steps[i]);
      if (!split) return nullptr;
      path->splits_.push_back(split);
    }
    return path;
  }

  /// The model whose ids the path gives (owner of the worker's cache).
  const BpeModel& model() const noexcept { return bpe_; }

  /// Appends the model ids of one untokenized split's text. `cache` is the
  /// worker's cache for this model, or nullptr for none.
  void encode(std::string_view text, std::vector<std::uint32_t>& ids,
              runtime::PieceCache* cache) const {
    Pieces out(bpe_, ids, bpe_.deterministic() ? cache : nullptr, text.data() + text.size());
    run_split(0, text, out);
    out.flush();
  }

 private:
  explicit ByteLevelBpePath(const BpeModel& bpe) : bpe_(bpe) {}

  // Where pieces go: a sliding window of pending pieces. A piece's cache
  // slots are prefetched when it enters the window and read when it leaves,
  // kWindow pieces later (so every lookup's memory miss overlaps the work
  // on the pieces after it); pieces leave in order; a miss is merged and
  // cached.
  class Pieces {
   public:
    // `readable_end` bounds the buffer the pieces lie in (short keys are
    // read 16 bytes at a time when the buffer allows).
    Pieces(const BpeModel& bpe, std::vector<std::uint32_t>& ids, runtime::PieceCache* cache,
           const char* readable_end)
        : bpe_(bpe), ids_(ids), cache_(cache), readable_end_(readable_end) {}

    // Pieces added from now on lie in a buffer ending at `readable_end`;
    // returns the previous end.
    const char* set_readable_end(const char* readable_end) {
      return std::exchange(readable_end_, readable_end);
    }

    // Queues `piece`; the piece kWindow places earlier is encoded.
    void add(std::string_view piece) {
      if (piece.empty()) return;
      if (count_ == kWindow) encode_oldest();
      Pending& p = pending_[(head_ + count_++) % kWindow];
      p.piece = piece;
      if (cache_ && piece.size() <= runtime::PieceCache::kShortMaxBytes) {
        p.key = runtime::ShortKey::of(piece.data(), piece.size(), readable_end_ - piece.data() >= 16);
        p.hash = p.key.hash();
        cache_->prefetch_short(p.hash);
      }
    }

    // Encodes every queued piece, in order.
    void flush() {
      while (count_ > 0) encode_oldest();
    }

   private:
    static constexpr std::size_t kWindow = 16;
    struct Pending {
      std::string_view piece;
      runtime::ShortKey key;
      std::uint64_t hash;
    };

    void encode_oldest() {
      encode(pending_[head_]);
      head_ = (head_ + 1) % kWindow;
      --count_;
    }

    // Appends the ids of one piece.
    void encode(const Pending& p) {
      const std::size_t n = p.piece.size();
      // A piece has at most one id per byte: no reallocation below.
      if (ids_.capacity() - ids_.size() < n) {
        ids_.reserve(std::max(ids_.size() + n, 2 * ids_.capacity()));
      }
      if (!cache_ || n > runtime::PieceCache::kLongMaxBytes) {
        merge(p.piece);
        return;
      }
      const bool is_short = n <= runtime::PieceCache::kShortMaxBytes;
      std::size_t count = 0;
      const std::uint32_t* hit = is_short ? cache_->find_short(p.hash, p.key, count) : nullptr;
      if (!hit) hit = cache_->find_long(p.piece, count);
      if (hit) {
        for (std::size_t k = 0; k < count; ++k) ids_.push_back(hit[k]);
        return;
      }
      const std::uint32_t* merged = merge(p.piece);
      count = static_cast<std::size_t>(ids_.data() + ids_.size() - merged);
      if (!is_short || !cache_->store_short(p.hash, p.key, merged, count)) {
        cache_->store_long(p.piece, merged, count);
      }
    }

    // Appends the merged ids of `piece`; returns where they start.
    const std::uint32_t* merge(std::string_view piece) {
      const std::size_t at = ids_.size();
      ids_.resize(at + piece.size());
      ids_.resize(at + bpe_.merge_raw(piece, ids_.data() + at));
      return ids_.data() + at;
    }

    const BpeModel& bpe_;
    std::vector<std::uint32_t>& ids_;
    runtime::PieceCache* cache_;
    const char* readable_end_;
    Pending pending_[kWindow];
    std::size_t head_ = 0;   // the oldest pending piece
    std::size_t count_ = 0;  // pending pieces
  };

  // Applies Split stage `i` (or, past the last one, ByteLevel + BPE) to `text`.
  void run_split(std::size_t i, std::string_view text, Pieces& out) const {
    if (text.empty()) return;
    if (i == splits_.size()) {
      run_byte_level(text, out);
      return;
    }
    const SplitPreTokenizer& split = *splits_[i];
    if (split.behavior() == SplitBehavior::isolated && !split.invert()) {
      if (i + 1 == splits_.size() && plain_byte_level_) {
        // The last cut, and ByteLevel only maps bytes: pieces go straight
        // to the model.
        for_each_isolated(split.regex(), text, [&](std::string_view p) { out.add(p); });
      } else {
        for_each_isolated(split.regex(), text, [&](std::string_view p) { run_split(i + 1, p, out); });
      }
      return;
    }
    std::vector<PatternMatch> matches = split.regex().find_matches(text);
    if (split.invert()) {
      for (PatternMatch& m : matches) m.is_match = !m.is_match;
    }
    std::vector<Offsets> pieces;
    split_ranges(matches, split.behavior(), pieces);
    for (const Offsets& p : pieces) run_split(i + 1, text.substr(p.start, p.end - p.start), out);
  }

  void run_byte_level(std::string_view text, Pieces& out) const {
    if (byte_level_->add_prefix_space() && text.front() != ' ') {
      // The pieces of the copy must be done before the copy is reused.
      thread_local std::string prefixed;
      out.flush();
      prefixed.assign(1, ' ');
      prefixed.append(text);
      const char* outer_end = out.set_readable_end(prefixed.data() + prefixed.size());
      run_byte_level_pieces(prefixed, out);
      out.flush();
      out.set_readable_end(outer_end);
      return;
    }
    run_byte_level_pieces(text, out);
  }

  void run_byte_level_pieces(std::string_view text, Pieces& out) const {
    if (!byte_level_->use_regex()) {
      out.add(text);
      return;
    }
    for_each_isolated(ByteLevelPreTokenizer::gpt2_regex(), text,
                      [&](std::string_view p) { out.add(p); });
  }

  // Calls fn(piece) for every match of `regex` in `text` and every gap
  // between matches, in order (a Split with behavior Isolated).
  template <class Fn>
  static void for_each_isolated(const detail::Regex& regex, std::string_view text, Fn&& fn) {
    std::size_t prev = 0;
    regex.for_each_match(text, [&](std::size_t s, std::size_t e) {
      if (prev != s) fn(text.substr(prev, s - prev));
      fn(text.substr(s, e - s));
      prev = e;
    });
    if (prev < text.size()) fn(text.substr(prev));
  }

  const BpeModel& bpe_;
  const ByteLevelPreTokenizer* byte_level_ = nullptr;
  // ByteLevel adds no space and cuts nothing: it only maps bytes.
  bool plain_byte_level_ = false;
  std::vector<const SplitPreTokenizer*> splits_;
};

}  // namespace snaptok
