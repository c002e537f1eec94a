// Core engine tests: GPT-2 end to end against ids and offsets recorded from
// tokenizers 0.23.3, NormalizedString alignment bookkeeping, error messages
// that name the failing place, threads, and pathological input.
#include <doctest/doctest.h>

#include <snaptok/detail/byte_level_table.hpp>
#include <snaptok/detail/json.hpp>
#include <snaptok/models/bpe.hpp>
#include <snaptok/pipeline.hpp>
#include <snaptok/scanners/char_class.hpp>
#include <snaptok/unicode/properties.hpp>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace tokenizer_tests {

namespace {

const snaptok::Pipeline& gpt2() {
  static const snaptok::Pipeline tok =
      snaptok::Pipeline::from_file(SNAPTOK_TEST_DATA_DIR "/gpt2/tokenizer.json");
  return tok;
}

std::string error_of(const std::string& json) {
  try {
    snaptok::Pipeline::from_json(json);
  } catch (const snaptok::Error& e) {
    return e.what();
  }
  return "";
}

// A minimal BPE tokenizer.json with the given pre_tokenizer JSON.
std::string bpe_json(const std::string& pre_tokenizer) {
  return R"({"version":"1.0","added_tokens":[],"normalizer":null,"pre_tokenizer":)" +
         pre_tokenizer +
         R"(,"post_processor":null,"decoder":null,"model":{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":["a b"]}})";
}

}  // namespace

TEST_CASE("GPT-2: ids, tokens and char offsets as HF") {
  const std::string text = "I'M here<|endoftext|>  you'RE 12345 \xC3\xA9t\xC3\xA9 \xF0\x9F\x98\x80!";
  const std::vector<std::uint32_t> expected = {40,    6,     44,  994,   50256, 220,
                                               345,   6,     2200, 17031, 2231,  220,
                                               25125, 2634,  30325, 222,  0};
  CHECK(gpt2().encode(text) == expected);
  const snaptok::Encoding enc = gpt2().encode_full(text);
  CHECK(enc.ids == expected);
  const std::vector<std::pair<std::size_t, std::size_t>> offsets = {
      {0, 1},   {1, 2},   {2, 3},   {3, 8},   {8, 21},  {21, 22}, {22, 26}, {26, 27}, {27, 29},
      {29, 33}, {33, 35}, {35, 36}, {36, 38}, {38, 39}, {39, 41}, {40, 41}, {41, 42}};
  REQUIRE(enc.offsets.size() == offsets.size());
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    CHECK(enc.offsets[i].start == offsets[i].first);
    CHECK(enc.offsets[i].end == offsets[i].second);
  }
  CHECK(enc.tokens[4] == "<|endoftext|>");
  CHECK(enc.tokens[1] == "'");
  CHECK(gpt2().decode(expected, false) == text);
  CHECK(gpt2().decode(expected, true) ==
        "I'M here  you'RE 12345 \xC3\xA9t\xC3\xA9 \xF0\x9F\x98\x80!");
}

TEST_CASE("GPT-2: empty input, lone special token, special tokens as text") {
  CHECK(gpt2().encode("").empty());
  CHECK(gpt2().encode("<|endoftext|>") == std::vector<std::uint32_t>{50256});
  snaptok::Pipeline tok = gpt2();
  tok.set_encode_special_tokens(true);
  CHECK(tok.encode("<|endoftext|>").size() > 1);
}

TEST_CASE("GPT-2: batch encoding on threads equals one by one") {
  std::vector<std::string> docs;
  for (int i = 0; i < 200; ++i) {
    docs.push_back(std::string(static_cast<std::size_t>(400 + i), 'x') + " doc " +
                   std::to_string(i) + " \xE2\x80\x94 text with words " + std::string(i % 7, ' '));
  }
  std::vector<std::string_view> views(docs.begin(), docs.end());
  std::vector<std::uint32_t> ids;
  std::vector<std::int64_t> offsets;
  gpt2().encode_batch_flat(views, true, 4, ids, offsets);
  REQUIRE(offsets.size() == docs.size() + 1);
  for (std::size_t i = 0; i < docs.size(); ++i) {
    const std::vector<std::uint32_t> row(ids.begin() + offsets[i], ids.begin() + offsets[i + 1]);
    CHECK(row == gpt2().encode(docs[i]));
  }
}

