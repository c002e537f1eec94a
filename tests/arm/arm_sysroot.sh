# Sourced (not run) by tests/arm/run_qemu.sh, tests/arm/run_wheel_qemu.sh
# and scripts/build_wheel.sh --arch aarch64: the aarch64 cross toolchain,
# qemu-user, and Debian's arm64 packages unpacked into a folder.
#
# Packages are fetched with `apt-get download` (after
# `dpkg --add-architecture arm64`) and unpacked with `dpkg-deb -x`, never
# installed: the arm64 -dev packages cannot sit beside the host's (not
# Multi-Arch: same), and installing them would remove the x86 ones. Installs
# with apt-get as root, else through sudo; where neither works, arm_skip ends
# the calling script with exit 0.
#
# The caller sets arm_name (the prefix of its messages) before sourcing.
# Defines:
#   arm_skip REASON...        prints "<arm_name>: skipped (REASON)", exit 0
#   arm_tools                 installs g++-aarch64-linux-gnu and
#                             qemu-user-static if missing; sets qemu
#                             ($QEMU, else qemu-aarch64-static or qemu-aarch64)
#   arm_unpack DIR PKG...     DIR holds exactly the packages PKG... (e.g.
#                             libonig5:arm64), unpacked; fetched again only
#                             when the list changes (DIR/.complete holds it)
#   arm_build_sysroot DIR [PKG...]
#                             the sysroot of tests/arm/aarch64-toolchain.cmake:
#                             Oniguruma and simdjson (and PKG...), with links
#                             to the host's architecture-independent Highway
#                             and doctest headers
arm_name=${arm_name:-Arm}
arm_sudo=""
[ "$(id -u)" = 0 ] || arm_sudo="sudo"
# The Arm libraries snaptok links (run_qemu.sh's C++ tests, the module).
arm_lib_debs=(libonig-dev:arm64 libonig5:arm64 libsimdjson-dev:arm64 libsimdjson14:arm64)

arm_skip() { echo "$arm_name: skipped ($*)"; exit 0; }

# Returns once apt-get can run as root; else ends the script through arm_skip.
arm_need_apt() {
  command -v apt-get >/dev/null 2>&1 || arm_skip "no apt-get to install $*"
  [ -z "$arm_sudo" ] || command -v sudo >/dev/null 2>&1 || arm_skip "not root and no sudo to install $*"
}

arm_tools() {
  arm_find_qemu
  if [ -z "$qemu" ] || ! command -v aarch64-linux-gnu-g++ >/dev/null 2>&1; then
    arm_need_apt "g++-aarch64-linux-gnu qemu-user-static"
    echo "$arm_name: installing g++-aarch64-linux-gnu qemu-user-static"
    DEBIAN_FRONTEND=noninteractive $arm_sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $arm_sudo apt-get install -y -q --no-install-recommends \
      g++-aarch64-linux-gnu qemu-user-static
    arm_find_qemu
  fi
}

arm_find_qemu() {
  qemu=${QEMU:-}
  if [ -z "$qemu" ]; then
    qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true)
  fi
}

arm_unpack() {
  local dir=$1
  shift
  local want
  want=$(printf '%s\n' "$@" | sort)
  if [ -f "$dir/.complete" ] && [ "$(cat "$dir/.complete")" = "$want" ]; then
    return 0
  fi
  command -v apt-get >/dev/null 2>&1 || arm_skip "no apt-get to fetch $*"
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    arm_need_apt "the arm64 architecture"
    echo "$arm_name: dpkg --add-architecture arm64"
    $arm_sudo dpkg --add-architecture arm64
    DEBIAN_FRONTEND=noninteractive $arm_sudo apt-get update -q
  fi
  local debs
  debs=$(mktemp -d)
  # apt downloads as its sandbox user (_apt), which must be able to write there.
  if [ -z "$arm_sudo" ] && id _apt >/dev/null 2>&1; then chown _apt "$debs"; fi
  if ! (cd "$debs" && apt-get download -q "$@"); then
    DEBIAN_FRONTEND=noninteractive $arm_sudo apt-get update -q
    (cd "$debs" && apt-get download -q "$@")
  fi
  rm -rf "$dir"
  mkdir -p "$dir"
  local deb
  for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$dir"; done
  rm -rf "$debs"
  echo "$want" >"$dir/.complete"
}

arm_build_sysroot() {
  local dir=$1
  shift
  arm_unpack "$dir" "${arm_lib_debs[@]}" "$@"
  local inc
  for inc in hwy doctest; do
    [ -d "/usr/include/$inc" ] || { echo "$arm_name: /usr/include/$inc missing (scripts/setup.sh installs it)" >&2; exit 1; }
    [ -e "$dir/usr/include/$inc" ] || ln -sfn "/usr/include/$inc" "$dir/usr/include/$inc"
  done
}
