// WordPiece model (HF models::wordpiece, BERT): greedy longest-match-first.
// From each position the longest vocabulary entry is taken (with
// continuing_subword_prefix in front when not at the start of the piece); if
// some position matches nothing, or the piece has more than
// max_input_chars_per_word chars, the whole piece becomes unk_token.
// Candidates longer than the longest vocabulary entry are skipped, which
// gives HF's result without its quadratic scan.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "snaptok/detail/hash.hpp"
#include "snaptok/detail/json.hpp"
#include "snaptok/detail/utf8.hpp"
#include "snaptok/error.hpp"
#include "snaptok/models/model.hpp"

namespace snaptok {

class WordPieceModel final : public VocabModel {
 public:
  /// Reads `{"type": "WordPiece", "unk_token": "[UNK]",
  /// "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
  /// "vocab": {"[UNK]": 0, ...}}` (all four fields required, as in HF); with
  /// `image`, the vocabulary comes from that .st image instead.
  explicit WordPieceModel(const detail::Json& json, const st::Image* image = nullptr) {
    unk_token_ = json.at("unk_token").str();
    prefix_ = json.at("continuing_subword_prefix").str();
    max_chars_ = json.at("max_input_chars_per_word").u64();
    read_vocab(json, image);
    vocab_.for_each([&](std::string_view token, std::uint32_t) {
      max_token_len_ = std::max(max_token_len_, token.size());
    });
    if (auto id = vocab_.find(unk_token_)) unk_id_ = *id;
  }

  std::string_view type_name() const override { return "WordPiece"; }

  void tokenize(std::string_view piece, std::vector<RawToken>& out) const override {
    if (piece.empty()) return;
    const auto n = static_cast<std::uint32_t>(piece.size());
    // More bytes than chars allowed can still be few enough chars.
    if (piece.size() > max_chars_ && detail::count_cps(piece) > max_chars_) {
      out.push_back({unk(), 0, n});
      return;
    }
    thread_local std::string key;
    const std::size_t first = out.size();
    std::size_t start = 0;
    while (start < piece.size()) {
      const std::size_t pre = start > 0 ? prefix_.size() : 0;
      std::size_t end = piece.size();
      if (max_token_len_ < pre) {
        end = start;  // no entry is long enough to hold the prefix
      } else {
        end = std::min(end, start + (max_token_len_ - pre));
        while (end > start && !detail::is_char_boundary(piece, end)) --end;
      }
      key.assign(prefix_.data(), pre);
      key.append(piece.substr(start, end - start));
      std::optional<std::uint32_t> found;
      while (end > start) {
        found = vocab_.find(std::string_view(key.data(), pre + (end - start)));
        if (found) break;
        std::size_t e = end;
        detail::prev_cp(piece, e);
        end = std::max(e, start);
      }
      if (!found) {
        out.resize(first);
        out.push_back({unk(), 0, n});
        return;
      }
      out.push_back({*found, static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(end)});
      start = end;
    }
  }


  const std::string& unk_token() const noexcept { return unk_token_; }
  const std::string& continuing_subword_prefix() const noexcept { return prefix_; }
  std::size_t max_input_chars_per_word() const noexcept { return max_chars_; }

 private:
  static constexpr std::uint32_t kNoId = 0xFFFFFFFFu;

  std::uint32_t unk() const {
    if (unk_id_ == kNoId) {
      throw Error("model.unk_token: \"" + unk_token_ +
                  "\" is needed but is not in the vocabulary");
    }
    return unk_id_;
  }

  std::string unk_token_;
  std::string prefix_;
  std::size_t max_chars_ = 100;
  std::size_t max_token_len_ = 0;
  std::uint32_t unk_id_ = kNoId;
};

}  // namespace snaptok
