// The reference for DeepSeek V3's pre-tokenizer scanner (scan_deepseek_chain),
// shared by the scanner tests and the scanners fuzz target: its three
// Split(Isolated) stages on Oniguruma.
#pragma once

#include <snaptok/detail/regex.hpp>
#include <snaptok/scanners/registry.hpp>

#include <cstddef>
#include <iterator>
#include <string_view>
#include <utility>
#include <vector>

namespace snaptok_test {

// Returns the matches (begin, end) of DeepSeek V3's pre-tokenizer: three
// Split(Isolated) stages on Oniguruma, each on the gaps the ones before it
// leave.
inline std::vector<std::pair<std::size_t, std::size_t>> deepseek_chain_on_oniguruma(std::string_view text) {
  namespace sc = snaptok::scanners;
  static const snaptok::detail::Regex stages[] = {
      snaptok::detail::Regex(sc::kDeepSeekDigitsPattern, "reference", false),
      snaptok::detail::Regex(sc::kDeepSeekCjkPattern, "reference", false),
      snaptok::detail::Regex(sc::kDeepSeekPattern, "reference", false)};
  std::vector<std::pair<std::size_t, std::size_t>> out;
  auto split = [&](auto& self, std::size_t stage, std::size_t from, std::size_t to) -> void {
    if (stage == std::size(stages) || from == to) return;
    for (const auto& m : stages[stage].find_matches(text.substr(from, to - from))) {
      if (m.is_match) {
        out.emplace_back(from + m.start, from + m.end);
      } else {
        self(self, stage + 1, from + m.start, from + m.end);
      }
    }
  };
  split(split, 0, 0, text.size());
  return out;
}

}  // namespace snaptok_test
