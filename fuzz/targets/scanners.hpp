// Fuzz target: every hand-written pre-tokenizer scanner against Oniguruma,
// under every Highway target this build has. The input picks the pattern
// (scanners/registry.hpp), or DeepSeek V3's chain of three Splits (one past
// the registry's last), and the target; the rest is the text, which must be
// valid UTF-8 (the engine validates before it scans). The scanner must
// report exactly Oniguruma's matches, with the same pinned Unicode tables.
#pragma once

#include <snaptok/detail/regex.hpp>
#include <snaptok/scanners/deepseek.hpp>
#include <snaptok/scanners/registry.hpp>
#include <snaptok/simd/dispatch.hpp>

#include <hwy/targets.h>

#include <map>
#include <utility>

#include "../../tests/cpp/deepseek_chain_reference.hpp"
#include "../fuzz_support.hpp"

namespace snaptok_fuzz {

// DeepSeek V3's chain scanner on `target` against its three Splits on Oniguruma.
inline void deepseek_chain(std::string_view text, std::int64_t target) {
  std::vector<std::pair<std::size_t, std::size_t>> scanned;
  snaptok::simd::detail::set_supported_targets_for_test(target);
  snaptok::scanners::scan_deepseek_chain(text, [&](std::size_t s, std::size_t e) { scanned.emplace_back(s, e); });
  snaptok::simd::detail::set_supported_targets_for_test(0);
  const auto expected = snaptok_test::deepseek_chain_on_oniguruma(text);
  if (scanned != expected) {
    std::size_t i = 0;
    while (i < scanned.size() && i < expected.size() && scanned[i] == expected[i]) ++i;
    fail("scanners", std::string("DeepSeek V3's chain scanner on ") + hwy::TargetName(target) +
                         " differs from Oniguruma's three Splits at match " + std::to_string(i), text);
  }
}

inline void scanners(std::span<const std::uint8_t> data) {
  using Matches = std::vector<std::pair<std::size_t, std::size_t>>;
  // Both regexes of each pattern, compiled once (a pinned pattern compiles slowly).
  static std::map<std::size_t, std::pair<snaptok::detail::Regex, snaptok::detail::Regex>> compiled;
  static const std::vector<std::int64_t> targets = snaptok::simd::detail::supported_compiled_targets();

  Reader in(data);
  const std::size_t which = in.byte() % (std::size(snaptok::scanners::kScanners) + 1);
  const std::int64_t target = targets[in.byte() % targets.size()];
  const std::string_view text = in.rest();
  if (!valid_utf8(text)) return;
  if (which == std::size(snaptok::scanners::kScanners)) return deepseek_chain(text, target);

  const auto& entry = snaptok::scanners::kScanners[which];
  auto it = compiled.find(which);
  if (it == compiled.end()) {
    it = compiled.try_emplace(which, snaptok::detail::Regex(entry.pattern, "fuzz", true),
                              snaptok::detail::Regex(entry.pattern, "fuzz", false)).first;
  }
  const auto matches = [&](const snaptok::detail::Regex& re) {
    Matches out;
    re.for_each_match(text, [&](std::size_t s, std::size_t e) { out.emplace_back(s, e); });
    return out;
  };
  snaptok::simd::detail::set_supported_targets_for_test(target);
  const Matches scanned = matches(it->second.first);
  snaptok::simd::detail::set_supported_targets_for_test(0);
  const Matches expected = matches(it->second.second);
  if (scanned != expected) {
    std::size_t i = 0;
    while (i < scanned.size() && i < expected.size() && scanned[i] == expected[i]) ++i;
    fail("scanners", std::string(entry.name) + " scanner on " + hwy::TargetName(target) +
                         " differs from Oniguruma at match " + std::to_string(i), text);
  }
}

}  // namespace snaptok_fuzz
