// Per-target helper: which Highway target a dispatched call landed on.
// Included once per Highway target by snaptok/simd/dispatch.hpp; do not
// include it directly.

// Per-target include guard (toggled by hwy/foreach_target.h).
#if defined(SNAPTOK_SIMD_TARGET_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SNAPTOK_SIMD_TARGET_INL_H_
#undef SNAPTOK_SIMD_TARGET_INL_H_
#else
#define SNAPTOK_SIMD_TARGET_INL_H_
#endif

#include <hwy/highway.h>

#include <cstdint>

HWY_BEFORE_NAMESPACE();
namespace snaptok::simd {
namespace HWY_NAMESPACE {

// Returns the target this copy of the kernels was compiled for.
inline std::int64_t this_target() { return HWY_TARGET; }

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace snaptok::simd
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
