#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make linux`: the SPE-enabled qemu-system-aarch64 (scripts/qemu-build.sh) and the Debian arm64
# guest (scripts/linux-guest.sh), both cached outside the build folder, and BUILD/linux.env, which
# names them and the plugin for scripts/linux-run.sh, scripts/linux-perf.sh and the `linux` tests.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
plugin=$(cd "$build" && pwd)/lib/libarmprof-qemu-system.so
[ -f "$plugin" ] || { echo "linux-setup: $plugin is not built (make build)" >&2; exit 1; }
qemu=$("$here/qemu-build.sh" --print-path)
guest=$("$here/linux-guest.sh" --print-dir)
cat >"$build/linux.env" <<ENV
# written by scripts/linux-setup.sh (make linux)
LINUX_QEMU=$qemu
LINUX_GUEST=$guest
LINUX_PLUGIN=$plugin
ENV
echo "linux: qemu $qemu"
echo "linux: guest $guest ($(cat "$guest/kernel-release"))"
echo "linux: wrote $build/linux.env; try scripts/linux-perf.sh --out out/linux -- PROG"
