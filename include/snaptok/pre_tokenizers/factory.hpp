// Maps a pre-tokenizer's "type" to its component.
#pragma once

#include <memory>
#include <string_view>

#include "snaptok/pre_tokenizers/bert.hpp"
#include "snaptok/pre_tokenizers/byte_level.hpp"
#include "snaptok/pre_tokenizers/char_delimiter_split.hpp"
#include "snaptok/pre_tokenizers/digits.hpp"
#include "snaptok/pre_tokenizers/fixed_length.hpp"
#include "snaptok/pre_tokenizers/metaspace.hpp"
#include "snaptok/pre_tokenizers/pre_tokenizer.hpp"
#include "snaptok/pre_tokenizers/punctuation.hpp"
#include "snaptok/pre_tokenizers/sequence.hpp"
#include "snaptok/pre_tokenizers/split.hpp"
#include "snaptok/pre_tokenizers/unicode_scripts.hpp"
#include "snaptok/pre_tokenizers/whitespace.hpp"
#include "snaptok/pre_tokenizers/whitespace_split.hpp"

namespace snaptok {

// Returns the pre-tokenizer `json` describes; an unknown or missing "type"
// throws naming the path (HF knows no other types: "Delimiter" is not one).
inline PreTokenizerPtr make_pre_tokenizer(const detail::Json& json) {
  const std::string_view type = json.type();
  if (type == "ByteLevel") return std::make_shared<ByteLevelPreTokenizer>(json);
  if (type == "Split") return std::make_shared<SplitPreTokenizer>(json);
  if (type == "Sequence") return std::make_shared<SequencePreTokenizer>(json);
  if (type == "Whitespace") return std::make_shared<WhitespacePreTokenizer>(json);
  if (type == "WhitespaceSplit") return std::make_shared<WhitespaceSplitPreTokenizer>(json);
  if (type == "BertPreTokenizer") return std::make_shared<BertPreTokenizer>(json);
  if (type == "Punctuation") return std::make_shared<PunctuationPreTokenizer>(json);
  if (type == "Digits") return std::make_shared<DigitsPreTokenizer>(json);
  if (type == "Metaspace") return std::make_shared<MetaspacePreTokenizer>(json);
  if (type == "UnicodeScripts") return std::make_shared<UnicodeScriptsPreTokenizer>(json);
  if (type == "CharDelimiterSplit") return std::make_shared<CharDelimiterSplitPreTokenizer>(json);
  if (type == "FixedLength") return std::make_shared<FixedLengthPreTokenizer>(json);
  json.unknown_type();
}

}  // namespace snaptok
