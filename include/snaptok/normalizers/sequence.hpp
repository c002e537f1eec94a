// Sequence normalizer: applies its normalizers in order.
#pragma once

#include <utility>
#include <vector>

#include "snaptok/detail/sequence_steps.hpp"
#include "snaptok/normalizers/normalizer.hpp"

namespace snaptok {

class SequenceNormalizer final : public Normalizer {
 public:
  explicit SequenceNormalizer(const detail::Json& json) {
    for (const detail::Json& item : json.at("normalizers").array()) {
      steps_.push_back(make_normalizer(item));
    }
  }
  explicit SequenceNormalizer(std::vector<NormalizerPtr> steps) : steps_(std::move(steps)) {}
  void normalize(NormalizedString& ns) const override {
    for (const auto& step : steps_) step->normalize(ns);
  }
  bool is_identity() const noexcept override {
    for (const auto& step : steps_) {
      if (!step->is_identity()) return false;
    }
    return true;
  }
  // Each step sees the text unchanged by the steps before it.
  bool leaves_unchanged(std::string_view text) const noexcept override {
    for (const auto& step : steps_) {
      if (!step->leaves_unchanged(text)) return false;
    }
    return true;
  }
  std::optional<AsciiProfile> ascii_profile() const override {
    AsciiProfile p = AsciiProfile::identity();
    for (const auto& step : steps_) {
      const std::optional<AsciiProfile> next = step->ascii_profile();
      if (!next) return std::nullopt;
      p = p.then(*next);
    }
    return p;
  }
  /// The normalizers, in order.
  const std::vector<NormalizerPtr>& steps() const noexcept { return steps_; }
  bool keeps_cut_points() const noexcept override {
    for (const auto& step : steps_) {
      if (!step->keeps_cut_points()) return false;
    }
    return true;
  }

 private:
  std::vector<NormalizerPtr> steps_;
};

/// The normalizers `normalizer` applies, in order, nested Sequences opened.
inline std::vector<const Normalizer*> flatten_normalizers(const Normalizer* normalizer) {
  return detail::flatten_steps<SequenceNormalizer>(normalizer);
}

}  // namespace snaptok
