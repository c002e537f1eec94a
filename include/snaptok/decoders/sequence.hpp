// Sequence decoder: runs its decoders one after the other.
#pragma once

#include <vector>

#include "snaptok/decoders/decoder.hpp"

namespace snaptok {

class SequenceDecoder final : public Decoder {
 public:
  /// Reads {"type": "Sequence", "decoders": [...]}.
  explicit SequenceDecoder(const detail::Json& json) {
    for (const detail::Json& d : json.at("decoders").array()) decoders_.push_back(make_decoder(d));
  }

  void decode_chain(std::vector<std::string>& tokens) const override {
    for (const auto& d : decoders_) d->decode_chain(tokens);
  }

 private:
  std::vector<DecoderPtr> decoders_;
};

}  // namespace snaptok
