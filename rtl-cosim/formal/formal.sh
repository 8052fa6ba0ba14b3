#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# formal.sh: proves the counter/FIFO RTL's assertions for all inputs with yosys's SAT solver (sat -tempinduct); a perturbed RTL's counterexample goes to waves/.
#
#   rtl-cosim/formal/formal.sh [--run short|deep] [--perturb reload|drain|ready]
#                              [--waves-dir DIR] [--work DIR] [--yosys PATH] [--report FILE]
#
# The assertions and the input contract are those of the RTL itself (rtl/spu_assert.svh: the
# AP_ASSERTs are proved, the AP_ASSUMEs assumed, the proofs start from a reset edge). Each task
# proves one block or the whole unit at reduced parameters (the structural sizes are parameters;
# the proofs hold for the sizes named in the report):
#   induction  sat -tempinduct: the base case from reset and the induction step, up to N steps;
#              PROVEN (k-inductive: holds for every input sequence) or, when the induction
#              step does not close in N steps, BOUNDED (no failure in N steps from reset);
#   bmc        sat -tempinduct-baseonly: BOUNDED to N steps from reset.
# A failure is FAILED with the assertion(s) and the step, and its counterexample is written to
# <waves>/formal-<task>.vcd (one clock cycle per step, two time units each; the top module's
# signals at TOP.*, each block's below it), which GTKWave opens with waves/spu_formal.gtkw:
#   gtkwave waves/formal-perturb-reload.vcd waves/spu_formal.gtkw
# --perturb proves the whole unit with a deliberately broken RTL (the RTL's PERTURB_*, as
# armprof-cosim --perturb): it must fail. Exit status: 0 every task proven or bounded, 1 a task
# failed, 2 usage or tool error.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
RTL=$(cd "$HERE/../rtl" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
RUN=short PERTURB="" WAVES=$SRC/waves WORK="" YOSYS=yosys REPORT=""
die() { echo "formal: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || die "$1 needs a value (usage: $0 [--run short|deep] [--perturb reload|drain|ready] [--waves-dir DIR] [--work DIR] [--yosys PATH] [--report FILE])"
  case "$1" in
    --run) RUN=$2 ;;
    --perturb) PERTURB=$2 ;;
    --waves-dir) WAVES=$2 ;;
    --work) WORK=$2 ;;
    --yosys) YOSYS=$2 ;;
    --report) REPORT=$2 ;;
    *) die "unknown option $1" ;;
  esac
  shift 2
done
case "$RUN" in short|deep) ;; *) die "--run is short or deep, not '$RUN'" ;; esac
case "$PERTURB" in
  "") PNUM=0 ;;
  reload) PNUM=1 ;;
  drain) PNUM=2 ;;
  ready) PNUM=3 ;;
  *) die "--perturb is reload, drain or ready, not '$PERTURB'" ;;
esac
command -v "$YOSYS" >/dev/null || die "$YOSYS not found (Debian package yosys: scripts/install-deps.sh)"
if [ -z "$WORK" ]; then
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/armprof-formal.XXXXXX") || die "no work folder"
  trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK" "$WAVES" || die "cannot create $WORK or $WAVES"
SAVE=$SRC/waves/spu_formal.gtkw

# Parameter sets (the RTL's structural maxima, reduced): the widths of the tiny set are those
# of waves/spu_formal.gtkw.
P_TINY="-chparam W 2 -chparam SLOTS 2 -chparam DEPTH 8 -chparam REC_SLOTS 4 -chparam LEN_W 4 -chparam LAT_W 2 -chparam DRAIN_MAX 4 -chparam CNT_W 5"
P_FIFO_DEEP="-chparam W 1 -chparam SLOTS 2 -chparam DEPTH 16 -chparam REC_SLOTS 4 -chparam LEN_W 5 -chparam LAT_W 2 -chparam DRAIN_MAX 4 -chparam CNT_W 6"
P_FIFO_WIDE="-chparam W 2 -chparam SLOTS 4 -chparam DEPTH 16 -chparam REC_SLOTS 8 -chparam LEN_W 5 -chparam LAT_W 3 -chparam DRAIN_MAX 8 -chparam CNT_W 6"
describe() { # the parameters of a set, for the report
  echo "$1" | sed 's/-chparam //g; s/ \([0-9][0-9]*\)/=\1/g'
}

# The assertion labels of a source line (AP_ASSERT(name, ...) on it).
label_of() { # file line
  sed -n "${2}p" "$1" | sed -n 's/.*AP_ASSERT(\([A-Za-z0-9_]*\).*/\1/p'
}

