#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make fuzz`: runs the SPE decoder fuzz target (libFuzzer, ASan + UBSan) for minutes over a
# corpus kept in the build tree. FUZZ_SECONDS (default 300) sets the time; crashes are written
# to BUILD/tests/fuzz-artifacts/ and make the script fail.
set -euo pipefail
BUILD=${1:-build}
SECONDS_TO_RUN=${FUZZ_SECONDS:-300}
cd "$(dirname "$0")/.."
cmake --build "$BUILD" --target fuzz_spe_decode spe_fuzz_corpus -j2 >/dev/null || {
  echo "fuzz.sh: cannot build fuzz_spe_decode (needs clang and libclang-rt-14-dev)" >&2
  exit 1
}
T="$BUILD/tests"
mkdir -p "$T/fuzz-spe-corpus" "$T/fuzz-artifacts"
echo "fuzz.sh: fuzz_spe_decode for ${SECONDS_TO_RUN}s, corpus $T/fuzz-spe-corpus"
"$T/fuzz_spe_decode" -max_total_time="$SECONDS_TO_RUN" -max_len=8192 -timeout=10 \
  -print_final_stats=1 -artifact_prefix="$T/fuzz-artifacts/" \
  "$T/fuzz-spe-corpus" "$T/fuzz-spe-seeds"
