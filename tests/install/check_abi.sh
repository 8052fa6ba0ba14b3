#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# check_abi.sh: abidiff of the built libarmprof.so against the checked-in baseline abi/libarmprof.abi; any difference fails.
# usage: check_abi.sh BASELINE LIBARMPROF_SO CAPI_HEADERS_DIR
set -uo pipefail
base=$1 lib=$2 hdrs=$3
command -v abidiff >/dev/null || { echo "FAIL: abidiff not found (scripts/install-deps.sh installs abigail-tools)" >&2; exit 1; }
[ -f "$base" ] || { echo "FAIL: no baseline $base (scripts/update-abi-baseline.sh writes it)" >&2; exit 1; }
abidiff --hd2 "$hdrs" --drop-private-types "$base" "$lib"
rc=$?
if [ $rc -eq 0 ]; then
  echo "OK: libarmprof.so has the ABI of $(basename "$base")"
  exit 0
fi
# abidiff's status bits: 1 error, 2 usage, 4 ABI change, 8 incompatible ABI change.
cat >&2 <<MSG
FAIL: the ABI of libarmprof.so differs from the baseline $base (abidiff status $rc:$( ((rc & 1)) && echo " error")$( ((rc & 4)) && echo " ABI change")$( ((rc & 8)) && echo ", incompatible")).
  If the change is deliberate (a capi/armprof/ header changed: functions or types added or
  changed, e.g. after merging work on capi/), regenerate the baseline and commit it:
      scripts/update-abi-baseline.sh build && git add abi/libarmprof.abi
  and, for an incompatible change, bump ARMPROF_VERSION_MINOR (0.x) or MAJOR in
  capi/armprof/version.h (the SONAME follows). If it is not deliberate, the report above
  names the function or type that changed.
MSG
exit 1
