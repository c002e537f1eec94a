#!/usr/bin/env bash
# Builds and runs the CMake consumer projects against this checkout:
#   1. installs snaptok into a temporary prefix (cmake --install) and checks
#      what was installed;
#   2. find_package/     — find_package(snaptok CONFIG REQUIRED) from that prefix,
#      linking the compiled library, the header-only target, and the compiled
#      library from code built with -fno-exceptions (none may link libhwy:
#      Highway is used through its headers only);
#   3. add_subdirectory/ — snaptok as a subproject (no tests, no install rules):
#      the compiled library, then both targets with -DSNAPTOK_USE_HIGHWAY=OFF
#      (must not link libhwy);
#   4. odr/              — two translation units in one program, in both forms;
#   5. examples/cpp/     — the C++ examples, built against the prefix and run.
#
# Usage: tests/cmake/run_consumers.sh [work-dir]   (default: a fresh temp dir)
# Environment: CMAKE (default cmake), SNAPTOK_JOBS (default nproc),
#              CMAKE_BUILD_TYPE for the consumers (default Release).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${1:-$(mktemp -d "${TMPDIR:-/tmp}/snaptok-consumers.XXXXXX")}
mkdir -p "$work"
work=$(cd "$work" && pwd)
cmake_bin=${CMAKE:-cmake}
jobs=${SNAPTOK_JOBS:-$(nproc 2>/dev/null || echo 2)}
build_type=${CMAKE_BUILD_TYPE:-Release}
tokenizer="$root/tests/data/gpt2/tokenizer.json"
prefix="$work/prefix"

say() { printf '\n== %s\n' "$*"; }
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }

[ -f "$tokenizer" ] || fail "missing $tokenizer"

configure() {  # configure <source> <build> [cmake args...]
  local src=$1 bld=$2
  shift 2
  rm -rf "$bld"
  "$cmake_bin" -S "$src" -B "$bld" -G Ninja -DCMAKE_BUILD_TYPE="$build_type" "$@" >"$bld.configure.log" 2>&1 \
    || { cat "$bld.configure.log" >&2; fail "configure $src"; }
}

say "install snaptok into $prefix"
rm -rf "$prefix"
configure "$root" "$work/snaptok-build" \
  -DSNAPTOK_BUILD_TESTS=OFF -DSNAPTOK_INSTALL=ON -DCMAKE_INSTALL_PREFIX="$prefix"
"$cmake_bin" --build "$work/snaptok-build" -j "$jobs"
"$cmake_bin" --install "$work/snaptok-build"
[ -f "$prefix/include/snaptok/tokenizer.hpp" ] || fail "not installed: include/snaptok/tokenizer.hpp"
config=$(find "$prefix" -name snaptokConfig.cmake -print -quit)
[ -n "$config" ] || fail "not installed: snaptokConfig.cmake"
for f in snaptokConfigVersion.cmake snaptokTargets.cmake snaptokDependencies.cmake; do
  [ -f "$(dirname "$config")/$f" ] || fail "not installed next to snaptokConfig.cmake: $f"
done
[ -n "$(find "$prefix" -name 'libsnaptok.a' -print -quit)" ] || fail "not installed: libsnaptok.a"
if find "$prefix" -name '*.cpp' -o -name 'CMakeLists.txt' | grep -q .; then
  fail "sources or CMakeLists.txt were installed into $prefix"
fi

say "find_package consumer"
configure "$here/find_package" "$work/find_package" -DCMAKE_PREFIX_PATH="$prefix"
"$cmake_bin" --build "$work/find_package" -j "$jobs"
"$work/find_package/app" "$tokenizer"
"$work/find_package/app_header_only" "$tokenizer"
"$work/find_package/noexcept_app" "$tokenizer"
# Highway is header-only: snaptok chooses its SIMD target itself.
for app in app app_header_only noexcept_app; do
  if command -v ldd >/dev/null && ldd "$work/find_package/$app" | grep -q libhwy; then
    fail "find_package consumer $app links libhwy"
  fi
done

say "add_subdirectory consumer"
configure "$here/add_subdirectory" "$work/add_subdirectory" \
  -DSNAPTOK_SOURCE_DIR="$root" -DCMAKE_INSTALL_PREFIX="$work/add_subdirectory-prefix"
# The compiled library as a subproject (app); the header-only target's
# consumer is the same main.cpp as find_package's, built below without
# Highway (one more compile of the whole engine with Highway adds nothing).
"$cmake_bin" --build "$work/add_subdirectory" -j "$jobs" --target app
"$work/add_subdirectory/app" "$tokenizer"
"$cmake_bin" --install "$work/add_subdirectory" >/dev/null
installed=$(cd "$work/add_subdirectory-prefix" && find . -type f | sort)
[ "$installed" = "./bin/app" ] \
  || fail "installing the add_subdirectory consumer installed more than its app: $installed"

say "add_subdirectory consumer, -DSNAPTOK_USE_HIGHWAY=OFF"
configure "$here/add_subdirectory" "$work/add_subdirectory-nohwy" \
  -DSNAPTOK_SOURCE_DIR="$root" -DSNAPTOK_USE_HIGHWAY=OFF
"$cmake_bin" --build "$work/add_subdirectory-nohwy" -j "$jobs"
"$work/add_subdirectory-nohwy/app" "$tokenizer"
if command -v ldd >/dev/null && ldd "$work/add_subdirectory-nohwy/app" | grep -q libhwy; then
  fail "SNAPTOK_USE_HIGHWAY=OFF build links libhwy"
fi

say "odr: two translation units"
configure "$here/odr" "$work/odr" -DCMAKE_PREFIX_PATH="$prefix"
"$cmake_bin" --build "$work/odr" -j "$jobs"
"$work/odr/odr" "$tokenizer"
"$work/odr/odr_compiled" "$tokenizer"

say "examples/cpp"
configure "$root/examples/cpp" "$work/examples" -DCMAKE_PREFIX_PATH="$prefix"
"$cmake_bin" --build "$work/examples" -j "$jobs"
out=$(printf 'Hello world\n\nsecond line\n' | "$work/examples/stdin_lines" "$tokenizer")
[ "$out" = "$(printf '15496 995\n\n12227 1627')" ] || fail "stdin_lines printed: $out"
"$work/examples/request_loop" "$tokenizer" 2 2000 >/dev/null

say "all CMake consumers passed (work dir: $work)"
