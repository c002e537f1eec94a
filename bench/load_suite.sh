#!/usr/bin/env bash
# Load-time benchmark: bench.py's import scenario (the library's import in a
# fresh interpreter, python -X importtime) and load scenario (each load timed
# alone, the median of several runs) for GPT-2, Llama 3 (cl100k, HF spelling), o200k,
# T5 and BERT (all-MiniLM-L6-v2): snaptok from tokenizer.json, snaptok from a
# .st converted from it (warm page cache), HF and every peer that loads the
# file, in one run per tokenizer. Then bench/st_sharing.py: the memory a
# second, third... process adds when they all map the same .st.
#
#   bench/load_suite.sh [OUT.md] [extra bench.py options...]
#
# Environment: PYTHON (default .venv/bin/python), SHARED (default ../shared/data).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

out=${1:-bench/load_suite.md}
shift || true
py=${PYTHON:-.venv/bin/python}
shared=${SHARED:-../shared/data}

run() {  # run <title> <tokenizer.json>
  local title=$1 tok=$2
  if [ ! -f "$tok" ]; then
    echo "skip $title: $tok not found" >&2
    return
  fi
  echo "== $title" >&2
  {
    printf '\n### %s\n\n' "$title"
    "$py" bench/bench.py --tokenizer "$tok" --markdown --scenarios import,load --threads 1 \
      --mb 1 --repeat 5 "${extra[@]}"
  } >>"$out"
}

extra=("$@")
: >"$out"
run "GPT-2" "$shared/tokenizers/gpt2/tokenizer.json"
run "Llama 3 pattern (cl100k, HF spelling)" "$shared/tokenizers/cl100k-hf-spelling/tokenizer.json"
run "o200k" "$shared/tokenizers/o200k/tokenizer.json"
run "T5 (t5-small, Unigram)" "$shared/tokenizers/t5-small/tokenizer.json"
run "BERT (all-MiniLM-L6-v2, WordPiece)" "$shared/tokenizers/all-MiniLM-L6-v2/tokenizer.json"
{
  printf '\n### Page sharing: processes mapping one .st (o200k)\n\n'
  "$py" bench/st_sharing.py "$shared/tokenizers/o200k/tokenizer.json"
} >>"$out"
echo "wrote $out" >&2
