// The settings of truncation and padding (HF TruncationParams and
// PaddingParams) as plain values, and the two spellings of their choices.
// Light on purpose: the public tokenizer.hpp includes it. Reading and writing
// their tokenizer.json form, and applying them, is in truncation.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace snaptok {

enum class TruncationStrategy { longest_first, only_first, only_second };
enum class TruncationDirection { left, right };
enum class PaddingDirection { left, right };

/// The two spellings of each value: Python's (as HF's Python API gives it)
/// and tokenizer.json's.
struct Spelling {
  std::string_view python, json;
};
inline constexpr Spelling kStrategySpelling[] = {
    {"longest_first", "LongestFirst"}, {"only_first", "OnlyFirst"}, {"only_second", "OnlySecond"}};
inline constexpr Spelling kDirectionSpelling[] = {{"left", "Left"}, {"right", "Right"}};

constexpr Spelling spelling(TruncationStrategy s) noexcept {
  return kStrategySpelling[static_cast<int>(s)];
}
constexpr Spelling spelling(TruncationDirection d) noexcept {
  return kDirectionSpelling[d == TruncationDirection::left ? 0 : 1];
}
constexpr Spelling spelling(PaddingDirection d) noexcept {
  return kDirectionSpelling[d == PaddingDirection::left ? 0 : 1];
}

/// Returns the Python spelling HF uses ("longest_first", "left", ...).
template <class Setting>
constexpr auto to_string(Setting v) noexcept -> decltype(spelling(v).python) {
  return spelling(v).python;
}
/// Returns the tokenizer.json spelling ("LongestFirst", "Left", ...).
template <class Setting>
constexpr auto json_name(Setting v) noexcept -> decltype(spelling(v).json) {
  return spelling(v).json;
}

/// How to cut encodings that are too long (HF TruncationParams).
///
///   TruncationParams p;
///   p.max_length = 128; p.stride = 16;   // windows of 128 overlapping by 16
struct TruncationParams {
  std::size_t max_length = 512;
  std::size_t stride = 0;
  TruncationStrategy strategy = TruncationStrategy::longest_first;
  TruncationDirection direction = TruncationDirection::right;
};

/// How to pad encodings that are too short (HF PaddingParams).
/// `fixed_length` empty means "to the longest encoding of the batch".
struct PaddingParams {
  std::optional<std::size_t> fixed_length;
  PaddingDirection direction = PaddingDirection::right;
  std::optional<std::size_t> pad_to_multiple_of;
  std::uint32_t pad_id = 0;
  std::uint32_t pad_type_id = 0;
  std::string pad_token = "[PAD]";
};

}  // namespace snaptok
