// BPE model (HF models::bpe): initial symbols from the vocabulary (with
// continuing_subword_prefix / end_of_word_suffix, byte_fallback, unk and
// fuse_unk), then merges by rank, lowest rank and leftmost position first,
// through a min-heap with stale-entry checks exactly as HF's Word::merge_all.
// Pieces are cached (bounded budget) unless dropout is on.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "snaptok/detail/byte_level_table.hpp"
#include "snaptok/detail/hash.hpp"
#include "snaptok/detail/json.hpp"
#include "snaptok/detail/piece_cache.hpp"
#include "snaptok/detail/utf8.hpp"
#include "snaptok/models/model.hpp"

namespace snaptok {

class BpeModel final : public VocabModel {
 public:
  /// Reads `{"type": "BPE", "vocab": {...}, "merges": [...], ...}`.
  explicit BpeModel(const detail::Json& json) {
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

    read_vocab(json.at("vocab"));
    read_merges(json);
    if (byte_fallback_) {
      for (int b = 0; b < 256; ++b) {
        static constexpr char hex[] = "0123456789ABCDEF";
        const char name[] = {'<', '0', 'x', hex[b >> 4], hex[b & 15], '>'};
        byte_ids_[b] = vocab_.find(std::string_view(name, 6)).value_or(kNoId);
      }
    }
    init_byte_level_path();
  }

  /// True when every byte's byte-level char is a vocabulary token and no
  /// prefix/suffix applies: pieces can then be merged from raw bytes
  /// (tokenize_raw_bytes) with the same result as from their byte-level text.
  bool byte_level_ready() const noexcept { return byte_level_ready_; }

  /// Appends the ids of a piece given as raw bytes, as tokenize() would give
  /// for its byte-level rewrite. Requires byte_level_ready().
  void tokenize_raw_bytes(std::string_view raw, std::vector<std::uint32_t>& ids) const {
    if (raw.empty()) return;
    if (ignore_merges_ && !dropout_) {  // as tokenize(): dropout skips it
      thread_local std::string level;
      level.clear();
      const auto& table = detail::byte_level_table();
      for (const char c : raw) level += table.byte_to_utf8[static_cast<unsigned char>(c)];
      if (auto id = vocab_.find(level)) {
        ids.push_back(*id);
        return;
      }
    }
    const bool cached = !dropout_ && raw_cache_.budget() != 0;
    if (cached && detail::lookup_small(uid_, raw, ids)) return;
    thread_local std::vector<RawToken> tokens;
    tokens.clear();
    if (!cached || !raw_cache_.lookup(raw, tokens)) {
      thread_local std::vector<Symbol> symbols;
      symbols.clear();
      for (std::size_t i = 0; i < raw.size(); ++i) {
        const auto n = static_cast<std::int32_t>(i);
        symbols.push_back({raw_byte_ids_[static_cast<unsigned char>(raw[i])], n - 1, n + 1, 1});
      }
      symbols.back().next = -1;
      merge_all(symbols);
      emit(symbols, tokens);
      if (cached) raw_cache_.store(raw, tokens.data(), tokens.size());
    }
    const std::size_t first = ids.size();
    for (const RawToken& t : tokens) ids.push_back(t.id);
    if (cached) detail::store_small(uid_, raw, ids.data() + first, ids.size() - first);
  }

  void tokenize(std::string_view piece, std::vector<RawToken>& out) const override {
    if (piece.empty()) return;
    // HF checks ignore_merges only on its cached path, which dropout skips.
    if (ignore_merges_ && !dropout_) {
      if (auto id = vocab_.find(piece)) {
        out.push_back({*id, 0, static_cast<std::uint32_t>(piece.size()), true});
        return;
      }
    }
    if (!dropout_ && cache_.lookup(piece, out)) return;
    const std::size_t first = out.size();
    merge_word(piece, out);
    if (!dropout_) cache_.store(piece, out.data() + first, out.size() - first);
  }

  /// Sets the total byte budget of the piece caches; with the byte-level
  /// fast path it is shared half and half between its cache (raw bytes) and
  /// the general path's (byte-level text).
  void set_cache_budget(std::size_t bytes) override {
    const std::size_t raw = byte_level_ready_ ? bytes / 2 : 0;
    raw_cache_.set_budget(raw);
    cache_.set_budget(bytes - raw);
  }

 private:
  static constexpr std::uint32_t kNoId = 0xFFFFFFFFu;

  struct Symbol {
    std::uint32_t id;
    std::int32_t prev;
    std::int32_t next;
    std::uint32_t len;  // bytes; 0 once merged into its left neighbour
  };
  struct Merge {
    std::uint32_t rank;
    std::uint32_t pos;
    std::uint32_t new_id;
  };
  // Heap order: lowest rank first, then lowest position (HF's Merge Ord).
  static bool later(const Merge& a, const Merge& b) noexcept {
    return a.rank != b.rank ? a.rank > b.rank : a.pos > b.pos;
  }

