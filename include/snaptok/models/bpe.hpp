// BPE model (HF models::bpe): initial symbols from the vocabulary (with
// continuing_subword_prefix / end_of_word_suffix, byte_fallback, unk and
// fuse_unk), then merges by rank, lowest rank and leftmost position first,
// through a min-heap with stale-entry checks exactly as HF's Word::merge_all.
// Pieces are cached (bounded budget) unless dropout is on. Also built from
// tiktoken-style byte ranks (from_byte_ranks), where every pair that forms a
// token merges at that token's rank.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "snaptok/detail/byte_level_table.hpp"
#include "snaptok/detail/double_array.hpp"
#include "snaptok/detail/hash.hpp"
#include "snaptok/detail/inline.hpp"
#include "snaptok/detail/json.hpp"
#include "snaptok/detail/piece_cache.hpp"
#include "snaptok/detail/short_token_map.hpp"
#include "snaptok/detail/utf8.hpp"
#include "snaptok/error.hpp"
#include "snaptok/models/model.hpp"
#include "snaptok/runtime/piece_cache.hpp"

namespace snaptok {

class BpeModel final : public VocabModel {
 public:
  /// Reads `{"type": "BPE", "vocab": {...}, "merges": [...], ...}`; with
  /// `image`, the vocabulary and merges come from that .st image instead.
  explicit BpeModel(const detail::Json& json, const st::Image* image = nullptr) {
    if (auto d = json.find("dropout")) {
      // HF holds dropout as an f32 and checks the range after the narrowing.
      const auto p = static_cast<float>(d->f64());
      if (!(p >= 0.0f && p <= 1.0f)) d->fail("dropout must be between 0 and 1");
      if (p > 0.0f) dropout_ = p;
    }
    unk_token_ = json.get_opt_str("unk_token");
    // An empty prefix or suffix changes nothing; treat it as absent.
    prefix_ = json.get_opt_str("continuing_subword_prefix");
    suffix_ = json.get_opt_str("end_of_word_suffix");
    if (prefix_ && prefix_->empty()) prefix_.reset();
    if (suffix_ && suffix_->empty()) suffix_.reset();
    fuse_unk_ = json.get_bool("fuse_unk", false);
    byte_fallback_ = json.get_bool("byte_fallback", false);
    ignore_merges_ = json.get_bool("ignore_merges", false);

    read_vocab(json, image);
    if (image) {
      load_merges(*image);
      if (image->has(st::SectionType::bpe_short_tokens)) {
        short_tokens_ = detail::ShortTokenMap::view(
            image->section<detail::ShortTokenMap::Bucket>(st::SectionType::bpe_short_tokens), *image,
            vocab_.id_bound());
      }
    } else {
      read_merges(json);
    }
    if (byte_fallback_) {
      for (int b = 0; b < 256; ++b) {
        static constexpr char hex[] = "0123456789ABCDEF";
        const char name[] = {'<', '0', 'x', hex[b >> 4], hex[b & 15], '>'};
        byte_ids_[b] = vocab_.find(std::string_view(name, 6)).value_or(kNoId);
      }
    }
    init_byte_level_path();
    if (image && byte_level_ready_) load_raw_tokens(*image);
  }

  /// Returns the byte-level BPE that tiktoken builds from `ranks` (each
  /// token's bytes and its rank, which is also its id): the vocabulary is
  /// the tokens' byte-level text, ANY two adjacent symbols whose
  /// concatenation is a token merge at that token's rank (lowest rank
  /// first, leftmost on ties, as tiktoken's byte-pair merge), and a piece
  /// that is a token is that token (ignore_merges), e.g.
  ///   std::vector<std::pair<std::string, std::uint32_t>> ranks;  // the 256 bytes, then
  ///   ranks.emplace_back("ab", 256);                                  // merged tokens
  ///   auto model = BpeModel::from_byte_ranks(ranks);
  /// A merge list in HF's form cannot say this when two splits form the same
  /// token ("ab"+"a" and "a"+"ba" both form "aba"): one rank per token does.
  /// Throws snaptok::Error, naming the token, for an empty token, a token or
  /// rank given twice, rank 4294967295 (reserved), or a byte without a rank
  /// (tiktoken needs every single byte).
  static std::shared_ptr<BpeModel> from_byte_ranks(
      std::span<const std::pair<std::string, std::uint32_t>> ranks) {
    std::shared_ptr<BpeModel> model(new BpeModel());
    model->ignore_merges_ = true;
    const auto& table = detail::byte_level_table();
    auto level_text = [&](std::string_view bytes) {
      std::string out;
      for (const char c : bytes) out += table.byte_to_utf8[static_cast<unsigned char>(c)];
      return out;
    };
    std::unordered_map<std::string_view, std::uint32_t> rank_of;
    std::unordered_map<std::uint32_t, std::string_view> token_of;
    rank_of.reserve(ranks.size());
    token_of.reserve(ranks.size());
    detail::VocabBuilder vocab;
    for (const auto& [bytes, rank] : ranks) {
      if (bytes.empty()) throw Error("byte ranks: token of rank " + std::to_string(rank) + " is empty");
      if (rank == kNoId) throw Error("byte ranks: rank 4294967295 is reserved (token \"" + level_text(bytes) + "\")");
      if (!rank_of.emplace(bytes, rank).second) {
        throw Error("byte ranks: token \"" + level_text(bytes) + "\" (byte-level text) is given twice");
      }
      if (auto [at, fresh] = token_of.emplace(rank, bytes); !fresh) {
        throw Error("byte ranks: rank " + std::to_string(rank) + " is given to both \"" +
                    level_text(at->second) + "\" and \"" + level_text(bytes) + "\" (byte-level text)");
      }
      vocab.add(level_text(bytes), rank);
    }
    for (int b = 0; b < 256; ++b) {
      const char c = static_cast<char>(b);
      if (!rank_of.contains(std::string_view(&c, 1))) {
        static constexpr char hex[] = "0123456789ABCDEF";
        throw Error(std::string("byte ranks: byte 0x") + hex[b >> 4] + hex[b & 15] +
                    " has no rank (every single byte needs one)");
      }
    }
    detail::U64MapBuilder merges;
    merges.reserve(2 * ranks.size());
    for (const auto& [bytes, rank] : ranks) {
      const std::string_view token = bytes;
      for (std::size_t cut = 1; cut < token.size(); ++cut) {
        const auto left = rank_of.find(token.substr(0, cut));
        if (left == rank_of.end()) continue;
        const auto right = rank_of.find(token.substr(cut));
        if (right == rank_of.end()) continue;
        merges.put(pair_key(left->second, right->second), (std::uint64_t{rank} << 32) | rank);
      }
    }
    model->vocab_ = std::move(vocab).build("byte ranks");
    model->merges_ = std::move(merges).build();
    model->init_byte_level_path();
    return model;
  }

