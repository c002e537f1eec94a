// Oniguruma, the regex engine Hugging Face `tokenizers` uses for Split and
// ByteLevel patterns: same syntax (Oniguruma's default), same semantics, same
// iteration over matches (an empty match right after the previous match is
// skipped by advancing one char, as the Rust `onig` crate does).
//
// The system Oniguruma may carry older Unicode data than the one bundled in
// the pinned `tokenizers`; pin_unicode_classes() therefore rewrites every
// Unicode-dependent class of a pattern (\p{..}, \P{..}, \w, \W, \d, \D,
// POSIX brackets) into explicit ranges generated from that release, as it
// means alone or inside a bracket (unicode/pinned_classes.hpp).
#pragma once

#include <oniguruma.h>

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "snaptok/error.hpp"
#include "snaptok/normalized_string.hpp"
#include "snaptok/scanners/automaton.hpp"
#include "snaptok/scanners/match_loop.hpp"
#include "snaptok/scanners/registry.hpp"
#include "snaptok/unicode/pinned_classes.hpp"

namespace snaptok::detail {

class Regex {
 public:
  /// Compiles `pattern`; `where` names the JSON path for errors. A pattern a
  /// hand-written scanner reproduces exactly (scanners/registry.hpp: GPT-2,
  /// cl100k, o200k, ..., and the family members recognised by structure)
  /// runs on that scanner unless `use_scanner` is false.
  Regex(std::string_view pattern, std::string_view where, bool use_scanner = true)
      : pattern_(pattern),
        where_(where),
        scanner_(use_scanner ? scanners::recognize_scanner(pattern) : scanners::Scanner{}),
        automaton_(use_scanner && scanner_.kind == scanners::ScannerKind::kNone
                       ? scanners::Automaton::compile(pattern)
                       : nullptr) {
    const std::string pinned = pin_unicode_classes(pattern);
    static std::once_flag init;
    std::call_once(init, [] {
      OnigEncoding encodings[] = {ONIG_ENCODING_UTF8};
      onig_initialize(encodings, 1);
    });
    OnigErrorInfo info;
    regex_t* re = nullptr;
    const auto* p = reinterpret_cast<const OnigUChar*>(pinned.data());
    const int rc = onig_new(&re, p, p + pinned.size(), ONIG_OPTION_NONE,
                            ONIG_ENCODING_UTF8, OnigDefaultSyntax, &info);
    if (rc != ONIG_NORMAL) {
      OnigUChar msg[ONIG_MAX_ERROR_MESSAGE_LEN];
      onig_error_code_to_str(msg, rc, &info);
      throw Error(std::string(where) + ": invalid regex \"" + pattern_ +
                  "\": " + reinterpret_cast<const char*>(msg));
    }
    re_.reset(re);
  }

  const std::string& pattern() const noexcept { return pattern_; }

  /// Returns the name of the scanner this regex runs on: a hand-written one
  /// ("gpt2", "cl100k", "o200k", ...), "automaton" for a pattern compiled
  /// at load (scanners/automaton.hpp), or "" when it runs on Oniguruma.
  std::string_view scanner_name() const noexcept {
    return automaton_ ? "automaton" : scanners::scanner_name(scanner_.kind);
  }
  /// True when the regex runs on a scanner, hand-written or compiled.
  bool compiled() const noexcept { return automaton_ || scanner_.kind != scanners::ScannerKind::kNone; }
  /// The hand-written scanner this regex runs on (kNone: Oniguruma).
  scanners::ScannerKind scanner() const noexcept { return scanner_.kind; }
  /// The rules of a kSplitRules scanner (scanners/registry.hpp).
  const scanners::SplitRules& scanner_rules() const noexcept { return scanner_.rules; }

  /// Backtracking bounds, so that a pattern that backtracks catastrophically
  /// fails with an Error instead of hanging.
  /// - One match attempt may take kRetryLimitInMatch steps: Oniguruma's
  ///   default, the bound HF `tokenizers` runs under (HF panics where snaptok
  ///   throws).
  /// - One search for the next match, across all of its start positions, may
  ///   take kRetryLimitInMatch plus kRetryStepsPerByte for each byte it covers.
  ///   HF has no such bound; ordinary patterns take a few steps per byte, and
  ///   65,536 steps take over a millisecond, so this refuses only texts that HF
  ///   encodes at under 1 KB/s.
  static constexpr unsigned long kRetryLimitInMatch = 10'000'000;
  static constexpr unsigned long kRetryStepsPerByte = 65'536;

