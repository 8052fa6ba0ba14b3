#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# vp_key_sweep.sh: every armprof-vp scenario key fed a wrong type, a negative, zero and 2^64: exit 2 with FILE:LINE:COLUMN and the key named, or (where the value is valid for the key) accepted.
# usage: vp_key_sweep.sh ARMPROF_VP WORK_DIR
set -u
vp=${1:?usage: vp_key_sweep.sh ARMPROF_VP WORK_DIR}
dir=${2:?usage: vp_key_sweep.sh ARMPROF_VP WORK_DIR}
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 1
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1

# KEY KIND [ZERO_OK]: KIND int, real, bool, enum, text (any scalar is a valid name), file; zero_ok:
# 0 is a valid value of the key (then armprof-vp --check must accept it).
keys='
name text
pes int
ops int
ops_per_cycle int
clock_ns real
quantum_ns real
dmi bool
pe_threads bool
timing enum
seed int zero_ok
spe.interval int
spe.rnd bool
spe.buffer_bytes int
spe.irq_latency int zero_ok
spe.ts bool
spe.pa bool
spe.cx bool
spe.restart_after_fault bool
spe.el2_pmscr bool
spe.hw_flag_update bool
spe.ppi int
spe.sampler enum
spe.max_inflight int
spe.fifo_bytes int
spe.drain_bytes_per_cycle int
spe.write_bytes int zero_ok
spe.max_outstanding_writes int
trbe.enabled bool
trbe.buffer_bytes int
trbe.bytes int
trbe.mean_burst int
trbe.bytes_per_cycle int
trbe.trigger_every int zero_ok
trbe.trigger_count int zero_ok
trbe.irq_latency int zero_ok
trbe.align int zero_ok
trbe.ppi int
trbe.tm enum
workload.trace file
workload.repeat int
pmu.enabled bool
pmu.ppi int
smmu.stage2 bool
bus.latency_ns real zero_ok
bus.bytes_per_ns real zero_ok
bus.background_traffic.share real zero_ok
bus.background_traffic.burst_bytes int
bus.background_traffic.seed int zero_ok
memory.latency_ns real zero_ok
memory.write_latency_ns real zero_ok
faults.pe int zero_ok
faults.kind enum
faults.stage int
faults.level int zero_ok
faults.offset int zero_ok
faults.length int
faults.async bool
faults.count int
faults.unit enum
'

# The scenario setting KEY to VALUE (a YAML value written as is), nested as the key says; a
# fault's other keys are a valid unmap of PE 0.
scenario() {
    local key=$1 val=$2
    case "$key" in
    faults.kind) printf 'faults:\n  - kind: %s\n' "$val" ;;
    faults.*) printf 'faults:\n  - kind: unmap\n    %s: %s\n' "${key#faults.}" "$val" ;;
    workload.repeat) printf 'workload:\n  trace: t.trc\n  repeat: %s\n' "$val" ;;
    *.*.*) IFS=. read -r a b c <<<"$key"; printf '%s:\n  %s:\n    %s: %s\n' "$a" "$b" "$c" "$val" ;;
    *.*) IFS=. read -r a b <<<"$key"; printf '%s:\n  %s: %s\n' "$a" "$b" "$val" ;;
    *) printf '%s: %s\n' "$key" "$val" ;;
    esac
}
printf 'ARMPROF-TRACE 1\n0x400000 other 0 1 1\n' > t.trc

fails=0 n=0
while read -r key kind zero_ok; do
    [ -n "$key" ] || continue
    shown=${key/faults./faults[0].}
    for probe in wrong_type negative zero two_to_64; do
        case $probe in
        wrong_type) val='{ x: 1 }' ;;
        negative) val=-1 ;;
        zero) val=0 ;;
        two_to_64) val=18446744073709551616 ;;
        esac
        # Values that are valid for the key: any scalar is a name; 0 where zero_ok; false for a flag.
        valid=0
        [ "$kind" = text ] && [ $probe != wrong_type ] && valid=1
        [ $probe = zero ] && { [ "$zero_ok" = zero_ok ] || [ "$kind" = bool ]; } && valid=1
        f="${key//./_}-$probe.yaml"
        scenario "$key" "$val" > "$f"
        out=$(timeout 60 "$vp" "$f" --check 2>&1)
        st=$?
        n=$((n + 1))
        if [ $valid = 1 ]; then
            [ $st -eq 0 ] || { echo "FAIL $key = $val: exit $st, a valid value: $out"; fails=$((fails + 1)); }
            continue
        fi
        esc=${shown//./\\.}
        esc=${esc//\[/\\[}
        esc=${esc//]/\\]}
        if [ $st -ne 2 ] || ! grep -qE "^armprof-vp: $f:[0-9]+:[0-9]+: $esc(: |\[)" <<<"$out"; then
            echo "FAIL $key = $val: exit $st (expected 2 and '$f:LINE:COLUMN: $shown: ...'): $out"
            fails=$((fails + 1))
        fi
    done
done <<<"$keys"
echo "vp_key_sweep: $n probes, $fails failed"
[ "$fails" -eq 0 ]
