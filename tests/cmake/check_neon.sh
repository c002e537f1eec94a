#!/usr/bin/env bash
# NEON build check: cross-compiles (compile only: nothing here runs aarch64
# code) a small translation unit that includes snaptok/simd/dispatch.hpp and
# calls every SIMD entry point, for aarch64 with aarch64-linux-gnu-g++, and
# checks that the object needs nothing of libhwy (snaptok chooses the target).
# Highway's headers are architecture-independent, so the host's
# /usr/include/hwy serves. Skips (exit 0) when the cross compiler is missing
# (Debian/Ubuntu: apt install g++-aarch64-linux-gnu).
#
# Usage: tests/cmake/check_neon.sh [work-dir]   (default: a fresh temp dir)
# Environment: AARCH64_CXX (default aarch64-linux-gnu-g++),
#              HWY_INCLUDE_DIR (default /usr/include).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
cxx=${AARCH64_CXX:-aarch64-linux-gnu-g++}
hwy_include=${HWY_INCLUDE_DIR:-/usr/include}

if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "NEON build: skipped ($cxx not found; apt install g++-aarch64-linux-gnu)"
  exit 0
fi
if [ ! -f "$hwy_include/hwy/foreach_target.h" ]; then
  echo "NEON build: skipped (no Highway headers in $hwy_include)"
  exit 0
fi

work=${1:-$(mktemp -d "${TMPDIR:-/tmp}/snaptok-neon.XXXXXX")}
mkdir -p "$work"
src="$work/neon_check.cpp"
cat >"$src" <<'CPP'
#include <snaptok/simd/dispatch.hpp>

#if !HWY_ARCH_ARM_A64
#error "not compiling for aarch64"
#endif
#if !(HWY_TARGETS & HWY_NEON)
#error "Highway does not compile its NEON target here"
#endif

int neon_check(const char* p, unsigned long n) {
  snaptok::simd::ByteClassMasks m;
  snaptok::simd::classify_block(p, n, m);
  const std::size_t pair = snaptok::simd::find_byte_pair(p, n, '<', '|');
  const std::size_t in = snaptok::simd::find_byte_in(p, n, snaptok::simd::ByteQuad::of({'<'}));
  static const std::uint64_t pair_bits[snaptok::simd::BytePairSet::kWords] = {};
  const std::size_t pair_in = snaptok::simd::find_byte_pair_in(p, n, {snaptok::simd::ByteQuad::of({'<'}), pair_bits});
  const std::size_t ascii = snaptok::simd::find_nonascii_or_in(p, n, {'0', 10}) +
                            snaptok::simd::find_start(p, n, snaptok::simd::AsciiStarts{});
  std::string narrowed(n, '\0');
  const std::size_t narrow = snaptok::simd::narrow_ascii(reinterpret_cast<const std::uint16_t*>(p), n / 2, narrowed.data()) +
                             snaptok::simd::narrow_ascii(reinterpret_cast<const std::uint32_t*>(p), n / 4, narrowed.data());
  static std::byte sets[256];
  const char* data[72];
  std::uint64_t size[72], lo[72], hi[72];
  std::byte* set[72];
  const std::size_t keys = snaptok::simd::block_piece_keys(p, 0x8001, {sets, 63, 7}, {data, size, lo, hi, set}, 0);
  const bool kernel = snaptok::simd::piece_keys_kernel() != nullptr;
  snaptok::simd::set_max_target(snaptok::simd::TargetCap::scalar);
  return static_cast<int>(m.letter ^ m.other) + static_cast<int>(pair + in + pair_in + ascii + narrow + keys) + kernel +
         static_cast<int>(snaptok::simd_target().size()) +
         static_cast<int>(snaptok::simd::compiled_targets().size());
}
CPP

# -isystem keeps the host's other headers out of the way: only hwy/ is used
# from there, after the cross toolchain's own C++ and libc headers.
"$cxx" -std=c++20 -O2 -Wall -Wextra -Werror -c "$src" -o "$work/neon_check.o" \
  -I "$root/include" -idirafter "$hwy_include"
# Which targets were generated (the symbols of classify_block per target).
targets=$(nm -C "$work/neon_check.o" | grep -o 'snaptok::simd::N_[A-Z0-9_]*::classify_block' \
  | sed 's/.*N_\([A-Z0-9_]*\)::.*/\1/' | sort -u | tr '\n' ' ')
if nm -C --undefined-only "$work/neon_check.o" | grep -q 'hwy::'; then
  echo "NEON build: the object needs libhwy:" >&2
  nm -C --undefined-only "$work/neon_check.o" | grep 'hwy::' >&2
  exit 1
fi
echo "NEON build: ok ($cxx; kernels compiled for: ${targets:-?})"
