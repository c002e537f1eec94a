// Maps a normalizer's JSON object to its component, as HF does: a known
// "type" selects the component and its fields are then required; an object
// whose "type" is missing or unknown is tried, in HF's order, as each
// component that does not need a type (BertNormalizer, Strip, Sequence,
// Replace, Prepend), so {"strip_left": true, "strip_right": true} is a Strip.
// (HF lists Precompiled there too, but it never reads without its type.)
#pragma once

#include <memory>
#include <string_view>

#include "snaptok/error.hpp"
#include "snaptok/normalizers/bert.hpp"
#include "snaptok/normalizers/byte_level.hpp"
#include "snaptok/normalizers/lowercase.hpp"
#include "snaptok/normalizers/nmt.hpp"
#include "snaptok/normalizers/normalizer.hpp"
#include "snaptok/normalizers/precompiled.hpp"
#include "snaptok/normalizers/prepend.hpp"
#include "snaptok/normalizers/replace.hpp"
#include "snaptok/normalizers/sequence.hpp"
#include "snaptok/normalizers/strip.hpp"
#include "snaptok/normalizers/strip_accents.hpp"
#include "snaptok/normalizers/unicode_forms.hpp"

namespace snaptok {

namespace detail {

// Returns the normalizer for a known tagged "type", or nullptr.
inline NormalizerPtr make_tagged_normalizer(std::string_view type,
                                            const Json& json) {
  using unicode::NormForm;
  if (type == "Sequence") return std::make_shared<SequenceNormalizer>(json);
  if (type == "NFC") return std::make_shared<UnicodeFormNormalizer>(NormForm::nfc);
  if (type == "NFD") return std::make_shared<UnicodeFormNormalizer>(NormForm::nfd);
  if (type == "NFKC") return std::make_shared<UnicodeFormNormalizer>(NormForm::nfkc);
  if (type == "NFKD") return std::make_shared<UnicodeFormNormalizer>(NormForm::nfkd);
  if (type == "Lowercase") return std::make_shared<LowercaseNormalizer>(json);
  if (type == "Strip") return std::make_shared<StripNormalizer>(json);
  if (type == "StripAccents") return std::make_shared<StripAccentsNormalizer>(json);
  if (type == "Replace") return std::make_shared<ReplaceNormalizer>(json);
  if (type == "Prepend") return std::make_shared<PrependNormalizer>(json);
  if (type == "Bert") return std::make_shared<BertNormalizer>(json);
  if (type == "Nmt") return std::make_shared<NmtNormalizer>(json);
  if (type == "ByteLevel") return std::make_shared<ByteLevelNormalizer>(json);
  if (type == "Precompiled") return std::make_shared<PrecompiledNormalizer>(json);
  return nullptr;
}

// HF's untagged fallback: the first of these that reads without error.
inline NormalizerPtr make_untagged_normalizer(const Json& json) {
  try {
    return std::make_shared<BertNormalizer>(json);
  } catch (const Error&) {
  }
  try {
    return std::make_shared<StripNormalizer>(json);
  } catch (const Error&) {
  }
  try {
    return std::make_shared<SequenceNormalizer>(json);
  } catch (const Error&) {
  }
  try {
    return std::make_shared<ReplaceNormalizer>(json);
  } catch (const Error&) {
  }
  try {
    return std::make_shared<PrependNormalizer>(json);
  } catch (const Error&) {
  }
  return nullptr;
}

}  // namespace detail

inline NormalizerPtr make_normalizer(const detail::Json& json) {
  if (!json.is_object()) json.fail("expected an object, got " + json.type_name());
  const auto type = json.find("type");
  if (type && type->is_string()) {
    if (auto p = detail::make_tagged_normalizer(type->str(), json)) return p;
  }
  if (auto p = detail::make_untagged_normalizer(json)) return p;
  if (type && type->is_string()) {
    // HF reads "BertNormalizer" through the untyped forms: report why the
    // BertNormalizer form did not fit.
    if (type->str() == "BertNormalizer") (void)BertNormalizer(json);
    json.unknown_type();
  }
  json.fail("no known \"type\", and the fields match no untyped normalizer "
            "(BertNormalizer, Strip, Sequence, Replace, Prepend)");
}

}  // namespace snaptok
