#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make run`: the main job on the built-in default scenario.
set -euo pipefail
BUILD=${1:-build}
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
cd "$(dirname "$0")/.."
if [ -x "$BUILD/bin/armprof-vp" ]; then
  exec "$BUILD/bin/armprof-vp"
fi
exec "$BUILD/bin/armprof-run"
