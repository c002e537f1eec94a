// Cuts without vectors: the pieces a cutting pre-tokenizer keeps, given one
// at a time to a function, for the fused paths that run a Sequence's cuts
// nested in one pass (fast_paths/byte_level_bpe.hpp). Splits and the
// single-char cutters stream their partition (the regex's scanner, or a
// vector search for the next member char); any other kind is cut into a
// vector first.
//
//   for_each_cut(digits, "ab 12", [](std::size_t s, std::size_t e) { ... });
//   // (0, 3) (3, 4) (4, 5) for individual digits
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "snaptok/normalized_string.hpp"
#include "snaptok/pre_tokenizers/char_cut.hpp"
#include "snaptok/pre_tokenizers/pre_tokenizer.hpp"
#include "snaptok/pre_tokenizers/split.hpp"

namespace snaptok {

/// Calls give(start, end) for each non-empty piece that `stage` cuts
/// `text` into, in order: what the general stage keeps of stage.matches(text)
/// under stage.cut_behavior() (split_ranges), without the empty pieces.
template <class Give>
void for_each_cut(const CuttingPreTokenizer& stage, std::string_view text, Give&& give) {
  auto non_empty = [&give](std::size_t start, std::size_t end) {
    if (start != end) give(start, end);
  };
  BehaviorCuts cuts(stage.cut_behavior(), non_empty);
  auto item = [&cuts](std::size_t s, std::size_t e, bool is_match) { cuts.item(s, e, is_match); };
  switch (stage.cut_kind()) {
    case CuttingPreTokenizer::CutKind::chars:
      static_cast<const CharCutPreTokenizer&>(stage).for_each_item(text, item);
      break;
    case CuttingPreTokenizer::CutKind::split:
      static_cast<const SplitPreTokenizer&>(stage).for_each_item(text, item);
      break;
    case CuttingPreTokenizer::CutKind::other:
      for (const PatternMatch& m : stage.matches(text)) item(m.start, m.end, m.is_match);
      break;
  }
  cuts.finish();
}

}  // namespace snaptok
