// BertNormalizer: BERT's text cleaning, in HF's order: clean_text (drop NUL,
// U+FFFD and control chars; every whitespace char becomes ' '),
// handle_chinese_chars (a space on each side of every CJK ideograph),
// strip_accents (NFD, then drop non-spacing marks), lowercase.
// JSON: {"type": "BertNormalizer", "clean_text": bool,
//        "handle_chinese_chars": bool, "strip_accents": bool|null (null or
//        absent: follow lowercase), "lowercase": bool}; the three bools are
//        required, as in HF.
#pragma once

#include <optional>
#include <vector>

#include "snaptok/normalizers/normalizer.hpp"
#include "snaptok/normalizers/rewrite.hpp"
#include "snaptok/unicode/properties.hpp"

namespace snaptok {

class BertNormalizer final : public Normalizer {
 public:
  BertNormalizer(bool clean_text, bool handle_chinese_chars,
                 std::optional<bool> strip_accents, bool lowercase)
      : clean_text_(clean_text),
        handle_chinese_chars_(handle_chinese_chars),
        strip_accents_(strip_accents.value_or(lowercase)),
        lowercase_(lowercase) {}

  explicit BertNormalizer(const detail::Json& json)
      : BertNormalizer(json.at("clean_text").boolean(),
                       json.at("handle_chinese_chars").boolean(),
                       read_strip_accents(json),
                       json.at("lowercase").boolean()) {}

  void normalize(NormalizedString& ns) const override {
    if (clean_text_) {
      filter_out(ns, [](char32_t c) {
        return c == 0 || c == 0xFFFD || unicode::bert_is_control(c);
      });
      map_chars(
          ns, [](char32_t c) { return c != ' ' && unicode::bert_is_whitespace(c); },
          [](char32_t) { return char32_t{' '}; });
    }
    if (handle_chinese_chars_) pad_chinese_chars(ns);
    if (strip_accents_) {
      unicode_form_rewrite(ns, unicode::NormForm::nfd);
      filter_out(ns, [](char32_t c) { return unicode::is_mark_nonspacing(c); });
    }
    if (lowercase_) lowercase_rewrite(ns);
  }
  // ASCII has no CJK ideographs or accents: cleaning and case only.
  std::optional<AsciiProfile> ascii_profile() const override {
    AsciiProfile p = AsciiProfile::identity();
    for (unsigned b = 0; b < 128; ++b) {
      if (clean_text_ && (b == 0 || unicode::bert_is_control(b))) p.safe[b] = false;
      if (clean_text_ && b != ' ' && unicode::bert_is_whitespace(b)) p.map[b] = ' ';
      if (lowercase_ && b >= 'A' && b <= 'Z') p.map[b] = static_cast<std::uint8_t>(b | 0x20);
    }
    return p;
  }

 private:
  static std::optional<bool> read_strip_accents(const detail::Json& json) {
    if (auto v = json.find("strip_accents")) return v->boolean();
    return std::nullopt;
  }

  static void pad_chinese_chars(NormalizedString& ns) {
    if (!any_char(ns.get(), unicode::is_chinese_char) && identity_is_noop(ns)) {
      return;
    }
    const std::string& s = ns.get();
    std::vector<CharChange> changes;
    changes.reserve(s.size() + 8);
    for (std::size_t i = 0; i < s.size();) {
      const char32_t c = detail::next_cp(s, i);
      if (unicode::is_chinese_char(c)) {
        changes.push_back({U' ', 0});
        changes.push_back({c, 1});
        changes.push_back({U' ', 1});
      } else {
        changes.push_back({c, 0});
      }
    }
    ns.transform(changes, 0);
  }

  bool clean_text_;
  bool handle_chinese_chars_;
  bool strip_accents_;
  bool lowercase_;
};

}  // namespace snaptok
