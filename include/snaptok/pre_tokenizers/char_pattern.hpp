// Pieces shared by the pre-tokenizers that cut at single characters
// (WhitespaceSplit, BertPreTokenizer, Punctuation, Digits, Metaspace,
// CharDelimiterSplit): HF's `Pattern` for a char predicate, and the reading
// of optional settings the way serde reads them.
#pragma once

#include <simdjson.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "snaptok/detail/json.hpp"
#include "snaptok/detail/utf8.hpp"
#include "snaptok/normalized_string.hpp"

namespace snaptok {

// Returns the partition of `text` that HF's Pattern for a `Fn(char) -> bool`
// yields: every char for which is_match(cp) holds is a match of its own, the
// runs between them are non-matches; an empty text gives one empty non-match.
template <class IsMatch>
std::vector<PatternMatch> find_char_matches(std::string_view text, IsMatch&& is_match) {
  std::vector<PatternMatch> out;
  if (text.empty()) {
    out.push_back({0, 0, false});
    return out;
  }
  std::size_t last = 0;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t start = i;
    if (is_match(detail::next_cp(text, i))) {
      if (last < start) out.push_back({last, start, false});
      out.push_back({start, i, true});
      last = i;
    }
  }
  if (last < text.size()) out.push_back({last, text.size(), false});
  return out;
}

// Returns the member `key` of a setting that has a serde default: nullopt
// when absent; an explicit null is an error, as in HF.
inline std::optional<detail::Json> find_defaulted(const detail::Json& json, std::string_view key) {
  if (!json.is_object()) json.fail("expected an object, got " + json.type_name());
  simdjson::dom::element child;
  if (json.raw().get_object().at_key(key).get(child) != simdjson::SUCCESS) return std::nullopt;
  detail::Json out(child, json.path().empty() ? std::string(key)
                                              : json.path() + "." + std::string(key));
  if (child.is_null()) out.fail("expected a value, got null");
  return out;
}

// Returns the single char of a JSON string (a Rust `char` field).
inline char32_t single_char(const detail::Json& json) {
  const std::string_view s = json.str();
  if (s.empty() || detail::utf8_len(static_cast<unsigned char>(s[0])) != s.size()) {
    json.fail("expected a single character, got \"" + std::string(s) + "\"");
  }
  std::size_t i = 0;
  return detail::next_cp(s, i);
}

}  // namespace snaptok
