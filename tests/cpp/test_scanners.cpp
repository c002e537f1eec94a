// Hand-written pattern scanners must give exactly Oniguruma's matches (with
// the pinned Unicode classes) on every input: real text when the shared data
// is present, the bundled sample, and random strings over tricky chars.
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

namespace {

using Matches = std::vector<std::pair<std::size_t, std::size_t>>;

Matches matches_of(const snaptok::detail::Regex& re, std::string_view text) {
  Matches out;
  re.for_each_match(text, [&](std::size_t s, std::size_t e) { out.emplace_back(s, e); });
  return out;
}

void check_same(std::string_view pattern, std::string_view text, const std::string& what) {
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

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Random text over letters of several scripts (incl. Unicode 16 letters the
// system Oniguruma does not know), digits, every kind of space, apostrophes
// and contraction letters, punctuation, marks and emoji.
std::string random_text(std::mt19937& rng, std::size_t n) {
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
std::string random_family_text(std::mt19937& rng, std::size_t n) {
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
std::string random_run_text(std::mt19937& rng, std::size_t n) {
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
std::string random_ascii_text(std::mt19937& rng, std::size_t n) {
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
const std::vector<NamedPattern>& family_patterns() {
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
std::vector<NamedPattern> all_patterns() {
  std::vector<NamedPattern> all = {{"gpt2", snaptok::scanners::kGpt2Pattern}};
  all.insert(all.end(), family_patterns().begin(), family_patterns().end());
  return all;
}

// Returns the real text files to compare on: the bundled sample, the test
// data and, when present, the shared corpus.
std::vector<std::filesystem::path> real_text_files() {
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
std::string every_code_point_text() {
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

void check_deepseek_chain(std::string_view text, const std::string& what) {
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
void check_every_scanner(std::string_view text, const std::string& what) {
  for (const auto& p : all_patterns()) check_same(p.pattern, text, std::string(p.name) + " " + what);
  check_deepseek_chain(text, "deepseek chain " + what);
}

}  // namespace

// HF's spelling of GPT-2's pattern and tiktoken's (one scanner runs both).
constexpr std::string_view kGpt2Spellings[] = {snaptok::scanners::kGpt2Pattern,
                                               snaptok::scanners::kGpt2TiktokenPattern};

TEST_CASE("GPT-2 scanner equals Oniguruma on random text") {
  std::mt19937 rng(1234);
  for (int i = 0; i < 3000; ++i) {
    for (const std::string_view pattern : kGpt2Spellings) {
      check_same(pattern, random_text(rng, 1 + i % 97), "random text #" + std::to_string(i));
    }
  }
}

TEST_CASE("GPT-2 scanner equals Oniguruma on mostly-ASCII text across blocks") {
  std::mt19937 rng(4321);
  for (int i = 0; i < 4000; ++i) {
    for (const std::string_view pattern : kGpt2Spellings) {
      check_same(pattern, random_ascii_text(rng, 1 + (i * 7) % 400), "ASCII text #" + std::to_string(i));
    }
  }
}

TEST_CASE("GPT-2 scanner equals Oniguruma on real text") {
  std::vector<std::filesystem::path> files = {SNAPTOK_TEST_DATA_DIR "/gpt2/tokenizer.json"};
  const std::filesystem::path shared = SNAPTOK_SHARED_DATA_DIR "/corpus";
  if (std::filesystem::exists(shared)) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(shared)) {
      if (e.is_regular_file()) files.push_back(e.path());
    }
  }
  for (const auto& f : files) {
    const std::string text = read_file(f);
    if (snaptok::detail::find_invalid_utf8(text) != std::string::npos) continue;
    for (const std::string_view pattern : kGpt2Spellings) check_same(pattern, text, f.string());
  }
}

TEST_CASE("scanner char classes: ASCII shortcut agrees with the pinned tables") {
  const auto& table = snaptok::scanners::char_classes();
  for (int c = 0; c < 128; ++c) {
    const std::string s(1, static_cast<char>(c));
    std::size_t len = 0;
    CHECK(snaptok::scanners::class_at(s, 0, len) == table[static_cast<std::size_t>(c)]);
  }
}

TEST_CASE("every recognised pattern selects its scanner; other patterns run on Oniguruma") {
  CHECK(snaptok::detail::Regex(snaptok::scanners::kGpt2Pattern, "t").scanner_name() == "gpt2");
  CHECK(snaptok::detail::Regex(snaptok::scanners::kGpt2TiktokenPattern, "t").scanner_name() == "gpt2");
  for (const auto& p : family_patterns()) {
    CHECK(snaptok::detail::Regex(p.pattern, "t").scanner_name() == p.name);
    CHECK(snaptok::detail::Regex(p.pattern, "t", false).scanner_name() == "");
    CHECK(snaptok::detail::Regex(std::string(p.pattern) + "|x", "t").scanner_name() == "");
  }
  CHECK(snaptok::detail::Regex(R"(\p{N}{1,2})", "t").scanner_name() == "");
}

TEST_CASE("the recognised pattern strings are the ones the shared tokenizer.json files hold") {
  const std::filesystem::path dir = SNAPTOK_SHARED_DATA_DIR "/tokenizers";
  if (!std::filesystem::exists(dir)) return;
  const std::vector<std::pair<std::string, std::vector<std::string>>> expected = {
      {"gpt2-split-original", {"gpt2"}},
      {"cl100k-hf-spelling", {"cl100k"}},
      {"cl100k-possessive", {"cl100k-tiktoken"}},
      {"qwen2", {"qwen2"}},
      {"qwen3.5-mark", {"qwen3.5"}},
      {"o200k", {"o200k"}},
      {"nemotron", {"nemotron"}},
      {"kimi", {"kimi"}},
      {"deepseek-v3", {"deepseek-digits", "deepseek-cjk", "deepseek"}},
      {"deepseek-v4", {"deepseek-digits", "deepseek-cjk", "deepseek"}},
  };
  for (const auto& [name, scanners] : expected) {
    const auto path = dir / name / "tokenizer.json";
    if (!std::filesystem::exists(path)) continue;
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    REQUIRE(parser.load(path.string()).get(doc) == simdjson::SUCCESS);
    std::vector<std::string> got;
    simdjson::dom::array list;
    REQUIRE(doc["pre_tokenizer"]["pretokenizers"].get(list) == simdjson::SUCCESS);
    for (simdjson::dom::element p : list) {
      std::string_view type, regex;
      if (p["type"].get(type) != simdjson::SUCCESS || type != "Split") continue;
      REQUIRE(p["pattern"]["Regex"].get(regex) == simdjson::SUCCESS);
      got.emplace_back(snaptok::detail::Regex(regex, "t").scanner_name());
    }
    CHECK_MESSAGE(got == scanners, name);
  }
}

TEST_CASE("family scanners equal Oniguruma on random text") {
  for (const auto& p : family_patterns()) {
    std::mt19937 rng(99);
    for (int i = 0; i < 3000; ++i) {
      const std::string text = i % 3 == 0   ? random_text(rng, 1 + i % 61)
                               : i % 3 == 1 ? random_ascii_text(rng, 1 + (i * 7) % 300)
                                            : random_family_text(rng, 1 + i % 97);
      check_same(p.pattern, text, std::string(p.name) + " random text #" + std::to_string(i));
    }
  }
}

TEST_CASE("family scanners equal Oniguruma on every code point") {
  const std::string text = every_code_point_text();
  for (const auto& p : family_patterns()) check_same(p.pattern, text, std::string(p.name) + " code points");
}

TEST_CASE("family scanners equal Oniguruma on real text") {
  for (const auto& f : real_text_files()) {
    const std::string text = read_file(f);
    if (text.empty() || snaptok::detail::find_invalid_utf8(text) != std::string::npos) continue;
    for (const auto& p : family_patterns()) check_same(p.pattern, text, std::string(p.name) + " " + f.string());
  }
}

TEST_CASE("scanner flag table agrees with the pinned classes") {
  using namespace snaptok::scanners;
  const auto& t = char_flags();
  const std::pair<const char*, std::uint8_t> classes[] = {
      {"L", kFlagL}, {"M", kFlagM}, {"N", kFlagN}, {"\\s", kFlagSpace}, {"Han", kFlagHan}};
  for (const auto& [name, bit] : classes) {
    const auto* c = snaptok::detail::find_regex_class(name);
    std::size_t in = 0, total = 0;
    for (std::size_t i = 0; i < c->size; ++i) total += c->ranges[i].last - c->ranges[i].first + 1;
    for (char32_t cp = 0; cp < 0x110000; ++cp) in += (t(cp) & bit) != 0;
    CHECK_MESSAGE(in == total, name);
  }
  // DeepSeek's [!"#...~] is exactly the ASCII part of [\p{P}\p{S}].
  const std::string_view punct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
  for (int c = 0; c < 128; ++c) {
    CHECK(((t(static_cast<char32_t>(c)) & kFlagPS) != 0) == (punct.find(static_cast<char>(c)) != std::string_view::npos));
  }
}

// A walk past a block's last non-ASCII char hands the rest of the text back
// to the block algebra at the walk's end, wherever that is: blocks then
// start off the 64-byte grid until the next such walk. Non-ASCII chars of
// every class the patterns tell apart, at every offset around the blocks.
TEST_CASE("scanners equal Oniguruma where a walk past a non-ASCII char hands the text back to the algebra") {
  static const std::vector<std::string> chars = {
      "\xC3\xA9", "\xC3\x89", "\xCC\x81", "\xC2\xA0", "\xE3\x80\x80", "\xC2\x85", "\xC2\xB2",
      "\xD9\xA3", "\xC5\xBF", "\xE2\x80\x99", "\xE2\x80\x9C", "\xE2\x80\x94", "\xE4\xB8\xAD"};
  std::mt19937 rng(77);
  for (int i = 0; i < 400; ++i) {
    std::string text = random_ascii_text(rng, 130 + static_cast<std::size_t>(i * 13) % 300);
    // One to three more non-ASCII chars, at ASCII bytes near block edges.
    for (int k = 0; k <= i % 3; ++k) {
      std::size_t at = (64 * static_cast<std::size_t>(1 + (i + k) % 4) + static_cast<std::size_t>(i * 7 + k * 29) % 9) - 4;
      if (at > text.size()) at = text.size();
      while (at < text.size() && static_cast<unsigned char>(text[at]) >= 0x80) ++at;
      text.insert(at, chars[static_cast<std::size_t>(i + k) % chars.size()]);
    }
    check_every_scanner(text, "restart text #" + std::to_string(i));
  }
}

// A run of spaces or digits that began before a block is walked and the
// algebra resumes after it, off the 64-byte grid; a run of spaces or a
// contraction that goes on past a block's end is walked from the last start
// before it (split_detail::BlockVerdict). Such runs across the edges of the
// first and second blocks, after and before every kind of neighbour.
TEST_CASE("scanners equal Oniguruma where the algebra settles a block only in part") {
  const std::string runs[] = {"  ", "   ", " \t ", "\n\n", " \n ", "\r\n  ", "\t\t\n", "12345", "1234567",
                              "'s", "'ll", "'RE", "'ve", "'d", "'Ll"};
  const std::string before[] = {"a", "word", ".", "x.", " ", "7", "Ab", "'", "\n"};
  const std::string after[] = {"x", " y", ".", "9", "\n", "  z", "'t", "Word", ""};
  for (std::size_t edge : {std::size_t{64}, std::size_t{128}}) {
    for (std::size_t back = 0; back < 8; ++back) {
      for (const std::string& run : runs) {
        for (std::size_t b = 0; b < std::size(before); ++b) {
          const std::string& head = before[b];
          const std::string& tail = after[(b + back + run.size()) % std::size(after)];
          const std::size_t at = edge - std::min(back, run.size());  // the run crosses the edge
          std::string text = std::string(at > head.size() ? at - head.size() : 0, 'q');
          for (std::size_t i = 7; i < text.size(); i += 9) text[i] = ' ';
          text += head + run + tail + " end of it";
          check_every_scanner(text, "edge " + std::to_string(edge) + " back " + std::to_string(back) + " '" + head +
                                        run + tail + "'");
        }
      }
    }
  }
  // A block with non-ASCII bytes is settled up to the ASCII run before the
  // first: every kind of run right before a non-ASCII char of every class,
  // at every byte of a block.
  const std::string runs_before[] = {" word", "it's", "I'LL", " 123", "1234", "  ", " \n", "\n\n ", "..", " .", "'", " ",
                                     "a'", "x", "\t"};
  const std::string chars[] = {"\xC3\xA9", "\xCC\x81", "\xC2\xA0", "\xE3\x80\x80", "\xC2\xB2", "\xC5\xBF",
                               "\xE2\x80\x99", "\xE2\x80\x94", "\xE4\xB8\xAD", "\xC2\x85"};
  for (std::size_t at = 64; at < 130; at += 3) {
    for (std::size_t r = 0; r < std::size(runs_before); ++r) {
      const std::string& run = runs_before[r];
      const std::string& c = chars[(r + at) % std::size(chars)];
      std::string text(at > run.size() ? at - run.size() : 0, 'b');
      for (std::size_t i = 5; i < text.size(); i += 11) text[i] = i % 2 ? ' ' : '.';
      text += run + c + (r % 2 ? "s more" : "'s 12 x") + std::string(40, 'z');
      check_every_scanner(text, "non-ASCII at " + std::to_string(at) + " after '" + run + "'");
    }
  }
}

// Found by fuzz/targets/scanners.hpp (under ASan): the GPT-2 algebra, now
// also run on blocks with non-ASCII bytes, decoded "the char after the
// block" where a char ran across the block's end, and read past a text
// that ended inside that char. Chars of 2 to 4 bytes across the end of a
// block, the text ending at every byte after it.
TEST_CASE("scanners equal Oniguruma where a char runs across a block's end and the text ends in it") {
  const std::string chars[] = {"\xC3\xA9", "\xE4\xB8\xAD", "\xEF\xBD\xB6", "\xF0\x9F\x98\x80", "\xC2\xA0"};
  for (const auto& p : all_patterns()) {
    for (const std::string& c : chars) {
      for (std::size_t into = 1; into < c.size(); ++into) {
        std::string text(64 - into, 'a');
        text[20] = ' ';
        text[40] = '\xC3';  // a non-ASCII char earlier in the block too
        text[41] = '\xA9';
        text += c;
        // In a buffer of exactly its size (a std::string has a NUL past
        // its end), so that a sanitizer sees a read past it.
        const auto exact = std::make_unique<char[]>(text.size());
        std::memcpy(exact.get(), text.data(), text.size());
        check_same(p.pattern, std::string_view(exact.get(), text.size()),
                   std::string(p.name) + " char across the end, into " + std::to_string(into));
        check_same(p.pattern, text + " x", std::string(p.name) + " char across the end, then more");
      }
    }
  }
}

TEST_CASE("scanners equal Oniguruma on long ASCII runs across mask blocks") {
  for (const auto& p : all_patterns()) {
    std::mt19937 rng(2024);
    for (int i = 0; i < 1500; ++i) {
      check_same(p.pattern, random_run_text(rng, 1 + (i * 37) % 400),
                 std::string(p.name) + " run text #" + std::to_string(i));
    }
  }
}

// Found by fuzz/targets/scanners.hpp: a digit group that begins with a
// non-ASCII digit (U+00B2, U+00BD, U+2167, U+0663) just before a 64-byte
// block went on in the block as if it began there.
TEST_CASE("scanners equal Oniguruma on digit runs that begin just before a block with a non-ASCII digit") {
  const std::string tails[] = {"\xC2\xB2" "3999", "\xC2\xBD" "3999", "\xE2\x85\xA7" "3999",
                               "\xD9\xA3" "99999", "\xC2\xB2\xC2\xB2" "3999", "33999"};
  for (const auto& p : all_patterns()) {
    for (std::size_t pad = 48; pad < 72; ++pad) {
      for (const std::string& tail : tails) {
        check_same(p.pattern, std::string(pad, 'a') + " " + tail + " x",
                   std::string(p.name) + " pad " + std::to_string(pad) + " tail " + tail);
      }
    }
  }
}

// The block algebra carries punctuation just before a block into the
// block: CR/LF at its start belong to that punctuation's match (` ?[^\s\p{L}
// \p{N}]+[\r\n]*`, o200k's `[\r\n/]*`). Punctuation (with a ' ' before it or
// not, an apostrophe, a run) ending at every byte around a block's edge,
// then CR/LF runs and whatever may follow them.
TEST_CASE("scanners equal Oniguruma on CR/LF after punctuation that ends just before a block") {
  const std::string heads[] = {".", " .", "a.", "?!", "'", "a'", "\xC3\xA9.", "1."};
  const std::string tails[] = {"\n", "\r\n", "\n\n ", "\nword", "\n/x", "\n/.", "\n  x", "\r\n\r\nA",
                               "\n's", "\n12345", "\n\xC3\xA9", "\n.\n"};
  for (std::size_t pad = 56; pad < 72; ++pad) {
    for (const std::string& head : heads) {
      for (const std::string& tail : tails) {
        const std::string text = std::string(pad - 1, 'a') + " " + head + tail + " end";
        check_every_scanner(text, "pad " + std::to_string(pad) + " '" + head + tail + "'");
      }
    }
  }
}

TEST_CASE("the ASCII byte-class sets the scanners use agree with the pinned tables") {
  using namespace snaptok::scanners;
  const auto& t = char_flags();
  for (int c = 0; c < 128; ++c) {
    const char ch = static_cast<char>(c);
    snaptok::simd::ByteClassMasks m;
    snaptok::simd::classify_block_scalar(&ch, 1, m);
    const std::uint8_t f = t(static_cast<char32_t>(c));
    INFO("byte " << c);
    CHECK((m.letter != 0) == ((f & kFlagL) != 0));
    CHECK((m.letter != 0) == ((f & (kFlagL | kFlagM)) != 0));
    CHECK((m.digit != 0) == ((f & kFlagN) != 0));
    CHECK((m.space != 0) == ((f & kFlagSpace) != 0));
    CHECK((m.newline != 0) == (c == '\r' || c == '\n'));
    CHECK(((m.apostrophe | m.other) != 0) == ((f & (kFlagSpace | kFlagL | kFlagM | kFlagN)) == 0));
    // ascii_lower_end tells the case of a letter by bit 0x20.
    if (m.letter != 0) CHECK(((c & 0x20) != 0) == ((f & kFlagLower) != 0));
    if (m.letter != 0) CHECK(((c & 0x20) == 0) == ((f & kFlagUpper) != 0));
    CHECK((f & kFlagHan) == 0);
  }
}

namespace {

// Checks BlockMasks::run_end, last_in and bits_from against byte-at-a-time
// answers on random text of every length around the block size.
void check_block_masks(const std::string& target) {
  using namespace snaptok::scanners;
  auto in_set = [](unsigned char c, unsigned set) {
    const bool letter = ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'), digit = c >= '0' && c <= '9';
    const bool space = (c >= '\t' && c <= '\r') || c == ' ', nl = c == '\r' || c == '\n';
    const bool nonascii = c >= 0x80, apos = c == '\'';
    const bool other = !letter && !digit && !space && !nonascii && !apos;
    return ((set & kBytesLetter) && letter) || ((set & kBytesDigit) && digit) || ((set & kBytesSpace) && space) ||
           ((set & kBytesNewline) && nl) || ((set & kBytesNonascii) && nonascii) ||
           ((set & kBytesApostrophe) && apos) || ((set & kBytesOther) && other);
  };
  std::mt19937 rng(5);
  const std::string alphabet = std::string("aZ09 \t\r\n'!\x01\x7F") + "\xC3\xA9";
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  std::uniform_int_distribution<int> runs(0, 3);
  for (std::size_t n = 0; n <= 200; ++n) {
    std::string s;
    while (s.size() < n) {
      const char c = alphabet[pick(rng)];
      s.append(static_cast<std::size_t>(1) << (runs(rng) * 2), c);  // runs of 1, 4, 16, 64
    }
    s.resize(n);
    BlockMasks m(s);
    for (std::size_t i = 0; i <= n; ++i) {
      std::size_t want = i;
      while (want < n && in_set(static_cast<unsigned char>(s[want]), kBytesLetter)) ++want;
      REQUIRE_MESSAGE(m.run_end<kBytesLetter>(i) == want, target << " n=" << n << " i=" << i);
      want = i;
      while (want < n && in_set(static_cast<unsigned char>(s[want]), kBytesSpace | kBytesOther)) ++want;
      REQUIRE_MESSAGE(m.run_end<kBytesSpace | kBytesOther>(i) == want, target << " n=" << n << " i=" << i);
      want = i;
      while (want < n && in_set(static_cast<unsigned char>(s[want]), kBytesAscii)) ++want;
      REQUIRE_MESSAGE(m.run_end<kBytesAscii>(i) == want, target << " n=" << n << " i=" << i);
      for (std::size_t e = i; e <= n && e <= i + 130; e += 1 + e % 5) {
        std::size_t last = BlockMasks::npos;
        for (std::size_t k = i; k < e; ++k) {
          if (in_set(static_cast<unsigned char>(s[k]), kBytesNewline | kBytesApostrophe)) last = k;
        }
        REQUIRE_MESSAGE(m.last_in<kBytesNewline | kBytesApostrophe>(i, e) == last,
                        target << " n=" << n << " i=" << i << " e=" << e);
      }
      if (i < n) {
        std::size_t valid = 0;
        const std::uint64_t bits = m.bits_from<kBytesDigit | kBytesNonascii>(i, valid);
        REQUIRE(valid == 64 - i % 64);
        for (std::size_t k = 0; k < 64; ++k) {
          const bool want_bit = k < valid && i + k < n &&
                                in_set(static_cast<unsigned char>(s[i + k]), kBytesDigit | kBytesNonascii);
          REQUIRE_MESSAGE(((bits >> k) & 1) == want_bit, target << " n=" << n << " i=" << i << " k=" << k);
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("BlockMasks answers like a byte-at-a-time walk") { check_block_masks("default"); }

namespace {

// Returns the piece boundaries of `text` under Split(Isolated) on `re`
// (match and gap edges, 0 and the end included), each shifted by `shift`.
std::vector<std::size_t> piece_edges(const snaptok::detail::Regex& re, std::string_view text,
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
std::string random_cut_text(std::mt19937& rng, std::size_t n) {
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

}  // namespace

TEST_CASE("cut points: finding them") {
  using snaptok::scanners::is_cut_point, snaptok::scanners::next_cut_point,
      snaptok::scanners::last_cut_point;
  const std::string_view text = "ab cd  e f,g h1 i\xC3\xA9 jZ Q";
  std::vector<std::size_t> found;
  for (std::size_t p = next_cut_point(text, 0); p != std::string_view::npos; p = next_cut_point(text, p + 1)) {
    found.push_back(p);
  }
  CHECK(found == std::vector<std::size_t>{2, 8, 12, 22});
  for (std::size_t p = 0; p <= text.size() + 1; ++p) {
    CHECK(is_cut_point(text, p) == (std::find(found.begin(), found.end(), p) != found.end()));
  }
  CHECK(last_cut_point(text, 0) == 22);
  CHECK(last_cut_point(text, 23) == std::string_view::npos);
  CHECK(last_cut_point(text.substr(0, 22), 0) == 12);
  CHECK(next_cut_point("a b", 0) == 1);
  CHECK(next_cut_point("a ", 0) == std::string_view::npos);
  CHECK(last_cut_point(" b", 0) == std::string_view::npos);
  CHECK(next_cut_point("", 0) == std::string_view::npos);
  CHECK(last_cut_point("", 0) == std::string_view::npos);
  const std::string no_space(1 << 20, 'a');
  CHECK(next_cut_point(no_space, 0) == std::string_view::npos);
  CHECK(last_cut_point(no_space, 0) == std::string_view::npos);
}

TEST_CASE("cut points: every pattern splits the same in the parts as in the whole") {
  // Per pattern (on Oniguruma, the reference): cutting the text at a cut
  // point p and splitting each part gives the pieces of the whole, cut at
  // p too; and a pattern that cuts_at_cut_points has a piece edge at p.
  for (const auto& p : all_patterns()) {
    const snaptok::detail::Regex onig(p.pattern, "test", /*use_scanner=*/false);
    const bool covers = snaptok::scanners::cuts_at_cut_points(snaptok::scanners::find_scanner(p.pattern));
    std::mt19937 rng(4242);
    std::size_t cuts = 0;
    for (int i = 0; i < 8000; ++i) {
      const std::string text = i % 4 == 0   ? random_ascii_text(rng, 8 + i % 120)
                               : i % 4 == 1 ? random_run_text(rng, 8 + i % 200)
                                            : random_cut_text(rng, 8 + i % 150);
      const std::vector<std::size_t> whole = piece_edges(onig, text, 0);
      for (std::size_t at = snaptok::scanners::next_cut_point(text, 0); at != std::string_view::npos;
           at = snaptok::scanners::next_cut_point(text, at + 1)) {
        ++cuts;
        std::vector<std::size_t> parts = piece_edges(onig, std::string_view(text).substr(0, at), 0);
        const std::vector<std::size_t> second = piece_edges(onig, std::string_view(text).substr(at), at);
        parts.insert(parts.end(), second.begin() + 1, second.end());
        std::vector<std::size_t> expected = whole;
        if (!std::binary_search(expected.begin(), expected.end(), at)) {
          CHECK_MESSAGE(!covers, p.name << ": no piece edge at cut point " << at << " of \"" << text << "\"");
          expected.insert(std::lower_bound(expected.begin(), expected.end(), at), at);
        }
        if (parts != expected) {
          FAIL_CHECK(p.name << ": cutting at " << at << " changes the pieces of \"" << text << "\"");
        }
      }
    }
    CHECK_MESSAGE(cuts > 20000, p.name << ": only " << cuts << " cut points tried");
  }
}


#ifndef SNAPTOK_NO_HIGHWAY
TEST_CASE("every scanner equals Oniguruma on every compiled Highway target") {
  const std::string sample = read_file(SNAPTOK_TEST_DATA_DIR "/../../python/snaptok/data/sample.txt");
  REQUIRE(!sample.empty());
  const std::vector<std::int64_t> targets = snaptok::simd::detail::supported_compiled_targets();
  REQUIRE(!targets.empty());
  for (const std::int64_t target : targets) {
    snaptok::simd::detail::set_supported_targets_for_test(target);
    const std::string name = hwy::TargetName(target);
    CHECK(snaptok::simd_target() == name);
    MESSAGE("scanners on target " << name);
    check_block_masks(name);
    for (const auto& p : all_patterns()) {
      check_same(p.pattern, sample, name + " " + std::string(p.name) + " sample");
      std::mt19937 rng(77);
      for (int i = 0; i < 300; ++i) {
        const std::string text = i % 4 == 0   ? random_run_text(rng, 1 + (i * 13) % 300)
                                 : i % 4 == 1 ? random_family_text(rng, 1 + i % 150)
                                 : i % 4 == 2 ? random_ascii_text(rng, 1 + (i * 7) % 300)
                                              : random_text(rng, 1 + i % 150);
        check_same(p.pattern, text, name + " " + std::string(p.name) + " random text #" + std::to_string(i));
      }
    }
    check_deepseek_chain(sample, name + " DeepSeek chain sample");
    std::mt19937 rng(78);
    for (int i = 0; i < 600; ++i) {
      const std::string text =
          i % 2 == 0 ? random_run_text(rng, 1 + (i * 13) % 300) : random_family_text(rng, 1 + i % 150);
      check_deepseek_chain(text, name + " DeepSeek chain random text #" + std::to_string(i));
    }
  }
  snaptok::simd::detail::set_supported_targets_for_test(0);
}
#endif

TEST_CASE("DeepSeek chain scanner equals the three Splits on Oniguruma") {
  for (const auto& f : real_text_files()) {
    const std::string text = read_file(f);
    if (text.empty() || snaptok::detail::find_invalid_utf8(text) != std::string::npos) continue;
    check_deepseek_chain(text, f.string());
  }
  check_deepseek_chain(every_code_point_text(), "code points");
  std::mt19937 rng(31);
  for (int i = 0; i < 6000; ++i) {
    const std::string text = i % 4 == 0   ? random_text(rng, 1 + i % 61)
                             : i % 4 == 1 ? random_ascii_text(rng, 1 + (i * 7) % 300)
                             : i % 4 == 2 ? random_run_text(rng, 1 + (i * 37) % 400)
                                          : random_family_text(rng, 1 + i % 97);
    check_deepseek_chain(text, "random text #" + std::to_string(i));
  }
  // Digits and CJK chars next to every edge of a 64-byte block.
  const std::string edges[] = {"1", "12345", "\xC2\xB2", "\xD9\xA3" "7", "\xE4\xB8\xAD", "\xE3\x81\x82\xE4\xB8\xAD"};
  const std::string around[] = {" ", "  ", "\n ", "a", "!", "!a", " !", "\x01", "'s", "\r\n"};
  for (std::size_t pad = 56; pad < 72; ++pad) {
    for (const std::string& e : edges) {
      for (const std::string& a : around) {
        for (const std::string& b : around) {
          const std::string text = std::string(pad, 'x') + a + e + b + "y z";
          check_deepseek_chain(text, "pad " + std::to_string(pad) + " " + a + e + b);
          check_deepseek_chain(std::string(pad - 50, ' ') + text,
                               "spaces, pad " + std::to_string(pad) + " " + a + e + b);
        }
      }
    }
  }
}

// Found by fuzz/targets/scanners.hpp: in cl100k, "💻'tx" with the apostrophe
// first in a 64-byte block split "tx" in two, as if the apostrophe began a
// contraction; it ends the punctuation match the walker took from the emoji.
// The whole class: any non-ASCII char just before a block, then ASCII that
// the block algebra reads as starting there.
TEST_CASE("scanners equal Oniguruma after a non-ASCII char that ends just before a block") {
  const std::string chars[] = {"\xF0\x9F\x92\xBB", "\xC2\xAB", "\xC3\xA9", "\xC2\xB2", "\xE3\x80\x80",
                               "\xCC\x81", "\xE4\xB8\xAD", "\xC2\xA0"};
  const std::string tails[] = {"'tx y", "'sa b", "''t", "'LLx", "'1", "'\r\nx", "!'t", "/x", "\r\n/ x",
                               " 'tx", "  x", "\n\nx", "12345", "Ab'Sx"};
  for (std::size_t pad = 52; pad < 66; ++pad) {
    for (const std::string& c : chars) {
      for (const std::string& tail : tails) {
        check_every_scanner(std::string(pad, 'a') + " " + c + tail, "pad " + std::to_string(pad) + " " + c + tail);
      }
    }
  }
}

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
    CHECK_MESSAGE(snaptok::detail::Regex(p, "t").scanner_name() == "", p);
  }
}

TEST_CASE("recognised variants equal Oniguruma on random and real text") {
  const std::string sample = read_file(SNAPTOK_TEST_DATA_DIR "/../../python/snaptok/data/sample.txt");
  REQUIRE(!sample.empty());
  const std::string every = every_code_point_text();
  for (const Variant& v : recognised_variants()) {
    CHECK_MESSAGE(snaptok::detail::Regex(v.pattern, "t").scanner_name() != "", v.name);
    check_same(v.pattern, sample, v.name + " sample");
    check_same(v.pattern, every, v.name + " every code point");
    std::mt19937 rng(2024);
    for (int i = 0; i < 20000; ++i) check_same(v.pattern, mixed_text(rng, i), v.name + " #" + std::to_string(i));
  }
}

TEST_CASE("every rule set the recognizer returns equals Oniguruma") {
  for (const sc::SplitRules& r : every_split_rules()) {
    const std::string p = spell_split(r);
    std::mt19937 rng(31);
    for (int i = 0; i < 1200; ++i) check_same(p, mixed_text(rng, i), p + " #" + std::to_string(i));
  }
  for (const std::string_view gpt2 : {sc::kGpt2SingleDigitPattern}) {
    std::mt19937 rng(32);
    for (int i = 0; i < 20000; ++i) check_same(gpt2, mixed_text(rng, i), "gpt2 single digit #" + std::to_string(i));
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
