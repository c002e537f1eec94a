// Lowercase normalizer: every char through Rust's char::to_lowercase (no
// context rules: a final sigma stays σ); extra chars of a multi-char mapping
// (U+0130 -> "i\u0307") are insertions aligned to the source char.
// JSON: {"type": "Lowercase"}.
#pragma once

#include "snaptok/normalizers/normalizer.hpp"
#include "snaptok/normalizers/rewrite.hpp"

namespace snaptok {

class LowercaseNormalizer final : public Normalizer {
 public:
  LowercaseNormalizer() = default;
  explicit LowercaseNormalizer(const detail::Json&) {}
  // Char by char; ASCII letters stay ASCII letters.
  bool keeps_cut_points() const noexcept override { return true; }
  void normalize(NormalizedString& ns) const override { lowercase_rewrite(ns); }
  std::optional<AsciiProfile> ascii_profile() const override {
    AsciiProfile p = AsciiProfile::identity();
    for (unsigned b = 'A'; b <= 'Z'; ++b) p.map[b] = static_cast<std::uint8_t>(b | 0x20);
    return p;
  }
};

}  // namespace snaptok
