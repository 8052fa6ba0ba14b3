#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# run_notebook.sh: executes a notebook with jupyter nbconvert --execute (any cell error fails it) and checks that its plots are inline.
# usage: run_notebook.sh PYTHON NOTEBOOK MIN_PLOTS
set -euo pipefail
python=$1 nb=$2 min_plots=$3
out=$(mktemp -d "${TMPDIR:-/tmp}/armprof-nb.XXXXXX")
trap 'rm -rf "$out"' EXIT
export PYDEVD_DISABLE_FILE_VALIDATION=1
"$python" -m nbconvert --to notebook --execute --ExecutePreprocessor.timeout=600 \
  --output-dir "$out" --output executed "$nb" 2>"$out/log" || { cat "$out/log" >&2; exit 1; }
"$python" - "$out/executed.ipynb" "$min_plots" <<'PY'
import sys
import nbformat
nb = nbformat.read(sys.argv[1], as_version=4)
code = [c for c in nb.cells if c.cell_type == "code"]
plots = sum(1 for c in code for o in c.outputs if "image/png" in o.get("data", {}))
errors = [o for c in code for o in c.outputs if o.output_type == "error"]
unrun = [c for c in code if c.execution_count is None]
if errors or unrun or plots < int(sys.argv[2]):
    sys.exit("FAIL: %d error outputs, %d cells not run, %d inline plots (want >= %s)" % (
        len(errors), len(unrun), plots, sys.argv[2]))
print("OK: %d cells (%d code) ran, %d inline plots" % (len(nb.cells), len(code), plots))
PY
