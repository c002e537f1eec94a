// Precompiled normalizer: SentencePiece's compiled normalization rules
// (`precompiled_charsmap`), applied as HF tokenizers 0.23.3 (spm_precompiled
// 0.1.4) applies them.
//
// The charsmap is base64 of [u32 trie size in bytes][Darts double-array trie:
// that many bytes as little-endian u32 units][replacement strings, each ended
// by a NUL]. A trie leaf's value is the byte offset of its replacement.
//
// HF walks the text by extended grapheme clusters. A cluster shorter than 6
// bytes is looked up whole; otherwise, or when that finds nothing, each of its
// chars is looked up alone. A lookup returns the replacement of the SHORTEST
// prefix of the key that is in the trie (so a cluster whose first char has a
// rule is replaced by that char's replacement alone); no match keeps the text.
#pragma once

#include <simdjson.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "snaptok/detail/base64.hpp"
#include "snaptok/detail/grapheme.hpp"
#include "snaptok/detail/utf8.hpp"
#include "snaptok/normalizers/normalizer.hpp"

namespace snaptok {

class PrecompiledNormalizer final : public Normalizer {
 public:
  /// Loads `{"type": "Precompiled", "precompiled_charsmap": "<base64>"}`.
  /// Throws an Error naming `<path>.precompiled_charsmap` when the blob is
  /// not base64, is truncated, or holds a trie that a lookup could read out
  /// of bounds (where HF would panic).
  explicit PrecompiledNormalizer(const detail::Json& json) {
    const detail::Json blob_json = json.at("precompiled_charsmap");
    std::string blob, error;
    if (!detail::base64_decode(blob_json.str(), blob, error)) {
      blob_json.fail(error);
    }
    load(blob, blob_json);
  }

  void normalize(NormalizedString& ns) const override {
    const std::string& s = ns.get();
    if (s.empty()) return;
    std::vector<CharChange> changes;
    bool modified = false;
    std::size_t done = 0;  // bytes of s already described in `changes`
    // Brings `changes` up to byte `upto` with unchanged chars: HF records
    // every char, we start recording at the first rewrite.
    auto catch_up = [&](std::size_t upto) {
      if (!modified) {
        changes.reserve(s.size() + 8);
        modified = true;
      }
      while (done < upto) changes.push_back({detail::next_cp(s, done), 0});
    };
    detail::GraphemeWalker walker(s);
    std::size_t start = 0;
    for (std::size_t end; (end = walker.next()) != std::string_view::npos;
         start = end) {
      const std::string_view cluster(s.data() + start, end - start);
      if (end - start == 1 &&
          !first_byte_edge_[static_cast<unsigned char>(s[start])]) {
        // The common case: a one-byte cluster the trie has no rule for.
        if (modified) {
          changes.push_back({static_cast<unsigned char>(s[start]), 0});
          done = end;
        }
        continue;
      }
      if (cluster.size() < 6) {
        if (auto norm = transform(cluster)) {
          catch_up(start);
          replace(changes, cluster, *norm);
          done = end;
          continue;
        }
      }
      for (std::size_t i = start; i < end;) {
        const std::size_t char_start = i;
        const char32_t cp = detail::next_cp(s, i);
        const std::string_view part(s.data() + char_start, i - char_start);
        if (auto norm = transform(part)) {
          catch_up(char_start);
          replace(changes, part, *norm);
          done = i;
        } else if (modified) {
          changes.push_back({cp, 0});
          done = i;
        }
      }
    }
    if (modified) {
      catch_up(s.size());
      ns.transform(changes, 0);
    }
  }

