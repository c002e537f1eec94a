// Fuzz target: the compiled scanner (scanners/automaton.hpp) against
// Oniguruma. The input is a pattern, a NUL byte, then the text (both valid
// UTF-8). A pattern Oniguruma refuses, or the compiler refuses, is skipped;
// for every other one the automaton must report exactly Oniguruma's matches.
// The seeds (make_corpora.py) are real Split patterns and the grammar the
// C++ tests draw random patterns from, so mutations stay near that subset.
#pragma once

#include <snaptok/detail/regex.hpp>
#include <snaptok/scanners/automaton.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../fuzz_support.hpp"

namespace snaptok_fuzz {

inline void automaton(std::span<const std::uint8_t> data) {
  using Matches = std::vector<std::pair<std::size_t, std::size_t>>;
  const std::string_view input(reinterpret_cast<const char*>(data.data()), data.size());
  const std::size_t nul = input.find('\0');
  if (nul == std::string_view::npos || nul == 0 || nul > 256) return;
  const std::string pattern(input.substr(0, nul));
  const std::string_view text = input.substr(nul + 1);
  if (!valid_utf8(pattern) || !valid_utf8(text)) return;
  // Both sides of recent patterns, compiled once (a pinned pattern compiles slowly).
  struct Compiled {
    std::shared_ptr<const snaptok::scanners::Automaton> automaton;
    std::optional<snaptok::detail::Regex> onig;
  };
  static std::map<std::string, Compiled> compiled;
  auto it = compiled.find(pattern);
  if (it == compiled.end()) {
    if (compiled.size() > 512) compiled.clear();
    Compiled c;
    try {
      c.onig.emplace(pattern, "fuzz", /*use_scanner=*/false);
      c.automaton = snaptok::scanners::Automaton::compile(pattern);
    } catch (const snaptok::Error&) {
      c.onig.reset();  // a pattern Oniguruma refuses
    }
    it = compiled.emplace(pattern, std::move(c)).first;
  }
  const Compiled& c = it->second;
  if (!c.onig || !c.automaton) return;
  Matches got, want;
  c.automaton->for_each_match(text, [&](std::size_t s, std::size_t e) { got.emplace_back(s, e); });
  try {
    c.onig->for_each_match(text, [&](std::size_t s, std::size_t e) { want.emplace_back(s, e); });
  } catch (const snaptok::Error&) {
    return;  // Oniguruma's retry limits: the automaton takes no pattern that backtracks so
  }
  if (got != want) {
    std::size_t i = 0;
    while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
    fail("automaton", "the automaton of \"" + pattern + "\" differs from Oniguruma at match " + std::to_string(i),
         text);
  }
}

}  // namespace snaptok_fuzz
