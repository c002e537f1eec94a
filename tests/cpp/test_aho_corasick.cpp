// detail::AhoCorasick against a naive leftmost-longest reference.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

#include "snaptok/detail/aho_corasick.hpp"

namespace aho_corasick_tests {

namespace {

using snaptok::detail::AhoCorasick;
using Patterns = std::vector<std::pair<std::string, std::uint32_t>>;

AhoCorasick build(const Patterns& patterns) {
  std::vector<std::pair<std::string_view, std::uint32_t>> views;
  for (const auto& [p, v] : patterns) views.emplace_back(p, v);
  return AhoCorasick(std::move(views));
}

// For each start from `from`, the longest pattern there (the first value of a
// repeated pattern); the first start with any match wins.
std::optional<AhoCorasick::Match> naive_find(const Patterns& patterns, std::string_view text,
                                             std::size_t from) {
  for (std::size_t s = from; s < text.size(); ++s) {
    std::optional<AhoCorasick::Match> best;
    for (const auto& [p, v] : patterns) {
      if (p.empty() || text.substr(s, p.size()) != p) continue;
      if (!best || p.size() > best->end - best->start) {
        best = AhoCorasick::Match{s, s + p.size(), v};
      }
    }
    if (best) return best;
  }
  return std::nullopt;
}

std::string show(const std::optional<AhoCorasick::Match>& m) {
  if (!m) return "none";
  return "[" + std::to_string(m->start) + "," + std::to_string(m->end) + ")=" +
         std::to_string(m->value);
}

bool same(const std::optional<AhoCorasick::Match>& a, const std::optional<AhoCorasick::Match>& b) {
  if (!a || !b) return !a && !b;
  return a->start == b->start && a->end == b->end && a->value == b->value;
}

std::string describe(const Patterns& patterns) {
  std::string out;
  for (const auto& [p, v] : patterns) out += "'" + p + "'=" + std::to_string(v) + " ";
  return out;
}

// Compares every find of a full left-to-right scan and of every `from`.
// Returns the number of find calls compared.
std::size_t check_all(const Patterns& patterns, const AhoCorasick& ac, const std::string& text) {
  std::size_t calls = 0;
  for (std::size_t from = 0;;) {
    const auto want = naive_find(patterns, text, from);
    const auto got = ac.find(text, from);
    ++calls;
    if (!same(want, got)) {
      FAIL_CHECK("scan from " << from << " of '" << text << "' with " << describe(patterns)
                              << ": want " << show(want) << ", got " << show(got));
      return calls;
    }
    if (!got) break;
    from = got->end;
  }
  for (std::size_t from = 0; from <= text.size() + 1; ++from) {
    const auto want = naive_find(patterns, text, from);
    const auto got = ac.find(text, from);
    ++calls;
    if (!same(want, got)) {
      FAIL_CHECK("from " << from << " of '" << text << "' with " << describe(patterns)
                         << ": want " << show(want) << ", got " << show(got));
      return calls;
    }
  }
  return calls;
}

// A string of `len` units drawn from `alphabet` (units may be multi-byte).
std::string random_string(std::mt19937& rng, const std::vector<std::string>& alphabet,
                          std::size_t len) {
  std::string s;
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  for (std::size_t k = 0; k < len; ++k) s += alphabet[pick(rng)];
  return s;
}

}  // namespace

TEST_CASE("aho_corasick: examples") {
  AhoCorasick ac({{"ab", 1}, {"abcd", 2}, {"bc", 3}});
  CHECK(show(ac.find("xabcx", 0)) == "[1,3)=1");
  CHECK(show(ac.find("xabcd", 0)) == "[1,5)=2");
  CHECK(show(ac.find("xabcd", 2)) == "[2,4)=3");
  CHECK(show(ac.find("xabcd", 3)) == "none");
  CHECK(show(ac.find("xabcd", 99)) == "none");
  CHECK(show(ac.find("", 0)) == "none");

  // A later-ending suffix pattern must not displace an earlier start:
  // "bc" is recorded at "abc", then "cd" (a suffix of "abcd") must not win.
  const Patterns tricky = {{"abcde", 1}, {"bc", 2}, {"cd", 3}};
  const AhoCorasick t = build(tricky);
  CHECK(show(t.find("abcdx", 0)) == "[1,3)=2");
  CHECK(show(t.find("abcde", 0)) == "[0,5)=1");

  AhoCorasick none;
  CHECK(none.empty());
  CHECK(!none.find("abc", 0));
  AhoCorasick only_empty({{"", 1}});
  CHECK(only_empty.empty());
  CHECK(!only_empty.find("abc", 0));

  // Duplicates keep the first value; empty patterns are ignored.
  AhoCorasick dup({{"", 9}, {"<|x|>", 4}, {"<|x|>", 5}, {"<|", 6}});
  CHECK(!dup.empty());
  CHECK(show(dup.find("a<|x|>b<|y", 0)) == "[1,6)=4");
  CHECK(show(dup.find("a<|x|>b<|y", 6)) == "[7,9)=6");

  // Bytes >= 0x80 and NUL are ordinary bytes.
  const std::string text = std::string("a\0b\xC3\xA9", 5);
  AhoCorasick bytes({{std::string_view("\0b", 2), 1}, {"\xC3\xA9", 2}});
  CHECK(show(bytes.find(text, 0)) == "[1,3)=1");
  CHECK(show(bytes.find(text, 3)) == "[3,5)=2");
}

TEST_CASE("aho_corasick: differential against the naive search") {
  std::mt19937 rng(20240611);
  const std::vector<std::vector<std::string>> alphabets = {
      {"a", "b"},
      {"a", "b", "<", "|", ">"},
      {"<", "|", ">", "x"},
      {"a", "\xC3\xA9", "\xE6\x97\xA5", "\xF0\x9F\x98\x80"},  // a, é, 日, 😀
      {"a", "b", "c", "d", "e", "f", "g", "h"},
  };
  std::size_t sets = 0, calls = 0;
  for (int round = 0; round < 3000; ++round) {
    const auto& alphabet = alphabets[static_cast<std::size_t>(round) % alphabets.size()];
    std::uniform_int_distribution<int> n_patterns(1, 12), len(1, 7), kind(0, 9);
    Patterns patterns;
    const int count = n_patterns(rng);
    for (int k = 0; k < count; ++k) {
      std::string p;
      const int how = kind(rng);
      if (!patterns.empty() && how <= 3) {
        // Derive from an earlier pattern: a prefix, a suffix, a substring, a
        // repeat (with another value), or an extension.
        const std::string& base = patterns[rng() % patterns.size()].first;
        const std::size_t a = rng() % (base.size() + 1), b = rng() % (base.size() + 1);
        if (how == 0) p = base.substr(0, std::max(a, b));
        if (how == 1) p = base.substr(std::min(a, b));
        if (how == 2) p = base.substr(std::min(a, b), std::max(a, b) - std::min(a, b));
        if (how == 3) p = (rng() % 2) ? base : base + random_string(rng, alphabet, 1 + rng() % 3);
      } else if (how == 4) {
        p = alphabet[rng() % alphabet.size()];  // single unit
      } else if (how == 5) {
        p = "";
      } else {
        p = random_string(rng, alphabet, static_cast<std::size_t>(len(rng)));
      }
      patterns.emplace_back(p, static_cast<std::uint32_t>(k));
    }
    const AhoCorasick ac = build(patterns);
    bool any = false;
    for (const auto& [p, v] : patterns) any |= !p.empty();
    CHECK(ac.empty() == !any);
    ++sets;
    for (int t = 0; t < 6; ++t) {
      std::string text = random_string(rng, alphabet, rng() % 40);
      // Plant some patterns, so that matches are common.
      for (int k = 0, plants = static_cast<int>(rng() % 4); k < plants; ++k) {
        const std::string& p = patterns[rng() % patterns.size()].first;
        text.insert(rng() % (text.size() + 1), p);
      }
      // Cutting the text at any byte (mid UTF-8 too) must not matter.
      if (t == 5 && !text.empty()) text.resize(rng() % text.size());
      calls += check_all(patterns, ac, text);
    }
  }
  MESSAGE(sets << " pattern sets, " << calls << " find calls compared");
}

TEST_CASE("aho_corasick: skipping to the first bytes all patterns share") {
  // Every pattern starts with "<|" (the skip looks for that pair), or with
  // "<" and various second bytes, or with one of several first bytes, or
  // "<" is a pattern itself (one byte: the skip looks for '<'): texts full
  // of lone first and second bytes, near misses and matches, cut anywhere,
  // against the naive search.
  std::mt19937 rng(77);
  const std::vector<std::string> alphabet = {"<", "|", ">", "a", "<|", "\xEF\xBD\x9C", "<u", "/", "[", "(", "\xC2\xAB"};
  const std::vector<Patterns> sets = {
      // Two first bytes and several second ones (DeepSeek's kind): the skip
      // looks for the first bytes and checks each pair in its map.
      {{"<\xEF\xBD\x9C" "a\xEF\xBD\x9C>", 1}, {"<|a|>", 2}, {"</a>", 3}, {"\xEF\xBD\x9C" "a", 4}},
      // Five first bytes: the pair map, one byte at a time.
      {{"<a", 1}, {"[a", 2}, {"(a", 3}, {"|>", 4}, {"\xC2\xAB" "a", 5}},
      {{"<|endoftext|>", 1}},
      {{"<|a|>", 1}, {"<|ab|>", 2}, {"<||>", 3}, {"<|", 4}},
      {{"<|a|>", 1}, {"<a>", 2}},
      {{"<", 1}, {"<|a|>", 2}},
      {{"<\xEF\xBD\x9C" "a\xEF\xBD\x9C>", 1}, {"<\xEF\xBD\x9C>", 2}},
  };
  std::size_t calls = 0;
  for (const Patterns& patterns : sets) {
    const AhoCorasick ac = build(patterns);
    for (int t = 0; t < 400; ++t) {
      std::string text = random_string(rng, alphabet, rng() % 120);
      for (int k = 0, plants = static_cast<int>(rng() % 3); k < plants; ++k) {
        text.insert(rng() % (text.size() + 1), patterns[rng() % patterns.size()].first);
      }
      if (t % 7 == 0 && !text.empty()) text.resize(rng() % text.size());
      calls += check_all(patterns, ac, text);
    }
  }
  MESSAGE(calls << " find calls compared");
}

TEST_CASE("aho_corasick: many patterns sharing prefixes and suffixes") {
  // Like a special-token list: <|reserved_N|>, <|N|>, N|>, and "<|".
  Patterns patterns;
  std::uint32_t v = 0;
  for (int k = 0; k < 300; ++k) {
    const std::string n = std::to_string(k);
    patterns.emplace_back("<|reserved_" + n + "|>", v++);
    patterns.emplace_back("<|" + n + "|>", v++);
    if (k % 3 == 0) patterns.emplace_back(n + "|>", v++);
  }
  patterns.emplace_back("<|", v++);
  patterns.emplace_back("<|reserved_1", v++);
  const AhoCorasick ac = build(patterns);
  std::mt19937 rng(7);
  const std::vector<std::string> alphabet = {"<|", "|>", "reserved_", "1", "2", "3", "0", "x", " "};
  std::size_t calls = 0;
  for (int t = 0; t < 300; ++t) calls += check_all(patterns, ac, random_string(rng, alphabet, 30));
  MESSAGE(calls << " find calls compared; " << ac.size_in_bytes() << " bytes of tables");
}

TEST_CASE("aho_corasick: long runs of a shared prefix") {
  // A per-start trie walk reads 64 bytes per start here; the automaton reads
  // each byte once (and fails over to the same depth-63 node each time).
  const std::string x(64, '<'), y(63, '<');
  const AhoCorasick ac({{x + "x", 1}, {y + "y", 2}});
  std::string text(100000, '<');
  CHECK(!ac.find(text, 0));
  text += "y";
  CHECK(show(ac.find(text, 0)) == "[99937,100001)=2");
  text.back() = 'x';
  CHECK(show(ac.find(text, 0)) == "[99936,100001)=1");
  CHECK(show(ac.find(text, 99937)) == "none");

  // With "<" itself a pattern, every match is one byte; the search stops as
  // soon as no longer match can start at that position.
  const AhoCorasick ac2({{x + "x", 1}, {"<", 2}});
  const std::string small(1000, '<');
  std::size_t from = 0, matches = 0;
  while (auto m = ac2.find(small, from)) {
    CHECK(m->start == from);
    CHECK(m->end == from + 1);
    from = m->end;
    ++matches;
  }
  CHECK(matches == 1000);
}

}  // namespace aho_corasick_tests
