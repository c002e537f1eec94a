// Reading the files a tokenizer is loaded from, with errors that name them.
#pragma once

#include <array>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>

#include "snaptok/error.hpp"

namespace snaptok::detail {

/// Throws naming `path` when it is a directory (reading one fails obscurely).
inline void require_regular_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw Error(path.string() + ": is a directory, not a tokenizer.json or .st file");
  }
}

/// Returns the bytes of the file at `path`.
inline std::string read_file(const std::filesystem::path& path) {
  require_regular_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path.string() + ": cannot open file");
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error(path.string() + ": read error");
  return data;
}

/// True when the file at `path` begins with `magic`.
template <std::size_t N>
bool starts_with_bytes(const std::filesystem::path& path, const std::array<char, N>& magic) {
  std::ifstream in(path, std::ios::binary);
  std::array<char, N> head{};
  return in.read(head.data(), head.size()) && head == magic;
}

}  // namespace snaptok::detail
