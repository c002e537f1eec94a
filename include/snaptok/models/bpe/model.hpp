// BPE model (HF models::bpe): initial symbols from the vocabulary (with
// continuing_subword_prefix / end_of_word_suffix, byte_fallback, unk and
// fuse_unk), then merges by rank, lowest rank and leftmost position first,
// as HF's Word::merge_all. Pieces are cached (bounded budget) unless
// dropout is on. Also built from tiktoken-style byte ranks
// (from_byte_ranks), where every pair that forms a token merges at that
// token's rank.
//
// The parts, in models/bpe/: merges.hpp (the merge table), merge_short.hpp
// (short pieces, on the stack), merge_heap.hpp (any piece, dropout, HF's
// heap), raw_tokens.hpp (tokens by raw bytes: long pieces cut into chunks
// that merge apart), byte_ranks.hpp (tiktoken's ranks), reference.hpp (the
// textbook merge the tests compare every fast one with).
#pragma once

#include <algorithm>
#include <iterator>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
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
#include "snaptok/models/bpe/byte_ranks.hpp"
#include "snaptok/models/bpe/merge_heap.hpp"
#include "snaptok/models/bpe/merge_short.hpp"
#include "snaptok/models/bpe/merges.hpp"
#include "snaptok/models/bpe/raw_tokens.hpp"
#include "snaptok/models/bpe/reference.hpp"
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
    if (image && byte_level_ready_) raw_tokens_->view(*image, static_cast<std::uint32_t>(vocab_.id_bound()));
  }

  /// Returns the byte-level BPE that tiktoken builds from `ranks` (each
  /// token's bytes and its rank, which is also its id; see
  /// bpe/byte_ranks.hpp), where a piece that is a token is that token
  /// (ignore_merges), e.g.
  ///   std::vector<std::pair<std::string, std::uint32_t>> ranks;  // the 256 bytes, then
  ///   ranks.emplace_back("ab", 256);                                  // merged tokens
  ///   auto model = BpeModel::from_byte_ranks(ranks);
  /// Throws snaptok::Error, naming the token, for an empty token, a token or
  /// rank given twice, rank 4294967295 (reserved), or a byte without a rank
  /// (tiktoken needs every single byte).
  static std::shared_ptr<BpeModel> from_byte_ranks(
      std::span<const std::pair<std::string, std::uint32_t>> ranks) {
    std::shared_ptr<BpeModel> model(new BpeModel());
    model->ignore_merges_ = true;
    bpe::VocabAndMerges tables = bpe::from_byte_ranks(ranks);
    model->vocab_ = std::move(tables.vocab);
    model->merges_ = std::move(tables.merges);
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
      if (!token || !bpe::append_raw_bytes(*token, out)) return n;
    }
    return ids.size();
  }

  /// True when no prefix/suffix applies and every byte's byte-level char is
  /// a vocabulary token, or the bytes whose char is not are dropped (no unk
  /// token, no byte fallback, no ignore_merges): pieces can then be merged
  /// from raw bytes (merge_raw) with the same result as from their
  /// byte-level text.
  bool byte_level_ready() const noexcept { return byte_level_ready_; }
  /// True when the vocabulary holds all 256 byte-level chars, so that a
  /// piece's ids cover every one of its bytes (merge_raw drops none).
  bool keeps_every_byte() const noexcept { return !drops_bytes_; }
  /// The byte a byte-fallback token stands for ("<0x41>": 'A'), or nullopt
  /// for any other id.
  std::optional<unsigned char> fallback_byte(std::uint32_t id) const noexcept {
    const std::optional<std::string_view> token = byte_fallback_ ? vocab_.token(id) : std::nullopt;
    if (!token || token->size() != 6 || !token->starts_with("<0x") || (*token)[5] != '>') return std::nullopt;
    const auto hex = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1; };
    const int high = hex((*token)[3]), low = hex((*token)[4]);
    if (high < 0 || low < 0 || byte_ids_[high * 16 + low] != id) return std::nullopt;
    return static_cast<unsigned char>(high * 16 + low);
  }
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
    if (drops_bytes_) [[unlikely]] raw = without_dropped_bytes(raw);
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

  /// merge_raw's ids for `raw` by the textbook merge (bpe/reference.hpp),
  /// slow and obviously right, for the tests and fuzzers to compare every
  /// fast path with: with ignore_merges, a piece whose byte-level text is a
  /// token is that token (looked up in the vocabulary); otherwise the
  /// bytes' tokens merged. Requires byte_level_ready() and no dropout.
  std::vector<std::uint32_t> merge_raw_reference(std::string_view raw) const {
    if (raw.empty()) return {};
    if (ignore_merges_) {
      if (const auto id = vocab_.find(detail::byte_level_table().text_of(raw))) return {*id};
    }
    std::vector<std::uint32_t> symbols;
    for (const char c : raw) {
      const std::uint32_t id = raw_byte_ids_[static_cast<unsigned char>(c)];
      if (id != kNoId) symbols.push_back(id);  // a dropped byte (init_byte_level_path)
    }
    return bpe::reference_merge(merges_, std::move(symbols));
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
      std::uint32_t sym[kStackMergeBytes + bpe::kShiftStep];
      if (const std::size_t n = token_chars(piece, sym)) return bpe::merge_on_stack(merges_, sym, n, out);
    }
    std::vector<bpe::Symbol>& symbols = scratch().word_symbols;
    initial_symbols(piece, symbols);
    if (symbols.size() <= kStackMergeBytes && !dropout_) {
      std::uint32_t sym[kStackMergeBytes + bpe::kShiftStep];
      for (std::size_t i = 0; i < symbols.size(); ++i) sym[i] = symbols[i].id;
      return bpe::merge_on_stack(merges_, sym, symbols.size(), out);
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
    out.add(st::SectionType::bpe_merges, merges_.map().slots());
    if (!short_tokens_.empty()) out.add(st::SectionType::bpe_short_tokens, short_tokens_.buckets());
    if (byte_level_ready_) {  // built here if no piece needed it yet
      const bpe::RawTokens& raw = raw_token_table();
      out.add(st::SectionType::bpe_raw_trie_cells, raw.trie.cell_table().span());
      out.add(st::SectionType::bpe_raw_trie_values, raw.trie.value_table().span());
      out.add(st::SectionType::bpe_raw_pairs, std::span<const std::uint64_t>(raw.pairs));
    }
  }

  /// The vocabulary and `"merges":[["a","b"],...]` in rank order.
  std::string tables_json() const override {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> merges;  // (rank, pair key)
    for (const auto& slot : merges_.map().slots()) {
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
  static constexpr std::size_t kStackMergeBytes = bpe::kStackMergeBytes;
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
  static constexpr std::uint32_t kNoId = bpe::kNoId;

  BpeModel() = default;  // from_byte_ranks fills it

  // Per-thread state. The model is const and shared by every thread; what
  // a merge needs beside the piece lives in one Scratch per thread
  // (scratch()): vectors that keep their capacity from piece to piece, so
  // a warm thread allocates nothing, and the heap's arrays and dropout
  // draws. Each role has its own member, as one role's call may run inside
  // another's (a long word's chunks merge on the heap, raw_symbols, while
  // merge_level_in_chunks holds long_raw and long_ids). Nothing else in
  // the model is per thread: the fused paths keep their caches in the
  // worker's runtime::Workspace, and the general path's cache_ is locked.
  struct Scratch {
    std::vector<bpe::Symbol> word_symbols;  // merge_word, merge_ids
    std::vector<bpe::Symbol> raw_symbols;   // merge_raw_on_heap
    std::string affixed;                    // initial_symbols: a char with the prefix or suffix
    std::string level_text;                 // whole_raw_token: a long piece's byte-level text
    std::string long_raw;                   // merge_level_in_chunks: a piece's raw bytes
    std::vector<std::uint32_t> long_ids;    // and their ids
    std::string kept_bytes;                 // merge_raw: a piece without its dropped bytes
    bpe::HeapScratch heap;                  // merge_all
  };
  static Scratch& scratch() {
    thread_local Scratch s;
    return s;
  }

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
      builder.put(bpe::MergeTable::key(*a_id, *b_id), (std::uint64_t{rank} << 32) | *new_id);
      ++rank;
    }
    merges_ = bpe::MergeTable(std::move(builder).build());
  }

  // Views the merges of a .st image, after checking that every pair and
  // every merged token is a vocabulary id.
  void load_merges(const st::Image& image) {
    const std::uint64_t bound = vocab_.id_bound();
    merges_ = bpe::MergeTable(detail::U64Map::view(
        image.section<detail::U64Map::Slot>(st::SectionType::bpe_merges), image, "bpe.merges",
        "a merge holds an id past the vocabulary", [bound](std::uint64_t key, std::uint64_t value) {
          return std::max({key >> 32, key & 0xFFFFFFFFu, value & 0xFFFFFFFFu}) < bound;
        }));
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
    std::vector<bpe::Symbol>& symbols = scratch().word_symbols;
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
  void initial_symbols(std::string_view w, std::vector<bpe::Symbol>& symbols) const {
    std::string& affixed = scratch().affixed;
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
        affixed.clear();
        if (start != 0 && prefix_) affixed += *prefix_;
        affixed += s;
        if (i == w.size() && suffix_) affixed += *suffix_;
        s = affixed;
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
    // (A model that drops bytes merges such a piece on the heap, which drops
    // them and keeps each token's offsets, as HF does.)
    if (!byte_level_ready_ || drops_bytes_ || prefix_ || suffix_ || dropout_) return false;
    std::string& raw = scratch().long_raw;
    std::vector<std::uint32_t>& ids = scratch().long_ids;
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
  static void emit(const std::vector<bpe::Symbol>& symbols, std::vector<RawToken>& out) {
    std::uint32_t offset = 0;
    for (const bpe::Symbol& s : symbols) {
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

  // The map of every token whose raw bytes are at most
  // ShortTokenMap::kMaxBytes long (whole_raw_token's short pieces).
  detail::ShortTokenMap short_token_map() const {
    std::vector<std::pair<detail::ShortKey, std::uint32_t>> tokens;
    tokens.reserve(vocab_.size());
    vocab_.for_each([&](std::string_view token, std::uint32_t id) {
      char raw[detail::ShortTokenMap::kMaxBytes];
      const std::size_t n = bpe::raw_bytes(token, raw, sizeof raw);
      if (n != bpe::kNotRaw && n != 0) tokens.emplace_back(detail::ShortKey::of(raw, n, false), id);
    });
    return detail::ShortTokenMap(tokens);
  }

  void init_byte_level_path() {
    for (unsigned b = 0; b < 128; ++b) {
      const char c = static_cast<char>(b);
      ascii_ids_[b] = vocab_.find(std::string_view(&c, 1)).value_or(kNoId);
    }
    uid_ = runtime::new_cache_owner();
    raw_tokens_ = std::make_shared<bpe::RawTokens>();
    byte_level_ready_ = !prefix_ && !suffix_;
    const auto& table = detail::byte_level_table();
    for (int b = 0; b < 256; ++b) {
      const auto id = vocab_.find(table.byte_to_utf8[b]);
      raw_byte_ids_[b] = id.value_or(kNoId);
      drops_bytes_ = drops_bytes_ || !id;
    }
    // A byte whose char the vocabulary lacks (Falcon lacks 28) is dropped
    // from the piece before merging, as HF's merge_word drops a char it has
    // no token for when there is neither an unk token nor byte fallback.
    // With ignore_merges the whole piece, dropped bytes included, would be
    // looked up first: not handled here.
    if (drops_bytes_ && (unk_token_ || byte_fallback_ || ignore_merges_)) byte_level_ready_ = false;
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
    char* level = stack;
    if (2 * raw.size() > sizeof stack) {
      std::string& heap = scratch().level_text;
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

  // `raw` without the bytes the vocabulary has no char for (in the
  // thread's scratch when there are any).
  std::string_view without_dropped_bytes(std::string_view raw) const {
    const auto dropped = [this](char c) { return raw_byte_ids_[static_cast<unsigned char>(c)] == kNoId; };
    if (std::none_of(raw.begin(), raw.end(), dropped)) return raw;
    std::string& kept = scratch().kept_bytes;
    kept.clear();
    std::copy_if(raw.begin(), raw.end(), std::back_inserter(kept), [&](char c) { return !dropped(c); });
    return kept;
  }

  // merge_raw through the heap (merge_all): any piece, dropout included.
  std::size_t merge_raw_on_heap(std::string_view raw, std::uint32_t* out) const {
    std::vector<bpe::Symbol>& symbols = scratch().raw_symbols;
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
  std::size_t merge_to(std::vector<bpe::Symbol>& symbols, std::uint32_t* out) const {
    merge_all(symbols);
    std::size_t n = 0;
    for (const bpe::Symbol& sym : symbols) {
      if (sym.len != 0) out[n++] = sym.id;
    }
    return n;
  }

  // merge_raw for a long piece without dropout: cut where no token occurs
  // across (bpe/raw_tokens.hpp), each chunk's ids written by chunk_ids
  // (merge_raw_chunk: on the stack when it is short), a one-byte chunk's
  // (common in CJK text) by its byte's id.
  template <class ChunkIds>
  std::size_t merge_raw_in_chunks(std::string_view raw, std::uint32_t* out, ChunkIds& chunk_ids) const {
    std::size_t written = 0;
    raw_token_table().cut_in_chunks(raw, [&](std::size_t from, std::size_t to) {
      if (to - from == 1) {
        out[written++] = raw_byte_ids_[static_cast<unsigned char>(raw[from])];
      } else {
        written += chunk_ids(raw.substr(from, to - from), out + written);
      }
    });
    return written;
  }

  // True when a piece of `bytes` bytes is to merge in chunks through the
  // raw tokens' trie: it is longer than kStackMergeBytes, and the trie
  // exists or long pieces have taken the heap long enough that it is worth
  // building now (kHeapNanosPerToken; raw_token_table builds it). Otherwise
  // the piece merges on the heap, timed by rent_heap.
  bool long_piece_builds_tables(std::size_t bytes) const noexcept {
    if (bytes <= kStackMergeBytes) return false;
    const bpe::RawTokens& raw = *raw_tokens_;
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

  // The tokens' raw bytes, viewed in a .st image at load, else built at
  // the first call that needs them (long_piece_builds_tables).
  const bpe::RawTokens& raw_token_table() const {
    raw_tokens_->build([&](auto&& add) { vocab_.for_each(add); });
    return *raw_tokens_;
  }

  // merge_raw for short pieces without dropout (bpe/merge_short.hpp).
  std::size_t merge_raw_on_stack(std::string_view raw, std::uint32_t* out) const {
    std::uint32_t sym[kStackMergeBytes + bpe::kShiftStep];
    for (std::size_t i = 0; i < raw.size(); ++i) sym[i] = raw_byte_ids_[static_cast<unsigned char>(raw[i])];
    return bpe::merge_on_stack(merges_, sym, raw.size(), out);
  }

  // Applies every merge to `symbols` in HF's order (bpe/merge_heap.hpp).
  void merge_all(std::vector<bpe::Symbol>& symbols) const { bpe::merge_all(merges_, symbols, dropout_, scratch().heap); }

  bpe::MergeTable merges_;
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
  bool drops_bytes_ = false;  // some byte's char is no token (init_byte_level_path)
  std::uint64_t uid_ = 0;
  std::uint32_t ascii_ids_[128] = {};  // one-byte tokens' ids (merge_word's chars)
  detail::ShortTokenMap short_tokens_;  // with ignore_merges: short raw pieces -> their token
  mutable detail::PieceCache cache_;  // general path: byte-level text -> tokens
  std::shared_ptr<bpe::RawTokens> raw_tokens_;  // raw_token_table(), shared by copies
};

}  // namespace snaptok
