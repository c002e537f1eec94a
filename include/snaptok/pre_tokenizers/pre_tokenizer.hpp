// The pre-tokenizer stage: cuts normalized text into the pieces the model sees.
#pragma once

#include <memory>
#include <string_view>

#include "snaptok/detail/json.hpp"
#include "snaptok/normalized_string.hpp"
#include "snaptok/pre_tokenized_string.hpp"

namespace snaptok {

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  /// Splits (and may rewrite) the untokenized splits of `pts`.
  virtual void pre_tokenize(PreTokenizedString& pts) const = 0;
  /// True when the result depends on original offsets, so that even an
  /// ids-only encode must track alignments (Metaspace "first").
  virtual bool needs_offsets() const { return false; }
};

using PreTokenizerPtr = std::shared_ptr<const PreTokenizer>;

/// Builds the pre-tokenizer described by `json`.
PreTokenizerPtr make_pre_tokenizer(const detail::Json& json);

/// Reads a SplitDelimiterBehavior name ("Removed", "Isolated", ...).
inline SplitBehavior parse_split_behavior(const detail::Json& json) {
  const std::string_view s = json.str();
  if (s == "Removed") return SplitBehavior::removed;
  if (s == "Isolated") return SplitBehavior::isolated;
  if (s == "MergedWithPrevious") return SplitBehavior::merged_with_previous;
  if (s == "MergedWithNext") return SplitBehavior::merged_with_next;
  if (s == "Contiguous") return SplitBehavior::contiguous;
  json.fail("unknown split behavior \"" + std::string(s) + "\"");
}

}  // namespace snaptok