  /// Appends the bytes each id stands for (its token's byte-level chars
  /// mapped back, as the ByteLevel decoder does, without the UTF-8 step) to
  /// `out`; returns how many ids were done: ids.size(), or the index of the
  /// first id that is no token or whose token is not byte-level text, e.g.
  ///   std::string bytes;
  ///   if (model.append_token_bytes(ids, bytes) == ids.size()) { /* all done */ }
  std::size_t append_token_bytes(std::span<const std::uint32_t> ids, std::string& out) const {
    for (std::size_t n = 0; n < ids.size(); ++n) {
      const std::optional<std::string_view> token = vocab_.token(ids[n]);
      if (!token || !append_raw_bytes(*token, out)) return n;
    }
    return ids.size();
  }

  /// True when every byte's byte-level char is a vocabulary token and no
  /// prefix/suffix applies: pieces can then be merged from raw bytes
  /// (merge_raw) with the same result as from their byte-level text.
  bool byte_level_ready() const noexcept { return byte_level_ready_; }
  /// True when a piece always gives the same ids (no dropout), so callers may
  /// cache them.
  bool deterministic() const noexcept { return !dropout_; }
  /// True when a continuing_subword_prefix or end_of_word_suffix applies.
  bool has_affixes() const noexcept { return prefix_ || suffix_; }
  bool ignore_merges() const noexcept { return ignore_merges_; }
  /// A number no other model instance in this process has (cache owner key).
  std::uint64_t uid() const noexcept { return uid_; }

  /// merge_raw's default chunk_ids: merge_raw_chunk, nothing remembered.
  auto chunk_merger() const noexcept {
    return [this](std::string_view chunk, std::uint32_t* at) { return merge_raw_chunk(chunk, at); };
  }

  /// Writes the ids of a piece given as raw bytes to out[0..), as tokenize()
  /// gives for its byte-level rewrite, and returns their count (at most
  /// raw.size()). Requires byte_level_ready(). Short pieces merge on the
  /// stack by a linear scan for the lowest (rank, position) pair; long
  /// ones (see kChunkFromBytes) in chunks, never quadratic.
  std::size_t merge_raw(std::string_view raw, std::uint32_t* out) const {
    return merge_raw(raw, out, chunk_merger());
  }

  /// merge_raw, where a long piece is cut into
  /// chunks that merge apart (merge_raw_in_chunks) and `chunk_ids(chunk,
  /// out)` writes each chunk's ids, those of merge_raw_chunk(chunk, out)
  /// (a caller may remember them: chunks repeat where whole pieces do not).
  template <class ChunkIds>
  std::size_t merge_raw(std::string_view raw, std::uint32_t* out, ChunkIds&& chunk_ids) const {
    if (raw.empty()) return 0;
    if (ignore_merges_ && !dropout_) {  // as tokenize(): dropout skips it
      if (auto id = whole_raw_token(raw)) {
        out[0] = *id;
        return 1;
      }
    }
    if (dropout_) return merge_raw_on_heap(raw, out);
    if (raw_tokens_->ready() ? raw.size() >= kChunkFromBytes : long_piece_builds_tables(raw.size())) {
      return merge_raw_in_chunks(raw, out, chunk_ids);
    }
    if (raw.size() <= kStackMergeBytes) return merge_raw_on_stack(raw, out);
    return rent_heap([&] { return merge_raw_on_heap(raw, out); });
  }

  /// Writes the ids the merges build from the raw bytes of `chunk` to
  /// out[0..) and returns their count (no whole-token shortcut: a chunk is
  /// part of a longer piece). Requires byte_level_ready() and no dropout.
  std::size_t merge_raw_chunk(std::string_view chunk, std::uint32_t* out) const {
    return chunk.size() <= kStackMergeBytes ? merge_raw_on_stack(chunk, out) : merge_raw_on_heap(chunk, out);
  }

  /// Writes the ids tokenize() gives for `piece` to out[0..) and returns
  /// their count (at most piece.size()), without the general path's cache:
  /// for a fused path that caches pieces itself.
  std::size_t merge_ids(std::string_view piece, std::uint32_t* out) const {
    if (piece.empty()) return 0;
    if (ignore_merges_ && !dropout_) {
      if (auto id = vocab_.find(piece)) {
        out[0] = *id;
        return 1;
      }
    }
    if (!dropout_) {
      std::uint32_t sym[kStackMergeBytes + kShiftStep];
      if (const std::size_t n = token_chars(piece, sym)) return merge_on_stack(sym, n, out);
    }
    thread_local std::vector<Symbol> symbols;
    initial_symbols(piece, symbols);
    if (symbols.size() <= kStackMergeBytes && !dropout_) {
      std::uint32_t sym[kStackMergeBytes + kShiftStep];
      for (std::size_t i = 0; i < symbols.size(); ++i) sym[i] = symbols[i].id;
      return merge_on_stack(sym, symbols.size(), out);
    }
    return merge_to(symbols, out);
  }

