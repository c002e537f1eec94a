// TemplateProcessing: places the sequences and special tokens as the
// "single" / "pair" templates say, each piece with its type id
// (e.g. single `[CLS]:0 $A:0 [SEP]:0`, pair `... $B:1 [SEP]:1`).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "snaptok/processors/processor.hpp"

namespace snaptok {

class TemplateProcessing final : public PostProcessor {
 public:
  /// Reads {"type": "TemplateProcessing", "single": [piece...], "pair": [piece...],
  /// "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [101], "tokens": ["[CLS]"]}}}
  /// where a piece is {"Sequence": {"id": "A", "type_id": 0}} or
  /// {"SpecialToken": {"id": "[CLS]", "type_id": 0}}.
  explicit TemplateProcessing(const detail::Json& json)
      : single_(read_template(json.at("single"))), pair_(read_template(json.at("pair"))) {
    json.at("special_tokens").for_each_member([&](std::string_view key, const detail::Json& v) {
      Special sp;
      for (const detail::Json& id : v.at("ids").array()) sp.ids.push_back(id.u32());
      for (const detail::Json& t : v.at("tokens").array()) sp.tokens.emplace_back(t.str());
      (void)v.at("id").str();
      if (sp.ids.size() != sp.tokens.size()) {
        v.fail("\"ids\" and \"tokens\" must have the same length");
      }
      special_[std::string(key)] = std::move(sp);
    });
    added_single_ = count_added(single_);
    added_pair_ = count_added(pair_);
  }

  std::size_t added_tokens(bool is_pair) const override {
    return is_pair ? added_pair_ : added_single_;
  }

  void process_encodings(std::vector<Encoding>& encodings,
                         bool add_special_tokens) const override {
    const std::vector<Piece>& tmpl = pick(encodings.size());
    std::vector<Encoding> out;
    out.reserve(tmpl.size());
    for (const Piece& p : tmpl) {
      if (p.is_sequence) {
        const std::size_t i = p.sequence_b ? 1 : 0;
        check_sequence(i, encodings.size());
        Encoding& e = encodings[i];
        e.type_ids.assign(e.size(), p.type_id);
        e.set_sequence_id(i);
        out.push_back(e);
      } else if (add_special_tokens) {
        const Special& sp = special(p.special_id);
        Encoding s;
        for (std::size_t k = 0; k < sp.ids.size(); ++k) {
          s.push(sp.ids[k], sp.tokens[k], Offsets{0, 0}, std::nullopt, p.type_id, 1);
        }
        out.push_back(std::move(s));
      }
    }
    encodings = std::move(out);
  }

  void process_id_parts(std::vector<std::vector<std::uint32_t>>& parts,
                        bool add_special_tokens) const override {
    const std::vector<Piece>& tmpl = pick(parts.size());
    std::vector<std::vector<std::uint32_t>> out;
    out.reserve(tmpl.size());
    for (const Piece& p : tmpl) {
      if (p.is_sequence) {
        const std::size_t i = p.sequence_b ? 1 : 0;
        check_sequence(i, parts.size());
        out.push_back(parts[i]);
      } else if (add_special_tokens) {
        out.push_back(special(p.special_id).ids);
      }
    }
    parts = std::move(out);
  }

  void process_ids(std::vector<std::uint32_t>& ids, bool add_special_tokens) const override {
    std::vector<std::uint32_t> out;
    out.reserve(ids.size() + added_single_);
    for (const Piece& p : single_) {
      if (p.is_sequence) {
        check_sequence(p.sequence_b ? 1 : 0, 1);
        out.insert(out.end(), ids.begin(), ids.end());
      } else if (add_special_tokens) {
        const Special& sp = special(p.special_id);
        out.insert(out.end(), sp.ids.begin(), sp.ids.end());
      }
    }
    ids = std::move(out);
  }

 private:
  struct Piece {
    bool is_sequence = false;
    bool sequence_b = false;  // for a sequence: $B rather than $A
    std::string special_id;   // for a special token
    std::uint32_t type_id = 0;
  };
  struct Special {
    std::vector<std::uint32_t> ids;
    std::vector<std::string> tokens;
  };

  static std::vector<Piece> read_template(const detail::Json& json) {
    std::vector<Piece> out;
    for (const detail::Json& item : json.array()) {
      Piece p;
      std::size_t members = 0;
      item.for_each_member([&](std::string_view key, const detail::Json& v) {
        ++members;
        if (key == "Sequence") {
          p.is_sequence = true;
          const detail::Json id = v.at("id");
          if (id.str() == "A") {
            p.sequence_b = false;
          } else if (id.str() == "B") {
            p.sequence_b = true;
          } else {
            id.fail("unknown sequence \"" + std::string(id.str()) + "\" (expected \"A\" or \"B\")");
          }
        } else if (key == "SpecialToken") {
          p.special_id = std::string(v.at("id").str());
        } else {
          item.fail("unknown template piece \"" + std::string(key) +
                    "\" (expected \"Sequence\" or \"SpecialToken\")");
        }
        p.type_id = v.at("type_id").u32();
      });
      if (members != 1) item.fail("expected one of {\"Sequence\": ...} or {\"SpecialToken\": ...}");
      out.push_back(std::move(p));
    }
    return out;
  }

  // HF count_added: special tokens missing from the map count 0.
  std::size_t count_added(const std::vector<Piece>& tmpl) const {
    std::size_t n = 0;
    for (const Piece& p : tmpl) {
      if (p.is_sequence) continue;
      if (auto it = special_.find(p.special_id); it != special_.end()) n += it->second.ids.size();
    }
    return n;
  }

  const std::vector<Piece>& pick(std::size_t n_encodings) const {
    if (n_encodings == 1) return single_;
    if (n_encodings == 2) return pair_;
    throw Error("post_processor (TemplateProcessing): expected 1 or 2 encodings, got " +
                std::to_string(n_encodings));
  }

  static void check_sequence(std::size_t i, std::size_t n) {
    if (i >= n) {
      throw Error("post_processor (TemplateProcessing): the template uses $B but there is no "
                  "pair sequence");
    }
  }

  const Special& special(const std::string& id) const {
    auto it = special_.find(id);
    if (it == special_.end()) {
      throw Error("post_processor (TemplateProcessing): special token \"" + id +
                  "\" is used by a template but missing from \"special_tokens\"");
    }
    return it->second;
  }

  std::vector<Piece> single_;
  std::vector<Piece> pair_;
  std::map<std::string, Special, std::less<>> special_;
  std::size_t added_single_ = 0;
  std::size_t added_pair_ = 0;
};

}  // namespace snaptok
