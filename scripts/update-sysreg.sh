#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# update-sysreg.sh: regenerates capi/armprof/sysreg.h from capi/sysreg/sysreg.table (run after editing the table; commit both).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp "${TMPDIR:-/tmp}/sysreg.h.XXXXXX")
trap 'rm -f "$tmp"' EXIT
awk -f "$root/capi/sysreg/gen-sysreg.awk" "$root/capi/sysreg/sysreg.table" >"$tmp"
if cmp -s "$tmp" "$root/capi/armprof/sysreg.h"; then
  echo "update-sysreg: capi/armprof/sysreg.h is up to date"
else
  cp "$tmp" "$root/capi/armprof/sysreg.h"
  echo "update-sysreg: wrote capi/armprof/sysreg.h"
fi
