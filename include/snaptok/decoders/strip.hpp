// Strip decoder: removes up to `start` leading and up to `stop` trailing
// occurrences of one char from every token.
#pragma once

#include "snaptok/decoders/decoder.hpp"

namespace snaptok {

class StripDecoder final : public Decoder {
 public:
  /// Reads {"type": "Strip", "content": " ", "start": 1, "stop": 0}.
  explicit StripDecoder(const detail::Json& json)
      : content_(json_char(json.at("content"))),
        start_(static_cast<std::size_t>(json.at("start").u64())),
        stop_(static_cast<std::size_t>(json.at("stop").u64())) {}

  void decode_chain(std::vector<std::string>& tokens) const override {
    std::vector<char32_t> chars;
    std::vector<std::size_t> at;  // byte offset of each char, plus the end
    for (std::string& t : tokens) {
      chars.clear();
      at.clear();
      for (std::size_t i = 0; i < t.size();) {
        at.push_back(i);
        chars.push_back(detail::next_cp(t, i));
      }
      at.push_back(t.size());
      const std::size_t n = chars.size();
      std::size_t start_cut = 0;
      for (std::size_t i = 0; i < std::min(start_, n); ++i) {
        if (chars[i] != content_) break;
        start_cut = i + 1;
      }
      std::size_t stop_cut = n;
      for (std::size_t i = 0; i < stop_; ++i) {
        // HF indexes chars[n - i - 1] and panics once that runs past the start.
        if (i >= n) fail(t);
        const std::size_t index = n - i - 1;
        if (chars[index] != content_) break;
        stop_cut = index;
      }
      if (start_cut > stop_cut) fail(t);
      t = t.substr(at[start_cut], at[stop_cut] - at[start_cut]);
    }
  }

 private:
  [[noreturn]] void fail(const std::string& token) const {
    throw Error("decoder (Strip): cannot strip token \"" + token + "\" (start " +
                std::to_string(start_) + ", stop " + std::to_string(stop_) +
                "): the cuts cross, which HF rejects with a panic");
  }

  char32_t content_;
  std::size_t start_;
  std::size_t stop_;
};

}  // namespace snaptok
