// The compiled scanner (scanners/automaton.hpp): the Split patterns of real
// tokenizer families that no hand-written scanner has, and random patterns
// drawn from the constructs tokenizer files use, matched against Oniguruma;
// what it must refuse; linear time on pathological text.
#include <doctest/doctest.h>

#include <snaptok/detail/regex.hpp>
#include <snaptok/scanners/automaton.hpp>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "scanner_checks.hpp"

namespace automaton_tests {

using namespace scanner_test;
namespace sc = snaptok::scanners;

namespace {

Matches automaton_matches(const sc::Automaton& a, std::string_view text) {
  Matches out;
  a.for_each_match(text, [&](std::size_t s, std::size_t e) { out.emplace_back(s, e); });
  return out;
}

// Random text over what the patterns below tell apart: letters with other
// cases (K, s and their U+212A, U+017F), digits of several scripts, spaces
// and newlines, BLOOM's punctuation, CJK and kana, marks and emoji.
std::string automaton_text(std::mt19937& rng, std::size_t n) {
  static const std::vector<std::string> pieces = {
      "a", "Z", "s", "S", "k", "K", "t", "re", "ve", "ll", "'", "'", " ", " ", " ", "\t", "\n", "\r\n", "\r",
      "\xC2\xA0", "\xE3\x80\x80", "1", "42", "007", "\xD9\xA3", "!", "?!", ".", ",", "\xE2\x80\xA6",
      "\xE3\x80\x82", "\xEF\xBC\x8C", "(", "|", "[", "-", "_", "/", "\xC3\xA9", "e\xCC\x81", "\xD0\x96",
      "\xE4\xB8\xAD", "\xE3\x81\x82", "\xE3\x82\xA2", "\xF0\x9F\x98\x80", "\xC5\xBF", "\xE2\x84\xAA",
      "\xC3\x9F", "\xEF\xAC\x86", "\xE1\xB2\x89", "\xF0\x90\xB5\x80"};
  std::uniform_int_distribution<std::size_t> pick(0, pieces.size() - 1);
  std::string s;
  while (s.size() < n) s += pieces[pick(rng)];
  return s;
}

// Checks the automaton of `pattern` against Oniguruma on `text`.
void check_automaton(const sc::Automaton& a, const snaptok::detail::Regex& onig, std::string_view text,
                     const std::string& what) {
  const Matches got = automaton_matches(a, text), want = matches_of(onig, text);
  if (got == want) return;
  std::size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
  const std::size_t at = i < want.size() ? want[i].first : (i < got.size() ? got[i].first : 0);
  FAIL_CHECK(what << ": automaton and Oniguruma differ at match " << i << ", byte " << at << ": \""
                  << std::string(text.substr(at > 8 ? at - 8 : 0, 24)) << "\"");
}

// A random pattern of the constructs tokenizer files' Split patterns use.
std::string random_pattern(std::mt19937& rng, int depth = 0) {
  static const std::vector<std::string> atoms = {
      "a", "s", "k", "'", " ", "\\n", "x", "1", "\\.", ",", "\xE2\x80\xA6", "\xE3\x80\x82", "\\p{L}", "\\p{N}",
      "\\s", "\\S", "[^\\s\\p{L}\\p{N}]", "[\\r\\n]", "\\p{Lu}", "\\p{Ll}", "[a-z]", "[0-9]", "\\p{Han}", ".",
      "[^(\\s|[.,!?\xE2\x80\xA6\xE3\x80\x82])]", "[\\p{L}\\p{M}]", "[^\\r\\n\\p{L}\\p{N}]", "\\P{L}",
      "(?i:s)", "(?i:k)", "(?i:'re)", "(?i:'t)", "[\\p{L}&&[^a-z]]", "\\x{3042}", "\\u3042"};
  static const std::vector<std::string> quantifiers = {"",   "",   "",   "?",  "*",  "+",   "{1,3}", "{2}",
                                                       "??", "*?", "+?", "?+", "*+", "++", "{0,2}", "{1,3}?"};
  static const std::vector<std::string> looks = {"(?!\\S)", "(?=\\p{L})", "(?!\\p{N})", "$", "\\z"};
  auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
  std::string p;
  const std::size_t alternatives = 1 + pick(depth == 0 ? 4 : 2);
  for (std::size_t a = 0; a < alternatives; ++a) {
    if (a) p += "|";
    const std::size_t items = 1 + pick(3);
    for (std::size_t k = 0; k < items; ++k) {
      const std::size_t kind = pick(10);
      if (kind == 0 && depth < 2) {
        p += "(?:" + random_pattern(rng, depth + 1) + ")" + quantifiers[pick(quantifiers.size())];
      } else if (kind == 1) {
        p += looks[pick(looks.size())];
      } else {
        p += atoms[pick(atoms.size())] + quantifiers[pick(quantifiers.size())];
      }
    }
  }
  return p;
}

}  // namespace

TEST_CASE("the automaton compiles real Split patterns off the registry and matches as Oniguruma does") {
  const std::vector<std::string> patterns = {
      " ?[^(\\s|[.,!?\xE2\x80\xA6\xE3\x80\x82\xEF\xBC\x8C\xE3\x80\x81\xE0\xA5\xA4\xDB\x94\xD8\x8C])]+",  // BLOOM
      "[0-9][0-9][0-9]",                                                                              // Falcon
      "\\p{N}{1,3}", "[\xE4\xB8\x80-\xE9\xBE\xA5\\u3040-\xE3\x82\x9F\xE3\x82\xA0-\xE3\x83\xBF]+", "[\\r\\n]+",
      " ?[^\\s\\p{L}\\p{N}]+", " ?\\p{L}+",  // the code models' sequences of Splits
      "(?i:'s|'t|'re|'ve|'m|'ll|'d)| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+",
      "[^\\r\\n\\p{L}\\p{N}]?+\\p{L}++|\\p{N}{1,3}+| ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*+|\\s+(?!\\S)|\\s+",
      "\\s+(?!\\S)|\\s+", "\\S+", ".", "\\p{N}", "[\\p{L}\\p{M}]+", "(?i:K)+", "x\\z|\\p{L}+", "\\n$|[a-z]"};
  const std::string sample = read_file(SNAPTOK_TEST_DATA_DIR "/../../python/snaptok/data/sample.txt");
  const std::string every = emulated() ? std::string() : every_code_point_text();
  for (std::size_t k = 0; k < patterns.size(); ++k) {
    const std::string& p = patterns[k];
    const std::shared_ptr<const sc::Automaton> a = sc::Automaton::compile(p);
    REQUIRE_MESSAGE(a != nullptr, p);
    const snaptok::detail::Regex onig(p, "test", /*use_scanner=*/false);
    check_automaton(*a, onig, sample, p + " sample");
    // Every code point (12 MB) for the patterns with the most classes.
    if (!emulated() && (k == 0 || k == 3 || k == 7 || k == 8)) check_automaton(*a, onig, every, p + " every code point");
    std::mt19937 rng(7);
    for (int i = 0; i < scaled(2000); ++i) check_automaton(*a, onig, automaton_text(rng, 1 + i % 200), p + " #" + std::to_string(i));
    // A Regex on such a pattern runs on its automaton.
    if (sc::recognize_scanner(p).kind == sc::ScannerKind::kNone) {
      CHECK(snaptok::detail::Regex(p, "test").scanner_name() == "automaton");
    }
  }
}

TEST_CASE("class-run patterns (L?C+, C+) take the mask search and match as Oniguruma does") {
  const std::vector<std::string> runs = {
      " ?[^(\\s|[.,!?\xE2\x80\xA6\xE3\x80\x82\xEF\xBC\x8C\xE3\x80\x81\xE0\xA5\xA4\xDB\x94\xD8\x8C])]+",  // BLOOM
      "[\\r\\n]+", " ?\\p{L}+", " ?[^\\s\\p{L}\\p{N}]+", "\\S+", "(?i:K)+", " ?+\\p{L}+", " ?\\s+", "a?\\p{L}++",
      "'?[\\p{L}\\p{M}]+", "[\xE4\xB8\x80-\xE9\xBE\xA5\\u3040-\xE3\x82\x9F]+", "\\p{N}{1,}"};
  // Not of the shape (a DFA search): L?+ keeping an L that C holds, lazy repeats, bounded runs, a group.
  const std::vector<std::string> others = {" ?+\\s+", "\\p{L}+?", " ??\\p{L}+", "\\p{N}{1,3}", "(?: ?\\p{L})+", "ab+"};
  const std::string sample = read_file(SNAPTOK_TEST_DATA_DIR "/../../python/snaptok/data/sample.txt");
  for (const std::vector<std::string>* list : {&runs, &others}) {
    for (const std::string& p : *list) {
      const std::shared_ptr<const sc::Automaton> a = sc::Automaton::compile(p);
      REQUIRE_MESSAGE(a != nullptr, p);
      CHECK_MESSAGE(a->class_run() == (list == &runs), p);
      const snaptok::detail::Regex onig(p, "test", /*use_scanner=*/false);
      check_automaton(*a, onig, sample, p + " sample");
      // Texts across blocks and groups of blocks (64, 512 bytes).
      std::mt19937 rng(17);
      for (int i = 0; i < scaled(600); ++i) {
        check_automaton(*a, onig, automaton_text(rng, 1 + (i % 3 == 0 ? i * 7 % 2000 : i % 150)), p + " #" + std::to_string(i));
      }
    }
  }
}

TEST_CASE("random patterns of the tokenizer-file grammar match as Oniguruma does where the automaton takes them") {
  std::mt19937 rng(2026);
  int compiled = 0, tried = 0;
  for (int k = 0; k < scaled(800); ++k) {
    const std::string p = random_pattern(rng);
    std::optional<snaptok::detail::Regex> onig;
    try {
      onig.emplace(p, "test", /*use_scanner=*/false);
    } catch (const snaptok::Error&) {
      continue;  // not a pattern Oniguruma takes
    }
    ++tried;
    const std::shared_ptr<const sc::Automaton> a = sc::Automaton::compile(p);
    if (!a) continue;
    ++compiled;
    std::mt19937 texts(static_cast<unsigned>(k));
    for (int i = 0; i < scaled(150); ++i) check_automaton(*a, *onig, automaton_text(texts, 1 + i % 120), p + " #" + std::to_string(i));
  }
  // The grammar is mostly inside the subset: a check that compiles nothing proves nothing.
  MESSAGE(compiled << " of " << tried << " random patterns compiled");
  CHECK(tried > scaled(700));
  CHECK(compiled * 2 > tried);
}

TEST_CASE("the automaton refuses what it cannot match exactly in linear time") {
  for (const char* p : {
           "a+b",                  // a failed attempt reads a whole run: quadratic
           "\\p{L}+$",             // the same at every letter before a space
           "\\s*[\\r\\n]",         // a run of spaces read again from each of them
           "(?i)ss",               // U+00DF folds to "ss"
           "(?i:st)",              // U+FB06 folds to "st"
           "(?i:[a-z])",           // a folded class
           "(?i:\xC3\xA9)",        // a folded char outside ASCII
           "(?<=a)b", "(?<!a)b",   // lookbehind
           "^a", "\\Aa", "a\\Z",   // anchors beyond the next char
           "(?>ab|a)c",            // an atomic group of more than one atom
           "(?:a*)*",              // a repeat that can repeat nothing
           "(?!ab)a",              // a lookahead of more than one char
           "\\p{Word}",            // a class whose meaning depends on a bracket around it
           "a\\1",                 // a backreference: not even parsed
           "\\p{N}{2}?|\\p{Lu}",     // x{n}? is (?:x{n})? in Ruby syntax, not lazy (fuzz)
       }) {
    CHECK_MESSAGE(sc::Automaton::compile(p) == nullptr, p);
  }
}

TEST_CASE("the automaton refuses patterns whose DFA would be too large, quickly") {
  // 2^13 states (the 13th char from the end is an a); a 4,000-word
  // alternation (past the NFA's size); 300 distinct sets (past kMaxSets);
  // counted repeats past the NFA's size, possessive or not (the fuzzer's
  // `\p{L}+{746}` took seconds under the sanitizers, building the same
  // class 746 times and then thousands of states).
  std::string words, sets;
  for (int i = 0; i < 4000; ++i) words += (i ? "|w" : "w") + std::to_string(i);
  for (int i = 0; i < 300; ++i) {
    char range[32];
    std::snprintf(range, sizeof range, "%s[\\x{4e00}-\\x{%x}]", i ? "|" : "", 0x4E00 + i);
    sets += range;
  }
  for (const std::string& p : {std::string("(?:a|b)*a(?:a|b){12}"), words, sets, std::string("\\p{L}+{746}"),
                                std::string("(?>\\p{N}{3000})"), std::string("[^\\s\\p{L}]{0,5000}")}) {
    CHECK_MESSAGE(sc::Automaton::compile(p) == nullptr, p.substr(0, 40));
  }
}

TEST_CASE("the automaton runs pathological text in linear time") {
  // 1 MB without a space, and 1 MB of spaces before one letter: each pattern
  // reads each byte a bounded number of times (no timing is asserted; a
  // quadratic scan of 1 MB would take minutes).
  const std::size_t size = emulated() ? 1 << 16 : 1 << 20;
  const std::string letters(size, 'a');
  const std::string spaces = std::string(size, ' ') + "x";
  for (const char* p : {" ?[^(\\s|[.,!?])]+", "\\s+(?!\\S)|\\s+", "[0-9][0-9][0-9]", "a{1,3}b?|\\s"}) {
    const std::shared_ptr<const sc::Automaton> a = sc::Automaton::compile(p);
    REQUIRE_MESSAGE(a != nullptr, p);
    const snaptok::detail::Regex onig(p, "test", /*use_scanner=*/false);
    check_automaton(*a, onig, letters, std::string(p) + " letters");
    check_automaton(*a, onig, spaces, std::string(p) + " spaces");
  }
}

}  // namespace automaton_tests
