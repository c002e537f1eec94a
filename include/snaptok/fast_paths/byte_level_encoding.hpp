// The full Encoding of one sequence (before post-processing) through the
// fused byte-level BPE path: what the general stages give for such a
// tokenizer (GeneralStages::encode_sequence), without a NormalizedString,
// an alignment table and a token vector per piece.
//
// The path gives the ids of the text between added tokens (through the
// worker's piece cache); its scan, run again, gives the pieces (HF's
// words: a token's word is the index of its split). A byte-level token's
// chars stand for one byte each, so the tokens of a piece tile its bytes in
// order, and a token covering bytes [s, e) of the text covers the chars
// from the one byte s is part of to the one byte e - 1 is part of
// (ByteLevel aligns each byte's char to the whole char of the input it
// came from; HF then turns byte offsets into char offsets).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "snaptok/added_tokens.hpp"
#include "snaptok/encoding.hpp"
#include "snaptok/fast_paths/byte_level_bpe.hpp"
#include "snaptok/runtime/piece_cache.hpp"

namespace snaptok {

/// The index of the char that a byte of a UTF-8 text is part of, for bytes
/// asked in nondecreasing order (one pass over the text in all).
class CharCursor {
 public:
  explicit CharCursor(std::string_view text) noexcept : text_(text) {}

  std::size_t char_of(std::size_t byte) noexcept {
    for (; counted_ <= byte; ++counted_) starts_ += (static_cast<unsigned char>(text_[counted_]) & 0xC0) != 0x80;
    return starts_ - 1;
  }

  /// The char offsets of the non-empty byte range [begin, end).
  Offsets chars_of(std::size_t begin, std::size_t end) noexcept {
    const std::size_t first = char_of(begin);
    return {first, char_of(end - 1) + 1};
  }

 private:
  std::string_view text_;
  std::size_t counted_ = 0;  // bytes counted
  std::size_t starts_ = 0;   // chars starting among them
};

/// The number of bytes a byte-level token stands for (its chars), or 0 when
/// it is empty or not byte-level text (a char beyond U+07FF).
inline std::size_t byte_level_length(std::string_view token) noexcept {
  std::size_t chars = 0;
  for (const char c : token) {
    const auto b = static_cast<unsigned char>(c);
    if (b >= 0xE0) return 0;
    chars += (b & 0xC0) != 0x80;
  }
  return chars;
}

/// Appends the tokens of `text` to `enc` as HF's encode_char_offsets does
/// before post-processing (ids, tokens, char offsets, word ids, type id
/// `type_id`), for a path whose pieces are views of the text and whose model
/// keeps every byte (ByteLevelBpePath::pieces_are_views,
/// BpeModel::keeps_every_byte). Added tokens are matched on the text as
/// given, as in IdsRoute's ids; `unchanged(segment)` says the normalizer
/// leaves the text between them as it is. Returns false, with `enc` partly
/// written, where this cannot give HF's Encoding (the normalizer would
/// change a segment; ids that do not tile a piece): the caller then runs
/// the general stages. `ids` is scratch.
template <class Unchanged>
bool encode_byte_level_sequence(const ByteLevelBpePath& path, const AddedVocabulary& added, bool special_as_text,
                                Unchanged&& unchanged, runtime::PieceCache* cache, std::string_view text,
                                std::uint32_t type_id, std::vector<std::uint32_t>& ids, Encoding& enc) {
  const BpeModel& model = path.model();
  CharCursor chars(text);
  std::vector<std::string_view> tokens;  // of a segment's ids
  std::uint32_t word = 0;  // the split's index
  bool exact = true;
  added.extract(
      text, special_as_text,
      [&](std::string_view segment) {
        if (!exact) return;
        if (!unchanged(segment)) {
          exact = false;
          return;
        }
        ids.clear();
        path.encode(segment, ids, cache);
        enc.reserve_more(ids.size());
        // The ids' tokens are random reads of the vocabulary (GPT-2's ~1
        // MB, o200k's ~4 MB), each a chain of loads: done in a loop of their
        // own, they overlap (o200k, 8 KB documents: 1.2-1.4x faster than one
        // at a time in the loop below).
        tokens.resize(ids.size());
        for (std::size_t k = 0; k < ids.size(); ++k) {
          tokens[k] = model.id_to_token(ids[k]).value_or(std::string_view());
#if defined(__GNUC__) || defined(__clang__)
          __builtin_prefetch(tokens[k].data());
#endif
        }
        std::size_t next = 0;  // the first id not yet given a piece
        std::size_t at = static_cast<std::size_t>(segment.data() - text.data());
        path.for_each_piece(segment, [&](std::string_view piece) {
          const auto end = static_cast<std::size_t>(piece.data() + piece.size() - text.data());
          while (exact && at < end && next < ids.size()) {
            const std::string_view token = tokens[next];
            const std::uint32_t id = ids[next++];
            const std::size_t bytes = byte_level_length(token);
            exact = bytes != 0 && at + bytes <= end;
            if (exact) enc.push(id, std::string(token), chars.chars_of(at, at + bytes), word, type_id, 0);
            at += bytes;
          }
          exact = exact && at == end;
          ++word;
        });
        exact = exact && next == ids.size();
      },
      [&](std::uint32_t id, std::string_view match) {
        if (!exact) return;
        const auto begin = static_cast<std::size_t>(match.data() - text.data());
        enc.push(id, std::string(match), chars.chars_of(begin, begin + match.size()), word++, type_id, 0);
      });
  return exact;
}

}  // namespace snaptok
