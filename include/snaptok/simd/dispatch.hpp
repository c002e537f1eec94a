// The one dispatching header of snaptok's SIMD kernels: include this (never a
// *-inl.h) to call a kernel. Each entry point picks, at run time, the best
// Highway target the CPU supports among those compiled, or runs portable
// scalar C++ when snaptok is built without Highway (SNAPTOK_NO_HIGHWAY).
//
//   #include <snaptok/simd/dispatch.hpp>
//   snaptok::simd::ByteClassMasks m;
//   snaptok::simd::classify_block(p, 64, m);
//   std::printf("%s\n", std::string(snaptok::simd_target()).c_str());  // "AVX3_DL"
//
// How it works (Highway 1.0.3 in a header-only library): this header sets
// HWY_TARGET_INCLUDE to itself and includes hwy/foreach_target.h, which
// re-includes it once per target; each pass includes the kernels
// (snaptok/simd/*-inl.h, guarded per target) into the namespace
// snaptok::simd::N_<TARGET>. Each public entry point is an inline function
// whose body holds SNAPTOK_EXPORT (a function-local static table of the
// kernel's versions, laid out as Highway's HWY_EXPORT) and SNAPTOK_DISPATCH:
// inline functions are merged by the linker, so the program has one table
// per entry point however many translation units include this header
// (tests/cmake/odr checks it). The target is chosen by snaptok
// (detail::TargetChoice, from simd/cpu_targets.hpp's CPUID check), not by
// libhwy: nothing of Highway is needed at run time.
//
// Limits that come from Highway 1.0.3:
// - hwy/foreach_target.h works once per translation unit: a translation unit
//   that includes this header cannot also run its own foreach_target pass
//   (put such code in a different .cpp file).
// - Every translation unit must be compiled with the same target flags (never
//   add -march to only some of them): the inline entry points must be the same
//   everywhere.
//
// Target selection: SNAPTOK_SIMD (environment, read once, before the first
// dispatch) caps the target: scalar | sse4 | avx2 | avx3 on x86, scalar |
// neon | sve | sve2 on Arm (case-insensitive; empty means no cap; a cap of
// the other architecture leaves the choice as it is). An unknown value is reported once on stderr and
// ignored. set_max_target() does the same from code. Both apply to
// snaptok's kernels only (other Highway users in the process choose their
// own targets).
#ifndef SNAPTOK_SIMD_DISPATCH_HPP_

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "snaptok/simd/byte_classes.hpp"
#include "snaptok/simd/find_bytes.hpp"
#include "snaptok/simd/narrow_ascii.hpp"
#include "snaptok/simd/piece_keys.hpp"

// ---------------------------------------------------------------------------
// Parts shared by both builds (parsed once; guarded separately because the
// Highway build re-includes this file).
#ifndef SNAPTOK_SIMD_DISPATCH_COMMON_
#define SNAPTOK_SIMD_DISPATCH_COMMON_
namespace snaptok::simd {

// The most capable target a run may use (SNAPTOK_SIMD, set_max_target).
enum class TargetCap {
  none,    // no cap: the best target the CPU supports
  scalar,  // Highway's portable fallback (HWY_SCALAR / HWY_EMU128) only
  sse4,    // SSE4 and below
  avx2,    // AVX2 and below
  avx3,    // AVX3 (AVX-512 F/BW/DQ/VL) and below: no AVX3_DL
  neon,    // Arm: NEON, no SVE
  sve,     // Arm: SVE (SVE_256 included) and NEON, no SVE2
  sve2,    // Arm: every target (SVE2, SVE2_128 included)
};

// Returns the cap a SNAPTOK_SIMD value names: "scalar", "sse4", "avx2",
// "avx3", "neon", "sve" or "sve2" in any letter case, TargetCap::none for
// ""; std::nullopt for any other value. Surrounding spaces are ignored.
//   parse_target_cap("AVX2") == TargetCap::avx2
//   parse_target_cap("Neon") == TargetCap::neon
//   parse_target_cap("avx9") == std::nullopt
inline std::optional<TargetCap> parse_target_cap(std::string_view value) {
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front())))
    value.remove_prefix(1);
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back())))
    value.remove_suffix(1);
  std::string lower(value);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.empty()) return TargetCap::none;
  if (lower == "scalar") return TargetCap::scalar;
  if (lower == "sse4") return TargetCap::sse4;
  if (lower == "avx2") return TargetCap::avx2;
  if (lower == "avx3") return TargetCap::avx3;
  if (lower == "neon") return TargetCap::neon;
  if (lower == "sve") return TargetCap::sve;
  if (lower == "sve2") return TargetCap::sve2;
  return std::nullopt;
}

}  // namespace snaptok::simd
#endif  // SNAPTOK_SIMD_DISPATCH_COMMON_

