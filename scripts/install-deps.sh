#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs, idempotently, the Debian packages armprof needs to build, test and run.
set -euo pipefail

PKGS=(build-essential cmake pkg-config
      libsystemc-dev verilator libcmocka-dev zlib1g-dev
      libcjson-dev libfyaml-dev gnuplot-nox linux-perf
      clang libclang-rt-14-dev gtkwave
      yosys lcov                                  # rtl-cosim: formal proofs (yosys sat), coverage HTML (genhtml)
      help2man abigail-tools dpkg-dev binutils    # packaging: man pages, ABI baseline, .deb
      qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross binutils-aarch64-linux-gnu
      slurm-wlm munge
      hyperfine)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "install-deps: need root (or sudo) to apt-get install: ${missing[*]}" >&2
    echo "install-deps: install them by hand and re-run." >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get update -qq; then
  echo "install-deps: apt-get update failed; is a Debian mirror reachable?" >&2
  exit 1
fi
if ! $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/tmp/armprof-apt.log 2>&1; then
  echo "install-deps: apt-get install failed (log: /tmp/armprof-apt.log):" >&2
  tail -20 /tmp/armprof-apt.log >&2
  exit 1
fi
echo "install-deps: done"