TEST_CASE("GPT-2: long pieces merged in chunks equal the heap's merges") {
  // Both paths cut a piece longer than 48 bytes where no token spans
  // (BpeModel::merge_raw_in_chunks); once the trie that finds the cuts is
  // built, the fused path also cuts pieces from 16 bytes on. merge_ids on
  // the byte-level text merges the whole piece through the heap. Single
  // pieces of 16-400 bytes from alphabets whose tokens span little (CJK), a
  // lot (one letter, "ab" repeated) and in between (accented letters,
  // digits, emoji, spaces).
  const auto& bpe = dynamic_cast<const snaptok::BpeModel&>(gpt2().model());
  gpt2().encode(std::string(60, 'x'), false);  // builds the trie
  const auto& table = snaptok::detail::byte_level_table();
  const std::vector<std::vector<std::string>> alphabets = {
      {"\xE3\x81\x82", "\xE3\x81\xAE", "\xE6\x97\xA5", "\xE6\x9C\xAC", "\xE8\xAA\x9E", "\xE3\x83\xBC"},
      {"a"},
      {"ab", "a", "b"},
      {"\xC3\xA9", "e", "\xC3\xA8", "t", "\xC3\xAA", "s"},
      {"1", "2", "0", "9"},
      {"\xF0\x9F\x98\x80", "\xF0\x9F\x91\x8D", "!", "?"},
      {" ", "\t", "\n"},
  };
  std::uint32_t seed = 3;
  auto next = [&] { return seed = seed * 1664525u + 1013904223u; };
  for (std::size_t a = 0; a < alphabets.size(); ++a) {
    for (int round = 0; round < 40; ++round) {
      const std::size_t want = 16 + next() % 385;
      std::string text;
      while (text.size() < want) text += alphabets[a][next() % alphabets[a].size()];
      INFO("alphabet " << a << ", " << text.size() << " bytes");
      std::string level;
      for (const char c : text) level += table.byte_to_utf8[static_cast<unsigned char>(c)];
      std::vector<std::uint32_t> heap(level.size());
      heap.resize(bpe.merge_ids(level, heap.data()));
      CHECK(gpt2().encode(text, false) == heap);
      CHECK(gpt2().encode_full(text, false).ids == heap);
    }
  }
}

TEST_CASE("byte-level BPE with ignore_merges: a chunk of a long piece is not taken for the whole piece") {
  // The fused path caches the chunks of long pieces beside whole pieces.
  // With ignore_merges, the piece "abc" is the token "abc", while the chunk
  // "abc" of a longer piece merges to "ab" "c" (no merge builds "abc"): the
  // two must never share a cache entry, whichever comes first.
  const auto& table = snaptok::detail::byte_level_table();
  std::string vocab;
  for (int b = 0; b < 256; ++b) vocab += snaptok::detail::json_quote(table.byte_to_utf8[b]) + ":" + std::to_string(b) + ",";
  vocab += R"("ab":256,"abc":257)";
  const std::string json =
      R"({"version":"1.0","added_tokens":[],"normalizer":null,"pre_tokenizer":)"
      R"({"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":true},)"
      R"("post_processor":null,"decoder":null,"model":{"type":"BPE","ignore_merges":true,"vocab":{)" +
      vocab + R"(},"merges":["a b"]}})";
  const std::string xs(60, 'x');
  const std::vector<std::uint32_t> x_ids(60, 'x');
  auto ids_of = [](std::initializer_list<std::vector<std::uint32_t>> parts) {
    std::vector<std::uint32_t> all;
    for (const auto& p : parts) all.insert(all.end(), p.begin(), p.end());
    return all;
  };
  {
    const snaptok::Pipeline tok = snaptok::Pipeline::from_json(json);  // a fresh cache
    const std::string text = "abc abc" + xs;
    const auto want = ids_of({{257, ' ', 256, 'c'}, x_ids});
    CHECK(tok.encode(text, false) == want);
    CHECK(tok.encode(text, false) == want);  // warm
    CHECK(tok.encode_full(text, false).ids == want);
  }
  {
    const snaptok::Pipeline tok = snaptok::Pipeline::from_json(json);
    const std::string text = "abc" + xs + "\nabc";
    const auto want = ids_of({{256, 'c'}, x_ids, {'\n', 257}});
    CHECK(tok.encode(text, false) == want);
    CHECK(tok.encode(text, false) == want);
    CHECK(tok.encode_full(text, false).ids == want);
  }
}

