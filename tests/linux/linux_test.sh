#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The `linux` tests: Linux's own arm_spe_pmu driver and perf, in a Debian arm64 guest on the
# SPE-enabled qemu-system-aarch64, drive armprof's SPU (docs/linux.md).
#
#   tests/linux/linux_test.sh CASE BUILD PROGS
#
# CASE is one of: perf_report, small_aux, user_only, el2, regs, refusals. BUILD is the build
# folder (its linux.env comes from `make linux`), PROGS the folder of the cross-compiled guest
# programs. Exit 77 (CTest: skipped) when `make linux` has not been run.
set -euo pipefail
case_=$1
build=$(cd "$2" && pwd)
progs=$(cd "$3" && pwd)
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
    # One vCPU: perf and the program share it, so each time perf wakes to copy the buffer out the
    # program is scheduled out and back in, and the driver restarts profiling with the space perf
    # freed. (On two vCPUs a busy host can leave the buffer full: the driver marks the AUX data
    # truncated and profiling stays off until the program is next scheduled in.)
    perf_run --raw --mmap-pages 8 --vcpus 1 -- "$progs/spe_hot" 1048576 300
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
  el2)
    # virtualization=on: Linux runs at EL2 with VHE (HCR_EL2.E2H = 1), its PMSCR_EL1 accesses are
    # PMSCR_EL2's and the Profiling Buffer belongs to the EL2&0 regime (seed 000 Table D17-4)
    perf_run --raw --el2 --plugin-args "regs_log=$out/regs.log" -- "$progs/spe_hot"
    python3 "$check" probe "$out" 64 1
    python3 "$check" top "$out" armprof_hot_loop
    python3 "$check" records "$out"
    python3 "$check" el2 "$out"
    ;;
  regs)
    # EL1: a test module reads every SPE register after reset and writes all-ones and zero to the
    # read/write ones, before arm_spe_pmu is loaded; EL0: a program tries MRS and MSR of each.
    krel=$(cat "$LINUX_GUEST/kernel-release")
    kdir=$LINUX_GUEST/kbuild/usr/src/linux-headers-$krel
    [ -d "$kdir" ] || { echo "FAIL: no kernel headers in $LINUX_GUEST/kbuild (make linux)"; exit 1; }
    mkdir -p "$out/module" "$out/job"
    cp "$top/tests/linux/spe_regs_el1/spe_regs_el1.c" "$top/tests/linux/spe_regs_el1/Kbuild" "$out/module/"
    make -s -C "$kdir" M="$out/module" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
         DEB_BUILD_ARCH=amd64 DEB_HOST_ARCH=arm64 DEB_HOST_GNU_TYPE=aarch64-linux-gnu modules \
         >"$out/module/build.log" 2>&1 || { tail -20 "$out/module/build.log"; echo "FAIL: module build"; exit 1; }
    cp "$out/module/spe_regs_el1.ko" "$progs/el0_regs" "$out/job/"
    cat >"$out/job/run.sh" <<'JOB'
#!/bin/sh
insmod /job/spe_regs_el1.ko
insmod /lib/modules/arm_spe_pmu.ko
/job/el0_regs >/out/el0_regs.txt 2>&1
echo $? >/out/el0_regs.rc
dmesg >/out/dmesg.txt
JOB
    "$top/scripts/linux-run.sh" --build "$build" --out "$out" \
      --plugin-args "regs_log=$out/regs.log,max_record=128,align=64,min_interval=1024" "$out/job"
    python3 "$check" el1 "$out"
    python3 "$check" el0 "$out"
    python3 "$check" probe "$out" 128 64
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
