// The tokens of a segment for a full Encoding (fast_paths/fused_encoding.hpp)
// through the fused byte-level BPE path. The path gives the ids of the text
// between added tokens (through the worker's piece cache); its scan, run
// again, gives the pieces (HF's words). A byte-level token's chars stand
// for one byte each, so the tokens of a piece tile its bytes in order
// (ByteLevel aligns each byte's char to the whole char of the input it came
// from).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "snaptok/fast_paths/byte_level_bpe.hpp"
#include "snaptok/fast_paths/fused_encoding.hpp"
#include "snaptok/runtime/piece_cache.hpp"

namespace snaptok {

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

/// Pushes the tokens of `segment` (a view into the builder's text, between
/// added tokens) as the general stages give them for a path whose pieces
/// are views of the text and whose model keeps every byte
/// (ByteLevelBpePath::pieces_are_views, BpeModel::keeps_every_byte), each
/// piece one split. Returns false, with some tokens pushed, where its ids
/// do not tile the pieces (the caller then runs the general stages). `ids`
/// and `tokens` are scratch.
inline bool encode_byte_level_segment(const ByteLevelBpePath& path, runtime::PieceCache* cache,
                                      std::string_view segment, std::vector<std::uint32_t>& ids,
                                      std::vector<std::string_view>& tokens, EncodingBuilder& out) {
  const BpeModel& model = path.model();
  ids.clear();
  path.encode(segment, ids, cache);
  out.reserve_more(ids.size());
  // The ids' tokens are random reads of the vocabulary (GPT-2's ~1 MB,
  // o200k's ~4 MB), each a chain of loads: done in a loop of their own,
  // they overlap (o200k, 8 KB documents: 1.2-1.4x faster than one at a time
  // in the loop below).
  tokens.resize(ids.size());
  for (std::size_t k = 0; k < ids.size(); ++k) {
    tokens[k] = model.id_to_token(ids[k]).value_or(std::string_view());
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(tokens[k].data());
#endif
  }
  bool exact = true;
  std::size_t next = 0;  // the first id not yet given a piece
  std::size_t at = out.offset_of(segment);
  path.for_each_piece(segment, [&](std::string_view piece) {
    const std::size_t end = out.offset_of(piece) + piece.size();
    while (exact && at < end && next < ids.size()) {
      const std::string_view token = tokens[next];
      const std::size_t bytes = byte_level_length(token);
      exact = bytes != 0 && at + bytes <= end;
      if (exact) out.push(ids[next], token, at, at + bytes);
      ++next;
      at += bytes;
    }
    exact = exact && at == end;
    out.next_split();
  });
  return exact && next == ids.size();
}

}  // namespace snaptok
