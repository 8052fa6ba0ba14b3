#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# check_package.sh: the installed CMake package's version file and components: COMPONENTS C static without SystemC, the static library linked and run, a too-new version refused, an unknown component refused.
# usage: check_package.sh PREFIX
set -euo pipefail
prefix=$1
ex=$prefix/share/doc/armprof/examples/integration
work=$(mktemp -d "${TMPDIR:-/tmp}/armprof-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
unset armprof_DIR CMAKE_PREFIX_PATH PKG_CONFIG_PATH LD_LIBRARY_PATH

# 1. C and static only: no armprof::systemc, and c_host linked with libarmprof.a.
mkdir -p "$work/static"
cp "$ex/c_host.c" "$work/static/"
cat >"$work/static/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(static_host C)
find_package(armprof 0.1 CONFIG REQUIRED COMPONENTS C static)
if(TARGET armprof::systemc)
  message(FATAL_ERROR "COMPONENTS C static loaded armprof::systemc")
endif()
if(NOT armprof_C_FOUND OR NOT armprof_static_FOUND)
  message(FATAL_ERROR "components C / static not reported found")
endif()
add_executable(c_host c_host.c)
target_link_libraries(c_host PRIVATE armprof::armprof_static)
CMAKE
cmake -S "$work/static" -B "$work/static/b" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF >"$work/log" 2>&1 ||
  { cat "$work/log"; echo "FAIL: COMPONENTS C static" >&2; exit 1; }
cmake --build "$work/static/b" >"$work/log" 2>&1 || { cat "$work/log"; exit 1; }
if ldd "$work/static/b/c_host" | grep -q libarmprof; then
  echo "FAIL: c_host linked with armprof::armprof_static loads a shared libarmprof" >&2
  exit 1
fi
"$work/static/b/c_host"

# 2. Refusals: a newer minor version (0.x: SameMinorVersion) and an unknown required component.
# (A language enabled: CMake searches lib/<multiarch>/cmake only when it knows the architecture.)
refuse() { # NAME FIND_PACKAGE_ARGS EXPECTED_MESSAGE
  mkdir -p "$work/$1"
  printf 'cmake_minimum_required(VERSION 3.20)\nproject(%s C)\nfind_package(%s)\n' "$1" "$2" >"$work/$1/CMakeLists.txt"
  if cmake -S "$work/$1" -B "$work/$1/b" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF >"$work/log" 2>&1; then
    echo "FAIL: find_package($2) was accepted" >&2
    exit 1
  fi
  grep -q "$3" "$work/log" || { cat "$work/log"; echo "FAIL: find_package($2) refused without '$3'" >&2; exit 1; }
}
major=$(sed -n 's/^#define ARMPROF_VERSION_MAJOR \([0-9]*\)/\1/p' "$prefix/include/armprof/version.h")
minor=$(sed -n 's/^#define ARMPROF_VERSION_MINOR \([0-9]*\)/\1/p' "$prefix/include/armprof/version.h")
refuse newer "armprof $major.$((minor + 1)) CONFIG REQUIRED" "compatible with requested version"
refuse bogus "armprof CONFIG REQUIRED COMPONENTS bogus" "armprof has no component 'bogus'"
echo "OK: COMPONENTS C static (static c_host ran), $major.$((minor + 1)) and an unknown component refused"
