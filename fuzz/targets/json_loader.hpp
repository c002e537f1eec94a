// Fuzz target: the tokenizer.json loader (Tokenizer::from_json). A load must
// either throw snaptok::Error or give a tokenizer whose encode paths agree
// (fuzz_support.hpp: check_encode_paths) on a few probe texts, that decodes
// what it encodes, and whose .st image loads back to the same ids. Never a
// crash, a hang or a read out of bounds.
#pragma once

#include "../fuzz_support.hpp"

namespace snaptok_fuzz {

inline void json_loader(std::span<const std::uint8_t> data) {
  static constexpr std::string_view kProbes[] = {
      "Hello world! It's 2024: caf\xc3\xa9 \xf0\x9f\x98\x80 <|endoftext|> [CLS] </s>",
      "  a\tb\n\nc\xe2\x80\x83" "d \xe4\xb8\xad\xe6\x96\x87 e\xcc\x81 \xef\xbc\xa1 12345",
      "x\xff y",  // invalid UTF-8: every path must refuse it alike
  };
  const std::string_view json(reinterpret_cast<const char*>(data.data()), data.size());
  std::optional<snaptok::Tokenizer> tok;
  try {
    tok.emplace(snaptok::Tokenizer::from_json(json));
  } catch (const snaptok::Error&) {
    return;  // a clear refusal: the expected outcome for most inputs
  }
  // A fixed padding length is the user's to choose; a huge one only
  // allocates (as HF does), so keep the probes small.
  if (const auto padding = tok->padding(); padding && padding->fixed_length.value_or(0) > 4096) {
    tok->set_padding(std::nullopt);
  }
  static constexpr std::uint8_t kPieces[] = {0, 6, 2, 30};
  for (const std::string_view text : kProbes) {
    for (const bool special : {false, true}) {
      check_encode_paths("json_loader", *tok, text, special, 8, kPieces);
    }
  }
  std::vector<std::uint32_t> ids;
  try {
    ids = tok->encode(kProbes[0]);
    (void)tok->decode(ids, false);
    (void)tok->decode(ids, true);
  } catch (const snaptok::Error&) {
    return;  // e.g. a decoder that refuses a token it cannot decode
  }
  const std::string image = tok->to_st_bytes();
  const snaptok::Tokenizer again = snaptok::Tokenizer::from_st_buffer(std::as_bytes(std::span(image)));
  if (again.encode(kProbes[0]) != ids) fail("json_loader", "the .st image encodes differently", kProbes[0]);
}

}  // namespace snaptok_fuzz
