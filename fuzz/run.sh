#!/usr/bin/env bash
# Builds the fuzz targets under AddressSanitizer and UndefinedBehaviorSanitizer
# and runs each for a while from its seed corpus (fuzz/make_corpora.py).
#
# With clang (clang++ or clang++-14: Debian's clang-14 and libclang-rt-14-dev)
# every target runs on libFuzzer, from one binary (snaptok_fuzz.cpp):
#   added_tokens  the added-token matcher against a naive reference
#   bpe_merges    every BPE merge (stack, heap, chunks) against the textbook merge
#   decode        decode: valid UTF-8, unknown ids skipped, round trips
#   encode_paths  fused paths and the document encoder against the general stages
#   json_loader   the tokenizer.json loader (then encode paths, decode, .st)
#   scanners      every pre-tokenizer scanner against Oniguruma, per Highway target
#   st_loader     the .st loader
# Without clang only st_loader runs, on the standalone mutation driver
# (standalone_main.cpp, any g++).
#
# Usage: fuzz/run.sh [seconds per target]    (default 20; CI runs a short campaign)
# Environment: FUZZ_TARGETS (default: all), FUZZ_ENGINE=libfuzzer|standalone,
# CXX, FUZZ_WORK (default build/fuzz; crash files land in $FUZZ_WORK/crashes),
# FUZZ_ARGS (more libFuzzer flags), PYTHON (an interpreter with snaptok
# installed, for the corpora; default .venv/bin/python).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
seconds=${1:-20}
work=${FUZZ_WORK:-$root/build/fuzz}
py=${PYTHON:-$root/.venv/bin/python}
clang=$(command -v clang++ || command -v clang++-14 || true)
engine=${FUZZ_ENGINE:-$([ -n "$clang" ] && echo libfuzzer || echo standalone)}
flags=(-std=c++20 -O1 -g -fno-omit-frame-pointer -I"$root/include" -DSNAPTOK_FUZZ_ROOT="\"$root\""
       -fsanitize=address,undefined -fno-sanitize-recover=undefined)
libs=(-lsimdjson -lonig -lpthread)
export ASAN_OPTIONS="detect_leaks=0 abort_on_error=1" UBSAN_OPTIONS="print_stacktrace=1"

mkdir -p "$work/crashes"
rm -rf "$work/corpus"
"$py" "$here/make_corpora.py" "$work/corpus"

if [ "$engine" = standalone ]; then
  cxx=${CXX:-g++}
  echo "fuzz: no clang, so only st_loader runs (standalone driver, $cxx)"
  "$cxx" "${flags[@]}" "$here/standalone_main.cpp" -o "$work/st_loader_standalone" "${libs[@]}"
  "$work/st_loader_standalone" --seconds "$seconds" "$work"/corpus/st_loader/*
  exit 0
fi

cxx=${CXX:-$clang}
echo "fuzz: building snaptok_fuzz with libFuzzer ($cxx)"
"$cxx" "${flags[@]}" -fsanitize=fuzzer "$here/snaptok_fuzz.cpp" -o "$work/snaptok_fuzz" "${libs[@]}"

failed=()
for target in ${FUZZ_TARGETS:-added_tokens bpe_merges decode encode_paths json_loader scanners st_loader}; do
  extra=(-max_len=4096)
  case $target in
    json_loader) extra=(-max_len=1048576 -dict="$here/json.dict") ;;
    st_loader) extra=(-max_len=1048576) ;;
  esac
  echo "fuzz: $target for ${seconds}s"
  log="$work/$target.log"
  # The corpus grows in place; -artifact_prefix keeps crash inputs apart.
  if SNAPTOK_FUZZ_TARGET=$target "$work/snaptok_fuzz" -max_total_time="$seconds" -timeout=10 \
       -rss_limit_mb=3072 -print_final_stats=1 -artifact_prefix="$work/crashes/$target-" \
       "${extra[@]}" ${FUZZ_ARGS:-} "$work/corpus/$target" >"$log" 2>&1; then
    grep -E '^(Done|stat::number_of_executed_units)' "$log" | tail -1 | sed "s/^/  $target: /"
  else
    failed+=("$target")
    tail -40 "$log" >&2
  fi
done
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz: FAILED: ${failed[*]} (inputs in $work/crashes)" >&2
  exit 1
fi
