// A thin reader over simdjson's DOM that remembers where it is, so that every
// error names the JSON path: `model.merges[12]: expected a string or an array`.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "snaptok/error.hpp"

namespace snaptok::detail {

/// Returns `s` as a JSON string literal (quotes, backslashes and control
/// chars escaped; other UTF-8 as is).
inline std::string json_quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      static constexpr char hex[] = "0123456789abcdef";
      out += "\\u00";
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += c;
    }
  }
  out += '"';
  return out;
}

class Json {
 public:
  Json(simdjson::dom::element el, std::string path)
      : el_(el), path_(std::move(path)) {}

  const std::string& path() const noexcept { return path_; }
  simdjson::dom::element raw() const noexcept { return el_; }

  bool is_null() const noexcept { return el_.is_null(); }
  bool is_string() const noexcept { return el_.is_string(); }
  bool is_array() const noexcept { return el_.is_array(); }
  bool is_object() const noexcept { return el_.is_object(); }
  bool is_number() const noexcept { return el_.is_number(); }
  bool is_bool() const noexcept { return el_.is_bool(); }

  // Throws an Error whose message starts with this node's path.
  [[noreturn]] void fail(std::string_view what) const {
    throw Error((path_.empty() ? std::string("tokenizer.json") : path_) + ": " +
                std::string(what));
  }

  // Returns the member `key`, or nullopt when it is absent or null.
  std::optional<Json> find(std::string_view key) const {
    if (!el_.is_object()) fail("expected an object, got " + type_name());
    simdjson::dom::element child;
    if (el_.get_object().at_key(key).get(child) != simdjson::SUCCESS ||
        child.is_null()) {
      return std::nullopt;
    }
    return Json(child, child_path(key));
  }

  // Returns the member `key`; throws naming it when absent or null.
  Json at(std::string_view key) const {
    auto child = find(key);
    if (!child) fail("missing field \"" + std::string(key) + "\"");
    return *child;
  }

  std::string_view str() const {
    std::string_view s;
    if (el_.get_string().get(s) != simdjson::SUCCESS) {
      fail("expected a string, got " + type_name());
    }
    return s;
  }
  bool boolean() const {
    bool b;
    if (el_.get_bool().get(b) != simdjson::SUCCESS) {
      fail("expected true or false, got " + type_name());
    }
    return b;
  }
  std::uint64_t u64() const {
    std::uint64_t v;
    if (el_.get_uint64().get(v) != simdjson::SUCCESS) {
      fail("expected a non-negative integer, got " + type_name());
    }
    return v;
  }
  std::int64_t i64() const {
    std::int64_t v;
    if (el_.get_int64().get(v) != simdjson::SUCCESS) {
      fail("expected an integer, got " + type_name());
    }
    return v;
  }
  std::uint32_t u32() const {
    const std::uint64_t v = u64();
    if (v > 0xFFFFFFFFull) fail("integer out of range: " + std::to_string(v));
    return static_cast<std::uint32_t>(v);
  }
  double f64() const {
    double d;
    if (el_.is_int64()) return static_cast<double>(el_.get_int64().value());
    if (el_.is_uint64()) return static_cast<double>(el_.get_uint64().value());
    if (el_.get_double().get(d) != simdjson::SUCCESS) {
      fail("expected a number, got " + type_name());
    }
    return d;
  }

  std::vector<Json> array() const {
    simdjson::dom::array arr;
    if (el_.get_array().get(arr) != simdjson::SUCCESS) {
      fail("expected an array, got " + type_name());
    }
    std::vector<Json> out;
    out.reserve(arr.size());
    std::size_t i = 0;
    for (simdjson::dom::element e : arr) {
      out.emplace_back(e, path_ + "[" + std::to_string(i++) + "]");
    }
    return out;
  }

  // Calls fn(key, Json) for every member, in document order.
  template <class Fn>
  void for_each_member(Fn&& fn) const {
    simdjson::dom::object obj;
    if (el_.get_object().get(obj) != simdjson::SUCCESS) {
      fail("expected an object, got " + type_name());
    }
    for (auto [key, value] : obj) fn(key, Json(value, child_path(key)));
  }

  // Field helpers with defaults for optional settings.
  std::string_view get_str(std::string_view key, std::string_view dflt) const {
    auto c = find(key);
    return c ? c->str() : dflt;
  }
  bool get_bool(std::string_view key, bool dflt) const {
    auto c = find(key);
    return c ? c->boolean() : dflt;
  }
  std::uint32_t get_u32(std::string_view key, std::uint32_t dflt) const {
    auto c = find(key);
    return c ? c->u32() : dflt;
  }
  std::optional<std::string> get_opt_str(std::string_view key) const {
    auto c = find(key);
    if (!c) return std::nullopt;
    return std::string(c->str());
  }

  // Returns the component type string (`"type"` member), naming the path.
  std::string_view type() const { return at("type").str(); }

  // Throws `unknown type "X"` for a component this build does not know.
  [[noreturn]] void unknown_type() const {
    fail("unknown type \"" + std::string(type()) + "\"");
  }

  std::string type_name() const {
    switch (el_.type()) {
      case simdjson::dom::element_type::ARRAY: return "array";
      case simdjson::dom::element_type::OBJECT: return "object";
      case simdjson::dom::element_type::STRING: return "string";
      case simdjson::dom::element_type::BOOL: return "boolean";
      case simdjson::dom::element_type::NULL_VALUE: return "null";
      default: return "number";
    }
  }

 private:
  std::string child_path(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  }

  simdjson::dom::element el_;
  std::string path_;
};

}  // namespace snaptok::detail
