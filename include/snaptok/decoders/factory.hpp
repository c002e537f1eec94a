// Maps a decoder's JSON to its component, the way HF reads it: a known
// "type" selects that decoder (its fields then required); a missing or
// unknown "type" falls back to the legacy untagged choice, where only
// BPEDecoder, WordPiece, CTC, Replace and Strip (in that order) can match,
// by their fields alone.
#pragma once

#include <memory>
#include <string_view>

#include "snaptok/decoders/bpe.hpp"
#include "snaptok/decoders/byte_fallback.hpp"
#include "snaptok/decoders/byte_level.hpp"
#include "snaptok/decoders/ctc.hpp"
#include "snaptok/decoders/decoder.hpp"
#include "snaptok/decoders/fuse.hpp"
#include "snaptok/decoders/metaspace.hpp"
#include "snaptok/decoders/replace.hpp"
#include "snaptok/decoders/sequence.hpp"
#include "snaptok/decoders/strip.hpp"
#include "snaptok/decoders/wordpiece.hpp"

namespace snaptok {

namespace detail {
template <class D>
DecoderPtr try_decoder(const Json& json) {
  try {
    return std::make_shared<D>(json);
  } catch (const Error&) {
    return nullptr;
  }
}
}  // namespace detail

inline DecoderPtr make_decoder(const detail::Json& json) {
  if (!json.is_object()) json.fail("expected an object, got " + json.type_name());
  const std::string_view type = json.get_str("type", "");
  if (type == "ByteLevel") return std::make_shared<ByteLevelDecoder>(json);
  if (type == "Metaspace") return std::make_shared<MetaspaceDecoder>(json);
  if (type == "WordPiece") return std::make_shared<WordPieceDecoder>(json);
  if (type == "ByteFallback") return std::make_shared<ByteFallbackDecoder>(json);
  if (type == "Fuse") return std::make_shared<FuseDecoder>(json);
  if (type == "Strip") return std::make_shared<StripDecoder>(json);
  if (type == "Replace") return std::make_shared<ReplaceDecoder>(json);
  if (type == "BPEDecoder") return std::make_shared<BpeDecoder>(json);
  if (type == "CTC") return std::make_shared<CtcDecoder>(json);
  if (type == "Sequence") return std::make_shared<SequenceDecoder>(json);
  if (auto d = detail::try_decoder<BpeDecoder>(json)) return d;
  if (auto d = detail::try_decoder<WordPieceDecoder>(json)) return d;
  if (auto d = detail::try_decoder<CtcDecoder>(json)) return d;
  if (auto d = detail::try_decoder<ReplaceDecoder>(json)) return d;
  if (auto d = detail::try_decoder<StripDecoder>(json)) return d;
  if (type.empty()) json.fail("missing field \"type\" (and not a legacy untyped decoder)");
  json.unknown_type();
}

}  // namespace snaptok
