// WordPiece decoder: joins continuing subwords ("##ing") to the word before
// and puts a space before every other token; optionally cleans up
// tokenization artifacts (" ." -> ".", " n't" -> "n't", ...).
#pragma once

#include "snaptok/decoders/decoder.hpp"

namespace snaptok {

/// Returns `s` with HF's English cleanup applied (decoders::wordpiece::cleanup).
inline std::string wordpiece_cleanup(std::string_view s) {
  static constexpr std::string_view kRules[][2] = {
      {" .", "."},   {" ?", "?"},   {" !", "!"},   {" ,", ","},          {" ' ", "'"},
      {" n't", "n't"}, {" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"},
      {" 're", "'re"}};
  std::string out(s);
  for (const auto& rule : kRules) out = rust_replace(out, rule[0], rule[1]);
  return out;
}

class WordPieceDecoder final : public Decoder {
 public:
  /// Reads {"type": "WordPiece", "prefix": "##", "cleanup": true}.
  explicit WordPieceDecoder(const detail::Json& json)
      : prefix_(json.at("prefix").str()), cleanup_(json.at("cleanup").boolean()) {}

  void decode_chain(std::vector<std::string>& tokens) const override {
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      std::string& t = tokens[i];
      if (i != 0) {
        if (t.starts_with(prefix_)) {
          t.erase(0, prefix_.size());
        } else {
          t.insert(t.begin(), ' ');
        }
      }
      if (cleanup_) t = wordpiece_cleanup(t);
    }
  }

 private:
  std::string prefix_;
  bool cleanup_;
};

}  // namespace snaptok
