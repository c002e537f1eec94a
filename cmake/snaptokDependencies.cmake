# Locates the libraries snaptok links against and wraps each one in a
# `snaptok::<name>` INTERFACE IMPORTED target, so that the link interface of
# snaptok::snaptok names the same targets in the build tree and after
# installation.
#
# Included by the top-level CMakeLists.txt and, installed next to it, by
# snaptokConfig.cmake, so a consumer's find_package(snaptok) finds the
# dependencies the same way the build did.
#
#   snaptok_find_oniguruma(<result-var>)
#   snaptok_find_highway(<result-var>)
#
# Each sets <result-var> to TRUE once the target exists, FALSE otherwise.
# Search order: the library's own CMake package (Highway only; Oniguruma
# ships none), then pkg-config, then find_path/find_library, so
# CMAKE_PREFIX_PATH, PKG_CONFIG_PATH and conda prefixes all work.

include_guard(GLOBAL)

# Returns TRUE in <out> when pkg-config is usable.
macro(_snaptok_have_pkg_config out)
  if(NOT DEFINED PKG_CONFIG_FOUND)
    find_package(PkgConfig QUIET)
  endif()
  if(PKG_CONFIG_FOUND)
    set(${out} TRUE)
  else()
    set(${out} FALSE)
  endif()
endmacro()

# Returns TRUE in <out> after creating snaptok::oniguruma.
function(snaptok_find_oniguruma out)
  if(TARGET snaptok::oniguruma)
    set(${out} TRUE PARENT_SCOPE)
    return()
  endif()
  _snaptok_have_pkg_config(_have_pc)
  if(_have_pc)
    pkg_check_modules(SNAPTOK_PC_ONIG QUIET IMPORTED_TARGET oniguruma)
    if(SNAPTOK_PC_ONIG_FOUND)
      add_library(snaptok::oniguruma INTERFACE IMPORTED)
      target_link_libraries(snaptok::oniguruma INTERFACE PkgConfig::SNAPTOK_PC_ONIG)
      set(${out} TRUE PARENT_SCOPE)
      return()
    endif()
  endif()
  find_path(SNAPTOK_ONIG_INCLUDE_DIR oniguruma.h)
  find_library(SNAPTOK_ONIG_LIBRARY NAMES onig oniguruma)
  if(SNAPTOK_ONIG_INCLUDE_DIR AND SNAPTOK_ONIG_LIBRARY)
    add_library(snaptok::oniguruma UNKNOWN IMPORTED)
    set_target_properties(snaptok::oniguruma PROPERTIES
      IMPORTED_LOCATION "${SNAPTOK_ONIG_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${SNAPTOK_ONIG_INCLUDE_DIR}")
    set(${out} TRUE PARENT_SCOPE)
    return()
  endif()
  set(${out} FALSE PARENT_SCOPE)
endfunction()

# Returns TRUE in <out> after creating snaptok::highway: Highway's include
# directory only. snaptok uses Highway as a header-only library (it chooses
# the target itself, snaptok/simd/cpu_targets.hpp), so nothing links libhwy;
# a libhwy package (CMake config, pkg-config) is only where the headers are
# found.
function(snaptok_find_highway out)
  if(TARGET snaptok::highway)
    set(${out} TRUE PARENT_SCOPE)
    return()
  endif()
  set(_hwy_include "")
  find_package(hwy 1.0.3 CONFIG QUIET)
  if(TARGET hwy::hwy)
    get_target_property(_hwy_include hwy::hwy INTERFACE_INCLUDE_DIRECTORIES)
  endif()
  if(NOT _hwy_include)
    _snaptok_have_pkg_config(_have_pc)
    if(_have_pc)
      pkg_check_modules(SNAPTOK_PC_HWY QUIET libhwy>=1.0.3)
      if(SNAPTOK_PC_HWY_FOUND)
        set(_hwy_include "${SNAPTOK_PC_HWY_INCLUDE_DIRS}")
        if(NOT _hwy_include)  # headers in a default include directory
          set(_hwy_include "${SNAPTOK_PC_HWY_INCLUDEDIR}")
        endif()
      endif()
    endif()
  endif()
  if(NOT _hwy_include)
    find_path(SNAPTOK_HWY_INCLUDE_DIR hwy/highway.h)
    if(SNAPTOK_HWY_INCLUDE_DIR)
      set(_hwy_include "${SNAPTOK_HWY_INCLUDE_DIR}")
    endif()
  endif()
  if(NOT _hwy_include)
    set(${out} FALSE PARENT_SCOPE)
    return()
  endif()
  add_library(snaptok::highway INTERFACE IMPORTED)
  set_target_properties(snaptok::highway PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_hwy_include}")
  set(${out} TRUE PARENT_SCOPE)
endfunction()
