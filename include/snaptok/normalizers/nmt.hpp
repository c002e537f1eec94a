// Nmt normalizer (HF's port of SentencePiece's NMT normalization): drops
// ASCII control chars (U+0001-0008, 000B, 000E-001F, 007F, 008F, 009F) and
// maps tab, newline, form feed, carriage return, U+1680, U+200B-200F, U+2028,
// U+2029, U+2581, U+FEFF and U+FFFD to ' '. JSON: {"type": "Nmt"}.
#pragma once

#include "snaptok/normalizers/normalizer.hpp"
#include "snaptok/normalizers/rewrite.hpp"

namespace snaptok {

class NmtNormalizer final : public Normalizer {
 public:
  NmtNormalizer() = default;
  explicit NmtNormalizer(const detail::Json&) {}

  static constexpr bool drops(char32_t c) noexcept {
    return (c >= 0x01 && c <= 0x08) || c == 0x0B || (c >= 0x0E && c <= 0x1F) ||
           c == 0x7F || c == 0x8F || c == 0x9F;
  }
  static constexpr bool to_space(char32_t c) noexcept {
    return c == 0x09 || c == 0x0A || c == 0x0C || c == 0x0D || c == 0x1680 ||
           (c >= 0x200B && c <= 0x200F) || c == 0x2028 || c == 0x2029 ||
           c == 0x2581 || c == 0xFEFF || c == 0xFFFD;
  }

  void normalize(NormalizedString& ns) const override {
    filter_out(ns, [](char32_t c) { return drops(c); });
    map_chars(ns, [](char32_t c) { return to_space(c); },
              [](char32_t) { return char32_t{' '}; });
  }
  std::optional<AsciiProfile> ascii_profile() const override {
    AsciiProfile p = AsciiProfile::identity();
    for (unsigned b = 0; b < 128; ++b) {
      if (drops(b)) p.safe[b] = false;
      if (to_space(b)) p.map[b] = ' ';
    }
    return p;
  }
};

}  // namespace snaptok
