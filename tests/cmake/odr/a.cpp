// Translation unit A: loads the tokenizer, encodes, and hands the tokenizer
// to translation unit B; both must agree. Both also call the SIMD entry points
// of snaptok/simd/dispatch.hpp (inline functions holding HWY_EXPORT), which
// must give one dispatch table per program.
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>

#include "odr.hpp"

std::vector<uint32_t> encode_in_a(snaptok::Tokenizer& tok,
                                  const std::string& text) {
  return tok.encode(text);
}

snaptok::simd::ByteClassMasks classify_in_a(const std::string& block) {
  snaptok::simd::ByteClassMasks m;
  snaptok::simd::classify_block(block.data(), block.size(), m);
  return m;
}

std::string_view simd_target_in_a() { return snaptok::simd_target(); }

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
    // SIMD dispatch: both units see the same target and the same masks, and
    // they match the scalar reference.
    const std::string block = "It's 2 TUs\r\n caf\xc3\xa9 \t{x}";
    snaptok::simd::ByteClassMasks ref;
    snaptok::simd::classify_block_scalar(block.data(), block.size(), ref);
    const snaptok::simd::ByteClassMasks ma = classify_in_a(block);
    const snaptok::simd::ByteClassMasks mb = classify_in_b(block);
    if (!(ma == ref) || !(mb == ref)) {
      std::fprintf(stderr, "FAIL: classify_block differs between translation units or from the reference\n");
      return 1;
    }
    const std::string_view ta = simd_target_in_a();
    const std::string_view tb = simd_target_in_b();
    if (ta.empty() || ta != tb) {
      std::fprintf(stderr, "FAIL: simd_target \"%.*s\" vs \"%.*s\"\n",
                   static_cast<int>(ta.size()), ta.data(),
                   static_cast<int>(tb.size()), tb.data());
      return 1;
    }
    std::printf("ok: both translation units give the same %zu ids; SIMD target %.*s\n",
                a.size(), static_cast<int>(ta.size()), ta.data());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAIL: %s\n", e.what());
    return 1;
  }
  return 0;
}
