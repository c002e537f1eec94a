// The Highway targets this CPU can run, found by snaptok itself, so that
// runtime dispatch needs no libhwy at run time (Highway stays header-only,
// and loading the library no longer runs libhwy's static initializers, which
// took 3.7 ms of every `import snaptok`).
//
// On x86 a target is supported when the CPU has every instruction set its
// code is compiled with (HWY_TARGET_STR in Highway 1.0.3's set_macros-inl.h)
// and the OS saves the registers the target uses (XCR0). On aarch64 Linux,
// SVE and SVE2 come from the kernel's hwcaps (AT_HWCAP, AT_HWCAP2; SVE2 as
// Highway compiles it needs SVE2-AES too) and the fixed-length targets from
// the vector length the process runs with (PR_SVE_GET_VL): SVE2_128 when it
// is 16 bytes, as Highway's own dispatch chooses it. SVE_256 (for 32 bytes)
// is left out: built by GCC 12.2 its kernels miss hits in the upper 16 bytes
// (a mask Or, svsel_b, is expanded lane by lane; tests/arm/run_qemu.sh's
// 256-bit run found it), so such a CPU runs SVE2 or SVE, which are right at
// every length. Elsewhere only the baseline the compiler targets is reported
// (NEON on aarch64 without Linux's hwcaps).
//
//   std::int64_t t = snaptok::simd::detail::cpu_targets();
//   bool avx2 = (t & HWY_AVX2) != 0;
#pragma once

#include <cstdint>

#include <hwy/detect_targets.h>

#if HWY_ARCH_X86
#if defined(_MSC_VER)
#include <immintrin.h>
#include <intrin.h>
#else
#include <cpuid.h>
#endif
#elif HWY_ARCH_ARM_A64 && defined(__linux__)
#include <sys/auxv.h>
#include <sys/prctl.h>
#define SNAPTOK_ARM_HWCAPS 1
#endif

