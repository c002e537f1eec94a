// A parser for the subset of Oniguruma's Ruby syntax that tokenizer files'
// Split patterns use, into a small tree whose canonical text (render())
// is the same for spellings that Oniguruma provably matches the same way:
//  - a class's members in any order, repeated or not: [\r\n] = [\n\r];
//  - a class of one member is that member: [\p{L}] = \p{L}, [/] = \/ = /;
//  - \S = [^\s], \P{X} = [^\p{X}]; an intersection's operands in any order;
//  - a literal however escaped: \n = \x0A = \x{a} = \u000A (rendered \x{HEX});
//  - groups only where they group: (?:a)b = ab, (?:a|b)|c = a|b|c, and a
//    capture is a group (a Split keeps whole matches only);
//  - (?i:..) carried down to the atoms it changes (marked (?i:x); ASCII
//    chars that are not letters have no other case and are left unmarked);
//  - x{1} = x, x{0,1} = x?, x{0,} = x*, x{1,} = x+.
// Anything outside the subset (backreferences, \G, \K, conditionals, \d
// and the like, which are left as they are spelt) makes parse() give up or
// renders as written, so a pattern that merely looks alike is never taken
// for a family member (scanners/pattern_family.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace snaptok::scanners::pattern {

struct Node {
  enum class Kind : std::uint8_t {
    kAtom,       // one char: a literal, an escape such as \p{L}, a class
    kSeq,        // kids in turn
    kAlt,        // kids, leftmost first
    kRepeat,     // kids[0], min..max times
    kAssert,     // a zero-width assertion: text is "$", "^", "\\z", "(?!", "(?=", ...
    kAtomic,     // (?>kids[0])
  };
  Kind kind = Kind::kSeq;
  std::string text;          // kAtom: canonical text; kAssert: its kind
  bool fold = false;         // kAtom: under (?i)
  std::vector<char32_t> chars;  // kAtom: the chars it matches when it is a plain list of literals
  int min = 1, max = 1;      // kRepeat; max -1: unbounded
  bool possessive = false;   // kRepeat: ?+ *+ ++
  bool lazy = false;         // kRepeat: ?? *? +? {n,m}?
  std::vector<Node> kids;
};

namespace detail {

inline std::string hex_literal(char32_t c) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string h;
  do {
    h.insert(h.begin(), kDigits[c & 0xF]);
    c >>= 4;
  } while (c != 0);
  return "\\x{" + h + "}";
}

// Returns the value of the hex digit h, or -1.
inline int hex_digit(char h) {
  if (h >= '0' && h <= '9') return h - '0';
  if ((h | 0x20) >= 'a' && (h | 0x20) <= 'f') return (h | 0x20) - 'a' + 10;
  return -1;
}

