// The choice of a segment path (segment_path.hpp) at load: the first of the
// fused paths that reproduces the pipeline's stages exactly, or none.
#pragma once

#include <memory>

#include "snaptok/fast_paths/sentencepiece_bpe.hpp"
#include "snaptok/fast_paths/whitespace_words.hpp"

namespace snaptok {

/// Returns the fused segment path for these stages, or nullptr.
inline std::shared_ptr<const SegmentPath> make_segment_path(const Normalizer* normalizer,
                                                            const PreTokenizer* pre_tokenizer,
                                                            const Model& model) {
  if (auto p = SentencePieceBpePath::make(normalizer, pre_tokenizer, model)) return p;
  if (auto p = WhitespaceWordsPath::make(normalizer, pre_tokenizer, model)) return p;
  return nullptr;
}

}  // namespace snaptok
