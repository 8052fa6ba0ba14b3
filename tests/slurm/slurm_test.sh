#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# slurm_test.sh: the `slurm` tests: a local single-node cluster, a sweep as a job array against -j2, resume after scancel, cosim seeds as an array.
#
#   slurm_test.sh SRC BUILD start|sweep|resume|cosim|stop
# Each step is one CTest test (tests/slurm/CMakeLists.txt: start is the fixture's set-up, stop its
# clean-up). The cluster lives in ARMPROF_SLURM_DIR on port ARMPROF_SLURM_PORT (set by CTest).
set -uo pipefail
SRC=$1 BUILD=$2 STEP=$3
W=$BUILD/tests/slurm/work
EXPLORE=$BUILD/bin/armprof-explore
export PATH=$PATH:/usr/sbin

fail() { echo "FAIL: $*" >&2; exit 1; }
use_cluster() {
  export SLURM_CONF=$ARMPROF_SLURM_DIR/slurm.conf
  [ -f "$SLURM_CONF" ] || fail "no local cluster ($SLURM_CONF): the slurm_start test failed"
}
# results.csv without the host_seconds column (host time: the one metric two runs never share).
csv() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "host_seconds") k = i }
           { o = ""; for (i = 1; i <= NF; i++) if (i != k) o = o (o == "" ? "" : ",") $i; print o }' "$1"
}
# Waits (at most $2 s) until squeue no longer lists job $1 as pending or running.
wait_gone() {
  for _ in $(seq $(($2 * 5))); do
    [ -z "$(squeue -h -j "$1" -o %i 2>/dev/null)" ] && return 0
    sleep 0.2
  done
  fail "Slurm job $1 still queued after $2 s: $(squeue -j "$1" 2>&1)"
}
small_sweep() {
  mkdir -p "$W"
  cat >"$W/small.yaml" <<'EOF'
name: small
seed: 3
ops: 200000
ops_per_cycle: 24
interval: 256
fifo_bytes: 1024
drain: 4
buffer_bytes: 64K
recommend:
  max_collision_pct: 10
sweep:
  - drain: [1, 2, 4]
    fifo_bytes: [64, 256, 1024]
EOF
  rm -rf "$W/$1"
  "$EXPLORE" -q -j2 --fresh -o "$W/$1" "$W/small.yaml" || fail "local run of the small sweep"
}

case "$STEP" in
start)
  # Slurm's own messages (the daemons' logs) are printed when it cannot start: the test fails.
  "$SRC/scripts/slurm-local.sh" start || fail "the local Slurm cluster did not start (messages above)"
  use_cluster
  sinfo || fail "sinfo"
  ;;
sweep)
  use_cluster
  small_sweep local
  rm -rf "$W/slurm"
  "$EXPLORE" -q --slurm --wait --slurm-slice 2 -o "$W/slurm" "$W/small.yaml" || fail "--slurm --wait"
  logs=$(ls "$W/slurm/slurm/log" | grep -c '_[0-9]*\.log$')
  [ "$logs" -eq 5 ] || fail "9 points in slices of 2 should run as 5 array tasks, saw $logs task logs"
  [ "$(wc -l <"$W/slurm/points.jsonl")" -eq 9 ] || fail "points.jsonl should hold 9 points"
  diff <(csv "$W/local/results.csv") <(csv "$W/slurm/results.csv") || fail "results.csv differs from -j2's"
  diff "$W/local/recommendation.txt" "$W/slurm/recommendation.txt" || fail "recommendation.txt differs"
  [ -s "$W/slurm/collisions_vs_fifo.png" ] || fail "no plot"
  echo "slurm sweep: results.csv and recommendation.txt identical to the -j2 run's (9 points, 5 tasks)"
  ;;
