// The NormalizedString rewrites HF's normalizers are made of (filter, map,
// lowercase, Unicode forms), each skipped when it would change nothing, so
// that already-normalized text costs one scan.
#pragma once

#include <string>
#include <vector>

#include "snaptok/detail/utf8.hpp"
#include "snaptok/normalized_string.hpp"
#include "snaptok/unicode/normalize.hpp"
#include "snaptok/unicode/properties.hpp"

namespace snaptok {

/// Returns true when NormalizedString::transform with an identity rewrite
/// (every char replaced by itself) would leave `ns` unchanged. HF's transform
/// rewrites only the part that covers the original, so chars with empty
/// original ranges at the front would be duplicated: then the rewrite must run.
inline bool identity_is_noop(const NormalizedString& ns) noexcept {
  if (!ns.tracks_offsets() || ns.empty()) return true;
  const Offsets o = ns.offsets_original();
  const auto& a = ns.alignments().front();
  return o.end > o.start && a.start != a.end;
}

// Returns true when pred(cp) holds for some char of `s`.
template <class Pred>
inline bool any_char(const std::string& s, Pred&& pred) {
  for (std::size_t i = 0; i < s.size();) {
    if (pred(detail::next_cp(s, i))) return true;
  }
  return false;
}

/// Drops the chars for which drop(cp) holds (HF NormalizedString::filter).
template <class Drop>
inline void filter_out(NormalizedString& ns, Drop&& drop) {
  if (!any_char(ns.get(), drop) && identity_is_noop(ns)) return;
  ns.filter([&](char32_t c) { return !drop(c); });
}

/// Replaces every char c for which hit(c) holds by fn(c) (HF
/// NormalizedString::map with a function that is the identity elsewhere).
template <class Hit, class Fn>
inline void map_chars(NormalizedString& ns, Hit&& hit, Fn&& fn) {
  if (!any_char(ns.get(), hit) && identity_is_noop(ns)) return;
  ns.map([&](char32_t c) { return hit(c) ? fn(c) : c; });
}

/// HF NormalizedString::lowercase: Rust char::to_lowercase per char; extra
/// chars of a multi-char mapping are insertions.
inline void lowercase_rewrite(NormalizedString& ns) {
  const std::string& s = ns.get();
  bool any = false;
  for (std::size_t i = 0; i < s.size() && !any;) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      any = b >= 'A' && b <= 'Z';
      ++i;
    } else {
      any = unicode::changes_when_lowercased(detail::next_cp(s, i));
    }
  }
  if (!any && identity_is_noop(ns)) return;
  std::vector<CharChange> changes;
  changes.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    int change = 0;
    for (const char32_t c : unicode::to_lowercase(detail::next_cp(s, i))) {
      changes.push_back({c, change});
      change = 1;
    }
  }
  ns.transform(changes, 0);
}

/// HF NormalizedString::nfd / nfkd / nfc / nfkc.
inline void unicode_form_rewrite(NormalizedString& ns, unicode::NormForm form) {
  if (identity_is_noop(ns) && unicode::is_normalized_quick(ns.get(), form)) {
    return;
  }
  std::vector<CharChange> changes;
  unicode::normalize_changes(ns.get(), form, changes);
  ns.transform(changes, 0);
}

}  // namespace snaptok
