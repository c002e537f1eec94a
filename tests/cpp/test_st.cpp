// The .st format: every model family round-trips JSON -> .st -> the same ids,
// Encodings, decode and settings; the bytes are deterministic; the hashes
// that place table slots are pinned; and damaged files (truncated at every
// section edge, bit flips, lying headers and section tables, tables whose
// indices point outside, with the checksum made to match) get an Error that
// names the file and the failure.
#include <doctest/doctest.h>

#include <snaptok/pipeline.hpp>  // the .st format internals
#include <snaptok/tokenizer.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace st_tests {

namespace {

namespace st = snaptok::st;
using snaptok::Tokenizer;

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::span<const std::byte> as_bytes(const std::string& s) {
  return std::as_bytes(std::span(s.data(), s.size()));
}

// A WordPiece tokenizer with a BERT pipeline, small enough to write here.
const char* kWordPieceJson = R"({
  "version": "1.0", "added_tokens": [
    {"id": 0, "content": "[PAD]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
    {"id": 1, "content": "[UNK]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
    {"id": 2, "content": "[CLS]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
    {"id": 3, "content": "[SEP]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}],
  "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true},
  "pre_tokenizer": {"type": "BertPreTokenizer"},
  "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]},
  "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
  "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
    "vocab": {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "hello": 4, "world": 5, "wor": 6, "##ld": 7, "!": 8, "he": 9, "##llo": 10, "\"": 11}}
})";

const char* kWordLevelJson = R"({
  "version": "1.0",
  "pre_tokenizer": {"type": "Whitespace"},
  "model": {"type": "WordLevel", "unk_token": "<unk>", "vocab": {"<unk>": 0, "hello": 1, "world": 2, "!": 3}}
})";

struct Case {
  const char* name;
  std::string json;
  std::string text;
};

// GPT-2 as a model that ignores merges (as o200k and Llama 3 do): its .st
// file holds the bpe.short_tokens section.
std::string gpt2_ignoring_merges() {
  std::string json = read_file(SNAPTOK_TEST_DATA_DIR "/gpt2/tokenizer.json");
  const std::size_t at = json.find("\"model\":{") + 9;
  json.insert(at, "\"ignore_merges\":true,");
  return json;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  const std::string gpt2 = read_file(SNAPTOK_TEST_DATA_DIR "/gpt2/tokenizer.json");
  const std::string t5 = read_file(SNAPTOK_TEST_DATA_DIR "/spm-botchan-unigram-1000-t5/tokenizer.json");
  const std::string text =
      "Hello world! The quick brown fox, 1234 jumps; caf\xc3\xa9 na\xc3\xafve \xe6\x97\xa5\xe6\x9c\xac "
      "\xf0\x9f\x98\x80 <|endoftext|> end.";
  out.push_back({"gpt2 (byte-level BPE)", gpt2, text});
  out.push_back({"gpt2, ignore_merges (byte-level BPE with its short-token map)", gpt2_ignoring_merges(), text});
  out.push_back({"t5 (Unigram, Precompiled)", t5, text + " </s>"});
  out.push_back({"WordPiece (BERT)", kWordPieceJson, "Hello WORLD! he\"llo wor ld"});
  out.push_back({"WordLevel", kWordLevelJson, "hello world ! unknown"});
  return out;
}

void check_same(const Tokenizer& a, const Tokenizer& b, const std::string& text) {
  CHECK(a.encode(text) == b.encode(text));
  CHECK(a.encode(text, false) == b.encode(text, false));
  const snaptok::Encoding ea = a.encode_full(text, text, true);
  const snaptok::Encoding eb = b.encode_full(text, text, true);
  CHECK(ea.ids == eb.ids);
  CHECK(ea.tokens == eb.tokens);
  CHECK(ea.offsets == eb.offsets);
  CHECK(ea.type_ids == eb.type_ids);
  CHECK(ea.special_tokens_mask == eb.special_tokens_mask);
  CHECK(a.decode(ea.ids) == b.decode(eb.ids));
  CHECK(a.vocab_size() == b.vocab_size());
  CHECK(a.id_to_token(3) == b.id_to_token(3));
}

// Rewrites the header's checksum to match the (edited) payload.
void fix_checksum(std::string& image) {
  st::Header h;
  std::memcpy(&h, image.data(), sizeof h);
  h.checksum = st::file_checksum(as_bytes(image));
  std::memcpy(image.data(), &h, sizeof h);
}

st::SectionEntry entry_of(const std::string& image, std::size_t i) {
  st::SectionEntry e;
  std::memcpy(&e, image.data() + sizeof(st::Header) + i * sizeof e, sizeof e);
  return e;
}
void set_entry(std::string& image, std::size_t i, const st::SectionEntry& e) {
  std::memcpy(image.data() + sizeof(st::Header) + i * sizeof e, &e, sizeof e);
}
std::size_t section_count(const std::string& image) {
  st::Header h;
  std::memcpy(&h, image.data(), sizeof h);
  return h.section_count;
}
std::size_t find_section(const std::string& image, st::SectionType type) {
  for (std::size_t i = 0; i < section_count(image); ++i) {
    if (entry_of(image, i).type == static_cast<std::uint32_t>(type)) return i;
  }
  FAIL("no such section");
  return 0;
}

// `image` with section `first` and every later one retyped to types no
// reader knows (still sorted): the file of an older writer, which lacked
// those sections.
std::string without_sections_from(std::string image, st::SectionType first) {
  for (std::size_t i = find_section(image, first); i < section_count(image); ++i) {
    st::SectionEntry e = entry_of(image, i);
    e.type += 100;
    set_entry(image, i, e);
  }
  fix_checksum(image);
  return image;
}

// The error from loading `image`, or "" when it loads.
std::string load_error(const std::string& image) {
  try {
    const Tokenizer tok = Tokenizer::from_st_buffer(as_bytes(image));
    (void)tok.encode("Hello world! caf\xc3\xa9 \xf0\x9f\x98\x80");
    return "";
  } catch (const snaptok::Error& e) {
    return e.what();
  }
}

}  // namespace

