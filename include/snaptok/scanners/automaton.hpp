// A compiled scanner for Split patterns that no hand-written scanner
// reproduces: the pattern's tree (pattern_ast.hpp) becomes a Thompson NFA,
// and the NFA a DFA over classes of code points, built whole at load.
//
// Exactness. Oniguruma matches leftmost-first by backtracking. A DFA state
// here is the ordered list of the NFA threads still alive (highest priority
// first), as in a Pike VM: a thread that reaches the match cuts every thread
// behind it, and the match recorded last wins. That is the same match as
// backtracking for everything the compiler accepts:
//  - classes, literals, '.', alternation, groups, greedy and lazy repeats
//    (an unbounded one only of something that cannot match empty);
//  - one-char lookaheads, (?!X) and (?=X) for an atom X, '$' and \z: a
//    thread stops before them and they are decided by the next char, when
//    the DFA reads it (end of text is a symbol of its own);
//  - possessive repeats and atomic groups of one atom: X++ takes the whole
//    run of X, the same as X+(?!X);
//  - (?i) on ASCII letters (k and s also match U+212A and U+017F), except
//    where two of them could match one char (ss, st, ff, fi, fl: ß, ﬆ, ...).
// Anything else (lookbehind, ^, \A, \Z, case folding of other chars, atomic
// groups of more than one atom) is refused and the pattern stays on
// Oniguruma.
//
// Linear time. The search tries a match at each start in turn, so a pattern
// whose failed attempt, or whose look past its last match, can read without
// bound (a+b on "aaaa...") would be quadratic. compile() refuses a DFA with
// a cycle of transitions that record no match through states from which
// the attempt can still fail (linear()); every attempt then reads at most a
// bounded number of chars past its match, or past its start when it fails.
// (\p{L}++ passes: its loop records no match until the run ends, but it
// cannot fail inside the run.) Compiling is bounded too (kMaxStates,
// kMaxSets, kMaxBuildSteps): a pattern past them stays on Oniguruma.
//
// Speed. A step is one table load per char (ASCII bytes index a table of
// their own); runs of ASCII bytes that keep a state are skipped without the
// chain of loads, and so are ASCII bytes that start no match. About 250-490
// MB/s on prose for patterns of runs (GPT-2's), several GB/s for sparse ones
// (digits, CJK), against 1.8 GB/s for the hand-written SIMD scanners. A
// pattern that is one class's runs after an optional char (BLOOM's,
// " ?\p{L}+", "\S+") needs no DFA at all: its search reads byte masks
// (ClassRun), 1.4-1.9x the DFA's speed on English.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "snaptok/detail/inline.hpp"
#include "snaptok/detail/utf8.hpp"
#include "snaptok/scanners/automaton_nfa.hpp"
#include "snaptok/scanners/block_masks.hpp"
#include "snaptok/scanners/char_class.hpp"
#include "snaptok/scanners/match_loop.hpp"
#include "snaptok/scanners/pattern_ast.hpp"
#include "snaptok/simd/dispatch.hpp"

namespace snaptok::scanners {

class Automaton {
 public:
  /// The most DFA states compile() builds before it refuses a pattern.
  static constexpr std::size_t kMaxStates = 1024;
  /// The most distinct atom sets, and the most NFA steps (instructions
  /// visited while building the states), before it refuses: a pattern from
  /// an untrusted file costs at most a few milliseconds at load. (The
  /// largest tokenizer patterns known take 127 instructions, 34 states and
  /// 11,395 steps; a fuzzed `\p{L}+{746}` took seconds under the sanitizers
  /// with bounds 4-16 times these.)
  static constexpr std::size_t kMaxSets = 256;
  static constexpr std::size_t kMaxBuildSteps = std::size_t{1} << 18;

  /// Returns the compiled scanner for `pattern`, or nullptr when the pattern
  /// is outside what it reproduces exactly in linear time (see the top of
  /// this header), e.g.
  ///   Automaton::compile(R"( ?[^(\s|[.,!?…。，、।۔،])]+)")
  static std::shared_ptr<const Automaton> compile(std::string_view pattern) {
    const std::optional<pattern::Node> tree = pattern::parse(pattern);
    if (!tree) return nullptr;
    const automaton_detail::Nfa nfa(*tree);
    if (!nfa.ok) return nullptr;
    auto a = std::shared_ptr<Automaton>(new Automaton());
    std::vector<std::vector<bool>> member;  // [class][set]: whether a class's code points are in a set
    if (!a->build_classes(nfa.sets, member) || !a->build_states(nfa, member) || !a->linear()) return nullptr;
    a->find_class_run(*tree, nfa.sets, member);
    return a;
  }

