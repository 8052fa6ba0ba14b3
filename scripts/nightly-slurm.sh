#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# nightly-slurm.sh: the nightly co-simulation seeds as one Slurm job array, merged into one JUnit report like the local run's.
#
#   scripts/nightly-slurm.sh BUILD [--seed N] [--seeds K] [--cycles C] [--junit PATH]
#                                  [--waves-dir DIR] [--slurm-opt "sbatch options"]
#                                  [--coverage DIR [--require-covers]]
# Defaults are `make nightly`'s: seeds 1001..1020, 5 000 000 cycles, BUILD/nightly/cosim-junit.xml.
# Task k runs `armprof-cosim --seed N+k` with its own JUnit file under <junit>.d/; `sbatch --wait`
# waits for the array; the reports are merged in seed order into PATH: the same testsuites,
# testcases, failures and messages as `armprof-cosim --seed N --seeds K --junit PATH` (only the
# time attributes differ). A seed whose task left no report (cancelled, killed, node failure)
# becomes an <error> testcase naming its log. BUILD must be on a file system the nodes share.
# --coverage: each task runs the RTL's coverage build; their counts are merged into DIR as
# `armprof-cosim --coverage DIR` would (`--coverage-report`), and the report's properties and
# cover_points testcase join the merged JUnit (a cover point never hit fails it with
# --require-covers).
# Exit status: 0 every seed matched, 1 a mismatch or a missing seed, 2 usage or submission error.
set -uo pipefail

die() { echo "nightly-slurm: $*" >&2; exit 2; }
[ $# -ge 1 ] || die "usage: $0 BUILD [--seed N] [--seeds K] [--cycles C] [--junit PATH] [--waves-dir DIR] [--slurm-opt OPTS] [--coverage DIR [--require-covers]]"
BUILD=$(cd "$1" && pwd) || die "no build folder $1"
shift
SEED=1001 SEEDS=20 CYCLES=5000000 JUNIT=$BUILD/nightly/cosim-junit.xml WAVES=$BUILD/nightly/waves OPT=""
COV="" REQUIRE=""
while [ $# -gt 0 ]; do
  if [ "$1" = --require-covers ]; then REQUIRE=--require-covers; shift; continue; fi
  [ $# -ge 2 ] || die "$1 needs a value"
  case "$1" in
    --coverage) COV=$2 ;;
    --seed) SEED=$2 ;;
    --seeds) SEEDS=$2 ;;
    --cycles) CYCLES=$2 ;;
    --junit) JUNIT=$2 ;;
    --waves-dir) WAVES=$2 ;;
    --slurm-opt) OPT=$2 ;;
    *) die "unknown option $1" ;;
  esac
  shift 2
done
for v in "$SEED" "$SEEDS" "$CYCLES"; do
  [[ "$v" =~ ^[0-9]+$ ]] || die "--seed, --seeds and --cycles take numbers, got '$v'"
done
[ "$SEEDS" -ge 1 ] || die "--seeds must be positive"
COSIM=$BUILD/bin/armprof-cosim
[ -x "$COSIM" ] || die "$COSIM not built (needs Verilator)"
command -v sbatch >/dev/null || die "sbatch not on the PATH: install slurm-client or point PATH at your cluster's"

mkdir -p "$(dirname "$JUNIT")" "$WAVES" || die "cannot create the report folder"
JUNIT=$(cd "$(dirname "$JUNIT")" && pwd)/$(basename "$JUNIT")
WAVES=$(cd "$WAVES" && pwd)
PARTS=$JUNIT.d
rm -rf "$PARTS"
mkdir -p "$PARTS/log" || die "cannot create $PARTS"

COVOPT=""
if [ -n "$COV" ]; then
  mkdir -p "$COV" || die "cannot create $COV"
  COV=$(cd "$COV" && pwd)
  COVOPT="--coverage '$PARTS'/cov/seed-\$seed"
fi
cat >"$PARTS/task.sh" <<EOF
#!/bin/sh
# One nightly co-simulation seed per array task (written by scripts/nightly-slurm.sh).
seed=\$(( $SEED + SLURM_ARRAY_TASK_ID ))
exec '$COSIM' --seed "\$seed" --seeds 1 --cycles $CYCLES --junit '$PARTS'/seed-"\$seed".xml --waves-dir '$WAVES' $COVOPT
EOF
chmod +x "$PARTS/task.sh"