  void tokenize(std::string_view piece, std::vector<RawToken>& out) const override {
    if (piece.empty() || add_whole_token(piece, out)) return;
    if (!dropout_ && cache_.lookup(piece, out)) return;
    const std::size_t first = out.size();
    merge_word(piece, out);
    if (!dropout_) cache_.store(piece, out.data() + first, out.size() - first);
  }
  void tokenize_uncached(std::string_view piece, std::vector<RawToken>& out) const override {
    if (piece.empty() || add_whole_token(piece, out)) return;
    merge_word(piece, out);
  }

  std::string_view type_name() const override { return "BPE"; }

  void save_tables(st::Writer& out) const override {
    vocab_.save(out);
    out.add(st::SectionType::bpe_merges, merges_.slots());
    if (!short_tokens_.empty()) out.add(st::SectionType::bpe_short_tokens, short_tokens_.buckets());
    if (byte_level_ready_) {  // built here if no piece needed it yet
      const RawTokens& raw = raw_token_table();
      out.add(st::SectionType::bpe_raw_trie_cells, raw.trie.cell_table().span());
      out.add(st::SectionType::bpe_raw_trie_values, raw.trie.value_table().span());
      out.add(st::SectionType::bpe_raw_pairs, std::span<const std::uint64_t>(raw.pairs));
    }
  }

  /// The vocabulary and `"merges":[["a","b"],...]` in rank order.
  std::string tables_json() const override {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> merges;  // (rank, pair key)
    for (const auto& slot : merges_.slots()) {
      if (slot.key != detail::U64Map::kEmpty) merges.emplace_back(slot.value >> 32, slot.key);
    }
    std::sort(merges.begin(), merges.end());
    std::string out = VocabModel::tables_json() + ",\"merges\":[";
    for (std::size_t i = 0; i < merges.size(); ++i) {
      const auto part = [&](std::uint64_t id) {
        return detail::json_quote(id_to_token(static_cast<std::uint32_t>(id)).value_or(""));
      };
      if (i) out += ',';
      out += "[" + part(merges[i].second >> 32) + "," + part(merges[i].second & 0xFFFFFFFFu) + "]";
    }
    return out + "]";
  }

  /// Sets the byte budget of the general path's piece cache (0 disables it).
  void set_cache_budget(std::size_t bytes) override { cache_.set_budget(bytes); }

  /// Whether the tables that cut long pieces exist: viewed in the .st image
  /// the model was loaded from, built by save_tables, or built once long
  /// pieces have cost the heap about as much as building them
  /// (kHeapNanosPerToken).
  bool long_piece_tables_ready() const noexcept { return raw_tokens_->ready(); }

  /// Pieces of up to this many bytes merge on the stack (merge_raw), longer
  /// ones in chunks once the chunks' trie exists, else on the heap.
  static constexpr std::size_t kStackMergeBytes = 48;
  /// Once the chunks' trie exists, pieces of at least this many bytes merge
  /// in chunks too: a 40-byte piece of CJK text costs the stack's quadratic
  /// scan 4x more than its chunks.
  static constexpr std::size_t kChunkFromBytes = 16;
  /// The trie is built once the pieces over kStackMergeBytes merged on the
  /// heap without it have taken this many nanoseconds per vocabulary token,
  /// a quarter of what the build costs (GPT-2 17 ms, o200k 88 ms on one
  /// core): a rent-or-buy rule, so English prose, with a few hundred long
  /// pieces in 48 MB, never pays for it (o200k's pass 27% faster), and CJK
  /// text, whose pieces are sentences, pays it early (5 MB of Japanese,
  /// o200k: 5-8% slower). A .st image holds it.
  static constexpr std::uint64_t kHeapNanosPerToken = 100;

 private:
  static constexpr std::uint32_t kNoId = 0xFFFFFFFFu;

  BpeModel() = default;  // from_byte_ranks fills it

  struct Symbol {
    std::uint32_t id;
    std::int32_t prev;
    std::int32_t next;
    std::uint32_t len;  // bytes; 0 once merged into its left neighbour
  };
  struct Merge {
    std::uint64_t order;  // rank << 32 | position: HF's Merge Ord (lowest rank, then leftmost)
    std::uint32_t new_id;
    std::uint32_t pos() const noexcept { return static_cast<std::uint32_t>(order); }
  };
  // The heap's order, as a function object (the heap calls inline it): the
  // merge to apply first is the greatest.
  struct Later {
    bool operator()(const Merge& a, const Merge& b) const noexcept { return a.order > b.order; }
  };

