// The loop over successive matches that HF `tokenizers` runs on a regex
// (the Rust `onig` crate's find_iter): search from the end of the previous
// match; an empty match right after the previous match is skipped by
// advancing one char. Shared by Oniguruma (detail/regex.hpp) and the
// compiled automaton (automaton.hpp) so both iterate alike.
#pragma once

#include <cstddef>
#include <string_view>

#include "snaptok/detail/utf8.hpp"

namespace snaptok::scanners {

/// Calls fn(start, end) for each successive match of `text`, where
/// search(pos, start, end) finds the leftmost match at or after byte pos
/// (pos may equal text.size()) and returns false when there is none.
template <class Search, class Fn>
void for_each_search_match(std::string_view text, Search&& search, Fn&& fn) {
  std::size_t pos = 0;
  bool have_last = false;
  std::size_t last_end = 0;
  while (pos <= text.size()) {
    std::size_t s = 0, e = 0;
    if (!search(pos, s, e)) return;
    if (s == e && have_last && last_end == e) {
      pos += pos < text.size() ? detail::utf8_len(static_cast<unsigned char>(text[pos])) : 1;
      continue;
    }
    pos = e;
    have_last = true;
    last_end = e;
    fn(s, e);
  }
}

}  // namespace snaptok::scanners
