#!/usr/bin/env bash
# Builds the fuzz targets under AddressSanitizer and UndefinedBehaviorSanitizer
# and runs each for a while from its seed corpus (fuzz/make_corpora.py).
#
# With clang (clang++ or clang++-14: Debian's clang-14 and libclang-rt-14-dev)
# every target runs on libFuzzer, from one binary (snaptok_fuzz.cpp):
#   added_tokens  the added-token matcher against a naive reference
#   automaton     the compiled scanner of random patterns against Oniguruma
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
# installed, for the corpora; default .venv/bin/python), SNAPTOK_JOBS
# (libFuzzer targets run side by side, default nproc).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
seconds=${1:-20}
work=${FUZZ_WORK:-$root/build/fuzz}
py=${PYTHON:-$root/.venv/bin/python}
clang=$(command -v clang++ || command -v clang++-14 || true)
engine=${FUZZ_ENGINE:-$([ -n "$clang" ] && echo libfuzzer || echo standalone)}
flags=(-std=c++20 -O1 -g1 -fno-omit-frame-pointer -I"$root/include" -DSNAPTOK_FUZZ_ROOT="\"$root\""
       -fsanitize=address,undefined -fno-sanitize-recover=undefined)
libs=(-lsimdjson -lonig -lpthread)
export ASAN_OPTIONS="detect_leaks=0 abort_on_error=1" UBSAN_OPTIONS="print_stacktrace=1"

mkdir -p "$work/crashes"
rm -rf "$work/corpus"

if [ "$engine" = standalone ]; then
  cxx=${CXX:-g++}
  echo "fuzz: no clang, so only st_loader runs (standalone driver, $cxx)"
  "$py" "$here/make_corpora.py" "$work/corpus"
  "$cxx" "${flags[@]}" "$here/standalone_main.cpp" -o "$work/st_loader_standalone" "${libs[@]}"
  "$work/st_loader_standalone" --seconds "$seconds" "$work"/corpus/st_loader/*
  exit 0
fi

cxx=${CXX:-$clang}
# The corpora are written while the fuzzer builds.
"$py" "$here/make_corpora.py" "$work/corpus" >"$work/corpora.log" 2>&1 &
corpora_pid=$!
echo "fuzz: building snaptok_fuzz with libFuzzer ($cxx)"
"$cxx" "${flags[@]}" -fsanitize=fuzzer "$here/snaptok_fuzz.cpp" -o "$work/snaptok_fuzz" "${libs[@]}"
wait "$corpora_pid" || { cat "$work/corpora.log" >&2; echo "fuzz: writing the corpora FAILED" >&2; exit 1; }
cat "$work/corpora.log"

# Runs target $1 for $seconds into $work/$1.log.
fuzz_one() {
  local target=$1 extra=(-max_len=4096)
  case $target in
    json_loader) extra=(-max_len=1048576 -dict="$here/json.dict") ;;
    st_loader) extra=(-max_len=1048576) ;;
  esac
  # The corpus grows in place; -artifact_prefix keeps crash inputs apart.
  # -timeout flags a hang: CI runs two targets beside two pytest workers on
  # two cores, so a unit takes up to 4x its time on an idle machine.
  SNAPTOK_FUZZ_TARGET=$target "$work/snaptok_fuzz" -max_total_time="$seconds" -timeout=25 \
    -rss_limit_mb=3072 -print_final_stats=1 -artifact_prefix="$work/crashes/$target-" \
    "${extra[@]}" ${FUZZ_ARGS:-} "$work/corpus/$target" >"$work/$target.log" 2>&1
}

# SNAPTOK_JOBS targets at a time (default nproc); each prints its lines when
# it ends, in the order of FUZZ_TARGETS.
targets=(${FUZZ_TARGETS:-added_tokens automaton bpe_merges decode encode_paths json_loader scanners st_loader})
jobs=${SNAPTOK_JOBS:-$(nproc 2>/dev/null || echo 2)}
echo "fuzz: ${targets[*]}, ${seconds}s each, $jobs at a time"
declare -A pid
failed=()
report() {  # report <target>: waits for it, prints its result
  local target=$1
  if wait "${pid[$target]}"; then
    grep -E '^(Done|stat::number_of_executed_units)' "$work/$target.log" | tail -1 | sed "s/^/  $target: /"
  else
    failed+=("$target")
    echo "fuzz: $target FAILED:" >&2
    tail -40 "$work/$target.log" >&2
  fi
}
next=0
for i in "${!targets[@]}"; do
  if [ $((i - next)) -ge "$jobs" ]; then report "${targets[next]}"; next=$((next + 1)); fi
  fuzz_one "${targets[i]}" &
  pid[${targets[i]}]=$!
done
for ((; next < ${#targets[@]}; next++)); do report "${targets[next]}"; done
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz: FAILED: ${failed[*]} (inputs in $work/crashes)" >&2
  exit 1
fi