  // Merges are either all ["a", "b"] pairs or all "a b" strings (HF's two
  // accepted forms); in the string form "#version" lines are skipped and do
  // not count as ranks.
  void read_merges(const detail::Json& json) {
    // The raw elements, not Json nodes: a node's path string cost more
    // than the merge itself (o200k has 446,000 merges); a path is made
    // only for an error.
    const detail::Json merges = json.at("merges");
    simdjson::dom::array arr;
    if (merges.raw().get_array().get(arr) != simdjson::SUCCESS) {
      merges.fail("expected an array, got " + merges.type_name());
    }
    detail::U64MapBuilder builder;
    builder.reserve(arr.size());
    const std::size_t prefix_len = prefix_ ? prefix_->size() : 0;
    const bool strings = arr.size() != 0 && arr.at(0).is_string();
    std::uint32_t rank = 0;
    std::size_t index = 0;
    std::string merged;
    for (simdjson::dom::element item : arr) {
      const std::size_t at = index++;
      const auto node = [&] { return detail::Json(item, merges.path() + "[" + std::to_string(at) + "]"); };
      std::string_view a, b;
      if (strings) {
        std::string_view s;
        if (item.get_string().get(s) != simdjson::SUCCESS) {
          node().fail("expected a string like the first merge, got " + node().type_name());
        }
        if (s.starts_with("#version")) continue;
        const std::size_t space = s.find(' ');
        if (space == std::string_view::npos || s.find(' ', space + 1) != std::string_view::npos) {
          node().fail("merge \"" + std::string(s) + "\" is not two tokens separated by one space");
        }
        a = s.substr(0, space);
        b = s.substr(space + 1);
      } else {
        simdjson::dom::array pair;
        if (item.get_array().get(pair) != simdjson::SUCCESS) {
          node().fail("expected a pair of tokens, got " + node().type_name());
        }
        if (pair.size() != 2) node().fail("expected a pair of tokens");
        const auto part = [&](std::size_t k) {
          std::string_view t;
          if (pair.at(k).get_string().get(t) != simdjson::SUCCESS) {  // str() throws, naming it
            detail::Json(pair.at(k).value(), node().path() + "[" + std::to_string(k) + "]").str();
          }
          return t;
        };
        a = part(0);
        b = part(1);
      }
      const auto a_id = vocab_.find(a);
      const auto b_id = vocab_.find(b);
      if (!a_id) node().fail("merge token \"" + std::string(a) + "\" is not in the vocabulary");
      if (!b_id) node().fail("merge token \"" + std::string(b) + "\" is not in the vocabulary");
      if (b.size() < prefix_len) node().fail("merge token \"" + std::string(b) + "\" is shorter than the prefix");
      merged.assign(a);
      merged.append(b.substr(prefix_len));
      const auto new_id = vocab_.find(merged);
      if (!new_id) node().fail("merged token \"" + merged + "\" is not in the vocabulary");
      builder.put(pair_key(*a_id, *b_id), (std::uint64_t{rank} << 32) | *new_id);
      ++rank;
    }
    merges_ = std::move(builder).build();
  }

  // Views the merges of a .st image, after checking that every pair and
  // every merged token is a vocabulary id.
  void load_merges(const st::Image& image) {
    const std::uint64_t bound = vocab_.id_bound();
    merges_ = detail::U64Map::view(
        image.section<detail::U64Map::Slot>(st::SectionType::bpe_merges), image, "bpe.merges",
        "a merge holds an id past the vocabulary", [bound](std::uint64_t key, std::uint64_t value) {
          return std::max({key >> 32, key & 0xFFFFFFFFu, value & 0xFFFFFFFFu}) < bound;
        });
  }

  static std::uint64_t pair_key(std::uint32_t a, std::uint32_t b) noexcept {
    return (std::uint64_t{a} << 32) | b;
  }

  std::uint32_t unk_id() const {
    auto id = vocab_.find(*unk_token_);
    if (!id) throw Error("model.unk_token: \"" + *unk_token_ +
                        "\" is needed for an unknown character but is not in the vocabulary");
    return *id;
  }

  // Initial symbols for `w`, then all merges; appends the result to `out`.
  void merge_word(std::string_view w, std::vector<RawToken>& out) const {
    if (w.size() > kStackMergeBytes && merge_level_in_chunks(w, out)) return;
    thread_local std::vector<Symbol> symbols;
    initial_symbols(w, symbols);
    if (symbols.size() > kStackMergeBytes && !raw_tokens_->ready()) {
      rent_heap([&] {
        merge_all(symbols);
        return symbols.size();
      });
    } else {
      merge_all(symbols);
    }
    emit(symbols, out);
  }

  // Writes initial_symbols' ids for `piece` to sym and returns their count
  // when each char is a token or falls back to byte tokens, there are at
  // most kStackMergeBytes of them, and no prefix or suffix applies. Returns
  // 0 otherwise (initial_symbols settles unknown chars).
  std::size_t token_chars(std::string_view piece, std::uint32_t* sym) const {
    if (prefix_ || suffix_) return 0;
    std::size_t n = 0;
    for (std::size_t i = 0; i < piece.size();) {
      const std::size_t len = detail::utf8_len(static_cast<unsigned char>(piece[i]));
      const std::optional<std::uint32_t> id = len == 1 ? ascii_id(piece[i]) : vocab_.find(piece.substr(i, len));
      if (id) {
        if (n == kStackMergeBytes) return 0;
        sym[n++] = *id;
        i += len;
        continue;
      }
      if (!byte_fallback_) return 0;
      for (const std::size_t end = std::min(i + len, piece.size()); i < end; ++i) {
        const std::uint32_t byte = byte_ids_[static_cast<unsigned char>(piece[i])];
        if (byte == kNoId || n == kStackMergeBytes) return 0;
        sym[n++] = byte;
      }
    }
    return n;
  }

  // The symbols of `w` before any merge: its chars (with the prefix and
  // suffix), byte-fallback bytes, unknown runs.
  void initial_symbols(std::string_view w, std::vector<Symbol>& symbols) const {
    thread_local std::string scratch;
    symbols.clear();
    auto add = [&](std::uint32_t id, std::uint32_t len) {
      const auto n = static_cast<std::int32_t>(symbols.size());
      symbols.push_back({id, n - 1, n + 1, len});
    };
    // The pending unknown run (as HF: a byte-fallback char does not end it).
    bool unk = false;
    std::uint32_t unk_len = 0;
    for (std::size_t i = 0; i < w.size();) {
      const std::size_t start = i;
      i += detail::utf8_len(static_cast<unsigned char>(w[i]));
      const auto byte_len = static_cast<std::uint32_t>(i - start);
      std::string_view s = w.substr(start, byte_len);
      if ((start != 0 && prefix_) || (i == w.size() && suffix_)) {
        scratch.clear();
        if (start != 0 && prefix_) scratch += *prefix_;
        scratch += s;
        if (i == w.size() && suffix_) scratch += *suffix_;
        s = scratch;
      }
      const std::optional<std::uint32_t> id =
          s.size() == 1 && static_cast<unsigned char>(s[0]) < 0x80 ? ascii_id(s[0]) : vocab_.find(s);
      if (id) {
        if (unk) {
          add(unk_id(), unk_len);
          unk = false;
        }
        add(*id, byte_len);
        continue;
      }
      if (byte_fallback_ &&
          std::all_of(s.begin(), s.end(), [&](char c) {
            return byte_ids_[static_cast<unsigned char>(c)] != kNoId;
          })) {
        for (const char c : s) add(byte_ids_[static_cast<unsigned char>(c)], 1);
        continue;
      }
      if (unk_token_) {
        if (unk && fuse_unk_) {
          unk_len += byte_len;
        } else {
          if (unk) add(unk_id(), unk_len);
          (void)unk_id();  // throws when the token is not in the vocabulary
          unk = true;
          unk_len = byte_len;
        }
      }
    }
    if (unk) add(unk_id(), unk_len);
    if (!symbols.empty()) symbols.back().next = -1;
  }

