// BertProcessing: `[CLS] A [SEP]` and `[CLS] A [SEP] B [SEP]`, the pair's
// tokens (and its [SEP]) with type id 1.
#pragma once

#include "snaptok/processors/processor.hpp"

namespace snaptok {

class BertProcessing final : public PostProcessor {
 public:
  /// Reads {"type": "BertProcessing", "sep": ["[SEP]", 102], "cls": ["[CLS]", 101]}.
  explicit BertProcessing(const detail::Json& json)
      : sep_(SpecialPiece::from_json(json.at("sep"))),
        cls_(SpecialPiece::from_json(json.at("cls"))) {}

  std::size_t added_tokens(bool is_pair) const override { return is_pair ? 3 : 2; }

  void process_encodings(std::vector<Encoding>& encodings,
                         bool add_special_tokens) const override {
    if (!add_special_tokens) return;
    wrap_each(encodings, [&](const Encoding& e, bool first) { return wrap(e, first); });
  }

  void process_id_parts(std::vector<std::vector<std::uint32_t>>& parts,
                        bool add_special_tokens) const override {
    if (!add_special_tokens) return;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      if (i == 0) parts[i].insert(parts[i].begin(), cls_.id);
      parts[i].push_back(sep_.id);
    }
  }

  void process_ids(std::vector<std::uint32_t>& ids, bool add_special_tokens) const override {
    if (add_special_tokens) surround_ids(ids, cls_.id, sep_.id);
  }

 private:
  Encoding wrap(const Encoding& e, bool first) const {
    if (first) return surround_with_specials(e, &cls_, &sep_, 0, 0, false, 0);
    return surround_with_specials(e, nullptr, &sep_, 0, 1, false, 1);
  }

  SpecialPiece sep_;
  SpecialPiece cls_;
};

}  // namespace snaptok
