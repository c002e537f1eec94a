// The hand-written scanners and the exact pattern strings they reproduce:
// find_scanner() picks one for a pattern, run_scanner() runs it. A pattern
// that is not listed here, even one that means the same, runs on Oniguruma.
#pragma once

#include <cstdint>
#include <string_view>

#include "snaptok/scanners/deepseek.hpp"
#include "snaptok/scanners/gpt2.hpp"
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
};

// Returns the scanner that reproduces exactly `pattern`, or kNone.
inline ScannerKind find_scanner(std::string_view pattern) noexcept {
  for (const auto& e : kScanners) {
    if (e.pattern == pattern) return e.kind;
  }
  return ScannerKind::kNone;
}

// Returns the name of `kind` ("o200k", ...), or "" for kNone.
inline std::string_view scanner_name(ScannerKind kind) noexcept {
  for (const auto& e : kScanners) {
    if (e.kind == kind) return e.name;
  }
  return {};
}

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
  }
  return false;
}

}  // namespace snaptok::scanners
