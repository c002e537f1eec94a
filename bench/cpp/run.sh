#!/usr/bin/env bash
# Builds bench/cpp/server_bench.cpp against the compiled library and runs it
# on GPT-2, Llama 3 (cl100k, HF spelling) and all-MiniLM-L6-v2 (WordPiece)
# from the shared data (the bundled GPT-2 when that is absent), on English
# text: latency percentiles of 140-byte requests (1 thread, then N threads
# at once) and batch throughput. Markdown to stdout.
#
#   bench/cpp/run.sh [threads=2]
# Environment: SHARED (default ../shared/data), CMAKE (default cmake).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
threads=${1:-2}
shared=${SHARED:-../shared/data}
build=build/bench-cpp
"${CMAKE:-cmake}" -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSNAPTOK_BUILD_BENCH=ON \
  -DSNAPTOK_BUILD_TESTS=OFF -DSNAPTOK_INSTALL=OFF >/dev/null
"${CMAKE:-cmake}" --build "$build" --target snaptok_server_bench >/dev/null
text=("$shared"/corpus/en/*.txt)
[ -e "${text[0]}" ] || text=(python/snaptok/data/sample.txt)
echo "| tokenizer | scenario | p50 µs | p99 µs | mean µs | throughput |"
echo "|---|---|---:|---:|---:|---:|"
for t in gpt2 cl100k-hf-spelling all-MiniLM-L6-v2; do
  tok="$shared/tokenizers/$t/tokenizer.json"
  [ -f "$tok" ] || { [ "$t" = gpt2 ] && tok=python/snaptok/data/gpt2/tokenizer.json || continue; }
  "$build/bench/snaptok_server_bench" "$tok" --name "$t" --threads "$threads" "${text[@]}"
done
