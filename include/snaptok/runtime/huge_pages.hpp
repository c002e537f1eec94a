// Zeroed arrays for large tables probed at random (piece caches): on Linux
// they are aligned to 2 MiB and marked for transparent huge pages, so a
// random probe costs a cache miss but not also a TLB miss and page walk.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace snaptok::runtime {

struct FreeDeleter {
  void operator()(void* p) const noexcept { std::free(p); }
};

template <class T>
using HugeArray = std::unique_ptr<T[], FreeDeleter>;

/// Returns `n` value-initialised Ts (T trivial) in memory backed by huge
/// pages where the system allows it.
template <class T>
HugeArray<T> make_huge_array(std::size_t n) {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
  constexpr std::size_t kHugePage = std::size_t{2} << 20;
  const std::size_t bytes = std::max<std::size_t>(n * sizeof(T), alignof(T));
  void* p = nullptr;
  if (bytes >= kHugePage) {
    p = std::aligned_alloc(kHugePage, (bytes + kHugePage - 1) / kHugePage * kHugePage);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (p) madvise(p, bytes, MADV_HUGEPAGE);
#endif
  }
  if (!p) p = std::aligned_alloc(alignof(T) < 64 ? 64 : alignof(T), (bytes + 63) / 64 * 64);
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, bytes);
  return HugeArray<T>(static_cast<T*>(p));
}

}  // namespace snaptok::runtime
