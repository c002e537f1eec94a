// The pre-tokenizer stage: cuts normalized text into the pieces the model sees.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

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

/// A pre-tokenizer that only cuts its text: each piece is split at
/// matches(text) following cut_behavior() (HF's NormalizedString::split
/// with a Pattern), and nothing is rewritten (Split, Digits, Punctuation,
/// Whitespace, WhitespaceSplit, CharDelimiterSplit). The general stages
/// cut NormalizedStrings; a fused path cuts plain text views with
/// for_each_cut (cuts.hpp).
class CuttingPreTokenizer : public PreTokenizer {
 public:
  /// What a fused path may stream without a vector (cuts.hpp, for_each_cut):
  /// a Split, a cut at the chars of a set (CharCutPreTokenizer), or another.
  enum class CutKind : std::uint8_t { other, split, chars };
  CutKind cut_kind() const noexcept { return kind_; }

  void pre_tokenize(PreTokenizedString& pts) const final {
    pts.split_normalized([&](std::size_t, NormalizedString&& ns, std::vector<NormalizedString>& out) {
      ns.split(matches(ns.get()), cut_behavior(), out);
    });
  }

  /// The partition of `text` into matches (delimiters) and the gaps between them.
  virtual std::vector<PatternMatch> matches(std::string_view text) const = 0;
  /// What becomes of the matches.
  virtual SplitBehavior cut_behavior() const = 0;

 protected:
  explicit CuttingPreTokenizer(CutKind kind = CutKind::other) : kind_(kind) {}

 private:
  CutKind kind_;
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
