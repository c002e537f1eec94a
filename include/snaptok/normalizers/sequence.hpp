// Sequence normalizer: applies its normalizers in order.
#pragma once

#include <vector>

#include "snaptok/normalizers/normalizer.hpp"

namespace snaptok {

class SequenceNormalizer final : public Normalizer {
 public:
  explicit SequenceNormalizer(const detail::Json& json) {
    for (const detail::Json& item : json.at("normalizers").array()) {
      steps_.push_back(make_normalizer(item));
    }
  }
  void normalize(NormalizedString& ns) const override {
    for (const auto& step : steps_) step->normalize(ns);
  }
  bool is_identity() const noexcept override {
    for (const auto& step : steps_) {
      if (!step->is_identity()) return false;
    }
    return true;
  }
  bool keeps_cut_points() const noexcept override {
    for (const auto& step : steps_) {
      if (!step->keeps_cut_points()) return false;
    }
    return true;
  }

 private:
  std::vector<NormalizerPtr> steps_;
};

}  // namespace snaptok
