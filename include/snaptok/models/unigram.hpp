// Unigram model (HF models::unigram, SentencePiece's unigram LM): the best
// segmentation of a piece by Viterbi over the vocabulary's log-probabilities.
//
// Exactly as HF's Unigram::encode_optimized (the only path HF runs):
// - scores are read as serde_json reads them (detail/serde_f64.hpp);
// - at every char boundary, each vocabulary piece starting there extends the
//   best path; a char with no one-char piece gets an unk node scored
//   min_score - 10 (an error when there is no unk_id and the node would win);
// - a node replaces the best path ending at its end only when strictly better,
//   so on ties the path whose last token starts earliest wins;
// - on the way back, consecutive nodes whose id is unk_id are fused into one
//   string, which is looked up in the vocabulary (it may be a piece), else
//   split into <0xNN> byte pieces (byte_fallback, each covering the whole
//   string), else becomes unk_id.
// The vocabulary is a double-array trie; Viterbi runs over byte positions in
// reused buffers, one trie walk per char boundary.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "snaptok/detail/double_array.hpp"
#include "snaptok/detail/hash.hpp"
#include "snaptok/detail/json.hpp"
#include "snaptok/detail/piece_cache.hpp"
#include "snaptok/detail/serde_f64.hpp"
#include "snaptok/detail/utf8.hpp"
#include "snaptok/error.hpp"
#include "snaptok/models/model.hpp"

namespace snaptok {

class UnigramModel final : public Model {
 public:
  /// Reads `{"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], ...],
  /// "byte_fallback": false}`; with `image`, the tables come from that .st
  /// image instead of "vocab".
  explicit UnigramModel(const detail::Json& json, const st::Image* image = nullptr) {
    if (image) {
      load_tables(*image);
    } else {
      build_tables(json.at("vocab"));
    }
    const auto n = static_cast<std::uint32_t>(scores_.size());
    if (auto u = json.find("unk_id")) {
      const std::uint64_t id = u->u64();
      if (n == 0) u->fail("the vocabulary is empty but unk_id is set");
      if (id >= n) {
        u->fail("unk_id " + std::to_string(id) + " is not below the vocabulary size " +
                std::to_string(n));
      }
      unk_id_ = static_cast<std::uint32_t>(id);
    }
    // HF reads byte_fallback as a plain bool: null is an error, not false.
    simdjson::dom::element bf;
    if (json.raw().get_object().at_key("byte_fallback").get(bf) == simdjson::SUCCESS) {
      byte_fallback_ = detail::Json(bf, json.path() + ".byte_fallback").boolean();
    }
    for (const double score : scores_) min_score_ = std::min(min_score_, score);
    unk_score_ = min_score_ - 10.0;
    for (int b = 0; b < 256; ++b) {
      static constexpr char hex[] = "0123456789ABCDEF";
      const char name[] = {'<', '0', 'x', hex[b >> 4], hex[b & 15], '>'};
      byte_ids_[b] = token_to_id_.find(std::string_view(name, 6)).value_or(kNoId);
    }
  }

  std::string_view type_name() const override { return "Unigram"; }

  /// `"vocab":[["piece",score],...]` in id order, each score in its shortest
  /// exact decimal form.
  std::string tables_json() const override {
    std::string out = "\"vocab\":[";
    char number[32];
    for (std::uint32_t id = 0; id < scores_.size(); ++id) {
      const auto end = std::to_chars(number, number + sizeof number, scores_[id]).ptr;
      std::string score(number, end);
      if (score.find_first_of(".e") == std::string::npos) score += ".0";
      if (id) out += ',';
      out += "[" + detail::json_quote(piece(id)) + "," + score + "]";
    }
    return out + "]";
  }

