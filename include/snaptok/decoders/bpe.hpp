// BPEDecoder: the end-of-word suffix (e.g. "</w>") becomes a space, or
// nothing in the last token.
#pragma once

#include "snaptok/decoders/decoder.hpp"

namespace snaptok {

class BpeDecoder final : public Decoder {
 public:
  /// Reads {"type": "BPEDecoder", "suffix": "</w>"}.
  explicit BpeDecoder(const detail::Json& json) : suffix_(json.at("suffix").str()) {}

  void decode_chain(std::vector<std::string>& tokens) const override {
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      tokens[i] = rust_replace(tokens[i], suffix_, i + 1 == tokens.size() ? "" : " ");
    }
  }

 private:
  std::string suffix_;
};

}  // namespace snaptok
