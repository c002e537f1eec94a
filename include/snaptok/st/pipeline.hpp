// The pipeline section of a .st file: the tokenizer.json without the
// model's tables. Captured (minified, in file order) when a tokenizer loads,
// and written back with the settings the tokenizer has at save time.
//
//   {...every top-level member but model, truncation, padding, with
//    "added_tokens" as the tokenizer's added vocabulary is at save time...,
//    "truncation": {...} | null, "padding": {...} | null,
//    "model": {"type": "BPE", ...model settings, no vocab or merges...},
//    "snaptok": {"encode_special_tokens": false, "cache_budget": 67108864}}
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "snaptok/detail/json.hpp"
#include "snaptok/runtime/settings.hpp"
#include "snaptok/truncation.hpp"

namespace snaptok::st {

class PipelineJson {
 public:
  /// Keeps every member of `root` (a tokenizer.json or a pipeline section)
  /// that text() does not write itself, and the place of "added_tokens"
  /// (first, when `root` has none: where HF writes it).
  static PipelineJson capture(const detail::Json& root) {
    PipelineJson p;
    root.for_each_member([&](std::string_view key, const detail::Json& value) {
      if (key == "model") {
        if (!value.is_object()) return;  // the model's own load names the problem
        value.for_each_member([&](std::string_view k, const detail::Json& v) {
          if (k != "vocab" && k != "merges" && k != "type") p.model_.emplace_back(k, simdjson::minify(v.raw()));
        });
      } else if (key == "added_tokens") {
        p.root_.emplace_back(key, std::string());  // written from the vocabulary
      } else if (key != "truncation" && key != "padding" && key != "snaptok") {
        p.root_.emplace_back(key, simdjson::minify(value.raw()));
      }
    });
    if (std::none_of(p.root_.begin(), p.root_.end(), [](const auto& m) { return m.first == "added_tokens"; })) {
      p.root_.emplace(p.root_.begin(), "added_tokens", std::string());
    }
    return p;
  }

  /// Returns the JSON of the top-level member `key` as loaded (minified;
  /// "null" when the file has none).
  std::string member(std::string_view key) const {
    for (const auto& [k, value] : root_) {
      if (k == key) return value;
    }
    return "null";
  }

  /// Returns the model's JSON object: type `model_type`, its settings as
  /// loaded, then `tables` (members for the vocabulary and merges, or none).
  std::string model_json(std::string_view model_type, std::string_view tables = {}) const {
    std::string out = "{\"type\":" + detail::json_quote(model_type);
    for (const auto& [key, value] : model_) out += "," + detail::json_quote(key) + ":" + value;
    if (!tables.empty()) out += "," + std::string(tables);
    return out + "}";
  }

  /// Returns the section's JSON for a model of type `model_type`, the
  /// tokenizer's current `settings` and the "added_tokens" array
  /// `added_tokens` (AddedVocabulary::to_json).
  std::string text(std::string_view model_type, std::string_view added_tokens,
                   const EncodeSettings& settings) const {
    std::string out = "{";
    for (const auto& [key, value] : root_) {
      out += detail::json_quote(key) + ":" + std::string(value_of(key, value, added_tokens)) + ",";
    }
    out += "\"truncation\":" + (settings.truncation ? to_json(*settings.truncation) : "null");
    out += ",\"padding\":" + (settings.padding ? to_json(*settings.padding) : "null");
    out += ",\"model\":" + model_json(model_type);
    out += ",\"snaptok\":{\"encode_special_tokens\":";
    out += settings.encode_special_tokens ? "true" : "false";
    out += ",\"cache_budget\":" + std::to_string(settings.cache_budget->total()) + "}}";
    return out;
  }

  /// Returns a whole tokenizer.json: the members in HF's order ("version",
  /// "truncation", "padding", then the rest as loaded), the current
  /// `settings`' truncation and padding, and the model with `model_tables`
  /// (Model::tables_json) after its settings, and `added_tokens` as text().
  std::string tokenizer_json(std::string_view model_type, std::string_view model_tables,
                             std::string_view added_tokens, const EncodeSettings& settings) const {
    std::string out = "{";
    for (const auto& [key, value] : root_) {
      if (key == "version") out += "\"version\":" + value + ",";
    }
    out += "\"truncation\":" + (settings.truncation ? to_json(*settings.truncation) : "null");
    out += ",\"padding\":" + (settings.padding ? to_json(*settings.padding) : "null");
    for (const auto& [key, value] : root_) {
      if (key != "version") out += "," + detail::json_quote(key) + ":" + std::string(value_of(key, value, added_tokens));
    }
    return out + ",\"model\":" + model_json(model_type, model_tables) + "}";
  }

 private:
  static std::string_view value_of(std::string_view key, std::string_view value, std::string_view added_tokens) {
    return key == "added_tokens" ? added_tokens : value;
  }

  std::vector<std::pair<std::string, std::string>> root_, model_;  // (key, minified value)
};

}  // namespace snaptok::st
