// Replace decoder: replaces every match of a string or regex pattern in each
// token (HF compiles a string pattern as an escaped regex, run by Oniguruma).
#pragma once

#include <memory>

#include "snaptok/decoders/decoder.hpp"
#include "snaptok/detail/regex.hpp"

namespace snaptok {

/// Returns `s` with the chars Rust's regex::escape escapes preceded by '\'.
inline std::string escape_regex_literal(std::string_view s) {
  static constexpr std::string_view kMeta = "\\.+*?()|[]{}^$#&-~";
  std::string out;
  out.reserve(s.size() * 2);
  for (const char c : s) {
    if (kMeta.find(c) != std::string_view::npos) out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

class ReplaceDecoder final : public Decoder {
 public:
  /// Reads {"type": "Replace", "pattern": {"String": "▁"} | {"Regex": "\\s+"},
  /// "content": " "}.
  explicit ReplaceDecoder(const detail::Json& json) : content_(json.at("content").str()) {
    const detail::Json pattern = json.at("pattern");
    std::string source;
    std::size_t members = 0;
    pattern.for_each_member([&](std::string_view key, const detail::Json& v) {
      ++members;
      if (key == "String") {
        source = escape_regex_literal(v.str());
      } else if (key == "Regex") {
        source = std::string(v.str());
      } else {
        pattern.fail("unknown pattern kind \"" + std::string(key) +
                     "\" (expected \"String\" or \"Regex\")");
      }
    });
    if (members != 1) pattern.fail("expected {\"String\": ...} or {\"Regex\": ...}");
    regex_ = std::make_shared<detail::Regex>(source, pattern.path());
  }

  void decode_chain(std::vector<std::string>& tokens) const override {
    for (std::string& t : tokens) {
      std::string out;
      out.reserve(t.size());
      for (const PatternMatch& m : regex_->find_matches(t)) {
        if (m.is_match) {
          out += content_;
        } else {
          out.append(t, m.start, m.end - m.start);
        }
      }
      t = std::move(out);
    }
  }

 private:
  std::string content_;
  std::shared_ptr<const detail::Regex> regex_;
};

}  // namespace snaptok
