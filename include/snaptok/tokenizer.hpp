// snaptok public C++ API: snaptok::Tokenizer.
//
//   #include <snaptok/tokenizer.hpp>
//   auto tok = snaptok::Tokenizer::from_file("tokenizer.json");   // or a .st file
//   std::vector<uint32_t> ids = tok.encode("Hello world");        // {15496, 995}
//   std::string text = tok.decode(ids);                           // "Hello world"
//   snaptok::Encoding enc = tok.encode_full("Hello world");       // ids, tokens, offsets, ...
//
// Output is bit-identical to Hugging Face `tokenizers` for the same
// tokenizer.json. Every error is a snaptok::Error naming what failed and
// where; each throwing call that a server needs has a try_ twin that returns
// snaptok::Expected instead (no exception leaves it).
//
// How the engine gets compiled (the declarations below are the same in both):
// - Header-only (the default): this header includes the whole engine and
//   every call is inline. Nothing to link but the engine's dependencies
//   (CMake: snaptok::header_only).
// - Compiled: with SNAPTOK_COMPILED_LIBRARY defined, this header declares
//   only (a light include: the standard library and a few small headers),
//   and one translation unit of the program compiles the engine:
//   CMake's snaptok::snaptok builds it as a static library, or any one .cpp
//   does `#define SNAPTOK_IMPLEMENTATION` before including this header.
//
// Thread safety: a Tokenizer may be shared by any number of threads. Every
// const call may run concurrently with every other call, the setters
// included: a setter (set_truncation, set_padding,
// set_encode_special_tokens, set_cache_budget, add_tokens) publishes a new
// settings snapshot atomically, and a call that already started finishes with the
// snapshot it began with, never a half-changed one. Copies share the
// immutable tables and have their own settings.
//
// Allocation: encode_into() into a caller's vector (or span) and
// encode_batch_flat() into caller vectors allocate nothing once the
// buffers, this thread's workspace and its piece cache are warm (the first
// calls on a thread grow them; the piece cache stays within the budget of
// set_cache_budget). encode(), encode_full(), encode_batch*() and decode()
// return new containers and so allocate. Loading allocates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "snaptok/added_token.hpp"
#include "snaptok/decode_stream.hpp"
#include "snaptok/encoding.hpp"
#include "snaptok/error.hpp"
#include "snaptok/expected.hpp"
#include "snaptok/options.hpp"

#if defined(SNAPTOK_COMPILED_LIBRARY)
#define SNAPTOK_API
#else
#define SNAPTOK_API inline
#endif

namespace snaptok {

class Pipeline;  // the engine (snaptok/pipeline.hpp)

/// Hits, misses and bytes of a tokenizer's piece caches.
struct CacheStats {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::size_t bytes_used = 0;
  std::size_t bytes_budget = 0;
};

class Tokenizer {
 public:
  /// Loads a tokenizer.json or a .st file (told apart by the .st magic).
  SNAPTOK_API static Tokenizer from_file(const std::filesystem::path& path);
  /// Loads a tokenizer from the text of a tokenizer.json.
  SNAPTOK_API static Tokenizer from_json(std::string_view json_text);
  /// Loads a tokenizer from the bytes of a .st file (copied).
  SNAPTOK_API static Tokenizer from_st_buffer(std::span<const std::byte> bytes);
  /// Loads a tokenizer.json through a .st sidecar (default: the path plus
  /// ".st"), rebuilt whenever the JSON's checksum changes.
  SNAPTOK_API static Tokenizer from_file_cached(const std::filesystem::path& json_path,
                                                const std::filesystem::path& st_path = {});
  /// Builds tiktoken's encode_ordinary for a split pattern (read as
  /// Oniguruma reads it) and each token's bytes with its rank (= id); no
  /// special tokens (Pipeline::from_byte_ranks says which cl100k spelling
  /// to pass):
  ///   auto tok = snaptok::Tokenizer::from_byte_ranks(pattern, ranks);
  /// Throws when a byte has no rank, a token or rank is given twice, or the
  /// pattern does not compile.
  SNAPTOK_API static Tokenizer from_byte_ranks(
      std::string_view pattern, std::span<const std::pair<std::string, std::uint32_t>> ranks);
  SNAPTOK_API static Expected<Tokenizer> try_from_file(const std::filesystem::path& path) noexcept;
  SNAPTOK_API static Expected<Tokenizer> try_from_json(std::string_view json_text) noexcept;

  SNAPTOK_API Tokenizer(const Tokenizer& other);
  SNAPTOK_API Tokenizer& operator=(const Tokenizer& other);
  Tokenizer(Tokenizer&&) noexcept = default;
  Tokenizer& operator=(Tokenizer&&) noexcept = default;
  ~Tokenizer() = default;