# Writes a counterexample VCD of yosys sat (-dump_vcd, flat, escaped names, one time step per
# step) as the project's dumps look: scope TOP with the top module's signals, a scope per
# block below it, vector ranges, a clock (low for the step's values, rising at its end).
rewrite_vcd() { # in out
  awk '
    function unesc(s) { sub(/^\\/, "", s); gsub(/\\/, "", s); return s }
    BEGIN { ntop = 0; inhdr = 1; step = -1; pending = 0; clkid = "" }
    inhdr && /^\$var / {
      w = $3; id = $4; name = $5
      if (substr(name, 1, 1) != "\\" || name ~ /\//) next   # internal yosys nets, function locals
      name = unesc(name)
      keep[id] = 1; wid[id] = w
      sc = ""; leaf = name
      p = index(name, ".")
      if (p) { sc = substr(name, 1, p - 1); leaf = substr(name, p + 1) }
      if (leaf ~ /^(u_counter|u_fifo)$/) next
      if (sc == "" && leaf == "clk") clkid = id
      decl = "$var wire " w " " id " " leaf (w > 1 ? " [" (w - 1) ":0]" : "") " $end"
      if (sc == "") top[++ntop] = decl; else { if (!(sc in nsc)) { scopes[++nscopes] = sc; nsc[sc] = 0 }
                                               sub_[sc, ++nsc[sc]] = decl }
      next
    }
    inhdr && /^\$enddefinitions/ {
      print "$timescale 1ns $end"
      print "$scope module TOP $end"
      for (i = 1; i <= ntop; i++) print top[i]
      for (s = 1; s <= nscopes; s++) {
        print "$scope module " scopes[s] " $end"
        for (i = 1; i <= nsc[scopes[s]]; i++) print sub_[scopes[s], i]
        print "$upscope $end"
      }
      print "$upscope $end"
      print "$enddefinitions $end"
      inhdr = 0; next
    }
    inhdr { if ($1 == "$date" || $1 == "$version" || $1 == "$comment" || $1 == "$end" || substr($0, 1, 4) == "    ") print; next }
    /^\$dumpvars/ { next }
    # Each block of values is one step (the first at #0, a last empty one closes the dump).
    /^#/ { pending = 1; next }
    {
      if (substr($0, 1, 1) == "b") id = $2; else id = substr($0, 2)
      if (!keep[id] || id == clkid) next
      if (pending) {
        step++
        if (clkid != "") { if (step > 0) { print "#" (2 * step - 1); print "1" clkid } }
        print "#" (2 * step)
        if (clkid != "") print "0" clkid
        pending = 0
      }
      print
    }
    END { if (step >= 0 && clkid != "") { print "#" (2 * step + 1); print "1" clkid } }
  ' "$1" >"$2"
}

# Every signal the save file shows must be in the trace, with its range: else GTKWave would
# open it with gaps. Prints what is missing.
check_save() { # vcd save
  awk '
    FNR == NR {
      if ($1 == "$scope") path = (path == "" ? $3 : path "." $3)
      else if ($1 == "$upscope") { sub(/\.?[^.]*$/, "", path) }
      else if ($1 == "$var") { n = path "." $5; if ($6 ~ /^\[/) n = n $6; have[n] = 1 }
      next
    }
    /^[A-Za-z]/ { want++; if (!($0 in have)) { miss++; print "  missing: " $0 } }
    END { printf "%d of %d signals of the save file in the trace\n", want - miss, want; exit miss ? 1 : 0 }
  ' "$1" "$2"
}

failures=0 errors=0
report=()
# run_task NAME TOP PARAMS MODE STEPS [DEFINES]
run_task() {
  local name=$1 top=$2 params=$3 mode=$4 steps=$5 defs=${6:-}
  local ys=$WORK/$name.ys log=$WORK/$name.log raw=$WORK/$name.vcd
  local srcs="$RTL/spu_cosim_pkg.sv $RTL/spu_sample_counter.sv $RTL/spu_record_fifo.sv $RTL/spu_cosim_top.sv"
  local how="-tempinduct"
  [ "$mode" = bmc ] && how="-tempinduct -tempinduct-baseonly"
  cat >"$ys" <<EOF
read_verilog -sv -formal $defs -I $RTL $srcs
hierarchy -top $top $params
prep -flatten -top $top
memory_map
opt_clean
chformal -cover -remove
chformal -early
async2sync
dffunmap
sat $how -prove-asserts -set-assumes -maxsteps $steps -show-all -dump_vcd $raw
EOF
  local t0 t1 res detail=""
  t0=$(date +%s.%N)
  "$YOSYS" -q -l "$log" "$ys" >/dev/null 2>&1
  local st=$?
  t1=$(date +%s.%N)
  local secs
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  if grep -q "Induction step proven: SUCCESS" "$log"; then
    local k
    k=$(grep -o "Trying induction with length [0-9]*" "$log" | tail -1 | awk '{print $NF}')
    res="PROVEN"; detail="$k-inductive"
  elif grep -q "model found for base case: FAIL" "$log"; then
    local k labels
    k=$(grep -o "^\[base case [0-9]*\]" "$log" | tail -1 | tr -dc '0-9')
    # The assertions whose check is low while enabled at the last step.
    labels=$(awk -v k="$k" '
      /^Import proof for assert: / { c = $5; e = $7; sub(/\.$/, "", e); en[c] = e; next }
      $1 == k && NF >= 3 { v[$2] = $3 }
      END {
        for (c in en) if ((c in v) && v[c] == "0" && v[en[c]] == "1") {
          s = c; sub(/^.*\$formal\$/, "", s); sub(/\$[0-9]+_CHECK.*$/, "", s)
          n = split(s, a, ":"); print a[1] " " a[n]
        }
      }' "$log" | sort -u | while read -r f l; do label_of "$f" "$l"; done | sort -u | tr '\n' ' ' | sed 's/ $//')
    res="FAILED"; detail="at step $k: ${labels:-an assertion}"
    failures=$((failures + 1))
    if [ -s "$raw" ]; then
      local out=$WAVES/formal-$name.vcd
      rewrite_vcd "$raw" "$out"
      detail="$detail; counterexample $out"
      if [ -f "$SAVE" ]; then
        # Checked against what GTKWave's own reader makes of the trace when its converters are
        # there (vcd2fst, fst2vcd: Debian package gtkwave), else against the trace itself.
        local seen=$out chk
        if command -v vcd2fst >/dev/null && command -v fst2vcd >/dev/null; then
          if vcd2fst "$out" "$WORK/$name.fst" >/dev/null 2>&1 && fst2vcd "$WORK/$name.fst" >"$WORK/$name.gtkwave.vcd" 2>/dev/null; then
            seen=$WORK/$name.gtkwave.vcd
          else
            detail="$detail; GTKWave's vcd2fst cannot read it"
            errors=$((errors + 1))
          fi
        fi
        chk=$(check_save "$seen" "$SAVE")
        detail="$detail ($(echo "$chk" | tail -1))"
        echo "$chk" | grep "missing" >&2
      fi
    fi
  elif grep -q "Reached maximum number of time steps" "$log"; then
    res="BOUNDED"; detail="no failure in $steps steps from reset"
    [ "$mode" = induction ] && detail="$detail; induction did not close in $steps"
  else
    res="ERROR"; detail="yosys exit status $st, log $log"
    errors=$((errors + 1))
    tail -5 "$log" >&2
  fi
  report+=("$(printf '%-16s %-20s %-9s %-8s %6ss  %s' "$name" "$top" "$mode" "$res" "$secs" "$detail")")
  report+=("$(printf '%-16s   %s' "" "$(describe "$params")")")
}

if [ -n "$PERTURB" ]; then
  run_task "perturb-$PERTURB" spu_cosim_top "$P_TINY" bmc 8 "-D ARMPROF_PERTURB=$PNUM"
elif [ "$RUN" = short ]; then
  run_task counter spu_sample_counter "-chparam W 4" induction 2
  run_task fifo spu_record_fifo "$P_TINY" induction 2
  run_task unit spu_cosim_top "$P_TINY" induction 2
else
  run_task counter spu_sample_counter "-chparam W 4" induction 3
  run_task fifo spu_record_fifo "$P_TINY" induction 3
  run_task fifo-deep spu_record_fifo "$P_FIFO_DEEP" induction 2
  run_task fifo-wide spu_record_fifo "$P_FIFO_WIDE" bmc 4
  run_task unit spu_cosim_top "$P_TINY" induction 3
  run_task unit-bmc spu_cosim_top "$P_TINY" bmc 10
fi

{
  echo "formal ($RUN${PERTURB:+, perturbed RTL: $PERTURB}), yosys $("$YOSYS" -V | awk '{print $2}') sat:"
  printf '%-16s %-20s %-9s %-8s %7s  %s\n' task top mode result time detail
  for l in "${report[@]}"; do echo "$l"; done
} | if [ -n "$REPORT" ]; then tee "$REPORT"; else cat; fi
[ $errors -gt 0 ] && exit 2
[ $failures -gt 0 ] && exit 1
exit 0
