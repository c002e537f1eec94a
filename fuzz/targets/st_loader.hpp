// Fuzz target: the .st loader (Tokenizer::from_st_buffer). Each input is
// loaded twice: as given (which mostly exercises the header checks and the
// checksum), and with the header's checksum rewritten to match, so that
// mutations reach the section-table checks and every table's own checks
// behind it. A load must either throw snaptok::Error, or give a tokenizer
// that encodes, decodes and saves; never crash, hang or read out of bounds.
#pragma once

#include <snaptok/tokenizer.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

namespace snaptok_fuzz {

// Loads that succeeded and loads refused (the standalone driver prints them).
inline std::uint64_t st_loader_accepted = 0, st_loader_refused = 0;

namespace st_loader_detail {

inline void load_and_use(std::span<const std::byte> bytes) {
  try {
    const snaptok::Tokenizer tok = snaptok::Tokenizer::from_st_buffer(bytes);
    const std::vector<std::uint32_t> ids =
        tok.encode("Hello world! caf\xc3\xa9 \xf0\x9f\x98\x80 12345 <|endoftext|> [CLS] </s>");
    (void)tok.decode(ids);
    (void)tok.encode_full("a b", std::string_view("c d"), true);
    (void)tok.to_st_bytes();
    ++st_loader_accepted;
  } catch (const snaptok::Error&) {
    ++st_loader_refused;  // a clear refusal: the expected outcome for most inputs
  }
}

}  // namespace st_loader_detail

inline void st_loader(std::span<const std::uint8_t> data) {
  const auto bytes = std::as_bytes(data);
  st_loader_detail::load_and_use(bytes);
  if (data.size() >= sizeof(snaptok::st::Header)) {
    std::string fixed(reinterpret_cast<const char*>(data.data()), data.size());
    const std::uint64_t sum = snaptok::st::file_checksum(std::as_bytes(std::span(fixed)));
    std::memcpy(fixed.data() + offsetof(snaptok::st::Header, checksum), &sum, sizeof sum);
    st_loader_detail::load_and_use(std::as_bytes(std::span(fixed)));
  }
}

}  // namespace snaptok_fuzz
