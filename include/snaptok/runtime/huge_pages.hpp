// Zeroed arrays for large tables probed at random (piece caches, merge
// maps). On Linux, arrays of 2 MiB and more are anonymous mappings aligned
// to 2 MiB and marked for transparent huge pages: a random probe then costs
// a cache miss but not also a TLB miss and a page walk, and pages are zero
// and touched only when used (a fresh worker's cache costs nothing up front).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace snaptok::runtime {

/// Asks for transparent huge pages under the 2 MiB-aligned part of
/// [p, p + bytes) (Linux; elsewhere, and for less than 4 MiB, nothing): a
/// large output buffer written once then faults 512 times less often.
inline void advise_huge_pages(const void* p, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
  if (bytes < 2 * kHugePage) return;
  const auto begin = (reinterpret_cast<std::uintptr_t>(p) + kHugePage - 1) & ~(kHugePage - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(kHugePage - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

/// Frees what make_huge_array allocated (`mapped` bytes mapped, else malloc'ed).
struct HugeArrayDeleter {
  std::size_t mapped = 0;
  void* base = nullptr;  // start of the mapping (before alignment)
  void operator()(void* p) const noexcept {
#if defined(__linux__)
    if (mapped != 0) {
      munmap(base, mapped);
      return;
    }
#endif
    std::free(p);
  }
};

template <class T>
using HugeArray = std::unique_ptr<T[], HugeArrayDeleter>;

/// Returns `n` zero-initialised Ts (T trivial; all-zero bytes must be a
/// valid T), in memory backed by huge pages where the system allows it.
template <class T>
HugeArray<T> make_huge_array(std::size_t n) {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
  constexpr std::size_t kHugePage = std::size_t{2} << 20;
  const std::size_t bytes = std::max<std::size_t>(n * sizeof(T), alignof(T));
#if defined(__linux__)
  if (bytes >= kHugePage) {
    const std::size_t length = bytes + kHugePage;  // room to align the start
    void* base = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base != MAP_FAILED) {
      const auto start = (reinterpret_cast<std::uintptr_t>(base) + kHugePage - 1) & ~(kHugePage - 1);
      void* p = reinterpret_cast<void*>(start);
#if defined(MADV_HUGEPAGE)
      madvise(p, bytes, MADV_HUGEPAGE);
#endif
      return HugeArray<T>(static_cast<T*>(p), HugeArrayDeleter{length, base});
    }
  }
#endif
  void* p = std::aligned_alloc(alignof(T) < 64 ? 64 : alignof(T), (bytes + 63) / 64 * 64);
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, bytes);
  return HugeArray<T>(static_cast<T*>(p), HugeArrayDeleter{});
}

}  // namespace snaptok::runtime
