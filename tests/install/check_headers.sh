#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# check_headers.sh: every installed header compiles from the installed prefix alone (C11 and C++17 for armprof/*.h, C++17 with SystemC for armprof/systemc/), warnings as errors.
# usage: check_headers.sh PREFIX CC CXX
set -euo pipefail
prefix=$1 cc=$2 cxx=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
inc=$prefix/include
n=0
for h in "$inc"/armprof/*.h; do echo "#include <armprof/$(basename "$h")>"; n=$((n + 1)); done >"$tmp/c.c"
cp "$tmp/c.c" "$tmp/c.cpp"
"$cc" -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$inc" "$tmp/c.c"
"$cxx" -std=c++17 -Wall -Wextra -Werror -fsyntax-only -I"$inc" "$tmp/c.cpp"
m=0
if [ -d "$inc/armprof/systemc" ]; then
  (cd "$inc" && find armprof/systemc -name '*.h' | sort | sed 's/.*/#include <&>/') >"$tmp/sc.cpp"
  m=$(wc -l <"$tmp/sc.cpp")
  # shellcheck disable=SC2046
  "$cxx" -std=c++17 -Wall -Wextra -Werror -fsyntax-only -DSC_INCLUDE_DYNAMIC_PROCESSES -I"$inc" \
    $(pkg-config --cflags systemc) "$tmp/sc.cpp"
fi
[ "$n" -ge 5 ] || { echo "FAIL: only $n C headers installed" >&2; exit 1; }
echo "OK: $n C headers (C11, C++17) and $m SystemC headers compile from $inc alone"