#if defined(SNAPTOK_NO_HIGHWAY)
// ---------------------------------------------------------------------------
// Built without Highway: the same entry points in portable scalar C++.
#define SNAPTOK_SIMD_DISPATCH_HPP_

namespace snaptok {

// Returns the name of the SIMD target the kernels run on: here always
// "none (built without Highway)".
inline std::string_view simd_target() { return "none (built without Highway)"; }

namespace simd {

// See the Highway build below; without Highway this is classify_block_portable.
inline void classify_block(const char* p, std::size_t n, ByteClassMasks& out) {
  classify_block_portable(p, n, out);
}

// See the Highway build below; without Highway this is
// classify_blocks_portable.
inline void classify_blocks(const char* p, std::size_t n, ByteClassMasks* out, std::size_t count) {
  classify_blocks_portable(p, n, out, count);
}

// See the Highway build below; without Highway this is find_byte_in_scalar.
inline std::size_t find_byte_in(const char* p, std::size_t n, const ByteQuad& set) {
  return find_byte_in_scalar(p, n, set);
}

// See the Highway build below; without Highway this is
// find_byte_pair_scalar.
inline std::size_t find_byte_pair(const char* p, std::size_t n, std::uint8_t first, std::uint8_t second) {
  return find_byte_pair_scalar(p, n, first, second);
}

// See the Highway build below; without Highway this is
// find_byte_pair_in_scalar.
inline std::size_t find_byte_pair_in(const char* p, std::size_t n, const BytePairSet& set) {
  return find_byte_pair_in_scalar(p, n, set);
}

// See the Highway build below; without Highway this is
// find_nonascii_or_in_scalar.
inline std::size_t find_nonascii_or_in(const char* p, std::size_t n, AsciiRange range) {
  return find_nonascii_or_in_scalar(p, n, range);
}

// See the Highway build below; without Highway this is find_start_scalar.
inline std::size_t find_start(const char* p, std::size_t n, const AsciiStarts& starts) {
  return find_start_scalar(p, n, starts);
}

// See the Highway build below; without Highway this is set_masks_scalar.
inline void set_masks(const char* p, std::size_t n, const NibbleSet* sets, std::size_t count, std::uint64_t* out,
                      std::size_t blocks) {
  set_masks_scalar(p, n, sets, count, out, blocks);
}

// See the Highway build below; without Highway these are
// narrow_ascii_scalar.
inline std::size_t narrow_ascii(const std::uint16_t* p, std::size_t n, char* out) {
  return narrow_ascii_scalar(p, n, out);
}
inline std::size_t narrow_ascii(const std::uint32_t* p, std::size_t n, char* out) {
  return narrow_ascii_scalar(p, n, out);
}

// See the Highway build below; without Highway this is
// block_piece_keys_scalar.
inline std::size_t block_piece_keys(const char* block, std::uint64_t starts, const PieceKeyTable& table,
                                    const PieceKeyColumns& out, std::size_t at) {
  return block_piece_keys_scalar(block, starts, table, out, at);
}

// See the Highway build below; without Highway there is no kernel.
inline PieceKeysFn piece_keys_kernel() { return nullptr; }

// Returns the names of the targets compiled into this program: none here.
inline std::vector<std::string_view> compiled_targets() { return {}; }

// Without Highway there is nothing to cap; accepted for API parity.
inline void set_max_target(TargetCap) {}

}  // namespace simd
}  // namespace snaptok

