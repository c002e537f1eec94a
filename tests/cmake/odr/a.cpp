// Translation unit A: loads the tokenizer, encodes, and hands the tokenizer
// to translation unit B; both must agree.
#include <cstdio>
#include <exception>

#include "odr.hpp"

std::vector<uint32_t> encode_in_a(snaptok::Tokenizer& tok,
                                  const std::string& text) {
  return tok.encode(text);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s path/to/tokenizer.json\n", argv[0]);
    return 2;
  }
  try {
    snaptok::Tokenizer tok = snaptok::Tokenizer::from_file(argv[1]);
    const std::string text =
        "Two translation units, one tokenizer: caf\xc3\xa9 \xf0\x9f\x99\x82 123";
    const std::vector<uint32_t> a = encode_in_a(tok, text);
    const std::vector<uint32_t> b = encode_in_b(tok, text);
    if (a.empty() || a != b) {
      std::fprintf(stderr, "FAIL: the two translation units disagree (%zu vs %zu ids)\n",
                   a.size(), b.size());
      return 1;
    }
    const std::string back = decode_in_b(tok, a);
    if (back != text) {
      std::fprintf(stderr, "FAIL: round trip gave \"%s\"\n", back.c_str());
      return 1;
    }
    std::printf("ok: both translation units give the same %zu ids\n", a.size());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAIL: %s\n", e.what());
    return 1;
  }
  return 0;
}
