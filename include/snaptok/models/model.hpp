// The model stage: turns one pre-tokenized piece into vocabulary ids.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "snaptok/detail/hash.hpp"
#include "snaptok/detail/json.hpp"
#include "snaptok/pre_tokenized_string.hpp"

namespace snaptok {

class Model {
 public:
  virtual ~Model() = default;

  /// Appends the tokens of `piece` (offsets are bytes within `piece`).
  virtual void tokenize(std::string_view piece, std::vector<RawToken>& out) const = 0;
  /// tokenize() without the model's own piece cache, for callers that keep
  /// one (the fused paths' worker caches): the same tokens.
  virtual void tokenize_uncached(std::string_view piece, std::vector<RawToken>& out) const {
    tokenize(piece, out);
  }

  virtual std::optional<std::uint32_t> token_to_id(std::string_view token) const = 0;
  virtual std::optional<std::string_view> id_to_token(std::uint32_t id) const = 0;
  /// Returns the vocabulary size as HF's Model::get_vocab_size reports it.
  virtual std::size_t vocab_size() const = 0;
  /// Returns every (token, id) of the vocabulary.
  virtual std::vector<std::pair<std::string, std::uint32_t>> vocab() const = 0;

  /// Sets the byte budget of the model's piece cache (no-op without one).
  virtual void set_cache_budget(std::size_t /*bytes*/) {}

  /// The model's "type" in tokenizer.json ("BPE", "Unigram", ...).
  virtual std::string_view type_name() const = 0;
  /// Adds the model's tables to a .st image (they are viewed, not copied:
  /// keep the model alive until the writer is done).
  virtual void save_tables(st::Writer& out) const = 0;
  /// Returns the model's tables as tokenizer.json members, HF's way:
  /// `"vocab":{...}` (and `,"merges":[...]` for BPE; a [piece, score] list
  /// for Unigram).
  virtual std::string tables_json() const = 0;
};

/// Base of the models whose vocabulary is a {"token": id} object (BPE,
/// WordPiece, WordLevel): owns the flat table and answers the lookups.
class VocabModel : public Model {
 public:
  std::optional<std::uint32_t> token_to_id(std::string_view token) const override {
    return vocab_.find(token);
  }
  std::optional<std::string_view> id_to_token(std::uint32_t id) const override {
    return vocab_.token(id);
  }
  std::size_t vocab_size() const override { return vocab_.size(); }
  std::vector<std::pair<std::string, std::uint32_t>> vocab() const override {
    std::vector<std::pair<std::string, std::uint32_t>> out;
    vocab_.for_each([&](std::string_view s, std::uint32_t id) { out.emplace_back(s, id); });
    return out;
  }
  /// `"vocab":{"token":id,...}`, in id order (as HF writes it).
  std::string tables_json() const override {
    auto entries = vocab();
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    std::string out = "\"vocab\":{";
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (i) out += ',';
      out += detail::json_quote(entries[i].first) + ":" + std::to_string(entries[i].second);
    }
    return out + "}";
  }
  void save_tables(st::Writer& out) const override { vocab_.save(out); }

 protected:
  // Reads the model's {"token": id, ...} "vocab" into the table, or views
  // the table in `image` when given.
  void read_vocab(const detail::Json& model, const st::Image* image) {
    if (image) {
      vocab_ = detail::Vocab::load(*image);
      return;
    }
    detail::VocabBuilder builder;
    const detail::Json vocab = model.at("vocab");
    vocab.for_each_member([&](std::string_view token, const detail::Json& id) {
      builder.add(token, id.u32());
    });
    vocab_ = std::move(builder).build(vocab.path());
  }

  detail::Vocab vocab_;
};

using ModelPtr = std::shared_ptr<Model>;

/// Builds the model described by `json` (the tokenizer.json "model" object),
/// with its tables from `image` when given (a .st file's pipeline then holds
/// the model's settings only).
ModelPtr make_model(const detail::Json& json, const st::Image* image = nullptr);

}  // namespace snaptok
