// The definitions of snaptok::Tokenizer (tokenizer.hpp): each call forwards
// to the engine, snaptok::Pipeline. Included by tokenizer.hpp in header-only
// mode, and by the one translation unit that compiles the engine otherwise.
#pragma once

#include <algorithm>
#include <exception>
#include <new>
#include <type_traits>

#include "snaptok/pipeline.hpp"
#include "snaptok/tokenizer.hpp"

namespace snaptok {

namespace detail {

// Runs fn() and returns its result, or the message of what it threw.
template <class Fn>
auto guarded(Fn&& fn) noexcept -> Expected<decltype(fn())> {
  using Result = Expected<decltype(fn())>;
  try {
    if constexpr (std::is_void_v<decltype(fn())>) {
      fn();
      return Result();
    } else {
      return Result(fn());
    }
  } catch (const std::bad_alloc&) {
    return Result::failure("out of memory");
  } catch (const std::exception& e) {
    return Result::failure(e.what());
  } catch (...) {
    return Result::failure("unknown error");
  }
}

}  // namespace detail

SNAPTOK_API Tokenizer Tokenizer::from_file(const std::filesystem::path& path) {
  return Tokenizer(std::make_shared<Pipeline>(Pipeline::from_file(path)));
}
SNAPTOK_API Tokenizer Tokenizer::from_json(std::string_view json_text) {
  return Tokenizer(std::make_shared<Pipeline>(Pipeline::from_json(json_text)));
}
SNAPTOK_API Tokenizer Tokenizer::from_st_buffer(std::span<const std::byte> bytes) {
  return Tokenizer(std::make_shared<Pipeline>(Pipeline::from_st_buffer(bytes)));
}
SNAPTOK_API Tokenizer Tokenizer::from_file_cached(const std::filesystem::path& json_path,
                                                  const std::filesystem::path& st_path) {
  return Tokenizer(std::make_shared<Pipeline>(Pipeline::from_file_cached(json_path, st_path)));
}
SNAPTOK_API Tokenizer Tokenizer::from_byte_ranks(
    std::string_view pattern, std::span<const std::pair<std::string, std::uint32_t>> ranks) {
  return Tokenizer(std::make_shared<Pipeline>(Pipeline::from_byte_ranks(pattern, ranks)));
}
SNAPTOK_API Expected<Tokenizer> Tokenizer::try_from_file(const std::filesystem::path& path) noexcept {
  return detail::guarded([&] { return from_file(path); });
}
SNAPTOK_API Expected<Tokenizer> Tokenizer::try_from_json(std::string_view json_text) noexcept {
  return detail::guarded([&] { return from_json(json_text); });
}

SNAPTOK_API Tokenizer::Tokenizer(const Tokenizer& other)
    : impl_(std::make_shared<Pipeline>(*other.impl_)) {}
SNAPTOK_API Tokenizer& Tokenizer::operator=(const Tokenizer& other) {
  if (this != &other) impl_ = std::make_shared<Pipeline>(*other.impl_);
  return *this;
}

SNAPTOK_API std::vector<std::uint32_t> Tokenizer::encode(std::string_view text,
                                                         bool add_special_tokens) const {
  return impl_->encode(text, add_special_tokens);
}
SNAPTOK_API void Tokenizer::encode_into(std::string_view text, bool add_special_tokens,
                                        std::vector<std::uint32_t>& ids) const {
  impl_->encode_into(text, add_special_tokens, ids);
}
SNAPTOK_API std::size_t Tokenizer::encode_into(std::string_view text, bool add_special_tokens,
                                               std::span<std::uint32_t> out) const {
  thread_local std::vector<std::uint32_t> ids;  // keeps its capacity: no allocation when warm
  ids.clear();
  impl_->encode_into(text, add_special_tokens, ids);
  std::copy_n(ids.begin(), std::min(ids.size(), out.size()), out.begin());
  return ids.size();
}
SNAPTOK_API Expected<void> Tokenizer::try_encode_into(std::string_view text, bool add_special_tokens,
                                                      std::vector<std::uint32_t>& ids) const noexcept {
  return detail::guarded([&] { encode_into(text, add_special_tokens, ids); });
}
SNAPTOK_API Expected<std::size_t> Tokenizer::try_encode_into(std::string_view text, bool add_special_tokens,
                                                             std::span<std::uint32_t> out) const noexcept {
  return detail::guarded([&] { return encode_into(text, add_special_tokens, out); });
}

SNAPTOK_API Encoding Tokenizer::encode_full(std::string_view text, bool add_special_tokens) const {
  return impl_->encode_full(text, add_special_tokens);
}
SNAPTOK_API Encoding Tokenizer::encode_full(std::string_view text, std::optional<std::string_view> pair,
                                            bool add_special_tokens) const {
  return impl_->encode_full(text, pair, add_special_tokens);
}

SNAPTOK_API void Tokenizer::encode_batch_flat(std::span<const std::string_view> texts,
                                              bool add_special_tokens, unsigned num_threads,
                                              std::vector<std::uint32_t>& ids,
                                              std::vector<std::int64_t>& offsets) const {
  impl_->encode_batch_flat(texts, add_special_tokens, num_threads, ids, offsets);
}
SNAPTOK_API std::vector<std::vector<std::uint32_t>> Tokenizer::encode_batch(
    std::span<const std::string_view> texts, bool add_special_tokens, unsigned num_threads) const {
  return impl_->encode_batch(texts, add_special_tokens, num_threads);
}
SNAPTOK_API std::vector<Encoding> Tokenizer::encode_batch_full(std::span<const std::string_view> texts,
                                                               bool add_special_tokens,
                                                               unsigned num_threads) const {
  return impl_->encode_batch_full(texts, add_special_tokens, num_threads);
}

SNAPTOK_API std::string Tokenizer::decode(std::span<const std::uint32_t> ids,
                                          bool skip_special_tokens) const {
  return impl_->decode(ids, skip_special_tokens);
}
SNAPTOK_API Expected<std::string> Tokenizer::try_decode(std::span<const std::uint32_t> ids,
                                                        bool skip_special_tokens) const noexcept {
  return detail::guarded([&] { return decode(ids, skip_special_tokens); });
}

SNAPTOK_API std::optional<std::uint32_t> Tokenizer::token_to_id(std::string_view token) const {
  return impl_->token_to_id(token);
}
SNAPTOK_API std::optional<std::string> Tokenizer::id_to_token(std::uint32_t id) const {
  return impl_->id_to_token(id);
}
SNAPTOK_API std::size_t Tokenizer::vocab_size(bool with_added_tokens) const {
  return impl_->vocab_size(with_added_tokens);
}
SNAPTOK_API bool Tokenizer::can_split_documents(bool add_special_tokens) const {
  return impl_->can_split_documents(add_special_tokens);
}

SNAPTOK_API void Tokenizer::set_truncation(std::optional<TruncationParams> params) {
  impl_->set_truncation(std::move(params));
}
SNAPTOK_API std::optional<TruncationParams> Tokenizer::truncation() const { return impl_->truncation(); }
SNAPTOK_API void Tokenizer::set_padding(std::optional<PaddingParams> params) {
  impl_->set_padding(std::move(params));
}
SNAPTOK_API std::optional<PaddingParams> Tokenizer::padding() const { return impl_->padding(); }
SNAPTOK_API void Tokenizer::set_encode_special_tokens(bool value) { impl_->set_encode_special_tokens(value); }
SNAPTOK_API std::size_t Tokenizer::add_tokens(std::span<const AddedToken> tokens) {
  return impl_->add_tokens(tokens);
}
SNAPTOK_API bool Tokenizer::encode_special_tokens() const { return impl_->encode_special_tokens(); }
SNAPTOK_API void Tokenizer::set_cache_budget(std::size_t bytes) { impl_->set_cache_budget(bytes); }
SNAPTOK_API CacheStats Tokenizer::cache_stats() const {
  const auto s = impl_->cache_stats();
  return {s.hits, s.misses, s.bytes_used, s.bytes_total};
}

SNAPTOK_API std::string Tokenizer::to_st_bytes() const { return impl_->to_st_bytes(); }
SNAPTOK_API void Tokenizer::save_st(const std::filesystem::path& path) const { impl_->save_st(path); }

}  // namespace snaptok