  // An ASCII char is its own cluster, except CR LF: a char without a rule
  // stays, one mapped to one ASCII char takes the map, any other rule makes
  // it unsafe, and so does a rule for the CR LF cluster for CR.
  std::optional<AsciiProfile> ascii_profile() const override {
    AsciiProfile p = AsciiProfile::identity();
    for (unsigned b = 1; b < 128; ++b) {
      const char c = static_cast<char>(b);
      const std::optional<std::string_view> r = transform(std::string_view(&c, 1));
      if (!r) continue;
      if (r->size() == 1 && static_cast<unsigned char>((*r)[0]) < 128) {
        p.map[b] = static_cast<std::uint8_t>((*r)[0]);
      } else {
        p.safe[b] = false;
      }
    }
    p.safe[0] = false;  // a NUL ends a lookup key
    // CR LF is one cluster: with CR unsafe, text of safe bytes has none.
    if (transform("\r\n")) p.safe['\r'] = false;
    return p;
  }

  // Returns the replacement for the shortest prefix of `key` that the trie
  // holds, or nullopt (spm_precompiled's transform). A NUL byte ends the key.
  std::optional<std::string_view> transform(std::string_view key) const {
    if (key.empty() || !first_byte_edge_[static_cast<unsigned char>(key[0])]) {
      return std::nullopt;
    }
    std::size_t node = offset(units_[0]);
    for (const char ch : key) {
      const auto c = static_cast<unsigned char>(ch);
      if (c == 0) break;
      node ^= c;
      // Validation at load proves these bounds for every key of up to 5
      // bytes (all HF looks up); longer keys are checked here.
      if (node >= units_.size()) return std::nullopt;
      const std::uint32_t unit = units_[node];
      if (label(unit) != c) return std::nullopt;
      node ^= offset(unit);
      if (has_leaf(unit)) {
        if (node >= units_.size()) return std::nullopt;
        return replacement(value(units_[node]));
      }
    }
    return std::nullopt;
  }

 private:
  // The longest key HF ever looks up: a cluster of fewer than 6 bytes.
  static constexpr int kMaxKeyBytes = 5;

  static bool has_leaf(std::uint32_t unit) noexcept {
    return ((unit >> 8) & 1) == 1;
  }
  static std::uint32_t value(std::uint32_t unit) noexcept {
    return unit & ((1u << 31) - 1);
  }
  static std::uint32_t label(std::uint32_t unit) noexcept {
    return unit & ((1u << 31) | 0xFFu);
  }
  static std::size_t offset(std::uint32_t unit) noexcept {
    return static_cast<std::size_t>(unit >> 10) << ((unit & (1u << 9)) >> 6);
  }

  // Returns the replacement string starting at byte `at` (up to its NUL).
  std::string_view replacement(std::uint32_t at) const noexcept {
    const std::string_view all(normalized_);
    if (at > all.size()) return {};  // validated away for HF's lookups
    const std::size_t nul = all.find('\0', at);
    return all.substr(at, (nul == std::string_view::npos ? all.size() : nul) - at);
  }

  // HF's replace(): appends `new_part`'s chars standing for `old_part`.
  static void replace(std::vector<CharChange>& changes,
                      std::string_view old_part, std::string_view new_part) {
    const auto old_count = static_cast<long>(detail::count_cps(old_part));
    const auto new_count = static_cast<long>(detail::count_cps(new_part));
    const long diff = new_count - old_count;
    for (std::size_t i = 0; i < new_part.size();) {
      changes.push_back({detail::next_cp(new_part, i), 0});
    }
    if (diff > 0) {
      for (long k = 0; k < diff; ++k) {
        changes[changes.size() - 1 - static_cast<std::size_t>(k)].change = 1;
      }
    } else if (diff < 0 && !changes.empty()) {
      changes.back().change += static_cast<int>(diff);
    }
  }