  void save_tables(st::Writer& out) const override {
    token_to_id_.save(out);
    out.add(st::SectionType::unigram_pieces, pieces_.span());
    out.add(st::SectionType::unigram_offsets, offsets_.span());
    out.add(st::SectionType::unigram_scores, scores_.span());
    out.add(st::SectionType::unigram_trie_cells, trie_.cell_table().span());
    out.add(st::SectionType::unigram_trie_values, trie_.value_table().span());
    out.add(st::SectionType::unigram_ends, ends_.span());
  }

  void tokenize(std::string_view text, std::vector<RawToken>& out) const override {
    if (text.empty()) return;
    if (cache_.lookup(text, out)) return;
    const std::size_t first = out.size();
    encode(text, out);
    cache_.store(text, out.data() + first, out.size() - first);
  }
  void tokenize_uncached(std::string_view text, std::vector<RawToken>& out) const override {
    if (!text.empty()) encode(text, out);
  }

  std::optional<std::uint32_t> token_to_id(std::string_view token) const override {
    return token_to_id_.find(token);
  }
  std::optional<std::string_view> id_to_token(std::uint32_t id) const override {
    if (id >= scores_.size()) return std::nullopt;
    return piece(id);
  }
  /// Returns the number of pieces (repeated pieces counted, as HF does).
  std::size_t vocab_size() const override { return scores_.size(); }
  std::vector<std::pair<std::string, std::uint32_t>> vocab() const override {
    std::vector<std::pair<std::string, std::uint32_t>> out;
    token_to_id_.for_each([&](std::string_view s, std::uint32_t id) { out.emplace_back(s, id); });
    return out;
  }
  void set_cache_budget(std::size_t bytes) override { cache_.set_budget(bytes); }

  std::optional<std::uint32_t> unk_id() const noexcept {
    if (unk_id_ == kNoId) return std::nullopt;
    return unk_id_;
  }
  bool byte_fallback() const noexcept { return byte_fallback_; }
  /// Returns the score of piece `id` (as HF holds it in memory).
  double score(std::uint32_t id) const {
    if (id >= scores_.size()) throw Error("Unigram score: id " + std::to_string(id) + " out of range");
    return scores_[id];
  }

 private:
  static constexpr std::uint32_t kNoId = 0xFFFFFFFFu;

  struct End {
    double score;
    std::uint32_t id;
    std::uint32_t zero = 0;  // explicit padding: .st bytes are deterministic
  };

  // Reads the [piece, score] pairs, then builds the lookup tables.
  void build_tables(const detail::Json& vocab) {
    simdjson::dom::array arr;
    if (vocab.raw().get_array().get(arr) != simdjson::SUCCESS) {
      vocab.fail("expected an array of [piece, score] pairs, got " + vocab.type_name());
    }
    std::vector<char> pieces;
    std::vector<std::uint32_t> offsets{0};
    std::vector<double> scores;
    offsets.reserve(arr.size() + 1);
    scores.reserve(arr.size());
    std::size_t index = 0;
    for (simdjson::dom::element item : arr) {
      auto bad = [&](std::string_view what) {
        detail::Json(item, vocab.path() + "[" + std::to_string(index) + "]").fail(what);
      };
      simdjson::dom::array pair;
      if (item.get_array().get(pair) != simdjson::SUCCESS || pair.size() != 2) {
        bad("expected a [piece, score] pair");
      }
      std::string_view piece;
      if (pair.at(0).get_string().get(piece) != simdjson::SUCCESS) {
        bad("expected the piece to be a string");
      }
      const simdjson::dom::element score = pair.at(1).value_unsafe();
      double value = 0.0;
      if (score.is_int64()) {
        value = static_cast<double>(score.get_int64().value_unsafe());
      } else if (score.is_uint64()) {
        value = static_cast<double>(score.get_uint64().value_unsafe());
      } else if (score.get_double().get(value) == simdjson::SUCCESS) {
        value = detail::serde_json_f64(value);
      } else {
        bad("expected the score to be a number");
      }
      pieces.insert(pieces.end(), piece.begin(), piece.end());
      offsets.push_back(static_cast<std::uint32_t>(pieces.size()));
      scores.push_back(value);
      ++index;
    }
    pieces_ = detail::Flat<char>(std::move(pieces));
    offsets_ = detail::Flat<std::uint32_t>(std::move(offsets));
    scores_ = detail::Flat<double>(std::move(scores));

    // token -> id keeps the last id of a repeated piece (HF's map insert);
    // the trie stores that id, whose score is the one HF uses.
    const auto n = static_cast<std::uint32_t>(scores_.size());
    detail::VocabBuilder token_to_id;
    std::vector<std::pair<std::string_view, std::uint32_t>> keys;
    keys.reserve(n);
    for (std::uint32_t id = 0; id < n; ++id) {
      token_to_id.add(piece(id), id);
      keys.emplace_back(piece(id), id);
    }
    token_to_id_ = std::move(token_to_id).build();
    trie_.build(std::move(keys));
    // The score of every key's end cell, next to its id: one load per match.
    std::vector<End> ends(trie_.size(), End{0.0, kNoId});
    for (std::size_t t = 0; t < trie_.size(); ++t) {
      if (trie_.cells()[t].base & detail::DoubleArrayTrie::kEnds) {
        const std::uint32_t id = trie_.values()[t];
        ends[t] = {scores_[id], id};
      }
    }
    ends_ = detail::Flat<End>(std::move(ends));
  }

