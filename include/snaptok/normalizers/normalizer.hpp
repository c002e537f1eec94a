// The normalizer stage: rewrites text (Unicode normalization, case, replace,
// ...) while NormalizedString keeps the alignment to the original input.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "snaptok/detail/json.hpp"
#include "snaptok/normalized_string.hpp"

namespace snaptok {

/// What a normalizer does to ASCII text made only of its `safe` bytes: byte
/// b becomes map[b] (an ASCII byte), each byte alone, whatever surrounds it.
/// A byte that is dropped, becomes several, or takes part in a rule over more
/// than one char is not safe. The fused ids-only paths normalize such text
/// through the map and hand the rest to the general pipeline.
struct AsciiProfile {
  std::array<std::uint8_t, 128> map{};
  std::array<bool, 128> safe{};

  /// Every ASCII byte safe and unchanged.
  static AsciiProfile identity() noexcept {
    AsciiProfile p;
    for (unsigned b = 0; b < 128; ++b) {
      p.map[b] = static_cast<std::uint8_t>(b);
      p.safe[b] = true;
    }
    return p;
  }

  /// This profile followed by `next` (a Sequence of the two normalizers).
  AsciiProfile then(const AsciiProfile& next) const noexcept {
    AsciiProfile p;
    for (unsigned b = 0; b < 128; ++b) {
      p.map[b] = next.map[map[b]];
      p.safe[b] = safe[b] && next.safe[map[b]];
    }
    return p;
  }
};

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  /// Rewrites `ns` in place.
  virtual void normalize(NormalizedString& ns) const = 0;
  /// True when normalize() never changes any text (an empty Sequence), so
  /// the pipeline may skip it.
  virtual bool is_identity() const noexcept { return false; }
  /// True when normalize() would leave `text` as it is; a quick check that
  /// may answer false when unsure (the ids-only path then skips the copy
  /// that normalization needs).
  virtual bool leaves_unchanged(std::string_view text) const noexcept {
    (void)text;
    return is_identity();
  }
  /// True when normalizing the two sides of a cut point ("word| word",
  /// scanners/cut_points.hpp) apart gives the whole's normalized text, cut
  /// at a cut point: the ASCII letters and the space stay as they are, and
  /// nothing reaches across them.
  virtual bool keeps_cut_points() const noexcept { return is_identity(); }
  /// Returns what normalize() does to plain ASCII text, or nullopt when it
  /// is not a per-byte map there (context rules such as Prepend or Strip).
  virtual std::optional<AsciiProfile> ascii_profile() const {
    if (is_identity()) return AsciiProfile::identity();
    return std::nullopt;
  }
};

using NormalizerPtr = std::shared_ptr<const Normalizer>;

/// Builds the normalizer described by `json`.
NormalizerPtr make_normalizer(const detail::Json& json);

}  // namespace snaptok
