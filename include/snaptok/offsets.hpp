// Offsets: a half-open byte or char range, as encodings and normalized
// strings report them. Light: the public tokenizer.hpp includes it.
#pragma once

#include <cstddef>

namespace snaptok {

/// A half-open byte or char range [start, end).
struct Offsets {
  std::size_t start = 0;
  std::size_t end = 0;
  friend bool operator==(const Offsets&, const Offsets&) = default;
};

}  // namespace snaptok
