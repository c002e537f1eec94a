// A byte-level BPE's tokens by their raw bytes (each byte-level char mapped
// back to its byte), and the cut of a long piece into chunks that merge
// apart. Every symbol the merges build is a token spelling the bytes it
// covers, so where no token occurs across a position of a piece, no merge
// ever reaches across it: the two sides merge apart, each in the order it
// would in the whole (no pair across the cut has a merge, so none enters
// the heap). CJK text under a mostly English vocabulary falls into chunks
// of a char or two, where the heap paid several lookups per byte.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "snaptok/detail/byte_level_table.hpp"
#include "snaptok/detail/double_array.hpp"
#include "snaptok/detail/hash.hpp"
#include "snaptok/st/image.hpp"

namespace snaptok::bpe {

/// What raw_bytes returns for a token that is not byte-level text.
inline constexpr std::size_t kNotRaw = ~std::size_t{0};

/// Writes the bytes of `token`'s byte-level chars to out[0..room) and
/// returns their count; returns kNotRaw when a char is outside the
/// byte-level alphabet (all of whose chars are below U+0800: one or two
/// UTF-8 bytes) or the bytes do not fit.
inline std::size_t raw_bytes(std::string_view token, char* out, std::size_t room) noexcept {
  const auto& table = detail::byte_level_table();
  const auto* s = reinterpret_cast<const unsigned char*>(token.data());
  const std::size_t n = token.size();
  std::size_t written = 0;
  for (std::size_t i = 0; i < n; ++written) {
    char32_t cp = s[i++];
    if (cp >= 0x80) {
      if ((cp & 0xE0) != 0xC0 || i == n || (s[i] & 0xC0) != 0x80) return kNotRaw;
      cp = (cp & 0x1F) << 6 | (s[i++] & 0x3F);
      if (cp < 0x80) return kNotRaw;  // overlong
    }
    const int byte = table.byte_of(cp);
    if (byte < 0 || written == room) return kNotRaw;
    out[written] = static_cast<char>(byte);
  }
  return written;
}

/// Appends the bytes of `token`'s byte-level chars to `out` and returns
/// true; returns false, appending nothing, when a char is outside the
/// byte-level alphabet.
inline bool append_raw_bytes(std::string_view token, std::string& out) {
  const std::size_t mark = out.size();
  out.resize(mark + token.size());  // a char is at least one byte
  const std::size_t n = raw_bytes(token, out.data() + mark, token.size());
  out.resize(n == kNotRaw ? mark : mark + n);
  return n != kNotRaw;
}

/// Every vocabulary token's raw bytes in a trie (a token spelled with chars
/// outside the byte-level alphabet is never built by merges, and is left
/// out), and which byte pairs tokens start with. Built once, by whichever
/// thread needs it first (build), or viewed in a .st image (view); ready()
/// says when either is done.
struct RawTokens {
  std::once_flag built;
  std::atomic<bool> done{false};  // set once trie and pairs are in place
  detail::DoubleArrayTrie trie;   // raw bytes -> token id
  std::array<std::uint64_t, 1024> pairs{};  // bit b0 << 8 | b1: a token starts with b0 b1
  // Time long pieces took on the heap while no trie existed (BpeModel's
  // rent-or-buy rule for building it).
  std::atomic<std::uint64_t> heap_nanos{0};

  bool ready() const noexcept { return done.load(std::memory_order_acquire); }
  bool starts_pair(unsigned char b0, unsigned char b1) const noexcept {
    const unsigned bit = unsigned{b0} << 8 | b1;
    return (pairs[bit >> 6] >> (bit & 63)) & 1;
  }

