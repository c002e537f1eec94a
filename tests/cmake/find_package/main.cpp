// Consumer check, shared by the find_package and add_subdirectory projects:
// loads GPT-2's tokenizer.json (argv[1]), encodes one sentence, compares the
// ids with those of Hugging Face tokenizers 0.23.3, decodes them back, and
// checks that a load error arrives as snaptok::Error.
#include <snaptok/tokenizer.hpp>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

void print_ids(const char* label, const std::vector<uint32_t>& ids) {
  std::fprintf(stderr, "  %s:", label);
  for (uint32_t id : ids) std::fprintf(stderr, " %u", id);
  std::fprintf(stderr, "\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s path/to/gpt2/tokenizer.json\n", argv[0]);
    return 2;
  }
  constexpr std::string_view text = "Hello world, this is snaptok!";
  // tokenizers 0.23.3: Tokenizer.from_file(gpt2).encode(text).ids
  const std::vector<uint32_t> expected = {15496, 995, 11, 428, 318,
                                          3013,  2373, 482, 0};
  try {
    snaptok::Tokenizer tok = snaptok::Tokenizer::from_file(argv[1]);
    const std::vector<uint32_t> ids = tok.encode(text);
    if (ids != expected) {
      std::fprintf(stderr, "FAIL: ids differ from Hugging Face tokenizers\n");
      print_ids("expected", expected);
      print_ids("got     ", ids);
      return 1;
    }
    const std::string back = tok.decode(ids);
    if (back != text) {
      std::fprintf(stderr, "FAIL: decode gave \"%s\", expected \"%.*s\"\n",
                   back.c_str(), static_cast<int>(text.size()), text.data());
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAIL: unexpected exception: %s\n", e.what());
    return 1;
  }

  const std::string missing = std::string(argv[1]) + ".does-not-exist";
  try {
    (void)snaptok::Tokenizer::from_file(missing);
    std::fprintf(stderr, "FAIL: loading %s did not throw\n", missing.c_str());
    return 1;
  } catch (const snaptok::Error&) {
    // Expected: the error type is the same on both sides of the link.
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAIL: expected snaptok::Error, got: %s\n", e.what());
    return 1;
  }

  std::printf("ok: %zu ids match Hugging Face tokenizers, round trip exact\n",
              expected.size());
  return 0;
}