inline bool ascii_letter(char32_t c) { return c < 0x80 && ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'); }

// A class member or a whole class while it is parsed.
struct Set {
  bool negated = false;
  std::vector<std::string> members;       // canonical texts, kept sorted and unique
  std::vector<std::string> intersections;  // canonical texts of && operands (incl. the first)
  std::vector<char32_t> chars;            // literal members (for Node::chars)
  bool only_literals = true;
};

class Parser {
 public:
  explicit Parser(std::string_view p) : p_(p) {}

  // Returns the tree of the whole pattern, or nullopt outside the subset.
  std::optional<Node> parse() {
    std::optional<Node> n = alternation(false);
    if (!n || !ok_ || i_ != p_.size()) return std::nullopt;
    return n;
  }

 private:
  bool at_end() const { return i_ >= p_.size(); }
  char peek() const { return at_end() ? '\0' : p_[i_]; }
  bool fail() { ok_ = false; return false; }

  // Returns the next code point of the pattern (UTF-8).
  char32_t next_cp() {
    const auto c = static_cast<unsigned char>(p_[i_]);
    int len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (i_ + len > p_.size()) { ok_ = false; i_ = p_.size(); return 0; }
    char32_t cp = len == 1 ? c : len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
    for (int k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(p_[i_ + k]) & 0x3F);
    i_ += len;
    return cp;
  }

  std::optional<Node> alternation(bool fold) {
    Node alt;
    alt.kind = Node::Kind::kAlt;
    for (;;) {
      std::optional<Node> s = sequence(fold);
      if (!s) return std::nullopt;
      if (s->kind == Node::Kind::kAlt) {
        for (Node& k : s->kids) alt.kids.push_back(std::move(k));
      } else {
        alt.kids.push_back(std::move(*s));
      }
      if (peek() != '|') break;
      ++i_;
    }
    if (alt.kids.size() == 1) return std::move(alt.kids[0]);
    return alt;
  }

  // Appends `n` to `seq`, flattening a nested sequence.
  static void append(Node& seq, Node n) {
    if (n.kind == Node::Kind::kSeq) {
      for (Node& k : n.kids) seq.kids.push_back(std::move(k));
    } else {
      seq.kids.push_back(std::move(n));
    }
  }

  std::optional<Node> sequence(bool fold) {
    Node seq;
    seq.kind = Node::Kind::kSeq;
    while (ok_ && !at_end() && peek() != '|' && peek() != ')') {
      if (p_.substr(i_, 4) == "(?i)" || p_.substr(i_, 5) == "(?-i)") {
        // An inline flag holds to the end of the enclosing group, across
        // its later alternatives too: parse them here and stop.
        const bool on = p_[i_ + 2] == 'i';
        i_ += on ? 4 : 5;
        std::optional<Node> rest = alternation(on);
        if (!rest) return std::nullopt;
        append(seq, std::move(*rest));
        break;
      }
      std::optional<Node> a = atom(fold);
      if (!a) return std::nullopt;
      std::optional<Node> q = quantified(std::move(*a));
      if (!q) return std::nullopt;
      append(seq, std::move(*q));
    }
    if (!ok_) return std::nullopt;
    if (seq.kids.size() == 1) return std::move(seq.kids[0]);
    return seq;
  }

  // Reads a decimal number at i_, or returns -1.
  int number() {
    int v = -1;
    while (!at_end() && peek() >= '0' && peek() <= '9') {
      v = (v < 0 ? 0 : v) * 10 + (peek() - '0');
      if (v > 100000) return -1;
      ++i_;
    }
    return v;
  }

  std::optional<Node> quantified(Node a) {
    for (;;) {
      if (at_end()) return a;
      const char c = peek();
      int lo = 0, hi = -1;
      bool interval = false, exact = false;  // {m,n} or {n,}; {n}
      if (c == '?') {
        lo = 0, hi = 1;
      } else if (c == '*') {
        lo = 0, hi = -1;
      } else if (c == '+') {
        lo = 1, hi = -1;
      } else if (c == '{') {
        const std::size_t save = i_;
        ++i_;
        const int a1 = number();
        int a2 = a1;
        exact = peek() != ',';
        if (!exact) {
          ++i_;
          a2 = number();
          lo = a1 < 0 ? 0 : a1;
          hi = a2;
        } else {
          lo = hi = a1;
        }
        if (peek() != '}' || (a1 < 0 && a2 < 0) || (hi >= 0 && hi < lo)) {
          i_ = save;  // Oniguruma reads such a brace as a literal: outside the subset
          return fail(), std::nullopt;
        }
        interval = true;
      } else {
        return a;
      }
      if (a.kind == Node::Kind::kAssert) return fail(), std::nullopt;
      ++i_;
      if (lo == 1 && hi == 1 && peek() != '?') continue;  // x{1} is x; x{1}+ is (?:x)+
      Node r;
      r.kind = Node::Kind::kRepeat;
      r.min = lo;
      r.max = hi;
      // Ruby syntax: ?+ *+ ++ are possessive, {n,m}+ is a repeat of a
      // repeat; a trailing ? makes either lazy, but x{n}? is (?:x{n})?
      // (found by the automaton fuzz target): outside the subset.
      if (peek() == '?') {
        if (exact) return fail(), std::nullopt;
        ++i_;
        r.lazy = true;
      } else if (!interval && peek() == '+') {
        ++i_;
        r.possessive = true;
      }
      r.kids.push_back(std::move(a));
      a = std::move(r);
    }
  }

  std::optional<Node> group(bool fold) {
    // At "(".
    ++i_;
    std::string_view rest = p_.substr(i_);
    auto inner = [&](bool f) -> std::optional<Node> {
      std::optional<Node> n = alternation(f);
      if (!n || peek() != ')') return fail(), std::nullopt;
      ++i_;
      return n;
    };
    if (rest.substr(0, 2) == "?:") { i_ += 2; return inner(fold); }
    if (rest.substr(0, 3) == "?i:") { i_ += 3; return inner(true); }
    if (rest.substr(0, 4) == "?-i:") { i_ += 4; return inner(false); }
    if (rest.substr(0, 2) == "?>") {
      i_ += 2;
      std::optional<Node> n = inner(fold);
      if (!n) return std::nullopt;
      Node a;
      a.kind = Node::Kind::kAtomic;
      a.kids.push_back(std::move(*n));
      return a;
    }
    for (std::string_view look : {"?!", "?=", "?<!", "?<="}) {
      if (rest.substr(0, look.size()) == look) {
        i_ += look.size();
        std::optional<Node> n = inner(fold);
        if (!n) return std::nullopt;
        Node a;
        a.kind = Node::Kind::kAssert;
        a.text = "(" + std::string(look);
        a.kids.push_back(std::move(*n));
        return a;
      }
    }
    if (!rest.empty() && rest[0] == '?') return fail(), std::nullopt;  // named groups, other flags
    return inner(fold);  // a capture groups like (?:..)
  }

  // Reads the escape after a '\' (at i_, past the '\'): a literal (sets
  // `cp`) or a char class text (sets `text`). `in_class`: inside [...].
  bool escape(char32_t& cp, std::string& text, bool in_class) {
    if (at_end()) return fail();
    const char c = p_[i_++];
    switch (c) {
      case 'n': cp = '\n'; return true;
      case 'r': cp = '\r'; return true;
      case 't': cp = '\t'; return true;
      case 'f': cp = '\f'; return true;
      case 'v': cp = '\v'; return true;
      case 'a': cp = 0x07; return true;
      case 'e': cp = 0x1B; return true;
      case 's': text = "\\s"; return true;
      case 'S': text = "[^\\s]"; return true;
      case 'p':
      case 'P': {
        if (peek() != '{') return fail();
        const std::size_t close = p_.find('}', i_);
        if (close == std::string_view::npos) return fail();
        std::string name(p_.substr(i_ + 1, close - i_ - 1));
        i_ = close + 1;
        bool neg = c == 'P';
        if (!name.empty() && name[0] == '^') {
          neg = !neg;
          name.erase(0, 1);
        }
        if (name.empty()) return fail();
        for (char ch : name) {
          if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_')) return fail();
        }
        text = neg ? "[^\\p{" + name + "}]" : "\\p{" + name + "}";
        return true;
      }
      case 'x': {
        char32_t v = 0;
        int digits = 0;
        const auto hex = hex_digit;
        if (peek() == '{') {
          ++i_;
          while (!at_end() && peek() != '}') {
            const int d = hex(p_[i_++]);
            if (d < 0 || ++digits > 6) return fail();
            v = v * 16 + static_cast<char32_t>(d);
          }
          if (at_end() || digits == 0) return fail();
          ++i_;
        } else {
          while (digits < 2 && !at_end() && hex(peek()) >= 0) v = v * 16 + static_cast<char32_t>(hex(p_[i_++])), ++digits;
          if (digits == 0) return fail();
          if (v >= 0x80) return fail();  // \xHH above 7F is a raw byte to Oniguruma
        }
        if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return fail();
        cp = v;
        return true;
      }
      case 'u': {  // \uHHHH: exactly four hex digits
        char32_t v = 0;
        for (int k = 0; k < 4; ++k) {
          const int d = hex_digit(at_end() ? '\0' : p_[i_++]);
          if (d < 0) return fail();
          v = v * 16 + static_cast<char32_t>(d);
        }
        if (v >= 0xD800 && v <= 0xDFFF) return fail();
        cp = v;
        return true;
      }
      default:
        // An escaped ASCII punctuation char is that char; letters, digits
        // and anything else (\d \w \b \A \z \G \K \1 ...) are outside the
        // subset here ('z' is read by the atom parser before this).
        if (static_cast<unsigned char>(c) < 0x80 && !((c >= '0' && c <= '9') || ascii_letter(static_cast<unsigned char>(c))) &&
            c > ' ') {
          cp = static_cast<unsigned char>(c);
          return true;
        }
        (void)in_class;
        return fail();
    }
  }

  // Parses a bracket class at '[' into its canonical text.
  bool bracket(Set& out) {
    ++i_;  // '['
    Set cur;
    if (peek() == '^') {
      cur.negated = true;
      ++i_;
    }
    std::vector<Set> operands;
    bool first = true;
    auto add_member = [](Set& s, std::string t) {
      s.members.push_back(std::move(t));
    };
    for (;;) {
      if (at_end()) return fail();
      if (peek() == ']') {
        if (first) return fail();  // []..] or [^]..]: a literal ']' to Oniguruma, outside the subset
        ++i_;
        break;
      }
      first = false;
      if (p_.substr(i_, 2) == "&&") {
        i_ += 2;
        operands.push_back(std::move(cur));
        cur = Set{};
        continue;
      }
      if (peek() == '[') {
        if (p_.substr(i_, 2) == "[:") return fail();  // POSIX brackets: outside the subset
        Set inner;
        if (!bracket(inner)) return false;
        add_member(cur, render_set(inner));
        cur.only_literals = false;
        continue;
      }
      char32_t lo = 0;
      std::string text;
      if (peek() == '\\') {
        ++i_;
        if (!escape(lo, text, true)) return false;
      } else {
        lo = next_cp();
        if (lo == '[') return fail();
      }
      if (!text.empty()) {
        add_member(cur, text);
        cur.only_literals = false;
        continue;
      }
      if (peek() == '-' && i_ + 1 < p_.size() && p_[i_ + 1] != ']') {
        ++i_;
        char32_t hi = 0;
        std::string hi_text;
        if (peek() == '\\') {
          ++i_;
          if (!escape(hi, hi_text, true) || !hi_text.empty()) return fail();
        } else {
          if (peek() == '[') return fail();
          hi = next_cp();
        }
        if (hi < lo) return fail();
        add_member(cur, hex_literal(lo) + "-" + hex_literal(hi));
        cur.only_literals = false;
        continue;
      }
      add_member(cur, hex_literal(lo));
      cur.chars.push_back(lo);
    }
    if (!ok_) return false;
    if (!operands.empty()) {
      // [A&&B&&C]: the leading ^ negates the whole intersection.
      const bool neg = operands[0].negated;
      operands[0].negated = false;
      operands.push_back(std::move(cur));
      Set whole;
      whole.negated = neg;
      for (Set& o : operands) whole.intersections.push_back(render_set(o));
      std::sort(whole.intersections.begin(), whole.intersections.end());
      whole.only_literals = false;
      out = std::move(whole);
      return true;
    }
    out = std::move(cur);
    return true;
  }

 public:
  // Returns the canonical text of a class: a single positive member is that
  // member; members sorted and unique.
  static std::string render_set(Set s) {
    if (!s.intersections.empty()) {
      std::string t = s.negated ? "[^" : "[";
      for (std::size_t k = 0; k < s.intersections.size(); ++k) t += (k ? "&&" : "") + s.intersections[k];
      return t + "]";
    }
    std::sort(s.members.begin(), s.members.end());
    s.members.erase(std::unique(s.members.begin(), s.members.end()), s.members.end());
    if (!s.negated && s.members.size() == 1) return s.members[0];
    // [^[^X]] = X for a member that is itself a negated class alone.
    if (s.negated && s.members.size() == 1 && s.members[0].size() > 3 && s.members[0].compare(0, 2, "[^") == 0 &&
        s.members[0].find('[', 1) == std::string::npos) {
      return s.members[0].substr(2, s.members[0].size() - 3);
    }
    std::string t = s.negated ? "[^" : "[";
    for (const std::string& m : s.members) t += m;
    return t + "]";
  }

 private:
  std::optional<Node> atom(bool fold) {
    Node a;
    a.kind = Node::Kind::kAtom;
    const char c = peek();
    if (c == '(') return group(fold);
    if (c == '$' || c == '^') {
      ++i_;
      a.kind = Node::Kind::kAssert;
      a.text = std::string(1, c);
      return a;
    }
    if (c == '*' || c == '+' || c == '?' || c == '{' || c == ')') return fail(), std::nullopt;
    if (c == '.') {
      ++i_;
      a.text = ".";
      return a;
    }
    if (c == '[') {
      Set s;
      if (!bracket(s)) return std::nullopt;
      const bool literal_list = s.only_literals && !s.negated && s.intersections.empty();
      std::vector<char32_t> chars = s.chars;
      a.text = render_set(std::move(s));
      if (literal_list) {
        std::sort(chars.begin(), chars.end());
        chars.erase(std::unique(chars.begin(), chars.end()), chars.end());
        a.chars = std::move(chars);
      }
    } else if (c == '\\') {
      ++i_;
      if (peek() == 'z' || peek() == 'Z' || peek() == 'A') {
        a.kind = Node::Kind::kAssert;
        a.text = std::string("\\") + p_[i_++];
        return a;
      }
      char32_t cp = 0;
      std::string text;
      if (!escape(cp, text, false)) return std::nullopt;
      if (text.empty()) {
        a.text = hex_literal(cp);
        a.chars = {cp};
      } else {
        a.text = text;
      }
    } else {
      const char32_t cp = next_cp();
      if (!ok_) return std::nullopt;
      a.text = hex_literal(cp);
      a.chars = {cp};
    }
    // (?i) changes only chars with another case: not ASCII chars that are
    // not letters (nor classes of those alone).
    bool caseless = !a.chars.empty();
    for (char32_t ch : a.chars) caseless = caseless && ch < 0x80 && !ascii_letter(ch);
    a.fold = fold && !caseless;
    return a;
  }

  std::string_view p_;
  std::size_t i_ = 0;
  bool ok_ = true;
};

}  // namespace detail

