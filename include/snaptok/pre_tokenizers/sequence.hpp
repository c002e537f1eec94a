// Sequence pre-tokenizer: applies its pre-tokenizers in order.
#pragma once

#include <vector>

#include "snaptok/detail/sequence_steps.hpp"
#include "snaptok/pre_tokenizers/pre_tokenizer.hpp"

namespace snaptok {

class SequencePreTokenizer final : public PreTokenizer {
 public:
  explicit SequencePreTokenizer(const detail::Json& json) {
    for (const detail::Json& item : json.at("pretokenizers").array()) {
      steps_.push_back(make_pre_tokenizer(item));
    }
  }
  void pre_tokenize(PreTokenizedString& pts) const override {
    for (const auto& step : steps_) step->pre_tokenize(pts);
  }
  bool needs_offsets() const override {
    for (const auto& step : steps_) {
      if (step->needs_offsets()) return true;
    }
    return false;
  }
  const std::vector<PreTokenizerPtr>& steps() const noexcept { return steps_; }

 private:
  std::vector<PreTokenizerPtr> steps_;
};

/// The pre-tokenizers `pre_tokenizer` applies, in order, nested Sequences
/// opened.
inline std::vector<const PreTokenizer*> flatten_pre_tokenizers(const PreTokenizer* pre_tokenizer) {
  return detail::flatten_steps<SequencePreTokenizer>(pre_tokenizer);
}

}  // namespace snaptok
