// The pipeline section of a .st file: the tokenizer.json without the
// model's tables. Captured (minified, in file order) when a tokenizer loads,
// and written back with the settings the tokenizer has at save time.
//
//   {...every top-level member but model, truncation, padding...,
//    "truncation": {...} | null, "padding": {...} | null,
//    "model": {"type": "BPE", ...model settings, no vocab or merges...},
//    "snaptok": {"encode_special_tokens": false, "cache_budget": 67108864}}
#pragma once

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
  /// that text() does not write itself.
  static PipelineJson capture(const detail::Json& root) {
    PipelineJson p;
    root.for_each_member([&](std::string_view key, const detail::Json& value) {
      if (key == "model") {
        if (!value.is_object()) return;  // the model's own load names the problem
        value.for_each_member([&](std::string_view k, const detail::Json& v) {
          if (k != "vocab" && k != "merges" && k != "type") p.model_.emplace_back(k, simdjson::minify(v.raw()));
        });
      } else if (key != "truncation" && key != "padding" && key != "snaptok") {
        p.root_.emplace_back(key, simdjson::minify(value.raw()));
      }
    });
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

  /// Returns the section's JSON for a model of type `model_type` and the
  /// tokenizer's current `settings`.
  std::string text(std::string_view model_type, const EncodeSettings& settings) const {
    std::string out = "{";
    for (const auto& [key, value] : root_) out += detail::json_quote(key) + ":" + value + ",";
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
  /// (Model::tables_json) after its settings.
  std::string tokenizer_json(std::string_view model_type, std::string_view model_tables,
                             const EncodeSettings& settings) const {
    std::string out = "{";
    for (const auto& [key, value] : root_) {
      if (key == "version") out += "\"version\":" + value + ",";
    }
    out += "\"truncation\":" + (settings.truncation ? to_json(*settings.truncation) : "null");
    out += ",\"padding\":" + (settings.padding ? to_json(*settings.padding) : "null");
    for (const auto& [key, value] : root_) {
      if (key != "version") out += "," + detail::json_quote(key) + ":" + value;
    }
    return out + ",\"model\":" + model_json(model_type, model_tables) + "}";
  }

 private:
  std::vector<std::pair<std::string, std::string>> root_, model_;  // (key, minified value)
};

}  // namespace snaptok::st
