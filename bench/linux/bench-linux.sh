#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench-linux: what FEAT_SPE costs the full-system guest (docs/linux.md, "Speed"). The same guest
# and workload boot in three configurations, in alternating order within each round:
#   plain      -cpu max, no plugin (the patched QEMU without spe=on behaves as unpatched QEMU)
#   idle       -cpu max,spe=on with armprof's SPE backend, arm_spe_pmu loaded, no perf session
#   profiling  the same, the workload under perf record -e arm_spe_0/.../ -c 1024
# The workload times its hot function inside the guest (CLOCK_MONOTONIC around it, so perf's own
# start and end are not in it); the figures are
# idle/plain (target <= 1.1) and profiling/plain (target <= 3), min/median/max over the rounds.
#   bench-linux [--rounds N] [--build DIR] [--plugin-args A]
#   (ARMPROF_BENCH_LINUX_ARGS: the workload's arguments; --plugin-args: the SPU's options, e.g.
#   cache=all to measure what warming the whole cache model with every access costs)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=@PROJECT_SOURCE_DIR@
build=@CMAKE_BINARY_DIR@
rounds=5
pargs=""
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --plugin-args) pargs=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    -h|--help) sed -n "3,13p" "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-linux: unknown option '$1'" >&2; exit 2 ;;
  esac
done
if [ ! -f "$build/linux.env" ]; then
  echo "bench-linux: skipped: run 'make linux' first (no $build/linux.env)"
  exit 0
fi
prog=$build/tests/linux/progs/spe_hot
[ -x "$prog" ] || { echo "bench-linux: $prog is not built" >&2; exit 1; }
args=${ARMPROF_BENCH_LINUX_ARGS:-"4194304 1000"}
work=$(mktemp -d "${TMPDIR:-/tmp}/armprof-bench-linux.XXXXXX")
trap 'rm -rf "$work"' EXIT

job() {   # $1: config name; writes $work/job-$1
  local d=$work/job-$1
  mkdir -p "$d"
  cp "$prog" "$d/spe_hot"
  {
    echo '#!/bin/sh'
    [ "$1" != plain ] && echo 'insmod /lib/modules/arm_spe_pmu.ko'
    echo 'echo -1 >/proc/sys/kernel/perf_event_paranoid'
    if [ "$1" = profiling ]; then
      echo "perf record -e arm_spe_0/ts_enable=1,pa_enable=1,load_filter=1,store_filter=1,branch_filter=1/ -c 1024 -o /tmp/perf.data -- /job/spe_hot $args >/out/prog.out 2>/out/record.log"
    else
      echo "/job/spe_hot $args >/out/prog.out"
    fi
  } >"$d/run.sh"
  chmod +x "$d/run.sh"
}
for c in plain idle profiling; do job $c; done

run() {   # $1: config; prints the workload's seconds
  local o=$work/out-$1 extra=()
  rm -rf "$o"
  if [ "$1" = plain ]; then extra=(--no-spe); elif [ -n "$pargs" ]; then extra=(--plugin-args "$pargs"); fi
  "$src/scripts/linux-run.sh" --build "$build" --out "$o" "${extra[@]}" "$work/job-$1" >/dev/null
  awk '/^hot_loop_ns / { printf "%.3f\n", $2 / 1e9; found = 1 } END { exit !found }' "$o/prog.out" \
    || { echo "bench-linux: no time from the $1 run (see $o/console.log)" >&2; exit 1; }
}

declare -A t
configs=(plain idle profiling)
echo "bench-linux: $rounds rounds of plain, idle and profiling boots (workload: spe_hot $args${pargs:+; SPU options $pargs})"
for ((r = 0; r < rounds; r++)); do
  line="  round $((r + 1)):"
  for ((i = 0; i < 3; i++)); do
    c=${configs[$(((i + r) % 3))]}
    s=$(run "$c")
    t[$c,$r]=$s
    line+=" $c ${s}s"
  done
  echo "$line"
done
stats() {   # $1: config; prints min/median/max of t[$1,r]/t[plain,r]
  for ((r = 0; r < rounds; r++)); do
    awk -v a="${t[$1,$r]}" -v b="${t[plain,$r]}" 'BEGIN { printf "%.3f\n", a / b }'
  done | sort -n | awk '{ v[NR] = $1 } END { printf "%.2f / %.2f / %.2f", v[1], v[int((NR + 1) / 2)], v[NR] }'
}
echo "  idle/plain      min/median/max $(stats idle)   (target <= 1.1)"
echo "  profiling/plain min/median/max $(stats profiling)   (target <= 3)"
