// StripAccents normalizer: removes every combining mark (the
// unicode-normalization-alignments crate's is_combining_mark: Mn, Mc, Me in
// its Unicode 9 data). It does not decompose first: put NFD/NFKD before it.
// JSON: {"type": "StripAccents"}.
#pragma once

#include "snaptok/normalizers/normalizer.hpp"
#include "snaptok/normalizers/rewrite.hpp"

namespace snaptok {

class StripAccentsNormalizer final : public Normalizer {
 public:
  StripAccentsNormalizer() = default;
  explicit StripAccentsNormalizer(const detail::Json&) {}
  void normalize(NormalizedString& ns) const override {
    filter_out(ns, [](char32_t c) { return unicode::is_combining_mark(c); });
  }
  // No ASCII char is a mark.
  std::optional<AsciiProfile> ascii_profile() const override { return AsciiProfile::identity(); }
};

}  // namespace snaptok
