// What a post-processor does to the ids of one sequence, when all it does is
// put fixed ids around it (TemplateProcessing, BertProcessing,
// RobertaProcessing, ByteLevel): an encoder can then write the sequence's
// ids straight into its output, or encode a document in parts.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "snaptok/error.hpp"
#include "snaptok/processors/processor.hpp"

namespace snaptok {

/// The ids a post-processor puts before and after one sequence, when that
/// is all it does: process_ids(seq) == before + seq + after for every seq.
struct SequenceWrap {
  bool exact = false;
  std::vector<std::uint32_t> before, after;
};

/// Returns the wrap of `processor` (exact: false when its ids are not a
/// fixed before and after), found by processing marker sequences.
inline SequenceWrap wrap_of(const PostProcessor* processor, bool add_special_tokens) {
  SequenceWrap wrap;
  if (!processor || processor->ids_unchanged()) {
    wrap.exact = true;
    return wrap;
  }
  constexpr std::uint32_t kMarker = 0xFFFFFFFFu;  // no tokenizer has 2^32 - 1 ids
  std::vector<std::uint32_t> one{kMarker}, two{kMarker, kMarker};
  try {
    processor->process_ids(one, add_special_tokens);
    processor->process_ids(two, add_special_tokens);
  } catch (const Error&) {
    return wrap;
  }
  const auto at = std::find(one.begin(), one.end(), kMarker);
  if (at == one.end() || std::count(one.begin(), one.end(), kMarker) != 1) return wrap;
  wrap.before.assign(one.begin(), at);
  wrap.after.assign(at + 1, one.end());
  std::vector<std::uint32_t> expected = wrap.before;
  expected.insert(expected.end(), {kMarker, kMarker});
  expected.insert(expected.end(), wrap.after.begin(), wrap.after.end());
  wrap.exact = two == expected;
  return wrap;
}

}  // namespace snaptok
