#!/usr/bin/env bash
# Arm under qemu: cross-compiles the C++ test suite (tests/cpp) for aarch64
# and runs it under qemu-user, once per Arm target: NEON (SVE off), then SVE
# at 128, 256 and 512 bits, where dispatch chooses SVE2_128, SVE2 and (capped
# with SNAPTOK_SIMD=sve) SVE. test_simd's kernel tests also run every target
# the emulated CPU supports in turn (NEON, SVE, SVE2, SVE2_128, the scalar
# fallback) against their scalar references, and check that dispatch finds
# the targets the emulated CPU has. The qemu processes run SNAPTOK_JOBS at
# a time (NEON as two: see set_filter). Prints one line per run, e.g.
# "NEON: 131 test cases passed (250 s and 240 s, 2 processes; qemu -cpu
# max,sve=off)"; exits non-zero if any run fails.
#
# Installs what it needs (Debian/Ubuntu; apt-get as root, else through
# sudo): g++-aarch64-linux-gnu and qemu-user-static. The Arm builds of
# Oniguruma and simdjson are downloaded and unpacked into BUILD_DIR/sysroot,
# not installed (tests/arm/arm_sysroot.sh, shared with the aarch64 wheel).
# Highway and doctest are header-only and architecture-independent: the
# host's /usr/include/{hwy,doctest} serve (nothing links libhwy). Skips
# (exit 0) only when it cannot install: no apt-get, or not root and no sudo.
#
# The .st check: the host's snaptok module (.venv, scripts/setup.sh) writes
# a .st file per tokenizer of tests/arm/parity_ids.json into
# BUILD_DIR/st; the Arm runs load them (SNAPTOK_ST_FIXTURE_DIR) and must get
# Hugging Face's ids and the very bytes they write themselves
# (tests/cpp/test_platform_parity.cpp).
#
# Budget: NEON runs the whole suite, the exhaustive scanner and document
# cases included (*on real text, *on every code point, code-point
# documents, the DeepSeek chain and cut-point sweeps: scalar-bound; with
# them the NEON run took 480 s under qemu in CI, the step 731 s, 340 s more
# than without). The SVE runs (qemu's SVE is far slower) run the
# kernel cases, the parity and .st cases, GPT-2's, and the check of every
# scanner against Oniguruma on every compiled target.
#
# Usage: tests/arm/run_qemu.sh [BUILD_DIR]   (default build/arm)
# Environment: SNAPTOK_JOBS (build jobs, and qemu processes at a time;
#   default nproc), CMAKE (default cmake), QEMU (default
#   qemu-aarch64-static, else qemu-aarch64),
#   SNAPTOK_PYTHON (default .venv/bin/python: writes the .st files),
#   SNAPTOK_ARM_RUNS (default "neon sve128 sve256 sve512": a subset to run).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-build/arm}
mkdir -p "$build"
build=$(cd "$build" && pwd)
jobs=${SNAPTOK_JOBS:-$(nproc 2>/dev/null || echo 2)}
cmake_bin=${CMAKE:-cmake}
sysroot=$build/sysroot

arm_name="Arm under qemu"
# shellcheck source=tests/arm/arm_sysroot.sh
. "$here/arm_sysroot.sh"

# 1. Host tools; 2. the Arm libraries, unpacked into the sysroot (once).
arm_tools
arm_build_sysroot "$sysroot"

# 3. Cross build (the libraries' folder goes into the executable's RPATH).
start=$SECONDS
"$cmake_bin" -S "$root" -B "$build/build" -G Ninja --toolchain "$here/aarch64-toolchain.cmake" \
  -DSNAPTOK_ARM_SYSROOT="$sysroot" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O2 \
  -DSNAPTOK_BUILD_TESTS=ON -DSNAPTOK_INSTALL=OFF >"$build/configure.log" ||
  { cat "$build/configure.log" >&2; exit 1; }
"$cmake_bin" --build "$build/build" -j "$jobs"
echo "Arm under qemu: cross build $((SECONDS - start)) s"
tests=$build/build/tests/cpp/snaptok_tests

# 4. .st files written on this (x86) machine, for the Arm runs to load: one
#    per tokenizer of parity_ids.json, by the host's snaptok module.
py=${SNAPTOK_PYTHON:-$root/.venv/bin/python}
st_dir=$build/st
mkdir -p "$st_dir"
"$py" - "$root" "$st_dir" <<'PY' || { echo "Arm under qemu: writing the .st files needs snaptok in $py (scripts/setup.sh)" >&2; exit 1; }
import json, sys
from pathlib import Path
import snaptok
root, out = Path(sys.argv[1]), Path(sys.argv[2])
data = json.loads((root / "tests/arm/parity_ids.json").read_text(encoding="utf-8"))
for case in data["cases"]:
    text = (root / "tests/data" / case["file"]).read_text(encoding="utf-8")
    if case["replace"]:
        text = text.replace(*case["replace"])
    snaptok.Tokenizer.from_str(text).save_st(out / (case["name"] + ".st"))