TEST_CASE("st: every model family round-trips with the same ids, Encodings and bytes") {
  for (const Case& c : cases()) {
    CAPTURE(c.name);
    const Tokenizer json = Tokenizer::from_json(c.json);
    const std::string image = json.to_st_bytes();
    CHECK(image.size() % st::kAlignment == 0);
    const Tokenizer loaded = Tokenizer::from_st_buffer(as_bytes(image));
    check_same(json, loaded, c.text);
    CHECK(loaded.to_st_bytes() == image);                    // deterministic, and a fixed point
    CHECK(Tokenizer::from_json(c.json).to_st_bytes() == image);  // the same input, the same bytes
  }
}

TEST_CASE("st: settings at save time travel in the file") {
  Tokenizer tok = Tokenizer::from_json(kWordPieceJson);
  snaptok::TruncationParams trunc;
  trunc.max_length = 9;
  trunc.stride = 1;
  trunc.direction = snaptok::TruncationDirection::left;
  tok.set_truncation(trunc);
  snaptok::PaddingParams pad;
  pad.fixed_length = 12;
  pad.pad_token = "[PAD] \"quoted\"";
  pad.direction = snaptok::PaddingDirection::left;
  tok.set_padding(pad);
  tok.set_encode_special_tokens(true);
  tok.set_cache_budget(12345);
  const Tokenizer loaded = Tokenizer::from_st_buffer(as_bytes(tok.to_st_bytes()));
  REQUIRE(loaded.truncation());
  CHECK(loaded.truncation()->max_length == 9);
  CHECK(loaded.truncation()->stride == 1);
  CHECK(loaded.truncation()->direction == snaptok::TruncationDirection::left);
  REQUIRE(loaded.padding());
  CHECK(loaded.padding()->fixed_length == 12u);
  CHECK(loaded.padding()->pad_token == "[PAD] \"quoted\"");
  CHECK(loaded.padding()->direction == snaptok::PaddingDirection::left);
  CHECK(loaded.encode_special_tokens());
  CHECK(loaded.cache_stats().bytes_budget == 12345);
  check_same(tok, loaded, "hello world! [CLS] hello hello world");
}

