#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# vp_bad_input.sh: armprof-vp on bad scenarios, options and outputs: each a clear message (file:line:column and the key, the option, the file with its reason) and the documented exit status, never a crash, a hang or a silently changed value.
# usage: vp_bad_input.sh ARMPROF_VP WORK_DIR
set -u
vp=${1:?usage: vp_bad_input.sh ARMPROF_VP WORK_DIR}
dir=${2:?usage: vp_bad_input.sh ARMPROF_VP WORK_DIR}
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 1
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
fails=0 n=0

# check NAME WANT_STATUS REGEX OUTPUT STATUS: the status, the message, and nothing of a crash,
# of SystemC's report machinery, of libfyaml's own diagnostics or of the project's sources.
check() {
    local name=$1 want=$2 re=$3 out=$4 st=$5
    n=$((n + 1))
    local why=""
    [ "$st" -eq "$want" ] || why="exit $st, expected $want"
    [ -z "$why" ] && ! grep -qE -- "$re" <<<"$out" && why="no message matching /$re/"
    [ -z "$why" ] && grep -qE 'In file:|\.cpp|\.c:[0-9]|\[ERR\]|uncaught exception|Error: \(' <<<"$out" &&
        why="SystemC, libfyaml or source-path noise in the message"
    [ -z "$why" ] && LC_ALL=C grep -q '[^[:print:][:space:]]' <<<"$out" && why="raw non-printable bytes in the message"
    if [ -n "$why" ]; then
        echo "FAIL $name: $why"
        printf '%s\n' "$out" | head -n 8 | sed 's/^/    | /'
        fails=$((fails + 1))
    fi
}

# scen NAME WANT_STATUS REGEX YAML: armprof-vp --check on the scenario (printf format).
scen() {
    printf "$4" > "$1.yaml"
    local out st
    out=$(timeout 60 "$vp" "$1.yaml" --check 2>&1)
    st=$?
    check "$1" "$2" "$3" "$out" "$st"
}

# Crashes and hangs, each from one value: exit 2, the key named with its line and column.
scen buffer_wraps 2 '^armprof-vp: buffer_wraps.yaml:2:21: spe.buffer_bytes: 4096..100663296, not 9223372036854775808$' \
    'pes: 2\nspe: {buffer_bytes: 9223372036854775808}\n'
scen buffer_total 2 '^armprof-vp: buffer_total.yaml:3:17: spe.buffer_bytes: 4 KiB .. 50331648 bytes per PE \(96 MiB in total\), not 67108864$' \
    'pes: 2\nspe:\n  buffer_bytes: 67108864\n'
scen trbe_buffer_total 2 '^armprof-vp: trbe_buffer_total.yaml:4:17: trbe.buffer_bytes: a multiple of 4096, 8192 .. 16777216 bytes per PE' \
    'pes: 4\ntrbe:\n  enabled: true\n  buffer_bytes: 33554432\n'
scen trbe_buffer_wraps 2 '^armprof-vp: trbe_buffer_wraps.yaml:3:17: trbe.buffer_bytes: 8192..67108864, not 4611686018427387904$' \
    'pes: 4\ntrbe:\n  buffer_bytes: 4611686018427387904\n  enabled: true\n'
scen clock_zero 2 '^armprof-vp: clock_zero.yaml:1:11: clock_ns: 0.01..1000, not 0$' 'clock_ns: 0\n'
scen clock_tiny 2 '^armprof-vp: clock_tiny.yaml:1:11: clock_ns: 0.01..1000, not 0.0001$' 'clock_ns: 0.0001\n'
scen quantum_zero 2 '^armprof-vp: quantum_zero.yaml:1:13: quantum_ns: 0.001..1e\+09, not 0$' 'quantum_ns: 0\n'
scen ops_per_cycle_zero 2 '^armprof-vp: ops_per_cycle_zero.yaml:1:16: ops_per_cycle: 1..64, not 0$' 'ops_per_cycle: 0\n'

# Integers are not cut to the field's width.
scen pes_wide 2 '^armprof-vp: pes_wide.yaml:1:6: pes: 1..64, not 4294967297$' 'pes: 4294967297\n'
scen interval_wide 2 '^armprof-vp: interval_wide.yaml:2:13: spe.interval: 256..4294967040, not 4294967552$' \
    'spe:\n  interval: 4294967552\n'
scen fifo_wide 2 '^armprof-vp: fifo_wide.yaml:2:15: spe.fifo_bytes: 1..67108864, not 4294967296$' \
    'spe:\n  fifo_bytes: 4294967296\n'
scen ppi_wide 2 '^armprof-vp: ppi_wide.yaml:2:8: spe.ppi: 16..31, not 4294967313$' 'spe:\n  ppi: 4294967313\n'
scen trigger_count_wide 2 '^armprof-vp: trigger_count_wide.yaml:2:18: trbe.trigger_count: 0..4294967295, not 4294967296$' \
    'trbe:\n  trigger_count: 4294967296\n'
