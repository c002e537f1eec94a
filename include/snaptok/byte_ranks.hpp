// The pipeline around a BPE built from tiktoken-style byte ranks
// (BpeModel::from_byte_ranks): the tokenizer.json, without the model's
// tables, that Pipeline::from_byte_ranks loads. It is what tiktoken's
// encode_ordinary does: split the text by one regex, map each piece's bytes
// to byte-level chars, merge; decoding maps the chars back to bytes.
#pragma once

#include <string>
#include <string_view>

#include "snaptok/detail/json.hpp"

namespace snaptok::detail {

// Returns the tokenizer.json of a byte-level BPE split by `pattern`: Split
// (Isolated) then ByteLevel without its own regex, the ByteLevel decoder, no
// normalizer, post-processor or added tokens, and a BPE model with
// ignore_merges whose vocab and merges are left empty for the caller's model.
inline std::string byte_ranks_pipeline_json(std::string_view pattern) {
  std::string json = R"({"version":"1.0","added_tokens":[],"normalizer":null,)";
  json += R"("pre_tokenizer":{"type":"Sequence","pretokenizers":[)";
  json += R"({"type":"Split","pattern":{"Regex":)" + json_quote(pattern) +
          R"(},"behavior":"Isolated","invert":false},)";
  json += R"({"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":false}]},)";
  json += R"("post_processor":null,)";
  json += R"("decoder":{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true,"use_regex":true},)";
  json += R"("model":{"type":"BPE","dropout":null,"unk_token":null,"continuing_subword_prefix":null,)";
  json += R"("end_of_word_suffix":null,"fuse_unk":false,"byte_fallback":false,"ignore_merges":true,)";
  json += R"("vocab":{},"merges":[]}})";
  return json;
}

}  // namespace snaptok::detail
