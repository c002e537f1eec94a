// The f64 that serde_json reads for a JSON number, bit for bit.
//
// HF `tokenizers` parses tokenizer.json with serde_json built without its
// `float_roundtrip` feature. That parser gathers the significant digits into a
// u64 and then does one multiply or divide by a power of ten, so a number with
// more than ~15 significant digits can land 1 ULP away from the correctly
// rounded value (8,334 of t5-small's 32,100 Unigram scores do). Unigram's
// Viterbi compares sums of these scores, so snaptok must read the same bits.
//
// simdjson keeps no number text, only the correctly rounded double. Writers of
// tokenizer.json (serde_json/ryu, Python's json) print the shortest text that
// rounds back to the value, so the shortest form of the correctly rounded
// double is the text in the file; serde's arithmetic is applied to it.
#pragma once

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <system_error>

namespace snaptok::detail {

// Returns 10^i correctly rounded, i in [0, 308] (serde_json's POW10 table).
inline double serde_pow10(int i) noexcept {
  static const std::array<double, 309> table = [] {
    std::array<double, 309> t{};
    char buf[8] = {'1', 'e'};
    for (int k = 0; k <= 308; ++k) {
      const auto r = std::to_chars(buf + 2, buf + sizeof buf, k);
      std::from_chars(buf, r.ptr, t[static_cast<std::size_t>(k)]);
    }
    return t;
  }();
  return table[static_cast<std::size_t>(i)];
}

// Returns serde_json's f64_from_parts(positive, significand, exponent): the
// value significand * 10^exponent computed as serde_json (default features)
// does. Out-of-range results, which serde_json rejects, come back infinite.
inline double serde_f64_from_parts(bool positive, std::uint64_t significand,
                                   std::int32_t exponent) noexcept {
  double f = static_cast<double>(significand);
  for (;;) {
    const std::uint32_t mag = exponent < 0 ? 0u - static_cast<std::uint32_t>(exponent)
                                           : static_cast<std::uint32_t>(exponent);
    if (mag <= 308) {
      if (exponent >= 0) {
        f *= serde_pow10(static_cast<int>(mag));
      } else {
        f /= serde_pow10(static_cast<int>(mag));
      }
      break;
    }
    if (f == 0.0) break;
    if (exponent >= 0) {
      f = HUGE_VAL;
      break;
    }
    f /= 1e308;
    exponent += 308;
  }
  return positive ? f : -f;
}

// Returns the f64 serde_json reads from the shortest round-trip text of `d`
// (see the top of this file). Integers and exactly representable short
// decimals come back unchanged.
inline double serde_json_f64(double d) noexcept {
  if (!std::isfinite(d) || d == 0.0) return d;
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  const std::string_view s(buf, static_cast<std::size_t>(r.ptr - buf));
  std::size_t i = 0;
  const bool positive = s[0] != '-';
  if (!positive) ++i;
  std::uint64_t significand = 0;
  int digits_after_point = 0;
  bool after_point = false;
  for (; i < s.size() && s[i] != 'e'; ++i) {
    if (s[i] == '.') {
      after_point = true;
      continue;
    }
    significand = significand * 10 + static_cast<std::uint64_t>(s[i] - '0');
    if (after_point) ++digits_after_point;
  }
  int exp10 = 0;
  std::from_chars(s.data() + i + 1 + (s[i + 1] == '+' ? 1 : 0), s.data() + s.size(), exp10);
  return serde_f64_from_parts(positive, significand, exp10 - digits_after_point);
}

}  // namespace snaptok::detail
