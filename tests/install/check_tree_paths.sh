#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# check_tree_paths.sh: no installed text file (CMake package, .pc, headers, docs) and no installed ELF RUNPATH names the source or build tree.
# usage: check_tree_paths.sh PREFIX SOURCE_TREE BUILD_TREE
set -uo pipefail
prefix=$1 src_tree=$2 build_tree=$3
status=0
hits=$(grep -rIlF -e "$src_tree" -e "$build_tree" "$prefix")
if [ -n "$hits" ]; then
  echo "FAIL: installed files that name $src_tree or $build_tree:" >&2
  echo "$hits" | sed 's/^/  /' >&2
  status=1
fi
n=0
while IFS= read -r f; do
  if readelf -h "$f" >/dev/null 2>&1; then
    n=$((n + 1))
    rp=$(readelf -d "$f" | sed -n 's/.*R\(UN\)\?PATH.*\[\(.*\)\]/\2/p')
    case "$rp" in *"$src_tree"* | *"$build_tree"*) echo "FAIL: $f has RUNPATH $rp" >&2; status=1 ;; esac
  fi
done < <(find "$prefix" -type f \( -path '*/bin/*' -o -name '*.so*' \))
for f in armprof.pc armprofConfig.cmake armprofConfigVersion.cmake armprofTargets.cmake; do
  [ -n "$(find "$prefix" -name "$f")" ] || { echo "FAIL: $f is not installed" >&2; status=1; }
done
[ "$n" -ge 5 ] || { echo "FAIL: only $n ELF files installed (tools and libraries expected)" >&2; status=1; }
[ $status -eq 0 ] && echo "OK: $n ELF files and the text files under $prefix name neither tree"
exit $status
