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