scen fault_count_wide 2 '^armprof-vp: fault_count_wide.yaml:2:32: faults\[0\].count: 1..2147483647, not 4294967297$' \
    'faults:\n  - {kind: write_abort, count: 4294967297}\n'
scen octal_is_not 2 '^armprof-vp: octal_is_not.yaml:1:6: pes: 1..64, not 0100$' 'pes: 0100\n'
scen float_for_int 2 "^armprof-vp: float_for_int.yaml:1:6: ops: expected a whole number 1..9223372036854775807, got '1e3'$" 'ops: 1e3\n'

# One interval rule in armprof-vp, armprof-run and armprof-explore: 256 .. 0xFFFFFF00.
scen interval_0 2 '^armprof-vp: interval_0.yaml:2:13: spe.interval: 256..4294967040, not 0$' 'spe:\n  interval: 0\n'
scen interval_1 2 '^armprof-vp: interval_1.yaml:2:13: spe.interval: 256..4294967040, not 1$' 'spe:\n  interval: 1\n'
scen interval_255 2 'spe.interval: 256..4294967040, not 255$' 'spe:\n  interval: 255\n'
scen interval_256 0 "scenario 'default', 1 PE\(s\): checked" 'spe:\n  interval: 256\n'
scen interval_max 0 "scenario 'default', 1 PE\(s\): checked" 'spe:\n  interval: 0xFFFFFF00\n'

# Faults are checked with the rest of the scenario.
scen fault_kind 2 "^armprof-vp: fault_kind.yaml:3:12: faults\[1\].kind: unmap, read_only, clear_af, walk_abort, write_abort, gpf or mem_error, not 'bogus'$" \
    'faults:\n  - {kind: unmap}\n  - {kind: bogus}\n'
scen fault_pe 2 '^armprof-vp: fault_pe.yaml:3:10: faults\[0\].pe: 5, but the scenario has 2 PE\(s\)$' \
    'pes: 2\nfaults:\n  - {pe: 5, kind: unmap}\n'
scen fault_pe_after 2 '^armprof-vp: fault_pe_after.yaml:2:10: faults\[0\].pe: 1, but the scenario has 1 PE\(s\)$' \
    'faults:\n  - {pe: 1, kind: clear_af}\npes: 1\n'
scen fault_trbe 2 '^armprof-vp: fault_trbe.yaml:2:25: faults\[0\].unit: trbe needs trbe.enabled: true$' \
    'faults:\n  - {kind: unmap, unit: trbe}\n'
scen fault_stage2 2 '^armprof-vp: fault_stage2.yaml:4:26: faults\[0\].stage: 2 needs smmu.stage2: true$' \
    'smmu:\n  stage2: false\nfaults:\n  - {kind: unmap, stage: 2}\n'
scen fault_offset 2 '^armprof-vp: fault_offset.yaml:2:27: faults\[0\].offset: 65536 is past the end of the buffer \(65536 bytes\)$' \
    'faults:\n  - {kind: unmap, offset: 65536}\n'
scen fault_key 2 "^armprof-vp: fault_key.yaml:2:19: faults\[0\]: unknown key 'stgae'" 'faults:\n  - {kind: unmap, stgae: 2}\n'
scen faults_map 2 '^armprof-vp: faults_map.yaml:1:1: faults: expected a list, got a mapping$' 'faults:\n  kind: unmap\n'

# Combinations refused by the model name the key, without SystemC's report or a source path.
scen fifo_small 2 '^armprof-vp: fifo_small.yaml:2:15: spe.fifo_bytes: 16: record FIFO smaller than one maximum-size record' \
    'spe:\n  fifo_bytes: 16\n'
scen ppi_clash 2 '^armprof-vp: ppi_clash.yaml:5:8: pmu.ppi: 21 is spe.ppi already \(spe.ppi, trbe.ppi and pmu.ppi must differ\)$' \
    'spe:\n  ppi: 21\npmu:\n  enabled: true\n  ppi: 21\n'
scen rtl_inflight 2 "^armprof-vp: rtl_inflight.yaml:3:17: spe.max_inflight: 9: sampler rtl: max_inflight must be <= 8" \
    'spe:\n  sampler: rtl\n  max_inflight: 9\n'

# Types, unknown keys and bytes that are not text.
scen wrong_type 2 '^armprof-vp: wrong_type.yaml:2:3: spe.interval: expected a whole number, got a list$' \
    'spe:\n  interval: [1, 2]\n'
scen unknown_key 2 "^armprof-vp: unknown_key.yaml:2:1: unknown key 'opps' \(name, pes, ops," 'pes: 1\nopps: 5\n'
scen control_bytes 2 "^armprof-vp: control_bytes.yaml:1:7: pes: expected a whole number 1..64, got '\\\\x01\\\\x02'$" \
    'pes: "\\x01\\x02"\n'
scen empty 2 '^armprof-vp: empty.yaml: empty \(a scenario is a mapping of keys' ''
scen parse_error 2 '^armprof-vp: parse_error.yaml:3:1: not YAML or JSON: flow sequence without a closing bracket$' \
    'pes: 1\nspe: [\n'
