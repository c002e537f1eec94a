// RobertaProcessing: `<s> A </s>` and `<s> A </s> </s> B </s>`, every type
// id 0, with ByteLevel's offset trimming when trim_offsets is set.
#pragma once

#include "snaptok/processors/byte_level.hpp"
#include "snaptok/processors/processor.hpp"

namespace snaptok {

class RobertaProcessing final : public PostProcessor {
 public:
  /// Reads {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0],
  /// "trim_offsets": true, "add_prefix_space": true} (all four required, as in HF).
  explicit RobertaProcessing(const detail::Json& json)
      : sep_(SpecialPiece::from_json(json.at("sep"))),
        cls_(SpecialPiece::from_json(json.at("cls"))),
        trim_offsets_(json.at("trim_offsets").boolean()),
        add_prefix_space_(json.at("add_prefix_space").boolean()) {}

  std::size_t added_tokens(bool is_pair) const override { return is_pair ? 4 : 2; }

  void process_encodings(std::vector<Encoding>& encodings,
                         bool add_special_tokens) const override {
    if (trim_offsets_) {
      for (Encoding& e : encodings) {
        trim_byte_level_offsets(e, add_prefix_space_);
        for (Encoding& o : e.overflowing) trim_byte_level_offsets(o, add_prefix_space_);
      }
    }
    // Only the encodings themselves: their overflowing parts keep their type ids.
    for (Encoding& e : encodings) e.type_ids.assign(e.size(), 0);
    if (!add_special_tokens) return;
    wrap_each(encodings, [&](const Encoding& e, bool first) { return wrap(e, first); });
  }

  void process_id_parts(std::vector<std::vector<std::uint32_t>>& parts,
                        bool add_special_tokens) const override {
    if (!add_special_tokens) return;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      parts[i].insert(parts[i].begin(), i == 0 ? cls_.id : sep_.id);
      parts[i].push_back(sep_.id);
    }
  }

  void process_ids(std::vector<std::uint32_t>& ids, bool add_special_tokens) const override {
    if (add_special_tokens) surround_ids(ids, cls_.id, sep_.id);
  }

 private:
  Encoding wrap(const Encoding& e, bool first) const {
    if (first) return surround_with_specials(e, &cls_, &sep_, 0, 0, true, 0);
    return surround_with_specials(e, &sep_, &sep_, 0, 0, true, 1);
  }

  SpecialPiece sep_;
  SpecialPiece cls_;
  bool trim_offsets_;
  bool add_prefix_space_;
};

}  // namespace snaptok