  /// Returns the ids of `text` (UTF-8; invalid UTF-8 throws, naming the byte).
  SNAPTOK_API std::vector<std::uint32_t> encode(std::string_view text,
                                                bool add_special_tokens = true) const;
  /// Appends the ids of `text` to `ids` (no allocation once `ids` has room).
  SNAPTOK_API void encode_into(std::string_view text, bool add_special_tokens,
                               std::vector<std::uint32_t>& ids) const;
  /// Writes the ids of `text` to `out` and returns how many there are; when
  /// that is more than out.size(), only the first out.size() are written
  /// (call again with a larger span).
  SNAPTOK_API std::size_t encode_into(std::string_view text, bool add_special_tokens,
                                      std::span<std::uint32_t> out) const;
  SNAPTOK_API Expected<void> try_encode_into(std::string_view text, bool add_special_tokens,
                                             std::vector<std::uint32_t>& ids) const noexcept;
  SNAPTOK_API Expected<std::size_t> try_encode_into(std::string_view text, bool add_special_tokens,
                                                    std::span<std::uint32_t> out) const noexcept;

  /// Returns the full Encoding of `text` (and of `pair` when given): ids,
  /// type ids, tokens, char offsets, masks, word ids, overflowing.
  SNAPTOK_API Encoding encode_full(std::string_view text, bool add_special_tokens = true) const;
  SNAPTOK_API Encoding encode_full(std::string_view text, std::optional<std::string_view> pair,
                                   bool add_special_tokens) const;

  /// Encodes every text (in parallel when worth it; num_threads 0: every
  /// core) into one flat id array with row offsets: row i is
  /// ids[offsets[i] .. offsets[i+1]). Reuses the capacity of both vectors.
  SNAPTOK_API void encode_batch_flat(std::span<const std::string_view> texts, bool add_special_tokens,
                                     unsigned num_threads, std::vector<std::uint32_t>& ids,
                                     std::vector<std::int64_t>& offsets) const;
  /// Returns the ids of every text, in input order.
  SNAPTOK_API std::vector<std::vector<std::uint32_t>> encode_batch(
      std::span<const std::string_view> texts, bool add_special_tokens, unsigned num_threads = 0) const;
  /// Returns the full Encoding of every text, padded together when padding is set.
  SNAPTOK_API std::vector<Encoding> encode_batch_full(std::span<const std::string_view> texts,
                                                      bool add_special_tokens,
                                                      unsigned num_threads = 0) const;

  /// Returns the text of `ids` (HF Tokenizer::decode).
  SNAPTOK_API std::string decode(std::span<const std::uint32_t> ids, bool skip_special_tokens = true) const;
  SNAPTOK_API Expected<std::string> try_decode(std::span<const std::uint32_t> ids,
                                               bool skip_special_tokens = true) const noexcept;

  SNAPTOK_API std::optional<std::uint32_t> token_to_id(std::string_view token) const;
  SNAPTOK_API std::optional<std::string> id_to_token(std::uint32_t id) const;
  /// Vocabulary size, with or without the added tokens (HF get_vocab_size).
  SNAPTOK_API std::size_t vocab_size(bool with_added_tokens = true) const;
  /// True when one document can be cut across threads with the ids of the whole.
  SNAPTOK_API bool can_split_documents(bool add_special_tokens = true) const;

  /// Settings (see the thread-safety note at the top).
  SNAPTOK_API void set_truncation(std::optional<TruncationParams> params);
  SNAPTOK_API std::optional<TruncationParams> truncation() const;
  SNAPTOK_API void set_padding(std::optional<PaddingParams> params);
  SNAPTOK_API std::optional<PaddingParams> padding() const;
  /// When true, special tokens in the input are encoded as text (for untrusted input).
  SNAPTOK_API void set_encode_special_tokens(bool value);
  /// Adds tokens matched before the model runs (HF add_tokens; a token
  /// with .special = true as add_special_tokens adds it); returns how many
  /// were taken (not the empty ones, nor those already there unchanged).
  SNAPTOK_API std::size_t add_tokens(std::span<const AddedToken> tokens);
  SNAPTOK_API bool encode_special_tokens() const;
  /// The byte budget all threads' piece caches of this tokenizer share (0: none).
  SNAPTOK_API void set_cache_budget(std::size_t bytes);
  SNAPTOK_API CacheStats cache_stats() const;

  /// The .st image of this tokenizer with its current settings, and the
  /// same written atomically to a file.
  SNAPTOK_API std::string to_st_bytes() const;
  SNAPTOK_API void save_st(const std::filesystem::path& path) const;

  /// The engine behind this handle (include snaptok/pipeline.hpp to use it).
  const Pipeline& pipeline() const noexcept { return *impl_; }

 private:
  explicit Tokenizer(std::shared_ptr<Pipeline> impl) noexcept : impl_(std::move(impl)) {}
  std::shared_ptr<Pipeline> impl_;
};

}  // namespace snaptok

#if !defined(SNAPTOK_COMPILED_LIBRARY) || defined(SNAPTOK_IMPLEMENTATION)
#include "snaptok/tokenizer-inl.hpp"  // IWYU pragma: export
#endif