  /// Calls fn(start, end) for each successive match, as Oniguruma's search
  /// loop in detail::Regex does (match_loop.hpp).
  template <class Fn>
  void for_each_match(std::string_view text, Fn&& fn) const {
    if (class_run_) {
      if (text.size() < kShortText) return for_each_run<SetBytes>(text, fn);
      return for_each_run<SetBlocks>(text, fn);
    }
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const std::size_t n = text.size();
    for_each_search_match(
        text,
        [&](std::size_t pos, std::size_t& start, std::size_t& end) {
          for (std::size_t s = pos;; s += detail::utf8_len(p[s])) {
            if (skip_ == Skip::kVector) {  // where no match starts, a vector at a time
              s += simd::find_start(text.data() + s, n - s, starts_);
              if (s == n) return false;
            } else if (skip_ == Skip::kBytes) {  // ... or a byte at a time, without a DFA step
              while (s < n && !(start_kind_[p[s]] == 1 || (start_kind_[p[s]] == 2 && (s + 1 == n || then_[p[s + 1]])))) ++s;
              if (s == n) return false;
            }
            const std::size_t e = match_end(p, s, n);
            if (e != kNoMatch) {
              start = s;
              end = e;
              return true;
            }
            if (s == n) return false;
          }
        },
        fn);
  }

  /// True when the pattern is a run of one class after an optional ASCII
  /// char (L?C+, C+: BLOOM's, " ?\p{L}+", "[\r\n]+"), which the search
  /// finds in byte masks instead of by DFA steps.
  bool class_run() const noexcept { return class_run_ != nullptr; }

  /// The number of DFA states and of char classes (for tests and notes).
  std::size_t states() const noexcept { return table_.size() >> shift_; }
  std::size_t classes() const noexcept { return eof_; }

 private:
  static constexpr std::uint32_t kAccept = 0x80000000u;  // a match ends before this symbol
  static constexpr std::size_t kNoMatch = ~std::size_t{0};

  Automaton() = default;

  std::size_t stride() const noexcept { return std::size_t{1} << shift_; }

  std::uint32_t class_of(char32_t cp) const noexcept {
    return blocks_[(std::size_t{block_index_[cp >> 8]} << 8) | (cp & 0xFF)];
  }

  // A pattern L?C+ or C+: L an ASCII char, C a class, both repeats greedy
  // (or possessive where that is the same: C+ always, L? when L is not in
  // C). Each maximal run of C is a match, with the L right before it when L
  // is not in C (L? takes it greedily; when L is in C the run holds it
  // already), so a search needs no DFA: the next byte that may start a
  // match and the end of each run come from masks of 64 bytes at a time
  // (SetBlocks); a non-ASCII char is looked up by its class. English,
  // 2 MB: BLOOM's pattern 248 -> 353 MB/s, " ?\p{L}+" 248 -> 343, "\S+"
  // 173 -> 330; sparse ones stay at GB/s ("[\r\n]+" 3.1 -> 3.0).
  struct ClassRun {
    static constexpr std::size_t kRunBytes = 0, kStartBytes = 1, kNonascii = 2;
    int prefix = -1;                       // L, or -1
    std::array<bool, 0x80> ascii{};        // C's ASCII members
    std::vector<std::uint8_t> by_class;    // [class]: whether C holds the class's chars
    simd::NibbleSet sets[3];               // C's ASCII bytes; those and L; the bytes >= 0x80
  };

  // Whether the char at p[i] (i < n) is in C; sets len to its bytes.
  SNAPTOK_ALWAYS_INLINE bool in_run_class(const unsigned char* p, std::size_t i, std::size_t& len) const noexcept {
    len = 1;
    return p[i] < 0x80 ? class_run_->ascii[p[i]] : class_run_->by_class[class_of(decode_multibyte(p + i, len))] != 0;
  }

