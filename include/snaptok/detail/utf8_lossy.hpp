// Rust's String::from_utf8_lossy: every maximal invalid subpart of a UTF-8
// sequence becomes one U+FFFD.
#pragma once

#include <string>
#include <string_view>

namespace snaptok::detail {

inline std::string utf8_lossy(std::string_view s) {
  static constexpr char kReplacement[] = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(s.size());
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      out += kReplacement;
      ++i;
      continue;
    }
    // Consume the longest valid prefix; an incomplete one is one U+FFFD.
    std::size_t k = 1;
    for (; k < len && i + k < n; ++k) {
      const unsigned char cc = p[i + k];
      const unsigned char l = k == 1 ? lo : 0x80, h = k == 1 ? hi : 0xBF;
      if (cc < l || cc > h) break;
    }
    if (k == len) {
      out.append(s.substr(i, len));
    } else {
      out += kReplacement;
    }
    i += k;
  }
  return out;
}

}  // namespace snaptok::detail
