#!/usr/bin/env bash
# Installs snaptok into .venv (scripts/setup.sh) and tokenizes the built-in
# sample text with the built-in GPT-2 tokenizer into a NumPy .npz file.
# Extra arguments go to `snaptok encode` (e.g. a file of your own, --tokenizer).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

./scripts/setup.sh
out=${SNAPTOK_DEMO_OUT:-${TMPDIR:-/tmp}/snaptok-demo.npz}
.venv/bin/snaptok encode -o "$out" "$@"
