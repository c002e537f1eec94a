// Full Encodings (before post-processing) from the fused paths: what the
// general stages give (GeneralStages::encode_sequence), without a
// NormalizedString, an alignment table and a token vector per split.
//
// A fused path knows, for each token it gives, which bytes of the input
// the token came from; HF's char offsets follow from them: a normalizer or
// pre-tokenizer that maps a byte (or a whole char) to new text aligns the
// new text to the whole input char, so a token made from the bytes
// [begin, end) of the input covers the chars from the one `begin` is part
// of to the one `end - 1` is part of. A token's word id is the index of
// its split (added tokens count as splits).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "snaptok/added_tokens.hpp"
#include "snaptok/detail/utf8.hpp"
#include "snaptok/encoding.hpp"
#include "snaptok/fast_paths/segment_path.hpp"

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

/// Appends one sequence's tokens to an Encoding, in text order, each with
/// the input bytes it came from.
class EncodingBuilder {
 public:
  EncodingBuilder(std::string_view text, std::uint32_t type_id, Encoding& enc) noexcept
      : text_(text), chars_(text), type_id_(type_id), enc_(enc) {}

  /// Appends a token of the current split made from the bytes [begin, end)
  /// of the text (begin < end; begins in nondecreasing order).
  void push(std::uint32_t id, std::string_view token, std::size_t begin, std::size_t end) {
    enc_.push(id, std::string(token), chars_.chars_of(begin, end), word_, type_id_, 0);
  }
  /// Appends `part`, the Encoding of `span` (a view into the text; char
  /// offsets into it, word ids from 0, every split with a token), after the
  /// splits so far. Returns false, appending nothing, when an offset lies
  /// outside the span.
  bool append(const Encoding& part, std::string_view span) {
    if (part.empty()) return true;
    const std::size_t shift = chars_.char_of(offset_of(span));
    const std::size_t chars = detail::count_cps(span);
    std::uint32_t words = 0;
    for (std::size_t i = 0; i < part.size(); ++i) {
      const Offsets& o = part.offsets[i];
      if (o.start > o.end || o.end > chars || !part.word_ids[i]) return false;
      words = std::max(words, *part.word_ids[i] + 1);
    }
    enc_.reserve_more(part.size());
    for (std::size_t i = 0; i < part.size(); ++i) {
      const Offsets& o = part.offsets[i];
      enc_.push(part.ids[i], part.tokens[i], {shift + o.start, shift + o.end}, word_ + *part.word_ids[i], type_id_,
                0);
    }
    word_ += words;
    return true;
  }
  /// The tokens pushed next are those of the next split.
  void next_split() noexcept { ++word_; }
  /// Makes room for `n` more tokens.
  void reserve_more(std::size_t n) { enc_.reserve_more(n); }
  /// The byte offset of `part`, a view into the text.
  std::size_t offset_of(std::string_view part) const noexcept {
    return static_cast<std::size_t>(part.data() - text_.data());
  }

 private:
  std::string_view text_;
  CharCursor chars_;
  std::uint32_t word_ = 0;  // the current split's index
  std::uint32_t type_id_;
  Encoding& enc_;
};

/// Appends the tokens of `text` to `enc` as HF's encode_char_offsets does
/// before post-processing, with type id `type_id`: added tokens are matched
/// on the text as given (as the ids routes match them), each one split;
/// every segment between them goes to `encode_segment(segment, start,
/// builder)`, which pushes the segment's tokens and starts a new split after
/// each of its splits, or returns false when it cannot give HF's tokens for
/// it. Returns false, with `enc` partly written, when a segment did: the
/// caller then runs the general stages.
template <class EncodeSegment>
bool encode_by_segments(const AddedVocabulary& added, bool special_as_text, std::string_view text,
                        std::uint32_t type_id, Encoding& enc, EncodeSegment&& encode_segment) {
  EncodingBuilder builder(text, type_id, enc);
  bool exact = true;
  added.extract(
      text, special_as_text,
      [&](std::string_view segment) {
        const SegmentStart start = segment.data() != text.data() ? SegmentStart::kAfterToken : SegmentStart::kText;
        exact = exact && encode_segment(segment, start, builder);
      },
      [&](std::uint32_t id, std::string_view match) {
        if (!exact) return;
        const std::size_t begin = builder.offset_of(match);
        builder.push(id, match, begin, begin + match.size());
        builder.next_split();
      });
  return exact;
}

}  // namespace snaptok
