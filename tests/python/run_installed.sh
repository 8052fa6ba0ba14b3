#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# run_installed.sh: installs the build tree into a fresh prefix (cmake --install) and runs the package's tests against that prefix alone.
# usage: run_installed.sh BUILD_TREE PYTHON TESTS_DIR PYTHON_SUBDIR [pytest args...]
set -euo pipefail
build=$1 python=$2 tests=$3 pysub=$4
shift 4
prefix=$(mktemp -d "${TMPDIR:-/tmp}/armprof-py-prefix.XXXXXX")
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >"$prefix.log" 2>&1 || { cat "$prefix.log"; rm -f "$prefix.log"; exit 1; }
rm -f "$prefix.log"
[ -f "$prefix/$pysub/armprof/__init__.py" ] || { echo "FAIL: no armprof package under $prefix/$pysub" >&2; exit 1; }
export PYTHONPATH="$prefix/$pysub" ARMPROF_BIN="$prefix/bin" ARMPROF_PACKAGE_ROOT="$prefix" PYTHONDONTWRITEBYTECODE=1
unset ARMPROF_VP
cd "$tests"
exec "$python" -m pytest -q -p no:cacheprovider "$@" .
