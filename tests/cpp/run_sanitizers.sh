#!/usr/bin/env bash
# The concurrency tests under sanitizers: tests/cpp/test_parallel.cpp (the
# thread pool, documents cut across threads, DocumentEncoder, texts of every
# length) and test_runtime.cpp (piece caches, workspaces, settings
# snapshots), built once with ThreadSanitizer and once with AddressSanitizer
# + UndefinedBehaviorSanitizer, and run; each sanitizer's build and run go
# side by side with the other's. Any report fails the step.
#
# Usage: tests/cpp/run_sanitizers.sh [work-dir]   (default: build/sanitizers)
# Environment: CXX (default g++), SNAPTOK_JOBS (parallel builds, default 2).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${1:-$root/build/sanitizers}
cxx=${CXX:-g++}
mkdir -p "$work"

# The two test files as one translation unit (each compiles the whole engine:
# built apart, the sanitizer builds took twice as long; see
# tests/cpp/CMakeLists.txt's unity groups).
printf '#include "%s"\n' "$here/test_parallel.cpp" "$here/test_runtime.cpp" >"$work/concurrency_tests.cpp"
sources=("$here/main.cpp" "$work/concurrency_tests.cpp")
# -g1: line tables, all a report's stack needs (full -g compiled 25% longer).
common=(-std=c++20 -O1 -g1 -fno-omit-frame-pointer -I"$root/include"
        -DSNAPTOK_TEST_DATA_DIR="\"$root/tests/data\""
        -DSNAPTOK_SHARED_DATA_DIR="\"$root/../shared/data\"")
libs=(-lsimdjson -lonig -lpthread)

build() {  # build <name> <sanitizer flags...>
  local name=$1
  shift
  "$cxx" "${common[@]}" "$@" "${sources[@]}" -o "$work/$name" "${libs[@]}"
}

# die_after_fork=0: the fork test starts threads in the child, which TSan
# otherwise refuses outright. tsan.supp: one report inside libstdc++ 12.
tsan() {
  local start=$SECONDS
  echo "sanitizers: building with ThreadSanitizer"
  build tsan -fsanitize=thread || return
  echo "sanitizers: ThreadSanitizer (built in $((SECONDS - start)) s)"
  start=$SECONDS
  TSAN_OPTIONS="halt_on_error=1 die_after_fork=0 second_deadlock_stack=1 suppressions=$here/tsan.supp" \
    "$work/tsan" || return
  echo "sanitizers: ThreadSanitizer run took $((SECONDS - start)) s"
}
# detect_stack_use_after_return: a piece queued from a stack copy of a short
# last block must point back into the text before the copy's frame ends.
asan() {
  local start=$SECONDS
  echo "sanitizers: building with AddressSanitizer + UndefinedBehaviorSanitizer"
  build asan -fsanitize=address,undefined -fno-sanitize-recover=undefined || return
  echo "sanitizers: AddressSanitizer + UndefinedBehaviorSanitizer (built in $((SECONDS - start)) s)"
  start=$SECONDS
  ASAN_OPTIONS="detect_leaks=0 abort_on_error=1 detect_stack_use_after_return=1" UBSAN_OPTIONS="print_stacktrace=1" \
    "$work/asan" || return
  echo "sanitizers: AddressSanitizer + UndefinedBehaviorSanitizer run took $((SECONDS - start)) s"
}

# Each sanitizer builds, then runs; with 2 jobs or more the two side by
# side, each into its log, printed when both are done.
if [ "${SNAPTOK_JOBS:-2}" -lt 2 ]; then
  tsan && asan
  exit
fi
tsan >"$work/tsan.log" 2>&1 &
tsan_pid=$!
rc=0 tsan_rc=0
asan >"$work/asan.log" 2>&1 || rc=$?
wait "$tsan_pid" || tsan_rc=$?
cat "$work/tsan.log" "$work/asan.log"
[ $tsan_rc = 0 ] || echo "sanitizers: ThreadSanitizer FAILED (exit $tsan_rc; log $work/tsan.log)" >&2
[ $rc = 0 ] || echo "sanitizers: AddressSanitizer + UndefinedBehaviorSanitizer FAILED (exit $rc; log $work/asan.log)" >&2
[ $tsan_rc = 0 ] && [ $rc = 0 ]
