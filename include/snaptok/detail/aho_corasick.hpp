// An Aho-Corasick automaton for leftmost-longest, non-overlapping matching of
// a set of byte strings: what HF's added vocabulary gets from the aho-corasick
// crate with MatchKind::LeftmostLongest. find(text, from) returns the match
// starting at the smallest position >= from where any pattern occurs, and of
// the patterns occurring there the longest; callers go on from its end.
//
// Layout: flat vectors of fixed-width integers, nothing per node on the heap.
//  - the goto function is a DoubleArrayTrie (detail/double_array.hpp): a node
//    is a cell, a transition one add and one compare;
//  - fail_[cell]: the leftmost failure link (below), or kDead;
//  - report_[cell]: 1 + the index in matches_ of the match to record when the
//    search enters the cell (0: none), plus kStop when no byte can follow;
//  - matches_: {length, value} per distinct pattern.
// A node costs 20 bytes (8 cell, 4 trie value, 4 fail, 4 report); there are
// at most 1 + (sum of pattern lengths) nodes, plus the double array's unused
// cells (few: its bases pack children into free cells).
//
// Leftmost-longest. The search state at position i is a node q whose string is
// text[i - depth(q), i). Before any match it is the plain Aho-Corasick state
// (the longest suffix of text[from, i) that is a prefix of a pattern; the
// shorter live candidates are its failure chain), and entering q records the
// longest pattern that is a suffix of q's string. Once a match [s, e) is
// recorded only candidates starting at or before s can beat it (an earlier
// start, or the same start and longer), so a failure link that would drop
// position s must lead nowhere. That s depends on the node alone:
// s = i - depth(q) + first(q), where first(q) is the smallest start, within
// q's string, of a pattern occurring in q's string (a live node starts at or
// before s, and the search has seen every pattern occurring in a live node,
// since every suffix of a live node that is a prefix of a pattern is live). So
//   fail_[q] = kDead     if first(q) exists and depth(fail(q)) < depth(q) - first(q),
//              fail(q)   otherwise (fail = the usual Aho-Corasick link);
//   q reports  the longest pattern that is a suffix of q's string, when it starts
//              at or before first(parent(q)) (or the parent has none): the match
//              then starts no later than the recorded one, and ends later.
// The search returns the recorded match when it reaches kDead, when it enters
// a node marked kStop, or at the end of the text; a node that reports nothing
// keeps the recorded match.
//
// Time. Per byte read: one goto and some failure steps; a goto deepens the
// state by exactly 1 and a failure step makes it shallower by at least 1, so a
// call makes at most 2 transitions per byte read. A call returning [s, e)
// reads at most text[from, s + L] (L = the longest pattern: a live node covers
// position s and is at most L deep), a call returning nothing reads
// text[from, n) once; so a call is O(e - from + L) and a scan of the whole
// text (from = previous end) is O(n + k·L) for k matches, however the
// patterns overlap. (The k·L is the look-ahead past each match end that the
// next call reads again, as it does with the crate; the per-start trie walk
// this replaces was O(n·L) with no match at all.) Where the state is the root,
// the search skips to the next place a pattern may start: where every
// pattern has two bytes or more, to the next pair of bytes that starts one
// (a SIMD search for the first two bytes, or for up to four first bytes
// whose pairs a bitmap then checks: text full of "<unk>" or HTML tags is not
// stopped at every '<'); else to the next first byte, with memchr for one
// and the SIMD search for two to four.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "snaptok/detail/double_array.hpp"
#include "snaptok/simd/dispatch.hpp"

namespace snaptok::detail {

class AhoCorasick {
 public:
  struct Match {
    std::size_t start, end;
    std::uint32_t value;
  };

  AhoCorasick() = default;

  /// Builds the automaton of `patterns` (pattern bytes, value). Empty patterns
  /// are ignored; of a repeated pattern the first value stays.
  ///
  ///   AhoCorasick ac({{"<|a|>", 7}, {"<|", 8}});
  ///   ac.find("x<|a|>", 0);  // Match{1, 6, 7}
  explicit AhoCorasick(std::vector<std::pair<std::string_view, std::uint32_t>> patterns) {
    build(std::move(patterns));
  }