namespace snaptok::simd::detail {

#if HWY_ARCH_X86
// The four registers CPUID returns.
struct CpuidRegisters {
  std::uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
};

// Returns CPUID leaf `leaf`, sub-leaf `sub` (zeros past the highest leaf of
// the leaf's range: basic below 0x80000000, extended from there).
inline CpuidRegisters cpuid(std::uint32_t leaf, std::uint32_t sub) noexcept {
  CpuidRegisters r;
#if defined(_MSC_VER)
  int words[4];
  __cpuid(words, static_cast<int>(leaf & 0x80000000u));
  if (static_cast<std::uint32_t>(words[0]) < leaf) return r;
  __cpuidex(words, static_cast<int>(leaf), static_cast<int>(sub));
  r = {static_cast<std::uint32_t>(words[0]), static_cast<std::uint32_t>(words[1]),
       static_cast<std::uint32_t>(words[2]), static_cast<std::uint32_t>(words[3])};
#else
  if (__get_cpuid_max(leaf & 0x80000000u, nullptr) < leaf) return r;
  __cpuid_count(leaf, sub, r.eax, r.ebx, r.ecx, r.edx);
#endif
  return r;
}

// Returns XCR0, the register state the OS saves (call only when CPUID says
// OSXSAVE).
inline std::uint64_t xcr0() noexcept {
#if defined(_MSC_VER)
  return _xgetbv(0);
#else
  std::uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (std::uint64_t{hi} << 32) | lo;
#endif
}

// Returns whether every bit of `want` is set in `have`.
constexpr bool has_all(std::uint32_t have, std::uint32_t want) noexcept { return (have & want) == want; }
#endif

#ifdef SNAPTOK_ARM_HWCAPS
// Linux's arm64 hwcap bits (arch/arm64/include/uapi/asm/hwcap.h), spelled
// out so that older libc headers serve.
inline constexpr unsigned long kHwcapSve = 1ul << 22;
inline constexpr unsigned long kHwcap2Sve2 = 1ul << 1;
inline constexpr unsigned long kHwcap2SveAes = 1ul << 2;

// Returns the SVE vector length of this thread in bytes (0 when the kernel
// does not say: no SVE). PR_SVE_GET_VL is 51, its length mask 0xffff.
inline unsigned sve_vector_bytes() noexcept {
  const int vl = prctl(51, 0, 0, 0, 0);
  return vl < 0 ? 0u : static_cast<unsigned>(vl) & 0xffffu;
}
#endif

/// Returns the HWY_* bits of the targets this CPU (and OS) can run: always
/// the portable fallbacks and the compiler's baseline target.
inline std::int64_t cpu_targets() noexcept {
  std::int64_t targets = HWY_SCALAR | HWY_EMU128 | HWY_STATIC_TARGET;
#if HWY_ARCH_X86
  const CpuidRegisters l1 = cpuid(1, 0);
  const CpuidRegisters l7 = cpuid(7, 0);
  // sse2 (EDX 26); ssse3 (ECX 9).
  const bool ssse3 = has_all(l1.edx, 1u << 26) && has_all(l1.ecx, 1u << 9);
  // + sse4.1, sse4.2, pclmul, aes (ECX 19, 20, 1, 25).
  const bool sse4 = ssse3 && has_all(l1.ecx, (1u << 19) | (1u << 20) | (1u << 1) | (1u << 25));
  // + avx, fma, f16c (ECX 28, 12, 29); avx2, bmi, bmi2 (leaf 7 EBX 5, 3, 8);
  // lzcnt (leaf 0x80000001 ECX 5), which Highway's own check asks for too;
  // the OS saves the XMM and YMM registers (XCR0 bits 1, 2), which needs
  // OSXSAVE (ECX 27).
  const bool os_xsave = has_all(l1.ecx, 1u << 27);
  const std::uint64_t saved = os_xsave ? xcr0() : 0;
  const bool avx2 = sse4 && has_all(l1.ecx, (1u << 28) | (1u << 12) | (1u << 29)) &&
                    has_all(l7.ebx, (1u << 5) | (1u << 3) | (1u << 8)) &&
                    has_all(cpuid(0x80000001u, 0).ecx, 1u << 5) && (saved & 0x6) == 0x6;
  // + avx512f, avx512dq, avx512bw, avx512vl (EBX 16, 17, 30, 31); the OS
  // saves the mask and upper ZMM registers too (XCR0 bits 5, 6, 7).
  const bool avx3 = avx2 && has_all(l7.ebx, (1u << 16) | (1u << 17) | (1u << 30) | (1u << 31)) &&
                    (saved & 0xE6) == 0xE6;
  // + avx512vbmi, avx512vbmi2, vaes, vpclmulqdq, avx512vnni, avx512bitalg,
  // avx512vpopcntdq (ECX 1, 6, 9, 10, 11, 12, 14), as Highway asks.
  const bool avx3_dl = avx3 && has_all(l7.ecx, (1u << 1) | (1u << 6) | (1u << 9) | (1u << 10) | (1u << 11) |
                                                   (1u << 12) | (1u << 14));
  if (ssse3) targets |= HWY_SSSE3;
  if (sse4) targets |= HWY_SSE4;
  if (avx2) targets |= HWY_AVX2;
  if (avx3) targets |= HWY_AVX3;
  if (avx3_dl) targets |= HWY_AVX3_DL;
#elif defined(SNAPTOK_ARM_HWCAPS)
  const unsigned long hw = getauxval(AT_HWCAP);
  const unsigned long hw2 = getauxval(AT_HWCAP2);
  const bool sve = (hw & kHwcapSve) != 0;
  const bool sve2 = sve && (hw2 & (kHwcap2Sve2 | kHwcap2SveAes)) == (kHwcap2Sve2 | kHwcap2SveAes);
  const unsigned bytes = sve ? sve_vector_bytes() : 0;
  if (sve) targets |= HWY_SVE;
  if (sve2) targets |= HWY_SVE2;
  if (sve2 && bytes == 16) targets |= HWY_SVE2_128;
#endif
  return targets;
}

}  // namespace snaptok::simd::detail
