// Cut points: where one document may be cut in two and each part encoded on
// its own, with the same ids as the whole. A cut point is a position p with
// an ASCII letter at p-1, a space at p and an ASCII letter at p+1 ("word| word").
//
// Why that is exact for every pattern in registry.hpp (and so for every Split
// chain the fused byte-level path runs on those scanners): no alternative of
// those patterns matches a letter followed by a space (spaces only ever lead
// a match), so a match holding the letter at p-1 ends at p, and the next
// search starts at p both in the whole text and in the second part. None of
// the patterns looks behind, and every alternative that reaches p while
// matching letters fails or stops on the space exactly as it does at the
// end of the first part. Two patterns, DeepSeek V3's digit and CJK stages,
// leave the text around p in a gap (not cut at p, but cut the same way on
// both sides): a Split chain needs one stage that cuts at every cut point
// (cuts_at_cut_points) for p to reach the model as a boundary.
// test_scanners.cpp checks both properties against Oniguruma for every
// pattern. The segment paths prove their own (SegmentPath::
// cuts_at_cut_points): SentencePiece BPE cuts before every space that
// follows a letter, and whitespace words at every lone space between ASCII
// words. Added tokens, normalizers and post-processors are the tokenizer's
// to rule on (Tokenizer::can_split_documents).
#pragma once

#include <cstddef>
#include <cstring>
#include <string_view>

#include "snaptok/detail/code_points.hpp"
#include "snaptok/scanners/registry.hpp"

namespace snaptok::scanners {

/// True when every match of `kind`'s pattern begins and ends at every cut
/// point (the pattern cuts there); false for the stages that leave the
/// letters and spaces around a cut point unmatched, and for kNone.
inline bool cuts_at_cut_points(ScannerKind kind) noexcept {
  return kind != ScannerKind::kNone && kind != ScannerKind::kDeepSeekDigits &&
         kind != ScannerKind::kDeepSeekCjk;
}

/// Returns true for A-Z and a-z.
inline bool is_ascii_letter(char32_t c) noexcept {
  return c < 0x80 && static_cast<char32_t>((c | 0x20) - 'a') < 26;
}

/// Returns true when `p` is a cut point of a text of `size` chars whose
/// char i is at(i) (bytes of UTF-8, or code points: the three chars of a
/// cut point are ASCII, so it is the same place in both).
template <class At>
bool is_cut_point(std::size_t size, std::size_t p, At&& at) noexcept {
  return p > 0 && p + 1 < size && at(p) == ' ' && is_ascii_letter(at(p - 1)) && is_ascii_letter(at(p + 1));
}

/// Returns true when `p` is a cut point of `text` ("word| word").
inline bool is_cut_point(std::string_view text, std::size_t p) noexcept {
  return is_cut_point(text.size(), p, [&](std::size_t i) { return static_cast<unsigned char>(text[i]); });
}

/// Returns the first cut point of `text` at or after `from`, or npos.
inline std::size_t next_cut_point(std::string_view text, std::size_t from) noexcept {
  for (std::size_t p = from < 1 ? 1 : from; p + 1 < text.size(); ++p) {
    const void* space = std::memchr(text.data() + p, ' ', text.size() - 1 - p);
    if (!space) break;
    p = static_cast<std::size_t>(static_cast<const char*>(space) - text.data());
    if (is_cut_point(text, p)) return p;
  }
  return std::string_view::npos;
}

/// Returns the first cut point of `text` (code points) at or after `from`,
/// or npos.
inline std::size_t next_cut_point(detail::CodePoints text, std::size_t from) noexcept {
  return text.visit([&](const auto* units) {
    for (std::size_t p = from < 1 ? 1 : from; p + 1 < text.size; ++p) {
      if (units[p] == ' ' && is_cut_point(text.size, p, [&](std::size_t i) { return char32_t{units[i]}; })) return p;
    }
    return std::string_view::npos;
  });
}

/// Returns the last cut point of `text` at or after `from`, or npos.
inline std::size_t last_cut_point(std::string_view text, std::size_t from) noexcept {
  if (text.size() < 3) return std::string_view::npos;
  for (std::size_t p = text.size() - 2; p >= from && p > 0; --p) {
    if (is_cut_point(text, p)) return p;
  }
  return std::string_view::npos;
}

}  // namespace snaptok::scanners
