/* SPDX-License-Identifier: Apache-2.0 */
/* guest_maps.h: the guest program's file mappings (executable, interpreter, libraries) as perf MMAP2 events, read from /proc/self/maps of qemu-user. */
#ifndef ARMPROF_QEMU_GUEST_MAPS_H
#define ARMPROF_QEMU_GUEST_MAPS_H

#include <stddef.h>
#include <stdint.h>

#include "perf_export.h"

/*
 * qemu-user maps the guest's ELF files into its own address space at guest address +
 * guest_base (0 for the AArch64 guests Debian's qemu-aarch64 7.2 loads on a 64-bit host, but
 * computed here from the executable's load address). Every mapping of an AArch64 ELF file
 * (e_machine 183) is the guest's: QEMU's own libraries are host ELF files. Mappings that hold
 * an executable PT_LOAD segment get PROT_EXEC (QEMU maps guest code without host execute
 * permission); the others are written as data mappings.
 * `exe` is qemu_plugin_path_to_binary(), `start_code` qemu_plugin_start_code().
 * Returns the number of mappings in *out (malloc'd, names too; free with guest_maps_free), or
 * -1 with the reason in err.
 */
int guest_maps_collect(const char *exe, uint64_t start_code, perf_export_mmap **out, char *err, size_t errlen);
void guest_maps_free(perf_export_mmap *m, size_t n);

#endif
