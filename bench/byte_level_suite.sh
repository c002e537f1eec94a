#!/usr/bin/env bash
# The byte-level BPE benchmark suite: bench.py on GPT-2, Llama 3 (the cl100k
# pattern in HF's spelling), o200k, Qwen2 and DeepSeek V3 from the shared
# data, every peer in the same run, Markdown tables into one file.
#
#   bench/byte_level_suite.sh [OUT.md] [extra bench.py options...]
#
# Default: batches of ~8 KB and of ~256-byte documents and 140-byte requests
# on 1 thread, peak RSS, 4 MB of English; GPT-2 also gets one 64 MB document and 2 threads,
# and GPT-2 and o200k a batch of Japanese and batches of unseen English
# and Japanese (the fresh scenario; the fast libraries only).
# Environment: PYTHON (default .venv/bin/python), SHARED (default ../shared/data).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

out=${1:-bench/byte_level_suite.md}
shift || true
# shellcheck source=suite_lib.sh
source bench/suite_lib.sh

: >"$out"
common=(--mb 4 --repeat 3 "$@")
run "GPT-2" "$shared/tokenizers/gpt2/tokenizer.json" \
  --scenarios batch,short,single --threads 1 "${common[@]}"
run "Llama 3 pattern (cl100k, HF spelling)" "$shared/tokenizers/cl100k-hf-spelling/tokenizer.json" \
  --scenarios batch,short,single --threads 1 "${common[@]}"
run "o200k" "$shared/tokenizers/o200k/tokenizer.json" \
  --scenarios batch,short,single --threads 1 "${common[@]}"
run "Qwen2" "$shared/tokenizers/qwen2/tokenizer.json" \
  --scenarios batch,short,single --threads 1 "${common[@]}"
run "DeepSeek V3" "$shared/tokenizers/deepseek-v3/tokenizer.json" \
  --scenarios batch,short,single --threads 1 "${common[@]}"
# HF (~1.5 MB/s here) still computes the reference ids once, but is not timed.
run "GPT-2, one 64 MB document and 2 threads" "$shared/tokenizers/gpt2/tokenizer.json" \
  --scenarios large,batch --threads 2 --large-mb 64 --repeat 3 \
  --only snaptok,gigatoken,snaptokens,fastokens "$@"
# Japanese (no spaces: long pieces, a vocabulary that mostly lacks its words).
run "GPT-2 on Japanese (kougo_bible_ja, 2 MB)" "$shared/tokenizers/gpt2/tokenizer.json" \
  --corpus "$shared/corpus/multilingual/kougo_bible_ja.txt" --mb 2 --scenarios batch --threads 1 \
  --repeat 3 --only snaptok,gigatoken,snaptokens,fastokens "$@"
run "o200k on Japanese (kougo_bible_ja, 2 MB)" "$shared/tokenizers/o200k/tokenizer.json" \
  --corpus "$shared/corpus/multilingual/kougo_bible_ja.txt" --mb 2 --scenarios batch --threads 1 \
  --repeat 3 --only snaptok,gigatoken,snaptokens,fastokens "$@"
# Unseen text: each timed run encodes 1 MB (Japanese: 0.5 MB) the library has
# not seen, once. The sets come from the corpus after its first 4 MB (2 MB);
# the library has encoded only the warm-up's set and the runs before, so
# the first runs also pay one-time costs (see the README). A batch repeated
# many times measures how much of it a library's cache keeps; a corpus does
# not repeat.
for model in gpt2 o200k; do
  run "$model on unseen English text" "$shared/tokenizers/$model/tokenizer.json" \
    --scenarios fresh --mb 4 --fresh-mb 1 --threads 1 --repeat 3 \
    --only snaptok,gigatoken,snaptokens,fastokens "$@"
  run "$model on unseen Japanese text" "$shared/tokenizers/$model/tokenizer.json" \
    --corpus "$shared/corpus/multilingual/kougo_bible_ja.txt" --scenarios fresh --mb 2 --fresh-mb 0.5 \
    --threads 1 --repeat 3 --only snaptok,gigatoken,snaptokens,fastokens "$@"
done
echo "wrote $out" >&2
