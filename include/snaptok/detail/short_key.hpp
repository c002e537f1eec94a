// ShortKey: a piece of 1..15 bytes packed with its length into 128 bits,
// the key of the tables that answer a short piece from one cache line (the
// workers' piece caches, BpeModel's whole-token map).
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "snaptok/detail/inline.hpp"

namespace snaptok::detail {

/// What a cached key names: a whole pre-tokenized piece, or a chunk of a
/// long piece that a model merges apart from the rest (BpeModel::merge_raw).
/// The same bytes may have other ids in each: a model that ignores merges
/// gives a whole piece that is a token as that token, a chunk as the merges
/// build it.
enum class KeySpace : std::uint8_t { kPiece = 0, kChunk = 1 };

/// A short piece (1..15 bytes) as a 128-bit key: the bytes, zero padded, with
/// the length in the top byte of `hi` (and the key space in its bit 6).
struct ShortKey {
  static constexpr std::size_t kMaxBytes = 15;

  std::uint64_t lo;
  std::uint64_t hi;

  /// Returns the key of p[0..n), 1 <= n <= 15. Reads p[0..16) when
  /// `can_overread` (the caller knows 16 bytes are readable), else exactly n.
  SNAPTOK_ALWAYS_INLINE static ShortKey of(const char* p, std::size_t n, bool can_overread) noexcept {
    ShortKey k{0, 0};
    if (can_overread && std::endian::native == std::endian::little) {
      // Byte masks of the first n of 16 bytes (little-endian words).
      static constexpr auto kMasks = [] {
        std::array<std::array<std::uint64_t, 2>, 16> m{};
        for (std::size_t len = 0; len < 16; ++len) {
          m[len][0] = len >= 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * len)) - 1;
          m[len][1] = len <= 8 ? 0 : (std::uint64_t{1} << (8 * (len - 8))) - 1;
        }
        return m;
      }();
      std::memcpy(&k.lo, p, 8);
      std::memcpy(&k.hi, p + 8, 8);
      k.lo &= kMasks[n][0];
      k.hi &= kMasks[n][1];
    } else if (std::endian::native == std::endian::little) {
      // Exactly n bytes, in two loads per word that may overlap (a byte read
      // twice lands on itself), with no trip through memory.
      auto load = [](const char* q, auto word) {
        decltype(word) x;
        std::memcpy(&x, q, sizeof x);
        return static_cast<std::uint64_t>(x);
      };
      if (n >= 8) {
        k.lo = load(p, std::uint64_t{});
        if (n > 8) k.hi = load(p + n - 8, std::uint64_t{}) >> (8 * (16 - n));
      } else if (n >= 4) {
        k.lo = load(p, std::uint32_t{}) | load(p + n - 4, std::uint32_t{}) << (8 * (n - 4));
      } else {
        k.lo = load(p, std::uint8_t{}) | load(p + n / 2, std::uint8_t{}) << (8 * (n / 2)) |
               load(p + n - 1, std::uint8_t{}) << (8 * (n - 1));
      }
    } else {
      std::memcpy(&k.lo, p, n < 8 ? n : 8);
      if (n > 8) std::memcpy(&k.hi, p + 8, n - 8);
    }
    k.hi |= std::uint64_t(n) << 56;
    return k;
  }
  /// Returns this key in key space `space`.
  ShortKey in(KeySpace space) const noexcept {
    return {lo, hi | std::uint64_t(space) << 62};
  }
  /// A multiplicative hash whose high bits (the table index) depend on
  /// every byte: the high half, rotated so that the length lands on the
  /// low byte, folded into the low half, then one product (its high bits
  /// depend on every bit below them; pieces often share their first bytes:
  /// "▁The", "▁This", "▁That").
  SNAPTOK_ALWAYS_INLINE std::uint64_t hash() const noexcept {
    return (lo ^ std::rotl(hi, kHashRotate)) * kHashMultiplier;
  }
  /// hash()'s constants (simd::block_piece_keys computes it in vectors).
  static constexpr int kHashRotate = 8;
  static constexpr std::uint64_t kHashMultiplier = 0x9E3779B97F4A7C15ull;
};

}  // namespace snaptok::detail
