#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make_debs.sh: builds the .deb packages with CPack, as `make package` does, into a folder of their own (the fixture of install_deb and install_lintian).
# usage: make_debs.sh BUILD_TREE OUT_DIR
set -euo pipefail
build=$1 out=$2
rm -rf "$out"
mkdir -p "$out"
if ! cpack --config "$build/CPackConfig.cmake" -G DEB -B "$out" >"$out/cpack.log" 2>&1; then
  cat "$out/cpack.log"
  echo "FAIL: cpack -G DEB" >&2
  exit 1
fi
rm -rf "$out/_CPack_Packages"
ls "$out"/*.deb