  /// Replaces the patterns (see the constructor).
  void build(std::vector<std::pair<std::string_view, std::uint32_t>> patterns) {
    clear();
    // The double array keeps the last value of a repeated key: give it the
    // pattern indices backwards, so that the first occurrence stays.
    std::vector<std::pair<std::string_view, std::uint32_t>> keys;
    keys.reserve(patterns.size());
    for (std::size_t k = patterns.size(); k-- > 0;) {
      if (!patterns[k].first.empty()) {
        keys.emplace_back(patterns[k].first, static_cast<std::uint32_t>(k));
      }
    }
    if (keys.empty()) return;
    trie_.build(std::move(keys));

    const DoubleArrayTrie::Cell* cells = trie_.cells();
    const std::size_t n = trie_.size();
    // Children of each node (cells whose check names it), grouped by parent.
    std::vector<std::uint32_t> child_at(n + 1, 0);
    for (std::size_t t = 1; t < n; ++t) {
      if (cells[t].check >= 0) ++child_at[static_cast<std::size_t>(cells[t].check) + 1];
    }
    for (std::size_t q = 0; q < n; ++q) child_at[q + 1] += child_at[q];
    std::vector<std::uint32_t> children(child_at[n]);
    {
      std::vector<std::uint32_t> cursor(child_at.begin(), child_at.end() - 1);
      for (std::size_t t = 1; t < n; ++t) {
        if (cells[t].check >= 0) {
          children[cursor[static_cast<std::size_t>(cells[t].check)]++] =
              static_cast<std::uint32_t>(t);
        }
      }
    }

    // Breadth first, so that a node's failure target is done before it.
    constexpr std::uint32_t kNone = 0xFFFFFFFFu;
    std::vector<std::uint32_t> depth(n, 0), fail(n, 0);
    std::vector<std::uint32_t> longest(n, kNone);  // node of the longest suffix pattern
    std::vector<std::uint32_t> first(n, kNone);    // first(q) of the top comment
    std::vector<std::uint32_t> entry(n, kNone);    // pattern node -> index in matches_
    fail_.assign(n, kDead);
    first_pairs_.assign(kPairWords, 0);
    bool second_bytes[256] = {};
    report_.assign(n, 0);
    std::vector<std::uint32_t> queue{0};
    queue.reserve(n);
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const std::uint32_t q = queue[head];
      const std::uint32_t base = cells[q].base & DoubleArrayTrie::kBaseMask;
      for (std::uint32_t k = child_at[q]; k < child_at[q + 1]; ++k) {
        const std::uint32_t t = children[k];
        const auto byte = static_cast<unsigned char>(t - base);
        if (q == 0) {
          first_bytes_[byte] = true;
          ++n_first_bytes_;
          single_first_byte_ = byte;
        } else if (depth[q] == 1) {
          const auto first_byte = static_cast<unsigned char>(q - (cells[0].base & DoubleArrayTrie::kBaseMask));
          const std::size_t pair = std::size_t{first_byte} << 8 | byte;
          first_pairs_[pair / 64] |= std::uint64_t{1} << (pair % 64);
          second_bytes[byte] = true;
        }
        depth[t] = depth[q] + 1;
        std::uint32_t f = 0;
        if (q != 0) {
          for (f = fail[q];;) {
            const std::int32_t g = trie_.child(static_cast<std::int32_t>(f), byte);
            if (g >= 0) {
              f = static_cast<std::uint32_t>(g);
              break;
            }
            if (f == 0) break;
            f = fail[f];
          }
        }
        fail[t] = f;
        longest[t] = (cells[t].base & DoubleArrayTrie::kEnds) ? t : longest[f];
        first[t] = first[q];
        if (longest[t] != kNone) {
          const std::uint32_t start = depth[t] - depth[longest[t]];
          if (first[q] == kNone || start <= first[q]) {
            const std::uint32_t m = longest[t];
            if (entry[m] == kNone) {
              entry[m] = static_cast<std::uint32_t>(matches_.size());
              const std::uint32_t key = trie_.value(static_cast<std::int32_t>(m));
              matches_.push_back({depth[m], patterns[key].second});
            }
            report_[t] = entry[m] + 1;
            first[t] = start;
          }
        }
        fail_[t] = (first[t] == kNone || depth[f] >= depth[t] - first[t]) ? f : kDead;
        if (fail_[t] == kDead && child_at[t] == child_at[t + 1]) report_[t] |= kStop;
        queue.push_back(t);
      }
    }
    fail_[0] = 0;
    second_bytes_ = simd::NibbleSet::of(second_bytes);
    // A pattern of one byte: a first byte alone may match.
    for (std::uint32_t k = child_at[0]; k < child_at[1]; ++k) {
      if (report_[children[k]] & kEntryMask) first_pairs_.clear();
    }
    if (n_first_bytes_ != 1) single_first_byte_ = -1;
    if (single_first_byte_ >= 0) {
      // Every pattern starts with the same two bytes when the first byte's
      // node ends none and has one child.
      const auto r = static_cast<std::uint32_t>(trie_.child(0, static_cast<unsigned char>(single_first_byte_)));
      if ((report_[r] & kEntryMask) == 0 && child_at[r + 1] - child_at[r] == 1) {
        const std::uint32_t base = cells[r].base & DoubleArrayTrie::kBaseMask;
        second_byte_ = static_cast<unsigned char>(children[child_at[r]] - base);
      }
    }
    if (n_first_bytes_ <= 4) {
      std::uint8_t firsts[4];
      std::size_t k = 0;
      for (unsigned b = 0; b < 256; ++b) {
        if (first_bytes_[b]) firsts[k++] = static_cast<std::uint8_t>(b);
      }
      few_first_bytes_ = simd::ByteQuad::of({firsts, k});
    }
  }

