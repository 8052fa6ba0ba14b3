#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# check_rule_index.sh: every Arm rule identifier of the seed text has a row in docs/compliance.md's rule index, and every test file a row cites contains the identifier.
# Usage: check_rule_index.sh SPEC_DIR REPO_ROOT
set -u
spec=${1:?usage: check_rule_index.sh SPEC_DIR REPO_ROOT}
root=${2:?usage: check_rule_index.sh SPEC_DIR REPO_ROOT}
doc="$root/docs/compliance.md"
shopt -s nullglob
seeds=("$spec"/000_*.txt "$spec"/003_*.txt "$spec"/004_*.txt)
if [ ${#seeds[@]} -ne 3 ]; then
  echo "check_rule_index: expected the seed files 000_*, 003_*, 004_* in $spec, found ${#seeds[@]}" >&2
  exit 1
fi
[ -f "$doc" ] || { echo "check_rule_index: $doc not found" >&2; exit 1; }

# Rule identifiers: R and five capitals, as a word; tables of the converted text write "R ABCDE".
mapfile -t rules < <(grep -ohE '(^|[^A-Za-z])R ?[A-Z]{5}\b' "${seeds[@]}" | sed -E 's/^[^R]*R ?/R/' | sort -u)
if [ ${#rules[@]} -lt 50 ]; then
  echo "check_rule_index: only ${#rules[@]} rule identifiers found in the seed text: extraction broken?" >&2
  exit 1
fi

# The index: table rows "| RXXXXX | seed | text | checked by |" after the "## Rule index" heading.
index=$(awk '/^## Rule index/{on=1; next} /^## /{on=0} on' "$doc")
fail=0; cited=0; na=0
for r in "${rules[@]}"; do
  row=$(printf '%s\n' "$index" | grep -E "^\| $r \|" | head -n 1)
  if [ -z "$row" ]; then
    echo "FAIL $r: no row in the rule index of docs/compliance.md"
    fail=$((fail + 1)); continue
  fi
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
# Rows for identifiers the seed text does not have are stale.
for r in $(printf '%s\n' "$index" | grep -oE '^\| R[A-Z]{5} \|' | grep -oE 'R[A-Z]{5}'); do
  printf '%s\n' "${rules[@]}" | grep -qx "$r" || { echo "FAIL $r: indexed but not in the seed text"; fail=$((fail + 1)); }
done
echo "rule index: ${#rules[@]} identifiers, $cited test citations, $na not applicable"
[ $fail -eq 0 ] && echo "${#rules[@]} passed, 0 failed" || echo "$((${#rules[@]} - fail)) passed, $fail failed"
[ $fail -eq 0 ]
