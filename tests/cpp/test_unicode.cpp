// Unicode tables, normalization and the normalizer components. Expected
// values are what tokenizers 0.23.3 gives (its Rust unit tests and Python
// API); tests/python/test_unicode_tables.py checks every code point.
#include <doctest/doctest.h>

#include <snaptok/detail/utf8.hpp>
#include <snaptok/normalizers/factory.hpp>
#include <snaptok/unicode/normalize.hpp>
#include <snaptok/unicode/properties.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace unicode_tests {

namespace {

using snaptok::CharChange;
using snaptok::NormalizedString;
using snaptok::unicode::NormForm;

std::vector<std::pair<unsigned, int>> changes(std::string_view text, NormForm form) {
  std::vector<CharChange> out;
  snaptok::unicode::normalize_changes(text, form, out);
  std::vector<std::pair<unsigned, int>> v;
  for (const auto& c : out) v.emplace_back(static_cast<unsigned>(c.cp), c.change);
  return v;
}

std::vector<std::pair<unsigned, unsigned>> alignments(const NormalizedString& ns) {
  std::vector<std::pair<unsigned, unsigned>> v;
  for (const auto& a : ns.alignments()) v.emplace_back(a.start, a.end);
  return v;
}

// Runs the normalizer described by `json` over `text`.
NormalizedString run(const std::string& json, const std::string& text) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  simdjson::dom::element root = parser.parse(padded).value();
  auto normalizer = snaptok::make_normalizer(snaptok::detail::Json(root, "normalizer"));
  NormalizedString ns(text, 0, text, true);
  normalizer->normalize(ns);
  return ns;
}