  // Merges are either all ["a", "b"] pairs or all "a b" strings (HF's two
  // accepted forms); in the string form "#version" lines are skipped and do
  // not count as ranks.
  void read_merges(const detail::Json& json) {
    const auto merges = json.at("merges").array();
    merges_.reserve(merges.size());
    const std::size_t prefix_len = prefix_ ? prefix_->size() : 0;
    const bool strings = !merges.empty() && merges.front().is_string();
    std::uint32_t rank = 0;
    for (const detail::Json& m : merges) {
      std::string a, b;
      if (strings) {
        if (!m.is_string()) m.fail("expected a string like the first merge, got " + m.type_name());
        const std::string_view s = m.str();
        if (s.starts_with("#version")) continue;
        const std::size_t space = s.find(' ');
        if (space == std::string_view::npos || s.find(' ', space + 1) != std::string_view::npos) {
          m.fail("merge \"" + std::string(s) +
                 "\" is not two tokens separated by one space");
        }
        a = s.substr(0, space);
        b = s.substr(space + 1);
      } else {
        if (!m.is_array()) m.fail("expected a pair of tokens, got " + m.type_name());
        const auto pair = m.array();
        if (pair.size() != 2) m.fail("expected a pair of tokens");
        a = pair[0].str();
        b = pair[1].str();
      }
      const auto a_id = vocab_.find(a);
      const auto b_id = vocab_.find(b);
      if (!a_id) m.fail("merge token \"" + a + "\" is not in the vocabulary");
      if (!b_id) m.fail("merge token \"" + b + "\" is not in the vocabulary");
      if (b.size() < prefix_len) m.fail("merge token \"" + b + "\" is shorter than the prefix");
      const std::string merged = a + b.substr(prefix_len);
      const auto new_id = vocab_.find(merged);
      if (!new_id) m.fail("merged token \"" + merged + "\" is not in the vocabulary");
      merges_.put(pair_key(*a_id, *b_id), (std::uint64_t{rank} << 32) | *new_id);
      ++rank;
    }
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
    thread_local std::vector<Symbol> symbols;
    thread_local std::string scratch;
    symbols.clear();
    auto add = [&](std::uint32_t id, std::uint32_t len) {
      const auto n = static_cast<std::int32_t>(symbols.size());
      symbols.push_back({id, n - 1, n + 1, len});
    };
    std::optional<std::pair<std::uint32_t, std::uint32_t>> unk;  // (id, len)
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
      if (auto id = vocab_.find(s)) {
        if (unk) {
          add(unk->first, unk->second);
          unk.reset();
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
          unk->second += byte_len;
        } else {
          if (unk) add(unk->first, unk->second);
          unk = std::make_pair(unk_id(), byte_len);
        }
      }
    }
    if (unk) add(unk->first, unk->second);
    if (!symbols.empty()) symbols.back().next = -1;
    merge_all(symbols);
    emit(symbols, out);
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

  void init_byte_level_path() {
    static std::atomic<std::uint64_t> next_uid{1};
    uid_ = next_uid.fetch_add(1);
    byte_level_ready_ = !prefix_ && !suffix_;
    const auto& table = detail::byte_level_table();
    for (int b = 0; b < 256 && byte_level_ready_; ++b) {
      const auto id = vocab_.find(table.byte_to_utf8[b]);
      if (!id) byte_level_ready_ = false;
      raw_byte_ids_[b] = id.value_or(kNoId);
    }
    set_cache_budget(detail::PieceCache::kDefaultBudget);
  }

  void merge_all(std::vector<Symbol>& symbols) const {
    thread_local std::vector<Merge> heap;
    thread_local std::vector<Merge> skipped;
    heap.clear();
    skipped.clear();
    auto push = [&](std::uint32_t pos, std::uint32_t left, std::uint32_t right) {
      if (const std::uint64_t* m = merges_.find(pair_key(left, right))) {
        heap.push_back({static_cast<std::uint32_t>(*m >> 32), pos,
                        static_cast<std::uint32_t>(*m)});
        std::push_heap(heap.begin(), heap.end(), later);
      }
    };
    for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
      push(static_cast<std::uint32_t>(i), symbols[i].id, symbols[i + 1].id);
    }
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), later);
      const Merge top = heap.back();
      heap.pop_back();
      if (dropout_ && uniform() < *dropout_) {
        skipped.push_back(top);
        continue;
      }
      for (const Merge& m : skipped) {
        heap.push_back(m);
        std::push_heap(heap.begin(), heap.end(), later);
      }
      skipped.clear();
      Symbol& cur = symbols[top.pos];
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
        symbols[static_cast<std::size_t>(right.next)].prev = static_cast<std::int32_t>(top.pos);
      }
      const Symbol& now = symbols[top.pos];
      if (now.prev >= 0) {
        push(static_cast<std::uint32_t>(now.prev), symbols[static_cast<std::size_t>(now.prev)].id, now.id);
      }
      if (now.next >= 0 && static_cast<std::size_t>(now.next) < symbols.size()) {
        push(top.pos, now.id, symbols[static_cast<std::size_t>(now.next)].id);
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
  mutable detail::PieceCache cache_;      // byte-level text -> tokens
  mutable detail::PieceCache raw_cache_;  // raw bytes -> tokens (fast path)
};

}  // namespace snaptok
