// A double-array trie over byte strings: every node is one 8-byte cell of a
// flat array, a transition is one add and one compare, a common-prefix search
// touches one cell per input byte. Built once from the keys; immutable after.
//
//   cell[t].check == s  and  t == base(s) + byte   <=>   s --byte--> t
//
// Cell 0 is the root. The top bit of a cell's `base` says that a key ends
// there; its value is then values_[cell]. Nodes are laid out breadth first,
// so the short prefixes every search walks share a few cache lines.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "snaptok/detail/flat.hpp"
#include "snaptok/st/image.hpp"

namespace snaptok::detail {

class DoubleArrayTrie {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;

  static constexpr std::uint32_t kEnds = 0x80000000u;
  static constexpr std::uint32_t kBaseMask = 0x7FFFFFFFu;

  struct Cell {
    std::uint32_t base;  // kEnds | first child cell - byte
    std::int32_t check;  // parent cell, or -1 when free
  };

  /// Builds the trie of `keys` (key, value); a repeated key keeps the value of
  /// its last occurrence. Empty keys are ignored.
  void build(std::vector<std::pair<std::string_view, std::uint32_t>> keys) {
    sort_keys(keys);
    // Keep the last of equal keys, packed in sorted order (the walk below
    // then reads them sequentially instead of chasing scattered strings).
    std::string packed;
    std::vector<std::uint32_t> key_at{0};  // key k is packed[key_at[k], key_at[k+1])
    std::vector<std::uint32_t> key_value;
    std::string_view prev;
    for (const auto& [key, value] : keys) {
      if (key.empty()) continue;
      if (!key_value.empty() && prev == key) {
        key_value.back() = value;
        continue;
      }
      packed.append(key);
      key_at.push_back(static_cast<std::uint32_t>(packed.size()));
      key_value.push_back(value);
      prev = key;
    }
    const auto n_keys = static_cast<std::uint32_t>(key_value.size());
    cells_.clear();
    values_.clear();
    next_free_.clear();
    prev_free_.clear();
    fails_.clear();
    free_first_ = free_last_ = -1;
    ensure(256);
    cells_[0].check = -2;  // the root is nobody's child
    take(0);
    struct Range {
      std::int32_t node;
      std::uint32_t lo, hi, depth;
    };
    std::vector<Range> queue;  // breadth first
    if (n_keys) queue.push_back({0, 0, n_keys, 0});
    std::vector<unsigned char> labels;
    std::vector<std::uint32_t> starts;
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const Range r = queue[head];
      std::uint32_t i = r.lo;
      if (key_at[i + 1] - key_at[i] == r.depth) {
        cells_[static_cast<std::size_t>(r.node)].base |= kEnds;
        values_[static_cast<std::size_t>(r.node)] = key_value[i];
        ++i;
      }
      labels.clear();
      starts.clear();
      // The keys of [i, hi) share `depth` bytes and are sorted, so their
      // next bytes ascend: find each run's end by galloping, not by a scan.
      auto byte_at = [&](std::uint32_t k) {
        return static_cast<unsigned char>(packed[key_at[k] + r.depth]);
      };
      while (i < r.hi) {
        const unsigned char c = byte_at(i);
        labels.push_back(c);
        starts.push_back(i);
        std::uint32_t lo = i, step = 1;  // byte_at(lo) == c
        while (lo + step < r.hi && byte_at(lo + step) == c) {
          lo += step;
          step *= 2;
        }
        std::uint32_t hi = std::min(lo + step, r.hi);  // first index known past the run
        while (hi - lo > 1) {
          const std::uint32_t mid = lo + (hi - lo) / 2;
          (byte_at(mid) == c ? lo : hi) = mid;
        }
        i = hi;
      }
      if (labels.empty()) continue;
      starts.push_back(r.hi);
      const std::uint32_t base = find_base(labels);
      cells_[static_cast<std::size_t>(r.node)].base |= base;
      for (std::size_t k = 0; k < labels.size(); ++k) {
        const std::size_t t = base + labels[k];
        cells_[t].check = r.node;
        take(t);
        queue.push_back({static_cast<std::int32_t>(t), starts[k], starts[k + 1], r.depth + 1});
      }
    }
    // Trim unused tail cells, keeping 256 spare so that base + byte of any
    // cell stays in bounds without a size check.
    std::size_t last = 0;
    for (std::size_t t = 0; t < cells_.size(); ++t) {
      if (cells_[t].check != -1) last = t;
    }
    std::uint32_t max_base = 0;
    for (const Cell& c : cells_) max_base = std::max(max_base, c.base & kBaseMask);
    cells_.resize(std::max<std::size_t>(last + 1, max_base) + 256, Cell{0, -1});
    values_.resize(cells_.size(), kNone);
    cell_table_ = Flat<Cell>(std::move(cells_));
    value_table_ = Flat<std::uint32_t>(std::move(values_));
    cells_ = {};
    values_ = {};
    next_free_ = {};
    prev_free_ = {};
    fails_ = {};
  }