std::string load_error(const std::string& json) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  simdjson::dom::element root = parser.parse(padded).value();
  try {
    snaptok::make_normalizer(snaptok::detail::Json(root, "normalizer"));
  } catch (const snaptok::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("unicode properties: Rust char and regex classes as tokenizers uses them") {
  using namespace snaptok::unicode;
  for (char32_t c : {U'\t', U'\n', U'\v', U'\f', U'\r', U' ', U'\u0085', U'\u00a0',
                     U'\u1680', U'\u2000', U'\u200a', U'\u2028', U'\u2029', U'\u202f',
                     U'\u205f', U'\u3000'}) {
    CHECK(is_whitespace(c));
    CHECK(is_regex_space(c));
    CHECK(bert_is_whitespace(c));
  }
  for (char32_t c : {U'\x1c', U'\x1f', U'\u200b', U'\u180e', U'\ufeff', U'a'}) {
    CHECK_FALSE(is_whitespace(c));
  }
  CHECK(is_word_char(U'_'));
  CHECK(is_word_char(U'\u00e9'));
  CHECK(is_word_char(U'\u0301'));  // marks are \w in Rust regex
  CHECK(is_word_char(U'\u4e00'));
  CHECK_FALSE(is_word_char(U'-'));
  CHECK_FALSE(is_word_char(U' '));
  CHECK(is_numeric(U'7'));
  CHECK(is_numeric(U'\u00b2'));
  CHECK(is_numeric(U'\u2167'));  // Roman numeral (Nl)
  CHECK(is_numeric(U'\u0663'));
  CHECK_FALSE(is_numeric(U'a'));
  CHECK(is_punctuation(U'$'));   // ASCII punctuation, though Sc
  CHECK(is_punctuation(U'`'));
  CHECK(is_punctuation(U'\u3001'));
  CHECK(is_punctuation(U'\u00bf'));
  CHECK_FALSE(is_punctuation(U'\u00a2'));  // Sc outside ASCII
  CHECK(bert_is_punctuation(U'!'));
  CHECK(bert_is_control(U'\x01'));
  CHECK(bert_is_control(U'\u200b'));  // Cf
  CHECK(bert_is_control(U'\ue000'));  // Co
  CHECK_FALSE(bert_is_control(U'\t'));
  CHECK_FALSE(bert_is_control(U'\n'));
  CHECK_FALSE(bert_is_control(U'\U000E0080'));  // unassigned (Cn) is not "other"
  CHECK(is_chinese_char(U'\u4e00'));
  CHECK(is_chinese_char(U'\U00020000'));
  CHECK_FALSE(is_chinese_char(U'\u3042'));
  CHECK(is_mark_nonspacing(U'\u0301'));
  CHECK_FALSE(is_mark_nonspacing(U'\u0903'));  // Mc
  CHECK(is_combining_mark(U'\u0903'));
  CHECK(is_combining_mark(U'\u20dd'));  // Me
  CHECK_FALSE(is_combining_mark(U'a'));
}

TEST_CASE("unicode properties: lowercase and combining classes") {
  using namespace snaptok::unicode;
  auto lower = [](char32_t c) {
    std::u32string s;
    for (char32_t x : to_lowercase(c)) s.push_back(x);
    return s;
  };
  CHECK(lower(U'A') == U"a");
  CHECK(lower(U'z') == U"z");
  CHECK(lower(U'\u0130') == U"i\u0307");
  CHECK(lower(U'\u03a3') == U"\u03c3");  // no final-sigma rule per char
  CHECK(lower(U'\u1e9e') == U"\u00df");
  CHECK(lower(U'\u01c5') == U"\u01c6");
  CHECK(lower(U'\U00010400') == U"\U00010428");
  CHECK(lower(U'\u2126') == U"\u03c9");
  CHECK(changes_when_lowercased(U'\u00c9'));
  CHECK_FALSE(changes_when_lowercased(U'\u00e9'));
  CHECK(combining_class(U'\u0301') == 230);
  CHECK(combining_class(U'\u0316') == 220);
  CHECK(combining_class(U'\u0334') == 1);
  CHECK(combining_class(U'\u05b0') == 10);
  CHECK(combining_class(U'a') == 0);
  // Unicode 14 marks the crate's Unicode 9 data does not know: class 0.
  CHECK(combining_class(U'\u1dfa') == 0);
}

TEST_CASE("unicode properties: UnicodeScripts classes") {
  using namespace snaptok::unicode;
  CHECK(script_of(U'a') == script_of(U'Z'));
  CHECK(script_of(U'a') != script_of(U'\u03b1'));
  CHECK(script_of(U' ') == kScriptAny);
  CHECK(script_of(U'\U000E0080') == kScriptAny);  // unassigned
  CHECK(script_of(U'\u3042') == script_of(U'\u4eac'));  // Hiragana -> Han
  CHECK(script_of(U'\u30b0') == script_of(U'\u4eac'));  // Katakana -> Han
  CHECK(script_of(U'\u30fc') == script_of(U'\u4eac'));  // U+30FC -> Han
  CHECK(script_of(U'0') != script_of(U'a'));            // Common
  CHECK(script_of(U'0') != kScriptAny);
}

TEST_CASE("normalize_changes: the crate's (char, change) sequences") {
  using V = std::vector<std::pair<unsigned, int>>;
  CHECK(changes("e\u0301", NormForm::nfc) == V{{0xe9, -1}});
  CHECK(changes("\u00e9", NormForm::nfd) == V{{'e', 0}, {0x301, 1}});
  CHECK(changes("\u00e9", NormForm::nfc) == V{{0xe9, 0}});
  CHECK(changes("\ufb01", NormForm::nfkd) == V{{'f', 0}, {'i', 1}});
  CHECK(changes("\ufb01", NormForm::nfd) == V{{0xfb01, 0}});
  // Reordering moves marks with their change values.
  CHECK(changes("a\u0301\u0316", NormForm::nfd) == V{{'a', 0}, {0x316, 0}, {0x301, 0}});
  CHECK(changes("\u00e9\u0316", NormForm::nfd) == V{{'e', 0}, {0x316, 0}, {0x301, 1}});
  CHECK(changes("\u00e9\u0316", NormForm::nfc) == V{{0xe9, 0}, {0x316, 0}});
  // Hangul, algorithmic both ways.
  CHECK(changes("\uac01", NormForm::nfd) == V{{0x1100, 0}, {0x1161, 1}, {0x11a8, 1}});
  CHECK(changes("\u1100\u1161\u11a8", NormForm::nfc) == V{{0xac01, -2}});
  CHECK(changes("\uac00\u11a8", NormForm::nfc) == V{{0xac01, -1}});
  // A mark that does not compose is buffered; a later one still composes
  // (its -1 is charged to the composite) and the next starter flushes both.
  CHECK(changes("a\u0334\u0301b", NormForm::nfc) == V{{0xe1, -1}, {0x334, 0}, {'b', 0}});
  CHECK(changes("\u0301a", NormForm::nfc) == V{{0x301, 0}, {'a', 0}});
  CHECK(changes("", NormForm::nfkc).empty());
  CHECK(snaptok::unicode::is_normalized_quick("plain ascii", NormForm::nfkc));
  CHECK_FALSE(snaptok::unicode::is_normalized_quick("e\u0301", NormForm::nfc));
  CHECK(snaptok::unicode::is_normalized_quick("\u00e9\uac00 \u00c5", NormForm::nfc));
  CHECK(snaptok::unicode::is_normalized_quick("\u00e9\uac00 \u00c5", NormForm::nfkc));
  CHECK_FALSE(snaptok::unicode::is_normalized_quick("\u212b", NormForm::nfc));
  CHECK_FALSE(snaptok::unicode::is_normalized_quick("\uac00\u11a8", NormForm::nfc));
  CHECK_FALSE(snaptok::unicode::is_normalized_quick("\ufb01", NormForm::nfkc));
  CHECK(snaptok::unicode::is_normalized_quick("\ufb01", NormForm::nfc));
  CHECK_FALSE(snaptok::unicode::is_normalized_quick("\u00e9", NormForm::nfd));
}

TEST_CASE("is_normalized_quick: a quick code point comes out as it went in") {
  using snaptok::unicode::is_normalized_quick;
  std::size_t quick[4] = {0, 0, 0, 0};
  std::string runs[4];  // every quick code point below U+20000, in order
  const NormForm forms[] = {NormForm::nfd, NormForm::nfkd, NormForm::nfc, NormForm::nfkc};
  std::size_t bitmap_disagrees = 0;  // the BMP bitmap vs the char's own flags
  for (char32_t c = 0; c < 0x110000; ++c) {
    if (c >= 0xD800 && c <= 0xDFFF) continue;
    std::string s;
    snaptok::detail::append_cp(s, c);
    for (int f = 0; f < 4; ++f) {
      if (is_normalized_quick(s, forms[f]) != snaptok::unicode::detail::keeps_char(c, forms[f])) {
        ++bitmap_disagrees;
      }
      if (!is_normalized_quick(s, forms[f])) continue;
      ++quick[f];
      if (c < 0x20000) runs[f] += s;
      const auto got = changes(s, forms[f]);
      if (got.size() != 1 || got[0].first != c || got[0].second != 0) {
        FAIL_CHECK("U+" << std::hex << static_cast<unsigned>(c) << " form " << f);
      }
    }
  }
  for (int f = 0; f < 4; ++f) {
    CHECK(is_normalized_quick(runs[f], forms[f]));
    std::vector<CharChange> out;
    snaptok::unicode::normalize_changes(runs[f], forms[f], out);
    std::string back;
    bool all_zero = true;
    for (const auto& c : out) {
      snaptok::detail::append_cp(back, c.cp);
      all_zero = all_zero && c.change == 0;
    }
    CHECK(back == runs[f]);
    CHECK(all_zero);
  }
  CHECK(bitmap_disagrees == 0);
  CHECK(quick[2] > 1000000);  // nearly everything is NFC-quick
  CHECK(quick[0] > quick[3] / 2);
}

TEST_CASE("normalizers: alignments as tokenizers' own tests give them") {
  auto nfkc = run(R"({"type":"NFKC"})", "\ufb01");
  CHECK(nfkc.get() == "fi");
  CHECK(alignments(nfkc) == std::vector<std::pair<unsigned, unsigned>>{{0, 3}, {0, 3}});

  auto nfd = run(R"({"type":"NFD"})", "\u00e9l\u00e9gant");
  CHECK(alignments(nfd) == std::vector<std::pair<unsigned, unsigned>>{
                               {0, 2}, {0, 2}, {0, 2}, {2, 3}, {3, 5}, {3, 5},
                               {3, 5}, {5, 6}, {6, 7}, {7, 8}, {8, 9}});

  auto sa = run(R"({"type":"StripAccents"})", "e\u0304\u0304\u0304o");
  CHECK(sa.get() == "eo");
  CHECK(alignments(sa) == std::vector<std::pair<unsigned, unsigned>>{{0, 1}, {7, 8}});

  auto pre = run(R"({"type":"Prepend","prepend":"\u2581"})", "Hello");
  CHECK(pre.get() == "\u2581Hello");
  CHECK(alignments(pre) == std::vector<std::pair<unsigned, unsigned>>{
                               {0, 1}, {0, 1}, {0, 1}, {0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}});
  CHECK(run(R"({"type":"Prepend","prepend":"\u2581"})", "").get().empty());
}

TEST_CASE("normalizers: text as tokenizers gives it") {
  CHECK(run(R"({"type":"Lowercase"})", "\u0130STANBUL \u03a3\u0391\u03a3").get() ==
        "i\u0307stanbul \u03c3\u03b1\u03c3");
  CHECK(run(R"({"type":"NFKD"})", "\u1eadh\u2026").get() == "a\u0323\u0302h...");
  CHECK(run(R"({"type":"Sequence","normalizers":[{"type":"NFKD"},{"type":"StripAccents"},)"
            R"({"type":"Lowercase"}]})",
            "\u1eac\u2026")
            .get() == "a...");
  CHECK(run(R"({"type":"Strip","strip_left":true,"strip_right":false})", " \u3000 a b \t").get() ==
        "a b \t");
  CHECK(run(R"({"type":"Strip","strip_left":false,"strip_right":true})", " a b \t").get() == " a b");
  CHECK(run(R"({"type":"Replace","pattern":{"String":"''"},"content":"\""})",
            "This is a ''test''")
            .get() == "This is a \"test\"");
  CHECK(run(R"({"type":"Replace","pattern":{"Regex":"\\s+"},"content":" "})",
            "This     is   a         test")
            .get() == "This is a test");
  CHECK(run(R"({"type":"Replace","pattern":{"String":"."},"content":"!"})", "a.b").get() == "a!b");
  CHECK(run(R"({"type":"Nmt"})", "a\x01" "b\tc\u200bd\ufeffe").get() == "ab c d e");
  CHECK(run(R"({"type":"BertNormalizer","clean_text":true,"handle_chinese_chars":true,)"
            R"("strip_accents":null,"lowercase":true})",
            "H\u00e9llo\x01\t\u91ce\u53e3!")
            .get() == "hello  \u91ce  \u53e3 !");
  CHECK(run(R"({"type":"BertNormalizer","clean_text":false,"handle_chinese_chars":false,)"
            R"("strip_accents":false,"lowercase":true})",
            "H\u00e9llo")
            .get() == "h\u00e9llo");
  // Untyped forms, as HF reads them.
  CHECK(run(R"({"strip_left":true,"strip_right":true})", " a ").get() == "a");
  CHECK(run(R"({"type":"Foo","prepend":"x"})", "a").get() == "xa");
}

