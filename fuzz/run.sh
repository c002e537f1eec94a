#!/usr/bin/env bash
# Builds and runs the .st loader fuzz target under AddressSanitizer and
# UndefinedBehaviorSanitizer: with libFuzzer when clang++ is installed
# (FUZZ_ENGINE=libfuzzer), else with the standalone mutation driver
# (standalone_main.cpp, any g++). Seeds: fuzz/seeds/*.json.
#
# Usage: fuzz/run.sh [seconds]    (default 20; CI runs a short campaign)
# Environment: FUZZ_ENGINE=standalone|libfuzzer (default: libfuzzer when
# clang++ exists), CXX, FUZZ_WORK (default build/fuzz), PYTHON (the snaptok
# that writes the seed .st files; default .venv/bin/python).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
seconds=${1:-20}
work=${FUZZ_WORK:-$root/build/fuzz}
py=${PYTHON:-$root/.venv/bin/python}
mkdir -p "$work"
engine=${FUZZ_ENGINE:-$(command -v clang++ >/dev/null && echo libfuzzer || echo standalone)}
flags=(-std=c++20 -O1 -g -fno-omit-frame-pointer -I"$root/include"
       -fsanitize=address,undefined -fno-sanitize-recover=undefined)
libs=(-lsimdjson -lonig -lhwy -lpthread)
export ASAN_OPTIONS="detect_leaks=0 abort_on_error=1" UBSAN_OPTIONS="print_stacktrace=1"

# The seeds as .st images, written by the installed snaptok.
corpus="$work/st_corpus"
mkdir -p "$corpus"
for s in "$here"/seeds/*.json; do
  "$py" -c 'import sys, snaptok; snaptok.Tokenizer.from_file(sys.argv[1]).save_st(sys.argv[2])' \
    "$s" "$corpus/$(basename "$s" .json).st"
done

if [ "$engine" = libfuzzer ]; then
  cxx=${CXX:-clang++}
  echo "fuzz: building st_loader with libFuzzer ($cxx)"
  "$cxx" "${flags[@]}" -fsanitize=fuzzer "$here/st_loader.cpp" -o "$work/st_loader" "${libs[@]}"
  "$work/st_loader" -max_total_time="$seconds" -max_len=1048576 -timeout=10 "$corpus"
else
  cxx=${CXX:-g++}
  echo "fuzz: building st_loader with the standalone driver ($cxx)"
  "$cxx" "${flags[@]}" "$here/st_loader.cpp" "$here/standalone_main.cpp" -o "$work/st_loader_standalone" "${libs[@]}"
  "$work/st_loader_standalone" --seconds "$seconds" "$corpus"/*.st
fi