namespace {

// GPT-2's vocabulary behind the pre-tokenizer `pre_tokenizer` (JSON), with
// tokens for runs of two and four spaces, so that the cuts between spaces
// show in the ids.
snaptok::Pipeline gpt2_behind(const std::string& pre_tokenizer) {
  std::ifstream in(SNAPTOK_TEST_DATA_DIR "/gpt2/tokenizer.json", std::ios::binary);
  std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto insert_after = [&](std::string_view key, std::string_view what) {
    const std::size_t k = json.find(key);
    REQUIRE(k != std::string::npos);
    json.insert(k + key.size(), what);
  };
  insert_after(R"("vocab":{)",
               "\"\xC4\xA0\xC4\xA0\":50257,\"\xC4\xA0\xC4\xA0\xC4\xA0\xC4\xA0\":50258,");
  insert_after(R"("merges":[)", "\"\xC4\xA0 \xC4\xA0\",\"\xC4\xA0\xC4\xA0 \xC4\xA0\xC4\xA0\",");
  const std::string old_pre =
      R"("pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true})";
  const std::size_t at = json.find(old_pre);
  REQUIRE(at != std::string::npos);
  json.replace(at, old_pre.size(), R"("pre_tokenizer":)" + pre_tokenizer);
  return snaptok::Pipeline::from_json(json);
}

// The general stages' oracle for the fused path behind `pre_tokenizer`:
// the same pipeline with a stage after it that never cuts (a Split on
// U+0000, which no byte-level char is), which keeps full Encodings off the
// fused byte-level path (fast_paths/byte_level_encoding.hpp).
snaptok::Pipeline general_oracle(const std::string& pre_tokenizer) {
  return gpt2_behind(R"({"type":"Sequence","pretokenizers":[)" + pre_tokenizer +
                     R"(,{"type":"Split","pattern":{"String":"\u0000"},"behavior":"Isolated","invert":false}]})");
}

// Checks every field of two Encodings.
void check_same_encoding(const snaptok::Encoding& got, const snaptok::Encoding& want) {
  CHECK(got.ids == want.ids);
  CHECK(got.tokens == want.tokens);
  CHECK(got.offsets == want.offsets);
  CHECK(got.word_ids == want.word_ids);
  CHECK(got.type_ids == want.type_ids);
  CHECK(got.special_tokens_mask == want.special_tokens_mask);
  CHECK(got.attention_mask == want.attention_mask);
  CHECK(got.sequence_ranges == want.sequence_ranges);
  CHECK(got.overflowing.size() == want.overflowing.size());
}

// Appends to `texts` `count` random texts of up to about `max_bytes`
// bytes made of `parts` (every other one of the first `ascii_parts` only);
// returns them all.
std::vector<std::string> with_random_texts(std::vector<std::string> texts, const std::vector<std::string>& parts,
                                           std::size_t ascii_parts, int count, std::size_t max_bytes,
                                           std::uint32_t seed) {
  for (int i = 0; i < count; ++i) {
    std::string t;
    const std::size_t want = 1 + (seed = seed * 1664525u + 1013904223u) % max_bytes;
    const std::size_t kinds = i % 2 == 0 ? ascii_parts : parts.size();
    while (t.size() < want) t += parts[(seed = seed * 1664525u + 1013904223u) % kinds];
    texts.push_back(t);
  }
  return texts;
}

