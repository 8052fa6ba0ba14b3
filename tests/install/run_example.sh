#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# run_example.sh: builds and runs the installed examples/integration against the installed armprof only: CMake with find_package or pkg-config, or its Makefile (pkg-config and an rpath; without the rpath the program cannot start).
# usage: run_example.sh cmake|pkgconfig|make PREFIX SOURCE_TREE BUILD_TREE
set -euo pipefail
mode=$1 prefix=$2 src_tree=$3 build_tree=$4
ex=$prefix/share/doc/armprof/examples/integration
[ -f "$ex/CMakeLists.txt" ] || { echo "FAIL: $ex/CMakeLists.txt is not installed" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/armprof-example-$mode.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Nothing from the environment may point at the source or build tree.
unset armprof_DIR CMAKE_PREFIX_PATH CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH LIBRARY_PATH LD_LIBRARY_PATH PKG_CONFIG_PATH
args=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
[ "$mode" = cmake ] || export PKG_CONFIG_PATH=$(dirname "$(find "$prefix" -name armprof.pc | head -1)")
case $mode in
  cmake) args+=(-DCMAKE_PREFIX_PATH="$prefix") ;;
  pkgconfig) args+=(-DUSE_PKG_CONFIG=ON) ;;
esac
if [ "$mode" = make ]; then
  # The Makefile builds in the folder it is in: a copy. First c_host without the rpath: the
  # loader cannot find libarmprof.so in the prefix, as the Makefile's comment says.
  # (Unless the loader knows a libarmprof of its own, e.g. from the .deb in /usr.)
  cp -r "$ex" "$work/norpath"
  make -C "$work/norpath" c_host RPATH= >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
  if /sbin/ldconfig -p | grep -q 'libarmprof\.so\.'; then
    echo "note: the loader finds a libarmprof outside $prefix; c_host without an rpath is not tried"
  elif "$work/norpath/c_host" >"$work/norpath.log" 2>&1 || ! grep -q "cannot open shared object file" "$work/norpath.log"; then
    cat "$work/norpath.log"
    echo "FAIL: c_host linked without an rpath started, or failed for another reason" >&2
    exit 1
  fi
  cp -r "$ex" "$work/build"
  make -C "$work/build" >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
else
  cmake -S "$ex" -B "$work/build" "${args[@]}" >"$work/configure.log" || { cat "$work/configure.log"; exit 1; }
  cmake --build "$work/build" -j2 >"$work/build.log" || { cat "$work/build.log"; exit 1; }
fi

# What was used: the installed package and libraries, nothing of the trees.
if [ "$mode" = cmake ]; then
  dir=$(sed -n 's/^armprof_DIR:PATH=//p' "$work/build/CMakeCache.txt")
  case $dir in "$prefix"/*) ;; *) echo "FAIL: armprof_DIR is '$dir', not under $prefix" >&2; exit 1 ;; esac
fi
if grep -rlF -e "$src_tree/" -e "$build_tree/" "$work/build" --include='*.txt' --include='*.make' --include='*.cmake' \
     --include='*.d' --include='link.txt'; then
  echo "FAIL: the example's build names the source or build tree (files above)" >&2
  exit 1
fi
for exe in sc_integration foreign_soc c_host; do
  libs=$(ldd "$work/build/$exe" | awk '/libarmprof/ {print $3}')
  [ -n "$libs" ] || { echo "FAIL: $exe does not link libarmprof" >&2; exit 1; }
  for l in $libs; do
    case $(readlink -f "$l") in "$(readlink -f "$prefix")"/*) ;; *) echo "FAIL: $exe loads $l, not from $prefix" >&2; exit 1 ;; esac
  done
done

# The examples check themselves (PMBIRQ at buffer full with PMBSR_EL1.S and BSC = 1; every record
# written reaches the foreign SoC's driver and decodes; records written), with LD_LIBRARY_PATH unset.
SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$work/build/sc_integration"
SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$work/build/foreign_soc"
"$work/build/c_host"
echo "OK: examples/integration built with $mode against $prefix and ran"
