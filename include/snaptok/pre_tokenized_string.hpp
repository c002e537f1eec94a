// PreTokenizedString: the input cut into splits by the added-token matcher and
// the pre-tokenizer; each split is a NormalizedString and, once a model (or the
// added-token matcher) has run, its tokens.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "snaptok/normalized_string.hpp"

namespace snaptok {

/// A model's output for one split: the id and the byte range it covers in the
/// split's normalized text. The token string is the vocabulary entry of `id`,
/// or, when `text_value` is set, the covered text itself (Unigram, added tokens).
struct RawToken {
  std::uint32_t id;
  std::uint32_t start;
  std::uint32_t end;
  bool text_value = false;
};

struct Split {
  NormalizedString normalized;
  std::vector<RawToken> tokens;
  bool tokenized = false;
};

class PreTokenizedString {
 public:
  /// Starts with one split covering all of `text` (which must outlive this).
  PreTokenizedString(std::string_view text, bool track_offsets)
      : original_(text), tracks_(track_offsets) {
    splits_.push_back({NormalizedString(text, 0, text, track_offsets), {}, false});
  }

  std::string_view original() const noexcept { return original_; }
  bool tracks_offsets() const noexcept { return tracks_; }
  std::vector<Split>& splits() noexcept { return splits_; }
  const std::vector<Split>& splits() const noexcept { return splits_; }

  /// Replaces every untokenized split s (at index i) by the pieces that
  /// fn(i, std::move(s.normalized), out) appends to `out`; empty pieces are
  /// dropped, tokenized splits are kept as they are (HF PreTokenizedString::split).
  template <class Fn>
  void split(Fn&& fn) {
    std::vector<Split> next;
    next.reserve(splits_.size());
    std::vector<Split> pieces;
    for (std::size_t i = 0; i < splits_.size(); ++i) {
      Split& s = splits_[i];
      if (s.tokenized) {
        next.push_back(std::move(s));
        continue;
      }
      pieces.clear();
      fn(i, std::move(s.normalized), pieces);
      for (Split& p : pieces) {
        if (!p.normalized.empty()) next.push_back(std::move(p));
      }
    }
    splits_ = std::move(next);
  }

  /// Like split() for pre-tokenizers that only cut: fn(i, ns, out) appends
  /// NormalizedStrings.
  template <class Fn>
  void split_normalized(Fn&& fn) {
    std::vector<NormalizedString> cut;
    split([&](std::size_t i, NormalizedString&& ns, std::vector<Split>& out) {
      cut.clear();
      fn(i, std::move(ns), cut);
      for (NormalizedString& c : cut) out.push_back({std::move(c), {}, false});
    });
  }

  /// Applies fn(NormalizedString&) to every untokenized split.
  template <class Fn>
  void normalize(Fn&& fn) {
    for (Split& s : splits_) {
      if (!s.tokenized) fn(s.normalized);
    }
  }

 private:
  std::string_view original_;
  std::vector<Split> splits_;
  bool tracks_;
};

}  // namespace snaptok
