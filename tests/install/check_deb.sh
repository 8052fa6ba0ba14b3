#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# check_deb.sh: builds the .deb with CPack (what `make package` does) and checks its name, control fields and contents with dpkg-deb.
# usage: check_deb.sh BUILD_TREE VERSION SOVERSION
set -euo pipefail
build=$1 version=$2 sover=$3
arch=$(dpkg --print-architecture)
out=$(mktemp -d "${TMPDIR:-/tmp}/armprof-deb.XXXXXX")
trap 'rm -rf "$out"' EXIT
cpack --config "$build/CPackConfig.cmake" -G DEB -B "$out" >"$out/cpack.log" 2>&1 || { cat "$out/cpack.log"; exit 1; }
deb=$out/armprof_${version}_${arch}.deb
[ -f "$deb" ] || { echo "FAIL: no $(basename "$deb"); cpack made:" $(ls "$out") >&2; exit 1; }
status=0
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = armprof ] || { echo "FAIL: Package: $(field Package)" >&2; status=1; }
[ "$(field Version)" = "$version" ] || { echo "FAIL: Version: $(field Version)" >&2; status=1; }
[ "$(field Architecture)" = "$arch" ] || { echo "FAIL: Architecture: $(field Architecture)" >&2; status=1; }
dep=$(field Depends)
# Run-time libraries (dpkg-shlibdeps) and what building against the headers needs.
names=$(echo "$dep" | tr ',|' '\n\n' | awk 'NF {print $1}')
for d in libc6 libstdc++6 libsystemc libsystemc-dev libcjson1 libfyaml0; do
  grep -qxF "$d" <<<"$names" || { echo "FAIL: Depends lacks $d: $dep" >&2; status=1; }
done
contents=$(dpkg-deb --contents "$deb" | awk '{print $6}')
for f in \
  usr/lib/libarmprof.so.$version usr/lib/libarmprof.so.$sover usr/lib/libarmprof.so usr/lib/libarmprof.a \
  usr/lib/libarmprof-systemc.so.$version usr/lib/libarmprof-systemc.so.$sover usr/lib/libarmprof-systemc.so \
  usr/include/armprof/armprof.h usr/include/armprof/version.h usr/include/armprof/spu.h \
  usr/include/armprof/trbu.h usr/include/armprof/pmu.h usr/include/armprof/spe.h \
  usr/include/armprof/systemc/spu_module.h usr/include/armprof/systemc/trbu_module.h \
  usr/include/armprof/systemc/pmu_module.h usr/include/armprof/systemc/soc.h usr/include/armprof/systemc/rtl/spu_rtl.h \
  usr/bin/armprof-run usr/bin/armprof-decode usr/bin/armprof-explore usr/bin/armprof-vp \
  usr/share/man/man1/armprof-run.1 usr/share/man/man1/armprof-decode.1 \
  usr/share/man/man1/armprof-explore.1 usr/share/man/man1/armprof-vp.1 \
  usr/lib/armprof/libarmprof-qemu.so usr/share/man/man7/armprof-qemu.7 \
  usr/bin/armprof-cosim usr/share/man/man1/armprof-cosim.1 \
  usr/lib/cmake/armprof/armprofConfig.cmake usr/lib/cmake/armprof/armprofConfigVersion.cmake \
  usr/lib/cmake/armprof/armprofTargets.cmake usr/lib/cmake/armprof/armprofSystemcTargets.cmake \
  usr/lib/pkgconfig/armprof.pc usr/lib/pkgconfig/armprof-systemc.pc \
  usr/share/doc/armprof/README.md usr/share/doc/armprof/integration.md \
  usr/share/doc/armprof/examples/integration/CMakeLists.txt usr/share/doc/armprof/examples/integration/sc_integration.cpp; do
  grep -qx "\./$f" <<<"$contents" ||
    { echo "FAIL: the .deb lacks /$f" >&2; status=1; }
done
# The man pages are help2man's rendering of --help, not empty shells.
dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./usr/share/man/man1/armprof-run.1 >"$out/armprof-run.1"
grep -q '^\.SH DESCRIPTION' "$out/armprof-run.1" && grep -q 'armprof\\-run' "$out/armprof-run.1" ||
  { echo "FAIL: armprof-run.1 has no DESCRIPTION section" >&2; status=1; }
[ $status -eq 0 ] && echo "OK: $(basename "$deb"): Depends: $dep; $(echo "$contents" | wc -l) entries"
exit $status
