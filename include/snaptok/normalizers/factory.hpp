// Maps a normalizer's "type" to its component.
#pragma once

#include <memory>
#include <string_view>

#include "snaptok/normalizers/byte_level.hpp"
#include "snaptok/normalizers/normalizer.hpp"
#include "snaptok/normalizers/sequence.hpp"

namespace snaptok {

inline NormalizerPtr make_normalizer(const detail::Json& json) {
  const std::string_view type = json.type();
  if (type == "Sequence") return std::make_shared<SequenceNormalizer>(json);
  if (type == "ByteLevel") return std::make_shared<ByteLevelNormalizer>(json);
  json.unknown_type();
}

}  // namespace snaptok
