// Translation unit B of the odr test.
#include "odr.hpp"

std::vector<uint32_t> encode_in_b(snaptok::Tokenizer& tok,
                                  const std::string& text) {
  return tok.encode(text);
}

std::string decode_in_b(snaptok::Tokenizer& tok,
                        const std::vector<uint32_t>& ids) {
  return tok.decode(ids);
}

snaptok::simd::ByteClassMasks classify_in_b(const std::string& block) {
  snaptok::simd::ByteClassMasks m;
  snaptok::simd::classify_block(block.data(), block.size(), m);
  return m;
}

std::string_view simd_target_in_b() { return snaptok::simd_target(); }
