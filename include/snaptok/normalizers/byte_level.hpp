// ByteLevel normalizer: every byte rewritten as GPT-2's printable stand-in.
#pragma once

#include "snaptok/normalizers/normalizer.hpp"
#include "snaptok/pre_tokenizers/byte_level.hpp"

namespace snaptok {

class ByteLevelNormalizer final : public Normalizer {
 public:
  explicit ByteLevelNormalizer(const detail::Json&) {}
  void normalize(NormalizedString& ns) const override { byte_level_rewrite(ns); }
};

}  // namespace snaptok
