// NormalizedString: a piece of input text as normalizers and pre-tokenizers
// rewrite it, keeping for every byte of the rewritten ("normalized") text the
// byte range of the original input it came from, so that token offsets can be
// reported in the original string exactly as Hugging Face `tokenizers` does.
//
// Alignment tracking is optional: the ids-only path (encode_ids, encode_to_numpy)
// turns it off and every edit then touches only the text.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "snaptok/detail/utf8.hpp"
#include "snaptok/offsets.hpp"

namespace snaptok {

/// One code point of a rewrite and how it relates to the text it replaces:
/// change == 0 replaces the next old char, change == +1 inserts a new char,
/// change == -n replaces the next old char and removes the n after it.
struct CharChange {
  char32_t cp;
  int change;
};

/// How a split keeps the delimiters it finds (HF SplitDelimiterBehavior).
enum class SplitBehavior {
  removed,
  isolated,
  merged_with_previous,
  merged_with_next,
  contiguous
};

/// One piece of a pattern search: [start, end) in bytes and whether it matched.
struct PatternMatch {
  std::size_t start;
  std::size_t end;
  bool is_match;
};

inline void split_ranges(const std::vector<PatternMatch>& matches, SplitBehavior behavior,
                         std::vector<Offsets>& out);

/// Returns the partition that for_each_item(item) streams, item(start, end,
/// is_match) per part, as a vector (a pattern's matches()).
template <class ForEachItem>
std::vector<PatternMatch> collect_partition(ForEachItem&& for_each_item) {
  std::vector<PatternMatch> out;
  for_each_item([&out](std::size_t start, std::size_t end, bool is_match) { out.push_back({start, end, is_match}); });
  return out;
}

class NormalizedString {
 public:
  struct Alignment {
    std::uint32_t start;
    std::uint32_t end;
  };

  NormalizedString() = default;

  /// Wraps `text`, a slice [shift, shift + text.size()) of the full input
  /// `source` (which must outlive this object).
  NormalizedString(std::string_view source, std::size_t shift,
                   std::string_view text, bool track_offsets)
      : source_(source),
        normalized_(text),
        original_shift_(shift),
        original_len_(text.size()),
        tracks_(track_offsets) {
    if (tracks_) {
      alignments_.resize(text.size());
      std::size_t i = 0;
      while (i < text.size()) {
        const std::size_t start = i;
        i += detail::utf8_len(static_cast<unsigned char>(text[i]));
        for (std::size_t k = start; k < i; ++k) {
          alignments_[k] = {static_cast<std::uint32_t>(start),
                            static_cast<std::uint32_t>(i)};
        }
      }
    }
  }

  const std::string& get() const noexcept { return normalized_; }
  std::size_t size() const noexcept { return normalized_.size(); }
  bool empty() const noexcept { return normalized_.empty(); }
  bool tracks_offsets() const noexcept { return tracks_; }
  const std::vector<Alignment>& alignments() const noexcept {
    return alignments_;
  }

  // Returns the byte range of the full input this piece covers.
  Offsets offsets_original() const noexcept {
    return {original_shift_, original_shift_ + original_len_};
  }

  // Returns the original range (relative to this piece) of normalized bytes
  // [start, end), as HF's convert_offsets(Range::Normalized).
  std::optional<Offsets> normalized_to_original(std::size_t start,
                                                std::size_t end) const {
    if (start == end) return Offsets{start, end};
    if (start > end || end > alignments_.size()) return std::nullopt;
    return Offsets{alignments_[start].start, alignments_[end - 1].end};
  }

  // Returns a copy of normalized bytes [start, end) (char boundaries) with its
  // alignments and original range, as HF's slice(Range::Normalized).
  NormalizedString slice(std::size_t start, std::size_t end) const {
    NormalizedString out;
    out.source_ = source_;
    out.tracks_ = tracks_;
    out.normalized_.assign(normalized_, start, end - start);
    if (!tracks_) return out;
    const Offsets orig = *normalized_to_original(start, end);
    const std::string_view original = original_text();
    const bool on_boundaries = orig.end <= original.size() &&
                               detail::is_char_boundary(original, orig.start) &&
                               detail::is_char_boundary(original, orig.end);
    out.original_shift_ = original_shift_ + orig.start;
    out.original_len_ = on_boundaries ? orig.end - orig.start : 0;
    out.alignments_.reserve(end - start);
    for (std::size_t i = start; i < end; ++i) {
      out.alignments_.push_back(
          {static_cast<std::uint32_t>(alignments_[i].start - orig.start),
           static_cast<std::uint32_t>(alignments_[i].end - orig.start)});
    }
    return out;
  }

