#!/usr/bin/env bash
# Thread scaling of snaptok (issue 7): a 64 MB batch of ~8 KB documents and
# one 64 MB document of English on 1 thread and on 2, 4, 8 and 16 (those the
# machine has), GPT-2 from the shared data, else the bundled GPT-2 and
# sample text. One bench.py run per thread count, each with its own 1-thread
# row, so that every ratio compares numbers taken minutes apart. Written for
# the 16-core device machine: one short run (snaptok only by default; HF
# still computes the reference ids once per run, untimed).
#
#   bench/scaling_suite.sh [OUT.md] [extra bench.py options...]
#
# Environment: PYTHON (default .venv/bin/python), SHARED (default ../shared/data).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

out=${1:-bench/scaling_suite.md}
shift || true
# shellcheck source=suite_lib.sh
source bench/suite_lib.sh

tok="$shared/tokenizers/gpt2/tokenizer.json"
[ -f "$tok" ] || tok=python/snaptok/data/gpt2/tokenizer.json
cores=$("$py" -c 'import os; print(len(os.sched_getaffinity(0)))')

: >"$out"
for threads in 2 4 8 16; do
  [ "$threads" -le "$cores" ] || break
  run "GPT-2, 64 MB, 1 and $threads threads" "$tok" \
    --scenarios batch,large --threads "$threads" --mb 64 --large-mb 64 --repeat 3 \
    --only snaptok "$@"
done
echo "wrote $out" >&2
