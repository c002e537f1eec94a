// The hand-written scanners and the exact pattern strings they reproduce:
// find_scanner() picks one for a listed pattern; recognize_scanner() also
// for any other member of their families, recognised by its structure
// (pattern_family.hpp); run_scanner() runs it. A pattern neither listed nor
// recognised runs on Oniguruma.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "snaptok/scanners/deepseek.hpp"
#include "snaptok/scanners/gpt2.hpp"
#include "snaptok/scanners/pattern_family.hpp"
#include "snaptok/scanners/split_family.hpp"

namespace snaptok::scanners {

enum class ScannerKind : std::uint8_t {
  kNone,  // Oniguruma
  kGpt2,
  kCl100k,
  kCl100kTiktoken,
  kQwen2,
  kQwen35,
  kO200k,
  kNemotron,
  kKimi,
  kDeepSeekDigits,
  kDeepSeekCjk,
  kDeepSeek,
  kGpt2SingleDigit,  // GPT-2 with ` ?\p{N}` (kGpt2SingleDigitPattern)
  kSplitRules,       // a family member with other rules: Scanner::rules, read at run time
};

/// A scanner with its parameters: the rules of a kSplitRules scanner.
struct Scanner {
  ScannerKind kind = ScannerKind::kNone;
  SplitRules rules{};
};

struct ScannerEntry {
  ScannerKind kind;
  std::string_view name;
  std::string_view pattern;
};

inline constexpr ScannerEntry kScanners[] = {
    {ScannerKind::kGpt2, "gpt2", kGpt2Pattern},
    {ScannerKind::kGpt2, "gpt2", kGpt2TiktokenPattern},  // the same matches (gpt2.hpp)
    {ScannerKind::kCl100k, "cl100k", kCl100kPattern},
    {ScannerKind::kCl100kTiktoken, "cl100k-tiktoken", kCl100kTiktokenPattern},
    {ScannerKind::kQwen2, "qwen2", kQwen2Pattern},
    {ScannerKind::kQwen35, "qwen3.5", kQwen35Pattern},
    {ScannerKind::kO200k, "o200k", kO200kPattern},
    {ScannerKind::kNemotron, "nemotron", kNemotronPattern},
    {ScannerKind::kKimi, "kimi", kKimiPattern},
    {ScannerKind::kDeepSeekDigits, "deepseek-digits", kDeepSeekDigitsPattern},
    {ScannerKind::kDeepSeekCjk, "deepseek-cjk", kDeepSeekCjkPattern},
    {ScannerKind::kDeepSeek, "deepseek", kDeepSeekPattern},
    {ScannerKind::kGpt2SingleDigit, "gpt2-single-digit", kGpt2SingleDigitPattern},
};

// The family kinds whose rules are compiled in (scan_split<R>).
struct FixedSplitKind {
  ScannerKind kind;
  SplitRules rules;
};
inline constexpr FixedSplitKind kFixedSplitKinds[] = {
    {ScannerKind::kCl100k, kCl100kRules}, {ScannerKind::kCl100kTiktoken, kCl100kTiktokenRules},
    {ScannerKind::kQwen2, kQwen2Rules},   {ScannerKind::kQwen35, kQwen35Rules},
    {ScannerKind::kO200k, kO200kRules},   {ScannerKind::kNemotron, kNemotronRules},
    {ScannerKind::kKimi, kKimiRules},
};

// Returns the scanner that reproduces exactly `pattern`, or kNone.
inline ScannerKind find_scanner(std::string_view pattern) noexcept {
  for (const auto& e : kScanners) {
    if (e.pattern == pattern) return e.kind;
  }
  return ScannerKind::kNone;
}

// Returns the scanner that reproduces exactly `pattern`: a listed one, else
// one of the families' that recognises its structure, else kind kNone. A
// rule set that a listed scanner has runs on that scanner (compiled in).
inline Scanner recognize_scanner(std::string_view pattern) {
  if (const ScannerKind kind = find_scanner(pattern); kind != ScannerKind::kNone) {
    for (const auto& f : kFixedSplitKinds) {
      if (f.kind == kind) return {kind, f.rules};
    }
    return {kind};
  }
  const std::optional<FamilyMatch> m = match_family(pattern);
  if (!m) return {};
  if (m->family == FamilyMatch::Family::kGpt2) {
    return {m->gpt2_single_digits ? ScannerKind::kGpt2SingleDigit : ScannerKind::kGpt2};
  }
  for (const auto& f : kFixedSplitKinds) {
    if (f.rules == m->rules) return {f.kind, f.rules};
  }
  return {ScannerKind::kSplitRules, m->rules};
}

// Returns the name of `kind` ("o200k", ...), or "" for kNone.
inline std::string_view scanner_name(ScannerKind kind) noexcept {
  if (kind == ScannerKind::kSplitRules) return "split-rules";
  for (const auto& e : kScanners) {
    if (e.kind == kind) return e.name;
  }
  return {};
}

namespace registry_detail {

// Runs the scanners no listed pattern uses (kGpt2SingleDigit, kSplitRules),
// out of line: inlined into run_scanner's callers, they grew them past the
// inliner's budgets, and the listed scanners lost inlining there (GPT-2's
// instructions +2.7% under callgrind).
template <class Fn>
SNAPTOK_SCANNER_OUT_OF_LINE void run_recognised(const Scanner& scanner, std::string_view text, Fn& fn) {
  if (scanner.kind == ScannerKind::kGpt2SingleDigit) {
    scan_gpt2<true>(text, fn);
  } else {
    scan_split_with(scanner.rules, text, fn);
  }
}

}  // namespace registry_detail

/// Calls fn(start, end) for each successive match of the pattern `kind`
/// reproduces; returns false (calling nothing) for kNone, e.g.
///   run_scanner(find_scanner(kO200kPattern), text, [](std::size_t s, std::size_t e) {...});
template <class Fn>
bool run_scanner(ScannerKind kind, std::string_view text, Fn&& fn) {
  switch (kind) {
    case ScannerKind::kNone: return false;
    case ScannerKind::kGpt2: scan_gpt2(text, fn); return true;
    case ScannerKind::kCl100k: scan_split<kCl100kRules>(text, fn); return true;
    case ScannerKind::kCl100kTiktoken: scan_split<kCl100kTiktokenRules>(text, fn); return true;
    case ScannerKind::kQwen2: scan_split<kQwen2Rules>(text, fn); return true;
    case ScannerKind::kQwen35: scan_split<kQwen35Rules>(text, fn); return true;
    case ScannerKind::kO200k: scan_split<kO200kRules>(text, fn); return true;
    case ScannerKind::kNemotron: scan_split<kNemotronRules>(text, fn); return true;
    case ScannerKind::kKimi: scan_split<kKimiRules>(text, fn); return true;
    case ScannerKind::kDeepSeekDigits: scan_deepseek_digits(text, fn); return true;
    case ScannerKind::kDeepSeekCjk: scan_deepseek_cjk(text, fn); return true;
    case ScannerKind::kDeepSeek: scan_deepseek(text, fn); return true;
    case ScannerKind::kGpt2SingleDigit: registry_detail::run_recognised(Scanner{kind}, text, fn); return true;
    case ScannerKind::kSplitRules: return false;  // needs its rules: run_scanner(Scanner, ...)
  }
  return false;
}

/// Calls fn(start, end) for each successive match of the pattern `scanner`
/// reproduces; returns false (calling nothing) for kind kNone, e.g.
///   run_scanner(recognize_scanner(pattern), text, [](std::size_t s, std::size_t e) {...});
template <class Fn>
bool run_scanner(const Scanner& scanner, std::string_view text, Fn&& fn) {
  if (scanner.kind == ScannerKind::kSplitRules) {
    registry_detail::run_recognised(scanner, text, fn);
    return true;
  }
  return run_scanner(scanner.kind, text, fn);
}

}  // namespace snaptok::scanners