  /// Replaces normalized bytes [start, end) with `dest` (HF transform_range
  /// over a normalized range). `initial_offset` old chars at the start of the
  /// range are removed before the first new char.
  void transform_range(std::size_t start, std::size_t end,
                       const std::vector<CharChange>& dest,
                       std::size_t initial_offset) {
    std::string text;
    text.reserve(end - start + dest.size());
    std::vector<Alignment> align;
    if (tracks_) align.reserve(end - start + dest.size());
    std::size_t old = start;  // next old byte not yet consumed
    for (std::size_t k = 0; k < initial_offset && old < end; ++k) {
      old += detail::utf8_len(static_cast<unsigned char>(normalized_[old]));
    }
    for (const CharChange& c : dest) {
      Alignment a{0, 0};
      if (tracks_) {
        if (c.change > 0) {
          if (old >= 1) a = alignments_[old - 1];
        } else if (old < alignments_.size()) {
          a = alignments_[old];
        }
      }
      if (c.change <= 0 && old < end) {
        old += detail::utf8_len(static_cast<unsigned char>(normalized_[old]));
      }
      for (int r = 0; r < -c.change && old < end; ++r) {
        old += detail::utf8_len(static_cast<unsigned char>(normalized_[old]));
      }
      const std::size_t before = text.size();
      detail::append_cp(text, c.cp);
      if (tracks_) align.insert(align.end(), text.size() - before, a);
    }
    normalized_.replace(start, end - start, text);
    if (tracks_) {
      alignments_.erase(alignments_.begin() + static_cast<std::ptrdiff_t>(start),
                        alignments_.begin() + static_cast<std::ptrdiff_t>(end));
      alignments_.insert(alignments_.begin() + static_cast<std::ptrdiff_t>(start),
                         align.begin(), align.end());
    }
  }

  /// Rewrites the whole string (HF transform over Range::Original(..)).
  void transform(const std::vector<CharChange>& dest,
                 std::size_t initial_offset) {
    const auto range = full_original_range();
    if (!range) return;
    transform_range(range->start, range->end, dest, initial_offset);
  }

  /// Keeps only the chars for which keep(cp) is true (HF filter).
  template <class Keep>
  void filter(Keep&& keep) {
    std::vector<CharChange> dest;
    dest.reserve(normalized_.size());
    int removed = 0;
    std::size_t removed_start = 0;
    bool have_last = false;
    char32_t last = 0;
    for (std::size_t i = 0; i < normalized_.size();) {
      const char32_t cp = detail::next_cp(normalized_, i);
      if (keep(cp)) {
        if (have_last) {
          dest.push_back({last, -removed});
        } else {
          removed_start = static_cast<std::size_t>(removed);
        }
        last = cp;
        have_last = true;
        removed = 0;
      } else {
        ++removed;
      }
    }
    if (have_last) dest.push_back({last, -removed});
    transform(dest, removed_start);
  }

  /// Maps every char through `fn` (HF map).
  template <class Fn>
  void map(Fn&& fn) {
    std::vector<CharChange> dest;
    dest.reserve(normalized_.size());
    for (std::size_t i = 0; i < normalized_.size();) {
      dest.push_back({fn(detail::next_cp(normalized_, i)), 0});
    }
    transform(dest, 0);
  }

  /// Prepends `s` before the first char (HF prepend; no-op when empty).
  void prepend(std::string_view s) {
    if (normalized_.empty()) return;
    std::size_t i = 0;
    const char32_t first = detail::next_cp(normalized_, i);
    std::vector<CharChange> dest;
    bool is_first = true;
    for (std::size_t j = 0; j < s.size();) {
      dest.push_back({detail::next_cp(s, j), is_first ? 0 : 1});
      is_first = false;
    }
    dest.push_back({first, 1});
    transform_range(0, i, dest, 0);
  }

  /// Appends `s` after the last char (HF append).
  void append(std::string_view s) {
    std::vector<CharChange> dest;
    std::size_t start = 0;
    if (!normalized_.empty()) {
      std::size_t i = normalized_.size();
      const char32_t last = detail::prev_cp(normalized_, i);
      start = i;
      dest.push_back({last, 0});
    }
    for (std::size_t j = 0; j < s.size();) {
      dest.push_back({detail::next_cp(s, j), 1});
    }
    transform_range(start, normalized_.size(), dest, 0);
  }

  /// Replaces every matched range with `content` (HF replace).
  void replace(const std::vector<PatternMatch>& matches,
               std::string_view content) {
    std::string text;
    text.reserve(normalized_.size());
    std::vector<Alignment> align;
    if (tracks_) align.reserve(alignments_.size());
    std::size_t last_end = 0;
    for (const PatternMatch& m : matches) {
      if (!m.is_match) continue;
      text.append(normalized_, last_end, m.start - last_end);
      if (tracks_) {
        align.insert(align.end(), alignments_.begin() + last_end,
                     alignments_.begin() + m.start);
      }
      // Every new char is an insertion after the removed match, so it takes
      // the alignment of the match's last byte (or (0, 0) at the very start).
      Alignment a{0, 0};
      if (tracks_ && m.end >= 1) a = alignments_[m.end - 1];
      for (std::size_t j = 0; j < content.size();) {
        const std::size_t before = text.size();
        detail::append_cp(text, detail::next_cp(content, j));
        if (tracks_) align.insert(align.end(), text.size() - before, a);
      }
      last_end = m.end;
    }
    text.append(normalized_, last_end);
    if (tracks_) {
      align.insert(align.end(), alignments_.begin() + last_end,
                   alignments_.end());
      alignments_ = std::move(align);
    }
    normalized_ = std::move(text);
  }

