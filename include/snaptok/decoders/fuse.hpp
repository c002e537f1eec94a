// Fuse decoder: joins every token into one.
#pragma once

#include "snaptok/decoders/decoder.hpp"

namespace snaptok {

class FuseDecoder final : public Decoder {
 public:
  /// Reads {"type": "Fuse"}.
  explicit FuseDecoder(const detail::Json&) {}

  void decode_chain(std::vector<std::string>& tokens) const override {
    std::string out;
    for (const std::string& t : tokens) out += t;
    tokens.assign(1, std::move(out));
  }
};

}  // namespace snaptok