  /// Sorts `keys` by key bytes, equal keys in their given order (as a
  /// stable sort would): a radix sort on the keys' first 8 bytes, then a
  /// comparison sort only within each run of keys that share them. A
  /// 200,000-key vocabulary sorts several times faster than by memcmp.
  static void sort_keys(std::vector<std::pair<std::string_view, std::uint32_t>>& keys) {
    struct Entry {
      std::uint64_t prefix;  // the first 8 bytes, big-endian, zero padded
      std::uint32_t index;
    };
    std::vector<Entry> order(keys.size()), scratch(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const std::string_view key = keys[i].first;
      std::uint64_t prefix = 0;
      for (std::size_t b = 0; b < 8; ++b) {
        prefix = prefix << 8 | (b < key.size() ? static_cast<unsigned char>(key[b]) : 0u);
      }
      order[i] = {prefix, static_cast<std::uint32_t>(i)};
    }
    // Least significant byte first; each pass is stable, so equal prefixes
    // keep their index order.
    for (unsigned shift = 0; shift < 64; shift += 8) {
      std::size_t count[257] = {};
      for (const Entry& e : order) ++count[((e.prefix >> shift) & 0xFF) + 1];
      if (count[((order.empty() ? 0 : order[0].prefix >> shift) & 0xFF) + 1] == order.size()) continue;
      for (std::size_t d = 1; d < 257; ++d) count[d] += count[d - 1];
      for (const Entry& e : order) scratch[count[(e.prefix >> shift) & 0xFF]++] = e;
      order.swap(scratch);
    }
    for (std::size_t lo = 0; lo < order.size();) {
      std::size_t hi = lo + 1;
      while (hi < order.size() && order[hi].prefix == order[lo].prefix) ++hi;
      if (hi - lo > 1) {
        std::stable_sort(order.begin() + lo, order.begin() + hi, [&](const Entry& a, const Entry& b) {
          return keys[a.index].first < keys[b.index].first;
        });
      }
      lo = hi;
    }
    std::vector<std::pair<std::string_view, std::uint32_t>> sorted;
    sorted.reserve(keys.size());
    for (const Entry& e : order) sorted.push_back(keys[e.index]);
    keys = std::move(sorted);
  }

  /// Views a trie stored in a .st image, after checking, in one pass over
  /// its cells, that every walk stays in bounds (base + any byte < size)
  /// and that every key's value is a token id under `id_bound`; `what`
  /// names the table.
  static DoubleArrayTrie view(Flat<Cell> cells, Flat<std::uint32_t> values, const st::Image& image,
                              std::string_view what, std::uint32_t id_bound) {
    if (cells.size() < 256 || values.size() != cells.size() || cells.size() > 0x7FFFFFFFu) {
      image.fail(std::string(what) + ": " + std::to_string(cells.size()) + " cells and " +
                 std::to_string(values.size()) + " values (need equal counts of at least 256)");
    }
    bool out_of_bounds = false, bad_id = false;  // (no branch per cell: o200k's raw trie has 440,000)
    for (std::size_t t = 0; t < cells.size(); ++t) {
      out_of_bounds |= (cells[t].base & kBaseMask) + std::size_t{256} > cells.size();
      bad_id |= (cells[t].base & kEnds) != 0 && values[t] >= id_bound;
    }
    if (out_of_bounds) image.fail(std::string(what) + ": a cell's children lie past the end of the trie");
    if (bad_id) image.fail(std::string(what) + ": a token id is past the vocabulary");
    DoubleArrayTrie t;
    t.cell_table_ = std::move(cells);
    t.value_table_ = std::move(values);
    return t;
  }

  /// Returns the child of `node` by `byte`, or -1.
  std::int32_t child(std::int32_t node, unsigned char byte) const noexcept {
    const std::uint32_t t = (cell_table_[static_cast<std::size_t>(node)].base & kBaseMask) + byte;
    return cell_table_[t].check == node ? static_cast<std::int32_t>(t) : -1;
  }