#else  // Highway build
// ---------------------------------------------------------------------------
// First inclusion: start Highway's per-target passes over this file.
#ifndef SNAPTOK_SIMD_DISPATCH_STARTED_
#define SNAPTOK_SIMD_DISPATCH_STARTED_
// AVX3_DL (AVX-512 with VBMI/VBMI2: Ice Lake, Zen 4 and later) is compiled
// too: the piece-key kernel needs its byte permutes and compresses. Highway
// reads this when it first computes its target list, so a file that
// includes a Highway header before this one must define it as well (or
// every file must leave it out): the entry points must be the same in
// every translation unit.
#ifndef HWY_WANT_AVX3_DL
#define HWY_WANT_AVX3_DL
#endif
// On Arm, Highway leaves out the targets worse than the compiler's baseline
// (NEON), EMU128 among them, so a "scalar" cap would still run NEON: every
// attainable target is compiled there, as on x86 (whose baseline is EMU128).
// The same rule as HWY_WANT_AVX3_DL applies to a file that includes a
// Highway header first.
#if (defined(__aarch64__) || defined(_M_ARM64)) && !defined(HWY_COMPILE_ALL_ATTAINABLE)
#define HWY_COMPILE_ALL_ATTAINABLE
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "snaptok/simd/dispatch.hpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#endif

// Every pass (each target, then the static target): the kernels.
#include <hwy/highway.h>

#include "snaptok/simd/byte_classes-inl.h"
#include "snaptok/simd/find_bytes-inl.h"
#include "snaptok/simd/narrow_ascii-inl.h"
#include "snaptok/simd/piece_keys-inl.h"
#include "snaptok/simd/target-inl.h"

#if HWY_ONCE
// Last pass: the dispatching entry points, compiled once.
#define SNAPTOK_SIMD_DISPATCH_HPP_

#include <atomic>
#include <bit>

#include "snaptok/simd/cpu_targets.hpp"

namespace snaptok::simd {
namespace detail {

// Returns the targets (HWY_* bits) a cap disables: every target better than
// the capped one. A cap of another architecture (sse4 on Arm, neon on x86)
// disables nothing.
inline std::int64_t disabled_targets_for(TargetCap cap) {
  std::int64_t keep_from = 0;  // lowest bit allowed; better targets have lower bits
  switch (cap) {
    case TargetCap::none:
      return 0;
    case TargetCap::scalar:
      keep_from = HWY_EMU128 < HWY_SCALAR ? HWY_EMU128 : HWY_SCALAR;
      break;
#if HWY_ARCH_X86
    case TargetCap::sse4:
      keep_from = HWY_SSE4;
      break;
    case TargetCap::avx2:
      keep_from = HWY_AVX2;
      break;
    case TargetCap::avx3:
      keep_from = HWY_AVX3;
      break;
#elif HWY_ARCH_ARM_A64
    // SVE_256 is SVE with a known length, SVE2_128 SVE2's: the bit order
    // (SVE2_128 < SVE_256 < SVE2 < SVE < NEON) does not rank them by family.
    case TargetCap::neon:
      return HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128;
    case TargetCap::sve:
      return HWY_SVE2 | HWY_SVE2_128;
#endif
    default:
      return 0;
  }
  return keep_from - 1;  // all lower (better) bits
}

// Returns the cap SNAPTOK_SIMD names (none when unset; an unknown value is
// reported on stderr and ignored).
inline TargetCap env_target_cap() {
  const char* env = std::getenv("SNAPTOK_SIMD");
  if (env == nullptr) return TargetCap::none;
  const std::optional<TargetCap> cap = parse_target_cap(env);
  if (!cap) {
    std::fprintf(stderr,
                 "snaptok: ignoring SNAPTOK_SIMD=\"%s\": expected scalar, sse4, "
                 "avx2, avx3, neon, sve or sve2 (any letter case)\n",
                 env);
    return TargetCap::none;
  }
  return *cap;
}

// The targets dispatch may use, and the index in a dispatch table of the
// best of them. A table (SNAPTOK_EXPORT) is laid out as Highway's
// HWY_EXPORT lays its out: entry 0 unused, one entry per dynamic target,
// best first (HWY_CHOOSE_TARGET_LIST), then the fallback, so the index is
// that of Highway's ChosenTarget for the same targets. One per program
// (an inline function's static), set up on first use: the CPU's targets
// (cpu_targets) less those SNAPTOK_SIMD caps off.
class TargetChoice {
 public:
  static TargetChoice& get() {
    static TargetChoice choice;
    return choice;
  }

