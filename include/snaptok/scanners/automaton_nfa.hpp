// The front half of the compiled scanner (automaton.hpp): code point sets
// for the atoms of a pattern's tree (pattern_ast.hpp), and the Thompson NFA
// whose instructions the DFA is built from. What it accepts, and why each
// construct matches as Oniguruma's backtracking does, is at the top of
// automaton.hpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "snaptok/scanners/pattern_ast.hpp"
#include "snaptok/unicode/pinned_classes.hpp"

namespace snaptok::scanners {

namespace automaton_detail {

// A set of code points: sorted, disjoint, non-adjacent ranges.
using CodeSet = std::vector<std::pair<char32_t, char32_t>>;
inline constexpr char32_t kMaxCp = 0x10FFFF;

inline CodeSet normalized(CodeSet s) {
  std::sort(s.begin(), s.end());
  CodeSet out;
  for (const auto& r : s) {
    if (!out.empty() && r.first <= out.back().second + 1) {
      out.back().second = std::max(out.back().second, r.second);
    } else {
      out.push_back(r);
    }
  }
  return out;
}

inline CodeSet complement(const CodeSet& s) {
  CodeSet out;
  char32_t next = 0;
  for (const auto& r : s) {
    if (r.first > next) out.push_back({next, r.first - 1});
    next = r.second + 1;
  }
  if (next <= kMaxCp) out.push_back({next, kMaxCp});
  return out;
}

inline CodeSet intersection(const CodeSet& a, const CodeSet& b) {
  return complement(normalized([&] {
    CodeSet u = complement(a);
    const CodeSet nb = complement(b);
    u.insert(u.end(), nb.begin(), nb.end());
    return u;
  }()));
}

inline bool contains(const CodeSet& s, char32_t cp) {
  const auto it = std::upper_bound(s.begin(), s.end(), cp, [](char32_t c, const auto& r) { return c < r.first; });
  return it != s.begin() && std::prev(it)->second >= cp;
}

// Reads the canonical atom texts pattern::render() gives ("\x{41}", "\s",
// "\p{L}", ".", "[^\s\p{L}]", "[\x{30}-\x{39}&&[^\x{35}]]", ...) into sets.
class AtomReader {
 public:
  explicit AtomReader(std::string_view t) : t_(t) {}

  std::optional<CodeSet> read() {
    if (t_ == ".") return complement({{'\n', '\n'}});  // any char but a newline
    std::optional<CodeSet> s = member(false);
    if (!s || i_ != t_.size()) return std::nullopt;
    return s;
  }

 private:
  bool eat(std::string_view s) {
    if (t_.substr(i_, s.size()) != s) return false;
    i_ += s.size();
    return true;
  }

  std::optional<char32_t> literal() {
    if (!eat("\\x{")) return std::nullopt;
    char32_t v = 0;
    while (i_ < t_.size() && t_[i_] != '}') {
      const int d = pattern::detail::hex_digit(t_[i_++]);
      if (d < 0) return std::nullopt;
      v = v * 16 + static_cast<char32_t>(d);
    }
    if (!eat("}")) return std::nullopt;
    return v;
  }

  static std::optional<CodeSet> property(std::string_view name, bool in_bracket) {
    const auto* cls = detail::find_regex_class(name, in_bracket);
    // A name whose set depends on the bracket around it (\p{Word}) is left
    // alone: render() writes [\p{X}] as \p{X}.
    if (!cls || cls != detail::find_regex_class(name, !in_bracket)) return std::nullopt;
    CodeSet s;
    for (std::size_t k = 0; k < cls->size; ++k) s.push_back({cls->ranges[k].first, cls->ranges[k].last});
    return normalized(std::move(s));
  }

  // One member: a literal or range, \s, \p{..}, or a bracket.
  std::optional<CodeSet> member(bool in_bracket) {
    if (eat("\\s")) return property("\\s", in_bracket);
    if (eat("\\p{")) {
      const std::size_t close = t_.find('}', i_);
      if (close == std::string_view::npos) return std::nullopt;
      const std::string_view name = t_.substr(i_, close - i_);
      i_ = close + 1;
      return property(name, in_bracket);
    }
    if (t_.substr(i_, 1) == "[") return bracket();
    const std::optional<char32_t> lo = literal();
    if (!lo) return std::nullopt;
    if (!eat("-")) return CodeSet{{*lo, *lo}};
    const std::optional<char32_t> hi = literal();
    if (!hi || *hi < *lo) return std::nullopt;
    return CodeSet{{*lo, *hi}};
  }

