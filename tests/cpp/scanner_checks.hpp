// Shared by the scanner tests (test_scanners.cpp, test_pattern_recognition.cpp):
// scanner-against-Oniguruma checks, text generators, the listed patterns, the
// real-text files and piece edges for the cut-point checks.
#pragma once

#include <simdjson.h>
#include <snaptok/detail/regex.hpp>
#include <snaptok/scanners/block_masks.hpp>
#include <snaptok/scanners/cut_points.hpp>
#include <snaptok/simd/dispatch.hpp>
#include <algorithm>
#include <cstdlib>
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
#include <doctest/doctest.h>

namespace scanner_test {


using Matches = std::vector<std::pair<std::size_t, std::size_t>>;

inline Matches matches_of(const snaptok::detail::Regex& re, std::string_view text) {
  Matches out;
  re.for_each_match(text, [&](std::size_t s, std::size_t e) { out.emplace_back(s, e); });
  return out;
}

inline void check_same(std::string_view pattern, std::string_view text, const std::string& what) {
  // Compiling a pinned pattern is slow: keep both regexes of each pattern.
  static std::map<std::string, std::pair<snaptok::detail::Regex, snaptok::detail::Regex>, std::less<>> cache;
  auto it = cache.find(pattern);
  if (it == cache.end()) {
    it = cache.try_emplace(std::string(pattern), snaptok::detail::Regex(pattern, "test", true),
                           snaptok::detail::Regex(pattern, "test", false)).first;
  }
  const auto& [scanner, onig] = it->second;
  const Matches a = matches_of(scanner, text), b = matches_of(onig, text);
  CHECK(a.size() == b.size());
  if (a != b) {
    std::size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
    const std::size_t at = i < b.size() ? b[i].first : (i < a.size() ? a[i].first : 0);
    FAIL_CHECK(what << ": scanner and Oniguruma differ at match " << i << ", byte " << at
                    << ": \"" << std::string(text.substr(at > 8 ? at - 8 : 0, 24)) << "\"");
  }
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Random text over letters of several scripts (incl. Unicode 16 letters the
// system Oniguruma does not know), digits, every kind of space, apostrophes
// and contraction letters, punctuation, marks and emoji.
inline std::string random_text(std::mt19937& rng, std::size_t n) {
  static const std::vector<std::string> pieces = {
      "a", "Z", "s", "t", "re", "ve", "m", "ll", "d", "'", "'", "\xE2\x80\x99", " ", " ", " ",
      "\t", "\n", "\r\n", "\xC2\xA0", "\xE3\x80\x80", "\xE2\x80\xA8", "\xC2\x85", "1", "42",
      "\xD9\xA3", "\xE2\x85\xA7", "!", "?!", "--", "_", "\xC3\xA9", "e\xCC\x81", "\xD0\x96",
      "\xE4\xB8\xAD", "\xE3\x81\x82", "\xF0\x9F\x98\x80", "\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x92\xBB",
      "\xE1\xB2\x89",  // U+1C89, a Unicode 16 letter
      "\xF0\x90\xB5\x80",  // U+10D40, a Unicode 16 digit
  };
  std::uniform_int_distribution<std::size_t> pick(0, pieces.size() - 1);
  std::string s;
  while (s.size() < n) s += pieces[pick(rng)];
  return s;
}

// Random text over the pieces the cl100k/o200k/DeepSeek families tell apart:
// case classes (Lu, Ll, Lt, Lm, Lo, marks), Han and kana, digit runs,
// apostrophes before contraction letters in both cases (and U+017F, which
// folds to 's', and the Kelvin sign), CR/LF mixes, '/' and other punct.
inline std::string random_family_text(std::mt19937& rng, std::size_t n) {
  static const std::vector<std::string> pieces = {
      "a", "b", "Z", "Q", "s", "S", "t", "T", "re", "RE", "Re", "ve", "VE", "m", "M", "ll", "LL",
      "lL", "d", "D", "'", "'", "'", "\xC5\xBF" /* U+017F */, "\xE2\x84\xAA" /* U+212A */,
      "\xE2\x80\x99", " ", " ", " ", "  ", "\t", "\n", "\r", "\r\n", "\n\n", "\x0B", "\x0C",
      "\xC2\xA0", "\xE3\x80\x80", "\xE2\x80\xA8", "\xC2\x85", "\xE2\x80\xAF", "1", "42", "12345",
      "\xD9\xA3", "\xE2\x85\xA7", "\xC2\xB2", "!", "?!", "--", "_", "/", "//", ".", ",", "$", "+",
      "`", "^", "\\", "\x01", "\x7F", "\xC3\xA9", "\xC3\x89", "e\xCC\x81", "\xCC\x81",
      "\xE0\xA4\xBE" /* U+093E Mc */, "\xD0\x96", "\xD0\xB6",
      "\xC7\x85" /* U+01C5 Lt */, "\xCA\xB0" /* U+02B0 Lm */, "\xE3\x80\x85" /* U+3005 Han Lm */,
      "\xE3\x80\x87" /* U+3007 Han Nl */, "\xE2\xBA\x80" /* U+2E80 Han So */,
      "\xE4\xB8\xAD", "\xE9\xBE\xA5", "\xE9\xBE\xA6", "\xE3\x81\x82", "\xE3\x82\xA2", "\xE3\x83\xBC",
      "\xEA\xB0\x80" /* Hangul Lo */, "\xD7\x90" /* Hebrew Lo */, "\xF0\x9F\x98\x80",
      "\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x92\xBB", "\xE2\x80\x8B" /* Cf */, "\xEF\xBF\xBD",
      "\xE1\xB2\x89",      // U+1C89, a Unicode 16 letter
      "\xF0\x90\xB5\x80",  // U+10D40, a Unicode 16 digit
      "\xF3\xA0\x84\x80",  // U+E0100, a variation selector (Mn)
  };
  std::uniform_int_distribution<std::size_t> pick(0, pieces.size() - 1);
  std::string s;
  while (s.size() < n) s += pieces[pick(rng)];
  return s;
}

// Random mostly-ASCII text with long runs (letters of one case or mixed,
// spaces, CR/LF, digits, punct) that cross the scanners' 64-byte mask blocks,
// and a few non-ASCII letters, spaces and marks at run edges.
inline std::string random_run_text(std::mt19937& rng, std::size_t n) {
  static const std::vector<std::string> alphabets = {
      "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "aAbBzZ", " ", " \t", "\r\n", "\n \n",
      "0123456789", "!?.,;:-_/()'\"", "'sStTdD", "\x01\x7F\x1F"};
  static const std::vector<std::string> rare = {"\xC3\xA9", "\xC3\x89", "\xCC\x81", "\xC2\xA0", "\xC2\x85",
                                                "\xE4\xB8\xAD", "\xD9\xA3", "\xC5\xBF", "\xE2\x80\x99"};
  std::uniform_int_distribution<std::size_t> pick_alphabet(0, alphabets.size() - 1), pick_rare(0, rare.size() - 1);
  std::uniform_int_distribution<int> run_len(1, 90), coin(0, 7);
  std::string s;
  while (s.size() < n) {
    if (coin(rng) == 0) {
      s += rare[pick_rare(rng)];
      continue;
    }
    const std::string& a = alphabets[pick_alphabet(rng)];
    std::uniform_int_distribution<std::size_t> pick(0, a.size() - 1);
    for (int k = run_len(rng); k > 0; --k) s += a[pick(rng)];
  }
  return s;
}

// Random text that is mostly ASCII (the scanners' block algebra), over
// what the patterns tell apart there: contractions in both cases, every
// ASCII space, runs of spaces before words, digits, punctuation; now and
// then a non-ASCII space, letter or mark, so the walker takes over and
// hands back in the middle of a block.
inline std::string random_ascii_text(std::mt19937& rng, std::size_t n) {
  static const std::vector<std::string> pieces = {
      "a", "b", "Z", "s", "S", "t", "re", "Re", "ve", "m", "ll", "LL", "d", "'", "'", "''", " ", " ", " ",
      " ", "  ", "   ", "\t", "\n", "\r", "\r\n", "\n\n", "\x0B", "\x0C", "1", "42", "12345", "!",
      "?!", ".", "_", "/", "\x01", "\x7F", "hello", " world", "don't", "we'll", "THE", "Hello"};
  static const std::vector<std::string> rare = {"\xC3\xA9", "\xCC\x81", "\xC2\xA0", "\xC2\x85",
                                                "\xE4\xB8\xAD", "\xD9\xA3", "\xC5\xBF", "\xE2\x80\x99"};
  std::uniform_int_distribution<std::size_t> pick(0, pieces.size() - 1), pick_rare(0, rare.size() - 1);
  std::uniform_int_distribution<int> coin(0, 59);
  std::string s;
  while (s.size() < n) s += coin(rng) == 0 ? rare[pick_rare(rng)] : pieces[pick(rng)];
  return s;
}

struct NamedPattern {
  std::string_view name;
  std::string_view pattern;
};

// Every pattern a scanner reproduces, GPT-2's aside (tested above).
inline const std::vector<NamedPattern>& family_patterns() {
  namespace sc = snaptok::scanners;
  static const std::vector<NamedPattern> all = {
      {"cl100k", sc::kCl100kPattern},
      {"cl100k-tiktoken", sc::kCl100kTiktokenPattern},
      {"qwen2", sc::kQwen2Pattern},
      {"qwen3.5", sc::kQwen35Pattern},
      {"o200k", sc::kO200kPattern},
      {"nemotron", sc::kNemotronPattern},
      {"kimi", sc::kKimiPattern},
      {"deepseek-digits", sc::kDeepSeekDigitsPattern},
      {"deepseek-cjk", sc::kDeepSeekCjkPattern},
      {"deepseek", sc::kDeepSeekPattern},
  };
  return all;
}

// Every pattern a scanner reproduces, GPT-2's included.
inline std::vector<NamedPattern> all_patterns() {
  std::vector<NamedPattern> all = {{"gpt2", snaptok::scanners::kGpt2Pattern}};
  for (const NamedPattern& p : family_patterns()) all.push_back(p);
  return all;
}

// Under qemu (tests/arm/run_qemu.sh sets SNAPTOK_TEST_EMULATED) the long
// differential checks run a tenth of their random texts and the first
// 256 KiB of each real text: emulated Oniguruma made them the step's half
// hour. The native runs check the scanners' logic on everything; the
// emulated runs the same cases through the target's kernels, which
// test_simd.cpp checks against their scalar references on every target.
inline bool emulated() {
  static const bool on = std::getenv("SNAPTOK_TEST_EMULATED") != nullptr;
  return on;
}
inline int scaled(int n) { return emulated() ? std::max(1, n / 10) : n; }

// Returns the text of real text file `path` (all of it, or under emulation
// its first 256 KiB, cut at a char boundary).
inline std::string real_text(const std::filesystem::path& path) {
  std::string text = read_file(path);
  if (emulated() && text.size() > (256 << 10)) {
    std::size_t end = 256 << 10;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    text.resize(end);
  }
  return text;
}

// Returns the real text files to compare on: the bundled sample, the test
// data and, when present, the shared corpus.
inline std::vector<std::filesystem::path> real_text_files() {
  std::vector<std::filesystem::path> files = {SNAPTOK_TEST_DATA_DIR "/gpt2/tokenizer.json",
                                              SNAPTOK_TEST_DATA_DIR "/../../python/snaptok/data/sample.txt"};
  const std::filesystem::path shared = SNAPTOK_SHARED_DATA_DIR "/corpus";
  if (std::filesystem::exists(shared)) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(shared)) {
      if (e.is_regular_file()) files.push_back(e.path());
    }
  }
  return files;
}

// Returns every code point below U+32000 and in U+E0000..U+E01FF (no
// surrogates), each between neighbours that exercise prefixes, case runs,
// contractions, punct tails and whitespace.
inline std::string every_code_point_text() {
  std::string s;
  auto add = [&](char32_t cp) {
    std::string x;
    snaptok::detail::append_cp(x, cp);
    s += x + "a" + x + "'s " + x + x + "B" + x + "!" + x + "\n " + x + "'" + x + "x\r\n" + "'" + x +
         "e " + "A" + x + "'LL";
  };
  for (char32_t cp = 1; cp < 0x32000; ++cp) {
    if (cp < 0xD800 || cp > 0xDFFF) add(cp);
  }
  for (char32_t cp = 0xE0000; cp < 0xE0200; ++cp) add(cp);
  return s;
}

inline void check_deepseek_chain(std::string_view text, const std::string& what) {
  Matches got;
  snaptok::scanners::scan_deepseek_chain(text, [&](std::size_t s, std::size_t e) { got.emplace_back(s, e); });
  const Matches want = snaptok_test::deepseek_chain_on_oniguruma(text);
  if (got != want) {
    std::size_t i = 0;
    while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
    const std::size_t at = i < want.size() ? want[i].first : (i < got.size() ? got[i].first : 0);
    FAIL_CHECK(what << ": the chain scanner and Oniguruma's three Splits differ at match " << i << ", byte "
                    << at << ": \"" << std::string(text.substr(at > 8 ? at - 8 : 0, 24)) << "\"");
  }
}

// Checks every scanner against Oniguruma on `text`: each pattern's, and
// DeepSeek's chain of three.
inline void check_every_scanner(std::string_view text, const std::string& what) {
  for (const auto& p : all_patterns()) check_same(p.pattern, text, std::string(p.name) + " " + what);
  check_deepseek_chain(text, "deepseek chain " + what);
}



// Returns the piece boundaries of `text` under Split(Isolated) on `re`
// (match and gap edges, 0 and the end included), each shifted by `shift`.
inline std::vector<std::size_t> piece_edges(const snaptok::detail::Regex& re, std::string_view text,
                                     std::size_t shift) {
  std::vector<std::size_t> edges{shift};
  re.for_each_match(text, [&](std::size_t s, std::size_t e) {
    if (edges.back() != shift + s) edges.push_back(shift + s);
    if (edges.back() != shift + e) edges.push_back(shift + e);
  });
  if (edges.back() != shift + text.size()) edges.push_back(shift + text.size());
  return edges;
}

// Random text with many cut points ("word word"), each amid what the
// patterns tell apart (the other generators' pieces between the words).
inline std::string random_cut_text(std::mt19937& rng, std::size_t n) {
  static const std::string letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  std::uniform_int_distribution<int> coin(0, 5), word_len(1, 6), other_len(1, 4);
  std::string s;
  while (s.size() < n) {
    const int c = coin(rng);
    if (c < 3) {
      if (c < 2) s += ' ';
      for (int k = word_len(rng); k > 0; --k) s += letters[rng() % letters.size()];
    } else {
      s += c == 3 ? random_family_text(rng, other_len(rng)) : random_ascii_text(rng, other_len(rng));
    }
  }
  return s;
}


}  // namespace scanner_test
