#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make bench`: runs every benchmark program (build/bin/bench-*), each printing its figures
# side by side with its own yardstick measured in the same run, as ratios beside their targets.
set -uo pipefail
BUILD=${1:-build}
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
cd "$(dirname "$0")/.."
status=0
for b in "$BUILD"/bin/bench-*; do
  [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  "$b" || status=1
  echo
done
# Whole-process pairs with Debian's hyperfine (scripts/install-deps.sh), one line each below.
if command -v hyperfine >/dev/null 2>&1 && [ -x "$BUILD/bin/bench-platform" ]; then
  echo "== hyperfine: SPU buffer writes through SMMU+DMI+quantum keeper (port) vs a bare TLM DMI loop (bare)"
  echo "   (bench-platform prints the in-process ratio, target >= 0.5; here: wall time mean, min .. max of 5 runs each,"
  echo "   and how many times faster bare ran)"
  hyperfine -N -w 1 -r 5 --style basic \
    "$BUILD/bin/bench-platform --loop port --writes 20000000" \
    "$BUILD/bin/bench-platform --loop bare --writes 20000000" 2>&1 | grep -E "Benchmark|±|Range|times faster" || status=1
  echo
fi
exit $status
