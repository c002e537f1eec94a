// The decoder stage: turns token strings back into text.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "snaptok/detail/json.hpp"

namespace snaptok {

class Decoder {
 public:
  virtual ~Decoder() = default;
  /// Rewrites the token strings in place (HF decode_chain); the final text
  /// is their concatenation.
  virtual void decode_chain(std::vector<std::string>& tokens) const = 0;
};

using DecoderPtr = std::shared_ptr<const Decoder>;

/// Builds the decoder described by `json`.
DecoderPtr make_decoder(const detail::Json& json);

/// Returns the decoded text of `tokens` (HF Decoder::decode).
inline std::string decode_tokens(const Decoder& decoder, std::vector<std::string> tokens) {
  decoder.decode_chain(tokens);
  std::string out;
  for (const std::string& t : tokens) out += t;
  return out;
}

}  // namespace snaptok
