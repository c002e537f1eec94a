// Zeroed arrays for large tables probed at random (piece caches, merge
// maps). On Linux, arrays of 2 MiB and more are anonymous mappings aligned
// to 2 MiB, backed by transparent huge pages where that pays: a random
// probe then costs a cache miss but not also a TLB miss and a page walk
// (GPT-2's warm batch: 13% faster with the load-time tables on huge pages,
// another 6% with the worker caches), and pages are zero and touched only
// when used.
//
// When an array becomes huge pages (HugePages) is a measured choice. A
// huge page needs a free 2 MiB block at its first touch, and on a VM that
// is often a block the guest handed back to the host (free page reporting
// hands back free blocks of 2 MiB and up, seconds after they are freed),
// which the host must back again page by page: fresh huge pages cost up to
// ~2.5 ms each on the bench's VM, small pages come from memory recently
// used. A fresh corpus process that faulted its cache and output buffers in
// as huge pages ran its one pass at 145-160 MB/s (GPT-2, 48 MB, runs 3 s
// apart), 275 MB/s with small pages; back to back, 280 either way. So the
// tables built at load take huge pages at once (load time pays), a worker
// cache starts on small pages and is collapsed into huge pages once it is
// warm (PieceCache::settle), and output buffers, written once in order,
// stay on small pages.
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

/// When an array's pages become huge pages (see the top of this file).
enum class HugePages {
  kAtFirstTouch,  // each 2 MiB faults in as one huge page (tables built at load)
  kWhenSettled,   // small pages until collapse_to_huge_pages (worker caches)
};

#if defined(__linux__)
// madvise(`advice`) on the part of [p, p + bytes) between multiples of
// `align` (a power of two), if any; the result is ignored (advice only).
inline void advise_aligned_inside(void* p, std::size_t bytes, std::size_t align, int advice) noexcept {
  const auto begin = (reinterpret_cast<std::uintptr_t>(p) + align - 1) & ~(align - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(align - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, advice);
}
#endif

/// Makes the 2 MiB-aligned part of [p, p + bytes) huge pages: marks it
/// (pages touched later fault in huge) and collapses the small pages
/// already touched there (Linux 6.1+; older kernels leave that to
/// khugepaged). Best effort: a refusal leaves small pages, same contents.
/// Copies up to `bytes` once; meant for a table that has become hot.
inline void collapse_to_huge_pages(void* p, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr int kCollapse = 25;  // MADV_COLLAPSE (Linux 6.1; older kernels refuse it)
  advise_aligned_inside(p, bytes, std::size_t{2} << 20, MADV_HUGEPAGE);  // (clears MADV_NOHUGEPAGE)
  advise_aligned_inside(p, bytes, std::size_t{2} << 20, kCollapse);
#else
  (void)p;
  (void)bytes;
#endif
}

/// Faults in the pages under [p, p + bytes) now, in one call (Linux 5.14+:
/// MADV_POPULATE_WRITE; elsewhere nothing): for a range about to be
/// written whole, cheaper than a fault per page.
inline void populate_pages(void* p, std::size_t bytes) noexcept {
#if defined(__linux__)
  constexpr int kPopulateWrite = 23;  // MADV_POPULATE_WRITE
  advise_aligned_inside(p, bytes, 4096, kPopulateWrite);
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
/// valid T), in memory backed by huge pages where the system allows it, from
/// the first touch or once collapse_to_huge_pages is asked (`when`).
template <class T>
HugeArray<T> make_huge_array(std::size_t n, HugePages when = HugePages::kAtFirstTouch) {
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
#if defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
      // (Small pages asked for explicitly: a system whose THP setting is
      // "always" would otherwise fault a cache in huge.)
      madvise(p, bytes, when == HugePages::kAtFirstTouch ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
#endif
      return HugeArray<T>(static_cast<T*>(p), HugeArrayDeleter{length, base});
    }
  }
#endif
  void* p = std::aligned_alloc(alignof(T) < 64 ? 64 : alignof(T), (bytes + 63) / 64 * 64);
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, bytes);
  (void)when;
  return HugeArray<T>(static_cast<T*>(p), HugeArrayDeleter{});
}

}  // namespace snaptok::runtime
