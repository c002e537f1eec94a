// Maps a post-processor's JSON to its component, the way HF reads it: an
// untagged choice tried in order Roberta, Bert, ByteLevel, Template,
// Sequence, where Roberta, Bert and Template ignore "type" (a Bert-shaped
// object is a BertProcessing whatever its "type" says, one with
// trim_offsets and add_prefix_space too is a RobertaProcessing).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "snaptok/processors/bert.hpp"
#include "snaptok/processors/byte_level.hpp"
#include "snaptok/processors/processor.hpp"
#include "snaptok/processors/roberta.hpp"
#include "snaptok/processors/sequence.hpp"
#include "snaptok/processors/template.hpp"

namespace snaptok {

namespace detail {
template <class P>
PostProcessorPtr try_post_processor(const Json& json) {
  try {
    return std::make_shared<P>(json);
  } catch (const Error&) {
    return nullptr;
  }
}
}  // namespace detail

inline PostProcessorPtr make_post_processor(const detail::Json& json) {
  if (!json.is_object()) json.fail("expected an object, got " + json.type_name());
  const std::string_view type = json.get_str("type", "");
  if (auto p = detail::try_post_processor<RobertaProcessing>(json)) return p;
  if (auto p = detail::try_post_processor<BertProcessing>(json)) return p;
  if (type == "ByteLevel") {
    if (auto p = detail::try_post_processor<ByteLevelProcessor>(json)) return p;
  }
  if (auto p = detail::try_post_processor<TemplateProcessing>(json)) return p;
  // Nothing matched: construct the declared type again for its own error.
  if (type == "RobertaProcessing") return std::make_shared<RobertaProcessing>(json);
  if (type == "BertProcessing") return std::make_shared<BertProcessing>(json);
  if (type == "ByteLevel") return std::make_shared<ByteLevelProcessor>(json);
  if (type == "TemplateProcessing") return std::make_shared<TemplateProcessing>(json);
  if (type == "Sequence") return std::make_shared<SequenceProcessor>(json);
  if (type.empty()) json.fail("missing field \"type\"");
  json.unknown_type();
}

}  // namespace snaptok
