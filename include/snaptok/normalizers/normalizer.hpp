// The normalizer stage: rewrites text (Unicode normalization, case, replace,
// ...) while NormalizedString keeps the alignment to the original input.
#pragma once

#include <memory>

#include "snaptok/detail/json.hpp"
#include "snaptok/normalized_string.hpp"

namespace snaptok {

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  /// Rewrites `ns` in place.
  virtual void normalize(NormalizedString& ns) const = 0;
  /// True when normalize() never changes any text (an empty Sequence), so
  /// the pipeline may skip it.
  virtual bool is_identity() const noexcept { return false; }
  /// True when normalizing the two sides of a cut point ("word| word",
  /// scanners/cut_points.hpp) apart gives the whole's normalized text, cut
  /// at a cut point: the ASCII letters and the space stay as they are, and
  /// nothing reaches across them.
  virtual bool keeps_cut_points() const noexcept { return is_identity(); }
};

using NormalizerPtr = std::shared_ptr<const Normalizer>;

/// Builds the normalizer described by `json`.
NormalizerPtr make_normalizer(const detail::Json& json);

}  // namespace snaptok
