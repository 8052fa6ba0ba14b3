#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Boots the Linux guest (scripts/linux-guest.sh) on the SPE-enabled qemu-system-aarch64
# (scripts/qemu-build.sh) with armprof's SPU behind every vCPU, and runs a job in it.
#
#   scripts/linux-run.sh --out DIR [options] JOBDIR
#
# JOBDIR's files appear in the guest as /job; the guest runs /job/run.sh as root, then powers off.
# Whatever the job leaves in /out comes back to DIR, with the console log (DIR/console.log) and the
# model's summary (DIR/model/armprof-qemu-system.json).
#   --vcpus N          vCPUs (default 2)
#   --mem MB           guest memory (default 1024)
#   --plugin-args A    extra key=value options for libarmprof-qemu-system.so, comma-separated
#   --cpu MODEL        QEMU CPU model (default max); spe=on is added
#   --no-spe           boot without SPE and without the plugin (a yardstick)
#   --append ARGS      more kernel command-line arguments
#   --timeout S        stop the guest after S seconds (default 600): exit status 124
#   --disk-mb N        size of the disk that carries /out back (default 512)
#   --shell            after the job, a shell on the console (exit it to power off)
#   --build DIR        the build folder whose linux.env names QEMU, the guest and the plugin
#                      (default: build); ARMPROF_QEMU, ARMPROF_GUEST, ARMPROF_SPE_PLUGIN override
# Exit status: 0 when the guest ran the job and powered off, 2 for a wrong option, 1 otherwise.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out="" vcpus=2 mem=1024 pargs="" cpu=max spe=1 append="" tmo=600 disk_mb=512 shell=0 build=$top/build job=""
usage() { sed -n '3,24p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "linux-run: $*" >&2; exit 1; }
bad() { echo "linux-run: $*" >&2; echo "linux-run: see --help" >&2; exit 2; }
need_arg() { [ $# -ge 2 ] || bad "option '$1' needs a value"; }
posint() { [[ $2 =~ ^[0-9]+$ ]] && [ "$2" -ge "${3:-1}" ] || bad "option '$1': '$2' is not a whole number >= ${3:-1}"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --out) need_arg "$@"; out=$2; shift 2 ;;
    --vcpus) need_arg "$@"; posint "$1" "$2"; [ "$2" -le 8 ] || bad "option '--vcpus': at most 8"; vcpus=$2; shift 2 ;;
    --mem) need_arg "$@"; posint "$1" "$2" 256; mem=$2; shift 2 ;;
    --plugin-args) need_arg "$@"; pargs=$2; shift 2 ;;
    --cpu) need_arg "$@"; cpu=$2; shift 2 ;;
    --no-spe) spe=0; shift ;;
    --append) need_arg "$@"; append=$2; shift 2 ;;
    --timeout) need_arg "$@"; posint "$1" "$2"; tmo=$2; shift 2 ;;
    --disk-mb) need_arg "$@"; posint "$1" "$2" 16; disk_mb=$2; shift 2 ;;
    --shell) shell=1; shift ;;
    --build) need_arg "$@"; build=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) bad "unknown option '$1'" ;;
    *) [ -z "$job" ] || bad "one JOBDIR only ('$job', then '$1')"; job=$1; shift ;;
  esac
done
[ -n "$out" ] || bad "--out DIR is required"
[ -n "$job" ] || bad "JOBDIR is required"
[ -f "$job/run.sh" ] || bad "$job/run.sh does not exist"

env_file=$build/linux.env
if [ -f "$env_file" ]; then
  # shellcheck disable=SC1090
  . "$env_file"
fi
qemu=${ARMPROF_QEMU:-${LINUX_QEMU:-}}
guest=${ARMPROF_GUEST:-${LINUX_GUEST:-}}
plugin=${ARMPROF_SPE_PLUGIN:-${LINUX_PLUGIN:-}}
[ -n "$qemu" ] && [ -x "$qemu" ] || die "no SPE-enabled qemu-system-aarch64: run 'make linux' first ($env_file)"
[ -n "$guest" ] && [ -f "$guest/base.cpio" ] || die "no guest image: run 'make linux' first ($env_file)"
[ $spe = 0 ] || [ -f "$plugin" ] || die "no libarmprof-qemu-system.so: build the project ('make linux')"

mkdir -p "$out/model"
work=$(mktemp -d "${TMPDIR:-/tmp}/armprof-linux.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/root/job"
cp -r "$job"/. "$work/root/job/"
chmod +x "$work/root/job/run.sh"
if [ $shell = 1 ]; then
  printf '#!/bin/sh\necho "armprof-guest: a shell (exit to power off)"\nsetsid cttyhack sh\n' >"$work/root/job/shell.sh"
else
  printf '#!/bin/sh\n' >"$work/root/job/shell.sh"
fi
chmod +x "$work/root/job/shell.sh"
( cd "$work/root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet ) >"$work/job.cpio"
cat "$guest/base.cpio" "$work/job.cpio" >"$work/initrd.cpio"
truncate -s "${disk_mb}M" "$work/out.img"

cpuarg=$cpu plug=()
if [ $spe = 1 ]; then
  cpuarg="$cpu,spe=on"
  plug=(-plugin "$plugin,out=$out/model${pargs:+,$pargs}")
fi
cmd=("$qemu" -M virt -cpu "$cpuarg" -smp "$vcpus" -m "$mem" -nographic -nic none -no-reboot
     "${plug[@]}"
     -kernel "$guest/Image" -initrd "$work/initrd.cpio"
     -append "console=ttyAMA0 rdinit=/init quiet $append"
     -drive "file=$work/out.img,format=raw,if=none,id=out" -device virtio-blk-device,drive=out)
rc=0
if [ $shell = 1 ]; then
  "${cmd[@]}" || rc=$?
else
  timeout --foreground "$tmo" "${cmd[@]}" </dev/null >"$out/console.log" 2>&1 || rc=$?
fi
if [ $rc = 124 ]; then
  echo "linux-run: the guest did not finish within $tmo s (console: $out/console.log)" >&2
  exit 124
fi
if [ $rc != 0 ]; then
  tail -20 "$out/console.log" >&2 || true
  die "qemu-system-aarch64 exited with status $rc (console: $out/console.log)"
fi
if ! tar -xf "$work/out.img" -C "$out" 2>"$work/tar.err"; then
  tail -20 "$out/console.log" >&2 || true
  die "the guest left no /out archive ($(head -1 "$work/tar.err")); console: $out/console.log"
fi
exit 0
