// Encoding's alignment lookups with HF's edge cases, and the pipeline's
// tokenizer.json (to_json) and pre-tokenized input (encode_words). The
// Python tests compare all of these with HF at every index; these pin the
// C++ answers on their own.
#include <doctest/doctest.h>

#include <snaptok/pipeline.hpp>

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace encoding_tests {

namespace {

snaptok::Pipeline gpt2() { return snaptok::Pipeline::from_file(SNAPTOK_TEST_DATA_DIR "/gpt2/tokenizer.json"); }

}  // namespace

TEST_CASE("Encoding lookups answer as HF, edge cases included") {
  const auto tok = gpt2();
  const snaptok::Encoding e = tok.encode_full("Hello world", std::string_view("again"), true);
  // "Hello" " world" | "again": three tokens, sequences 0, 0, 1.
  REQUIRE(e.size() == 3);
  CHECK(e.token_to_sequence(0) == 0u);
  CHECK(e.token_to_sequence(2) == 1u);
  CHECK(e.token_to_sequence(3) == std::nullopt);  // one past the end, with ranges: none
  CHECK(e.token_to_chars(1) == snaptok::Offsets{5, 11});
  CHECK(e.token_to_chars(3) == std::nullopt);
  CHECK(e.token_to_word(1) == 1u);
  CHECK(e.char_to_token(6) == 1u);
  CHECK(e.char_to_token(0, 1) == 2u);            // "again" is sequence 1, from char 0
  CHECK(e.char_to_token(11) == std::nullopt);
  CHECK(e.char_to_word(7) == 1u);
  CHECK(e.word_to_tokens(0, 1) == std::pair<std::size_t, std::size_t>{2, 3});
  CHECK(e.word_to_chars(1) == snaptok::Offsets{5, 11});
  CHECK(e.word_to_tokens(5) == std::nullopt);

  const snaptok::Encoding single = tok.encode_full("Hello");
  snaptok::Encoding bare = single;
  bare.sequence_ranges.clear();
  CHECK(bare.token_to_sequence(1) == 0u);        // HF: token == len still answers 0 without ranges
  CHECK(bare.token_to_sequence(2) == std::nullopt);
}

TEST_CASE("to_json gives a tokenizer.json that loads to the same tokenizer") {
  const auto tok = gpt2();
  const auto back = snaptok::Pipeline::from_json(tok.to_json());
  const std::string_view text = "Hello world, it's 2026! naïve café 😀 <|endoftext|>";
  CHECK(back.encode(text) == tok.encode(text));
  CHECK(back.to_json() == tok.to_json());
  CHECK(tok.to_json().starts_with(R"({"version":"1.0","truncation":null,"padding":null,)"));
}

TEST_CASE("encode_words encodes each word alone, with its index as the word id") {
  const auto tok = gpt2();
  const std::vector<std::string_view> words = {"Hello", "world"};
  const snaptok::Encoding e = tok.encode_words(words, std::nullopt, true);
  CHECK(e.ids == std::vector<std::uint32_t>{15496, 6894});  // "world" without its space: no "Ġworld"
  CHECK(e.word_ids == std::vector<std::optional<std::uint32_t>>{0u, 1u});
  CHECK(e.offsets == std::vector<snaptok::Offsets>{{0, 5}, {0, 5}});
}

}  // namespace encoding_tests
