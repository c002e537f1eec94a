// NFD, NFKD, NFC and NFKC normalizers: Unicode normalization with the data
// and alignment semantics of HF `tokenizers` (see unicode/normalize.hpp).
// JSON: {"type": "NFC"} (no fields; unknown fields are ignored, as in HF).
#pragma once

#include "snaptok/normalizers/normalizer.hpp"
#include "snaptok/normalizers/rewrite.hpp"

namespace snaptok {

/// One of the four Unicode normalization forms.
///
/// Example: NFKC turns "ﬁ" (U+FB01) into "fi", both chars aligned to the
/// original ligature.
class UnicodeFormNormalizer final : public Normalizer {
 public:
  explicit UnicodeFormNormalizer(unicode::NormForm form) : form_(form) {}
  // Every form leaves ASCII as it is and has a boundary before U+0020 (a
  // starter that composes with nothing).
  bool keeps_cut_points() const noexcept override { return true; }
  void normalize(NormalizedString& ns) const override {
    unicode_form_rewrite(ns, form_);
  }
  bool leaves_unchanged(std::string_view text) const noexcept override {
    return unicode::is_normalized_quick(text, form_);
  }
  unicode::NormForm form() const noexcept { return form_; }
  // ASCII has no decompositions, and composes only with non-ASCII marks.
  std::optional<AsciiProfile> ascii_profile() const override { return AsciiProfile::identity(); }

 private:
  unicode::NormForm form_;
};

}  // namespace snaptok
