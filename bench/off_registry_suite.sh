#!/usr/bin/env bash
# Issue 45's configurations off the registry (bench/make_variants.py: the
# shared GPT-2, o200k and Phi-3 files with other families' pre-tokenizers and
# normalizers), each against its fused baseline (GPT-2 for byte-level, Phi-3
# for SentencePiece BPE) and the peers that load it, in the same run: warm
# batch of ~8 KB documents, one thread, Markdown tables into one file.
#
#   bench/off_registry_suite.sh [OUT.md] [extra bench.py options...]
#
# Environment: PYTHON (default .venv/bin/python), SHARED (default ../shared/data).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

out=${1:-bench/off_registry_suite.md}
shift || true
# shellcheck source=suite_lib.sh
source bench/suite_lib.sh

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$py" bench/make_variants.py "$dir" "$shared" >"$dir/list.txt"
: >"$out"
common=(--mb 2 --repeat 3 --scenarios batch --threads 1 --only snaptok,hf,fastokens "$@")
run "gpt2 (the fused byte-level baseline)" "$shared/tokenizers/gpt2/tokenizer.json" "${common[@]}"
run "phi-3 (the fused SentencePiece baseline)" "$shared/tokenizers/phi-3/tokenizer.json" "${common[@]}"
run "falcon (its own file)" "$shared/tokenizers/falcon/tokenizer.json" "${common[@]}"
while read -r name path; do
  run "$name" "$path" "${common[@]}"
done <"$dir/list.txt"