  /// Calls fn(start, end) for each successive match in `text`. Throws Error
  /// when a search passes the retry limits above.
  template <class Fn>
  void for_each_match(std::string_view text, Fn&& fn) const {
    if (scanners::run_scanner(scanner_, text, fn)) return;
    if (automaton_) return automaton_->for_each_match(text, fn);
    thread_local std::unique_ptr<OnigRegion, RegionFree> region(
        onig_region_new());
    thread_local std::unique_ptr<OnigMatchParam, MatchParamFree> param(
        onig_new_match_param());
    const auto* begin = reinterpret_cast<const OnigUChar*>(text.data());
    const auto* end = begin + text.size();
    scanners::for_each_search_match(
        text,
        [&](std::size_t pos, std::size_t& s, std::size_t& e) {
          onig_region_clear(region.get());
          onig_initialize_match_param(param.get());
          onig_set_retry_limit_in_match_of_match_param(param.get(), kRetryLimitInMatch);
          onig_set_retry_limit_in_search_of_match_param(
              param.get(), kRetryLimitInMatch + kRetryStepsPerByte * (text.size() - pos));
          const int r = onig_search_with_param(re_.get(), begin, end, begin + pos, end,
                                               region.get(), ONIG_OPTION_NONE, param.get());
          if (r < 0) {
            if (r == ONIG_MISMATCH) return false;
            throw search_error(r, pos);
          }
          s = static_cast<std::size_t>(region.get()->beg[0]);
          e = static_cast<std::size_t>(region.get()->end[0]);
          return true;
        },
        fn);
  }

  /// Calls item(start, end, is_match) for each part of the partition of
  /// `text` into matches and gaps, in order (HF Pattern find_matches for a
  /// SysRegex): an empty text gives one empty gap.
  template <class Item>
  void for_each_item(std::string_view text, Item&& item) const {
    if (text.empty()) {
      item(std::size_t{0}, std::size_t{0}, false);
      return;
    }
    std::size_t prev = 0;
    for_each_match(text, [&](std::size_t s, std::size_t e) {
      if (prev != s) item(prev, s, false);
      item(s, e, true);
      prev = e;
    });
    if (prev != text.size()) item(prev, text.size(), false);
  }

  /// Returns the partition for_each_item gives.
  std::vector<PatternMatch> find_matches(std::string_view text) const {
    return collect_partition([&](auto&& item) { for_each_item(text, item); });
  }

 private:
  Error search_error(int code, std::size_t pos) const {
    OnigUChar msg[ONIG_MAX_ERROR_MESSAGE_LEN];
    onig_error_code_to_str(msg, code);
    std::string text = where_ + ": regex \"" + pattern_ + "\" failed on the input, searching from byte " +
                       std::to_string(pos) + ": " + reinterpret_cast<const char*>(msg);
    if (code == ONIGERR_RETRY_LIMIT_IN_MATCH_OVER)
      text += " (the pattern backtracks catastrophically on this text: one match attempt took over " +
              std::to_string(kRetryLimitInMatch) + " steps; HF tokenizers panics here)";
    if (code == ONIGERR_RETRY_LIMIT_IN_SEARCH_OVER)
      text += " (the pattern backtracks catastrophically on this text: the search took over " +
              std::to_string(kRetryStepsPerByte) + " steps per byte)";
    return Error(text);
  }

  struct RegexFree {
    void operator()(regex_t* r) const noexcept { onig_free(r); }
  };
  struct RegionFree {
    void operator()(OnigRegion* r) const noexcept { onig_region_free(r, 1); }
  };
  struct MatchParamFree {
    void operator()(OnigMatchParam* p) const noexcept { onig_free_match_param(p); }
  };

  std::string pattern_;
  std::string where_;
  scanners::Scanner scanner_;
  std::shared_ptr<const scanners::Automaton> automaton_;  // a pattern no scanner has, compiled
  std::unique_ptr<regex_t, RegexFree> re_;
};

}  // namespace snaptok::detail
