// Truncation and padding parameters (HF TruncationParams / PaddingParams).
// PROVISIONAL: being completed in parallel; loading a tokenizer.json with
// truncation or padding set is refused until then.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "snaptok/detail/json.hpp"
#include "snaptok/encoding.hpp"

namespace snaptok {

enum class TruncationStrategy { longest_first, only_first, only_second };
enum class TruncationDirection { left, right };

struct TruncationParams {
  std::size_t max_length = 512;
  std::size_t stride = 0;
  TruncationStrategy strategy = TruncationStrategy::longest_first;
  TruncationDirection direction = TruncationDirection::right;

  static TruncationParams from_json(const detail::Json& json) {
    json.fail("truncation is not supported by this build yet");
  }
};

struct PaddingParams {
  static PaddingParams from_json(const detail::Json& json) {
    json.fail("padding is not supported by this build yet");
  }
};

inline void truncate_encodings(Encoding&, std::optional<Encoding>&, const TruncationParams&) {}
inline void pad_encodings(std::vector<Encoding>&, const PaddingParams&) {}

}  // namespace snaptok