// Checks that `tok` gives the full Encodings of `general` (the same stages
// off the fused paths) for each text, each text with another as its pair
// and special tokens, and the batch of all on two threads.
void check_full_encodings(const snaptok::Pipeline& tok, const snaptok::Pipeline& general,
                          const std::vector<std::string>& texts) {
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const std::string& t = texts[i];
    const std::string& p = texts[(i * 7 + 3) % texts.size()];
    INFO(t);
    INFO(p);
    check_same_encoding(tok.encode_full(t, false), general.encode_full(t, false));
    check_same_encoding(tok.encode_full(t, std::string_view(p), true), general.encode_full(t, std::string_view(p), true));
  }
  const std::vector<std::string_view> batch(texts.begin(), texts.end());
  const std::vector<snaptok::Encoding> got = tok.encode_batch_full(batch, true, 2);
  const std::vector<snaptok::Encoding> want = general.encode_batch_full(batch, true, 2);
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) check_same_encoding(got[i], want[i]);
}

// Checks that the segment path of `tok` itself (no fallback to the general
// stages) gives the tokens `general` gives for each of `texts` (which hold
// no added token).
void check_segment_path_tokens(const snaptok::Pipeline& tok, const snaptok::Pipeline& general,
                               const std::vector<std::string>& texts) {
  const auto path = snaptok::make_segment_path(tok.normalizer(), tok.pre_tokenizer(), tok.model());
  REQUIRE(path);
  std::vector<std::uint32_t> scratch;
  auto no_spans = [](std::string_view, snaptok::EncodingBuilder&) { return false; };
  for (const std::string& t : texts) {
    INFO(t);
    snaptok::Encoding enc;
    snaptok::EncodingBuilder out(t, 0, enc);
    CHECK(path->encode_tokens(t, snaptok::SegmentStart::kText, nullptr, scratch, no_spans, out));
    const snaptok::Encoding want = general.encode_full(t, false);  // (post-processed: sequence ranges)
    CHECK(enc.ids == want.ids);
    CHECK(enc.tokens == want.tokens);
    CHECK(enc.offsets == want.offsets);
    CHECK(enc.word_ids == want.word_ids);
  }
}

// Checks that the fused paths of GPT-2 behind `pre_tokenizer` give the
// general stages' ids and full Encodings on 400 random texts made of
// `parts` (every other one of the first `ascii_parts` only) and on `texts`.
void check_fused_equals_general(const std::string& pre_tokenizer, const std::vector<std::string>& parts,
                                std::size_t ascii_parts, std::vector<std::string> texts) {
  const snaptok::Pipeline tok = gpt2_behind(pre_tokenizer);
  const snaptok::Pipeline general = general_oracle(pre_tokenizer);
  texts = with_random_texts(std::move(texts), parts, ascii_parts, 400, 300, 11);
  for (const std::string& t : texts) {
    INFO(t);
    const snaptok::Encoding want = general.encode_full(t, false);
    CHECK(tok.encode(t, false) == want.ids);
    CHECK(tok.encode(t, false) == want.ids);  // warm
    check_same_encoding(tok.encode_full(t, false), want);
  }
}

}  // namespace

TEST_CASE("DeepSeek V3's three Splits, run as one scanner on the fused path, give the general path's ids") {
  // Digit groups, CJK runs, then its word pattern, each Split on the gaps of
  // the ones before.
  auto split = [](std::string_view pattern) {
    return R"({"type":"Split","pattern":{"Regex":)" + snaptok::detail::json_quote(pattern) +
           R"(},"behavior":"Isolated","invert":false},)";
  };
  const std::string pre_tokenizer =
      R"({"type":"Sequence","pretokenizers":[)" + split(snaptok::scanners::kDeepSeekDigitsPattern) +
      split(snaptok::scanners::kDeepSeekCjkPattern) + split(snaptok::scanners::kDeepSeekPattern) +
      R"({"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":false}]})";
  const std::vector<std::string> parts = {
      "a", "Word", " ", "  ", "\n", "\r\n", "1", "2024", "!", "!a", "'s", "\x01",  // all-ASCII: the block algebra
      "\xE6\x97\xA5", "\xE3\x81\x82", "\xE3\x80\x82", "\xC2\xB2", "\xC3\xA9", "\xF0\x9F\x98\x80"};
  check_fused_equals_general(
      pre_tokenizer, parts, 12,
      {"In 2024, 12345 people  9 x\n\n  7\t8 \xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E\xE3\x81\xAE 42\xE6\x96\x87 "
       "\xC2\xB2\xC2\xB3\xD9\xA3 don't!x \xE3\x80\x82\xEF\xBC\x81 end   "});
}