# --wait: sbatch returns when every task has ended (non-zero when one failed: a mismatch is a
# failed task too, so the status is not used; the reports say what happened).
# shellcheck disable=SC2086
out=$(sbatch --parsable --wait --array=0-$((SEEDS - 1)) --job-name=armprof-cosim-nightly \
  --output="$PARTS/log/%A_%a.log" --chdir="$BUILD" $OPT "$PARTS/task.sh" 2>"$PARTS/sbatch.err")
st=$?
job=${out%%;*}
job=${job%%$'\n'*}
if ! [[ "$job" =~ ^[0-9]+$ ]]; then
  cat "$PARTS/sbatch.err" >&2
  die "sbatch failed (exit status $st): nothing submitted"
fi
echo "nightly-slurm: job array $job ($SEEDS seeds x $CYCLES cycles) ended; merging $JUNIT"

# Merge in seed order. A part is armprof-cosim's write_junit() for one seed: the testcase blocks
# lie between the <testsuite ...> line and </testsuite>.
tests=0 failures=0 missing=0 body=$PARTS/body.xml
: >"$body"
times=()
for ((k = 0; k < SEEDS; k++)); do
  s=$((SEED + k)) f=$PARTS/seed-$((SEED + k)).xml
  tests=$((tests + 1))
  if [ -s "$f" ] && grep -q '</testsuite>' "$f"; then
    # (a task's own coverage properties and cover_points testcase are left out: the merged
    # coverage replaces them)
    awk '/<testsuite /{ on = 1; next } /<\/testsuite>/{ on = 0 }
         /<properties>/{ skip = 1 } /<testcase [^>]*name="cover_points"/{ skip = 2 }
         on && !skip; skip == 1 && /<\/properties>/{ skip = 0 } skip == 2 && /<\/testcase>/{ skip = 0 }' "$f" >>"$body"
    grep -q '<failure ' "$f" && failures=$((failures + 1))
    times+=("$(sed -n 's/.*<testcase [^>]*time="\([^"]*\)".*/\1/p' "$f")")
  else
    missing=$((missing + 1))
    failures=$((failures + 1))
    log=$PARTS/log/${job}_$k.log
    printf '    <testcase classname="cosim.spu_counter_fifo" name="seed_%s" time="0">\n      <failure message="no report: Slurm task %s_%s ended without one (log: %s)" type="harness"></failure>\n    </testcase>\n' \
      "$s" "$job" "$k" "$log" >>"$body"
  fi
done
total=$(printf '%s\n' "${times[@]:-0}" | awk '{ t += $1 } END { printf "%.6g", t }')
# Coverage: the tasks' counts merged and reported as `armprof-cosim --coverage` does; its
# properties and cover_points testcase go where a local run puts them.
props=$PARTS/props.xml covcase=$PARTS/covcase.xml
: >"$props"
: >"$covcase"
if [ -n "$COV" ]; then
  rm -rf "$COV/seeds"
  mkdir -p "$COV/seeds" || die "cannot create $COV/seeds"
  find "$PARTS/cov" -path '*/seeds/*.dat' -exec cp {} "$COV/seeds/" \; 2>/dev/null
  "$COSIM" --coverage-report "$COV" $REQUIRE --junit "$PARTS/coverage.xml"
  cst=$?
  [ $cst -eq 2 ] && die "coverage report failed"
  awk '/<properties>/{ on = 1 } on; /<\/properties>/{ on = 0 }' "$PARTS/coverage.xml" >"$props"
  awk '/<testcase [^>]*name="cover_points"/{ on = 1 } on; /<\/testcase>/{ on = 0 }' "$PARTS/coverage.xml" >"$covcase"
  tests=$((tests + 1))
  [ $cst -eq 1 ] && failures=$((failures + 1))
fi
{
  echo '<?xml version="1.0" encoding="UTF-8"?>'
  echo "<testsuites name=\"armprof-cosim\" tests=\"$tests\" failures=\"$failures\" time=\"$total\">"
  echo "  <testsuite name=\"cosim.spu_counter_fifo\" tests=\"$tests\" failures=\"$failures\" errors=\"0\" skipped=\"0\" time=\"$total\">"
  cat "$props" "$body" "$covcase"
  echo '  </testsuite>'
  echo '</testsuites>'
} >"$JUNIT.tmp" && mv "$JUNIT.tmp" "$JUNIT" || die "cannot write $JUNIT"
rm -f "$body" "$props" "$covcase"
echo "nightly-slurm: JUnit report: $JUNIT ($tests seeds, $failures failed, $missing without a report)"
[ "$failures" -eq 0 ]
