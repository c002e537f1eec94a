// Metaspace decoder: the replacement char (default U+2581 '▁') becomes a
// space, except in the first token when a prefix space was prepended.
#pragma once

#include "snaptok/decoders/decoder.hpp"

namespace snaptok {

class MetaspaceDecoder final : public Decoder {
 public:
  /// Reads {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always",
  /// "split": true}; the legacy "add_prefix_space": false means "never" (and,
  /// as in HF, conflicts with any other declared or default scheme).
  explicit MetaspaceDecoder(const detail::Json& json)
      : replacement_(json_char(json.at("replacement"))) {
    std::string_view scheme = "always";
    if (auto s = json.find("prepend_scheme")) {
      scheme = s->str();
      if (scheme != "always" && scheme != "first" && scheme != "never") {
        s->fail("unknown prepend_scheme \"" + std::string(scheme) +
                "\" (expected \"first\", \"never\" or \"always\")");
      }
    }
    if (auto a = json.find("add_prefix_space"); a && !a->boolean()) {
      if (scheme != "never") json.fail("add_prefix_space does not match declared prepend_scheme");
    }
    if (auto s = json.find("split")) (void)s->boolean();
    strip_first_ = scheme != "never";
  }

  void decode_chain(std::vector<std::string>& tokens) const override {
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      const std::string& t = tokens[i];
      std::string out;
      out.reserve(t.size());
      for (std::size_t k = 0; k < t.size();) {
        const std::size_t start = k;
        const char32_t c = detail::next_cp(t, k);
        if (c == replacement_) {
          if (!(i == 0 && strip_first_)) out.push_back(' ');
        } else {
          out.append(t, start, k - start);
        }
      }
      tokens[i] = std::move(out);
    }
  }

 private:
  char32_t replacement_;
  bool strip_first_;
};

}  // namespace snaptok