resume)
  use_cluster
  small_sweep local2
  O=$W/resume
  rm -rf "$O"
  # Held, so that the cancelled task is known to have run nothing; then released.
  "$EXPLORE" -q --slurm --slurm-slice 2 --slurm-opt=--hold -o "$O" "$W/small.yaml" || fail "--slurm submission"
  read -r A M <"$O/slurm/active" || fail "no $O/slurm/active"
  tasks=$(ls "$O"/slurm/tasks-*.txt)
  cancelled=$(sed -n 2p "$tasks")
  [ "$(wc -l <"$tasks")" -eq 5 ] && [ -n "$cancelled" ] || fail "task file $tasks: $(cat "$tasks")"
  scancel "${A}_1" || fail "scancel ${A}_1"
  scontrol release "$A" "$M" || fail "scontrol release $A $M"
  wait_gone "$A" 60
  wait_gone "$M" 60
  grep -q "2 of 9 points have no result" "$O/slurm/log/merge-$M.log" ||
    fail "the merge job should report 2 missing points: $(cat "$O/slurm/log/merge-$M.log")"
  [ ! -e "$O/results.csv" ] || fail "the merge wrote results.csv with points missing"
  have=$(sed 's/.*"index":\([0-9]*\).*/\1/' "$O/points.jsonl" | sort -n | tr '\n' ' ')
  [ "$have" = "0 1 4 5 6 7 8 " ] && [ "$cancelled" = "2 3" ] ||
    fail "after cancelling task 1 ($cancelled), points.jsonl has $have"
  msg=$("$EXPLORE" --slurm --wait --slurm-slice 2 -o "$O" "$W/small.yaml" 2>&1) || fail "resubmission: $msg"
  echo "$msg"
  echo "$msg" | grep -q "Slurm job array [0-9]*: 2 points to run (7 already done) in 1 tasks" ||
    fail "the resubmission should run exactly the 2 missing points"
  [ "$(cat "$(ls -t "$O"/slurm/tasks-*.txt | head -1)")" = "2 3" ] || fail "the resubmitted task is not points 2 3"
  diff <(csv "$W/local2/results.csv") <(csv "$O/results.csv") || fail "resumed results.csv differs from -j2's"
  echo "slurm resume: task 1 cancelled, its 2 points (2 3) resubmitted alone, results.csv identical to -j2's"
  ;;
cosim)
  use_cluster
  C=$W/cosim
  rm -rf "$C"
  "$SRC/scripts/nightly-slurm.sh" "$BUILD" --seed 7 --seeds 2 --cycles 100000 --junit "$C/slurm.xml" \
    --waves-dir "$C/waves" --coverage "$C/cov-slurm" || fail "nightly-slurm.sh"
  "$BUILD/bin/armprof-cosim" --seed 7 --seeds 2 --cycles 100000 --junit "$C/local.xml" --waves-dir "$C/waves" \
    --coverage "$C/cov-local" || fail "local armprof-cosim"
  norm() { sed 's/time="[^"]*"/time="T"/g' "$1"; }
  diff <(norm "$C/local.xml") <(norm "$C/slurm.xml") || fail "merged JUnit differs from the local one"
  [ "$(grep -c '<testcase ' "$C/slurm.xml")" -eq 3 ] || fail "expected 2 seed testcases and cover_points"
  grep -q 'name="seed_8"' "$C/slurm.xml" || fail "seed 8 missing"
  grep -q 'name="coverage.total.cover_points"' "$C/slurm.xml" || fail "coverage properties missing"
  cmp "$C/cov-local/coverage.dat" "$C/cov-slurm/coverage.dat" || fail "merged coverage differs from the local one"
  echo "slurm cosim: 2 seeds as an array, merged JUnit (coverage properties included) and coverage identical to the local ones but for times"
  ;;
stop)
  [ -f "$ARMPROF_SLURM_DIR/slurm.conf" ] || fail "no cluster to stop in $ARMPROF_SLURM_DIR"
  "$SRC/scripts/slurm-local.sh" stop || fail "slurm-local.sh stop"
  [ ! -e "$ARMPROF_SLURM_DIR" ] || fail "$ARMPROF_SLURM_DIR left behind"
  echo "slurm cluster stopped"
  ;;
*) fail "unknown step $STEP" ;;
esac
