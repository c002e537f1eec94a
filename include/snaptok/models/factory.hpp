// Maps a model's "type" to its component.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "snaptok/error.hpp"
#include "snaptok/models/bpe.hpp"
#include "snaptok/models/model.hpp"
#include "snaptok/models/unigram.hpp"
#include "snaptok/models/wordlevel.hpp"
#include "snaptok/models/wordpiece.hpp"

namespace snaptok {

inline ModelPtr make_model(const detail::Json& json, const st::Image* image) {
  if (!json.is_object()) json.fail("expected an object, got " + json.type_name());
  simdjson::dom::element type_el;
  const bool has_type =
      json.raw().get_object().at_key("type").get(type_el) == simdjson::SUCCESS;
  if (!has_type) {
    // Legacy files (GPT-2's, T5's) omit the type; HF then tries BPE,
    // WordPiece, WordLevel, Unigram in turn and keeps the first that loads.
    std::string why;
    auto attempt = [&](const char* name, auto make) -> ModelPtr {
      try {
        return make();
      } catch (const Error& e) {
        why += std::string(why.empty() ? "" : "; ") + "as " + name + ": " + e.what();
        return nullptr;
      }
    };
    if (auto m = attempt("BPE", [&] { return std::make_shared<BpeModel>(json, image); })) return m;
    if (auto m = attempt("WordPiece", [&] { return std::make_shared<WordPieceModel>(json, image); })) {
      return m;
    }
    if (auto m = attempt("WordLevel", [&] { return std::make_shared<WordLevelModel>(json, image); })) {
      return m;
    }
    if (auto m = attempt("Unigram", [&] { return std::make_shared<UnigramModel>(json, image); })) {
      return m;
    }
    json.fail("no \"type\", and it loads as none of BPE, WordPiece, WordLevel, Unigram (" + why +
              ")");
  }
  const std::string_view type = json.type();
  if (type == "BPE") return std::make_shared<BpeModel>(json, image);
  if (type == "Unigram") return std::make_shared<UnigramModel>(json, image);
  if (type == "WordPiece") return std::make_shared<WordPieceModel>(json, image);
  if (type == "WordLevel") return std::make_shared<WordLevelModel>(json, image);
  json.unknown_type();
}

}  // namespace snaptok
