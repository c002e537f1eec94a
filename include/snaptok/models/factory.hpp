// Maps a model's "type" to its component.
#pragma once

#include <memory>
#include <string_view>

#include "snaptok/models/bpe.hpp"
#include "snaptok/models/model.hpp"

namespace snaptok {

inline ModelPtr make_model(const detail::Json& json) {
  if (!json.find("type")) {
    // Legacy files (GPT-2's among them) omit the type; HF then tries BPE,
    // WordPiece, WordLevel, Unigram in turn. Their fields tell them apart.
    if (json.find("merges")) return std::make_shared<BpeModel>(json);
    json.fail("model has no \"type\" and is not a BPE model (no \"merges\")");
  }
  const std::string_view type = json.type();
  if (type == "BPE") return std::make_shared<BpeModel>(json);
  json.unknown_type();
}

}  // namespace snaptok
