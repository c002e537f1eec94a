#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages snaptok builds and tests with, when any
# is missing (apt-get, through sudo when not root). Sourced by setup.sh.
set -euo pipefail

snaptok_system_packages=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  python3 python3-dev python3-venv
  libhwy-dev libonig-dev libsimdjson-dev doctest-dev
  g++-aarch64-linux-gnu  # tests/cmake/check_neon.sh: NEON compile check
  clang-14 libclang-rt-14-dev  # fuzz/run.sh: libFuzzer
  openjdk-17-jre-headless  # tests/python/test_engines.py: Spark's JVM
)

missing=()
for pkg in "${snaptok_system_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -ne 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: missing system packages (${missing[*]}) and no apt-get; install them by hand" >&2
    exit 1
  fi
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "setup: installing system packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
