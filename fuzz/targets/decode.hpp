// Fuzz target: decode. The input picks a tokenizer (fuzz_support.hpp) and a
// mode. In id mode the rest is a list of 16-bit ids, some past the
// vocabulary: decode must return valid UTF-8 (byte-level and byte-fallback
// tokens may hold any bytes), skip unknown ids exactly as if they were not
// there, and never crash. In text mode the rest is a text: decode(encode)
// must give it back on the tokenizers that keep every byte (byte-level BPE
// with no normalizer) when special tokens are kept, and valid UTF-8 on all.
#pragma once

#include "../fuzz_support.hpp"

namespace snaptok_fuzz {

inline void decode(std::span<const std::uint8_t> data) {
  Reader in(data);
  const NamedTokenizer& t = pick_tokenizer(in);
  const std::uint8_t flags = in.byte();
  const bool skip_special = flags & 1;
  const snaptok::Tokenizer& tok = t.tokenizer;
  const std::string target = "decode (" + t.name + ")";

  if (flags & 2) {  // text mode
    const std::string_view text = in.rest();
    if (!valid_utf8(text)) return;
    const std::string back = tok.decode(tok.encode(text, false), skip_special);
    if (!valid_utf8(back)) fail(target, "decode(encode(text)) is not valid UTF-8", text);
    // Skipping special tokens drops any the text spells out.
    const bool keeps_bytes = !skip_special && t.tokenizer.pipeline().fused_path() == std::string_view("byte-level BPE");
    if (keeps_bytes && back != text) fail(target, "decode(encode(text)) differs from the text", text);
    return;
  }
  const std::size_t known = tok.vocab_size(true);
  std::vector<std::uint32_t> ids, known_ids;
  for (std::span<const std::uint8_t> pair = in.span(2); pair.size() == 2; pair = in.span(2)) {
    const std::uint32_t raw = pair[0] | std::uint32_t{pair[1]} << 8;
    // Mostly ids the tokenizer knows, now and then one past the vocabulary.
    const std::uint32_t id = known < 0xF000 ? raw % (known + 3) : raw;
    ids.push_back(id);
    if (tok.id_to_token(id)) known_ids.push_back(id);
  }
  const std::string out = tok.decode(ids, skip_special);
  const std::string text(reinterpret_cast<const char*>(data.data()), data.size());
  if (!valid_utf8(out)) fail(target, "decode gave invalid UTF-8 for the ids in the input", text);
  if (tok.decode(known_ids, skip_special) != out) {
    fail(target, "unknown ids change what decode gives for the others", text);
  }
}

}  // namespace snaptok_fuzz
