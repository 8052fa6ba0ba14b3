#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds qemu-system-aarch64 with the Statistical Profiling Extension: Debian's qemu source package
# (the version of the installed qemu-user) plus the patch series in qemu/patches, aarch64-softmmu
# only, without the optional front ends, tools, docs or user mode.
#
#   scripts/qemu-build.sh [--cache DIR] [--jobs N] [--print-path]
#
# The binary lands in a cache folder keyed by the Debian source version, the patches' content and
# this script ($ARMPROF_CACHE, default ~/.cache/armprof): qemu-<key>/qemu-system-aarch64. A
# complete folder is reused, so later builds and CI runs take seconds. Needs deb-src entries and
# the build dependencies (scripts/install-deps.sh --linux).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cache=${ARMPROF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/armprof}
jobs=$(nproc 2>/dev/null || echo 2)
print_path=0
while [ $# -gt 0 ]; do
  case "$1" in
    --cache) cache=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --print-path) print_path=1; shift ;;
    -h|--help) sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "qemu-build: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
die() { echo "qemu-build: $*" >&2; exit 1; }
say() { echo "qemu-build: $*" >&2; }

patches=$top/qemu/patches
[ -f "$patches/series" ] || die "no $patches/series"
version=$(dpkg-query -W -f='${source:Version}' qemu-user 2>/dev/null || true)
[ -n "$version" ] || die "qemu-user is not installed: its version selects Debian's qemu source (scripts/install-deps.sh)"
configure_flags=(--target-list=aarch64-softmmu --without-default-features --enable-tcg --enable-plugins
                 --enable-fdt=system --disable-docs --disable-tools --disable-user --disable-werror
                 --disable-install-blobs)
key=$( { echo "$version"; echo "${configure_flags[*]}"; cat "$patches/series";
         while read -r p; do [ -n "$p" ] && cat "$patches/$p"; done <"$patches/series"; cat "$0"; } \
       | sha256sum | cut -c1-16)
out=$cache/qemu-$key
if [ -x "$out/qemu-system-aarch64" ] && [ -f "$out/complete" ]; then
  [ $print_path = 1 ] && echo "$out/qemu-system-aarch64"
  exit 0
fi

for t in ninja meson pkg-config patch dpkg-source; do
  command -v $t >/dev/null || die "$t missing: run scripts/install-deps.sh --linux"
done
mkdir -p "$cache"
work=$cache/qemu-$key.build
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
say "fetching Debian's qemu source $version"
( cd "$work" && apt-get source -q --only-source "qemu=$version" >"$work/source.log" 2>&1 ) \
  || { tail -5 "$work/source.log" >&2; die "apt-get source qemu=$version failed (deb-src entries: scripts/install-deps.sh --linux)"; }
src=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'qemu-*' | head -1)
[ -d "$src" ] || die "no source tree after apt-get source"
while read -r p; do
  [ -n "$p" ] || continue
  patch -d "$src" -p1 --batch --forward --quiet <"$patches/$p" || die "patch $p does not apply to Debian's $version"
done <"$patches/series"
say "configuring and building (aarch64-softmmu, $jobs jobs; a few minutes)"
mkdir -p "$work/b"
( cd "$work/b" && "$src/configure" "${configure_flags[@]}" >"$work/configure.log" 2>&1 ) \
  || { tail -20 "$work/configure.log" >&2; die "configure failed (log above)"; }
( cd "$work/b" && ninja -j"$jobs" qemu-system-aarch64 >"$work/ninja.log" 2>&1 ) \
  || { grep -E 'error|FAILED' "$work/ninja.log" | head -20 >&2; die "build failed"; }
rm -rf "$out.tmp"
mkdir -p "$out.tmp"
cp "$work/b/qemu-system-aarch64" "$out.tmp/"
{ echo "debian-source qemu $version"; echo "patches:"; cat "$patches/series"; } >"$out.tmp/manifest.txt"
touch "$out.tmp/complete"
rm -rf "$out"
mv "$out.tmp" "$out"
say "built $out/qemu-system-aarch64"
[ $print_path = 1 ] && echo "$out/qemu-system-aarch64"
exit 0
