#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the Linux guest for the full-system SPE runs from Debian's arm64 packages: the kernel image
# and its arm_spe_pmu module, busybox, perf and the libraries perf needs, as an initramfs.
#
#   scripts/linux-guest.sh [--cache DIR] [--print-dir]
#
# The result lands in a cache folder keyed by the packages' versions and this script's content
# ($ARMPROF_CACHE, default ~/.cache/armprof): guest-<key>/{Image, base.cpio, kernel-release,
# manifest.txt, kbuild/} (kbuild: the kernel's headers and kbuild tools, for test modules). A folder that is complete is reused. Needs the arm64 architecture in dpkg and apt
# lists for it (scripts/install-deps.sh --linux sets both up); nothing is installed on the host.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${ARMPROF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/armprof}
print_dir=0
while [ $# -gt 0 ]; do
  case "$1" in
    --cache) cache=$2; shift 2 ;;
    --print-dir) print_dir=1; shift ;;
    -h|--help) sed -n '3,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "linux-guest: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
say() { [ -t 2 ] && echo "linux-guest: $*" >&2 || echo "linux-guest: $*" >&2; }
die() { echo "linux-guest: $*" >&2; exit 1; }

dpkg --print-foreign-architectures | grep -qx arm64 \
  || die "dpkg has no arm64 architecture: run scripts/install-deps.sh --linux"
command -v aarch64-linux-gnu-readelf >/dev/null || die "aarch64-linux-gnu-readelf missing (binutils-aarch64-linux-gnu)"
command -v cpio >/dev/null || die "cpio missing: run scripts/install-deps.sh --linux"

