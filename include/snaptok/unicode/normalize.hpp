// Unicode normalization (NFD, NFKD, NFC, NFKC) exactly as HF `tokenizers`
// does it through the unicode-normalization-alignments crate: its (Unicode 9)
// data, its canonical reordering and its recomposition state machine, and the
// (char, change) sequence it yields, which NormalizedString::transform turns
// into alignments. In that sequence the first char of a decomposition
// replaces the input char (change 0), the others are insertions (+1), and a
// composed char carries the sum of its parts' changes minus one per merge
// (so "e" + U+0301 composed is (U+00E9, -1)). Reordered marks keep their
// change values and move with them, as in the crate.
//
// Example:
//   std::vector<snaptok::CharChange> out;
//   snaptok::unicode::normalize_changes("e\u0301", snaptok::unicode::NormForm::nfc, out);
//   // out == {{U'\u00e9', -1}}
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "snaptok/detail/utf8.hpp"
#include "snaptok/normalized_string.hpp"
#include "snaptok/unicode/properties.hpp"

namespace snaptok::unicode {

enum class NormForm { nfd, nfkd, nfc, nfkc };

namespace detail {

inline constexpr char32_t kHangulSBase = 0xAC00, kHangulLBase = 0x1100,
                          kHangulVBase = 0x1161, kHangulTBase = 0x11A7;
inline constexpr char32_t kHangulLCount = 19, kHangulVCount = 21,
                          kHangulTCount = 28,
                          kHangulNCount = kHangulVCount * kHangulTCount,
                          kHangulSCount = kHangulLCount * kHangulNCount;

constexpr bool is_hangul_syllable(char32_t c) noexcept {
  return c >= kHangulSBase && c < kHangulSBase + kHangulSCount;
}

// Calls emit(cp) for each char of the full decomposition of `c` (itself when
// it has none), as the crate's decompose_canonical / decompose_compatible.
template <class Emit>
inline void decompose(char32_t c, bool compat, Emit&& emit) {
  if (c < 0x80) {
    emit(c);
    return;
  }
  const std::uint16_t f = flags(c);
  if (!(f & (compat ? tables::kCompatDecomp : tables::kCanonDecomp))) {
    emit(c);
    return;
  }
  if (is_hangul_syllable(c)) {
    const char32_t s = c - kHangulSBase;
    emit(kHangulLBase + s / kHangulNCount);
    emit(kHangulVBase + (s % kHangulNCount) / kHangulTCount);
    if (s % kHangulTCount) emit(kHangulTBase + s % kHangulTCount);
    return;
  }
  std::size_t b = 0, e = 0;
  constexpr std::size_t n_compat =
      sizeof(tables::kCompatKeys) / sizeof(std::uint32_t);
  constexpr std::size_t n_canon =
      sizeof(tables::kCanonKeys) / sizeof(std::uint32_t);
  std::size_t i = compat ? find_key(tables::kCompatKeys, n_compat, c) : n_compat;
  if (i < n_compat) {
    b = tables::kCompatStarts[i];
    e = tables::kCompatStarts[i + 1];
  } else {
    i = find_key(tables::kCanonKeys, n_canon, c);
    b = tables::kCanonStarts[i];
    e = tables::kCanonStarts[i + 1];
  }
  for (std::size_t k = b; k < e; ++k) emit(tables::kMapPool[k]);
}

// Returns the primary composite of (a, b), or 0 when there is none (the
// crate's compose: Hangul LV / LVT first, then the composition table).
inline char32_t compose(char32_t a, char32_t b) noexcept {
  if (!has(b, tables::kComposeSecond) || !has(a, tables::kComposeFirst)) {
    return 0;
  }
  if (a >= kHangulLBase && a < kHangulLBase + kHangulLCount &&
      b >= kHangulVBase && b < kHangulVBase + kHangulVCount) {
    return kHangulSBase + ((a - kHangulLBase) * kHangulNCount +
                           (b - kHangulVBase) * kHangulTCount);
  }
  if (is_hangul_syllable(a) && b > kHangulTBase &&
      b < kHangulTBase + kHangulTCount &&
      (a - kHangulSBase) % kHangulTCount == 0) {
    return a + (b - kHangulTBase);
  }
  const std::uint64_t key = (std::uint64_t{a} << 21) | b;
  const std::uint64_t* first = tables::kComposeKeys;
  const std::uint64_t* last =
      first + sizeof(tables::kComposeKeys) / sizeof(std::uint64_t);
  const std::uint64_t* it = std::lower_bound(first, last, key);
  return it != last && *it == key ? tables::kComposeValues[it - first] : 0;
}

struct Pending {
  char32_t cp;
  int change;
  std::uint8_t ccc;
};

// Stable-sorts each run of non-starters by combining class (the crate's
// canonical reordering).
inline void reorder(std::vector<Pending>& v) {
  std::size_t i = 0;
  const std::size_t n = v.size();
  while (i < n) {
    if (v[i].ccc == 0) {
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    while (j < n && v[j].ccc != 0) ++j;
    if (j - i > 1) {
      auto by_ccc = [](const Pending& x, const Pending& y) { return x.ccc < y.ccc; };
      if (j - i <= 16) {
        for (std::size_t a = i + 1; a < j; ++a) {  // insertion sort (stable)
          const Pending p = v[a];
          std::size_t b = a;
          while (b > i && v[b - 1].ccc > p.ccc) {
            v[b] = v[b - 1];
            --b;
          }
          v[b] = p;
        }
      } else {
        std::stable_sort(v.begin() + static_cast<std::ptrdiff_t>(i),
                         v.begin() + static_cast<std::ptrdiff_t>(j), by_ccc);
      }
    }
    i = j;
  }
}

// The crate's Recompositions iterator over an already decomposed and
// reordered sequence.
inline void recompose(const std::vector<Pending>& in, std::vector<CharChange>& out) {
  bool have_composee = false;
  CharChange composee{0, 0};
  int last_ccc = -1;  // -1: none
  std::vector<CharChange> buffer;
  for (const Pending& p : in) {
    const char32_t ch = p.cp;
    const int change = p.change;
    const int ch_class = p.ccc;
    if (!have_composee) {
      if (ch_class != 0) {
        out.push_back({ch, change});
        continue;
      }
      composee = {ch, change};
      have_composee = true;
      continue;
    }
    if (last_ccc < 0) {
      if (const char32_t r = compose(composee.cp, ch)) {
        composee = {r, composee.change + change - 1};
        continue;
      }
      if (ch_class == 0) {
        out.push_back(composee);
        composee = {ch, change};
        continue;
      }
      buffer.push_back({ch, change});
      last_ccc = ch_class;
      continue;
    }
    if (last_ccc >= ch_class) {  // blocked from the composee
      if (ch_class == 0) {
        out.push_back(composee);
        out.insert(out.end(), buffer.begin(), buffer.end());
        buffer.clear();
        composee = {ch, change};
        last_ccc = -1;
        continue;
      }
      buffer.push_back({ch, change});
      last_ccc = ch_class;
      continue;
    }
    if (const char32_t r = compose(composee.cp, ch)) {
      composee = {r, composee.change + change - 1};
      continue;
    }
    buffer.push_back({ch, change});
    last_ccc = ch_class;
  }
  if (have_composee) out.push_back(composee);
  out.insert(out.end(), buffer.begin(), buffer.end());
}

}  // namespace detail

namespace detail {

// Returns true when `form` surely leaves the char `c` as it is, whatever
// surrounds it. NFD/NFKD: it does not decompose and has combining class 0.
// NFC/NFKC: the form keeps it and nothing composes across it
// (tables::kNfcQuick / kNfkcQuick).
constexpr bool keeps_char(char32_t c, NormForm form) noexcept {
  switch (form) {
    case NormForm::nfd: return !has(c, tables::kCanonDecomp) && combining_class(c) == 0;
    case NormForm::nfkd: return !has(c, tables::kCompatDecomp) && combining_class(c) == 0;
    case NormForm::nfc: return has(c, tables::kNfcQuick);
    case NormForm::nfkc: return has(c, tables::kNfkcQuick);
  }
  return false;
}

// keeps_char(c, kForm) for every BMP char, one bit each (8 KiB, built on
// first use): CJK text then costs one load per char.
template <NormForm kForm>
const std::array<std::uint64_t, 1024>& bmp_kept_chars() noexcept {
  static const std::array<std::uint64_t, 1024> bits = [] {
    std::array<std::uint64_t, 1024> b{};
    for (char32_t c = 0; c < 0x10000; ++c) {
      if (keeps_char(c, kForm)) b[c >> 6] |= std::uint64_t{1} << (c & 63);
    }
    return b;
  }();
  return bits;
}

template <NormForm kForm>
bool keeps_every_char(std::string_view text) noexcept {
  const std::array<std::uint64_t, 1024>& bmp = bmp_kept_chars<kForm>();
  for (std::size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {  // ASCII runs, a word at a time
      i = snaptok::detail::ascii_run_end(text, i);
      continue;
    }
    const char32_t c = snaptok::detail::next_cp(text, i);
    const bool kept = c < 0x10000 ? (bmp[c >> 6] >> (c & 63)) & 1 : keeps_char(c, kForm);
    if (!kept) return false;
  }
  return true;
}

}  // namespace detail

/// Returns true when `form` surely leaves `text` as it is, every change 0 (a
/// fast pre-check; false means "maybe not"): it keeps every char
/// (detail::keeps_char), so already-composed text (é, 가, ...) passes NFC.
/// `text` is valid UTF-8.
inline bool is_normalized_quick(std::string_view text, NormForm form) noexcept {
  switch (form) {
    case NormForm::nfd: return detail::keeps_every_char<NormForm::nfd>(text);
    case NormForm::nfkd: return detail::keeps_every_char<NormForm::nfkd>(text);
    case NormForm::nfc: return detail::keeps_every_char<NormForm::nfc>(text);
    case NormForm::nfkc: return detail::keeps_every_char<NormForm::nfkc>(text);
  }
  return false;
}

/// Appends to `out` the (char, change) sequence that tokenizers' `form`
/// yields for the valid UTF-8 `text` (to feed NormalizedString::transform).
inline void normalize_changes(std::string_view text, NormForm form,
                              std::vector<CharChange>& out) {
  const bool compat = form == NormForm::nfkd || form == NormForm::nfkc;
  const bool composes = form == NormForm::nfc || form == NormForm::nfkc;
  std::vector<detail::Pending> dec;
  dec.reserve(text.size() + text.size() / 4);
  for (std::size_t i = 0; i < text.size();) {
    const char32_t c = snaptok::detail::next_cp(text, i);
    bool first = true;
    detail::decompose(c, compat, [&](char32_t d) {
      dec.push_back({d, first ? 0 : 1, combining_class(d)});
      first = false;
    });
  }
  detail::reorder(dec);
  if (composes) {
    detail::recompose(dec, out);
  } else {
    out.reserve(out.size() + dec.size());
    for (const auto& p : dec) out.push_back({p.cp, p.change});
  }
}

}  // namespace snaptok::unicode
