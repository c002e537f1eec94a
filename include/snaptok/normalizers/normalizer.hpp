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
};

using NormalizerPtr = std::shared_ptr<const Normalizer>;

/// Builds the normalizer described by `json`.
NormalizerPtr make_normalizer(const detail::Json& json);

}  // namespace snaptok
