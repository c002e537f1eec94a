// Patterns recognised by structure (scanners/pattern_family.hpp), split from
// test_scanners.cpp: every member runs on a scanner with Oniguruma's
// matches; near misses stay on Oniguruma.
#include <doctest/doctest.h>

#include <simdjson.h>
#include <snaptok/detail/regex.hpp>
#include <snaptok/scanners/block_masks.hpp>
#include <snaptok/scanners/cut_points.hpp>
#include <snaptok/simd/dispatch.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "deepseek_chain_reference.hpp"
#include "scanner_checks.hpp"

namespace pattern_recognition_tests {

using namespace scanner_test;

// ---------------------------------------------------------------------------
// Patterns recognised by structure (scanners/pattern_family.hpp): every
// member runs on a scanner with Oniguruma's matches; near misses stay on
// Oniguruma.

namespace {

namespace sc = snaptok::scanners;

// Returns the family pattern that `r` describes, spelt as the tokenizer
// files spell it (HF's spelling; tiktoken's for space_run_to_end).
std::string spell_split(const sc::SplitRules& r) {
  const std::string contractions = R"((?i:'s|'t|'re|'ve|'m|'ll|'d))";
  const std::string prefix = R"([^\r\n\p{L}\p{N}]?)";
  std::string p;
  if (r.han_first) p += R"([\p{Han}]+|)";
  if (r.contraction == sc::Contraction::kLeading) p += contractions + "|";
  if (r.letters == sc::Letters::kL) {
    p += prefix + R"(\p{L}+)";
  } else if (r.letters == sc::Letters::kLM) {
    p += prefix + R"([\p{L}\p{M}]+)";
  } else {
    const std::string no_han = r.han_first ? R"(&&[^\p{Han}])" : "";
    const std::string upper = R"([\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M})" + no_han + "]";
    const std::string lower = R"([\p{Ll}\p{Lm}\p{Lo}\p{M})" + no_han + "]";
    const std::string suffix = r.contraction == sc::Contraction::kSuffix ? contractions + "?" : "";
    p += prefix + upper + "*" + lower + "+" + suffix + "|" + prefix + upper + "+" + lower + "*" + suffix;
  }
  p += r.max_digits == 0   ? R"(|\p{N}+)"
       : r.max_digits == 1 ? R"(|\p{N})"
                           : R"(|\p{N}{1,)" + std::to_string(r.max_digits) + "}";
  p += r.punct_excludes_marks ? R"(| ?[^\s\p{L}\p{M}\p{N}]+)" : R"(| ?[^\s\p{L}\p{N}]+)";
  p += r.punct_tail_slash ? R"([\r\n/]*)" : R"([\r\n]*)";
  p += r.space_run_to_end ? R"(|\s++$|\s*[\r\n]|\s+(?!\S)|\s)" : R"(|\s*[\r\n]+|\s+(?!\S)|\s+)";
  return p;
}

// Every rule set the recognizer may return (pattern_family.hpp's shapes),
// with digit groups of 0 (\p{N}+) to 4.
std::vector<sc::SplitRules> every_split_rules() {
  std::vector<sc::SplitRules> all;
  for (int digits = 0; digits <= 4; ++digits) {
    for (int slash = 0; slash < 2; ++slash) {
      for (int to_end = 0; to_end < 2; ++to_end) {
        for (sc::Contraction c : {sc::Contraction::kNone, sc::Contraction::kLeading}) {
          for (int letters = 0; letters < 3; ++letters) {
            all.push_back({c, letters == 0 ? sc::Letters::kL : sc::Letters::kLM, false,
                           static_cast<std::uint8_t>(digits), letters == 2, slash == 1, to_end == 1});
          }
        }
        for (sc::Contraction c : {sc::Contraction::kNone, sc::Contraction::kSuffix}) {
          for (int han = 0; han < 2; ++han) {
            all.push_back({c, sc::Letters::kCaseSplit, han == 1, static_cast<std::uint8_t>(digits), false,
                           slash == 1, to_end == 1});
          }
        }
      }
    }
  }
  return all;
}

// Returns the i-th random text of the mix the scanner tests use.
std::string mixed_text(std::mt19937& rng, int i) {
  switch (i % 4) {
    case 0: return random_run_text(rng, 1 + (i * 13) % 300);
    case 1: return random_family_text(rng, 1 + i % 150);
    case 2: return random_ascii_text(rng, 1 + (i * 7) % 300);
    default: return random_text(rng, 1 + i % 150);
  }
}

// The variants tokenizer files take one step from the listed patterns.
struct Variant {
  std::string name;
  std::string pattern;
};

std::vector<Variant> recognised_variants() {
  auto with = [](sc::SplitRules r, auto change) {
    change(r);
    return spell_split(r);
  };
  std::string gpt2_digit_tiktoken(sc::kGpt2TiktokenPattern);
  gpt2_digit_tiktoken.replace(gpt2_digit_tiktoken.find(R"( ?\p{N}++)"), 9, R"( ?\p{N})");
  return {
      {"o200k \\p{N}", with(sc::kO200kRules, [](auto& r) { r.max_digits = 1; })},
      {"o200k \\p{N}{1,2}", with(sc::kO200kRules, [](auto& r) { r.max_digits = 2; })},
      {"cl100k \\p{N}{1,2}", with(sc::kCl100kRules, [](auto& r) { r.max_digits = 2; })},
      {"cl100k \\p{N}+", with(sc::kCl100kRules, [](auto& r) { r.max_digits = 0; })},
      {"nemotron \\p{N}{1,3}", with(sc::kNemotronRules, [](auto& r) { r.max_digits = 3; })},
      {"cl100k [\\p{L}\\p{M}]+", with(sc::kCl100kRules, [](auto& r) { r.letters = sc::Letters::kLM; })},
      {"kimi \\p{N}{1,4}", with(sc::kKimiRules, [](auto& r) { r.max_digits = 4; })},
      {"gpt2 ?\\p{N}", std::string(sc::kGpt2SingleDigitPattern)},
      {"gpt2 ?\\p{N} tiktoken", gpt2_digit_tiktoken},
      {"cl100k respelt",
       R"('(?i:[sdmt]|ll|ve|re)|[^\n\r\p{N}\p{L}]?[\p{L}]+|\p{N}{1,3}| ?[^\p{L}\s\p{N}]+[\n\r]*|\s*[\n\r]|\s+(?!\S)|\s)"},
  };
}

}  // namespace

TEST_CASE("pattern parser: canonical text of respellings") {
  auto canon = [](std::string_view p) {
    const auto t = sc::pattern::parse(p);
    return t ? sc::pattern::render(*t) : std::string("<none>");
  };
  CHECK(canon(R"([\p{L}])") == canon(R"(\p{L})"));
  CHECK(canon(R"([\r\n])") == canon(R"([\n\r])"));
  CHECK(canon(R"([\r\n])") == canon(R"([\x0D\x{a}\n])"));
  CHECK(canon(R"(\S)") == canon(R"([^\s])"));
  CHECK(canon(R"(\P{L})") == canon(R"([^\p{L}])"));
  CHECK(canon(R"([/])") == canon(R"(\/)"));
  CHECK(canon(R"((?:a)(?:b|c)|d)") == canon(R"(a(?:b|c)|(?:d))"));
  CHECK(canon(R"(x{1}+)") == canon(R"(x+)"));
  CHECK(canon(R"(x{0,1})") == canon(R"(x?)"));
  CHECK(canon(R"([a&&[^b]])") == canon(R"([[^b]&&a])"));
  CHECK(canon(R"((?i:'s))") == canon(R"('(?i:s))"));
  CHECK(canon(R"(\p{N}{1,3}+)") == canon(R"((?:\p{N}{1,3})+)"));  // Ruby: not possessive
  CHECK(canon(R"(\p{N}++)") != canon(R"(\p{N}+)"));
  CHECK(canon(R"(\p{N}{1,3}?)") != canon(R"(\p{N}{1,3})"));
  CHECK(canon(R"((?i:s))") != canon(R"(s)"));
  CHECK(canon(R"(\p{L}+)") != canon(R"(\p{l}+)"));
  for (std::string_view outside : {R"(\d)", R"(\w+)", R"((a)\1)", R"(\K)", R"([[:alpha:]])", R"(a{,)", R"([]a])",
                                   R"((?<n>a))", R"(\xFF)", "(", "[a", "a)"}) {
    CHECK_MESSAGE(!sc::pattern::parse(outside), outside);
  }
}

TEST_CASE("pattern recognition: every listed pattern maps to the scanner and rules it runs on") {
  for (const auto& f : sc::kFixedSplitKinds) {
    std::string_view pattern;
    for (const auto& e : sc::kScanners) {
      if (e.kind == f.kind) pattern = e.pattern;
    }
    const auto m = sc::match_family(pattern);
    REQUIRE_MESSAGE(m, sc::scanner_name(f.kind));
    CHECK(m->family == sc::FamilyMatch::Family::kSplit);
    CHECK_MESSAGE(m->rules == f.rules, sc::scanner_name(f.kind));
  }
  for (std::string_view p : {sc::kGpt2Pattern, sc::kGpt2TiktokenPattern, sc::kGpt2SingleDigitPattern}) {
    const auto m = sc::match_family(p);
    REQUIRE(m);
    CHECK(m->family == sc::FamilyMatch::Family::kGpt2);
    CHECK(m->gpt2_single_digits == (p == sc::kGpt2SingleDigitPattern));
  }
  for (const auto& e : sc::kScanners) {
    CHECK(sc::recognize_scanner(e.pattern).kind == e.kind);
    if (e.name.substr(0, 8) == "deepseek") CHECK(!sc::match_family(e.pattern));
  }
}

TEST_CASE("pattern recognition: the family's rule sets round-trip through their spelling") {
  for (const sc::SplitRules& r : every_split_rules()) {
    const std::string p = spell_split(r);
    const auto m = sc::match_family(p);
    REQUIRE_MESSAGE(m, p);
    CHECK_MESSAGE(m->rules == r, p);
    const sc::Scanner s = sc::recognize_scanner(p);
    CHECK(s.rules == r);
    CHECK(s.kind != sc::ScannerKind::kNone);
  }
  // A known rule set, however spelt, runs on its compiled-in scanner.
  CHECK(sc::recognize_scanner(recognised_variants().back().pattern).kind == sc::ScannerKind::kCl100k);
  CHECK(sc::recognize_scanner(spell_split(sc::kO200kRules)).kind == sc::ScannerKind::kO200k);
}

TEST_CASE("pattern recognition: respellings that Oniguruma matches alike") {
  const std::string cl100k(sc::kCl100kPattern), o200k(sc::kO200kPattern), gpt2(sc::kGpt2Pattern);
  auto replaced = [](std::string p, std::string_view from, std::string_view to) {
    const std::size_t at = p.find(from);
    REQUIRE(at != std::string::npos);
    return p.replace(at, from.size(), to);
  };
  const std::pair<std::string, sc::ScannerKind> cases[] = {
      {replaced(cl100k, R"((?i:'s|'t|'re|'ve|'m|'ll|'d))", R"((?i:'d|'ll|'m|'re|'s|'t|'ve))"), sc::ScannerKind::kCl100k},
      {replaced(cl100k, R"((?i:'s|'t|'re|'ve|'m|'ll|'d))", R"('(?i:[sdmt]|ll|ve|re))"), sc::ScannerKind::kCl100k},
      {replaced(cl100k, R"(\p{L}+)", R"([\p{L}]+)"), sc::ScannerKind::kCl100k},
      {replaced(cl100k, R"(\p{L}+)", R"(\p{L}++)"), sc::ScannerKind::kCl100k},
      {replaced(cl100k, R"([\r\n]*|)", R"([\n\r]*+|)"), sc::ScannerKind::kCl100k},
      {replaced(cl100k, R"(\p{N}{1,3})", R"(\p{N}{1,3}+)"), sc::ScannerKind::kSplitRules},
      {replaced(cl100k, R"(\s*[\r\n]+)", R"(\s*[\r\n])"), sc::ScannerKind::kCl100k},
      {replaced(cl100k, R"(\s+(?!\S)|\s+)", R"(\s+(?![^\s])|\s)"), sc::ScannerKind::kCl100k},
      {"(?:" + cl100k + ")", sc::ScannerKind::kCl100k},
      {replaced(std::string(sc::kCl100kTiktokenPattern), R"(\s++$)", R"(\s++\z)"), sc::ScannerKind::kCl100kTiktoken},
      {replaced(std::string(sc::kGpt2TiktokenPattern), R"(\s++$)", R"(\s++\z)"), sc::ScannerKind::kGpt2},
      {replaced(o200k, R"([\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*)", R"([\p{M}\p{Lo}\p{Lm}\p{Lt}\p{Lu}]*)"),
       sc::ScannerKind::kO200k},
      {replaced(o200k, R"(\p{N}{1,3})", R"(\p{N}{1,1})"), sc::ScannerKind::kSplitRules},
      {replaced(gpt2, R"('s|'t|'re|'ve|'m|'ll|'d)", R"('ll|'s|'d|'t|'re|'ve|'m)"), sc::ScannerKind::kGpt2},
      {replaced(gpt2, R"('s|'t|'re|'ve|'m|'ll|'d)", R"('(?:[sdmt]|ll|ve|re))"), sc::ScannerKind::kGpt2},
      {replaced(gpt2, R"( ?\p{N}+)", R"( ?\p{N}{1})"), sc::ScannerKind::kGpt2SingleDigit},
  };
  for (const auto& [p, kind] : cases) {
    CHECK_MESSAGE(sc::recognize_scanner(p).kind == kind, p);
    std::mt19937 rng(5);
    for (int i = 0; i < 2000; ++i) check_same(p, mixed_text(rng, i), p + " #" + std::to_string(i));
  }
}

TEST_CASE("pattern recognition: near misses stay on Oniguruma") {
  const std::string cl100k(sc::kCl100kPattern), o200k(sc::kO200kPattern), gpt2(sc::kGpt2Pattern);
  auto replaced = [](std::string p, std::string_view from, std::string_view to) {
    const std::size_t at = p.find(from);
    REQUIRE(at != std::string::npos);
    return p.replace(at, from.size(), to);
  };
  const std::string misses[] = {
      replaced(o200k, R"(\p{N}{1,3})", R"(\p{N}{2,3})"),
      replaced(cl100k, R"(\p{N}{1,3})", R"(\p{N}{1,3}?)"),
      replaced(cl100k, R"(\p{N}{1,3})", R"(\p{N}{1,17})"),
      replaced(cl100k, R"(\p{N}{1,3})", R"(\d{1,3})"),
      replaced(cl100k, R"(|\s+(?!\S))", ""),
      replaced(cl100k, R"(\s+(?!\S)|\s+)", R"(\s+|\s+(?!\S))"),
      cl100k + "|x",
      "x|" + cl100k,
      replaced(cl100k, R"([^\r\n\p{L}\p{N}]?\p{L}+)", R"((?i:[^\r\n\p{L}\p{N}]?\p{L}+))"),
      replaced(cl100k, R"((?i:'s|'t|'re|'ve|'m|'ll|'d))", R"((?i:'s|'t|'re|'ve|'m|'ll))"),
      replaced(cl100k, R"((?i:'s|'t|'re|'ve|'m|'ll|'d))", R"('s|'t|'re|'ve|'m|'ll|'d)"),
      replaced(cl100k, R"((?i:'s|'t|'re|'ve|'m|'ll|'d))", R"((?i:'s|'t|'re|'ve|'m|'ll|'d|'r))"),
      replaced(cl100k, R"([^\r\n\p{L}\p{N}]?)", R"([^\r\p{L}\p{N}]?)"),
      replaced(cl100k, R"([^\r\n\p{L}\p{N}]?\p{L}+)", R"([^\r\n\p{L}\p{N}]?+[\p{L}\p{M}]++)"),
      replaced(cl100k, R"( ?[^\s\p{L}\p{N}]+[\r\n]*)", R"( ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*)"),
      replaced(cl100k, R"([\r\n]*)", R"([\r\n]*\p{L})"),
      replaced(cl100k, R"(\s*[\r\n]+)", R"(\s*[\r\n]+?)"),
      replaced(cl100k, R"(\s+(?!\S)|\s+)", R"(\s++(?!\S)|\s+)"),
      replaced(cl100k, R"(\p{L}+)", R"(\p{L}*)"),
      "(?i)" + cl100k,
      replaced(o200k, R"((?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^)", R"(|[^)"),
      replaced(o200k, R"([\p{Ll}\p{Lm}\p{Lo}\p{M}]+)", R"([\p{Ll}\p{Lm}\p{Lo}]+)"),
      "[\\p{Han}]+|" + o200k,
      replaced(gpt2, R"( ?\p{N}+)", R"( ?\p{N}{1,3})"),
      replaced(gpt2, R"( ?\p{L}+)", R"(\p{L}+)"),
      replaced(gpt2, R"('s|'t)", R"('S|'t)"),
      replaced(gpt2, R"(|\s+(?!\S))", ""),
      replaced(gpt2, R"('s|'t|'re|'ve|'m|'ll|'d|)", R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|)"),
  };
  for (const std::string& p : misses) {
    CHECK_MESSAGE(!sc::match_family(p), p);
    CHECK_MESSAGE(sc::recognize_scanner(p).kind == sc::ScannerKind::kNone, p);
  }
}

TEST_CASE("recognised variants equal Oniguruma on random and real text") {
  const std::string sample = read_file(SNAPTOK_TEST_DATA_DIR "/../../python/snaptok/data/sample.txt");
  REQUIRE(!sample.empty());
  // Under emulation the families' every-code-point check (test_scanners.cpp)
  // stands for the variants'.
  const std::string every = emulated() ? std::string() : every_code_point_text();
  for (const Variant& v : recognised_variants()) {
    CHECK_MESSAGE(snaptok::detail::Regex(v.pattern, "t").scanner_name() != "", v.name);
    check_same(v.pattern, sample, v.name + " sample");
    if (!every.empty()) check_same(v.pattern, every, v.name + " every code point");
    std::mt19937 rng(2024);
    for (int i = 0; i < scaled(20000); ++i) check_same(v.pattern, mixed_text(rng, i), v.name + " #" + std::to_string(i));
  }
}

TEST_CASE("every rule set the recognizer returns equals Oniguruma") {
  for (const sc::SplitRules& r : every_split_rules()) {
    const std::string p = spell_split(r);
    std::mt19937 rng(31);
    for (int i = 0; i < scaled(1200); ++i) check_same(p, mixed_text(rng, i), p + " #" + std::to_string(i));
  }
  for (const std::string_view gpt2 : {sc::kGpt2SingleDigitPattern}) {
    std::mt19937 rng(32);
    for (int i = 0; i < scaled(20000); ++i) check_same(gpt2, mixed_text(rng, i), "gpt2 single digit #" + std::to_string(i));
  }
}

TEST_CASE("recognised variants cut at every cut point") {
  for (const Variant& v : recognised_variants()) {
    const snaptok::detail::Regex onig(v.pattern, "test", /*use_scanner=*/false);
    CHECK(sc::cuts_at_cut_points(sc::recognize_scanner(v.pattern).kind));
    std::mt19937 rng(4243);
    for (int i = 0; i < 2000; ++i) {
      const std::string text = random_cut_text(rng, 8 + i % 150);
      const std::vector<std::size_t> whole = piece_edges(onig, text, 0);
      for (std::size_t at = sc::next_cut_point(text, 0); at != std::string_view::npos;
           at = sc::next_cut_point(text, at + 1)) {
        std::vector<std::size_t> parts = piece_edges(onig, std::string_view(text).substr(0, at), 0);
        const std::vector<std::size_t> second = piece_edges(onig, std::string_view(text).substr(at), at);
        parts.insert(parts.end(), second.begin() + 1, second.end());
        CHECK_MESSAGE(std::binary_search(whole.begin(), whole.end(), at), v.name << " at " << at);
        if (parts != whole) FAIL_CHECK(v.name << ": cutting at " << at << " changes the pieces of \"" << text << "\"");
      }
    }
  }
}

#ifndef SNAPTOK_NO_HIGHWAY
TEST_CASE("recognised variants equal Oniguruma on every compiled Highway target") {
  const std::vector<std::int64_t> targets = snaptok::simd::detail::supported_compiled_targets();
  REQUIRE(!targets.empty());
  for (const std::int64_t target : targets) {
    snaptok::simd::detail::set_supported_targets_for_test(target);
    const std::string name = hwy::TargetName(target);
    for (const Variant& v : recognised_variants()) {
      std::mt19937 rng(77);
      for (int i = 0; i < 1000; ++i) check_same(v.pattern, mixed_text(rng, i), name + " " + v.name + " #" + std::to_string(i));
    }
  }
  snaptok::simd::detail::set_supported_targets_for_test(0);
}
#endif

}  // namespace pattern_recognition_tests
