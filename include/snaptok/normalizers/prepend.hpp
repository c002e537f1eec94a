// Prepend normalizer: puts a string before the first char of non-empty
// input; the added chars are aligned to that first char.
// JSON: {"type": "Prepend", "prepend": string} (required).
#pragma once

#include <string>

#include "snaptok/normalizers/normalizer.hpp"

namespace snaptok {

class PrependNormalizer final : public Normalizer {
 public:
  explicit PrependNormalizer(std::string prepend) : prepend_(std::move(prepend)) {}
  explicit PrependNormalizer(const detail::Json& json)
      : prepend_(json.at("prepend").str()) {}

  void normalize(NormalizedString& ns) const override {
    if (!ns.empty()) ns.prepend(prepend_);
  }
  const std::string& prepend() const noexcept { return prepend_; }

 private:
  std::string prepend_;
};

}  // namespace snaptok
