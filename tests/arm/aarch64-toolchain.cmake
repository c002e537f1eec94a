# Cross-compiles for aarch64 Linux with Debian's aarch64-linux-gnu-g++, for
# tests/arm/run_qemu.sh. The Arm libraries (Oniguruma, simdjson) and the
# architecture-independent headers (Highway, doctest) come from
# SNAPTOK_ARM_SYSROOT, a folder laid out as / (usr/include,
# usr/lib/aarch64-linux-gnu); libc and libstdc++ from the cross toolchain's
# /usr/aarch64-linux-gnu. Nothing of the host's x86 libraries is searched.
#
#   cmake -S . -B build/arm/build --toolchain tests/arm/aarch64-toolchain.cmake \
#         -DSNAPTOK_ARM_SYSROOT=$PWD/build/arm/sysroot

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

if(NOT CMAKE_CXX_COMPILER)
  set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
endif()

# try_compile projects re-read this file: hand them the sysroot too.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES SNAPTOK_ARM_SYSROOT)
if(NOT SNAPTOK_ARM_SYSROOT)
  message(FATAL_ERROR "aarch64-toolchain.cmake: set SNAPTOK_ARM_SYSROOT (see tests/arm/run_qemu.sh)")
endif()

set(CMAKE_FIND_ROOT_PATH "${SNAPTOK_ARM_SYSROOT}" /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# The host's pkg-config would answer with x86 flags: find_path/find_library
# (snaptokDependencies.cmake's last resort) find the sysroot's files instead.
set(CMAKE_DISABLE_FIND_PACKAGE_PkgConfig ON)
