// ByteLevel decoder: maps byte-level chars back to bytes and the bytes to
// text, invalid UTF-8 becoming U+FFFD (Rust's from_utf8_lossy).
#pragma once

#include "snaptok/decoders/decoder.hpp"
#include "snaptok/detail/byte_level_table.hpp"
#include "snaptok/detail/utf8_lossy.hpp"

namespace snaptok {

class ByteLevelDecoder final : public Decoder {
 public:
  /// Reads {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true,
  /// "use_regex": true}: as in HF the first two are required, though unused here.
  explicit ByteLevelDecoder(const detail::Json& json) {
    (void)json.at("add_prefix_space").boolean();
    (void)json.at("trim_offsets").boolean();
    (void)json.get_bool("use_regex", true);
  }

  void decode_chain(std::vector<std::string>& tokens) const override {
    const auto& table = detail::byte_level_table();
    std::string bytes;
    for (const std::string& t : tokens) {
      // A token whose chars are not all byte-level stand-ins is kept as is.
      const std::size_t mark = bytes.size();
      bool all_mapped = true;
      for (std::size_t i = 0; i < t.size();) {
        const int b = table.byte_of(detail::next_cp(t, i));
        if (b < 0) {
          all_mapped = false;
          break;
        }
        bytes.push_back(static_cast<char>(b));
      }
      if (!all_mapped) {
        bytes.resize(mark);
        bytes += t;
      }
    }
    tokens.assign(1, detail::utf8_lossy(bytes));
  }
};

}  // namespace snaptok
