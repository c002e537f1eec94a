// Maps a decoder's "type" to its component.
#pragma once

#include <memory>
#include <string_view>

#include "snaptok/decoders/byte_level.hpp"
#include "snaptok/decoders/decoder.hpp"

namespace snaptok {

inline DecoderPtr make_decoder(const detail::Json& json) {
  const std::string_view type = json.type();
  if (type == "ByteLevel") return std::make_shared<ByteLevelDecoder>(json);
  json.unknown_type();
}

}  // namespace snaptok
