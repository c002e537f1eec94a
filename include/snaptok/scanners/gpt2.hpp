// An exact hand-written matcher for GPT-2's pre-tokenization pattern
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// giving the same successive matches as Oniguruma does, at a fraction of the
// cost. Every char matches some alternative, so matches tile the text; at each
// position the alternatives are tried in pattern order, as the regex would.
#pragma once

#include <cstddef>
#include <string_view>

#include "snaptok/scanners/char_class.hpp"

namespace snaptok::scanners {

inline constexpr std::string_view kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

// Returns the length of the contraction ('s 't 're 've 'm 'll 'd) at s[i],
// or 0.
inline std::size_t gpt2_contraction(std::string_view s, std::size_t i) {
  if (i + 1 >= s.size() || s[i] != '\'') return 0;
  const char a = s[i + 1];
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
  if (i + 2 < s.size()) {
    const char b = s[i + 2];
    if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
  }
  return 0;
}

// Returns the end of the run of chars of class `cls` starting at s[i].
inline std::size_t run_end(std::string_view s, std::size_t i, CharClass cls) {
  std::size_t len = 0;
  while (i < s.size() && class_at(s, i, len) == cls) i += len;
  return i;
}

/// Calls fn(start, end) for each successive match of the GPT-2 pattern.
template <class Fn>
void scan_gpt2(std::string_view s, Fn&& fn) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n) {
    if (const std::size_t c = gpt2_contraction(s, i)) {
      fn(i, i + c);
      i += c;
      continue;
    }
    std::size_t len = 0;
    CharClass cls = class_at(s, i, len);
    if (s[i] == ' ' && i + 1 < n) {
      std::size_t next_len = 0;
      const CharClass next = class_at(s, i + 1, next_len);
      if (next != kSpace) {
        // ` ?\p{L}+`, ` ?\p{N}+` or ` ?[^\s\p{L}\p{N}]+` with the space.
        const std::size_t end = run_end(s, i + 1, next);
        fn(i, end);
        i = end;
        continue;
      }
    }
    if (cls != kSpace) {
      const std::size_t end = run_end(s, i, cls);
      fn(i, end);
      i = end;
      continue;
    }
    // `\s+(?!\S)`: the whitespace run, minus its last char when a non-space
    // follows; a single whitespace char before a non-space falls to `\s+`.
    std::size_t end = i;
    std::size_t last_start = i;
    while (end < n && class_at(s, end, len) == kSpace) {
      last_start = end;
      end += len;
    }
    if (end < n && last_start > i) end = last_start;
    fn(i, end);
    i = end;
  }
}

}  // namespace snaptok::scanners
