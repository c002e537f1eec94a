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
#include <cstring>
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
  // cached. Ids gather in a small buffer (a hit copies a whole short entry
  // without branching on its length) that is appended to the result when
  // full and at flush().
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

    // Encodes every queued piece, in order, and appends all ids to the result.
    void flush() {
      while (count_ > 0) encode_oldest();
      spill();
    }

   private:
    static constexpr std::size_t kWindow = 16;
    static constexpr std::size_t kOut = 1024;  // ids gathered before an append
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

    // Gathers the ids of one piece (at most one per byte).
    void encode(const Pending& p) {
      const std::size_t n = p.piece.size();
      if (out_n_ + std::max(n, runtime::PieceCache::kShortMaxIds) > kOut) spill();
      if (n > kOut) {  // longer than the buffer: merged straight into the result
        const std::size_t at = ids_.size();
        ids_.resize(at + n);
        ids_.resize(at + bpe_.merge_raw(p.piece, ids_.data() + at));
        return;
      }
      std::uint32_t* out = out_ + out_n_;
      if (!cache_ || n > runtime::PieceCache::kLongMaxBytes) {
        out_n_ += bpe_.merge_raw(p.piece, out);
        return;
      }
      const bool is_short = n <= runtime::PieceCache::kShortMaxBytes;
      std::size_t count = 0;
      if (is_short) {
        if (const std::uint32_t* hit = cache_->find_short(p.hash, p.key, count)) {
          std::memcpy(out, hit, runtime::PieceCache::kShortMaxIds * sizeof(std::uint32_t));
          out_n_ += count;
          return;
        }
      }
      if (const std::uint32_t* hit = cache_->find_long(p.piece, count)) {
        std::memcpy(out, hit, count * sizeof(std::uint32_t));
        out_n_ += count;
        return;
      }
      count = bpe_.merge_raw(p.piece, out);
      out_n_ += count;
      if (!is_short || !cache_->store_short(p.hash, p.key, out, count)) {
        cache_->store_long(p.piece, out, count);
      }
    }

    // Appends the gathered ids to the result.
    void spill() {
      ids_.insert(ids_.end(), out_, out_ + out_n_);
      out_n_ = 0;
    }

    const BpeModel& bpe_;
    std::vector<std::uint32_t>& ids_;
    runtime::PieceCache* cache_;
    const char* readable_end_;
    Pending pending_[kWindow];
    std::size_t head_ = 0;   // the oldest pending piece
    std::size_t count_ = 0;  // pending pieces
    std::uint32_t out_[kOut];
    std::size_t out_n_ = 0;
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
