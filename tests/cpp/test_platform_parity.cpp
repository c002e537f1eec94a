// Ids that must not depend on the machine: Hugging Face's ids (computed on
// x86 by tests/arm/gen_parity_ids.py into tests/arm/parity_ids.json) for the
// bundled tokenizers and GPT-2 variants with other scanners' split
// patterns, one text at a time and in batches; and .st files written by
// another machine (SNAPTOK_ST_FIXTURE_DIR, which tests/arm/run_qemu.sh points
// at files the x86 build wrote) loading with those ids and equal, byte for
// byte, to the .st this machine writes. Run under every SIMD target by
// tests/arm/run_qemu.sh (aarch64) and SNAPTOK_SIMD (x86).
#include <doctest/doctest.h>

#include <simdjson.h>
#include <snaptok/simd/dispatch.hpp>
#include <snaptok/tokenizer.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace platform_parity_tests {

namespace {

using Ids = std::vector<std::uint32_t>;

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct ParityCase {
  std::string name;
  std::string json;           // the tokenizer.json, variant applied
  std::vector<Ids> ids;       // add_special_tokens = false
  std::vector<Ids> ids_special;  // add_special_tokens = true
};

struct ParityData {
  std::vector<std::string> texts;
  std::vector<ParityCase> cases;
};

std::vector<Ids> id_lists(simdjson::dom::array rows) {
  std::vector<Ids> out;
  for (simdjson::dom::element row : rows) {
    Ids ids;
    for (simdjson::dom::element id : row.get_array()) ids.push_back(static_cast<std::uint32_t>(std::uint64_t(id)));
    out.push_back(std::move(ids));
  }
  return out;
}

// Returns tests/arm/parity_ids.json, each case's tokenizer.json read from
// tests/data with its replacement made (the old text must occur once).
const ParityData& parity_data() {
  static const ParityData data = [] {
    ParityData d;
    simdjson::dom::parser parser;
    const std::string text = read_file(SNAPTOK_TEST_DATA_DIR "/../arm/parity_ids.json");
    simdjson::dom::element root = parser.parse(text);
    for (simdjson::dom::element t : root["texts"].get_array()) d.texts.emplace_back(std::string_view(t));
    for (simdjson::dom::element c : root["cases"].get_array()) {
      ParityCase pc;
      pc.name = std::string(std::string_view(c["name"]));
      pc.json = read_file(std::string(SNAPTOK_TEST_DATA_DIR "/") + std::string(std::string_view(c["file"])));
      simdjson::dom::element replace = c["replace"];
      if (!replace.is_null()) {
        const std::string old_text(std::string_view(replace.at(0)));
        const std::string new_text(std::string_view(replace.at(1)));
        const std::size_t at = pc.json.find(old_text);
        REQUIRE_MESSAGE(at != std::string::npos, pc.name << ": the text to replace is gone");
        REQUIRE(pc.json.find(old_text, at + 1) == std::string::npos);
        pc.json.replace(at, old_text.size(), new_text);
      }
      pc.ids = id_lists(c["ids"].get_array());
      pc.ids_special = id_lists(c["ids_with_special"].get_array());
      REQUIRE(pc.ids.size() == d.texts.size());
      REQUIRE(pc.ids_special.size() == d.texts.size());
      d.cases.push_back(std::move(pc));
    }
    return d;
  }();
  return data;
}

// Checks that `tok` gives the HF ids of every text, one at a time and as
// one batch on several threads.
void check_ids(const snaptok::Tokenizer& tok, const ParityCase& c, const std::vector<std::string>& texts) {
  for (std::size_t i = 0; i < texts.size(); ++i) {
    CAPTURE(i);
    CHECK(tok.encode(texts[i], false) == c.ids[i]);
    CHECK(tok.encode(texts[i], true) == c.ids_special[i]);
  }
  const std::vector<std::string_view> views(texts.begin(), texts.end());
  CHECK(tok.encode_batch(views, false, 4) == c.ids);
}

}  // namespace

TEST_CASE("parity: HF ids of the bundled tokenizers and split variants on this machine") {
  const ParityData& d = parity_data();
  REQUIRE(d.cases.size() >= 6);
  for (const ParityCase& c : d.cases) {
    CAPTURE(c.name);
    CAPTURE(snaptok::simd_target());
    check_ids(snaptok::Tokenizer::from_json(c.json), c, d.texts);
  }
}

TEST_CASE("parity: a .st file from another machine loads with the same ids and bytes") {
  const ParityData& d = parity_data();
  const char* dir = std::getenv("SNAPTOK_ST_FIXTURE_DIR");
  for (const ParityCase& c : d.cases) {
    CAPTURE(c.name);
    const std::string here = snaptok::Tokenizer::from_json(c.json).to_st_bytes();
    // Without a fixture, this machine's own file (the round trip alone).
    const std::string image =
        dir != nullptr && *dir != '\0' ? read_file(std::filesystem::path(dir) / (c.name + ".st")) : here;
    // Written on x86, read here: the format is little-endian on every machine,
    // and the writer's bytes are the same everywhere.
    CHECK(image.size() == here.size());
    CHECK(image == here);
    const snaptok::Tokenizer loaded =
        snaptok::Tokenizer::from_st_buffer(std::as_bytes(std::span(image.data(), image.size())));
    check_ids(loaded, c, d.texts);
  }
}

}  // namespace platform_parity_tests
