#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# check_deb.sh: the packages make_debs.sh built: the Debian split (names after the SONAMEs, -dev, the tools), control fields, what each holds, and that together they hold exactly what `cmake --install` installs.
# usage: check_deb.sh DEB_DIR VERSION SOVERSION INSTALL_PREFIX
set -euo pipefail
dir=$1 version=$2 sover=$3 prefix=$4
arch=$(dpkg --print-architecture)
multi=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
lib=usr/lib/$multi
status=0
fail() { echo "FAIL: $*" >&2; status=1; }

declare -A files deps
files[libarmprof$sover]="$lib/libarmprof.so.$version $lib/libarmprof.so.$sover"
deps[libarmprof$sover]="libc6"
files[libarmprof-systemc$sover]="$lib/libarmprof-systemc.so.$version $lib/libarmprof-systemc.so.$sover"
deps[libarmprof-systemc$sover]="libarmprof$sover libc6 libstdc++6 libsystemc"
files[libarmprof-dev]="$lib/libarmprof.so $lib/libarmprof.a $lib/pkgconfig/armprof.pc
  usr/include/armprof/armprof.h usr/include/armprof/version.h usr/include/armprof/spu.h usr/include/armprof/trbu.h
  usr/include/armprof/pmu.h usr/include/armprof/spe.h usr/include/armprof/sysreg.h usr/include/armprof/bits.h
  $lib/cmake/armprof/armprofConfig.cmake $lib/cmake/armprof/armprofConfigVersion.cmake
  $lib/cmake/armprof/armprofTargets.cmake"
deps[libarmprof-dev]="libarmprof$sover"
files[libarmprof-systemc-dev]="$lib/libarmprof-systemc.so $lib/pkgconfig/armprof-systemc.pc
  usr/include/armprof/systemc/spu_module.h usr/include/armprof/systemc/trbu_module.h
  usr/include/armprof/systemc/pmu_module.h usr/include/armprof/systemc/soc.h usr/include/armprof/systemc/rtl/spu_rtl.h
  $lib/cmake/armprof/armprofSystemcTargets.cmake"
deps[libarmprof-systemc-dev]="libarmprof-systemc$sover libarmprof-dev libsystemc-dev pkgconf"
files[armprof]="usr/bin/armprof-run usr/bin/armprof-decode usr/bin/armprof-explore usr/bin/armprof-vp
  usr/share/man/man1/armprof-run.1.gz usr/share/man/man1/armprof-decode.1.gz
  usr/share/man/man1/armprof-explore.1.gz usr/share/man/man1/armprof-vp.1.gz
  usr/share/doc/armprof/README.md usr/share/doc/armprof/integration.md
  usr/share/doc/armprof/examples/integration/CMakeLists.txt usr/share/doc/armprof/examples/integration/Makefile
  usr/share/doc/armprof/examples/integration/foreign_soc.cpp
  $lib/armprof/libarmprof-qemu.so usr/share/man/man7/armprof-qemu.7.gz
  usr/bin/armprof-cosim usr/share/man/man1/armprof-cosim.1.gz"
deps[armprof]="libc6 libstdc++6 libsystemc libcjson1 libfyaml0"
# The Python layer (python/, left out with ARMPROF_WITHOUT=python): the engine library and the package.
if compgen -G "$dir/python3-armprof_*.deb" >/dev/null; then
  files[libarmprof-engine$sover]="$lib/libarmprof-engine.so.$version $lib/libarmprof-engine.so.$sover"
  deps[libarmprof-engine$sover]="libarmprof$sover libc6"
  files[libarmprof-dev]+=" $lib/libarmprof-engine.so usr/include/armprof/engine.h"
  files[python3-armprof]="usr/lib/python3/dist-packages/armprof/__init__.py usr/lib/python3/dist-packages/armprof/decode.py"
  deps[python3-armprof]="libarmprof-engine$sover python3 python3-numpy python3-pandas"
