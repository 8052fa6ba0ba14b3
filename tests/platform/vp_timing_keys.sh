#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# vp_timing_keys.sh: armprof-vp rejects bad memory-timing (and pe_threads) scenario keys with the file and line (CTest checks the output).
# usage: vp_timing_keys.sh ARMPROF_VP WORK_DIR
vp=$1
dir=$2
mkdir -p "$dir"
n=0
bad() {
    n=$((n + 1))
    printf "$1" > "$dir/bad$n.yaml"
    out=$("$vp" "$dir/bad$n.yaml" --quiet --out "$dir/out" 2>&1)
    echo "$out exit=$?" | sed "s|$dir/||"
}
bad 'timing: fast\n'
bad 'spe:\n  interval: 512\n  write_bytes: 24\n'
bad 'spe:\n  max_outstanding_writes: 0\n'
bad 'memory:\n  latency_ns: 20\n  write_latency_ns: -5\n'
bad 'bus:\n  background_traffic:\n    share: 1.5\n'
bad 'bus:\n  background_traffic:\n    share: 0.5\n    burst_bytes: 0\n'
bad 'bus:\n  background_traffic:\n    burst: 64\n'
bad 'bus:\n  bytes_per_ns: 0\n  background_traffic:\n    share: 0.5\n'
bad 'pe_threads: sometimes\n'
