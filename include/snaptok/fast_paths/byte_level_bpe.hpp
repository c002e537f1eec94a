// Fused ids-only path for byte-level BPE tokenizers (GPT-2, Llama 3, Qwen,
// DeepSeek, ...): pre-tokenizer = [Split(regex)...] then ByteLevel, model =
// BPE whose vocabulary holds all 256 byte-level chars. Pieces are cut as views
// of the normalized text (no NormalizedString, no alignments) and merged from
// raw bytes, skipping the byte -> char rewrite. Selected at load time by
// make(); it must give the same ids as the general path on every input, and
// the tests check that it does.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "snaptok/models/bpe.hpp"
#include "snaptok/pre_tokenizers/byte_level.hpp"
#include "snaptok/pre_tokenizers/sequence.hpp"
#include "snaptok/pre_tokenizers/split.hpp"

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
    for (std::size_t i = 0; i + 1 < steps.size(); ++i) {
      const auto* split = dynamic_cast<const SplitPreTokenizer*>(steps[i]);
      if (!split) return nullptr;
      path->splits_.push_back(split);
    }
    return path;
  }

  /// Appends the model ids of one untokenized split's text.
  void encode(std::string_view text, std::vector<std::uint32_t>& ids) const {
    run_split(0, text, ids);
  }

 private:
  explicit ByteLevelBpePath(const BpeModel& bpe) : bpe_(bpe) {}

  // Applies Split stage `i` (or, past the last one, ByteLevel + BPE) to `text`.
  void run_split(std::size_t i, std::string_view text, std::vector<std::uint32_t>& ids) const {
    if (text.empty()) return;
    if (i == splits_.size()) {
      run_byte_level(text, ids);
      return;
    }
    std::vector<PatternMatch> matches = splits_[i]->regex().find_matches(text);
    if (splits_[i]->invert()) {
      for (PatternMatch& m : matches) m.is_match = !m.is_match;
    }
    std::vector<Offsets> pieces;
    split_ranges(matches, splits_[i]->behavior(), pieces);
    for (const Offsets& p : pieces) run_split(i + 1, text.substr(p.start, p.end - p.start), ids);
  }

  void run_byte_level(std::string_view text, std::vector<std::uint32_t>& ids) const {
    thread_local std::string prefixed;
    if (byte_level_->add_prefix_space() && text.front() != ' ') {
      prefixed.assign(1, ' ');
      prefixed.append(text);
      text = prefixed;
    }
    if (!byte_level_->use_regex()) {
      bpe_.tokenize_raw_bytes(text, ids);
      return;
    }
    // Isolated: the gaps between matches are pieces too.
    std::size_t prev = 0;
    ByteLevelPreTokenizer::gpt2_regex().for_each_match(text, [&](std::size_t s, std::size_t e) {
      if (prev != s) bpe_.tokenize_raw_bytes(text.substr(prev, s - prev), ids);
      bpe_.tokenize_raw_bytes(text.substr(s, e - s), ids);
      prev = e;
    });
    if (prev < text.size()) bpe_.tokenize_raw_bytes(text.substr(prev), ids);
  }

  const BpeModel& bpe_;
  const ByteLevelPreTokenizer* byte_level_ = nullptr;
  std::vector<const SplitPreTokenizer*> splits_;
};

}  // namespace snaptok