fi

all=$(mktemp "${TMPDIR:-/tmp}/armprof-deb-files.XXXXXX")
trap 'rm -f "$all"' EXIT
for pkg in "${!files[@]}"; do
  deb=$dir/${pkg}_${version}_${arch}.deb
  [ -f "$deb" ] || { fail "no $(basename "$deb"); there are: $(cd "$dir" && echo *.deb)"; continue; }
  field() { dpkg-deb -f "$deb" "$1"; }
  [ "$(field Package)" = "$pkg" ] || fail "$pkg: Package: $(field Package)"
  [ "$(field Version)" = "$version" ] || fail "$pkg: Version: $(field Version)"
  [ "$(field Architecture)" = "$arch" ] || fail "$pkg: Architecture: $(field Architecture)"
  [ "$(field Source)" = armprof ] || fail "$pkg: Source: $(field Source)"
  names=$(field Depends | tr ',|' '\n\n' | awk 'NF {print $1}')
  for d in ${deps[$pkg]}; do
    grep -qxF "$d" <<<"$names" || fail "$pkg: Depends lacks $d: $(field Depends)"
  done
  contents=$(dpkg-deb --contents "$deb" | awk '{print $6}' | sed 's|^\./||')
  for f in ${files[$pkg]} usr/share/doc/$pkg/copyright usr/share/doc/$pkg/changelog.gz; do
    grep -qxF "$f" <<<"$contents" || fail "$pkg lacks /$f"
  done
  # Files (not folders) of the package, for the comparison with `cmake --install` below.
  dpkg-deb --contents "$deb" | awk '$1 !~ /^d/ {print $6}' | sed 's|^\./usr/||' >>"$all"
done
# The runtime library packages activate the ldconfig trigger and have no maintainer scripts.
for pkg in libarmprof$sover libarmprof-systemc$sover libarmprof-engine$sover; do
  deb=$dir/${pkg}_${version}_${arch}.deb
  [ -f "$deb" ] || continue
  [ "$(dpkg-deb --ctrl-tarfile "$deb" | tar -xOf - ./triggers 2>/dev/null)" = "activate-noawait ldconfig" ] ||
    fail "$pkg: no 'activate-noawait ldconfig' trigger"
  if dpkg-deb --ctrl-tarfile "$deb" | tar -tf - | grep -qE '(postinst|postrm)$'; then
    fail "$pkg has maintainer scripts: $(dpkg-deb --ctrl-tarfile "$deb" | tar -tf - | tr '\n' ' ')"
  fi
done
# Together the packages hold what `cmake --install` installs, each file once (and per package its
# copyright and changelog.gz in /usr/share/doc/<package>).
dups=$(sort "$all" | uniq -d)
[ -z "$dups" ] || fail "in two packages: $dups"
installed=$(cd "$prefix" && find . ! -type d | sed 's|^\./||' | sort)
packaged=$(grep -vE '^share/doc/[^/]+/changelog\.gz$|^share/doc/(lib|python3-)[^/]+/copyright$' "$all" | sort)
if [ "$installed" != "$packaged" ]; then
  diff <(echo "$installed") <(echo "$packaged") | head -20 >&2
  fail "the packages do not hold what cmake --install installs (< installed only, > packaged only)"
fi
# The man pages are help2man's rendering of --help, compressed.
dpkg-deb --fsys-tarfile "$dir/armprof_${version}_${arch}.deb" | tar -xOf - ./usr/share/man/man1/armprof-run.1.gz | gzip -dc >"$all"
grep -q '^\.SH DESCRIPTION' "$all" && grep -q 'armprof\\-run' "$all" || fail "armprof-run.1.gz has no DESCRIPTION section"
[ $status -eq 0 ] && echo "OK: ${#files[@]} packages, $(wc -l <<<"$packaged") files as cmake --install installs them"
exit $status
