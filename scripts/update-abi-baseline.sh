#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# update-abi-baseline.sh: rewrites abi/libarmprof.abi (the ABI baseline that the test install_abi compares libarmprof.so with) from a fresh build; run it when the C ABI changes on purpose, and commit the result.
# usage: scripts/update-abi-baseline.sh [BUILD_DIR]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" --target armprof_shared -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
lib=$build/lib/libarmprof.so
command -v abidw >/dev/null || { echo "update-abi-baseline: abidw not found (apt-get install abigail-tools)" >&2; exit 1; }
mkdir -p "$root/abi"
abidw --headers-dir "$root/capi/armprof" --drop-private-types --no-corpus-path --short-locs \
  --no-comp-dir-path --out-file "$root/abi/libarmprof.abi" "$lib"
soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
echo "update-abi-baseline: abi/libarmprof.abi now describes $soname ($(grep -c '<elf-symbol ' "$root/abi/libarmprof.abi") symbols)."
echo "update-abi-baseline: if a function or type changed incompatibly, bump ARMPROF_VERSION_MINOR (0.x) or MAJOR in capi/armprof/version.h."
