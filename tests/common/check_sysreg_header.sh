#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# check_sysreg_header.sh: capi/armprof/sysreg.h is what gen-sysreg.awk makes of capi/sysreg/sysreg.table, and the generator refuses broken tables with the line and the reason.
# usage: check_sysreg_header.sh AWK SOURCE_TREE
set -euo pipefail
awk=$1 src=$2
gen=$src/capi/sysreg/gen-sysreg.awk table=$src/capi/sysreg/sysreg.table
work=$(mktemp -d "${TMPDIR:-/tmp}/armprof-sysreg.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$awk" -f "$gen" "$table" >"$work/sysreg.h"
if ! diff -u "$src/capi/armprof/sysreg.h" "$work/sysreg.h" >"$work/diff"; then
  head -40 "$work/diff"
  echo "FAIL: capi/armprof/sysreg.h is not generated from capi/sysreg/sysreg.table: run scripts/update-sysreg.sh" >&2
  exit 1
fi

# Broken tables: each must fail, naming the line and the problem, with no header on success's terms.
status=0
refuse() { # NAME EXPECTED_MESSAGE TABLE_TEXT
  printf '%s\n' "$3" >"$work/$1.table"
  if "$awk" -f "$gen" "$work/$1.table" >"$work/$1.h" 2>"$work/$1.err"; then
    echo "FAIL: $1: the generator accepted it" >&2; status=1; return
  fi
  grep -qF -- "$2" "$work/$1.err" || { echo "FAIL: $1: message '$(cat "$work/$1.err")' lacks '$2'" >&2; status=1; }
}
refuse gap "sysreg.table:3: R.F starts at bit 7, expected bit 8" $'Sysreg\tR\t3\t0\t9\t9\t0\nRes0\t63:9\nField\t7:0\tF\nEndSysreg'
refuse overlap "R.G starts at bit 7, expected bit 6" $'Sysreg\tR\t3\t0\t9\t9\t0\nRes0\t63:8\nField\t7\tF\nField\t7:0\tG\nEndSysreg'
refuse short "R: bits 3:0 are not described" $'Sysreg\tR\t3\t0\t9\t9\t0\nRes0\t63:4\nEndSysreg'
refuse dupfield "R.F is defined twice" $'Sysreg\tR\t3\t0\t9\t9\t0\nRes0\t63:2\nField\t1\tF\nField\t0\tF\nEndSysreg'
refuse dupreg "R is defined twice" $'Sysreg\tR\t3\t0\t9\t9\t0\nField\t63:0\tF\nEndSysreg\nSysreg\tR\t3\t0\t9\t9\t1\nField\t63:0\tF\nEndSysreg'
refuse subout "R.S [9:8] is not inside an earlier field" $'Sysreg\tR\t3\t0\t9\t9\t0\nRes0\t63:8\nField\t7:0\tF\nSubfield\t9:8\tS\nEndSysreg'
refuse enumwidth "R.F value 0b1 is not 2 bits wide" $'Sysreg\tR\t3\t0\t9\t9\t0\nRes0\t63:2\nEnum\t1:0\tF\n\t0b1\tONE\nEndEnum\nEndSysreg'
refuse unknown "unknown statement 'Feild' in R" $'Sysreg\tR\t3\t0\t9\t9\t0\nFeild\t63:0\tF\nEndSysreg'
refuse unterminated "the table ends inside R" $'Sysreg\tR\t3\t0\t9\t9\t0\nField\t63:0\tF'
refuse badenc "bad encoding column 'x'" $'Sysreg\tR\t3\t0\t9\tx\t0\nField\t63:0\tF\nEndSysreg'
refuse fields "Fields needs a register defined earlier" $'Sysreg\tR\t3\t0\t9\t9\t0\nFields\tQ\nEndSysreg'
[ $status -eq 0 ] && echo "OK: capi/armprof/sysreg.h is generated from the table; 11 broken tables refused"
exit $status
