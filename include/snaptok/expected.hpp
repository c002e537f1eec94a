// snaptok::Expected<T>: a value, or the message of the error that prevented
// it. The try_ calls of snaptok::Tokenizer return one instead of throwing,
// for servers built without exceptions in their hot path.
//
//   auto tok = snaptok::Tokenizer::try_from_file("tokenizer.json");
//   if (!tok) { log(tok.error()); return; }   // "tokenizer.json: cannot open file"
//   std::vector<uint32_t> ids;
//   if (auto ok = tok->try_encode_into(request, true, ids); !ok) reply_error(ok.error());
#pragma once

#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

namespace snaptok {

template <class T>
class Expected {
 public:
  Expected(T value) : value_(std::move(value)) {}  // NOLINT: implicit, as std::expected
  /// An Expected holding the error `message` and no value.
  static Expected failure(std::string message) {
    Expected e;
    e.error_ = std::move(message);
    return e;
  }

  bool has_value() const noexcept { return value_.has_value(); }
  explicit operator bool() const noexcept { return has_value(); }
  /// The value; calling it without one aborts (no exception is thrown).
  T& value() & noexcept { return checked(); }
  const T& value() const& noexcept { return const_cast<Expected*>(this)->checked(); }
  T&& value() && noexcept { return std::move(checked()); }
  T& operator*() & noexcept { return checked(); }
  const T& operator*() const& noexcept { return value(); }
  T* operator->() noexcept { return &checked(); }
  const T* operator->() const noexcept { return &value(); }
  /// What went wrong ("" when there is a value).
  const std::string& error() const noexcept { return error_; }

 private:
  Expected() = default;
  T& checked() noexcept {
    if (!value_) std::abort();
    return *value_;
  }
  std::optional<T> value_;
  std::string error_;
};

/// Success, or the message of the error.
template <>
class Expected<void> {
 public:
  Expected() = default;
  static Expected failure(std::string message) {
    Expected e;
    e.failed_ = true;
    e.error_ = std::move(message);
    return e;
  }
  bool has_value() const noexcept { return !failed_; }
  explicit operator bool() const noexcept { return has_value(); }
  const std::string& error() const noexcept { return error_; }

 private:
  bool failed_ = false;
  std::string error_;
};

}  // namespace snaptok