  std::size_t index() const noexcept { return index_.load(std::memory_order_relaxed); }
  // The targets dispatch may choose from (HWY_* bits): supported, not capped.
  std::int64_t usable() const noexcept {
    return supported_.load(std::memory_order_relaxed) & ~disabled_.load(std::memory_order_relaxed);
  }

  // Uses `targets` as the CPU's (0: those cpu_targets finds again).
  void set_supported(std::int64_t targets) {
    supported_.store(targets != 0 ? targets : cpu_targets(), std::memory_order_relaxed);
    choose();
  }
  void cap(TargetCap cap) {
    disabled_.store(disabled_targets_for(cap), std::memory_order_relaxed);
    choose();
  }

 private:
  TargetChoice() : supported_(cpu_targets()), disabled_(disabled_targets_for(env_target_cap())) { choose(); }

  void choose() {
    const std::int64_t targets = usable();
    const auto mask = static_cast<std::uint64_t>((HWY_CHOSEN_TARGET_SHIFT(targets) | HWY_CHOSEN_TARGET_MASK_SCALAR) &
                                                 HWY_CHOSEN_TARGET_MASK_TARGETS);
    index_.store(static_cast<std::size_t>(std::countr_zero(mask)), std::memory_order_relaxed);
  }

  std::atomic<std::int64_t> supported_;
  std::atomic<std::int64_t> disabled_;
  std::atomic<std::size_t> index_{0};
};

// Forces the targets dispatch takes as the CPU's (HWY_* bits; 0 restores
// the CPU's own): a test runs each kernel under each target in turn, as
// hwy::SetSupportedTargetsForTest does for Highway's dispatch.
inline void set_supported_targets_for_test(std::int64_t targets) {
  TargetChoice::get().set_supported(targets);
}

// Returns the targets of `mask` (HWY_* bits) one by one, best first (a
// better target has a lower bit).
inline std::vector<std::int64_t> target_bits(std::int64_t mask) {
  std::vector<std::int64_t> targets;
  for (std::int64_t t = mask; t != 0; t &= t - 1) targets.push_back(t & -t);
  return targets;
}

// Returns the targets compiled in and usable here (supported by the CPU,
// or set_supported_targets_for_test, and not capped), best first, the
// fallback last (as hwy::SupportedAndGeneratedTargets).
inline std::vector<std::int64_t> supported_compiled_targets() {
  return target_bits(TargetChoice::get().usable() & HWY_TARGETS);
}

}  // namespace detail

// HWY_EXPORT and HWY_DYNAMIC_DISPATCH without libhwy: SNAPTOK_EXPORT(f)
// defines the table of f's per-target versions (a static of the inline
// entry point that holds it, so one per program), SNAPTOK_DISPATCH(f) is the
// version TargetChoice picks. With one target compiled, that one, directly.
#if (HWY_TARGETS & (HWY_TARGETS - 1)) == 0
#define SNAPTOK_EXPORT(FUNC_NAME) static_assert(true)
#define SNAPTOK_DISPATCH(FUNC_NAME) HWY_STATIC_DISPATCH(FUNC_NAME)
#else
#define SNAPTOK_EXPORT(FUNC_NAME)                                           \
  static decltype(&HWY_STATIC_DISPATCH(FUNC_NAME)) const                    \
      FUNC_NAME##_by_target[HWY_MAX_DYNAMIC_TARGETS + 2] = {                \
          nullptr, HWY_CHOOSE_TARGET_LIST(FUNC_NAME), HWY_CHOOSE_FALLBACK(FUNC_NAME)}