  /// True when a key ends at `node`.
  bool ends_key(std::int32_t node) const noexcept {
    return (cell_table_[static_cast<std::size_t>(node)].base & kEnds) != 0;
  }

  /// Returns the value stored at `node` (kNone when no key ends there).
  std::uint32_t value(std::int32_t node) const noexcept {
    return value_table_[static_cast<std::size_t>(node)];
  }

  /// Calls fn(length, value) for every key that is a prefix of `text`,
  /// shortest first.
  template <class Fn>
  void common_prefixes(std::string_view text, Fn&& fn) const {
    std::int32_t node = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
      node = child(node, static_cast<unsigned char>(text[i]));
      if (node < 0) return;
      if (cell_table_[static_cast<std::size_t>(node)].base & kEnds) fn(i + 1, value(node));
    }
  }

  /// Returns the value of exactly `key`, or kNone.
  std::uint32_t find(std::string_view key) const noexcept {
    std::int32_t node = 0;
    for (const char c : key) {
      node = child(node, static_cast<unsigned char>(c));
      if (node < 0) return kNone;
    }
    return key.empty() ? kNone : value(node);
  }

  const Cell* cells() const noexcept { return cell_table_.data(); }
  const std::uint32_t* values() const noexcept { return value_table_.data(); }
  std::size_t size() const noexcept { return cell_table_.size(); }
  /// The tables, as .st sections hold them.
  const Flat<Cell>& cell_table() const noexcept { return cell_table_; }
  const Flat<std::uint32_t>& value_table() const noexcept { return value_table_; }

 private:
  // Free cells form a doubly linked list in ascending order, so the search
  // for a base visits free cells only, however crowded the array is.
  void ensure(std::size_t n) {
    const std::size_t old = cells_.size();
    if (old >= n) return;
    std::size_t cap = old ? old : 256;
    while (cap < n) cap *= 2;
    cells_.resize(cap, Cell{0, -1});
    values_.resize(cap, kNone);
    next_free_.resize(cap);
    prev_free_.resize(cap);
    fails_.resize(cap, 0);
    for (std::size_t t = old; t < cap; ++t) {
      const auto c = static_cast<std::int32_t>(t);
      prev_free_[t] = free_last_;
      next_free_[t] = -1;
      (free_last_ >= 0 ? next_free_[static_cast<std::size_t>(free_last_)] : free_first_) = c;
      free_last_ = c;
    }
  }

  // Removes cell t from the free list (it is used, or given up on).
  void take(std::size_t t) {
    if (fails_[t] == kUnlisted) return;
    const std::int32_t p = prev_free_[t];
    const std::int32_t n = next_free_[t];
    (p >= 0 ? next_free_[static_cast<std::size_t>(p)] : free_first_) = n;
    (n >= 0 ? prev_free_[static_cast<std::size_t>(n)] : free_last_) = p;
    fails_[t] = kUnlisted;
  }

  // Returns a base >= 1 whose cells base + label are all free: the first
  // free cell that fits the first label, except that a free cell which has
  // failed as the first label's cell kMaxFails times is no longer tried (as
  // Darts closes crowded blocks), which keeps building linear in practice.
  std::uint32_t find_base(const std::vector<unsigned char>& labels) {
    const std::size_t first = labels.front();
    std::int32_t e = free_first_;
    for (;;) {
      if (e < 0) {  // no free cell left that fits: grow and go on
        const std::size_t old = cells_.size();
        ensure(old * 2);
        e = static_cast<std::int32_t>(old);
        continue;
      }
      const auto t = static_cast<std::size_t>(e);
      if (t > first) {
        const std::size_t base = t - first;
        ensure(base + 256);
        bool ok = true;
        for (std::size_t k = 1; k < labels.size(); ++k) {
          if (cells_[base + labels[k]].check != -1) {
            ok = false;
            break;
          }
        }
        if (ok) return static_cast<std::uint32_t>(base);
      }
      e = next_free_[t];
      if (++fails_[t] >= kMaxFails) take(t);
    }
  }

  Flat<Cell> cell_table_;
  Flat<std::uint32_t> value_table_;
  std::vector<Cell> cells_;  // only while building, like the rest below
  std::vector<std::uint32_t> values_;
  static constexpr std::uint8_t kMaxFails = 16;
  static constexpr std::uint8_t kUnlisted = 0xFF;
  std::vector<std::int32_t> next_free_, prev_free_;  // only while building
  std::vector<std::uint8_t> fails_;
  std::int32_t free_first_ = -1, free_last_ = -1;
};

}  // namespace snaptok::detail