  // merge_word for a long piece of byte-level chars (no affixes, no
  // dropout): its raw bytes merge in chunks (merge_raw_in_chunks), the same
  // merges as the heap's over the whole piece, and each token spans the
  // bytes of its vocabulary string. Returns false, appending nothing, for
  // a piece with a char outside the byte-level alphabet, of at most
  // kStackMergeBytes bytes, or that merges on the heap while the chunks'
  // trie is not worth building yet (long_piece_builds_tables).
  bool merge_level_in_chunks(std::string_view w, std::vector<RawToken>& out) const {
    if (!byte_level_ready_ || prefix_ || suffix_ || dropout_) return false;
    thread_local std::string raw;
    thread_local std::vector<std::uint32_t> ids;
    raw.clear();
    const auto& table = detail::byte_level_table();
    for (std::size_t i = 0; i < w.size();) {
      const int byte = table.byte_of(detail::next_cp(w, i));
      if (byte < 0) return false;
      raw.push_back(static_cast<char>(byte));
    }
    if (!long_piece_builds_tables(raw.size())) return false;
    ids.resize(raw.size());
    auto merge_chunk = chunk_merger();
    const std::size_t n = merge_raw_in_chunks(raw, ids.data(), merge_chunk);
    std::uint32_t offset = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const auto len = static_cast<std::uint32_t>(vocab_.token(ids[i])->size());
      out.push_back({ids[i], offset, offset + len});
      offset += len;
    }
    return true;
  }

  // Appends the surviving symbols as tokens with their byte offsets.
  static void emit(const std::vector<Symbol>& symbols, std::vector<RawToken>& out) {
    std::uint32_t offset = 0;
    for (const Symbol& s : symbols) {
      if (s.len == 0) continue;
      out.push_back({s.id, offset, offset + s.len});
      offset += s.len;
    }
  }

  // With ignore_merges, a piece that is a vocabulary token is that token
  // (HF checks it only on its cached path, which dropout skips): appends it
  // and returns true.
  bool add_whole_token(std::string_view piece, std::vector<RawToken>& out) const {
    if (!ignore_merges_ || dropout_) return false;
    const auto id = vocab_.find(piece);
    if (id) out.push_back({*id, 0, static_cast<std::uint32_t>(piece.size()), true});
    return id.has_value();
  }

  // The id of the one-byte token `c` (an ASCII char), when the vocabulary has it.
  std::optional<std::uint32_t> ascii_id(char c) const noexcept {
    const std::uint32_t id = ascii_ids_[static_cast<unsigned char>(c) & 0x7F];
    if (id == kNoId) return std::nullopt;
    return id;
  }

  // Writes the bytes of `token`'s byte-level chars to out[0..room) and
  // returns their count; returns kNotRaw when a char is outside the
  // byte-level alphabet (all of whose chars are below U+0800: one or two
  // UTF-8 bytes) or the bytes do not fit.
  static constexpr std::size_t kNotRaw = ~std::size_t{0};
  static std::size_t raw_bytes(std::string_view token, char* out, std::size_t room) noexcept {
    const auto& table = detail::byte_level_table();
    const auto* s = reinterpret_cast<const unsigned char*>(token.data());
    const std::size_t n = token.size();
    std::size_t written = 0;
    for (std::size_t i = 0; i < n; ++written) {
      char32_t cp = s[i++];
      if (cp >= 0x80) {
        if ((cp & 0xE0) != 0xC0 || i == n || (s[i] & 0xC0) != 0x80) return kNotRaw;
        cp = (cp & 0x1F) << 6 | (s[i++] & 0x3F);
        if (cp < 0x80) return kNotRaw;  // overlong
      }
      const int byte = table.byte_of(cp);
      if (byte < 0 || written == room) return kNotRaw;
      out[written] = static_cast<char>(byte);
    }
    return written;
  }

  // Appends the bytes of `token`'s byte-level chars to `out` and returns
  // true; returns false, appending nothing, when a char is outside the
  // byte-level alphabet.
  static bool append_raw_bytes(std::string_view token, std::string& out) {
    const std::size_t mark = out.size();
    out.resize(mark + token.size());  // a char is at least one byte
    const std::size_t n = raw_bytes(token, out.data() + mark, token.size());
    out.resize(n == kNotRaw ? mark : mark + n);
    return n != kNotRaw;
  }

  // The map of every token whose raw bytes are at most
  // ShortTokenMap::kMaxBytes long (whole_raw_token's short pieces).
  detail::ShortTokenMap short_token_map() const {
    std::vector<std::pair<detail::ShortKey, std::uint32_t>> tokens;
    tokens.reserve(vocab_.size());
    vocab_.for_each([&](std::string_view token, std::uint32_t id) {
      char raw[detail::ShortTokenMap::kMaxBytes];
      const std::size_t n = raw_bytes(token, raw, sizeof raw);
      if (n != kNotRaw && n != 0) tokens.emplace_back(detail::ShortKey::of(raw, n, false), id);
    });
    return detail::ShortTokenMap(tokens);
  }

