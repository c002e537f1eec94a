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
#include "scanner_checks.hpp"

namespace scanners_tests {

using namespace scanner_test;


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
  for (const auto& f : real_text_files()) {
    const std::string text = real_text(f);
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

TEST_CASE("every recognised pattern selects its scanner; other patterns run on the automaton or Oniguruma") {
  CHECK(snaptok::detail::Regex(snaptok::scanners::kGpt2Pattern, "t").scanner_name() == "gpt2");
  CHECK(snaptok::detail::Regex(snaptok::scanners::kGpt2TiktokenPattern, "t").scanner_name() == "gpt2");
  for (const auto& p : family_patterns()) {
    CHECK(snaptok::detail::Regex(p.pattern, "t").scanner_name() == p.name);
    CHECK(snaptok::detail::Regex(p.pattern, "t", false).scanner_name() == "");
    CHECK(snaptok::detail::Regex(std::string(p.pattern) + "|x", "t").scanner_name() != p.name);
  }
  CHECK(snaptok::detail::Regex(R"(\p{N}{1,2})", "t").scanner_name() == "automaton");
  CHECK(snaptok::detail::Regex(R"(a+b)", "t").scanner_name() == "");
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
    const std::string text = real_text(f);
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
    for (int i = 0; i < scaled(8000); ++i) {
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
    CHECK_MESSAGE(cuts > static_cast<std::size_t>(scaled(20000)), p.name << ": only " << cuts << " cut points tried");
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
    const std::string text = real_text(f);
    if (text.empty() || snaptok::detail::find_invalid_utf8(text) != std::string::npos) continue;
    check_deepseek_chain(text, f.string());
  }
  if (!emulated()) check_deepseek_chain(every_code_point_text(), "code points");
  std::mt19937 rng(31);
  for (int i = 0; i < scaled(6000); ++i) {
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

}  // namespace scanners_tests