TEST_CASE("Punctuation before ByteLevel's regex, run as one scan on the fused path, gives the general path's ids") {
  // Falcon's first two stages: the whitespace before punctuation is one
  // piece, contractions lose their apostrophe, symbols that are not
  // punctuation stay with it in the regex's pieces. The fused scan rests on
  // no punctuation char being \s, \p{L} or \p{N} in the regex's classes.
  const snaptok::scanners::FlagTable& flags = snaptok::scanners::char_flags();
  std::size_t overlapping = 0;
  for (char32_t c = 0; c < 0x110000; ++c) {
    const auto classes = snaptok::scanners::kFlagSpace | snaptok::scanners::kFlagL | snaptok::scanners::kFlagN;
    overlapping += snaptok::unicode::is_punctuation(c) && (flags(c) & classes) != 0;
  }
  CHECK(overlapping == 0);
  for (const char* behavior : {"Contiguous", "Isolated"}) {
    INFO(behavior);
    const std::string pre_tokenizer =
        std::string(R"({"type":"Sequence","pretokenizers":[{"type":"Punctuation","behavior":")") + behavior +
        R"("},{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":true}]})";
    const std::vector<std::string> parts = {
        "a", "Word", " ", "  ", "\t", "\n", "1", "!", "?!", "(", ")", "'s", "'", "$", "+=", "don't",  // all-ASCII
        "\xE3\x80\x80",                  // U+3000, a space
        "\xE2\x80\x9C", "\xC2\xAB",    // a quotation mark, a guillemet (P)
        "\xE2\x82\xAC", "\xC2\xA9",    // the euro and copyright signs (S)
        "\xE3\x80\x82", "\xC3\xA9", "\xE6\x97\xA5", "\xF0\x9F\x98\x80"};
    check_fused_equals_general(pre_tokenizer, parts, 16,
                               {"a  (b", "a \t(b", "  .x", "x  ", ".  Hello", "it's", "a 's", "?'s", "\xE2\x82\xAC  (",
                                "a\xE3\x80\x80 \xE2\x80\x9C", "(+ a", "x.'s"});
  }
}

TEST_CASE("full Encodings from the fused byte-level path equal the general stages', added tokens and pairs included") {
  // GPT-2's own pre-tokenizer, and its tokens' offsets where a token starts
  // or ends inside a char (emoji, CJK), next to added tokens that strip
  // whitespace, touch words, or are special.
  const std::string pre_tokenizer = R"({"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true})";
  snaptok::Pipeline tok = gpt2_behind(pre_tokenizer);
  snaptok::Pipeline general = general_oracle(pre_tokenizer);
  const std::vector<snaptok::AddedToken> added = {
      {.content = "<tool>", .lstrip = true, .rstrip = true, .special = true},
      {.content = "[mask]", .single_word = true, .normalized = false},
      {.content = " hello", .lstrip = true},
      {.content = "\xE6\x97\xA5\xE6\x9C\xAC", .rstrip = true}};
  CHECK(tok.add_tokens(added) == general.add_tokens(added));
  const std::vector<std::string> parts = {
      "a", "Word", " ", "  ", "\n", "\r\n", "1", "2024", "!", "'s", "don't", " hello", "<tool>", " <tool> ",
      "[mask]", " [mask] ", "<|endoftext|>",  // ASCII
      "\xE6\x97\xA5\xE6\x9C\xAC", "\xE3\x81\x82", "\xC3\xA9", "\xF0\x9F\x98\x80", "\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD",
      "\xE2\x80\xA6", "\xC2\xA0"};
  CHECK(tok.fused_path() == "byte-level BPE");
  check_full_encodings(tok, general,
                       with_random_texts({"", " ", "<tool>", "Hello world", "  <tool>  x", "\xF0\x9F\x98\x80<tool>"},
                                         parts, 17, 300, 200, 5));
}

