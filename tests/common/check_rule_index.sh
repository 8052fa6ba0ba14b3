#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# check_rule_index.sh: every row of docs/compliance.md's rule index names tests that cite its Arm rule identifier (or a reason); where the seed text is present, every identifier in it has a row.
# Usage: check_rule_index.sh REPO_ROOT [SPEC_DIR]
#   SPEC_DIR (or $ARMPROF_SPEC_DIR): the folder of the seed text 000_*.txt, 003_*.txt, 004_*.txt
#   (Arm ARM D17.7, D13.9, D6.5). Without it the second step is skipped, and says so.
set -u
root=${1:?usage: check_rule_index.sh REPO_ROOT [SPEC_DIR]}
spec=${2:-${ARMPROF_SPEC_DIR:-}}
doc="$root/docs/compliance.md"
[ -f "$doc" ] || { echo "check_rule_index: $doc not found" >&2; exit 1; }

# Step 1, everywhere: the index itself. Table rows "| RXXXXX | seed | text | checked by |" after
# the "## Rule index" heading.
index=$(awk '/^## Rule index/{on=1; next} /^## /{on=0} on' "$doc")
mapfile -t indexed < <(printf '%s\n' "$index" | grep -oE '^\| R[A-Z]{5} \|' | grep -oE 'R[A-Z]{5}')
if [ ${#indexed[@]} -lt 50 ]; then
  echo "check_rule_index: only ${#indexed[@]} rows in the rule index of $doc: table broken?" >&2
  exit 1
fi
fail=0; cited=0; na=0
dups=$(printf '%s\n' "${indexed[@]}" | sort | uniq -d)
for r in $dups; do echo "FAIL $r: more than one row in the rule index"; fail=$((fail + 1)); done
for r in "${indexed[@]}"; do
  row=$(printf '%s\n' "$index" | grep -E "^\| $r \|" | head -n 1)
  by=$(printf '%s\n' "$row" | awk -F'|' '{print $5}' | sed -E 's/^ +| +$//g')
  case "$by" in
    "not applicable: "?*) na=$((na + 1)); continue ;;
    "") echo "FAIL $r: the row names no test and no reason"; fail=$((fail + 1)); continue ;;
  esac
  for f in $(printf '%s\n' "$by" | tr ',' ' '); do
    case "$f" in tests/*) ;; *) echo "FAIL $r: '$f' is not a test file under tests/"; fail=$((fail + 1)); continue ;; esac
    if [ ! -f "$root/$f" ]; then
      echo "FAIL $r: cited test $f does not exist"; fail=$((fail + 1))
    elif ! grep -q "$r" "$root/$f"; then
      echo "FAIL $r: cited test $f does not contain the identifier"; fail=$((fail + 1))
    else
      cited=$((cited + 1))
    fi
  done
done
echo "rule index: ${#indexed[@]} rows, $cited test citations, $na not applicable"

# Step 2, where the seed text is present: it has no identifier without a row, the index none it lacks.
shopt -s nullglob
seeds=()
[ -n "$spec" ] && seeds=("$spec"/000_*.txt "$spec"/003_*.txt "$spec"/004_*.txt)
if [ ${#seeds[@]} -ne 3 ]; then
  echo "seed-text check skipped: the seed text (000_*, 003_*, 004_*.txt) is not in '${spec:-(none given)}'" \
       "(configure with -DARMPROF_SPEC_DIR=DIR or set ARMPROF_SPEC_DIR to run it)"
else
  # Rule identifiers: R and five capitals, as a word; tables of the converted text write "R ABCDE".
  mapfile -t rules < <(grep -ohE '(^|[^A-Za-z])R ?[A-Z]{5}\b' "${seeds[@]}" | sed -E 's/^[^R]*R ?/R/' | sort -u)
  if [ ${#rules[@]} -lt 50 ]; then
    echo "check_rule_index: only ${#rules[@]} rule identifiers found in the seed text: extraction broken?" >&2
    exit 1
  fi
  for r in "${rules[@]}"; do
    printf '%s\n' "${indexed[@]}" | grep -qx "$r" ||
      { echo "FAIL $r: no row in the rule index of docs/compliance.md"; fail=$((fail + 1)); }
  done
  for r in "${indexed[@]}"; do
    printf '%s\n' "${rules[@]}" | grep -qx "$r" || { echo "FAIL $r: indexed but not in the seed text"; fail=$((fail + 1)); }
  done
  echo "seed text ($spec): ${#rules[@]} identifiers, each with a row"
fi
[ $fail -eq 0 ] && echo "rule index passed, 0 failed" || echo "rule index: $fail failed"
[ $fail -eq 0 ]
