// Streaming decode for generation: ids arrive one (or a few) at a time, and
// each step returns the text they add, as soon as it is whole. The chunks
// are Hugging Face tokenizers' DecodeStream's, step for step:
//
//   snaptok::DecodeStream stream(/*skip_special_tokens=*/false);
//   for (std::uint32_t id : generated) {
//     if (std::optional<std::string> chunk = stream.step(tok, id)) std::cout << *chunk;
//   }
//
// Decoding ids one by one would be wrong twice over: a char may span several
// byte-level or byte-fallback tokens (alone each decodes to U+FFFD), and
// decoders such as Metaspace and Strip treat the first token of a text apart
// ("▁Hello" decodes to "Hello" first, to " Hello" later on). So the stream
// keeps the ids of the last chunk it returned (the prefix) and those after
// it, decodes them together, and returns what comes after the prefix's text
// once the whole no longer ends in U+FFFD.
//
// `Decoder` is anything with decode(std::span<const std::uint32_t>, bool
// skip_special_tokens) -> std::string: snaptok::Tokenizer or snaptok::Pipeline.
// A stream is one generation's state: not for two threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "snaptok/error.hpp"

namespace snaptok {

class DecodeStream {
 public:
  explicit DecodeStream(bool skip_special_tokens = false) : skip_special_tokens_(skip_special_tokens) {}

  /// A stream that continues after `ids` (a prompt, or the ids generated so
  /// far): their text is the prefix the first chunk is cut from.
  DecodeStream(std::vector<std::uint32_t> ids, bool skip_special_tokens)
      : skip_special_tokens_(skip_special_tokens), ids_(std::move(ids)) {}

  /// Appends `ids` and returns the text they complete, or nullopt while the
  /// text still ends in an unfinished char (U+FFFD) or adds nothing. Throws
  /// snaptok::Error when the decoded text no longer starts with the text
  /// already returned (a decoder that rewrites what came before).
  template <class Decoder>
  std::optional<std::string> step(const Decoder& decoder, std::span<const std::uint32_t> ids) {
    if (prefix_.empty() && !ids_.empty()) {
      // A stream made with ids: their text is the prefix, once it is whole.
      std::string text = decoder.decode(ids_, skip_special_tokens_);
      if (!ends_unfinished(text)) {
        prefix_ = std::move(text);
        prefix_index_ = ids_.size();
      }
    }
    ids_.insert(ids_.end(), ids.begin(), ids.end());
    std::string text = decoder.decode(ids_, skip_special_tokens_);
    if (text.size() <= prefix_.size() || ends_unfinished(text)) return std::nullopt;
    if (std::string_view(text).substr(0, prefix_.size()) != prefix_) {
      throw Error("DecodeStream: the text of the ids so far, \"" + text + "\", no longer starts with \"" + prefix_ +
                  "\" (the text before id " + std::to_string(ids_.back()) + ")");
    }
    std::string chunk = text.substr(prefix_.size());
    // The ids of the chunk just returned become the prefix.
    const std::size_t next_prefix_index = ids_.size() - prefix_index_;
    ids_.erase(ids_.begin(), ids_.begin() + static_cast<std::ptrdiff_t>(prefix_index_));
    prefix_ = decoder.decode(ids_, skip_special_tokens_);
    prefix_index_ = next_prefix_index;
    return chunk;
  }

  template <class Decoder>
  std::optional<std::string> step(const Decoder& decoder, std::uint32_t id) {
    return step(decoder, std::span<const std::uint32_t>(&id, 1));
  }

  bool skip_special_tokens() const noexcept { return skip_special_tokens_; }

 private:
  // True when `text` ends in U+FFFD (EF BF BD), what a cut-off char decodes to.
  static bool ends_unfinished(std::string_view text) noexcept {
    return text.size() >= 3 && text.substr(text.size() - 3) == "\xEF\xBF\xBD";
  }

  bool skip_special_tokens_;
  std::vector<std::uint32_t> ids_;  // the prefix's ids (the last chunk's), then those not yet returned
  std::string prefix_;              // the text of ids_[0, prefix_index_), decoded alone
  std::size_t prefix_index_ = 0;    // where the ids after the prefix start
};

}  // namespace snaptok
