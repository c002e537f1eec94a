#!/usr/bin/env bash
# Installs the system packages it needs (Debian/Ubuntu), creates .venv and
# installs snaptok into it from this checkout, with its test extras and the
# tools scripts/test.sh uses. Safe to rerun: each step is
# skipped when a stamp in .venv says it is already done for the same inputs.
#
# Environment:
#   PYTHON=python3           interpreter the venv is made from
#   SNAPTOK_FORCE_INSTALL=1  rebuild and reinstall snaptok even if unchanged
#   SNAPTOK_USE_HIGHWAY=OFF  build the module without Highway (see pyproject.toml)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# 0. System packages (compiler, CMake, Highway, Oniguruma, simdjson, doctest).
if command -v dpkg-query >/dev/null 2>&1; then
  ./scripts/system_packages.sh
fi

venv=.venv
vpy=$venv/bin/python

if ! "$vpy" -c 'import sys' >/dev/null 2>&1; then
  echo "setup: creating $venv with ${PYTHON:-python3}"
  rm -rf "$venv"
  "${PYTHON:-python3}" -m venv "$venv"
fi

# Returns a sha256 over its stdin.
digest() { sha256sum | cut -d' ' -f1; }

# 1. Build backend (installed here so `pip install` can skip build isolation,
#    which would download it again each time) and the test tools.
build_requires=$("$vpy" - <<'PY'
import re
try:
    import tomllib
    with open("pyproject.toml", "rb") as f:
        reqs = tomllib.load(f)["build-system"]["requires"]
except ModuleNotFoundError:  # Python 3.10
    text = open("pyproject.toml", encoding="utf-8").read()
    block = re.search(r"^requires\s*=\s*\[(.*?)\]", text, re.M | re.S).group(1)
    reqs = re.findall(r'"([^"]+)"', block)
print("\n".join(reqs))
PY
)
# setuptools and wheel: pyspark (a test extra) comes as an sdist, built here
# without build isolation like snaptok itself.
tools=($build_requires py-rattler-build pyyaml setuptools wheel)
# Megatron-core, whose IndexedDataset reads --format megatron back in the tests,
# without its torch dependency (the module it needs uses NumPy; the test
# stands in for the two torch names it imports).
no_deps=(megatron-core==0.16.1)
tools_stamp=$(printf '%s\n' "${tools[@]}" "${no_deps[@]}" | digest)
if [ "$(cat "$venv/.snaptok-tools" 2>/dev/null)" != "$tools_stamp" ]; then
  echo "setup: installing ${tools[*]} ${no_deps[*]}"
  "$vpy" -m pip install -q --disable-pip-version-check "${tools[@]}"
  "$vpy" -m pip install -q --disable-pip-version-check --no-deps "${no_deps[@]}"
  echo "$tools_stamp" >"$venv/.snaptok-tools"
fi

# 2. snaptok itself, with the test and docs extras, when anything it is built from changed.
inputs=()
for p in CMakeLists.txt pyproject.toml cmake include bindings python; do
  [ -e "$p" ] && inputs+=("$p")
done
source_stamp=$( {
  "$vpy" -VV
  echo "highway=${SNAPTOK_USE_HIGHWAY:-ON}"
  find "${inputs[@]}" -type f ! -path '*/__pycache__/*' ! -name '*.pyc' -print0 \
    | LC_ALL=C sort -z | xargs -0 sha256sum
} | digest)
if [ "${SNAPTOK_FORCE_INSTALL:-0}" = 1 ] \
   || [ "$(cat "$venv/.snaptok-installed" 2>/dev/null)" != "$source_stamp" ] \
   || ! "$vpy" -c 'import snaptok' >/dev/null 2>&1; then
  echo "setup: building and installing snaptok (pip install .[test,docs])"
  start=$SECONDS
  rm -f "$venv/.snaptok-installed"
  "$vpy" -m pip install -q --disable-pip-version-check --no-build-isolation ".[test,docs]"
  echo "$source_stamp" >"$venv/.snaptok-installed"
  echo "setup: snaptok installed in $((SECONDS - start)) s"
else
  echo "setup: snaptok is up to date in $venv"
fi