  void init_byte_level_path() {
    for (unsigned b = 0; b < 128; ++b) {
      const char c = static_cast<char>(b);
      ascii_ids_[b] = vocab_.find(std::string_view(&c, 1)).value_or(kNoId);
    }
    uid_ = runtime::new_cache_owner();
    raw_tokens_ = std::make_shared<RawTokens>();
    byte_level_ready_ = !prefix_ && !suffix_;
    const auto& table = detail::byte_level_table();
    for (int b = 0; b < 256 && byte_level_ready_; ++b) {
      const auto id = vocab_.find(table.byte_to_utf8[b]);
      if (!id) byte_level_ready_ = false;
      raw_byte_ids_[b] = id.value_or(kNoId);
    }
    if (byte_level_ready_ && ignore_merges_ && short_tokens_.empty()) short_tokens_ = short_token_map();
    cache_.set_budget(detail::PieceCache::kDefaultBudget);
  }

  // The vocabulary id of the whole raw piece's byte-level text, if any
  // (with ignore_merges). A short piece asks the short-token map (one cache
  // line); a longer one the trie of raw tokens when it exists (it gives up
  // at the first byte no token goes on with, where a hash lookup would
  // first rewrite and hash the whole piece), else the vocabulary.
  std::optional<std::uint32_t> whole_raw_token(std::string_view raw) const {
    if (raw.size() <= detail::ShortTokenMap::kMaxBytes) {
      const std::uint32_t id = short_tokens_.find(detail::ShortKey::of(raw.data(), raw.size(), false));
      if (id == detail::ShortTokenMap::kNone) return std::nullopt;
      return id;
    }
    if (raw_tokens_->ready()) {
      const std::uint32_t id = raw_token_table().trie.find(raw);
      if (id == detail::DoubleArrayTrie::kNone) return std::nullopt;
      return id;
    }
    const auto& table = detail::byte_level_table();
    char stack[256];  // a byte-level char is at most 2 bytes
    thread_local std::string heap;
    char* level = stack;
    if (2 * raw.size() > sizeof stack) {
      heap.resize(2 * raw.size());
      level = heap.data();
    }
    std::size_t n = 0;
    for (const char c : raw) {
      const std::string& ch = table.byte_to_utf8[static_cast<unsigned char>(c)];
      for (const char b : ch) level[n++] = b;
    }
    return vocab_.find(std::string_view(level, n));
  }

  // Returns (rank << 32 | new id) of merging `left` and `right`, or kNoMerge.
  static constexpr std::uint64_t kNoMerge = ~std::uint64_t{0};
  std::uint64_t merge_of(std::uint32_t left, std::uint32_t right) const noexcept {
    const std::uint64_t* m = merges_.find(pair_key(left, right));
    return m ? *m : kNoMerge;
  }

  // merge_raw through the heap (merge_all): any piece, dropout included.
  std::size_t merge_raw_on_heap(std::string_view raw, std::uint32_t* out) const {
    thread_local std::vector<Symbol> symbols;
    symbols.clear();
    for (std::size_t i = 0; i < raw.size(); ++i) {
      const auto n = static_cast<std::int32_t>(i);
      symbols.push_back({raw_byte_ids_[static_cast<unsigned char>(raw[i])], n - 1, n + 1, 1});
    }
    symbols.back().next = -1;
    return merge_to(symbols, out);
  }

  // Merges `symbols` through the heap (merge_all), writes the ids left to
  // out[0..) and returns their count.
  std::size_t merge_to(std::vector<Symbol>& symbols, std::uint32_t* out) const {
    merge_all(symbols);
    std::size_t n = 0;
    for (const Symbol& sym : symbols) {
      if (sym.len != 0) out[n++] = sym.id;
    }
    return n;
  }

  // merge_raw for a long piece without dropout. Every symbol the merges
  // build is a vocabulary token spelling the bytes it covers, so where no
  // token occurs across a position of the piece, no merge ever reaches
  // across it: the two sides merge apart, each in the order it would in
  // the whole (no pair across the cut has a merge, so none enters the
  // heap). Cuts at every such position (found with the trie of the tokens'
  // raw bytes: the longest token at each byte) and has chunk_ids write each
  // chunk's ids (merge_raw_chunk: on the stack when it is short). CJK text
  // under a mostly English vocabulary falls into chunks of a char or two,
  // where the heap paid several lookups per byte.
  template <class ChunkIds>
  std::size_t merge_raw_in_chunks(std::string_view raw, std::uint32_t* out, ChunkIds& chunk_ids) const {
    const RawTokens& raw_tokens = raw_token_table();
    const detail::DoubleArrayTrie& tokens = raw_tokens.trie;
    const auto* b = reinterpret_cast<const unsigned char*>(raw.data());
    const std::size_t n = raw.size();
    auto merge_chunk = [&](std::size_t from, std::size_t to, std::uint32_t* at) -> std::size_t {
      if (to - from == 1) {  // a byte no token goes on from: its own id (common in CJK text)
        *at = raw_byte_ids_[b[from]];
        return 1;
      }
      return chunk_ids(std::string_view(raw.data() + from, to - from), at);
    };
    std::size_t written = 0;
    std::size_t start = 0;  // of the chunk in progress
    std::size_t reach = 0;  // the furthest end of a token occurring at or after `start`
    for (std::size_t i = 0; i < n; ++i) {
      if (reach == i && i > start) {  // every token before i ends by i
        written += merge_chunk(start, i, out + written);
        start = i;
      }
      // Every byte is a token; a longer one at i starts with b[i] b[i + 1]
      // (two bytes in three start none in CJK text: no walk there).
      reach = std::max(reach, i + 1);
      if (i + 1 == n || !raw_tokens.starts_pair(b[i], b[i + 1])) continue;
      std::int32_t node = 0;
      for (std::size_t k = i; k < n && (node = tokens.child(node, b[k])) >= 0; ++k) {
        if (tokens.ends_key(node)) reach = std::max(reach, k + 1);
      }
    }
    return written + merge_chunk(start, n, out + written);
  }

