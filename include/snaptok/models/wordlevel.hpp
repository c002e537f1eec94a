// WordLevel model (HF models::wordlevel): each piece is one vocabulary entry,
// or unk_token when it is not in the vocabulary (an error when unk_token is
// not in the vocabulary either).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "snaptok/detail/hash.hpp"
#include "snaptok/detail/json.hpp"
#include "snaptok/error.hpp"
#include "snaptok/models/model.hpp"

namespace snaptok {

class WordLevelModel final : public VocabModel {
 public:
  /// Reads `{"type": "WordLevel", "vocab": {"<unk>": 0, ...}, "unk_token": "<unk>"}`
  /// (both fields required, as in HF); with `image`, the vocabulary comes
  /// from that .st image instead.
  explicit WordLevelModel(const detail::Json& json, const st::Image* image = nullptr) {
    if (!image) json.at("vocab");  // a missing vocab is named before a missing unk_token
    unk_token_ = json.at("unk_token").str();
    read_vocab(json, image);
    if (auto id = vocab_.find(unk_token_)) unk_id_ = *id;
  }

  std::string_view type_name() const override { return "WordLevel"; }

  void tokenize(std::string_view piece, std::vector<RawToken>& out) const override {
    const auto n = static_cast<std::uint32_t>(piece.size());
    if (auto id = vocab_.find(piece)) {
      out.push_back({*id, 0, n, true});
      return;
    }
    if (unk_id_ == kNoId) {
      throw Error("model.unk_token: \"" + unk_token_ +
                  "\" is needed but is not in the vocabulary");
    }
    out.push_back({unk_id_, 0, n});
  }


  const std::string& unk_token() const noexcept { return unk_token_; }

 private:
  static constexpr std::uint32_t kNoId = 0xFFFFFFFFu;

  std::string unk_token_;
  std::uint32_t unk_id_ = kNoId;
};

}  // namespace snaptok