/// Returns the tree of `pattern`, or nullopt when it uses syntax outside
/// the subset this parser knows, e.g.
///   pattern::parse(R"(\p{N}{1,3}| ?[^\s\p{L}\p{N}]+)")
inline std::optional<Node> parse(std::string_view pattern) { return detail::Parser(pattern).parse(); }

/// Returns the canonical text of `n` (equal for the respellings listed at
/// the top of this header).
inline std::string render(const Node& n) {
  using K = Node::Kind;
  auto wrapped = [](const Node& k, bool wrap) { return wrap ? "(?:" + render(k) + ")" : render(k); };
  switch (n.kind) {
    case K::kAtom:
      return n.fold ? "(?i:" + n.text + ")" : n.text;
    case K::kSeq: {
      std::string t;
      for (const Node& k : n.kids) t += wrapped(k, k.kind == K::kAlt);
      return t;
    }
    case K::kAlt: {
      std::string t;
      for (std::size_t i = 0; i < n.kids.size(); ++i) t += (i ? "|" : "") + render(n.kids[i]);
      return t;
    }
    case K::kRepeat: {
      const Node& k = n.kids[0];
      if (n.min == 1 && n.max == 1 && !n.lazy) return render(k);
      std::string t = wrapped(k, k.kind == K::kSeq || k.kind == K::kAlt || k.kind == K::kRepeat);
      if (n.min == 0 && n.max == 1) t += "?";
      else if (n.min == 0 && n.max < 0) t += "*";
      else if (n.min == 1 && n.max < 0) t += "+";
      else if (n.min == n.max) t += "{" + std::to_string(n.min) + "}";
      else t += "{" + std::to_string(n.min) + "," + (n.max < 0 ? "" : std::to_string(n.max)) + "}";
      if (n.lazy) t += "?";
      if (n.possessive) t += "+";
      return t;
    }
    case K::kAssert:
      return n.kids.empty() ? n.text : n.text + render(n.kids[0]) + ")";
    case K::kAtomic:
      return "(?>" + render(n.kids[0]) + ")";
  }
  return {};
}

}  // namespace snaptok::scanners::pattern
