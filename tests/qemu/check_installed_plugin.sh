#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# check_installed_plugin.sh: `cmake --install` puts libarmprof-qemu.so where docs/qemu.md says (pkg-config's libdir of armprof, then armprof/), it runs from there under qemu-aarch64, and armprof-cosim and both manual pages are installed.
# usage: check_installed_plugin.sh BUILD_TREE QEMU PROGRAM
set -euo pipefail
build=$1 qemu=$2 prog=$3
prefix=$(mktemp -d "${TMPDIR:-/tmp}/armprof-qemu-install.XXXXXX")
trap 'rm -rf "$prefix"' EXIT
unset PKG_CONFIG_PATH LD_LIBRARY_PATH
cmake --install "$build" --prefix "$prefix" >"$prefix/install.log" 2>&1 || { cat "$prefix/install.log"; exit 1; }
pc=$(find "$prefix" -name armprof.pc | head -1)
[ -n "$pc" ] || { echo "FAIL: armprof.pc is not installed" >&2; exit 1; }
libdir=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --variable=libdir armprof)
plugin=$libdir/armprof/libarmprof-qemu.so
[ -f "$plugin" ] || { echo "FAIL: $plugin (pkg-config libdir + armprof/) is not installed; found: $(find "$prefix" -name 'libarmprof-qemu*')" >&2; exit 1; }
"$qemu" -plugin "$plugin,interval=1024,out=$prefix/prof" "$prog" 16384 20 >/dev/null 2>"$prefix/err" ||
  { cat "$prefix/err"; echo "FAIL: qemu-aarch64 with the installed plugin" >&2; exit 1; }
[ -s "$prefix/prof/perf.data" ] || { echo "FAIL: the installed plugin wrote no perf.data" >&2; exit 1; }
grep -q "records written" "$prefix/err" || { cat "$prefix/err"; exit 1; }
for m in man7/armprof-qemu.7 man1/armprof-cosim.1; do
  f=$(find "$prefix" -path "*/man/$m*" | head -1)
  [ -n "$f" ] || { echo "FAIL: manual page $m is not installed" >&2; exit 1; }
  man -l "$f" >/dev/null 2>&1 || { echo "FAIL: man cannot format $f" >&2; exit 1; }
done
[ -x "$prefix/bin/armprof-cosim" ] || { echo "FAIL: armprof-cosim is not installed in bin" >&2; exit 1; }
"$prefix/bin/armprof-cosim" --help | grep -q "usage: armprof-cosim" || { echo "FAIL: the installed armprof-cosim --help" >&2; exit 1; }
echo "OK: $plugin runs under qemu-aarch64; armprof-qemu.7, armprof-cosim and armprof-cosim.1 installed"