printf '\001\002\377garbage\n' > garbage.yaml
out=$(timeout 60 "$vp" garbage.yaml --check 2>&1); st=$?
check garbage 2 '^armprof-vp: garbage.yaml:1:1: not YAML or JSON' "$out" $st

# A trace that is not text: its bytes shown escaped, with the trace's file and line.
printf '\377\001junk other 0 1 1\n' > junk.trc
scen trace_garbage 2 "^armprof-vp: workload.trace: junk.trc:1: PC: not an unsigned number: '\\\\xff\\\\x01junk'$" \
    'workload:\n  trace: junk.trc\n'
scen trace_missing 2 "^armprof-vp: trace_missing.yaml:2:10: workload.trace: nosuch.trc: No such file or directory$" \
    'workload:\n  trace: nosuch.trc\n'

# The file: missing, a folder, unreadable: the reason once, and nothing from the parser.
out=$(timeout 60 "$vp" missing.yaml 2>&1); st=$?
check missing_file 2 '^armprof-vp: missing.yaml: No such file or directory$' "$out" $st
[ "$(grep -c . <<<"$out")" -eq 1 ] || { echo "FAIL missing_file: more than one line"; fails=$((fails + 1)); }
out=$(timeout 60 "$vp" . 2>&1); st=$?
check folder 2 '^armprof-vp: \.: Is a directory$' "$out" $st

# Options: each named, the range said; --help on standard output.
opt() {
    local name=$1 want=$2 re=$3
    shift 3
    local out st
    out=$(timeout 60 "$vp" "$@" --out "$dir/o" 2>&1)
    st=$?
    check "$name" "$want" "$re" "$out" "$st"
}
for v in -5 abc 0 1e3 18446744073709551616 ''; do
    opt "ops '$v'" 2 "^armprof-vp: --ops expects an integer in \[1, 9223372036854775807\], got '$v'$" --ops "$v"
done
out=$("$vp" --quiet --ops 2>&1); st=$?
check ops_missing 2 '^armprof-vp: --ops needs a value \(armprof-vp --help\)$' "$out" $st
opt unknown_option 2 "^armprof-vp: unknown option '--frobnicate' \(armprof-vp --help lists them\)$" --frobnicate
opt extra_argument 2 "^armprof-vp: unexpected argument 'b.yaml' \(one scenario file, already 'a.yaml'\)$" a.yaml b.yaml
opt pe_range 2 "^armprof-vp: --pe expects an integer in \[0, 63\], got '-1'$" --write-trace t.trc --pe -1
opt flag_value 2 '^armprof-vp: --quiet takes no value' --quiet=yes
out=$("$vp" --help 2>/dev/null); st=$?
check help_stdout 0 '^usage: armprof-vp' "$out" $st
out=$("$vp" --help 2>&1 >/dev/null); st=$?
[ -z "$out" ] || { echo "FAIL help_stdout: --help wrote to standard error"; fails=$((fails + 1)); }

# Outputs that cannot be written: exit 1 with the file and the reason, never success.
out=$("$vp" --check 2>&1 >/dev/full); st=$?
check stdout_full 1 '^armprof-vp: error writing standard output: No space left on device$' "$out" $st
out=$("$vp" --quiet --ops 20000 --out "$dir/o" 2>&1 >/dev/full); st=$?
check run_stdout_full 1 '^armprof-vp: error writing standard output: No space left on device$' "$out" $st
mkdir -p full && ln -sf /dev/full full/spe.bin && echo '{}' > full/summary.json
out=$("$vp" --quiet --ops 200000 --out full 2>&1); st=$?
check dump_full 1 '^armprof-vp: error writing full/spe.bin: No space left on device$' "$out" $st
[ ! -e full/summary.json ] || { echo "FAIL dump_full: summary.json written for a run whose dump failed"; fails=$((fails + 1)); }
out=$(bash -c 'ulimit -f 16; exec "$0" --quiet --ops 2000000 --out fsize' "$vp" 2>&1); st=$?
check dump_fsize 1 '^armprof-vp: error writing fsize/spe.bin: File too large$' "$out" $st
mkdir -p sfull/summary.json
out=$("$vp" --quiet --ops 20000 --out sfull 2>&1 >/dev/null); st=$?
check summary_dir 1 '^armprof-vp: cannot replace sfull/summary.json: Is a directory$' "$out" $st
out=$("$vp" --quiet --ops 2000 --write-trace /dev/full 2>&1); st=$?
check trace_full 1 '^armprof-vp: error writing /dev/full: No space left on device$' "$out" $st
out=$(bash -c 'ulimit -f 8; exec "$0" --ops 200000 --write-trace fsize.trc' "$vp" 2>&1); st=$?
check trace_fsize 1 '^armprof-vp: error writing fsize.trc: File too large$' "$out" $st

echo "vp_bad_input: $n cases, $fails failed"
[ "$fails" -eq 0 ]