namespace {

// A Llama-style SentencePiece BPE (Prepend("▁") + Replace(" ", "▁"), byte
// fallback for every byte) behind `pre_tokenizer` (JSON), with a few
// words' merges and the added tokens <s> (special) and <sep>.
snaptok::Pipeline llama_like(const std::string& pre_tokenizer) {
  std::string vocab = R"("<unk>":0,"<s>":1,"<sep>":2)";
  std::uint32_t next = 3;
  auto add = [&](const std::string& token) {
    vocab += "," + snaptok::detail::json_quote(token) + ":" + std::to_string(next++);
  };
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (int b = 0; b < 256; ++b) add(std::string("<0x") + kHex[b >> 4] + kHex[b & 15] + ">");
  for (const char* t : {"\xE2\x96\x81", "t", "h", "e", "l", "o", "w", "r", "d", "x", "<", "0", ">", "\n",
                        "\xC3\xA9", "\xE2\x96\x81t", "he", "\xE2\x96\x81the", "\xE2\x96\x81\xE2\x96\x81", "ll",
                        "ell", "hell", "hello", "\xE2\x96\x81hello", "<0", "<0x", "or", "wor", "\xE2\x96\x81wor",
                        "\xE2\x96\x81world", "ld"}) {
    add(t);
  }
  const std::string merges = R"("▁ t","h e","▁t he","▁ ▁","l l","e ll","h ell","hell o","▁ hello",)"
                             R"("< 0","<0 x","o r","w or","▁ wor","l d","▁wor ld")";
  std::string json = R"({"version":"1.0","added_tokens":[
      {"id":0,"content":"<unk>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},
      {"id":1,"content":"<s>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},
      {"id":2,"content":"<sep>","single_word":false,"lstrip":true,"rstrip":false,"normalized":false,"special":false}],
    "normalizer":{"type":"Sequence","normalizers":[{"type":"Prepend","prepend":"\u2581"},
                  {"type":"Replace","pattern":{"String":" "},"content":"\u2581"}]},
    "pre_tokenizer":)" + pre_tokenizer + R"(,
    "post_processor":{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>","type_id":0}},
        {"Sequence":{"id":"A","type_id":0}}],"pair":[{"SpecialToken":{"id":"<s>","type_id":0}},
        {"Sequence":{"id":"A","type_id":0}},{"Sequence":{"id":"B","type_id":1}}],
        "special_tokens":{"<s>":{"id":"<s>","ids":[1],"tokens":["<s>"]}}},
    "decoder":null,
    "model":{"type":"BPE","unk_token":"<unk>","fuse_unk":true,"byte_fallback":true,
             "vocab":{)" + vocab + R"(},"merges":[)" + merges + "]}}";
  return snaptok::Pipeline::from_json(json);
}

}  // namespace

TEST_CASE("full Encodings from the fused SentencePiece BPE path equal the general stages'") {
  // Byte-fallback tokens inside a char, the prepended "▁" (on its own and
  // merged), spaces in runs and at the ends, the text "<0x3C>" (a literal
  // that reads as a byte token), added tokens that strip or are special.
  const snaptok::Pipeline tok = llama_like("null");
  // The oracle: a Split on U+0000 (absent from the texts) keeps the path off.
  const snaptok::Pipeline general =
      llama_like(R"({"type":"Split","pattern":{"String":"\u0000"},"behavior":"Isolated","invert":false})");
  REQUIRE(tok.fused_path() == "SentencePiece BPE");
  REQUIRE(general.fused_path() == "none");
  const std::vector<std::string> parts = {
      "the", "hello", "world", " ", "  ", "x", "e", "\n", "<0x41>", "<0x3C>", "<s>", " <sep>", "<sep>",  // ASCII
      "\xC3\xA9", "\xE2\x96\x81", "\xE6\x97\xA5\xE6\x9C\xAC", "\xF0\x9F\x98\x80", "\xC2\xA0", "\xE2\x80\xA6"};
  // The path itself gives the tokens of texts without added tokens (no
  // fallback to the general stages).
  check_segment_path_tokens(
      tok, general,
      {"hello  world", " \xE6\x97\xA5 x\xF0\x9F\x98\x80 ", "  ", "<0x41>\xC3\xA9 \xE2\x96\x81 the\n"});
  check_full_encodings(
      tok, general,
      with_random_texts({"", " ", "<s>", "hello world", " the", "the ", "\xC3\xA9 x", "<s> <sep>the"}, parts, 13, 300,
                        120, 7));
}

