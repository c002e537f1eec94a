// Pinned Unicode classes for regexes: name lookup and pattern rewriting.
// The system Oniguruma may carry older Unicode data than the one bundled in
// the pinned `tokenizers`; pin_unicode_classes() rewrites every
// Unicode-dependent class of a pattern (\p{..}, \P{..}, \w, \W, \d, \D,
// [:name:], [:^name:]) into explicit ranges generated from that release
// (generated/regex_classes.hpp). A class can mean different sets outside and inside a
// bracket: Oniguruma's \w matches ² ³ ¹ ¼ ½ ¾ alone but not in `[\w]`.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "snaptok/unicode/generated/regex_classes.hpp"

namespace snaptok::detail {

// Returns the pinned ranges for a property name as Oniguruma spells it
// (case, ' ', '_' and '-' ignored) where it stands outside a bracket
// expression, or inside one when `in_bracket`; nullptr when not pinned.
inline const unicode::regex_classes::Class* find_regex_class(std::string_view name,
                                                             bool in_bracket = false) {
  using unicode::regex_classes::Where;
  std::string key;
  for (const char c : name) {
    if (c == '_' || c == ' ' || c == '-') continue;
    key.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
  }
  const Where context = in_bracket ? Where::kInsideBracket : Where::kOutsideBracket;
  for (const auto& cls : unicode::regex_classes::kClasses) {
    if (cls.key == key && (cls.where == Where::kAnywhere || cls.where == context)) return &cls;
  }
  return nullptr;
}

// Returns the pinned ranges for the POSIX bracket [:name:] (name exactly as
// Oniguruma accepts it: lowercase), or nullptr when not pinned.
inline const unicode::regex_classes::Class* find_posix_bracket(std::string_view name) {
  for (const auto& cls : unicode::regex_classes::kClasses) {
    if (cls.where == unicode::regex_classes::Where::kPosixBracket && cls.key == name) return &cls;
  }
  return nullptr;
}

// Appends `cls` as a bracket expression body (ranges, no brackets).
inline void append_class_ranges(std::string& out, const unicode::regex_classes::Class& cls) {
  char buf[40];
  for (std::size_t i = 0; i < cls.size; ++i) {
    const auto& r = cls.ranges[i];
    if (r.first == r.last) {
      std::snprintf(buf, sizeof buf, "\\x{%X}", static_cast<unsigned>(r.first));
    } else {
      std::snprintf(buf, sizeof buf, "\\x{%X}-\\x{%X}", static_cast<unsigned>(r.first),
                    static_cast<unsigned>(r.last));
    }
    out += buf;
  }
}

// Returns the ignore-case state after the option letters at pattern[i..]
// ("i", "-i", "mi-x", ...) when they end with ':' or ')', setting `end` to
// that terminator; returns `icase` and sets `end` to npos otherwise.
inline bool parse_ignore_case_option(std::string_view pattern, std::size_t i, bool icase,
                                     std::size_t& end) {
  bool on = true;
  bool result = icase;
  for (; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == ':' || c == ')') {
      end = i;
      return result;
    }
    if (c == '-') {
      on = false;
    } else if (c == 'i') {
      result = on;
    } else if (c != 'm' && c != 'x') {
      break;
    }
  }
  end = std::string_view::npos;
  return icase;
}

/// Returns `pattern` with its Unicode-dependent classes replaced by the
/// pinned ranges; everything else is copied as is. Under (?i) Oniguruma folds
/// case in a bracket but not in a lone \p{..}, so a lone class is emitted as
/// (?-i:[..]) there.
inline std::string pin_unicode_classes(std::string_view pattern) {
  std::string out;
  out.reserve(pattern.size());
  int depth = 0;  // bracket-expression nesting
  bool icase = false;             // (?i) in effect at this point
  std::vector<bool> group_icase;  // icase outside each open group
  auto emit = [&](const unicode::regex_classes::Class& cls, bool negated) {
    if (depth > 0 && !negated) {
      append_class_ranges(out, cls);
      return;
    }
    const bool unfold = depth == 0 && icase;
    if (unfold) out += "(?-i:";
    out += negated ? "[^" : "[";
    append_class_ranges(out, cls);
    out += ']';
    if (unfold) out += ')';
  };
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (depth == 0 && c == '(') {
      group_icase.push_back(icase);
      if (i + 1 < pattern.size() && pattern[i + 1] == '?') {
        std::size_t end;
        icase = parse_ignore_case_option(pattern, i + 2, icase, end);
        if (end != std::string_view::npos && pattern[end] == ')') {
          // (?i) is no group: it holds to the end of the enclosing one.
          group_icase.pop_back();
          out.append(pattern.substr(i, end + 1 - i));
          i = end;
          continue;
        }
      }
    } else if (depth == 0 && c == ')' && !group_icase.empty()) {
      icase = group_icase.back();
      group_icase.pop_back();
    }
    if (c == '\\' && i + 1 < pattern.size()) {
      const char d = pattern[i + 1];
      if (d == 'p' || d == 'P') {
        std::size_t end = i + 2;
        std::string_view name;
        bool negated = d == 'P';
        if (end < pattern.size() && pattern[end] == '{') {
          const std::size_t close = pattern.find('}', end);
          if (close != std::string_view::npos) {
            name = pattern.substr(end + 1, close - end - 1);
            end = close + 1;
          }
        } else if (end < pattern.size()) {
          name = pattern.substr(end, 1);
          end += 1;
        }
        if (!name.empty() && name.front() == '^') {
          negated = !negated;
          name.remove_prefix(1);
        }
        if (const auto* cls = name.empty() ? nullptr : find_regex_class(name, depth > 0)) {
          emit(*cls, negated);
          i = end - 1;
          continue;
        }
      } else if (d == 'w' || d == 'W' || d == 'd' || d == 'D') {
        const char lower = static_cast<char>(d | 0x20);
        const auto* cls = find_regex_class(lower == 'w' ? "\\w" : "\\d", depth > 0);
        emit(*cls, d != lower);
        ++i;
        continue;
      }
      out += c;
      out += d;
      ++i;
      continue;
    }
    if (c == '[' && depth > 0 && i + 1 < pattern.size() && pattern[i + 1] == ':') {
      // A POSIX bracket [:name:] or [:^name:]; anything else is a nested class.
      const std::size_t close = pattern.find(":]", i + 2);
      if (close != std::string_view::npos) {
        std::string_view name = pattern.substr(i + 2, close - i - 2);
        const bool negated = !name.empty() && name.front() == '^';
        if (negated) name.remove_prefix(1);
        if (const auto* cls = find_posix_bracket(name)) {
          emit(*cls, negated);
          i = close + 1;
          continue;
        }
      }
    }
    if (c == '[') {
      ++depth;
      out += c;
      // A ']' right after '[' or '[^' is a literal.
      if (i + 1 < pattern.size() && pattern[i + 1] == '^') out += pattern[++i];
      if (i + 1 < pattern.size() && pattern[i + 1] == ']') out += pattern[++i];
      continue;
    }
    if (c == ']' && depth > 0) --depth;
    out += c;
  }
  return out;
}

}  // namespace snaptok::detail