  // Views the tables of a .st image, after checking that every offset and
  // id they hold is in range.
  void load_tables(const st::Image& image) {
    token_to_id_ = detail::Vocab::load(image);
    pieces_ = image.section<char>(st::SectionType::unigram_pieces);
    offsets_ = image.section<std::uint32_t>(st::SectionType::unigram_offsets);
    scores_ = image.section<double>(st::SectionType::unigram_scores);
    trie_ = detail::DoubleArrayTrie::view(
        image.section<detail::DoubleArrayTrie::Cell>(st::SectionType::unigram_trie_cells),
        image.section<std::uint32_t>(st::SectionType::unigram_trie_values), image, "unigram.trie",
        static_cast<std::uint32_t>(scores_.size()));
    ends_ = image.section<End>(st::SectionType::unigram_ends);
    const std::size_t n = scores_.size();
    if (offsets_.size() != n + 1 || offsets_[0] != 0 || offsets_[n] > pieces_.size()) {
      image.fail("unigram.offsets: " + std::to_string(offsets_.size()) + " offsets for " +
                 std::to_string(n) + " pieces, or past the piece bytes");
    }
    for (std::size_t id = 0; id < n; ++id) {
      if (offsets_[id] > offsets_[id + 1]) image.fail("unigram.offsets: offsets go backwards");
    }
    if (token_to_id_.id_bound() > n) image.fail("vocab.ids: an id past the Unigram pieces");
    if (ends_.size() != trie_.size()) image.fail("unigram.ends: not one per trie cell");
    for (std::size_t t = 0; t < trie_.size(); ++t) {
      if ((trie_.cells()[t].base & detail::DoubleArrayTrie::kEnds) && ends_[t].id >= n) {
        image.fail("unigram.ends: a trie cell holds an id past the pieces");
      }
    }
  }

  std::string_view piece(std::uint32_t id) const noexcept {
    return std::string_view(pieces_.data() + offsets_[id], offsets_[id + 1] - offsets_[id]);
  }

  [[noreturn]] static void missing_unk() {
    throw Error(
        "model.unk_id: an unknown character needs the unk token but the Unigram model has none");
  }

