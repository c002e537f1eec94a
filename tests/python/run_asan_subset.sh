#!/usr/bin/env bash
# A Python test subset against an AddressSanitizer + UndefinedBehaviorSanitizer
# build of snaptok._core: the module is built with CMake into a work folder,
# put beside a copy of python/snaptok, and imported ahead of the installed
# one, with the sanitizer runtimes preloaded into the (uninstrumented)
# interpreter. Any report fails the step. The subset (about 30 s under ASan)
# drives the engine from Python where C++ tests cannot: the binding's
# argument checks and errors, .st loading, mapping and pickling, caches and
# settings snapshots under threads, added tokens, the API surface.
#
# Usage: tests/python/run_asan_subset.sh [work-dir]   (default: build/asan-python)
# Environment: SNAPTOK_JOBS (default 2), CMAKE (default cmake).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=${1:-$root/build/asan-python}
mkdir -p "$work" && work=$(cd "$work" && pwd)  # absolute: the import check below compares paths
py=$root/.venv/bin/python
cd "$root"

sanitize="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
"${CMAKE:-cmake}" -S . -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="$sanitize" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DSNAPTOK_BUILD_PYTHON=ON -DSNAPTOK_PYTHON_STUBS=OFF -DSNAPTOK_BUILD_TESTS=OFF -DSNAPTOK_INSTALL=OFF \
  -DPython_EXECUTABLE="$py" >/dev/null
"${CMAKE:-cmake}" --build "$work/build" --target _core -j "${SNAPTOK_JOBS:-2}"

rm -rf "$work/pkg" && mkdir -p "$work/pkg"
cp -r python/snaptok "$work/pkg/snaptok"
cp "$work"/build/_core*.so "$work/pkg/snaptok/"

export LD_PRELOAD="$(g++ -print-file-name=libasan.so) $(g++ -print-file-name=libubsan.so)"
export ASAN_OPTIONS="detect_leaks=0 abort_on_error=1" UBSAN_OPTIONS="print_stacktrace=1"
export PYTHONPATH="$work/pkg"
where=$("$py" -c 'import snaptok._core as c; print(c.__file__)')
case $where in
  "$work/pkg/"*) echo "asan-python: testing $where" ;;
  *) echo "asan-python: imported $where, not the sanitizer build" >&2; exit 1 ;;
esac
"$py" -m pytest -q -p no:cacheprovider \
  tests/python/test_errors.py tests/python/test_st.py tests/python/test_cache_and_threads.py \
  tests/python/test_added_tokens.py tests/python/test_api.py
