#!/usr/bin/env bash
# The aarch64 wheel under qemu: cross-builds and repairs the aarch64 wheel
# (scripts/build_wheel.sh --arch aarch64), unpacks it, and runs
# tests/arm/wheel_parity.py in Debian's arm64 Python under qemu-user, once
# on a NEON-only CPU and once on qemu's full one (SVE2): the module must load
# Oniguruma and simdjson from the wheel and give Hugging Face's ids of
# tests/arm/parity_ids.json. Prints one line, e.g.
# "aarch64 wheel: manylinux_2_35_aarch64, 6 tokenizers x 15 texts equal to HF
# under qemu (NEON, SVE2; Python 3.11.2; build 95 s)"; exits non-zero if any
# run fails. BUILD_DIR/dist keeps the wheel, BUILD_DIR/build.log
# the build's output and what auditwheel says of the wheel.
#
# The Python root (BUILD_DIR/python-root) is Debian's arm64 python3.X-minimal,
# its standard library, libc, libstdc++ and the few libraries the
# interpreter links, unpacked with tests/arm/arm_sysroot.sh (nothing
# installed) and given to qemu as its -L prefix. It holds no Oniguruma or
# simdjson, so a wheel that did not carry them would fail to import. The
# Python version is that of PYTHON, which sets the wheel's cpXY tag
# (Debian 12: 3.11). Skips (exit 0) only where the toolchain or packages
# cannot be installed (no apt-get, or not root and no sudo).
#
# Usage: tests/arm/run_wheel_qemu.sh [BUILD_DIR]   (default build/arm-wheel)
# Environment: PYTHON (default .venv/bin/python: builds the wheel),
#   SNAPTOK_JOBS (build jobs, default nproc), QEMU (default
#   qemu-aarch64-static, else qemu-aarch64).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-build/arm-wheel}
mkdir -p "$build"
build=$(cd "$build" && pwd)
py=${PYTHON:-$root/.venv/bin/python}

arm_name="aarch64 wheel"
# shellcheck source=tests/arm/arm_sysroot.sh
. "$here/arm_sysroot.sh"
arm_tools

# 1. The wheel (its sysroot and CMake build folder in BUILD_DIR).
start=$SECONDS
SNAPTOK_ARM_WHEEL_DIR=$build PYTHON=$py "$root/scripts/build_wheel.sh" --arch aarch64 "$build/dist" \
  >"$build/build.log" 2>&1 || { tail -60 "$build/build.log" >&2; echo "aarch64 wheel: build FAILED (log $build/build.log)" >&2; exit 1; }
build_s=$((SECONDS - start))
if grep -q '^aarch64 wheel: skipped' "$build/build.log"; then
  grep '^aarch64 wheel: skipped' "$build/build.log"
  exit 0
fi
wheel=$(ls "$build"/dist/snaptok-*_aarch64.whl)
tag=$(basename "$wheel" .whl)
tag=${tag##*-}

# 2. Debian's arm64 Python, and the wheel unpacked beside it.
pyver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
arm_unpack "$build/python-root" "python$pyver-minimal:arm64" "libpython$pyver-minimal:arm64" \
  "libpython$pyver-stdlib:arm64" libc6:arm64 libgcc-s1:arm64 libstdc++6:arm64 zlib1g:arm64 libexpat1:arm64
rm -rf "$build/site"
"$py" -m zipfile -e "$wheel" "$build/site"

# 3. One run per CPU: NEON only, then qemu's full CPU (SVE2). Each prints
#    e.g. "NEON: 6 tokenizers x 15 texts equal to HF (Python 3.11.2)".
targets=""
failed=0
for cpu in max,sve=off max; do
  rc=0
  line=$("$qemu" -L "$build/python-root" -cpu "$cpu" "$build/python-root/usr/bin/python$pyver" \
    "$here/wheel_parity.py" "$build/site" 2>&1) || rc=$?
  if [ $rc = 0 ]; then
    targets+="${targets:+, }${line%%:*}"
    counts=${line#*: }
    counts=${counts% (*}
    python=${line##* (}
    python=${python%)}
  else
    failed=1
    echo "aarch64 wheel: FAILED under qemu -cpu $cpu (exit $rc; $wheel)" >&2
    echo "$line" >&2
  fi
done
[ $failed = 0 ] || exit 1
echo "aarch64 wheel: $tag, $counts under qemu ($targets; $python; build $build_s s)"
