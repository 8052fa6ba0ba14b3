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
exit $status