  // The class run's search; Sets: SetBlocks, or SetBytes for a text under
  // kShortText bytes (a later Split's pieces: classifying their blocks took
  // 16% of five Splits in a row).
  static constexpr std::size_t kShortText = 64;
  template <class Sets, class Fn>
  void for_each_run(std::string_view text, Fn& fn) const {
    const ClassRun& run = *class_run_;
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const std::size_t n = text.size();
    Sets blocks(text, run.sets, 3);
    std::size_t len = 1;
    for (std::size_t i = 0; i < n;) {
      const std::size_t s = blocks.next_in(ClassRun::kStartBytes, ClassRun::kNonascii, i);
      if (s == n) return;
      std::size_t from = s;  // where the run of C begins
      if (!in_run_class(p, s, len)) {
        // L (not in C) starts a match before a char of C; another char, none.
        if (p[s] != run.prefix || s + 1 == n || !in_run_class(p, s + 1, len)) {
          i = s + (p[s] < 0x80 ? 1 : len);
          continue;
        }
        from = s + 1;
      }
      std::size_t e = from;
      for (;;) {  // the run: ASCII bytes by masks, other chars one at a time
        e = blocks.run_end(ClassRun::kRunBytes, e);
        if (e == n || p[e] < 0x80 || !in_run_class(p, e, len)) break;
        e += len;
      }
      fn(s, e);
      i = e;
    }
  }

  // Sets class_run_ when `tree` is L?C+ or C+ (see ClassRun). sets and
  // member: compile()'s.
  void find_class_run(const pattern::Node& tree, const std::vector<automaton_detail::CodeSet>& sets,
                      const std::vector<std::vector<bool>>& member) {
    using K = pattern::Node::Kind;
    const pattern::Node* prefix = nullptr;
    const pattern::Node* repeat = &tree;
    if (tree.kind == K::kSeq && tree.kids.size() == 2) prefix = &tree.kids[0], repeat = &tree.kids[1];
    const auto is_repeat = [](const pattern::Node& r, int min, int max) {
      return r.kind == K::kRepeat && r.min == min && r.max == max && !r.lazy && r.kids[0].kind == K::kAtom;
    };
    if (!is_repeat(*repeat, 1, -1) || (prefix && !is_repeat(*prefix, 0, 1))) return;
    const std::optional<automaton_detail::CodeSet> c = automaton_detail::atom_set(repeat->kids[0]);
    if (!c) return;
    const auto k = static_cast<std::size_t>(std::find(sets.begin(), sets.end(), *c) - sets.begin());
    if (k == sets.size()) return;
    auto run = std::make_unique<ClassRun>();
    for (std::size_t cls = 0; cls < eof_; ++cls) run->by_class.push_back(member[cls][k]);
    bool in_c[0x80] = {}, starts[0x80] = {}, nonascii[0x100] = {};
    for (unsigned b = 0; b < 0x80; ++b) run->ascii[b] = in_c[b] = starts[b] = run->by_class[blocks_[b]] != 0;
    if (prefix) {
      const pattern::Node& l = prefix->kids[0];
      if (l.fold || l.chars.size() != 1 || l.chars[0] >= 0x80) return;
      run->prefix = static_cast<int>(l.chars[0]);
      // A possessive L?+ keeps an L that C holds even where C+ then fails.
      if (prefix->possessive && in_c[run->prefix]) return;
      starts[run->prefix] = true;
    }
    std::fill(nonascii + 0x80, nonascii + 0x100, true);
    run->sets[ClassRun::kRunBytes] = simd::NibbleSet::ascii(in_c);
    run->sets[ClassRun::kStartBytes] = simd::NibbleSet::ascii(starts);
    run->sets[ClassRun::kNonascii] = simd::NibbleSet::of(nonascii);
    class_run_ = std::move(run);
  }

  // Returns the end of the match that starts at i, or kNoMatch. Runs of
  // ASCII bytes that keep the DFA in its state (the letters of \p{L}+) are
  // skipped by a loop whose steps do not wait on each other's table loads.
  SNAPTOK_ALWAYS_INLINE std::size_t match_end(const unsigned char* p, std::size_t i, std::size_t n) const noexcept {
    const std::uint32_t* ascii = ascii_.data();
    const std::uint32_t* table = table_.data();
    const std::uint8_t* stays = stays_.data();
    const unsigned shift = shift_;
    std::uint32_t state = start_;
    std::size_t last = kNoMatch;
    while (i < n) {
      const std::uint8_t kind = run_kind_[state];  // 0: no run; 1, 2: runs (2: each byte records a match)
      if (kind != 0) {
        const std::uint8_t* run = stays + (state << 8);
        std::size_t j = i;
        while (j < n && run[p[j]]) ++j;
        if (j != i) {
          if (kind == 2) last = j - 1;
          i = j;
          if (i == n) break;
        }
      }
      std::size_t len = 1;
      const std::uint32_t e = p[i] < 0x80 ? ascii[(state << 7) | p[i]]
                                          : table[(state << shift) | class_of(decode_multibyte(p + i, len))];
      if (e & kAccept) last = i;
      state = e & ~kAccept;
      if (state == 0) return last;
      i += len;
    }
    return table[(state << shift) | eof_] & kAccept ? n : last;
  }

