/* SPDX-License-Identifier: Apache-2.0 */
/* perf_export.h: wrap an SPE buffer dump in a perf.data file (Arm SPE AUX trace) that Linux perf decodes. */
#ifndef ARMPROF_PERF_EXPORT_H
#define ARMPROF_PERF_EXPORT_H

#include <stddef.h>
#include <stdint.h>

typedef struct perf_export_opts {
    uint64_t midr;          /* MIDR_EL1 written as HEADER_CPUID (default Neoverse N1 r3p1, 0x413fd0c1) */
    uint32_t pmu_type;      /* perf_event_attr.type of the arm_spe PMU (default 8) */
    uint32_t pid;           /* pid/tid the trace is attributed to (default 1) */
    uint32_t cpu;           /* CPU of the AUX buffer (default 0) */
    const char *comm;       /* command name (default "armprof") */
} perf_export_opts;

/* Writes `path`. Returns 0, or -1 with a message in err. */
int perf_export_write(const char *path, const uint8_t *buf, size_t len, const perf_export_opts *o,
                      char *err, size_t errlen);

#endif
