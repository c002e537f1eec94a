// Flat<T>: the read-only array every encoder table is made of. Its elements
// either belong to it (a table built from tokenizer.json) or lie inside a
// mapped .st image that it keeps alive (a table loaded from a file); the
// encoder cannot tell the two apart. Copies share the elements.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace snaptok::detail {

template <class T>
class Flat {
  static_assert(std::is_trivially_copyable_v<T>, "tables hold plain data only");

 public:
  Flat() = default;

  /// Takes ownership of `elements`.
  explicit Flat(std::vector<T> elements) {
    auto owned = std::make_shared<const std::vector<T>>(std::move(elements));
    data_ = owned->data();
    size_ = owned->size();
    keeper_ = std::move(owned);
  }

  /// Views `n` elements at `data`, which stay valid while `keeper` lives.
  Flat(const T* data, std::size_t n, std::shared_ptr<const void> keeper) noexcept
      : keeper_(std::move(keeper)), data_(data), size_(n) {}

  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  const T* begin() const noexcept { return data_; }
  const T* end() const noexcept { return data_ + size_; }
  std::span<const T> span() const noexcept { return {data_, size_}; }
  /// The elements as bytes (what a .st section holds).
  std::span<const std::byte> bytes() const noexcept {
    return {reinterpret_cast<const std::byte*>(data_), size_ * sizeof(T)};
  }

 private:
  std::shared_ptr<const void> keeper_;
  const T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace snaptok::detail