  // Partitions the code points by which of `sets` hold them; class k's
  // code points then take the same transitions everywhere.
  // member[k][s]: whether class k's code points are in sets[s] (for
  // build_states).
  bool build_classes(const std::vector<automaton_detail::CodeSet>& sets, std::vector<std::vector<bool>>& member) {
    if (sets.size() > kMaxSets) return false;
    std::vector<char32_t> cuts = {0, automaton_detail::kMaxCp + 1};
    for (const auto& s : sets) {
      for (const auto& r : s) cuts.push_back(r.first), cuts.push_back(r.second + 1);
    }
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    std::map<std::vector<bool>, std::uint8_t> ids;
    std::vector<std::uint8_t> interval_class(cuts.size() - 1);
    for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
      std::vector<bool> in(sets.size());
      for (std::size_t s = 0; s < sets.size(); ++s) in[s] = automaton_detail::contains(sets[s], cuts[k]);
      const auto [it, fresh] = ids.try_emplace(in, static_cast<std::uint8_t>(ids.size()));
      if (fresh) {
        if (ids.size() > 255) return false;
        member.push_back(std::move(in));
      }
      interval_class[k] = it->second;
    }
    eof_ = static_cast<std::uint32_t>(ids.size());  // the last symbol: the end of the text
    while ((std::size_t{1} << shift_) < eof_ + 1) ++shift_;
    // Blocks of 256 code points, deduplicated. Most lie in one interval:
    // those share a block of one class without being filled or compared.
    std::map<std::vector<std::uint8_t>, std::uint16_t> seen;
    std::vector<std::int32_t> uniform(ids.size(), -1);  // the block of all one class
    std::size_t at = 0;  // the interval holding the block's first code point
    std::vector<std::uint8_t> block(256);
    for (std::size_t b = 0; b < block_index_.size(); ++b) {
      const char32_t first = static_cast<char32_t>(b << 8);
      while (cuts[at + 1] <= first) ++at;
      if (cuts[at + 1] >= first + 256) {
        std::int32_t& id = uniform[interval_class[at]];
        if (id < 0) {
          block.assign(256, interval_class[at]);
          id = seen.try_emplace(block, static_cast<std::uint16_t>(seen.size())).first->second;
          if (static_cast<std::size_t>(id) + 1 == seen.size()) blocks_.insert(blocks_.end(), block.begin(), block.end());
        }
        block_index_[b] = static_cast<std::uint16_t>(id);
        continue;
      }
      std::size_t k = at;
      for (std::size_t c = 0; c < 256; ++c) {
        while (cuts[k + 1] <= first + c) ++k;
        block[c] = interval_class[k];
      }
      const auto [it, fresh] = seen.try_emplace(block, static_cast<std::uint16_t>(seen.size()));
      if (fresh) blocks_.insert(blocks_.end(), block.begin(), block.end());
      block_index_[b] = it->second;
    }
    return true;
  }