  // True when a piece of `bytes` bytes is to merge in chunks through the
  // raw tokens' trie: it is longer than kStackMergeBytes, and the trie
  // exists or long pieces have taken the heap long enough that it is worth
  // building now (kHeapNanosPerToken; raw_token_table builds it). Otherwise
  // the piece merges on the heap, timed by rent_heap.
  bool long_piece_builds_tables(std::size_t bytes) const noexcept {
    if (bytes <= kStackMergeBytes) return false;
    const RawTokens& raw = *raw_tokens_;
    return raw.ready() || raw.heap_nanos.load(std::memory_order_relaxed) >= kHeapNanosPerToken * vocab_.id_bound();
  }

  // Returns merge() (a count), a long piece's merge on the heap while no trie exists,
  // adding its time to what long pieces have cost (long_piece_builds_tables).
  template <class Merge>
  std::size_t rent_heap(Merge&& merge) const {
    const auto start = std::chrono::steady_clock::now();
    const std::size_t result = merge();
    const auto spent = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);
    raw_tokens_->heap_nanos.fetch_add(static_cast<std::uint64_t>(spent.count()), std::memory_order_relaxed);
    return result;
  }

  // Every vocabulary token's raw bytes (a token spelled with chars outside
  // the byte-level alphabet is never built by merges, and is left out).
  struct RawTokens {
    std::once_flag built;
    std::atomic<bool> done{false};  // set once trie and pairs are built
    // Time long pieces took on the heap while no trie existed (rent_heap).
    std::atomic<std::uint64_t> heap_nanos{0};
    detail::DoubleArrayTrie trie;  // raw bytes -> token id
    std::array<std::uint64_t, 1024> pairs{};  // bit b0 << 8 | b1: a token starts with b0 b1

    bool starts_pair(unsigned char b0, unsigned char b1) const noexcept {
      const unsigned bit = unsigned{b0} << 8 | b1;
      return (pairs[bit >> 6] >> (bit & 63)) & 1;
    }
    bool ready() const noexcept { return done.load(std::memory_order_acquire); }
    void add_pair(char b0, char b1) noexcept {
      const unsigned bit = unsigned{static_cast<unsigned char>(b0)} << 8 | static_cast<unsigned char>(b1);
      pairs[bit >> 6] |= std::uint64_t{1} << (bit & 63);
    }
  };

  // Views the raw tokens of a .st image (RawTokens), when it holds them,
  // after DoubleArrayTrie::view's checks (in bounds, ids of the vocabulary).
  // A file without them builds them on first use.
  void load_raw_tokens(const st::Image& image) {
    const bool has_cells = image.has(st::SectionType::bpe_raw_trie_cells);
    const bool has_values = image.has(st::SectionType::bpe_raw_trie_values);
    const bool has_pairs = image.has(st::SectionType::bpe_raw_pairs);
    if (!has_cells && !has_values && !has_pairs) return;
    if (!has_cells || !has_values || !has_pairs) image.fail("bpe.raw_*: the raw-token trie and pairs must come together");
    detail::DoubleArrayTrie trie = detail::DoubleArrayTrie::view(
        image.section<detail::DoubleArrayTrie::Cell>(st::SectionType::bpe_raw_trie_cells),
        image.section<std::uint32_t>(st::SectionType::bpe_raw_trie_values), image, "bpe.raw_trie",
        static_cast<std::uint32_t>(vocab_.id_bound()));
    const detail::Flat<std::uint64_t> bits = image.section<std::uint64_t>(st::SectionType::bpe_raw_pairs);
    RawTokens& raw = *raw_tokens_;
    if (bits.size() != raw.pairs.size()) {
      image.fail("bpe.raw_pairs: " + std::to_string(bits.size()) + " words, expected " +
                 std::to_string(raw.pairs.size()));
    }
    std::call_once(raw.built, [&] {
      raw.trie = std::move(trie);
      std::copy(bits.data(), bits.data() + bits.size(), raw.pairs.begin());
      raw.done.store(true, std::memory_order_release);
    });
  }

  // The tokens' raw bytes, made on first use (only pieces longer than
  // kStackMergeBytes need them), or viewed in a .st image at load.
  const RawTokens& raw_token_table() const {
    RawTokens& raw = *raw_tokens_;
    std::call_once(raw.built, [&] {
      std::string bytes;
      std::vector<std::pair<std::size_t, std::size_t>> spans;  // [start, end) in bytes
      std::vector<std::uint32_t> ids;
      vocab_.for_each([&](std::string_view token, std::uint32_t id) {
        const std::size_t start = bytes.size();
        if (!append_raw_bytes(token, bytes)) return;
        spans.emplace_back(start, bytes.size());
        ids.push_back(id);
        if (bytes.size() - start >= 2) raw.add_pair(bytes[start], bytes[start + 1]);
      });
      std::vector<std::pair<std::string_view, std::uint32_t>> keys;
      keys.reserve(spans.size());
      for (std::size_t k = 0; k < spans.size(); ++k) {
        const auto [start, end] = spans[k];
        keys.emplace_back(std::string_view(bytes).substr(start, end - start), ids[k]);
      }
      raw.trie.build(std::move(keys));
      raw.done.store(true, std::memory_order_release);
    });
    return raw;
  }

  // merge_raw for short pieces without dropout: repeatedly merges the
  // adjacent pair of lowest rank, leftmost on ties (what the heap in
  // merge_all pops first), in arrays on the stack.
  std::size_t merge_raw_on_stack(std::string_view raw, std::uint32_t* out) const {
    std::uint32_t sym[kStackMergeBytes + kShiftStep];
    for (std::size_t i = 0; i < raw.size(); ++i) sym[i] = raw_byte_ids_[static_cast<unsigned char>(raw[i])];
    return merge_on_stack(sym, raw.size(), out);
  }

  // Moves a[from + 1..to) down to a[from..to - 1), kShiftStep elements at a
  // time (a is readable kShiftStep past `to`): a round of merge_on_stack
  // moves a few elements, where a loop became a call to memmove.
  static constexpr std::size_t kShiftStep = 8;
  template <class T>
  SNAPTOK_ALWAYS_INLINE static void shift_down(T* a, std::size_t from, std::size_t to) noexcept {
    for (std::size_t i = from; i + 1 < to; i += kShiftStep) {
      T step[kShiftStep];
      std::memcpy(step, a + i + 1, sizeof step);
      std::memcpy(a + i, step, sizeof step);
    }
  }

  // Merges the n <= kStackMergeBytes symbols sym[0..n) (no dropout; sym has
  // room for kShiftStep more) by a linear scan for the lowest (rank,
  // position) pair each round, which is the order of HF's heap; writes the
  // result to out and returns its size.
  std::size_t merge_on_stack(std::uint32_t* sym, std::size_t n, std::uint32_t* out) const {
    std::uint64_t pair[kStackMergeBytes + kShiftStep];  // merge of (sym[i], sym[i + 1])
    // Lookups are memory bound: start all of a round's loads, then read.
    for (std::size_t i = 0; i + 1 < n; ++i) merges_.prefetch(pair_key(sym[i], sym[i + 1]));
    for (std::size_t i = 0; i + 1 < n; ++i) pair[i] = merge_of(sym[i], sym[i + 1]);
    while (n > 1) {
      std::size_t best = 0;
      for (std::size_t i = 1; i + 1 < n; ++i) {
        if (pair[i] < pair[best]) best = i;  // rank in the high bits: lowest rank, then leftmost
      }
      if (pair[best] == kNoMerge) break;
      sym[best] = static_cast<std::uint32_t>(pair[best]);
      shift_down(sym, best + 1, n);
      shift_down(pair, best + 1, n - 1);
      --n;
      const bool left = best > 0, right = best + 1 < n;
      if (left) merges_.prefetch(pair_key(sym[best - 1], sym[best]));
      if (right) merges_.prefetch(pair_key(sym[best], sym[best + 1]));
      if (left) pair[best - 1] = merge_of(sym[best - 1], sym[best]);
      if (right) pair[best] = merge_of(sym[best], sym[best + 1]);
    }
    std::copy(sym, sym + n, out);
    return n;
  }

  void merge_all(std::vector<Symbol>& symbols) const {
    thread_local std::vector<Merge> heap;
    thread_local std::vector<Merge> skipped;
    heap.clear();
    skipped.clear();
    auto push = [&](std::uint32_t pos, std::uint32_t left, std::uint32_t right) {
      if (const std::uint64_t* m = merges_.find(pair_key(left, right))) {
        heap.push_back({(*m >> 32 << 32) | pos, static_cast<std::uint32_t>(*m)});
        std::push_heap(heap.begin(), heap.end(), Later{});
      }
    };
    for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
      push(static_cast<std::uint32_t>(i), symbols[i].id, symbols[i + 1].id);
    }
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), Later{});
      const Merge top = heap.back();
      heap.pop_back();
      if (dropout_ && uniform() < *dropout_) {
        skipped.push_back(top);
        continue;
      }
      for (const Merge& m : skipped) {
        heap.push_back(m);
        std::push_heap(heap.begin(), heap.end(), Later{});
      }
      skipped.clear();
      Symbol& cur = symbols[top.pos()];
      if (cur.len == 0 || cur.next == -1) continue;
      const auto next_pos = static_cast<std::size_t>(cur.next);
      const Symbol right = symbols[next_pos];
      const std::uint64_t* m = merges_.find(pair_key(cur.id, right.id));
      if (!m || static_cast<std::uint32_t>(*m) != top.new_id) continue;
      cur.id = top.new_id;
      cur.len += right.len;
      cur.next = right.next;
      symbols[next_pos].len = 0;
      if (right.next >= 0 && static_cast<std::size_t>(right.next) < symbols.size()) {
        symbols[static_cast<std::size_t>(right.next)].prev = static_cast<std::int32_t>(top.pos());
      }
      const Symbol& now = symbols[top.pos()];
      if (now.prev >= 0) {
        push(static_cast<std::uint32_t>(now.prev), symbols[static_cast<std::size_t>(now.prev)].id, now.id);
      }
      if (now.next >= 0 && static_cast<std::size_t>(now.next) < symbols.size()) {
        push(top.pos(), now.id, symbols[static_cast<std::size_t>(now.next)].id);
      }
    }
  }

  static float uniform() {
    thread_local std::mt19937 rng{std::random_device{}()};
    return std::uniform_real_distribution<float>(0.0f, 1.0f)(rng);
  }

  detail::U64Map merges_;  // (left id, right id) -> (rank << 32 | new id)
  std::optional<std::string> unk_token_;
  std::optional<std::string> prefix_;
  std::optional<std::string> suffix_;
  std::optional<float> dropout_;
  bool fuse_unk_ = false;
  bool byte_fallback_ = false;
  bool ignore_merges_ = false;
  std::uint32_t byte_ids_[256] = {};
  std::uint32_t raw_byte_ids_[256] = {};
  bool byte_level_ready_ = false;
  std::uint64_t uid_ = 0;
  std::uint32_t ascii_ids_[128] = {};  // one-byte tokens' ids (merge_word's chars)
  detail::ShortTokenMap short_tokens_;  // with ignore_merges: short raw pieces -> their token
  mutable detail::PieceCache cache_;  // general path: byte-level text -> tokens
  std::shared_ptr<RawTokens> raw_tokens_;  // raw_token_table(), shared by copies
};

}  // namespace snaptok
