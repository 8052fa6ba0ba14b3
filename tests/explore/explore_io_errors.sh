#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# explore_io_errors.sh: armprof-explore on a full file system (each output on /dev/full), past a file-size limit, with standard output full, and stopped by SIGTERM: the file and the reason, exit 1 (143), never success.
# usage: explore_io_errors.sh ARMPROF_EXPLORE WORK_DIR
set -u
ex=${1:?usage: explore_io_errors.sh ARMPROF_EXPLORE WORK_DIR}
dir=${2:?usage: explore_io_errors.sh ARMPROF_EXPLORE WORK_DIR}
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 1
fails=0 n=0

fail() {
    echo "FAIL $1"
    [ -n "${2:-}" ] && printf '%s\n' "$2" | head -n 8 | sed 's/^/    | /'
    fails=$((fails + 1))
}

cat > sweep.yaml <<'EOF'
name: io
ops: 100000
sweep:
  fifo_bytes: [256, 1024]
EOF

# One output at a time on a full device: exit 1, that file and ENOSPC named, no line saying
# the results were written.
for f in results.csv results.json recommendation.txt plots.gp collisions_vs_fifo.dat collisions_vs_fifo.plt; do
    n=$((n + 1))
    d="full-${f%.*}-${f##*.}"
    mkdir -p "$d"
    ln -sf /dev/full "$d/$f"
    out=$(timeout 60 "$ex" -q -j1 -o "$d" sweep.yaml 2>&1)
    st=$?
    [ $st -eq 1 ] || { fail "$f on /dev/full: exit $st, expected 1" "$out"; continue; }
    grep -qx "armprof-explore: cannot write $d/$f: No space left on device" <<<"$out" ||
        fail "$f on /dev/full: no message naming it" "$out"
    grep -q -- '->' <<<"$out" && fail "$f on /dev/full: the results are said to be written" "$out"
done

# Past a file-size limit of 0 blocks: the state file cannot grow (EFBIG, not SIGXFSZ).
n=$((n + 1))
out=$(timeout 60 bash -c 'ulimit -f 0; exec "$0" -q -j1 -o fsize sweep.yaml' "$ex" 2>&1)
st=$?
[ $st -eq 1 ] || fail "file-size limit: exit $st, expected 1" "$out"
grep -qx "armprof-explore: cannot write fsize/points.jsonl: File too large" <<<"$out" ||
    fail "file-size limit: no message naming points.jsonl" "$out"

# Standard output on a full device: the summary, --list-params, --help.
for args in "-j1 -o stdout sweep.yaml" "--list-params" "--help"; do
    n=$((n + 1))
    out=$(timeout 60 "$ex" $args 2>&1 >/dev/full)
    st=$?
    [ $st -eq 1 ] || fail "$args >/dev/full: exit $st, expected 1" "$out"
    grep -qx "armprof-explore: error writing standard output: No space left on device" <<<"$out" ||
        fail "$args >/dev/full: no message" "$out"
done

# SIGTERM: the points running finish, the sweep stops, exit 143 (SIGINT: 130), resumable.
n=$((n + 1))
cat > long.yaml <<'EOF'
name: long
ops: 20000000
sweep:
  fifo_bytes: [256, 512, 768, 1024, 1280, 1536, 1792, 2048]
  seed: [1, 2, 3, 4, 5, 6, 7, 8]
EOF
"$ex" -q -j1 -o long long.yaml > /dev/null 2> long.err &
pid=$!
for _ in $(seq 300); do [ -s long/points.jsonl ] && break; sleep 0.05; done
kill -TERM $pid
wait $pid
st=$?
[ $st -eq 143 ] || fail "SIGTERM: exit $st, expected 143" "$(cat long.err)"
grep -q "interrupted: .* points done; run the same command again to resume" long.err ||
    fail "SIGTERM: no message saying the sweep was interrupted" "$(cat long.err)"

echo "explore_io_errors: $n cases, $fails failed"
[ "$fails" -eq 0 ]