TEST_CASE("normalizers: Replace with classes that mean another set inside a bracket") {
  auto replace = [](const char* pattern, const char* text) {
    return run(std::string(R"({"type":"Replace","pattern":{"Regex":")") + pattern +
                   R"("},"content":""})",
               text)
        .get();
  };
  // \w matches ½ and ² alone, not inside a bracket; Ⅷ (Nl) is a word char in both.
  CHECK(replace(R"(\\w)", "\u00bd x\u00b2 \u2167") == "  ");
  CHECK(replace(R"([\\w])", "\u00bd x\u00b2 \u2167") == "\u00bd \u00b2 ");
  CHECK(replace(R"([^\\w\\s])", "\u00bd x\u00b2 \u2167") == " x \u2167");
  CHECK(replace(R"(\\W)", "\u00bd x\u00b2 \u2167") == "\u00bdx\u00b2\u2167");
  CHECK(replace(R"([\\W])", "\u00bd x\u00b2 \u2167") == "x\u2167");
  CHECK(replace(R"([[:word:]])", "\u00bd x_") == "\u00bd ");
  CHECK(replace(R"([[:^word:][:digit:]])", "\u00bd x1") == "x");
  // Under (?i) a bracket folds case, a lone \p{..} does not.
  CHECK(replace(R"((?i)\\p{Lu})", "aA\u00e9\u00c9") == "a\u00e9");
  CHECK(replace(R"((?i)[\\p{Lu}])", "aA\u00e9\u00c9") == "");
  CHECK(replace(R"((?i:x)\\p{Lu})", "xaxA") == "xa");
}