TEST_CASE("st: from_file tells .st from JSON, and save_st writes atomically") {
  const auto dir = std::filesystem::temp_directory_path() / ("snaptok_st_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const Tokenizer tok = Tokenizer::from_json(kWordPieceJson);
  tok.save_st(dir / "tok.st");
  const Tokenizer loaded = Tokenizer::from_file(dir / "tok.st");
  check_same(tok, loaded, "hello world");
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files += e.is_regular_file();
  CHECK(files == 1);  // no temporary file left behind
  CHECK_THROWS_WITH_AS(tok.save_st(dir / "missing" / "tok.st"), doctest::Contains("cannot write"),
                       snaptok::Error);
  std::filesystem::remove_all(dir);
}

TEST_CASE("st: from_file_cached keeps a sidecar and rebuilds it when the JSON changes") {
  const auto dir = std::filesystem::temp_directory_path() / ("snaptok_stc_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto json_path = dir / "tokenizer.json";
  const auto sidecar = dir / "tokenizer.json.st";
  { std::ofstream(json_path) << kWordLevelJson; }
  const Tokenizer first = Tokenizer::from_file_cached(json_path);
  REQUIRE(std::filesystem::exists(sidecar));
  const std::string image = read_file(sidecar);
  CHECK(image == first.to_st_bytes());
  CHECK(Tokenizer::from_file_cached(json_path).encode("hello world") == std::vector<std::uint32_t>{1, 2});

  std::string changed = kWordLevelJson;
  changed.replace(changed.find("\"world\": 2"), 10, "\"world\": 7");
  { std::ofstream(json_path) << changed; }
  CHECK(Tokenizer::from_file_cached(json_path).encode("hello world") == std::vector<std::uint32_t>{1, 7});
  CHECK(read_file(sidecar) != image);

  { std::ofstream(sidecar, std::ios::trunc) << "garbage"; }  // a broken sidecar is rebuilt
  CHECK(Tokenizer::from_file_cached(json_path).encode("hello world") == std::vector<std::uint32_t>{1, 7});
  CHECK(st::has_magic(as_bytes(read_file(sidecar))));
  std::filesystem::remove_all(dir);
}

TEST_CASE("st: the hashes that place table slots are frozen") {
  // Changing any of these values breaks every .st file of format version 1.
  CHECK(snaptok::detail::hash_bytes("") == 0x4fba3d35c6d66511ull);
  CHECK(snaptok::detail::hash_bytes("hello world, snaptok") == 0x30257e89c193debdull);
  CHECK(snaptok::detail::hash_u64(0x0000002A0000000Bull) == 0xa72a53a524965771ull);
  CHECK(snaptok::detail::table_capacity(0) == 16);
  CHECK(snaptok::detail::table_capacity(50257) == 131072);
  const auto key = snaptok::detail::ShortKey::of("hello world", 11, false);  // places ShortTokenMap keys
  CHECK(key.lo == 0x6f77206f6c6c6568ull);
  CHECK(key.hi == 0x0b00000000646c72ull);
  CHECK(key.hash() == 0x40ef7e2792f3df1full);
  const std::string text = "The .st checksum runs over 64-byte blocks, then the tail.";
  CHECK(st::checksum(as_bytes(text)) == 0xecc912cde0d247abull);
  std::string blocks(200, '\0');  // three whole blocks and a tail
  for (int i = 0; i < 200; ++i) blocks[i] = static_cast<char>(i * 7);
  CHECK(st::checksum(as_bytes(blocks)) == 0x2b972df6a1c2100cull);
}

TEST_CASE("st: a damaged header or section table gets a clear error") {
  const std::string good = Tokenizer::from_json(kWordPieceJson).to_st_bytes();
  REQUIRE(load_error(good).empty());
  auto edited = [&](auto edit) {
    std::string image = good;
    edit(image);
    return load_error(image);
  };
  CHECK(load_error("") == "<buffer>: not a .st file: 0 bytes, shorter than the 64-byte header");
  CHECK(load_error(std::string(200, '{')).find("bad magic") != std::string::npos);
  CHECK(edited([](std::string& s) { s[8] = 2; }).find("format version 2") != std::string::npos);
  CHECK(edited([](std::string& s) { s[12] = 9; }).find("byte order") != std::string::npos);
  CHECK(edited([](std::string& s) { s[16] = 7; }).find("payload kind 7") != std::string::npos);
  CHECK(edited([](std::string& s) { s[20] = 100; }).find("sections, more than") != std::string::npos);
  CHECK(edited([](std::string& s) { s.resize(s.size() - 64); }).find("truncated") != std::string::npos);
  CHECK(edited([](std::string& s) { s[s.size() - 1] ^= 1; }).find("checksum mismatch") != std::string::npos);

  // Lying section tables, with the checksum made to match.
  CHECK(edited([](std::string& s) {
          st::SectionEntry e = entry_of(s, 0);
          e.length = ~0ull - 8;
          set_entry(s, 0, e);
          fix_checksum(s);
        }).find("run past the end of the file") != std::string::npos);
  CHECK(edited([](std::string& s) {
          st::SectionEntry e = entry_of(s, 1);
          e.offset = entry_of(s, 0).offset;
          set_entry(s, 1, e);
          fix_checksum(s);
        }).find("overlaps") != std::string::npos);
  CHECK(edited([](std::string& s) {
          st::SectionEntry e = entry_of(s, 1);
          e.offset += 8;
          set_entry(s, 1, e);
          fix_checksum(s);
        }).find("misaligned") != std::string::npos);
  CHECK(edited([](std::string& s) {
          st::SectionEntry e = entry_of(s, 1);
          e.type = entry_of(s, 0).type;
          set_entry(s, 1, e);
          fix_checksum(s);
        }).find("not sorted and unique") != std::string::npos);
  CHECK(edited([](std::string& s) {
          const std::size_t i = find_section(s, st::SectionType::vocab_slots);
          st::SectionEntry e = entry_of(s, i);
          e.type = 99;  // the slots vanish under an unknown type
          set_entry(s, i, e);
          fix_checksum(s);
        }).find("sorted") != std::string::npos);
  CHECK(edited([](std::string& s) {
          const std::size_t i = find_section(s, st::SectionType::vocab_entries);
          st::SectionEntry e = entry_of(s, i);
          e.length -= 4;  // not a whole number of 12-byte entries
          set_entry(s, i, e);
          fix_checksum(s);
        }).find("not a multiple") != std::string::npos);
}

TEST_CASE("st: tables whose contents point outside are refused") {
  const std::string bpe = Tokenizer::from_json(read_file(SNAPTOK_TEST_DATA_DIR "/gpt2/tokenizer.json")).to_st_bytes();
  const std::string unigram = Tokenizer::from_json(read_file(SNAPTOK_TEST_DATA_DIR "/spm-botchan-unigram-1000-t5/tokenizer.json")).to_st_bytes();
  // Overwrites the first 4 bytes of element `index` of section `type`, then fixes the checksum.
  auto poke = [](std::string image, st::SectionType type, std::size_t byte_offset, std::uint32_t value) {
    const st::SectionEntry e = entry_of(image, find_section(image, type));
    std::memcpy(image.data() + e.offset + byte_offset, &value, 4);
    fix_checksum(image);
    return load_error(image);
  };
  CHECK(poke(bpe, st::SectionType::vocab_slots, 0, 0x7FFFFFF0u).find("vocab.slots: a slot points past") !=
        std::string::npos);
  CHECK(poke(bpe, st::SectionType::vocab_entries, 0, 0x7FFFFFF0u).find("vocab.entries") != std::string::npos);
  CHECK(poke(bpe, st::SectionType::vocab_ids, 4, 0x7FFFFFF0u).find("vocab.ids") != std::string::npos);
  {  // every merges slot's new id, one at a time, would take too long: poke the first used one
    const st::SectionEntry e = entry_of(bpe, find_section(bpe, st::SectionType::bpe_merges));
    std::size_t used = 0;
    for (;; used += 16) {
      std::uint64_t key;
      std::memcpy(&key, bpe.data() + e.offset + used, 8);
      if (key != ~0ull) break;
    }
    CHECK(poke(bpe, st::SectionType::bpe_merges, used + 8, 0x7FFFFFF0u).find("bpe.merges: a merge holds an id") !=
          std::string::npos);
  }
  {  // a pipeline that is not JSON
    std::string image = bpe;
    const st::SectionEntry e = entry_of(image, find_section(image, st::SectionType::pipeline));
    image[e.offset] = '#';
    fix_checksum(image);
    CHECK(load_error(image).find("<buffer>: pipeline: malformed JSON") != std::string::npos);
  }
  CHECK(poke(unigram, st::SectionType::unigram_offsets, 4, 0x7FFFFFF0u).find("unigram.offsets") != std::string::npos);
  CHECK(poke(unigram, st::SectionType::unigram_trie_cells, 0, 0x7FFFFF00u).find("unigram.trie") != std::string::npos);
  {  // the id at the first cell where a piece ends
    const st::SectionEntry cells = entry_of(unigram, find_section(unigram, st::SectionType::unigram_trie_cells));
    std::size_t t = 0;
    for (;; ++t) {
      std::uint32_t base;
      std::memcpy(&base, unigram.data() + cells.offset + 8 * t, 4);
      if (base & snaptok::detail::DoubleArrayTrie::kEnds) break;
    }
    CHECK(poke(unigram, st::SectionType::unigram_ends, 16 * t + 8, 0x7FFFFFF0u).find("unigram.ends") !=
          std::string::npos);
  }
}

TEST_CASE("st: the short-token map of a model that ignores merges is stored, checked, or built") {
  const std::string json = gpt2_ignoring_merges();
  const std::string image = Tokenizer::from_json(json).to_st_bytes();
  const std::size_t i = find_section(image, st::SectionType::bpe_short_tokens);
  const std::string text = "Hello world! The tokenizer's merges are ignored for whole tokens, 1234 caf\xc3\xa9.";
  const std::vector<std::uint32_t> want = Tokenizer::from_json(json).encode(text, false);
  CHECK(Tokenizer::from_st_buffer(as_bytes(image)).encode(text, false) == want);
  CHECK(Tokenizer::from_st_buffer(as_bytes(image)).encode_full(text, false).ids == want);
  {  // a file without the section (an older writer's): the map is built at load
    const std::string old = without_sections_from(image, st::SectionType::bpe_short_tokens);
    CHECK(Tokenizer::from_st_buffer(as_bytes(old)).encode(text, false) == want);
  }
  const st::SectionEntry e = entry_of(image, i);
  auto edited = [&](std::size_t byte_offset, std::uint64_t value) {
    std::string bad = image;
    std::memcpy(bad.data() + e.offset + byte_offset, &value, 8);
    fix_checksum(bad);
    return load_error(bad);
  };
  std::size_t two = 0;  // the first bucket that holds two keys
  for (;; two += 64) {
    std::uint64_t hi;
    std::memcpy(&hi, image.data() + e.offset + two + 16 + 8, 8);
    if (hi != 0) break;
  }
  CHECK(edited(two + 48, 0x7FFFFFF07FFFFFF0ull).find("bpe.short_tokens: a token id is past the vocabulary") !=
        std::string::npos);
  CHECK(edited(two + 8, 0).find("bpe.short_tokens: a bucket has a key after an empty way") != std::string::npos);
  {  // every bucket full
    std::string bad = image;
    for (std::uint64_t at = e.offset; at < e.offset + e.length; at += 64) {
      for (int w = 0; w < 3; ++w) bad[at + 16 * w + 15] = 1;  // a key's length byte
    }
    fix_checksum(bad);
    CHECK(load_error(bad).find("bpe.short_tokens: every bucket is full") != std::string::npos);
  }
}

TEST_CASE("st: the raw-token trie of a byte-level BPE is stored, checked, or built once long pieces need it") {
  // Pieces over BpeModel::kStackMergeBytes merge in chunks through the trie
  // of the tokens' raw bytes (10-90 ms to build for a large vocabulary), or
  // on the heap until they have cost about that much: a .st image holds it,
  // so a server that maps one never pays that on a request.
  const std::string json = read_file(SNAPTOK_TEST_DATA_DIR "/gpt2/tokenizer.json");
  const std::string image = Tokenizer::from_json(json).to_st_bytes();
  auto bpe_of = [](const snaptok::Pipeline& p) -> const snaptok::BpeModel& {
    return dynamic_cast<const snaptok::BpeModel&>(p.model());
  };
  const std::string text = "A long piece: " + std::string(120, '-') + " " + std::string(70, 'x') +
                           " \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x81\xae\xe6\x96\x87\xe7\xab\xa0\xe3\x81\xa7\xe3\x81\x99\xe3\x80\x82"
                           "\xe3\x81\x93\xe3\x82\x8c\xe3\x81\xaf\xe9\x95\xb7\xe3\x81\x84\xe6\x96\x87\xe3\x81\xa7\xe3\x81\x99 and 1234567.";
  const std::vector<std::uint32_t> want = Tokenizer::from_json(json).encode(text, false);
  {
    const snaptok::Pipeline loaded = snaptok::Pipeline::from_st_buffer(as_bytes(image));
    CHECK(bpe_of(loaded).long_piece_tables_ready());
    CHECK(loaded.encode(text, false) == want);
    CHECK(loaded.encode_full(text, false).ids == want);
  }
  {  // without the trie: long pieces merge on the heap until it is worth building, same ids
    const std::string old = without_sections_from(image, st::SectionType::bpe_raw_trie_cells);
    snaptok::Pipeline loaded = snaptok::Pipeline::from_st_buffer(as_bytes(old));
    loaded.set_cache_budget(0);  // every call merges its long pieces again
    CHECK_FALSE(bpe_of(loaded).long_piece_tables_ready());
    CHECK(loaded.encode(text, false) == want);
    CHECK(loaded.encode_full(text, false).ids == want);
    CHECK_FALSE(bpe_of(loaded).long_piece_tables_ready());  // one text is not worth the build
    int calls = 0;
    for (; !bpe_of(loaded).long_piece_tables_ready() && calls < 1000000; ++calls) {
      REQUIRE(loaded.encode(text, false) == want);
    }
    CHECK(bpe_of(loaded).long_piece_tables_ready());
    CHECK(loaded.encode(text, false) == want);
    CHECK(loaded.encode_full(text, false).ids == want);
  }
  CHECK(load_error(without_sections_from(image, st::SectionType::bpe_raw_trie_values))
            .find("bpe.raw_*: the raw-token trie and pairs must come together") != std::string::npos);
  const st::SectionEntry cells = entry_of(image, find_section(image, st::SectionType::bpe_raw_trie_cells));
  const st::SectionEntry values = entry_of(image, find_section(image, st::SectionType::bpe_raw_trie_values));
  auto edited = [&](std::uint64_t at, std::uint32_t value) {
    std::string bad = image;
    std::memcpy(bad.data() + at, &value, 4);
    fix_checksum(bad);
    return load_error(bad);
  };
  std::size_t end_cell = 0;  // the first cell where a token ends
  for (;; ++end_cell) {
    std::uint32_t base;
    std::memcpy(&base, image.data() + cells.offset + 8 * end_cell, 4);
    if (base & snaptok::detail::DoubleArrayTrie::kEnds) break;
  }
  CHECK(edited(values.offset + 4 * end_cell, 0x7FFFFFF0u).find("bpe.raw_trie: a token id is past the vocabulary") !=
        std::string::npos);
  CHECK(edited(cells.offset, 0x7FFFFF00u).find("bpe.raw_trie") != std::string::npos);  // the root's children
  {  // a pairs section of the wrong size
    std::string bad = image;
    const std::size_t i = find_section(bad, st::SectionType::bpe_raw_pairs);
    st::SectionEntry e = entry_of(bad, i);
    e.length -= 8;
    set_entry(bad, i, e);
    fix_checksum(bad);
    CHECK(load_error(bad).find("bpe.raw_pairs: 1023 words, expected 1024") != std::string::npos);
  }
}

TEST_CASE("st: truncation at every section edge and random damage never crash") {
  for (const Case& c : cases()) {
    CAPTURE(c.name);
    const std::string good = Tokenizer::from_json(c.json).to_st_bytes();
    std::vector<std::size_t> cuts = {0, 1, 7, 8, 63, 64, 65};
    for (std::size_t i = 0; i < section_count(good); ++i) {
      const st::SectionEntry e = entry_of(good, i);
      for (const std::uint64_t edge : {e.offset, e.offset + e.length}) {
        for (const std::uint64_t d : {0ull, 1ull}) {
          if (edge >= d) cuts.push_back(static_cast<std::size_t>(edge - d));
          cuts.push_back(static_cast<std::size_t>(edge + d));
        }
      }
    }
    for (const std::size_t cut : cuts) {
      if (cut >= good.size()) continue;
      const std::string err = load_error(good.substr(0, cut));
      CHECK_MESSAGE(err.starts_with("<buffer>: "), "cut at ", cut, ": ", err);
    }
    std::mt19937_64 rng(42);
    for (int round = 0; round < 64; ++round) {
      std::string image = good;
      const std::size_t at = std::uniform_int_distribution<std::size_t>(0, image.size() - 1)(rng);
      image[at] = static_cast<char>(image[at] ^ (1 << (round % 8)));
      const std::string err = load_error(image);
      CHECK_MESSAGE(!err.empty(), "flip at ", at, " went unnoticed");
    }
  }
}

}  // namespace st_tests
