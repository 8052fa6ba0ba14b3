#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs, idempotently, the Debian packages armprof needs to build, test and run.
# --linux: also what `make linux` needs (docs/linux.md): Debian's source entries (deb-src) for
# qemu, the arm64 architecture in dpkg for the guest's packages, and QEMU's build dependencies.
set -euo pipefail
linux=0
case "${1:-}" in
  --linux) linux=1 ;;
  "") ;;
  *) echo "install-deps: unknown option '$1' (--linux or nothing)" >&2; exit 2 ;;
esac

PKGS=(build-essential cmake pkg-config
      libsystemc-dev verilator libcmocka-dev zlib1g-dev
      libcjson-dev libfyaml-dev gnuplot-nox linux-perf
      clang libclang-rt-14-dev gtkwave
      yosys lcov                                  # rtl-cosim: formal proofs (yosys sat), coverage HTML (genhtml)
      help2man abigail-tools dpkg-dev binutils    # packaging: man pages, ABI baseline, .deb
      lintian                                     # the .deb as Debian judges it (ctest -L install)
      qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross binutils-aarch64-linux-gnu
      slurm-wlm munge
      hyperfine
      # the Python package (python/): Debian's python3 and its modules, nothing from PyPI
      python3 python3-dev python3-cffi python3-numpy python3-pandas python3-matplotlib python3-tqdm
      python3-pytest jupyter-nbconvert python3-nbformat python3-ipykernel)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
LINUX_PKGS=(ninja-build meson libglib2.0-dev libpixman-1-dev libfdt-dev flex bison python3 cpio patch)
if [ $linux = 1 ]; then
  for p in "${LINUX_PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
fi
have_arm64() { dpkg --print-foreign-architectures | grep -qx arm64; }
have_deb_src() { grep -rqs '^ *\(Types:.*deb-src\|deb-src \)' /etc/apt/sources.list /etc/apt/sources.list.d/; }
if [ ${#missing[@]} -eq 0 ] && { [ $linux = 0 ] || { have_arm64 && have_deb_src; }; }; then exit 0; fi

[ ${#missing[@]} -eq 0 ] || echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "install-deps: need root (or sudo) to apt-get install: ${missing[*]}" >&2
    echo "install-deps: install them by hand and re-run." >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
if [ $linux = 1 ]; then
  # The guest's packages are arm64 ones (multiarch); QEMU's source comes from deb-src entries for
  # the suites the machine already uses.
  if ! have_arm64; then
    echo "install-deps: adding the arm64 architecture to dpkg (for the guest's packages)"
    $SUDO dpkg --add-architecture arm64
  fi
  if ! have_deb_src; then
    echo "install-deps: adding deb-src entries for Debian's source packages"
    src=/etc/apt/sources.list.d/armprof-deb-src.sources
    tmp=$(mktemp)
    for f in /etc/apt/sources.list.d/*.sources; do
      [ -f "$f" ] && sed -n '/^Types:.*\bdeb\b/,/^$/p' "$f" | sed 's/^Types:.*/Types: deb-src/'
    done >"$tmp"
    if [ -f /etc/apt/sources.list ]; then
      sed -n 's/^deb \(.*\)/Types: deb-src\nURIs: \1/p' /etc/apt/sources.list \
        | awk '/^URIs:/ { n = split(substr($0, 7), a, " "); printf "URIs: %s\nSuites: %s\nComponents:", a[1], a[2];
                           for (i = 3; i <= n; i++) printf " %s", a[i]; printf "\n\n"; next } { print }' >>"$tmp"
    fi
    [ -s "$tmp" ] || { echo "install-deps: no Debian apt sources found to derive deb-src entries from" >&2; exit 1; }
    $SUDO install -m 0644 "$tmp" "$src"
    rm -f "$tmp"
  fi
fi
if ! $SUDO apt-get update -qq; then
  echo "install-deps: apt-get update failed; is a Debian mirror reachable?" >&2
  exit 1
fi
if [ ${#missing[@]} -gt 0 ] && ! $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/tmp/armprof-apt.log 2>&1; then
  echo "install-deps: apt-get install failed (log: /tmp/armprof-apt.log):" >&2
  tail -20 /tmp/armprof-apt.log >&2
  exit 1
fi
echo "install-deps: done"
