// Pinned Unicode classes for regexes: name lookup and pattern rewriting.
// The system Oniguruma may carry older Unicode data than the one bundled in
// the pinned `tokenizers`; pin_unicode_classes() rewrites every
// Unicode-dependent class of a pattern (\p{..}, \P{..}, \w, \W, \d, \D)
// into explicit ranges generated from that release (regex_classes.hpp).
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "snaptok/unicode/regex_classes.hpp"

namespace snaptok::detail {

// Returns the pinned ranges for a property name as Oniguruma spells it
// (case, ' ', '_' and '-' ignored), or nullptr when the name is not pinned.
inline const unicode::regex_classes::Class* find_regex_class(std::string_view name) {
  std::string key;
  for (const char c : name) {
    if (c == '_' || c == ' ' || c == '-') continue;
    key.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
  }
  for (const auto& cls : unicode::regex_classes::kClasses) {
    if (cls.key == key) return &cls;
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

/// Returns `pattern` with its Unicode-dependent classes replaced by the
/// pinned ranges; everything else is copied as is.
inline std::string pin_unicode_classes(std::string_view pattern) {
  std::string out;
  out.reserve(pattern.size());
  int depth = 0;  // bracket-expression nesting
  auto emit = [&](const unicode::regex_classes::Class& cls, bool negated) {
    if (depth > 0 && !negated) {
      append_class_ranges(out, cls);
      return;
    }
    out += negated ? "[^" : "[";
    append_class_ranges(out, cls);
    out += ']';
  };
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
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
        if (const auto* cls = name.empty() ? nullptr : find_regex_class(name)) {
          emit(*cls, negated);
          i = end - 1;
          continue;
        }
      } else if (d == 'w' || d == 'W' || d == 'd' || d == 'D') {
        const char lower = static_cast<char>(d | 0x20);
        const auto* cls = find_regex_class(lower == 'w' ? "\\w" : "\\d");
        emit(*cls, d != lower);
        ++i;
        continue;
      }
      out += c;
      out += d;
      ++i;
      continue;
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
