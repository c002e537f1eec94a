// Fuzz target: every encode path against the general stages. The input
// picks a tokenizer (fuzz_support.hpp: one per model family and fused path),
// whether to add special tokens, the document encoder's part size and the
// pieces it is fed in; the rest is the text. encode (the fused ids-only
// path), encode_full (the general stages) and the document encoder must give
// the same ids, or all refuse invalid UTF-8.
#pragma once

#include "../fuzz_support.hpp"

namespace snaptok_fuzz {

inline void encode_paths(std::span<const std::uint8_t> data) {
  Reader in(data);
  const NamedTokenizer& t = pick_tokenizer(in);
  const std::uint8_t flags = in.byte();
  const std::size_t part_bytes = 1 + in.byte();
  const std::span<const std::uint8_t> piece_sizes = in.span(flags >> 5);
  check_encode_paths("encode_paths (" + t.name + ")", t.tokenizer, in.rest(), flags & 1, part_bytes,
                     piece_sizes);
}

}  // namespace snaptok_fuzz
