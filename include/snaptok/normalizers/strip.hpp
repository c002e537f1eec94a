// Strip normalizer: removes leading and/or trailing whitespace (Rust
// char::is_whitespace). JSON: {"type": "Strip", "strip_left": bool,
// "strip_right": bool} (both required, as in HF).
#pragma once

#include "snaptok/normalizers/normalizer.hpp"
#include "snaptok/unicode/properties.hpp"

namespace snaptok {

class StripNormalizer final : public Normalizer {
 public:
  StripNormalizer(bool left, bool right) : left_(left), right_(right) {}
  explicit StripNormalizer(const detail::Json& json)
      : left_(json.at("strip_left").boolean()),
        right_(json.at("strip_right").boolean()) {}

  void normalize(NormalizedString& ns) const override {
    if (!left_ && !right_) return;
    ns.strip(left_, right_, [](char32_t c) { return unicode::is_whitespace(c); });
  }
  bool strips_left() const noexcept { return left_; }
  bool strips_right() const noexcept { return right_; }

 private:
  bool left_;
  bool right_;
};

}  // namespace snaptok
