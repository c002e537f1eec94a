// snaptok errors: every failure is a snaptok::Error whose message names the
// component and the place (JSON path, file, byte offset) where it happened.
#pragma once

#include <stdexcept>
#include <string>

namespace snaptok {

/// Thrown for every failure: malformed tokenizer.json, unknown component
/// types, invalid input, I/O errors. The message names what failed and where,
/// e.g. `pre_tokenizer.pretokenizers[1]: unknown type "Foo"`.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace snaptok
