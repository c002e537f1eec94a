// The decoder stage: turns token strings back into text.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "snaptok/detail/json.hpp"
#include "snaptok/detail/utf8.hpp"

namespace snaptok {

class Decoder {
 public:
  virtual ~Decoder() = default;
  /// Rewrites the token strings in place (HF decode_chain); the final text
  /// is their concatenation.
  virtual void decode_chain(std::vector<std::string>& tokens) const = 0;
};

using DecoderPtr = std::shared_ptr<const Decoder>;

/// Returns `s` with every non-overlapping `from` (left to right) replaced by
/// `to`, as Rust's str::replace: an empty `from` matches at every char
/// boundary ("ab" -> "XaXbX").
inline std::string rust_replace(std::string_view s, std::string_view from, std::string_view to) {
  std::string out;
  if (from.empty()) {
    out.reserve(s.size() + to.size() * (s.size() + 1));
    out.append(to);
    for (std::size_t i = 0; i < s.size();) {
      const std::size_t n = detail::utf8_len(static_cast<unsigned char>(s[i]));
      out.append(s.substr(i, n));
      out.append(to);
      i += n;
    }
    return out;
  }
  out.reserve(s.size());
  std::size_t pos = 0;
  while (true) {
    const std::size_t hit = s.find(from, pos);
    if (hit == std::string_view::npos) break;
    out.append(s.substr(pos, hit - pos));
    out.append(to);
    pos = hit + from.size();
  }
  out.append(s.substr(pos));
  return out;
}

/// Returns the one char of a JSON string (serde `char`), naming the path
/// when the string is empty or longer.
inline char32_t json_char(const detail::Json& json) {
  const std::string_view s = json.str();
  std::size_t i = 0;
  if (s.empty()) json.fail("expected a single character, got an empty string");
  const char32_t c = detail::next_cp(s, i);
  if (i != s.size()) json.fail("expected a single character, got \"" + std::string(s) + "\"");
  return c;
}

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
