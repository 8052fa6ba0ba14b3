#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# check_deb.sh: the .deb(s) `make package` builds ship the Python package: its modules, its extension module and libarmprof-engine, in Debian's module folder.
# usage: check_deb.sh BUILD_TREE PYTHON_SUBDIR
set -euo pipefail
build=$1 pysub=$2
out=$(mktemp -d "${TMPDIR:-/tmp}/armprof-pydeb.XXXXXX")
trap 'rm -rf "$out"' EXIT
cpack --config "$build/CPackConfig.cmake" -G DEB -B "$out" >"$out/cpack.log" 2>&1 || { cat "$out/cpack.log"; exit 1; }
contents=$(for d in "$out"/*.deb; do dpkg-deb --contents "$d"; done | awk '{print $6}')
status=0
for f in "usr/$pysub/armprof/__init__.py" "usr/$pysub/armprof/decode.py" "usr/$pysub/armprof/engine.py" \
  "usr/$pysub/armprof/spu.py" "usr/$pysub/armprof/_config.py" "usr/include/armprof/engine.h"; do
  grep -qx "\./$f" <<<"$contents" || { echo "FAIL: no .deb holds /$f" >&2; status=1; }
done
grep -q "^\./usr/$pysub/armprof/_ffi\.cpython-.*\.so$" <<<"$contents" || { echo "FAIL: no extension module" >&2; status=1; }
grep -q "^\./usr/lib/.*libarmprof-engine\.so\.[0-9]" <<<"$contents" || { echo "FAIL: no libarmprof-engine.so" >&2; status=1; }
[ $status -eq 0 ] && echo "OK: $(ls "$out"/*.deb | xargs -n1 basename | tr '\n' ' ')hold the armprof Python package"
exit $status
