// SNAPTOK_ALWAYS_INLINE: for the few small per-piece callbacks that a
// scanner calls from several places, where GCC's size heuristics would
// otherwise leave a call per piece in the hottest loop.
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define SNAPTOK_ALWAYS_INLINE __attribute__((always_inline)) inline
#define SNAPTOK_ALWAYS_INLINE_LAMBDA __attribute__((always_inline))
#else
#define SNAPTOK_ALWAYS_INLINE inline
#define SNAPTOK_ALWAYS_INLINE_LAMBDA
#endif
