#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make bench`: runs every benchmark program (build/bin/bench-*), each printing its figures
# side by side with its own yardstick measured in the same run.
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
# Whole-process pairs, A B A B ..., with farm-bench where the machine has it (the figure to
# quote is the median A/B cpu ratio; pairing keeps it meaningful on a shared machine).
if command -v farm-bench >/dev/null 2>&1; then
  echo "== farm-bench: SPU buffer writes through SMMU+DMI+quantum keeper (A) vs a bare TLM DMI loop (B)"
  echo "   (A/B cpu is the inverse of the rate ratio; bench-platform prints the in-process ratio)"
  farm-bench -n 5 --vs "$BUILD/bin/bench-platform --loop bare --writes 20000000" -- \
    "$BUILD/bin/bench-platform" --loop port --writes 20000000 2>&1 | grep -E "^(A =|B =|A/B|runs)" || status=1
  echo
fi
exit $status
