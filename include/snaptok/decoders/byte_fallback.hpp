// ByteFallback decoder: runs of byte tokens "<0xNN>" become the text of those
// bytes, or one U+FFFD per byte when the run is not valid UTF-8.
#pragma once

#include <optional>

#include "snaptok/decoders/decoder.hpp"

namespace snaptok {

class ByteFallbackDecoder final : public Decoder {
 public:
  /// Reads {"type": "ByteFallback"}.
  explicit ByteFallbackDecoder(const detail::Json&) {}

  void decode_chain(std::vector<std::string>& tokens) const override {
    std::vector<std::string> out;
    out.reserve(tokens.size());
    std::string bytes;
    std::size_t n_bytes = 0;
    auto flush = [&] {
      if (n_bytes == 0) return;
      if (detail::find_invalid_utf8(bytes) == std::string_view::npos) {
        out.push_back(std::move(bytes));
      } else {
        for (std::size_t i = 0; i < n_bytes; ++i) out.emplace_back("\xEF\xBF\xBD");
      }
      bytes.clear();
      n_bytes = 0;
    };
    for (std::string& t : tokens) {
      if (auto b = byte_of(t)) {
        bytes.push_back(static_cast<char>(*b));
        ++n_bytes;
        continue;
      }
      flush();
      out.push_back(std::move(t));
    }
    flush();
    tokens = std::move(out);
  }

 private:
  static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  // "<0xNN>" -> NN, parsed as Rust's u8::from_str_radix(.., 16), which also
  // takes a leading '+' ("<0x+F>" is byte 0x0F).
  static std::optional<unsigned char> byte_of(std::string_view t) {
    if (t.size() != 6 || !t.starts_with("<0x") || t.back() != '>') return std::nullopt;
    std::string_view digits = t.substr(3, 2);
    if (digits[0] == '+') digits.remove_prefix(1);
    int v = 0;
    for (const char c : digits) {
      const int d = hex_digit(c);
      if (d < 0) return std::nullopt;
      v = v * 16 + d;
    }
    return static_cast<unsigned char>(v);
  }
};

}  // namespace snaptok
