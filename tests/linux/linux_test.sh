#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The `linux` tests: Linux's own arm_spe_pmu driver and perf, in a Debian arm64 guest on the
# SPE-enabled qemu-system-aarch64, drive armprof's SPU (docs/linux.md).
#
#   tests/linux/linux_test.sh CASE BUILD PROGS
#
# CASE is one of: perf_report, small_aux, user_only, el0_regs, refusals. BUILD is the build
# folder (its linux.env comes from `make linux`), PROGS the folder of the cross-compiled guest
# programs. Exit 77 (CTest: skipped) when `make linux` has not been run.
set -euo pipefail
case_=$1 build=$2 progs=$3
top=$(cd "$(dirname "$0")/../.." && pwd)
check=$top/tests/linux/check_linux.py
if [ ! -f "$build/linux.env" ]; then
  echo "SKIPPED: $build/linux.env is missing: run 'make linux' (builds the SPE-enabled QEMU and the guest) to run the linux tests"
  exit 77
fi
. "$build/linux.env"
out=$build/tests/linux/$case_
rm -rf "$out"
mkdir -p "$out"
perf_run() { "$top/scripts/linux-perf.sh" --build "$build" --out "$out" "$@"; }

case $case_ in
  perf_report)
    # The issue's command line, as root (kernel samples included), MaxSize 128 B and Align 64 B
    # so that the probe message shows values other than the defaults.
    perf_run --raw --plugin-args max_record=128,align=64 -- "$progs/spe_hot"
    python3 "$check" probe "$out" 128 64
    python3 "$check" top "$out" armprof_hot_loop
    python3 "$check" records "$out"
    python3 "$check" kernel "$out" present
    ;;
  small_aux)
    # -m ,8: an 8-page AUX buffer fills many times; the driver services every buffer-full event.
    perf_run --raw --mmap-pages 8 -- "$progs/spe_hot" 1048576 120
    python3 "$check" records "$out"
    python3 "$check" buffer_full "$out" 3
    ;;
  user_only)
    # exclude_kernel=1 (perf's u modifier): PMSCR_EL1.E1SPE = 0, so no EL1 operation is sampled.
    perf_run --raw --user-only -- "$progs/spe_hot"
    python3 "$check" top "$out" armprof_hot_loop
    python3 "$check" records "$out"
    python3 "$check" kernel "$out" absent
    ;;
  el0_regs)
    job=$out/job
    mkdir -p "$job"
    cp "$progs/el0_regs" "$job/"
    printf '#!/bin/sh\ninsmod /lib/modules/arm_spe_pmu.ko\n/job/el0_regs >/out/el0_regs.txt 2>&1\necho $? >/out/el0_regs.rc\ndmesg >/out/dmesg.txt\n' >"$job/run.sh"
    "$top/scripts/linux-run.sh" --build "$build" --out "$out" --plugin-args "regs_log=$out/regs.log" "$job"
    python3 "$check" el0 "$out"
    ;;
  refusals)
    python3 "$check" refusals "$out" "$LINUX_QEMU" "$LINUX_PLUGIN" "$LINUX_GUEST"
    ;;
  *)
    echo "linux_test: unknown case '$case_'" >&2
    exit 2
    ;;
esac
echo "PASS: $case_"