TEST_CASE("full Encodings from the fused whitespace-words path equal the general stages'") {
  // The bundled T5-style Unigram (Precompiled, Strip(right), runs of spaces
  // collapsed, Metaspace): words on the path, the "▁" of a collapsed run,
  // spans it leaves to the general stages (non-ASCII, control chars the
  // normalizer removes, a span that starts the text), added tokens.
  std::ifstream in(SNAPTOK_TEST_DATA_DIR "/spm-botchan-unigram-1000-t5/tokenizer.json", std::ios::binary);
  const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const snaptok::Pipeline tok = snaptok::Pipeline::from_json(json);
  // The oracle: a Split on U+0000 after Metaspace keeps the path off.
  const std::string metaspace = R"({"type":"Metaspace","replacement":"▁","prepend_scheme":"always","split":true})";
  std::string oracle_json = json;
  const std::size_t at = oracle_json.find(metaspace);
  REQUIRE(at != std::string::npos);
  oracle_json.replace(at, metaspace.size(),
                      R"({"type":"Sequence","pretokenizers":[)" + metaspace +
                          R"(,{"type":"Split","pattern":{"String":"\u0000"},"behavior":"Isolated","invert":false}]})");
  const snaptok::Pipeline general = snaptok::Pipeline::from_json(oracle_json);
  REQUIRE(tok.fused_path() == "whitespace words");
  REQUIRE(general.fused_path() == "none");
  const std::vector<std::string> parts = {
      "the", "Hello", "world", "don't", "x", "42", ",", ".", " ", "  ", "   ", "\n", "</s>", " <s> ",  // ASCII
      "\x01", "\xC3\xA9", "\xE6\x97\xA5\xE6\x9C\xAC", "\xF0\x9F\x98\x80", "\xC2\xA0", "\xE2\x80\x9C", "\xEF\xBC\xA1"};
  // The path itself gives the tokens of ASCII words and runs.
  check_segment_path_tokens(tok, general, {"Hello  world", "a   b  c, don't 42. ", "x", "  leading"});
  check_full_encodings(
      tok, general,
      with_random_texts({"", " ", "Hello  world", "  ab", "ab   ", "\x01 (", "a \x01 (", "\xC3\xA9t\xC3\xA9 x"}, parts,
                        14, 300, 120, 3));
}

TEST_CASE("pathological input: 1 MB without a space, 100k emoji") {
  const std::string a(1 << 20, 'a');
  const auto ids = gpt2().encode(a);
  CHECK(!ids.empty());
  CHECK(gpt2().decode(ids) == a);
  std::string emoji;
  for (int i = 0; i < 100000; ++i) emoji += "\xF0\x9F\x98\x80";
  CHECK(gpt2().decode(gpt2().encode(emoji)) == emoji);
}

TEST_CASE("invalid UTF-8 input is refused with the byte offset") {
  try {
    gpt2().encode(std::string("ok\xC3(", 4));
    FAIL("expected an error");
  } catch (const snaptok::Error& e) {
    CHECK(std::string(e.what()).find("invalid UTF-8 at byte 2") != std::string::npos);
  }
  CHECK_THROWS_AS(gpt2().encode(std::string("\xED\xA0\x80", 3)), snaptok::Error);  // surrogate
  CHECK_THROWS_AS(gpt2().encode(std::string("\xC0\xAF", 2)), snaptok::Error);       // overlong
}

