// Build smoke test: the test data paths baked in by tests/cpp/CMakeLists.txt
// are right, and the library links and runs inside the doctest executable.
#include <doctest/doctest.h>

#include <snaptok/tokenizer.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

TEST_CASE("build smoke: test data directory is where CMake says") {
  CHECK(std::filesystem::is_regular_file(SNAPTOK_TEST_DATA_DIR "/gpt2/tokenizer.json"));
  // SNAPTOK_SHARED_DATA_DIR may be absent (a bare clone); it is only a path.
  CHECK(std::string(SNAPTOK_SHARED_DATA_DIR).find("shared") != std::string::npos);
}

TEST_CASE("build smoke: GPT-2 encodes as Hugging Face tokenizers does") {
  auto tok = snaptok::Tokenizer::from_file(SNAPTOK_TEST_DATA_DIR "/gpt2/tokenizer.json");
  // tokenizers 0.23.3: Tokenizer.from_file(gpt2).encode(text).ids
  const std::vector<std::uint32_t> expected = {15496, 995, 11, 428, 318, 3013, 2373, 482, 0};
  const std::vector<std::uint32_t> ids = tok.encode("Hello world, this is snaptok!");
  CHECK(ids == expected);
  CHECK(tok.decode(ids) == "Hello world, this is snaptok!");
  CHECK_THROWS_AS(snaptok::Tokenizer::from_file(SNAPTOK_TEST_DATA_DIR "/does-not-exist.json"),
                  snaptok::Error);
}