# The kernel: the package the linux-image-arm64 meta package depends on.
kpkg=$(apt-cache depends linux-image-arm64:arm64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9][^:]*\).*/\1/p' | head -1)
[ -n "$kpkg" ] || die "no linux-image-arm64:arm64 in the apt lists: run scripts/install-deps.sh --linux"
krel=${kpkg#linux-image-}
top=(busybox-static linux-perf)
# The kernel's headers and the host's (amd64) kbuild tools, to build test modules for this kernel.
hdrs=("linux-headers-$krel" "linux-headers-${krel%-arm64}-common")
kbuild_pkg=$(apt-cache depends "linux-headers-$krel:arm64" 2>/dev/null | sed -n 's/^ *Depends: \(linux-kbuild-[0-9.]*\).*/\1/p' | head -1)
[ -n "$kbuild_pkg" ] || die "no linux-headers-$krel:arm64 in the apt lists"
# Libraries: every lib* package in linux-perf's dependency closure (only the files perf needs are kept).
mapfile -t libs < <(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
                      --no-replaces --no-enhances --no-pre-depends linux-perf:arm64 2>/dev/null \
                    | sed -n 's/^\(lib[^ <>]*\|zlib1g\):arm64$/\1/p' | sort -u)
[ ${#libs[@]} -gt 5 ] || die "cannot resolve linux-perf:arm64's libraries from the apt lists"
pkgs=("$kpkg" "${top[@]}" "${libs[@]}")
# One apt-cache call for every package's candidate version: "name:arm64 version" lines.
manifest=$(apt-cache policy "${pkgs[@]/%/:arm64}" 2>/dev/null \
           | awk '/^[^ ].*:$/ { p = substr($0, 1, length($0) - 1) } /^ *Candidate:/ { print p, $2 }')
for p in "${pkgs[@]}"; do
  grep -q "^$p:arm64 [^(]" <<<"$manifest" || die "$p:arm64 is not in the apt lists"
done
manifest+=$'\n'$(apt-cache policy "${hdrs[0]}:arm64" "${hdrs[1]}" "$kbuild_pkg:amd64" 2>/dev/null \
           | awk '/^[^ ].*:$/ { p = substr($0, 1, length($0) - 1) } /^ *Candidate:/ { print p, $2 }')
key=$( { printf '%s' "$manifest"; cat "$0"; } | sha256sum | cut -c1-16)
out=$cache/guest-$key
if [ -f "$out/complete" ]; then
  [ $print_dir = 1 ] && echo "$out"
  exit 0
fi

say "building the guest ($kpkg, busybox, perf) in $out"
work=$(mktemp -d "${TMPDIR:-/tmp}/armprof-guest.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/debs" "$work/x" "$work/root"
( cd "$work/debs" && apt-get download -q "${pkgs[@]/%/:arm64}" >/dev/null 2>"$work/apt.err" ) \
  || { cat "$work/apt.err" >&2; die "apt-get download failed"; }
for d in "$work"/debs/*.deb; do dpkg-deb -x "$d" "$work/x"; done
mkdir -p "$work/kdebs" "$work/kbuild"
( cd "$work/kdebs" && apt-get download -q "${hdrs[0]}:arm64" "${hdrs[1]}" "$kbuild_pkg:amd64" >/dev/null 2>"$work/apt.err" ) \
  || { cat "$work/apt.err" >&2; die "apt-get download of the kernel headers failed"; }
for d in "$work"/kdebs/*.deb; do dpkg-deb -x "$d" "$work/kbuild"; done
# The arm64 headers include the common ones by absolute path: point it into this folder.
kb_top=$work/kbuild/usr/src/linux-headers-$krel
sed -i "s|include /usr/src/|include \$(dir \$(realpath \$(lastword \$(MAKEFILE_LIST))))../|" "$kb_top/Makefile"

x=$work/x r=$work/root
mkdir -p "$r"/{bin,sbin,dev,proc,sys,tmp,root,etc,lib/modules,usr/bin,usr/lib,out,job}
cp "$x/bin/busybox" "$r/bin/busybox"
cp "$x/boot/vmlinuz-$krel" "$work/Image"
for m in drivers/perf/arm_spe_pmu.ko drivers/virtio/virtio_mmio.ko drivers/block/virtio_blk.ko; do
  f=$x/lib/modules/$krel/kernel/$m
  [ -f "$f" ] || die "$kpkg has no $m"
  cp "$f" "$r/lib/modules/"
done
cp "$x/usr/bin/perf" "$r/usr/bin/perf"
[ -d "$x/usr/lib/perf-core" ] && cp -a "$x/usr/lib/perf-core" "$r/usr/lib/"
[ -d "$x/usr/lib/traceevent" ] && cp -a "$x/usr/lib/traceevent" "$r/usr/lib/"

# Shared libraries: the closure of perf's DT_NEEDED entries, from the extracted packages.
libdirs=("$x/lib/aarch64-linux-gnu" "$x/usr/lib/aarch64-linux-gnu" "$x/lib" "$x/usr/lib")
find_lib() {
  local d
  for d in "${libdirs[@]}"; do [ -e "$d/$1" ] && { echo "$d/$1"; return 0; }; done
  return 1
}
declare -A seen=()
queue=("$r/usr/bin/perf")
while [ ${#queue[@]} -gt 0 ]; do
  f=${queue[0]}; queue=("${queue[@]:1}")
  for so in $(aarch64-linux-gnu-readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    [ -n "${seen[$so]:-}" ] && continue
    seen[$so]=1
    src=$(find_lib "$so") || die "perf needs $so, which no downloaded package provides"
    real=$(readlink -f "$src")
    mkdir -p "$r/usr/lib/aarch64-linux-gnu"
    cp "$real" "$r/usr/lib/aarch64-linux-gnu/$so"
    queue+=("$r/usr/lib/aarch64-linux-gnu/$so")
  done
done
# The dynamic loader, where the ELF interpreter path names it.
ld=$(find_lib ld-linux-aarch64.so.1) || die "no ld-linux-aarch64.so.1 (libc6:arm64)"
cp "$(readlink -f "$ld")" "$r/lib/ld-linux-aarch64.so.1"
ln -s ../lib "$r/usr/lib64" 2>/dev/null || true
mkdir -p "$r/lib/aarch64-linux-gnu"
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$r/etc/passwd"
printf 'root:x:0:\n' >"$r/etc/group"

# /init: mounts, the output disk's driver, then the job that the per-run archive brings (/job/run.sh).
cat >"$r/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin HOME=/root
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
insmod /lib/modules/virtio_mmio.ko
insmod /lib/modules/virtio_blk.ko
mkdir -p /out
echo "armprof-guest: up"
if [ -x /job/run.sh ]; then
  /job/run.sh
  echo "armprof-guest: job exit $?"
fi
# /out goes back to the host as a tar archive on the raw disk /dev/vda (scripts/linux-run.sh)
if [ -b /dev/vda ]; then
  tar -C /out -cf /dev/vda . && echo "armprof-guest: /out saved"
fi
[ -x /job/shell.sh ] && /job/shell.sh
sync
poweroff -f
EOF
chmod +x "$r/init"
( cd "$r" && find . | LC_ALL=C sort | cpio -o -H newc --quiet ) >"$work/base.cpio"

mkdir -p "$out.tmp"
mv "$work/Image" "$work/base.cpio" "$out.tmp/"
mv "$work/kbuild" "$out.tmp/kbuild"
echo "$krel" >"$out.tmp/kernel-release"
cp "$x/boot/System.map-$krel" "$out.tmp/System.map"
printf '%s' "$manifest" >"$out.tmp/manifest.txt"
touch "$out.tmp/complete"
rm -rf "$out"
mv "$out.tmp" "$out"
say "guest ready: $out ($(du -sh "$out" | cut -f1))"
[ $print_dir = 1 ] && echo "$out"
exit 0