  std::optional<CodeSet> bracket() {
    eat("[");
    const bool negated = eat("^");
    std::vector<CodeSet> operands;
    CodeSet u;
    while (!eat("]")) {
      if (i_ >= t_.size()) return std::nullopt;
      if (eat("&&")) {
        operands.push_back(normalized(std::move(u)));
        u.clear();
        continue;
      }
      std::optional<CodeSet> m = member(true);
      if (!m) return std::nullopt;
      u.insert(u.end(), m->begin(), m->end());
    }
    CodeSet s = normalized(std::move(u));
    for (const CodeSet& o : operands) s = intersection(s, o);
    return negated ? complement(s) : s;
  }

  std::string_view t_;
  std::size_t i_ = 0;
};

// The set an atom matches, or nullopt outside what compile() accepts.
inline std::optional<CodeSet> atom_set(const pattern::Node& atom) {
  if (!atom.fold) return AtomReader(atom.text).read();
  // (?i) on one ASCII letter only (pattern_ast leaves other ASCII unfolded).
  if (atom.chars.size() != 1 || !pattern::detail::ascii_letter(atom.chars[0]) || atom.text[0] != '\\') {
    return std::nullopt;
  }
  const char32_t lower = atom.chars[0] | 0x20;
  CodeSet s{{lower, lower}, {lower - 0x20, lower - 0x20}};
  if (lower == 'k') s.push_back({0x212A, 0x212A});  // KELVIN SIGN
  if (lower == 's') s.push_back({0x017F, 0x017F});  // LATIN SMALL LETTER LONG S
  return normalized(std::move(s));
}

// True when two adjacent atoms of a sequence could match one char between
// them under (?i) (Oniguruma folds ß to "ss", ﬁ to "fi", ...).
inline bool may_fold_together(const pattern::Node& a, const pattern::Node& b) {
  using K = pattern::Node::Kind;
  if (a.kind != K::kAtom || b.kind != K::kAtom || !(a.fold || b.fold)) return false;
  if (a.chars.size() != 1 || b.chars.size() != 1) return true;  // classes next to a folded letter: refuse
  if (a.chars[0] >= 0x80 || b.chars[0] >= 0x80) return true;
  const char x = static_cast<char>(a.chars[0] | 0x20), y = static_cast<char>(b.chars[0] | 0x20);
  const std::string pair{x, y};
  return pair == "ss" || pair == "st" || pair == "ff" || pair == "fi" || pair == "fl";
}

struct Inst {
  enum class Op : std::uint8_t { kChar, kSplit, kJump, kAssert, kMatch };
  Op op = Op::kMatch;
  int set = -1;         // kChar, kAssert: index into Nfa::sets
  bool negate = false;  // kAssert: holds when the next char is (not, if negate) in set
  bool at_end = false;  // kAssert: whether it holds at the end of the text
  int x = 0;            // kChar, kAssert, kJump: next; kSplit: the preferred branch
  int y = 0;            // kSplit: the other branch
};

// Thompson construction from the tree; ok is false when it met something
// outside the accepted subset.
class Nfa {
 public:
  static constexpr std::size_t kMaxInsts = 2048;

  explicit Nfa(const pattern::Node& root) {
    emit(root);
    push({Inst::Op::kMatch});
  }

  bool ok = true;
  std::vector<Inst> prog;
  std::vector<CodeSet> sets;

 private:
  int push(Inst in) {
    if (prog.size() >= kMaxInsts) ok = false;
    prog.push_back(in);
    return static_cast<int>(prog.size()) - 1;
  }
  int here() const { return static_cast<int>(prog.size()); }

  int add_set(CodeSet s) {
    for (std::size_t k = 0; k < sets.size(); ++k) {
      if (sets[k] == s) return static_cast<int>(k);
    }
    sets.push_back(std::move(s));
    return static_cast<int>(sets.size()) - 1;
  }

  // The set index of `atom`, or nullopt outside the accepted subset; an
  // atom's set is built once however often a repeat emits it.
  std::optional<int> set_of(const pattern::Node& atom) {
    const auto [it, fresh] = atom_sets_.try_emplace({atom.text, atom.fold}, -1);
    if (fresh) {
      if (std::optional<CodeSet> s = atom_set(atom)) it->second = add_set(std::move(*s));
    }
    if (it->second < 0) return std::nullopt;
    return it->second;
  }

  std::map<std::pair<std::string, bool>, int> atom_sets_;  // set_of's: -1 for a refused atom

  static bool nullable(const pattern::Node& n) {
    using K = pattern::Node::Kind;
    switch (n.kind) {
      case K::kAtom: return false;
      case K::kSeq: return std::all_of(n.kids.begin(), n.kids.end(), nullable);
      case K::kAlt: return std::any_of(n.kids.begin(), n.kids.end(), nullable);
      case K::kRepeat: return n.min == 0 || nullable(n.kids[0]);
      case K::kAssert: return true;
      case K::kAtomic: return nullable(n.kids[0]);
    }
    return true;
  }