#define SNAPTOK_DISPATCH(FUNC_NAME) \
  (*(FUNC_NAME##_by_target[::snaptok::simd::detail::TargetChoice::get().index()]))
#endif

namespace detail {

// Returns the HWY_* bit of the target a dispatched call runs on now.
inline std::int64_t dispatched_target() {
  SNAPTOK_EXPORT(this_target);
  return SNAPTOK_DISPATCH(this_target)();
}

}  // namespace detail

// Returns (in out) the byte-class masks of the n <= 64 bytes at p: bit i of
// each mask is byte p[i]; bits at or past n are 0; reads exactly min(n, 64)
// bytes, no alignment needed. Same result as classify_block_scalar on every
// target.
//   ByteClassMasks m;
//   classify_block("ab 1'\xc3\xa9", 7, m);  // m.letter == 0b11, m.space == 0b100
inline void classify_block(const char* p, std::size_t n, ByteClassMasks& out) {
  SNAPTOK_EXPORT(classify_block);
  SNAPTOK_DISPATCH(classify_block)(p, n, out);
}

// Returns (in out[0..count)) the masks of the blocks p[64k, 64k + 64) of the
// n bytes at p, as classify_block(p + 64k, n - 64k, out[k]) does; requires
// 64 * (count - 1) < n. One dispatch for several blocks (a scanner's loop
// pays the dispatch once per group, not per block).
//   ByteClassMasks m[2];
//   classify_blocks(text.data(), text.size(), m, 2);  // text.size() > 64
inline void classify_blocks(const char* p, std::size_t n, ByteClassMasks* out, std::size_t count) {
  SNAPTOK_EXPORT(classify_blocks);
  SNAPTOK_DISPATCH(classify_blocks)(p, n, out, count);
}

// Returns the index of the first byte of p[0..n) in `set`, or n. Same
// result as find_byte_in_scalar on every target.
//   find_byte_in("ab<c[", 5, ByteQuad::of({'[', '<'}))  // 2
inline std::size_t find_byte_in(const char* p, std::size_t n, const ByteQuad& set) {
  SNAPTOK_EXPORT(find_byte_in);
  return SNAPTOK_DISPATCH(find_byte_in)(p, n, set);
}

// Returns the first i with p[i] == first and p[i + 1] == second (i + 1 <
// n), or n. Same result as find_byte_pair_scalar on every target.
//   find_byte_pair("a<b<|c", 6, '<', '|')  // 3
inline std::size_t find_byte_pair(const char* p, std::size_t n, std::uint8_t first, std::uint8_t second) {
  SNAPTOK_EXPORT(find_byte_pair);
  return SNAPTOK_DISPATCH(find_byte_pair)(p, n, first, second);
}

// Returns the first i with (p[i], p[i + 1]) in `set` (i + 1 < n), or n.
// Same result as find_byte_pair_in_scalar on every target.
//   find_byte_pair_in("<a<|", 4, set)  // 2 when the set holds "<|" but not "<a"
inline std::size_t find_byte_pair_in(const char* p, std::size_t n, const BytePairSet& set) {
  SNAPTOK_EXPORT(find_byte_pair_in);
  return SNAPTOK_DISPATCH(find_byte_pair_in)(p, n, set);
}

// Returns the index of the first byte of p[0..n) that is >= 0x80 or in
// `range`, or n. Same result as find_nonascii_or_in_scalar on every target.
//   find_nonascii_or_in("ab 12", 5, {'0', 10})  // 3
//   find_nonascii_or_in("ab\xc3\xa9", 4, {})     // 2: the end of the ASCII run
inline std::size_t find_nonascii_or_in(const char* p, std::size_t n, AsciiRange range) {
  SNAPTOK_EXPORT(find_nonascii_or_in);
  return SNAPTOK_DISPATCH(find_nonascii_or_in)(p, n, range);
}

// Returns the first i with starts.at(p, i, n), or n. Same result as
// find_start_scalar on every target.
//   find_start("ab, c", 5, {NibbleSet::ascii(punctuation)})  // 2
//   find_start("a b ,", 5, {{}, space, punctuation})        // 3: " ," (not " b")
inline std::size_t find_start(const char* p, std::size_t n, const AsciiStarts& starts) {
  SNAPTOK_EXPORT(find_start);
  return SNAPTOK_DISPATCH(find_start)(p, n, starts);
}

// Writes (in out[b * count + s]) the mask of sets[s] over the 64-byte block
// p[64b, 64b + 64), for b < blocks: bit k is byte p[64b + k]; bits at or
// past n are 0. Requires 64 * (blocks - 1) < n and count <= kMaxMaskSets.
// Same result as set_masks_scalar on every target.
//   std::uint64_t m[2];
//   set_masks("ab 1", 4, sets, 2, m, 1);  // sets {letters, digits}: m == {0b11, 0b1000}
inline void set_masks(const char* p, std::size_t n, const NibbleSet* sets, std::size_t count, std::uint64_t* out,
                      std::size_t blocks) {
  SNAPTOK_EXPORT(set_masks);
  SNAPTOK_DISPATCH(set_masks)(p, n, sets, count, out, blocks);
}

// Writes the leading code units of p[0..n) that are below 0x80 to out as
// bytes and returns how many (n when all are); writes nothing past
// out[returned). Same result as narrow_ascii_scalar on every target.
//   const std::uint16_t s[] = {'a', 'b', 0xE9, 'c'};
//   narrow_ascii(s, 4, out)  // 2: "ab"
inline std::size_t narrow_ascii(const std::uint16_t* p, std::size_t n, char* out) {
  SNAPTOK_EXPORT(narrow_ascii16);
  return SNAPTOK_DISPATCH(narrow_ascii16)(p, n, out);
}
inline std::size_t narrow_ascii(const std::uint32_t* p, std::size_t n, char* out) {
  SNAPTOK_EXPORT(narrow_ascii32);
  return SNAPTOK_DISPATCH(narrow_ascii32)(p, n, out);
}

// Writes the cache keys of the pieces between consecutive starts of a
// 64-byte block (see PieceKeysFn in snaptok/simd/piece_keys.hpp). Same
// entries as block_piece_keys_scalar on every target (bar the unspecified
// keys of pieces of 16 bytes or more).
inline std::size_t block_piece_keys(const char* block, std::uint64_t starts, const PieceKeyTable& table,
                                    const PieceKeyColumns& out, std::size_t at) {
  SNAPTOK_EXPORT(block_piece_keys);
  return SNAPTOK_DISPATCH(block_piece_keys)(block, starts, table, out, at);
}

// Returns the dispatched target's block_piece_keys when it is a vector
// kernel (AVX3_DL), else nullptr: a caller that queues pieces one by one
// inline is then faster. A caller keeps the pointer for a run of blocks
// (one dispatch, not one per block).
inline PieceKeysFn piece_keys_kernel() {
  SNAPTOK_EXPORT(piece_keys_kernel);
  return SNAPTOK_DISPATCH(piece_keys_kernel)();
}

// Returns the names of the targets compiled into this program (whether or not
// this CPU supports them), best first, e.g. {"AVX3_DL", "AVX3", "AVX2",
// "SSE4", "SSSE3", "SCALAR"}.
inline std::vector<std::string_view> compiled_targets() {
  std::vector<std::string_view> names;
  for (const std::int64_t t : detail::target_bits(HWY_TARGETS)) names.emplace_back(hwy::TargetName(t));
  return names;
}

// Caps the target for the rest of the process (like SNAPTOK_SIMD, which is
// applied first); TargetCap::none lifts any cap. Process-wide for snaptok
// (other Highway users keep their own choice); a call already running
// finishes on the target it started with.
inline void set_max_target(TargetCap cap) { detail::TargetChoice::get().cap(cap); }

}  // namespace snaptok::simd

namespace snaptok {

// Returns the name of the Highway target runtime dispatch chooses now:
// "AVX3_DL", "AVX3", "AVX2", "SSE4", "SSSE3", "NEON", "SCALAR", ... (after
// SNAPTOK_SIMD, set_max_target and set_supported_targets_for_test), or
// "none (built without Highway)".
inline std::string_view simd_target() {
  return hwy::TargetName(simd::detail::dispatched_target());
}

}  // namespace snaptok

#endif  // HWY_ONCE
#endif  // Highway build
#endif  // SNAPTOK_SIMD_DISPATCH_HPP_
