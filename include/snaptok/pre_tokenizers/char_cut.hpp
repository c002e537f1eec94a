// The pre-tokenizers that cut at single chars of one set (Digits,
// Punctuation, WhitespaceSplit, CharDelimiterSplit): HF's Pattern for a
// `Fn(char) -> bool`, where every char of the set is a match of its own and
// the runs between them are the gaps. ASCII text is searched a vector at a
// time for the next byte that is a member or not ASCII (simd::find_start);
// the other chars are tested one by one.
//
//   DigitsPreTokenizer (individual_digits): "Call 123" -> "Call " "1" "2" "3"
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "snaptok/detail/utf8.hpp"
#include "snaptok/pre_tokenizers/pre_tokenizer.hpp"
#include "snaptok/simd/dispatch.hpp"
#include "snaptok/unicode/properties.hpp"

namespace snaptok {

class CharCutPreTokenizer : public CuttingPreTokenizer {
 public:
  /// The set a pre-tokenizer cuts at: Rust's char::is_numeric (Digits),
  /// is_ascii_punctuation or Unicode P (Punctuation), char::is_whitespace
  /// (WhitespaceSplit), or one char (CharDelimiterSplit).
  enum class Members : std::uint8_t { numeric, punctuation, whitespace, delimiter };

  Members members() const noexcept { return members_; }

  /// Whether `c` is in the set.
  bool is_member(char32_t c) const noexcept {
    switch (members_) {
      case Members::numeric: return unicode::is_numeric(c);
      case Members::punctuation: return unicode::is_punctuation(c);
      case Members::whitespace: return unicode::is_whitespace(c);
      case Members::delimiter: return c == delimiter_;
    }
    return false;
  }

  /// Calls item(start, end, is_match) for each part of `text`'s partition,
  /// in order: each member char alone, each run between them; an empty
  /// text gives one empty gap (what matches() returns, without a vector).
  template <class Item>
  void for_each_item(std::string_view text, Item&& item) const {
    const std::size_t n = text.size();
    if (n == 0) {
      item(std::size_t{0}, std::size_t{0}, false);
      return;
    }
    std::size_t gap = 0;  // where the current gap starts
    for (std::size_t i = 0;;) {
      i += simd::find_start(text.data() + i, n - i, ascii_members_);
      if (i == n) break;
      // A member, or the first of a run of non-ASCII chars.
      do {
        const std::size_t start = i;
        if (is_member(detail::next_cp(text, i))) {
          if (gap < start) item(gap, start, false);
          item(start, i, true);
          gap = i;
        }
      } while (i < n && static_cast<unsigned char>(text[i]) >= 0x80);
      if (i == n) break;
    }
    if (gap < n) item(gap, n, false);
  }

  std::vector<PatternMatch> matches(std::string_view text) const final {
    return collect_partition([&](auto&& item) { for_each_item(text, item); });
  }
  SplitBehavior cut_behavior() const final { return behavior_; }

 protected:
  /// `delimiter`: the one char of Members::delimiter.
  CharCutPreTokenizer(Members members, SplitBehavior behavior, char32_t delimiter = 0)
      : CuttingPreTokenizer(CutKind::chars), members_(members), delimiter_(delimiter), behavior_(behavior) {
    bool ascii[128] = {};
    for (char32_t c = 0; c < 128; ++c) ascii[c] = is_member(c);
    ascii_members_.alone = simd::NibbleSet::ascii(ascii);
  }

  Members members_;
  char32_t delimiter_;
  SplitBehavior behavior_;
  simd::AsciiStarts ascii_members_;  // the ASCII members, alone
};

}  // namespace snaptok
