// Replace normalizer: replaces every match of a pattern with `content`. A
// {"String": s} pattern matches s literally (HF escapes it and compiles it as
// an Oniguruma regex, as here); {"Regex": r} is an Oniguruma regex. Inserted
// chars are aligned to the last char of the match they replace.
// JSON: {"type": "Replace", "pattern": {"String"|"Regex": string},
//        "content": string} (both required).
#pragma once

#include <optional>
#include <string>

#include "snaptok/detail/regex.hpp"
#include "snaptok/normalizers/normalizer.hpp"
#include "snaptok/pre_tokenizers/split.hpp"

namespace snaptok {

class ReplaceNormalizer final : public Normalizer {
 public:
  explicit ReplaceNormalizer(const detail::Json& json)
      : regex_(parse_replace_pattern(json.at("pattern"))),
        content_(json.at("content").str()) {
    if (auto s = json.at("pattern").find("String")) literal_ = std::string(s->str());
  }

  void normalize(NormalizedString& ns) const override {
    ns.replace(regex_.find_matches(ns.get()), content_);
  }
  const detail::Regex& regex() const noexcept { return regex_; }
  const std::string& content() const noexcept { return content_; }
  /// The pattern's text when it is a {"String": s} pattern.
  const std::optional<std::string>& literal() const noexcept { return literal_; }
  // A literal pattern's bytes may meet in any text that holds them, so none
  // of them is safe; every other byte stays as it is. (Regex: nullopt.)
  std::optional<AsciiProfile> ascii_profile() const override {
    if (!literal_ || literal_->empty()) return std::nullopt;
    AsciiProfile p = AsciiProfile::identity();
    for (const char c : *literal_) {
      if (static_cast<unsigned char>(c) < 128) p.safe[static_cast<unsigned char>(c)] = false;
    }
    return p;
  }

 private:
  // HF's ReplacePattern is an externally tagged enum: exactly one key.
  static detail::Regex parse_replace_pattern(const detail::Json& json) {
    if (!json.is_object()) {
      json.fail("expected {\"String\": ...} or {\"Regex\": ...}, got " +
                json.type_name());
    }
    std::size_t keys = 0;
    json.for_each_member([&](std::string_view, const detail::Json&) { ++keys; });
    if (keys != 1) json.fail("expected a map with a single key (String or Regex)");
    return parse_pattern(json);
  }

  detail::Regex regex_;
  std::string content_;
  std::optional<std::string> literal_;
};

}  // namespace snaptok
