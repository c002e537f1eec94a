// CTC decoder: collapses repeated tokens, drops the pad token and, with
// cleanup, applies the WordPiece cleanup and turns the word delimiter into a
// space; tokens left empty are dropped.
#pragma once

#include "snaptok/decoders/decoder.hpp"
#include "snaptok/decoders/wordpiece.hpp"

namespace snaptok {

class CtcDecoder final : public Decoder {
 public:
  /// Reads {"type": "CTC", "pad_token": "<pad>", "word_delimiter_token": "|", "cleanup": true}.
  explicit CtcDecoder(const detail::Json& json)
      : pad_token_(json.at("pad_token").str()),
        word_delimiter_(json.at("word_delimiter_token").str()),
        cleanup_(json.at("cleanup").boolean()) {}

  void decode_chain(std::vector<std::string>& tokens) const override {
    std::vector<std::string> out;
    out.reserve(tokens.size());
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      if (i > 0 && tokens[i] == tokens[i - 1]) continue;
      std::string t = rust_replace(tokens[i], pad_token_, "");
      if (cleanup_) t = rust_replace(wordpiece_cleanup(t), word_delimiter_, " ");
      if (!t.empty()) out.push_back(std::move(t));
    }
    tokens = std::move(out);
  }

 private:
  std::string pad_token_;
  std::string word_delimiter_;
  bool cleanup_;
};

}  // namespace snaptok