  /// Builds the trie and pairs from the tokens for_each_token(fn) lists as
  /// fn(token, id), unless they are in place already.
  template <class ForEachToken>
  void build(ForEachToken&& for_each_token) {
    std::call_once(built, [&] {
      std::string bytes;
      std::vector<std::pair<std::size_t, std::size_t>> spans;  // [start, end) in bytes
      std::vector<std::uint32_t> ids;
      for_each_token([&](std::string_view token, std::uint32_t id) {
        const std::size_t start = bytes.size();
        if (!append_raw_bytes(token, bytes)) return;
        spans.emplace_back(start, bytes.size());
        ids.push_back(id);
        if (bytes.size() - start >= 2) add_pair(bytes[start], bytes[start + 1]);
      });
      std::vector<std::pair<std::string_view, std::uint32_t>> keys;
      keys.reserve(spans.size());
      for (std::size_t k = 0; k < spans.size(); ++k) {
        const auto [start, end] = spans[k];
        keys.emplace_back(std::string_view(bytes).substr(start, end - start), ids[k]);
      }
      trie.build(std::move(keys));
      done.store(true, std::memory_order_release);
    });
  }

  /// Views the trie and pairs of a .st image, when it holds them, after
  /// DoubleArrayTrie::view's checks (in bounds, ids below `id_bound`).
  void view(const st::Image& image, std::uint32_t id_bound) {
    const bool has_cells = image.has(st::SectionType::bpe_raw_trie_cells);
    const bool has_values = image.has(st::SectionType::bpe_raw_trie_values);
    const bool has_pairs = image.has(st::SectionType::bpe_raw_pairs);
    if (!has_cells && !has_values && !has_pairs) return;
    if (!has_cells || !has_values || !has_pairs) image.fail("bpe.raw_*: the raw-token trie and pairs must come together");
    detail::DoubleArrayTrie viewed = detail::DoubleArrayTrie::view(
        image.section<detail::DoubleArrayTrie::Cell>(st::SectionType::bpe_raw_trie_cells),
        image.section<std::uint32_t>(st::SectionType::bpe_raw_trie_values), image, "bpe.raw_trie", id_bound);
    const detail::Flat<std::uint64_t> bits = image.section<std::uint64_t>(st::SectionType::bpe_raw_pairs);
    if (bits.size() != pairs.size()) {
      image.fail("bpe.raw_pairs: " + std::to_string(bits.size()) + " words, expected " + std::to_string(pairs.size()));
    }
    std::call_once(built, [&] {
      trie = std::move(viewed);
      std::copy(bits.data(), bits.data() + bits.size(), pairs.begin());
      done.store(true, std::memory_order_release);
    });
  }

  /// Cuts the raw piece `raw` where no token occurs across (see the top of
  /// this file) and calls chunk(from, to) for each chunk [from, to), in
  /// order. Requires ready().
  template <class Chunk>
  void cut_in_chunks(std::string_view raw, Chunk&& chunk) const {
    const auto* b = reinterpret_cast<const unsigned char*>(raw.data());
    const std::size_t n = raw.size();
    std::size_t start = 0;  // of the chunk in progress
    std::size_t reach = 0;  // the furthest end of a token occurring at or after `start`
    for (std::size_t i = 0; i < n; ++i) {
      if (reach == i && i > start) {  // every token before i ends by i
        chunk(start, i);
        start = i;
      }
      // Every byte is a token; a longer one at i starts with b[i] b[i + 1]
      // (two bytes in three start none in CJK text: no walk there).
      reach = std::max(reach, i + 1);
      if (i + 1 == n || !starts_pair(b[i], b[i + 1])) continue;
      std::int32_t node = 0;
      for (std::size_t k = i; k < n && (node = trie.child(node, b[k])) >= 0; ++k) {
        if (trie.ends_key(node)) reach = std::max(reach, k + 1);
      }
    }
    chunk(start, n);
  }

 private:
  void add_pair(char b0, char b1) noexcept {
    const unsigned bit = unsigned{static_cast<unsigned char>(b0)} << 8 | static_cast<unsigned char>(b1);
    pairs[bit >> 6] |= std::uint64_t{1} << (bit & 63);
  }
};

}  // namespace snaptok::bpe
