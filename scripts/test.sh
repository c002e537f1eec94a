#!/usr/bin/env bash
# Runs every test: C++ (doctest via ctest), the concurrency tests under
# ThreadSanitizer and ASan+UBSan, a short ASan+UBSan libFuzzer run of every
# fuzz target (fuzz/run.sh), the CMake consumer projects, the NEON
# cross-compile check, the C++ tests and the aarch64 wheel under qemu, the
# conda recipe check, the regeneration of the generated tables, the Python
# tests, a Python subset against an ASan+UBSan build of the module, and the
# docs site. Each step runs even if an earlier one failed; the exit status
# is non-zero if any failed.
#
# After the system packages, the steps run in two lanes side by side (on 2
# cores most steps leave a core idle for long stretches: one-file builds,
# qemu, libFuzzer): the C++ lane needs only the system packages, the Python
# lane starts with setup (.venv), and a C++-lane step that needs .venv waits
# for setup. A step's output goes to build/ci/<step>.log and is printed
# whole when the step ends, after a "started" line; the summary lists every
# step in a fixed order.
#
# Environment: SNAPTOK_JOBS (default: nproc), CMAKE (default: cmake).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

jobs=${SNAPTOK_JOBS:-$(nproc 2>/dev/null || echo 2)}
cmake_bin=${CMAKE:-cmake}
export SNAPTOK_JOBS=$jobs CMAKE=$cmake_bin

logs=build/ci
rm -rf "$logs"
mkdir -p "$logs"
# Returns the log name of step $1 ("C++ tests" -> C++_tests).
step_id() { tr ' ' _ <<<"$1"; }

# step <name> <command...>: runs the command into the step's log, prints the
# log when it ends (one step at a time), records the summary line
# ($logs/<id>.summary, which ends in "ok" if it passed). Returns 0.
step() {
  local name=$1 start=$SECONDS rc=0 id
  id=$(step_id "$1")
  shift
  printf -- '--> %s started (at %s s)\n' "$name" "$SECONDS"
  "$@" >"$logs/$id.log" 2>&1 || rc=$?
  local line
  line=$(printf '%-22s %4ss  %s' "$name" $((SECONDS - start)) \
    "$([ $rc = 0 ] && echo ok || echo "FAILED (exit $rc)")")
  {
    flock 9
    printf '\n==> %s\n' "$name"
    cat "$logs/$id.log"
    printf -- '<-- %s\n' "$line"
  } 9>"$logs/.print-lock"
  echo "$line" >"$logs/$id.summary"
}
passed() { grep -q ' ok$' "$logs/$(step_id "$1").summary"; }

# Runs "$@" once setup has passed (the C++ lane's steps that need .venv).
after_setup() {
  while [ ! -f "$logs/setup.summary" ]; do sleep 2; done
  passed setup || { echo "setup failed: not run" >&2; return 1; }
  "$@"
}

# (Commands are chained with &&: `set -e` does not apply inside a function
# called as `f || rc=$?`.)
cpp_tests() {
  # Release with -O2 and without NDEBUG: fast tests that keep assert().
  "$cmake_bin" -S . -B build/cpp -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE=-O2 -DSNAPTOK_BUILD_TESTS=ON -DSNAPTOK_INSTALL=OFF &&
  "$cmake_bin" --build build/cpp -j "$jobs" &&
  ctest --test-dir build/cpp --output-on-failure -j "$jobs"
}

cpp_lane() {
  step "C++ tests" cpp_tests
  step "C++ sanitizers" tests/cpp/run_sanitizers.sh build/sanitizers
  step "CMake consumers" tests/cmake/run_consumers.sh build/consumers
  step "NEON build" tests/cmake/check_neon.sh build/neon
  step "fuzz" after_setup env FUZZ_WORK=build/fuzz fuzz/run.sh 10
  step "Python under ASan" after_setup tests/python/run_asan_subset.sh build/asan-python
}

# The Arm steps stay in one lane: both may run apt-get.
python_lane() {
  step setup ./scripts/setup.sh
  passed setup || return 0
  step "Arm under qemu" tests/arm/run_qemu.sh build/arm
  step "Arm wheel under qemu" tests/arm/run_wheel_qemu.sh build/arm-wheel
  step "conda recipe" .venv/bin/python conda-recipe/check_recipe.py
  step "generated tables" .venv/bin/python tools/check_generated.py --workers "$jobs"
  # On every core (pytest-xdist, from the test extras); the slowest tests are
  # listed so that the step's time stays visible.
  step "Python tests" .venv/bin/python -m pytest tests/python -q -n "$jobs" --durations=20
  # The docs site from the installed package's docstrings and stubs; --strict
  # fails on any warning (a broken reference, an undocumented return).
  step "docs" env NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --quiet
}

start=$SECONDS
step "system packages" ./scripts/system_packages.sh
if ! passed "system packages"; then
  echo "the system packages could not be installed; not running the tests" >&2
  exit 1
fi
cpp_lane &
cpp_pid=$!
python_lane
wait "$cpp_pid"

printf '\n==> summary (%s s)\n' $((SECONDS - start))
failed=()
for name in "system packages" setup "C++ tests" "C++ sanitizers" fuzz "CMake consumers" "NEON build" \
    "Arm under qemu" "Arm wheel under qemu" "conda recipe" "generated tables" "Python tests" \
    "Python under ASan" docs; do
  id=$(step_id "$name")
  if [ -f "$logs/$id.summary" ]; then
    printf '  %s\n' "$(cat "$logs/$id.summary")"
    passed "$name" || failed+=("$name")
  else
    printf '  %-22s    -   not run\n' "$name"
    failed+=("$name")
  fi
done
if [ ${#failed[@]} -ne 0 ]; then
  printf 'FAILED: %s\n' "${failed[*]}" >&2
  exit 1
fi
echo "all tests passed"
