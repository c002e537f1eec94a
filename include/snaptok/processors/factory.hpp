// Maps a post-processor's "type" to its component.
#pragma once

#include <memory>
#include <string_view>

#include "snaptok/processors/byte_level.hpp"
#include "snaptok/processors/processor.hpp"

namespace snaptok {

inline PostProcessorPtr make_post_processor(const detail::Json& json) {
  const std::string_view type = json.type();
  if (type == "ByteLevel") return std::make_shared<ByteLevelProcessor>(json);
  json.unknown_type();
}

}  // namespace snaptok