  void emit_char(int set) { push({Inst::Op::kChar, set, false, false, here() + 1}); }

  // A repeat that never gives back what it took: exactly min(run, max)
  // chars of the set, where run is the length of the run of its chars.
  void emit_possessive(int set, int min, int max) {
    for (int k = 0; k < min && ok; ++k) emit_char(set);
    const auto guard = [&](int to) { return Inst{Inst::Op::kAssert, set, true, true, to}; };
    if (max < 0) {
      const int loop = push({Inst::Op::kSplit});
      emit_char(set);
      push({Inst::Op::kJump, -1, false, false, loop});
      prog[loop].x = loop + 1;
      prog[loop].y = push(guard(here() + 1));
      return;
    }
    std::vector<int> splits;
    for (int k = min; k < max && ok; ++k) {
      splits.push_back(push({Inst::Op::kSplit}));
      prog[splits.back()].x = here();
      emit_char(set);
    }
    const int jump = push({Inst::Op::kJump});
    const int end = here() + static_cast<int>(splits.size());
    for (int s : splits) prog[s].y = push(guard(end));
    prog[jump].x = end;
  }

  void emit(const pattern::Node& n) {
    using K = pattern::Node::Kind;
    if (!ok) return;
    switch (n.kind) {
      case K::kAtom: {
        const std::optional<int> set = set_of(n);
        if (!set) { ok = false; return; }
        emit_char(*set);
        return;
      }
      case K::kSeq:
        for (std::size_t k = 0; k < n.kids.size(); ++k) {
          if (k > 0 && may_fold_together(n.kids[k - 1], n.kids[k])) { ok = false; return; }
          emit(n.kids[k]);
        }
        return;
      case K::kAlt: {
        std::vector<int> jumps;
        for (std::size_t k = 0; k < n.kids.size(); ++k) {
          const bool last = k + 1 == n.kids.size();
          const int split = last ? -1 : push({Inst::Op::kSplit});
          if (!last) prog[split].x = here();
          emit(n.kids[k]);
          if (!last) {
            jumps.push_back(push({Inst::Op::kJump}));
            prog[split].y = here();
          }
        }
        for (int j : jumps) prog[j].x = here();
        return;
      }
      case K::kRepeat: {
        const pattern::Node& kid = n.kids[0];
        if (n.possessive) {
          const std::optional<int> set = kid.kind == K::kAtom ? set_of(kid) : std::nullopt;
          if (!set) { ok = false; return; }
          emit_possessive(*set, n.min, n.max);
          return;
        }
        if (n.max < 0 && nullable(kid)) { ok = false; return; }  // an empty iteration: Oniguruma's own rules
        for (int k = 0; k < n.min && ok; ++k) emit(kid);
        auto branch = [&](int split, int take, int skip) {
          prog[split].x = n.lazy ? skip : take;
          prog[split].y = n.lazy ? take : skip;
        };
        if (n.max < 0) {
          const int loop = push({Inst::Op::kSplit});
          emit(kid);
          push({Inst::Op::kJump, -1, false, false, loop});
          branch(loop, loop + 1, here());
          return;
        }
        std::vector<int> splits;
        for (int k = n.min; k < n.max && ok; ++k) {
          splits.push_back(push({Inst::Op::kSplit}));
          emit(kid);
        }
        for (int s : splits) branch(s, s + 1, here());
        return;
      }
      case K::kAssert: {
        Inst in{Inst::Op::kAssert};
        in.x = here() + 1;
        if (n.text == "$") {  // end of a line: before '\n' or at the end
          in.set = add_set({{'\n', '\n'}});
          in.at_end = true;
        } else if (n.text == "\\z") {
          in.set = add_set({});
          in.at_end = true;
        } else if ((n.text == "(?!" || n.text == "(?=") && n.kids[0].kind == K::kAtom) {
          const std::optional<int> set = set_of(n.kids[0]);
          if (!set) { ok = false; return; }
          in.set = *set;
          in.negate = n.text == "(?!";
          in.at_end = in.negate;
        } else {
          ok = false;
          return;
        }
        push(in);
        return;
      }
      case K::kAtomic: {
        const pattern::Node& kid = n.kids[0];
        if (kid.kind == K::kAtom) return emit(kid);
        if (kid.kind == K::kRepeat && !kid.lazy && kid.kids[0].kind == K::kAtom) {
          const std::optional<int> set = set_of(kid.kids[0]);
          if (!set) { ok = false; return; }
          emit_possessive(*set, kid.min, kid.max);
          return;
        }
        ok = false;
        return;
      }
    }
  }
};

}  // namespace automaton_detail

}  // namespace snaptok::scanners
