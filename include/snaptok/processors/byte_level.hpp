// ByteLevel post-processor: trims leading/trailing spaces out of token
// offsets when trim_offsets is set (keeping a prefix space it added itself).
#pragma once

#include "snaptok/detail/byte_level_table.hpp"
#include "snaptok/processors/processor.hpp"
#include "snaptok/unicode/properties.hpp"

namespace snaptok {

/// Trims spaces (U+0120 'Ġ' or White_Space) at the edges of each token out of
/// its offsets (HF byte_level::process_offsets).
inline void trim_byte_level_offsets(Encoding& enc, bool add_prefix_space) {
  constexpr char32_t kSpaceChar = 0x120;
  auto is_space = [](char32_t c) { return c == kSpaceChar || unicode::is_whitespace(c); };
  for (std::size_t i = 0; i < enc.size(); ++i) {
    const std::string& tok = enc.tokens[i];
    Offsets& off = enc.offsets[i];
    std::size_t leading = 0, trailing = 0, pos = 0;
    while (pos < tok.size()) {
      std::size_t next = pos;
      if (!is_space(detail::next_cp(tok, next))) break;
      ++leading;
      pos = next;
    }
    pos = tok.size();
    while (pos > 0) {
      std::size_t prev = pos;
      if (!is_space(detail::prev_cp(tok, prev))) break;
      ++trailing;
      pos = prev;
    }
    if (leading == 0 && trailing == 0) continue;
    if (leading > 0) {
      const bool is_first = i == 0 || off.start == 0;
      if (is_first && add_prefix_space && leading == 1) leading = 0;
      off.start = std::min(off.start + leading, off.end);
    }
    if (trailing > 0 && off.end >= trailing) {
      off.end = std::max(off.end - trailing, off.start);
    }
  }
}

class ByteLevelProcessor final : public PostProcessor {
 public:
  /// Reads {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true,
  /// "use_regex": true}; as in HF the first two are required.
  explicit ByteLevelProcessor(const detail::Json& json)
      : add_prefix_space_(json.at("add_prefix_space").boolean()),
        trim_offsets_(json.at("trim_offsets").boolean()) {
    (void)json.get_bool("use_regex", true);
  }

  std::size_t added_tokens(bool) const override { return 0; }

  void process_encodings(std::vector<Encoding>& encodings, bool) const override {
    if (trim_offsets_) {
      for (Encoding& e : encodings) {
        trim_byte_level_offsets(e, add_prefix_space_);
        for (Encoding& o : e.overflowing) trim_byte_level_offsets(o, add_prefix_space_);
      }
    }
    for (std::size_t i = 0; i < encodings.size(); ++i) encodings[i].set_sequence_id(i);
  }

  void process_id_parts(std::vector<std::vector<std::uint32_t>>&, bool) const override {}
  void process_ids(std::vector<std::uint32_t>&, bool) const override {}
  bool ids_unchanged() const noexcept override { return true; }

 private:
  bool add_prefix_space_;
  bool trim_offsets_;
};

}  // namespace snaptok
