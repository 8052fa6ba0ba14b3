#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# check_lintian.sh: Debian's lintian on the packages make_debs.sh built: any error or warning fails; the changelog's latest entry is the packages' version.
# usage: check_lintian.sh DEB_DIR VERSION
set -euo pipefail
dir=$1 version=$2
command -v lintian >/dev/null || { echo "FAIL: lintian is not installed (scripts/install-deps.sh installs it)" >&2; exit 1; }
debs=("$dir"/*.deb)
[ -f "${debs[0]}" ] || { echo "FAIL: no .deb in $dir" >&2; exit 1; }
status=0
# lintian warns when it runs as root; that is not about the packages.
out=$(lintian --fail-on error,warning --tag-display-limit 0 "${debs[@]}" 2>&1) || status=1
tags=$(grep -v '^running with root privileges' <<<"$out" || true)
[ -z "$tags" ] || echo "$tags"
[ $status -eq 0 ] || echo "FAIL: lintian reports errors or warnings (above)" >&2
# The changelog's latest entry names the version being packaged (add an entry to
# cmake/debian/changelog.in with each version).
top=$(dpkg-deb --fsys-tarfile "$dir/armprof_${version}_$(dpkg --print-architecture).deb" |
  tar -xOf - ./usr/share/doc/armprof/changelog.gz | gzip -dc | head -1)
case $top in
  "armprof ($version) "*) ;;
  *) echo "FAIL: the changelog's latest entry is '$top', not version $version: add one to cmake/debian/changelog.in" >&2; status=1 ;;
esac
[ $status -eq 0 ] && echo "OK: lintian: no error or warning in ${#debs[@]} packages; changelog at $version"
exit $status