  void load(const std::string& blob, const detail::Json& where) {
    if (blob.size() < 4) {
      where.fail("truncated charsmap: " + std::to_string(blob.size()) +
                 " bytes, no trie size");
    }
    std::uint32_t trie_bytes = 0;
    for (int i = 3; i >= 0; --i) {
      trie_bytes = (trie_bytes << 8) | static_cast<unsigned char>(blob[i]);
    }
    const std::size_t n_units = trie_bytes / 4;
    if (n_units > (blob.size() - 4) / 4) {
      where.fail("truncated charsmap: trie of " + std::to_string(trie_bytes) +
                 " bytes but only " + std::to_string(blob.size() - 4) +
                 " bytes follow");
    }
    units_.resize(n_units);
    for (std::size_t i = 0; i < n_units; ++i) {
      const auto* p = reinterpret_cast<const unsigned char*>(blob.data()) +
                      4 + 4 * i;
      units_[i] = std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 |
                  std::uint32_t{p[2]} << 16 | std::uint32_t{p[3]} << 24;
    }
    normalized_.assign(blob, 4 + 4 * n_units, std::string::npos);
    if (simdjson::validate_utf8(normalized_.data(), normalized_.size()) ==
        false) {
      where.fail("charsmap replacement strings are not valid UTF-8");
    }
    if (units_.empty()) where.fail("charsmap trie is empty");
    validate(where);
    const std::size_t root = offset(units_[0]);
    for (std::size_t c = 1; c <= 0xFF; ++c) {
      first_byte_edge_[c] = label(units_[root ^ c]) == c;
    }
  }

  // Checks that no lookup of a key of up to kMaxKeyBytes bytes reads outside
  // the trie, and that every replacement it could return starts on a char
  // boundary inside the strings, i.e. that HF would not panic on any input.
  void validate(const detail::Json& where) const {
    struct Item {
      std::size_t node;
      int depth;
      bool found;  // a shorter prefix already matched: later leaves unused
    };
    // seen_depth[node * 2 + found]: the smallest depth that state was
    // explored at; a shallower visit with the same `found` covers a deeper one.
    std::vector<std::uint8_t> seen_depth(units_.size() * 2, 0xFF);
    std::vector<Item> stack;
    auto push = [&](std::size_t node, int depth, bool found) {
      if ((node | 0xFF) >= units_.size()) {
        where.fail("charsmap trie offset " + std::to_string(node) +
                   " is outside the trie of " + std::to_string(units_.size()) +
                   " units");
      }
      std::uint8_t& d = seen_depth[node * 2 + (found ? 1 : 0)];
      if (d <= depth) return;
      d = static_cast<std::uint8_t>(depth);
      stack.push_back({node, depth, found});
    };
    push(offset(units_[0]), 0, false);
    while (!stack.empty()) {
      const Item it = stack.back();
      stack.pop_back();
      for (std::size_t c = 1; c <= 0xFF; ++c) {
        const std::uint32_t unit = units_[it.node ^ c];
        if (label(unit) != c) continue;
        const std::size_t child = (it.node ^ c) ^ offset(unit);
        bool found = it.found;
        if (has_leaf(unit)) {
          if (child >= units_.size()) {
            where.fail("charsmap trie leaf " + std::to_string(child) +
                       " is outside the trie of " +
                       std::to_string(units_.size()) + " units");
          }
          if (!found) {
            const std::uint32_t at = value(units_[child]);
            if (at > normalized_.size() ||
                (at < normalized_.size() &&
                 (static_cast<unsigned char>(normalized_[at]) & 0xC0) ==
                     0x80)) {
              where.fail("charsmap replacement offset " + std::to_string(at) +
                         " is not a char boundary inside the " +
                         std::to_string(normalized_.size()) +
                         " bytes of replacement strings");
            }
          }
          found = true;
        }
        if (it.depth + 1 < kMaxKeyBytes) push(child, it.depth + 1, found);
      }
    }
  }

  std::vector<std::uint32_t> units_;
  std::string normalized_;
  // first_byte_edge_[c]: the root has a child for byte c (never for NUL).
  std::array<bool, 256> first_byte_edge_{};
};

}  // namespace snaptok