  // Best path of `text` (HF encode_optimized) into `out`.
  void encode(std::string_view text, std::vector<RawToken>& out) const {
    struct Node {
      double score;        // best score of a path ending here
      std::int32_t start;  // where its last token starts; -1: no path yet
      std::uint32_t id;
    };
    thread_local std::vector<Node> best;
    const std::size_t n = text.size();
    best.assign(n + 1, Node{0.0, -1, 0});
    const auto* cells = trie_.cells();
    const End* ends = ends_.data();
    Node* const nodes = best.data();
    constexpr std::uint32_t kEnds = detail::DoubleArrayTrie::kEnds;
    constexpr std::uint32_t kBaseMask = detail::DoubleArrayTrie::kBaseMask;
    const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
    for (std::size_t pos = 0; pos < n;) {
      // (min: a truncated sequence, which valid input never has, stays in bounds)
      const std::size_t char_len = std::min(detail::utf8_len(bytes[pos]), n - pos);
      const double here = nodes[pos].score;
      bool has_single = false;
      std::int32_t node = 0;
      for (std::size_t k = pos; k < n; ++k) {
        const std::uint32_t base = cells[node].base;
        const std::uint32_t t = (base & kBaseMask) + bytes[k];
        if (cells[t].check != node) break;
        node = static_cast<std::int32_t>(t);
        if (!(cells[t].base & kEnds)) continue;
        const double candidate = ends[t].score + here;
        Node& target = nodes[k + 1];
        if (target.start < 0 || candidate > target.score) {
          target = {candidate, static_cast<std::int32_t>(pos), ends[t].id};
        }
        if (k + 1 - pos == char_len) has_single = true;
      }
      if (!has_single) {
        const double candidate = unk_score_ + here;
        Node& target = nodes[pos + char_len];
        if (target.start < 0 || candidate > target.score) {
          if (unk_id_ == kNoId) missing_unk();
          target = {candidate, static_cast<std::int32_t>(pos), unk_id_};
        }
      }
      pos += char_len;
    }

    // Walk back, fusing consecutive unk_id nodes into one run, then emit in
    // order. (Every entry with id unk_id is such a run.)
    thread_local std::vector<RawToken> path;
    path.clear();
    std::size_t end = n;
    while (end > 0) {
      const Node& node = nodes[end];
      const auto start = static_cast<std::uint32_t>(node.start);
      if (node.id == unk_id_ && !path.empty() && path.back().id == unk_id_) {
        path.back().start = start;
      } else {
        path.push_back({node.id, start, static_cast<std::uint32_t>(end), true});
      }
      end = start;
    }
    for (std::size_t i = path.size(); i-- > 0;) {
      const RawToken t = path[i];
      if (t.id != unk_id_) {
        out.push_back(t);
        continue;
      }
      // A fused run: HF looks its text up like any other token string.
      const std::string_view s = text.substr(t.start, t.end - t.start);
      if (auto id = token_to_id_.find(s)) {
        out.push_back({*id, t.start, t.end, true});
        continue;
      }
      if (byte_fallback_ && all_bytes_known(s)) {
        for (const char c : s) {
          out.push_back({byte_ids_[static_cast<unsigned char>(c)], t.start, t.end, false});
        }
        continue;
      }
      out.push_back({unk_id_, t.start, t.end, true});
    }
  }

  bool all_bytes_known(std::string_view s) const noexcept {
    for (const char c : s) {
      if (byte_ids_[static_cast<unsigned char>(c)] == kNoId) return false;
    }
    return true;
  }

  detail::Flat<char> pieces_;              // piece bytes, in id order
  detail::Flat<std::uint32_t> offsets_;  // piece id -> [offsets_[id], offsets_[id+1])
  detail::Flat<double> scores_;
  detail::Vocab token_to_id_;
  detail::DoubleArrayTrie trie_;
  detail::Flat<End> ends_;  // trie cell -> (score, id) where a piece ends
  double min_score_ = std::numeric_limits<double>::infinity();
  double unk_score_ = std::numeric_limits<double>::infinity();
  std::uint32_t unk_id_ = kNoId;
  bool byte_fallback_ = false;
  std::uint32_t byte_ids_[256] = {};
  mutable detail::PieceCache cache_;
};

}  // namespace snaptok
