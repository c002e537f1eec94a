// Hand-written pattern scanners must give exactly Oniguruma's matches (with
// the pinned Unicode classes) on every input: real text when the shared data
// is present, the bundled sample, and random strings over tricky chars.
#include <doctest/doctest.h>

#include <snaptok/detail/regex.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

using Matches = std::vector<std::pair<std::size_t, std::size_t>>;

Matches matches_of(const snaptok::detail::Regex& re, std::string_view text) {
  Matches out;
  re.for_each_match(text, [&](std::size_t s, std::size_t e) { out.emplace_back(s, e); });
  return out;
}

void check_same(std::string_view pattern, std::string_view text, const std::string& what) {
  const snaptok::detail::Regex scanner(pattern, "test", true);
  const snaptok::detail::Regex onig(pattern, "test", false);
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

}  // namespace

TEST_CASE("GPT-2 scanner equals Oniguruma on random text") {
  std::mt19937 rng(1234);
  for (int i = 0; i < 3000; ++i) {
    check_same(snaptok::scanners::kGpt2Pattern, random_text(rng, 1 + i % 97),
               "random text #" + std::to_string(i));
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
    check_same(snaptok::scanners::kGpt2Pattern, text, f.string());
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
