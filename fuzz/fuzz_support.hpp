// What the fuzz targets share: a failure that stops the run loudly, a reader
// that takes option bytes off the front of an input, the tokenizers they
// encode with, and the check that every encode path gives the same ids.
#pragma once

#include <snaptok/document_encoder.hpp>
#include <snaptok/tokenizer.hpp>

#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#ifndef SNAPTOK_FUZZ_ROOT
#error "build with -DSNAPTOK_FUZZ_ROOT='\"/path/to/checkout\"' (fuzz/run.sh does)"
#endif

namespace snaptok_fuzz {

// Prints what failed (and the text, escaped) and aborts: libFuzzer keeps the
// input as a crash file.
[[noreturn]] inline void fail(std::string_view target, std::string_view what, std::string_view text = {}) {
  std::fprintf(stderr, "fuzz %.*s: %.*s\n  text (%zu bytes): \"", static_cast<int>(target.size()),
               target.data(), static_cast<int>(what.size()), what.data(), text.size());
  for (const unsigned char c : text.substr(0, 400)) {
    if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
      std::fputc(c, stderr);
    } else {
      std::fprintf(stderr, "\\x%02x", c);
    }
  }
  std::fprintf(stderr, "\"\n");
  std::abort();
}

// Takes option bytes off the front of an input; the rest is the payload
// (text), so that libFuzzer's dictionary and comparison hints land in it.
class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> data) : data_(data) {}

  // Returns the next byte, or 0 once the input is used up.
  std::uint8_t byte() {
    if (data_.empty()) return 0;
    const std::uint8_t b = data_.front();
    data_ = data_.subspan(1);
    return b;
  }
  // Returns the next `n` bytes (fewer at the end).
  std::span<const std::uint8_t> span(std::size_t n) {
    const auto s = data_.first(std::min(n, data_.size()));
    data_ = data_.subspan(s.size());
    return s;
  }
  // The same as text.
  std::string_view bytes(std::size_t n) {
    const auto s = span(n);
    return {reinterpret_cast<const char*>(s.data()), s.size()};
  }
  // Returns everything not taken yet.
  std::string_view rest() { return bytes(data_.size()); }

 private:
  std::span<const std::uint8_t> data_;
};

inline bool valid_utf8(std::string_view s) { return simdjson::validate_utf8(s.data(), s.size()); }

struct NamedTokenizer {
  std::string name;
  snaptok::Tokenizer tokenizer;
};

// Returns the tokenizers the encode and decode targets run: the fuzz seeds
// (fuzz/seeds/*.json: every model family and encode path) and the bundled
// GPT-2 and T5-style Unigram files, loaded once.
inline const std::vector<NamedTokenizer>& tokenizers() {
  static const std::vector<NamedTokenizer> all = [] {
    const std::filesystem::path root = SNAPTOK_FUZZ_ROOT;
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(root / "fuzz" / "seeds")) {
      if (e.path().extension() == ".json") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    files.push_back(root / "tests" / "data" / "gpt2" / "tokenizer.json");
    files.push_back(root / "tests" / "data" / "spm-botchan-unigram-1000-t5" / "tokenizer.json");
    std::vector<NamedTokenizer> out;
    for (const auto& f : files) {
      out.push_back({f.parent_path().filename().string() + "/" + f.filename().string(),
                     snaptok::Tokenizer::from_file(f)});
    }
    return out;
  }();
  return all;
}

// Returns the tokenizer the input's next byte picks.
inline const NamedTokenizer& pick_tokenizer(Reader& in) {
  const auto& all = tokenizers();
  return all[in.byte() % all.size()];
}

// The ids of encode (the fused path where the tokenizer has one) or
// encode_full (the general stages), or nullopt when it refuses the text
// with snaptok::Error (invalid UTF-8).
template <class Encode>
std::optional<std::vector<std::uint32_t>> ids_or_refusal(Encode&& encode) {
  try {
    return encode();
  } catch (const snaptok::Error&) {
    return std::nullopt;
  }
}

// Checks that encode, encode_full and a DocumentEncoder fed `text` in
// pieces (sizes from `piece_sizes`, cycled; parts of `part_bytes`) give the
// same ids, or all refuse the text.
inline void check_encode_paths(std::string_view target, const snaptok::Tokenizer& tok, std::string_view text,
                               bool add_special_tokens, std::size_t part_bytes,
                               std::span<const std::uint8_t> piece_sizes) {
  const auto fused = ids_or_refusal([&] { return tok.encode(text, add_special_tokens); });
  const auto general = ids_or_refusal([&] { return tok.encode_full(text, add_special_tokens).ids; });
  if (fused.has_value() != general.has_value()) {
    fail(target, fused ? "encode_full refused a text encode took" : "encode refused a text encode_full took", text);
  }
  if (!fused) return;
  if (*fused != *general) fail(target, "encode (fused path) and encode_full (general stages) differ", text);

  snaptok::DocumentEncoder doc(tok, add_special_tokens, 1, part_bytes);
  std::vector<std::uint32_t> streamed;
  std::size_t at = 0;
  for (std::size_t k = 0; at < text.size(); ++k) {
    const std::size_t n = piece_sizes.empty() ? text.size() : 1 + piece_sizes[k % piece_sizes.size()];
    doc.feed(text.substr(at, n), streamed);
    at += std::min(n, text.size() - at);
  }
  doc.finish(streamed);
  if (streamed != *fused) fail(target, "the document encoder, fed in pieces, differs from encode", text);
}

}  // namespace snaptok_fuzz
