// Split pre-tokenizer: cuts at every match of a string or an Oniguruma regex,
// keeping delimiters per `behavior`; `invert` swaps matches and gaps.
// A string pattern is escaped and compiled as a regex, as HF does.
#pragma once

#include <string>
#include <vector>

#include "snaptok/detail/regex.hpp"
#include "snaptok/pre_tokenizers/pre_tokenizer.hpp"

namespace snaptok {

/// Returns `s` with every regex metacharacter escaped (the set Rust's
/// regex::escape escapes), so it matches literally.
inline std::string regex_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    if (std::string_view("\\.+*?()|[]{}^$#&-~").find(c) != std::string_view::npos) {
      out.push_back('\\');
    }
    out.push_back(c);
  }
  return out;
}

/// Reads a `{"String": s}` or `{"Regex": r}` pattern into a compiled regex.
inline detail::Regex parse_pattern(const detail::Json& json) {
  std::size_t members = 0;
  json.for_each_member([&](std::string_view, const detail::Json&) { ++members; });
  if (members != 1) json.fail("expected {\"String\": ...} or {\"Regex\": ...} (one key)");
  if (auto s = json.find("String")) return detail::Regex(regex_escape(s->str()), s->path());
  if (auto r = json.find("Regex")) return detail::Regex(r->str(), r->path());
  json.fail("expected {\"String\": ...} or {\"Regex\": ...}");
}

class SplitPreTokenizer final : public CuttingPreTokenizer {
 public:
  explicit SplitPreTokenizer(const detail::Json& json)
      : CuttingPreTokenizer(CutKind::split),
        regex_(parse_pattern(json.at("pattern"))),
        behavior_(parse_split_behavior(json.at("behavior"))),
        invert_(json.at("invert").boolean()) {}

  const detail::Regex& regex() const noexcept { return regex_; }
  SplitBehavior behavior() const noexcept { return behavior_; }
  bool invert() const noexcept { return invert_; }

  /// Calls item(start, end, is_match) for each part of the partition
  /// matches() returns, in order, without a vector.
  template <class Item>
  void for_each_item(std::string_view text, Item&& item) const {
    regex_.for_each_item(text, [&](std::size_t s, std::size_t e, bool m) { item(s, e, m != invert_); });
  }

  std::vector<PatternMatch> matches(std::string_view text) const override {
    return collect_partition([&](auto&& item) { for_each_item(text, item); });
  }
  SplitBehavior cut_behavior() const override { return behavior_; }

 private:
  detail::Regex regex_;
  SplitBehavior behavior_;
  bool invert_;
};

}  // namespace snaptok