  // Builds every reachable DFA state: a state is the ordered list of the
  // NFA's waiting instructions (kChar, kAssert, kMatch), state 0 the dead one.
  bool build_states(const automaton_detail::Nfa& nfa, const std::vector<std::vector<bool>>& member) {
    using automaton_detail::Inst;
    const std::vector<Inst>& prog = nfa.prog;
    const std::size_t eof = eof_;
    std::vector<std::uint32_t> seen(prog.size(), 0);
    std::uint32_t epoch = 0;
    std::vector<int> stack;
    // Appends to `out`, in priority order, what `pc` leads to without
    // reading a char; asserts are decided by `symbol`, or kept when it is
    // negative.
    std::size_t steps = 0;
    auto follow = [&](int pc, long symbol, std::vector<int>& out) {
      stack.assign(1, pc);
      while (!stack.empty()) {
        const int at = stack.back();
        stack.pop_back();
        ++steps;
        if (seen[at] == epoch) continue;
        seen[at] = epoch;
        const Inst& in = prog[at];
        switch (in.op) {
          case Inst::Op::kJump: stack.push_back(in.x); break;
          case Inst::Op::kSplit: stack.push_back(in.y), stack.push_back(in.x); break;
          case Inst::Op::kAssert:
            if (symbol < 0) {
              out.push_back(at);
            } else {
              const bool holds = static_cast<std::size_t>(symbol) == eof
                                     ? in.at_end
                                     : member[static_cast<std::size_t>(symbol)][static_cast<std::size_t>(in.set)] != in.negate;
              if (holds) stack.push_back(in.x);
            }
            break;
          case Inst::Op::kChar:
          case Inst::Op::kMatch: out.push_back(at); break;
        }
      }
    };
    std::map<std::vector<int>, std::uint32_t> ids;
    std::vector<std::vector<int>> states;
    auto intern = [&](std::vector<int> s) -> std::uint32_t {
      const auto [it, fresh] = ids.try_emplace(s, static_cast<std::uint32_t>(states.size()));
      if (fresh) states.push_back(std::move(s));
      return it->second;
    };
    intern({});  // dead
    ++epoch;
    std::vector<int> first;
    follow(0, -1, first);
    start_ = intern(std::move(first));
    std::vector<int> resolved, next;
    for (std::size_t s = 0; s < states.size(); ++s) {
      if (states.size() > kMaxStates || steps > kMaxBuildSteps) return false;
      for (std::size_t symbol = 0; symbol < stride(); ++symbol) {
        if (symbol > eof) {  // padding
          table_.push_back(0);
          continue;
        }
        if (steps > kMaxBuildSteps) return false;  // (one state's symbols may take many steps)
        resolved.clear();
        next.clear();
        ++epoch;
        for (int pc : states[s]) follow(pc, static_cast<long>(symbol), resolved);
        bool accept = false;
        ++epoch;
        for (int pc : resolved) {
          const Inst& in = prog[static_cast<std::size_t>(pc)];
          if (in.op == Inst::Op::kMatch) {
            accept = true;  // threads behind it lose to this match
            break;
          }
          if (symbol != eof && member[symbol][static_cast<std::size_t>(in.set)]) follow(in.x, -1, next);
        }
        const std::uint32_t to = symbol == eof ? 0 : intern(next);
        table_.push_back(to | (accept ? kAccept : 0));
      }
    }
    for (std::size_t st = 0; st < states.size(); ++st) {  // the ASCII columns by byte
      for (unsigned c = 0; c < 0x80; ++c) ascii_.push_back(table_[(st << shift_) | blocks_[c]]);
    }
    // Where a match cannot start, when none is empty: the search skips the
    // ASCII bytes that lead from the start to the dead state, and those that
    // lead to a state that records no match on any symbol when the next byte
    // is ASCII and leads nowhere from any such state (the ' ' of " ?\p{P}+"
    // before a letter).
    const bool empty_matches = (table_[(std::size_t{start_} << shift_) | eof_] & kAccept) != 0;
    bool alone[128] = {}, prefix[128] = {}, then[128] = {};
    std::size_t skipped = 0;
    for (unsigned c = 0; c < 0x80; ++c) {
      const std::uint32_t entry = ascii_[(std::size_t{start_} << 7) | c];
      if (entry == 0) {
        ++skipped;
        continue;
      }
      const std::uint32_t first = entry & ~kAccept;
      bool records = (entry & kAccept) != 0;  // an empty match before c
      for (std::size_t symbol = 0; symbol <= eof_ && !records; ++symbol) {
        records = (table_[(std::size_t{first} << shift_) | symbol] & kAccept) != 0;
      }
      (records ? alone : prefix)[c] = true;
      if (records) continue;
      for (unsigned d = 0; d < 0x80; ++d) then[d] = then[d] || ascii_[(std::size_t{first} << 7) | d] != 0;
    }
    // Few bytes that start one (digits, newlines, CJK): a vector search;
    // else the next byte mostly starts one (prose for " ?\p{L}+"), and a
    // byte loop costs less than a call.
    starts_ = {simd::NibbleSet::ascii(alone), simd::NibbleSet::ascii(prefix), simd::NibbleSet::ascii(then)};
    start_kind_.fill(1);  // non-ASCII bytes: decided by the DFA
    then_.fill(1);
    for (unsigned c = 0; c < 0x80; ++c) {
      start_kind_[c] = alone[c] ? 1 : prefix[c] ? 2 : 0;
      then_[c] = then[c];
    }
    const auto count = [](const bool (&set)[128]) { return std::count(set, set + 0x80, true); };
    if (!empty_matches && (skipped > 0 || (count(prefix) > 0 && count(then) < 0x80))) {
      skip_ = count(alone) + count(prefix) <= 16 ? Skip::kVector : Skip::kBytes;
    }
    // The runs: per state, the ASCII bytes that lead back to it, all with a
    // match recorded or all without.
    stays_.assign(states.size() << 8, 0);
    run_kind_.assign(states.size(), 0);
    for (std::size_t st = 1; st < states.size(); ++st) {
      for (const std::uint32_t accept : {kAccept, 0u}) {
        std::size_t count = 0;
        for (unsigned c = 0; c < 0x80; ++c) count += ascii_[(st << 7) | c] == (st | accept);
        if (count < 8) continue;  // too few to pay for the run loop
        for (unsigned c = 0; c < 0x80; ++c) stays_[(st << 8) | c] = ascii_[(st << 7) | c] == (st | accept);
        run_kind_[st] = accept ? 2 : 1;
        break;
      }
    }
    return true;
  }

