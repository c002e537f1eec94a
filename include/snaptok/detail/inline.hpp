// SNAPTOK_ALWAYS_INLINE: for the few small per-piece callbacks that a
// scanner calls from several places, where GCC's size heuristics would
// otherwise leave a call per piece in the hottest loop.
// SNAPTOK_HOT_CODE: starts one of the hot path's out-of-line functions (the
// piece batch's lookups, the piece-keys and classify kernels, the block
// scanners) at a 64-byte boundary, so that where its loops fall against
// the core's 64-byte fetch lines no longer depends on the code around it.
// Before, the same code ran up to 10% slower or faster from build to build
// (the Python module built with and without an unrelated change: GPT-2 at
// 1,065 and 1,174 MB/s, with all of the difference in the lookup loop).
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define SNAPTOK_ALWAYS_INLINE __attribute__((always_inline)) inline
#define SNAPTOK_ALWAYS_INLINE_LAMBDA __attribute__((always_inline))
#define SNAPTOK_HOT_CODE __attribute__((aligned(64)))
#else
#define SNAPTOK_ALWAYS_INLINE inline
#define SNAPTOK_ALWAYS_INLINE_LAMBDA
#define SNAPTOK_HOT_CODE
#endif
