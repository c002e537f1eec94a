#!/usr/bin/env bash
# The benchmark suite of the families the byte-level peers handle poorly or
# not at all: SentencePiece-style BPE (phi-3), Unigram with Precompiled
# (t5-small), WordPiece with BertNormalizer (all-MiniLM; the file's
# truncation and padding are off, as for every library in bench.py) and a
# Japanese Unigram (kyoto), every peer in the same run, Markdown tables into
# one file.
#
#   bench/families_suite.sh [OUT.md] [extra bench.py options...]
#
# Default: batch of ~8 KB documents and 140-byte requests on 1 thread, peak
# RSS, 4 MB of English (Japanese for kyoto); then one 64 MB document on 2
# threads per family (snaptok and the peers that load it; its peak RSS is the
# memory target).
# Environment: PYTHON (default .venv/bin/python), SHARED (default ../shared/data).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

out=${1:-bench/families_suite.md}
shift || true
# shellcheck source=suite_lib.sh
source bench/suite_lib.sh

: >"$out"
common=(--mb 4 --repeat 3 --scenarios batch,single --threads 1 --only snaptok,hf,gigatoken,fastokens "$@")
run "phi-3 (SentencePiece BPE, byte_fallback)" "$shared/tokenizers/phi-3/tokenizer.json" "${common[@]}"
run "t5-small (Unigram, Precompiled)" "$shared/tokenizers/t5-small/tokenizer.json" "${common[@]}"
run "all-MiniLM-L6-v2 (WordPiece, BertNormalizer)" "$shared/tokenizers/all-MiniLM-L6-v2/tokenizer.json" \
  "${common[@]}"
if [ -d "$shared/corpus/multilingual" ]; then
  ja=$(ls "$shared"/corpus/multilingual/*ja*.txt 2>/dev/null | head -1 || true)
  if [ -n "$ja" ]; then
    run "kyoto Japanese Unigram (Metaspace without split)" \
      "$shared/tokenizers/spm-kyoto-ja-unigram-8000-proto/tokenizer.json" --corpus "$ja" \
      --mb 1 --repeat 3 --scenarios batch,single --threads 1 --only snaptok,hf,gigatoken,fastokens "$@"
  fi
fi
# HF still computes the reference ids once for the 64 MB document, untimed.
for t in phi-3 t5-small all-MiniLM-L6-v2; do
  run "$t, one 64 MB document and 2 threads" "$shared/tokenizers/$t/tokenizer.json" \
    --scenarios large --threads 2 --large-mb 64 --repeat 1 --only snaptok,gigatoken,fastokens "$@"
done
echo "wrote $out" >&2