  /// Removes leading and/or trailing chars for which is_space(cp) holds (HF
  /// lrstrip with Rust's char::is_whitespace).
  template <class IsSpace>
  void strip(bool left, bool right, IsSpace&& is_space) {
    std::size_t lead = 0, trail = 0, count = 0;
    std::vector<char32_t> cps;
    for (std::size_t i = 0; i < normalized_.size();) {
      cps.push_back(detail::next_cp(normalized_, i));
    }
    count = cps.size();
    if (left) {
      while (lead < count && is_space(cps[lead])) ++lead;
    }
    if (right) {
      while (trail < count && is_space(cps[count - 1 - trail])) ++trail;
    }
    if (lead == 0 && trail == 0) return;
    std::vector<CharChange> dest;
    for (std::size_t i = 0; i < count; ++i) {
      if (i < lead || i >= count - trail) continue;
      // HF compares the char index with the byte length here; kept as is.
      const bool last = i + trail + 1 == normalized_.size();
      dest.push_back({cps[i], last ? -static_cast<int>(trail) : 0});
    }
    transform(dest, lead);
  }

  /// Splits at `matches` (a partition of the string as a Pattern yields it)
  /// following `behavior`; appends the non-removed pieces to `out`.
  void split(const std::vector<PatternMatch>& matches, SplitBehavior behavior,
             std::vector<NormalizedString>& out) const {
    thread_local std::vector<Offsets> pieces;
    pieces.clear();
    split_ranges(matches, behavior, pieces);
    for (const Offsets& p : pieces) out.push_back(slice(p.start, p.end));
  }

 private:
  std::string_view original_text() const noexcept {
    return source_.substr(original_shift_, original_len_);
  }

  // HF convert_offsets(Range::Original(..)): the normalized range covering
  // the whole original, skipping leading zero-width alignments.
  std::optional<Offsets> full_original_range() const {
    if (!tracks_) {
      return Offsets{0, normalized_.size()};
    }
    if (original_len_ == 0) return Offsets{0, 0};
    std::optional<std::size_t> start;
    for (std::size_t i = 0; i < alignments_.size(); ++i) {
      if (!start && alignments_[i].start != alignments_[i].end) start = i;
    }
    if (alignments_.empty()) return std::nullopt;
    if (!start) return Offsets{alignments_.size(), alignments_.size()};
    return Offsets{*start, alignments_.size()};
  }

  std::string_view source_;
  std::string normalized_;
  std::vector<Alignment> alignments_;
  std::size_t original_shift_ = 0;
  std::size_t original_len_ = 0;
  bool tracks_ = true;
};

/// Keeps the pieces of a partition that a split keeps under a behavior (HF
/// NormalizedString::split without the slicing), one item at a time: feed
/// the partition's items in order to item(), then call finish(); each kept
/// [start, end) goes to give(start, end) as soon as it is known, in order.
template <class Give>
class BehaviorCuts {
 public:
  BehaviorCuts(SplitBehavior behavior, Give& give) : behavior_(behavior), give_(give) {}

  void item(std::size_t start, std::size_t end, bool is_match) {
    switch (behavior_) {
      case SplitBehavior::isolated:
        give_(start, end);
        break;
      case SplitBehavior::removed:
        if (!is_match) give_(start, end);
        break;
      case SplitBehavior::contiguous:  // runs of matches, or of gaps, join
        if (pending_ && is_match == previous_match_) {
          end_ = end;
        } else {
          hold(start, end);
        }
        break;
      case SplitBehavior::merged_with_previous:  // a match joins the gap before it
        if (pending_ && is_match && !previous_match_) {
          end_ = end;
        } else {
          hold(start, end);
        }
        break;
      case SplitBehavior::merged_with_next:  // a match joins the gap after it
        if (pending_ && previous_match_ && !is_match) {
          end_ = end;
          finish();
        } else if (is_match) {
          hold(start, end);
        } else {
          finish();
          give_(start, end);
        }
        break;
    }
    previous_match_ = is_match;
  }

  /// Gives the piece still held, if any.
  void finish() {
    if (pending_) give_(start_, end_);
    pending_ = false;
  }

 private:
  void hold(std::size_t start, std::size_t end) {
    finish();
    pending_ = true;
    start_ = start;
    end_ = end;
  }

  SplitBehavior behavior_;
  Give& give_;
  bool pending_ = false;  // [start_, end_) is held: the next item may join it
  bool previous_match_ = false;
  std::size_t start_ = 0;
  std::size_t end_ = 0;
};

/// Turns a partition into the ranges a split keeps under `behavior` (HF
/// NormalizedString::split without the slicing), appending them to `out`.
inline void split_ranges(const std::vector<PatternMatch>& matches, SplitBehavior behavior,
                         std::vector<Offsets>& out) {
  auto give = [&out](std::size_t start, std::size_t end) { out.push_back({start, end}); };
  BehaviorCuts cuts(behavior, give);
  for (const PatternMatch& m : matches) cuts.item(m.start, m.end, m.is_match);
  cuts.finish();
}

}  // namespace snaptok
