// Maps a pre-tokenizer's "type" to its component.
#pragma once

#include <memory>
#include <string_view>

#include "snaptok/pre_tokenizers/byte_level.hpp"
#include "snaptok/pre_tokenizers/pre_tokenizer.hpp"
#include "snaptok/pre_tokenizers/sequence.hpp"
#include "snaptok/pre_tokenizers/split.hpp"

namespace snaptok {

inline PreTokenizerPtr make_pre_tokenizer(const detail::Json& json) {
  const std::string_view type = json.type();
  if (type == "ByteLevel") return std::make_shared<ByteLevelPreTokenizer>(json);
  if (type == "Split") return std::make_shared<SplitPreTokenizer>(json);
  if (type == "Sequence") return std::make_shared<SequencePreTokenizer>(json);
  json.unknown_type();
}

}  // namespace snaptok
