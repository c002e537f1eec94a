// Consumer check for servers built without exceptions (-fno-exceptions),
// against the compiled library: loads GPT-2 (argv[1]) with try_from_file,
// encodes into a reused vector and into a fixed span with try_encode_into,
// decodes with try_decode, and gets a missing file's error as a value.
#include <snaptok/tokenizer.hpp>

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s path/to/gpt2/tokenizer.json\n", argv[0]);
    return 2;
  }
  // tokenizers 0.23.3: Tokenizer.from_file(gpt2).encode(text).ids
  const std::vector<uint32_t> expected = {15496, 995, 11, 428, 318, 3013, 2373, 482, 0};
  auto tok = snaptok::Tokenizer::try_from_file(argv[1]);
  if (!tok) {
    std::fprintf(stderr, "FAIL: %s\n", tok.error().c_str());
    return 1;
  }
  std::vector<uint32_t> ids;
  for (int round = 0; round < 3; ++round) {  // the same buffer, reused
    ids.clear();
    if (auto ok = tok->try_encode_into("Hello world, this is snaptok!", true, ids); !ok || ids != expected) {
      std::fprintf(stderr, "FAIL: try_encode_into (vector): %s\n", ok.error().c_str());
      return 1;
    }
  }
  std::array<uint32_t, 4> small{};
  const auto n = tok->try_encode_into("Hello world, this is snaptok!", true, small);
  if (!n || *n != expected.size() || small[3] != expected[3]) {
    std::fprintf(stderr, "FAIL: try_encode_into (span) gave %zu\n", n ? *n : 0);
    return 1;
  }
  const auto text = tok->try_decode(ids);
  if (!text || *text != "Hello world, this is snaptok!") {
    std::fprintf(stderr, "FAIL: try_decode\n");
    return 1;
  }
  const std::string missing = std::string(argv[1]) + ".does-not-exist";
  const auto bad = snaptok::Tokenizer::try_from_file(missing);
  if (bad || bad.error().find("cannot open file") == std::string::npos) {
    std::fprintf(stderr, "FAIL: a missing file gave no error value\n");
    return 1;
  }
  const auto invalid = tok->try_encode_into("\xff", true, ids);
  if (invalid || invalid.error().find("invalid UTF-8") == std::string::npos) {
    std::fprintf(stderr, "FAIL: invalid UTF-8 gave no error value\n");
    return 1;
  }
  std::printf("ok: without exceptions, ids match Hugging Face tokenizers; errors arrive as values\n");
  return 0;
}