  /// Removes every pattern.
  void clear() {
    trie_ = DoubleArrayTrie{};
    fail_.clear();
    report_.clear();
    matches_.clear();
    first_bytes_.fill(false);
    first_pairs_.clear();
    n_first_bytes_ = 0;
    single_first_byte_ = -1;
    second_byte_ = -1;
    few_first_bytes_ = {};
    second_bytes_ = simd::NibbleSet::all();
  }

  /// Returns whether there is no (non-empty) pattern.
  bool empty() const noexcept { return matches_.empty(); }

  /// Returns the leftmost-longest match starting at or after `from`, if any.
  ///
  ///   AhoCorasick ac({{"ab", 1}, {"abcd", 2}, {"bc", 3}});
  ///   ac.find("xabcx", 0);  // Match{1, 3, 1}: "ab" starts before "bc"
  ///   ac.find("xabcd", 0);  // Match{1, 5, 2}
  std::optional<Match> find(std::string_view text, std::size_t from) const {
    if (matches_.empty() || from >= text.size()) return std::nullopt;
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const std::size_t n = text.size();
    std::optional<Match> best;
    std::uint32_t q = 0;
    for (std::size_t i = from; i < n;) {
      if (q == 0) {  // no live candidate (so nothing recorded): skip ahead
        i = skip_to_candidate(p, i, n);
        if (i == n) return std::nullopt;
      }
      const unsigned char c = p[i++];
      for (;;) {
        const std::int32_t t = trie_.child(static_cast<std::int32_t>(q), c);
        if (t >= 0) {
          q = static_cast<std::uint32_t>(t);
          break;
        }
        if (q == 0) break;
        q = fail_[q];
        if (q == kDead) return best;
      }
      if (const std::uint32_t r = report_[q]) {
        if (r & kEntryMask) {
          const MatchEntry& m = matches_[(r & kEntryMask) - 1];
          best = Match{i - m.length, i, m.value};
        }
        if (r & kStop) return best;
      }
    }
    return best;
  }

  /// Returns the bytes the automaton's tables take.
  std::size_t size_in_bytes() const noexcept {
    return trie_.size() * (sizeof(DoubleArrayTrie::Cell) + sizeof(std::uint32_t)) +
           (fail_.size() + report_.size()) * sizeof(std::uint32_t) +
           matches_.size() * sizeof(MatchEntry) + sizeof(first_bytes_) +
           first_pairs_.size() * sizeof(std::uint64_t);
  }

 private:
  static constexpr std::uint32_t kDead = 0xFFFFFFFFu;
  static constexpr std::uint32_t kStop = 0x80000000u;
  static constexpr std::uint32_t kEntryMask = 0x7FFFFFFFu;

  struct MatchEntry {
    std::uint32_t length, value;
  };

  // Returns the first position from i where a pattern may start, or n: a
  // byte that starts a pattern, followed (when every pattern has two bytes
  // or more) by a byte that follows it in some pattern.
  std::size_t skip_to_candidate(const unsigned char* p, std::size_t i, std::size_t n) const noexcept {
    const char* text = reinterpret_cast<const char*>(p);
    if (second_byte_ >= 0) {
      return i + simd::find_byte_pair(text + i, n - i, static_cast<std::uint8_t>(single_first_byte_),
                                      static_cast<std::uint8_t>(second_byte_));
    }
    if (!first_pairs_.empty()) {
      const simd::BytePairSet pairs{few_first_bytes_, first_pairs_.data(), second_bytes_};
      if (n_first_bytes_ <= 4) return i + simd::find_byte_pair_in(text + i, n - i, pairs);
      return i + simd::find_byte_pair_in_scalar(text + i, n - i, pairs);
    }
    if (single_first_byte_ >= 0) {
      const void* hit = std::memchr(p + i, single_first_byte_, n - i);
      return hit ? static_cast<std::size_t>(static_cast<const unsigned char*>(hit) - p) : n;
    }
    if (n_first_bytes_ <= 4) return i + simd::find_byte_in(text + i, n - i, few_first_bytes_);
    while (i < n && !first_bytes_[p[i]]) ++i;
    return i;
  }

  DoubleArrayTrie trie_;
  std::vector<std::uint32_t> fail_;
  std::vector<std::uint32_t> report_;
  std::vector<MatchEntry> matches_;
  std::array<bool, 256> first_bytes_{};
  // Bit (b0 << 8 | b1): some pattern starts with bytes b0 b1; empty when a
  // pattern has one byte.
  static constexpr std::size_t kPairWords = simd::BytePairSet::kWords;
  std::vector<std::uint64_t> first_pairs_;
  int n_first_bytes_ = 0;
  int single_first_byte_ = -1;  // the byte every pattern starts with, or -1
  int second_byte_ = -1;        // the byte that always follows it, or -1
  simd::ByteQuad few_first_bytes_;  // the first bytes, when 1 to 4 of them
  simd::NibbleSet second_bytes_ = simd::NibbleSet::all();  // the second bytes of first_pairs_
};

}  // namespace snaptok::detail