TEST_CASE("normalizers: configuration errors name the JSON path") {
  CHECK(load_error(R"({"type":"Strip","strip_left":true})") ==
        "normalizer: missing field \"strip_right\"");
  CHECK(load_error(R"({"type":"Strip","strip_left":true,"strip_right":1})") ==
        "normalizer.strip_right: expected true or false, got number");
  CHECK(load_error(R"({"type":"BertNormalizer","clean_text":true,"lowercase":true})") ==
        "normalizer: missing field \"handle_chinese_chars\"");
  CHECK(load_error(R"({"type":"Replace","pattern":{"Regex":"("},"content":""})")
            .rfind("normalizer.pattern.Regex: invalid regex", 0) == 0);
  CHECK(load_error(R"({"type":"Replace","pattern":{"String":"a","Regex":"b"},"content":""})")
            .rfind("normalizer.pattern:", 0) == 0);
  CHECK(load_error(R"({"type":"Prepend"})") == "normalizer: missing field \"prepend\"");
  CHECK(load_error(R"({"type":"Foo"})") == "normalizer: unknown type \"Foo\"");
  CHECK(load_error(R"({"type":"Sequence","normalizers":[{"type":"NFC"},{"type":"Bar"}]})") ==
        "normalizer.normalizers[1]: unknown type \"Bar\"");
  CHECK(load_error(R"({"type":"NFC","extra":1})").empty());
}

TEST_CASE("utf8: simdjson's validator and the scalar walk agree on every input") {
  // require_utf8 trusts simdjson's yes and asks the scalar walk only to name
  // the byte; both must draw the line in the same place.
  std::mt19937 rng(17);
  const std::vector<std::string> pieces = {
      "a", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xC0\x80", "\xE0\x80\xAF",
      "\xED\xA0\x80", "\xED\x9F\xBF", "\xF4\x8F\xBF\xBF", "\xF4\x90\x80\x80", "\xF8\x88\x80\x80\x80",
      "\x80", "\xBF", "\xC2", "\xE2\x82", "\xF0\x9F\x98", "\xFF", "\xFE", "\xEF\xBB\xBF"};
  std::uniform_int_distribution<std::size_t> pick(0, pieces.size() - 1);
  for (int i = 0; i < 20000; ++i) {
    std::string s;
    const int n = 1 + i % 40;
    for (int k = 0; k < n; ++k) s += i % 3 == 0 ? pieces[pick(rng) % 4] : pieces[pick(rng)];
    const bool simd_ok = simdjson::validate_utf8(s.data(), s.size());
    const bool scalar_ok = snaptok::detail::find_invalid_utf8(s) == std::string_view::npos;
    CHECK_MESSAGE(simd_ok == scalar_ok, "input of " << s.size() << " bytes, case " << i);
  }
  for (int b = 0; b < 256; ++b) {
    for (int c = 0; c < 256; ++c) {
      const char two[2] = {static_cast<char>(b), static_cast<char>(c)};
      const std::string_view s(two, 2);
      CHECK(simdjson::validate_utf8(two, 2) ==
            (snaptok::detail::find_invalid_utf8(s) == std::string_view::npos));
    }
  }
}

TEST_CASE("utf8: ascii_run_end finds the first non-ASCII byte from every start") {
  // Word-wide steps against one byte at a time, on texts whose non-ASCII
  // bytes are rare, common, at word edges and in tails.
  std::mt19937 rng(5);
  const std::string alphabet = std::string("ab /:09\x7F\x80\xC3\xFF") + std::string(1, '\0');
  for (int t = 0; t < 3000; ++t) {
    const std::size_t n = t % 97;
    const std::size_t rare = 1 + t % 40;  // about one byte in `rare` is drawn from the whole alphabet
    std::string s;
    for (std::size_t k = 0; k < n; ++k) s += rng() % rare == 0 ? alphabet[rng() % alphabet.size()] : 'e';
    for (std::size_t i = 0; i <= n; ++i) {
      std::size_t expected = i;
      while (expected < n && static_cast<unsigned char>(s[expected]) < 0x80) ++expected;
      CHECK(snaptok::detail::ascii_run_end(s, i) == expected);
    }
  }
}

}  // namespace unicode_tests