  // True when every attempt reads a bounded number of chars past its last
  // match, or past its start when it fails: no cycle of transitions that
  // record no match runs through states from which, recording none, the
  // attempt can still fail (die, or reach the end of the text).
  bool linear() const {
    const std::size_t n = states(), eof = eof_;
    auto edge = [&](std::size_t s, std::size_t symbol) { return table_[(s << shift_) | symbol]; };
    std::vector<std::uint8_t> failing(n, 0);
    for (std::size_t s = 1; s < n; ++s) {
      for (std::size_t symbol = 0; symbol <= eof && !failing[s]; ++symbol) failing[s] = edge(s, symbol) == 0;
    }
    for (bool grew = true; grew;) {  // ... or that reach such a state recording none
      grew = false;
      for (std::size_t s = 1; s < n; ++s) {
        for (std::size_t symbol = 0; symbol < eof && !failing[s]; ++symbol) {
          const std::uint32_t e = edge(s, symbol);
          if (!(e & kAccept) && failing[e]) failing[s] = grew = true;
        }
      }
    }
    std::vector<std::uint8_t> color(n, 0);  // 0 new, 1 on the path, 2 done
    std::vector<std::pair<std::uint32_t, std::size_t>> path;
    for (std::uint32_t root = 1; root < n; ++root) {
      if (color[root] || !failing[root]) continue;
      path.assign(1, {root, 0});
      color[root] = 1;
      while (!path.empty()) {
        const auto [s, symbol] = path.back();
        if (symbol == eof) {
          color[s] = 2;
          path.pop_back();
          continue;
        }
        ++path.back().second;
        const std::uint32_t e = edge(s, symbol);
        if (e == 0 || (e & kAccept) || !failing[e]) continue;
        if (color[e] == 1) return false;
        if (color[e] == 0) {
          color[e] = 1;
          path.push_back({e, 0});
        }
      }
    }
    return true;
  }

  std::array<std::uint16_t, 0x1100> block_index_{};
  std::vector<std::uint8_t> blocks_;   // class of each code point, by block; block 0 = U+0000..U+00FF
  std::vector<std::uint32_t> table_;   // [state << shift_ | symbol]: next state | kAccept
  std::vector<std::uint32_t> ascii_;   // [state << 7 | byte]: table_'s entry for an ASCII byte
  std::vector<std::uint8_t> stays_;    // [state << 8 | byte]: 1 when the ASCII byte keeps the state in its run
  std::vector<std::uint8_t> run_kind_;  // per state: 0 no run, 1 a run, 2 a run whose bytes each record a match
  std::uint32_t eof_ = 0;              // the symbol of the end of the text: the number of classes
  unsigned shift_ = 0;                 // log2 of the symbols per state, a power of 2 >= eof_ + 1
  std::uint32_t start_ = 0;
  // Where a match may start, by its first byte or two, when that rules some
  // ASCII text out and no match is empty (else skip_ is kNone): as a vector
  // search's sets, and as tables by byte (start_kind_: 0 none, 1 a start,
  // 2 a start when then_ holds the next byte).
  enum class Skip : std::uint8_t { kNone, kVector, kBytes };
  Skip skip_ = Skip::kNone;
  simd::AsciiStarts starts_;
  std::array<std::uint8_t, 256> start_kind_{};
  std::array<std::uint8_t, 256> then_{};
  std::unique_ptr<const ClassRun> class_run_;  // set for L?C+ and C+: the search skips the DFA
};

}  // namespace snaptok::scanners
