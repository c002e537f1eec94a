// Encodes one document handed over in pieces of any size (a file read block
// by block, a network stream) with bounded memory: each feed() returns the
// ids that are already final and keeps back only the text after the last
// cut point (scanners/cut_points.hpp). The ids of all feeds and finish(),
// concatenated, are those of encoding the whole document at once.
//
//   snaptok::DocumentEncoder doc(tok);
//   std::vector<uint32_t> ids;
//   while (read(block)) doc.feed(block, ids);   // ids grows as text is cut off
//   doc.finish(ids);                            // the rest, and the suffix (e.g. EOS)
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "snaptok/error.hpp"
#include "snaptok/scanners/cut_points.hpp"
#include "snaptok/pipeline.hpp"
#include "snaptok/tokenizer.hpp"

namespace snaptok {

/// One document's encoder. It takes the tokenizer's settings as they are
/// when it is made. When the tokenizer cannot cut documents
/// (Pipeline::can_split_documents is false, e.g. with truncation or a
/// normalizer), feed() keeps everything and finish() encodes it whole.
/// Not for use by several threads at once; the tokenizer must outlive it.
class DocumentEncoder {
 public:
  /// By default, text is encoded once at least this much is held back.
  static constexpr std::size_t kDefaultPartBytes = std::size_t{1} << 20;

  /// `part_bytes`: how much text to hold before encoding what precedes its
  /// last cut point (larger parts spread better over `num_threads`).
  explicit DocumentEncoder(const Pipeline& tokenizer, bool add_special_tokens = true,
                           unsigned num_threads = 0, std::size_t part_bytes = kDefaultPartBytes)
      : tokenizer_(tokenizer),
        settings_(tokenizer.settings()),
        add_special_tokens_(add_special_tokens),
        threads_(runtime::resolve_threads(num_threads)),
        splits_(tokenizer.ids_.splits_documents(*settings_, add_special_tokens)),
        part_bytes_(std::max<std::size_t>(part_bytes, 1)) {}
  /// The same over a Tokenizer handle (which must outlive the encoder).
  explicit DocumentEncoder(const Tokenizer& tokenizer, bool add_special_tokens = true,
                           unsigned num_threads = 0, std::size_t part_bytes = kDefaultPartBytes)
      : DocumentEncoder(tokenizer.pipeline(), add_special_tokens, num_threads, part_bytes) {}

  /// Appends `chunk` (the next bytes of the document; it may end inside a
  /// UTF-8 char) and appends to `ids` every id that is now final.
  void feed(std::string_view chunk, std::vector<std::uint32_t>& ids) {
    require_open("feed");
    pending_.append(chunk);
    if (!splits_ || pending_.size() < part_bytes_) return;
    // Positions before searched_ - 1 are known not to be cut points (the
    // last one needed the byte after it).
    const std::size_t cut =
        scanners::last_cut_point(pending_, searched_ > 1 ? searched_ - 1 : 1);
    if (cut == std::string_view::npos) {
      searched_ = pending_.size();
      return;
    }
    encode_pending(cut, /*last=*/false, ids);
  }

  /// Appends the ids of the text still held back, and what the
  /// post-processor puts after the document. The encoder is spent after it.
  void finish(std::vector<std::uint32_t>& ids) {
    require_open("finish");
    encode_pending(pending_.size(), /*last=*/true, ids);
    finished_ = true;
    std::string().swap(pending_);
  }

  /// Bytes given to feed() so far.
  std::size_t bytes_fed() const noexcept { return encoded_ + pending_.size(); }
  /// Bytes held back, not encoded yet.
  std::size_t pending_bytes() const noexcept { return pending_.size(); }
  /// True once finish() ran, or a call failed.
  bool finished() const noexcept { return finished_; }

 private:
  void require_open(const char* call) const {
    if (finished_) {
      throw Error(std::string("DocumentEncoder.") + call +
                  ": the document is finished (finish() ran, or an earlier call failed)");
    }
  }

  // Encodes pending_[0, end) as the next part of the document and drops it.
  void encode_pending(std::size_t end, bool last, std::vector<std::uint32_t>& ids) {
    const std::string_view part(pending_.data(), end);
    const bool first = encoded_ == 0;
    const std::size_t part_bytes = runtime::part_bytes_for(splits_);
    std::vector<runtime::Unit> units;
    runtime::add_units(0, part, encoded_, first, last, part_bytes, units);
    try {
      tokenizer_.ids_.encode_units(*settings_, units, add_special_tokens_, threads_, ids, {});
    } catch (...) {
      finished_ = true;
      throw;
    }
    pending_.erase(0, end);
    encoded_ += end;
    searched_ = pending_.size();
  }

  const Pipeline& tokenizer_;
  std::shared_ptr<const EncodeSettings> settings_;
  bool add_special_tokens_;
  unsigned threads_;
  bool splits_;
  std::size_t part_bytes_;
  std::string pending_;     // text not encoded yet
  std::size_t encoded_ = 0;  // bytes before pending_
  std::size_t searched_ = 0;  // pending_[0, searched_ - 1) holds no cut point
  bool finished_ = false;
};

}  // namespace snaptok
