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
# Environment: SNAPTOK_JOBS (default: nproc), CMAKE (default: cmake).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

jobs=${SNAPTOK_JOBS:-$(nproc 2>/dev/null || echo 2)}
cmake_bin=${CMAKE:-cmake}
export SNAPTOK_JOBS=$jobs CMAKE=$cmake_bin

failed=()
summary=()
step() {  # step <name> <command...>
  local name=$1 start=$SECONDS rc=0
  shift
  printf '\n==> %s\n' "$name"
  "$@" || rc=$?
  summary+=("$(printf '%-22s %4ss  %s' "$name" $((SECONDS - start)) \
    "$([ $rc = 0 ] && echo ok || echo "FAILED (exit $rc)")")")
  [ $rc = 0 ] || failed+=("$name")
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

step setup ./scripts/setup.sh
if [ ${#failed[@]} -ne 0 ]; then
  echo "setup failed; not running the tests" >&2
  exit 1
fi
step "C++ tests" cpp_tests
step "C++ sanitizers" tests/cpp/run_sanitizers.sh build/sanitizers
step "fuzz" env FUZZ_WORK=build/fuzz fuzz/run.sh 10
step "CMake consumers" tests/cmake/run_consumers.sh build/consumers
step "NEON build" tests/cmake/check_neon.sh build/neon
step "Arm under qemu" tests/arm/run_qemu.sh build/arm
step "Arm wheel under qemu" tests/arm/run_wheel_qemu.sh build/arm-wheel
step "conda recipe" .venv/bin/python conda-recipe/check_recipe.py
step "generated tables" .venv/bin/python tools/check_generated.py --workers "$jobs"
# On every core (pytest-xdist, from the test extras); the slowest tests are
# listed so that the step's time stays visible.
step "Python tests" .venv/bin/python -m pytest tests/python -q -n "$jobs" --durations=20
step "Python under ASan" tests/python/run_asan_subset.sh build/asan-python
# The docs site from the installed package's docstrings and stubs; --strict
# fails on any warning (a broken reference, an undocumented return).
step "docs" env NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --quiet

printf '\n==> summary\n'
printf '  %s\n' "${summary[@]}"
if [ ${#failed[@]} -ne 0 ]; then
  printf 'FAILED: %s\n' "${failed[*]}" >&2
  exit 1
fi
echo "all tests passed"
