#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools_stdout_full.sh: every command-line tool, its standard output on a full device (/dev/full): a failing exit status and the reason on stderr, never success.
# usage: tools_stdout_full.sh WORK_DIR NAME=PATH... (a tool not built is left out of the arguments)
set -u
dir=${1:?usage: tools_stdout_full.sh WORK_DIR NAME=PATH...}
shift
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 1
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
declare -A tool
for a in "$@"; do tool[${a%%=*}]=${a#*=}; done
for t in armprof-vp armprof-run armprof-decode armprof-explore; do
    [ -n "${tool[$t]:-}" ] || { echo "tools_stdout_full: $t not given" >&2; exit 1; }
done
fails=0 n=0
# try NAME WANT_STATUS COMMAND...: stdout on /dev/full, stderr captured.
try() {
    local name=$1 want=$2 t=$3
    shift 3
    n=$((n + 1))
    local out st
    out=$(timeout 120 "${tool[$t]}" "$@" 2>&1 >/dev/full)
    st=$?
    if [ $st -ne "$want" ] || ! grep -q "^$t: error writing standard output: No space left on device$" <<<"$out"; then
        echo "FAIL $name: exit $st (expected $want and '$t: error writing standard output: ...'): $out"
        fails=$((fails + 1))
    fi
}
printf 'name: io\nops: 10000\nsweep:\n  fifo_bytes: [256, 1024]\n' > sweep.yaml
try "armprof-vp run" 1 armprof-vp --quiet --ops 10000 --out vp
try "armprof-vp --check" 1 armprof-vp --check
try "armprof-vp --help" 1 armprof-vp --help
try "armprof-run" 1 armprof-run --ops 10000 --out run
try "armprof-run --json" 1 armprof-run --ops 10000 --json --out run
try "armprof-decode" 2 armprof-decode run/spe.bin
try "armprof-decode --summary" 2 armprof-decode --summary run/spe.bin
try "armprof-explore" 1 armprof-explore -j1 -o explore sweep.yaml
try "armprof-explore --list-params" 1 armprof-explore --list-params
if [ -n "${tool[armprof-cosim]:-}" ]; then
    try "armprof-cosim" 2 armprof-cosim --seeds 1 --cycles 1000
    try "armprof-cosim --help" 2 armprof-cosim --help
fi
echo "tools_stdout_full: $n cases, $fails failed"
[ "$fails" -eq 0 ]