PY

# 5. The runs: name, qemu -cpu, SNAPTOK_SIMD, the targets dispatch must find
#    (best first), and the doctest filter. The exhaustive scanner and
#    document tests run on NEON only (the target every Arm CPU has); the
#    SVE runs a subset (see Budget above).
sve_subset='simd:*,parity:*,GPT-2:*,every scanner equals Oniguruma on every compiled Highway target'
declare -A cpu simd expect
cpu[neon]='max,sve=off';     simd[neon]='';    expect[neon]='NEON'
cpu[sve128]='max,sve128=on'; simd[sve128]='';  expect[sve128]='SVE2_128 SVE2 SVE NEON'
cpu[sve256]='max,sve256=on'; simd[sve256]='';  expect[sve256]='SVE2 SVE NEON'
cpu[sve512]='max,sve512=on'; simd[sve512]=sve; expect[sve512]='SVE NEON'
# Returns (in filter) the doctest filter of part $2 of run $1. NEON runs the
# whole suite as two processes side by side: part 1 the cases of
# tests/cpp/long_cases.txt, part 2 all the others. SVE (emulated ~10x slower
# than NEON) runs the kernels, parity and the every-target scanner check, as
# one process (part 0).
long_cases=$(grep -Ev '^(#|$)' "$root/tests/cpp/long_cases.txt" | paste -sd,)
set_filter() {
  case $1:$2 in
    neon:1) filter=("--test-case=$long_cases") ;;
    neon:2) filter=("--test-case-exclude=$long_cases") ;;
    *) filter=("--test-case=$sve_subset") ;;
  esac
}

# Runs part $2 of run $1 into BUILD_DIR/$1.$2.log; writes its exit status
# and seconds to BUILD_DIR/$1.$2.status.
run_part() {
  local run=$1 part=$2 start=$SECONDS rc=0 filter
  set_filter "$run" "$part"
  env SNAPTOK_SIMD="${simd[$run]}" SNAPTOK_TEST_EXPECT_TARGETS="${expect[$run]}" SNAPTOK_TEST_EMULATED=1 \
    SNAPTOK_ST_FIXTURE_DIR="$st_dir" \
    "$qemu" -L /usr/aarch64-linux-gnu -cpu "${cpu[$run]}" "$tests" "${filter[@]}" \
    >"$build/$run.$part.log" 2>&1 || rc=$?
  echo "$rc $((SECONDS - start))" >"$build/$run.$part.status"
}

runs=(${SNAPTOK_ARM_RUNS:-neon sve128 sve256 sve512})
parts_of() { if [ "$1" = neon ]; then echo 1 2; else echo 0; fi; }
for run in "${runs[@]}"; do
  [ -n "${cpu[$run]:-}" ] || { echo "Arm under qemu: unknown run '$run'" >&2; exit 2; }
done

# Up to SNAPTOK_JOBS qemu processes at a time, in the order of runs.
rm -f "$build"/*.status
for run in "${runs[@]}"; do
  for part in $(parts_of "$run"); do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    run_part "$run" "$part" &
  done
done
wait

failed=0
for run in "${runs[@]}"; do
  target=${expect[$run]%% *}
  passed=0 nfailed=0 rcs=0 times="" logs=""
  for part in $(parts_of "$run"); do
    log=$build/$run.$part.log
    read -r rc s <"$build/$run.$part.status" || { rc=1 s=?; }
    counts=$(grep -o 'test cases: *[0-9]* | *[0-9]* passed | *[0-9]* failed' "$log" | tr -s ' ' || true)
    p=$(sed -n 's/.*| \([0-9]*\) passed.*/\1/p' <<<"$counts")
    f=$(sed -n 's/.*| \([0-9]*\) failed.*/\1/p' <<<"$counts")
    passed=$([ -n "$p" ] && [ "$passed" != "?" ] && echo $((passed + p)) || echo "?")
    nfailed=$([ -n "$f" ] && [ "$nfailed" != "?" ] && echo $((nfailed + f)) || echo "?")
    times+="${times:+ and }$s s"
    [ "$rc" = 0 ] || rcs=$rc logs+=" $log"
  done
  where="qemu -cpu ${cpu[$run]}${simd[$run]:+, SNAPTOK_SIMD=${simd[$run]}}"
  [ "$run" != neon ] || times+=", 2 processes"
  if [ "$rcs" = 0 ]; then
    echo "$target: $passed test cases passed ($times; $where)"
  else
    failed=1
    echo "$target: FAILED, $nfailed test cases failed, $passed passed (exit $rcs, $times; $where; log$logs)"
    for log in $logs; do grep -E 'ERROR|FATAL|TEST CASE' "$log" | head -40 >&2 || true; done
  fi
done
exit $failed