TEST_CASE("errors name the JSON path") {
  CHECK(error_of("{not json").find("malformed JSON") != std::string::npos);
  CHECK(error_of("[1,2]").find("expected a JSON object") != std::string::npos);
  CHECK(error_of(bpe_json(R"({"type":"Sequence","pretokenizers":[{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true},{"type":"Foo"}]})"))
            .find("pre_tokenizer.pretokenizers[1]: unknown type \"Foo\"") != std::string::npos);
  CHECK(error_of(bpe_json(R"({"type":"Split","pattern":{"Regex":"(unclosed"},"behavior":"Isolated","invert":false})"))
            .find("pre_tokenizer.pattern.Regex: invalid regex") != std::string::npos);
  CHECK(error_of(bpe_json(R"({"type":"Split","pattern":{"Regex":"a"},"behavior":"Sideways","invert":false})"))
            .find("pre_tokenizer.behavior: unknown split behavior") != std::string::npos);
  CHECK(error_of(R"({"model":{"type":"BPE","vocab":{"a":0},"merges":["a b"]}})")
            .find("model.merges[0]: merge token \"b\" is not in the vocabulary") != std::string::npos);
  // Merges are read from the raw JSON; each error still names its element.
  const auto merges_error = [&](std::string_view merges) {
    return error_of(R"({"model":{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":)" + std::string(merges) + "}}");
  };
  CHECK(merges_error("5").find("model.merges: expected an array, got number") != std::string::npos);
  CHECK(merges_error(R"([["a","b"],["a"]])").find("model.merges[1]: expected a pair of tokens") != std::string::npos);
  CHECK(merges_error(R"([["a","b"],["a",3]])").find("model.merges[1][1]: expected a string, got number") !=
        std::string::npos);
  CHECK(merges_error(R"([["a","b"],"a b"])").find("model.merges[1]: expected a pair of tokens, got string") !=
        std::string::npos);
  CHECK(merges_error(R"(["#version: 0.2","a b","a x"])").find("model.merges[2]: merge token \"x\"") !=
        std::string::npos);
  CHECK(merges_error(R"(["a b","b a"])").find("model.merges[1]: merged token \"ba\" is not in the vocabulary") !=
        std::string::npos);
  CHECK(error_of(R"({"model":{"type":"BPE","vocab":{"a":"zero"},"merges":[]}})")
            .find("model.vocab.a: expected a non-negative integer") != std::string::npos);
  CHECK(error_of(R"({"version":"2.0","model":{"type":"BPE","vocab":{},"merges":[]}})")
            .find("unknown tokenizer version") != std::string::npos);
}

TEST_CASE("Split pre-tokenizer with a BPE model merges within pieces") {
  auto tok = snaptok::Pipeline::from_json(
      bpe_json(R"({"type":"Split","pattern":{"String":"b"},"behavior":"MergedWithPrevious","invert":false})"));
  CHECK(tok.encode("abab") == std::vector<std::uint32_t>{2, 2});
  auto removed = snaptok::Pipeline::from_json(
      bpe_json(R"({"type":"Split","pattern":{"String":"b"},"behavior":"Removed","invert":false})"));
  CHECK(removed.encode("abab") == std::vector<std::uint32_t>{0, 0});
}

TEST_CASE("NormalizedString keeps original alignments through edits") {
  const std::string text = "h\xC3\xA9llo";  // "héllo"
  snaptok::NormalizedString ns(text, 0, text, true);
  ns.prepend("_");
  CHECK(ns.get() == "_h\xC3\xA9llo");
  // The prepended char shares the first char's alignment.
  CHECK(ns.normalized_to_original(0, 1)->start == 0);
  CHECK(ns.normalized_to_original(0, 1)->end == 1);
  // Replace "é" (2 bytes) with "e": the new char aligns to the whole "é".
  ns.replace({{2, 4, true}}, "e");
  CHECK(ns.get() == "_hello");
  CHECK(ns.normalized_to_original(2, 3)->start == 1);
  CHECK(ns.normalized_to_original(2, 3)->end == 3);
  const snaptok::NormalizedString tail = ns.slice(3, 6);
  CHECK(tail.get() == "llo");
  CHECK(tail.offsets_original().start == 3);
  CHECK(tail.offsets_original().end == 6);
}

}  // namespace tokenizer_tests
