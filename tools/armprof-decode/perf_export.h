/* SPDX-License-Identifier: Apache-2.0 */
/* perf_export.h: wrap SPE buffer dumps (one per CPU) in a perf.data file (Arm SPE AUX trace) that Linux perf decodes. */
#ifndef ARMPROF_PERF_EXPORT_H
#define ARMPROF_PERF_EXPORT_H

#include <stddef.h>
#include <stdint.h>

/* Most CPUs (buffers) one file holds. */
#define PERF_EXPORT_MAX_CPUS 256

/* One file mapping of the profiled process, written as PERF_RECORD_MMAP2 so perf resolves sample
 * addresses to the executable's and libraries' symbols (armprof-qemu). */
typedef struct perf_export_mmap {
    uint64_t start, len, pgoff;   /* virtual address, length, file offset (bytes) */
    uint32_t maj, min;            /* device of the file */
    uint64_t ino;                 /* inode of the file */
    uint32_t prot, flags;         /* PROT_* and MAP_* of the mapping */
    int data;                     /* 1: a data mapping (PERF_RECORD_MISC_MMAP_DATA) */
    const char *filename;
} perf_export_mmap;

typedef struct perf_export_opts {
    uint64_t midr;          /* MIDR_EL1 written as HEADER_CPUID (default Neoverse N1 r3p1, 0x413fd0c1) */
    uint32_t pmu_type;      /* perf_event_attr.type of the arm_spe PMU (default 8) */
    uint32_t pid;           /* pid/tid the trace is attributed to (default 1) */
    uint32_t cpu;           /* perf_export_write() only: CPU of the AUX buffer (default 0) */
    const char *comm;       /* command name (default "armprof") */
    uint64_t timer_hz;      /* frequency of the counter in the Timestamp packets: written as
                               PERF_RECORD_TIME_CONV so perf converts them to ns; 0: no
                               TIME_CONV, perf shows time 0 */
    const perf_export_mmap *mmaps; /* PERF_RECORD_MMAP2 events of process `pid` (may be NULL) */
    size_t n_mmaps;
    uint64_t extra_sample_type; /* more perf_event_attr.sample_type bits; 0: none */
    uint64_t config, config1, config2; /* more arm_spe format bits (PERF_EXPORT_SPE_*, event_filter
                               in config1, min_latency in config2): how the unit was programmed */
    int user_only;          /* 1: exclude_kernel (the unit sampled EL0 only, arm_spe//u); -1: not;
                               0: from the records (set when no record has an EL1 or EL2 PC) */
} perf_export_opts;

/* The arm_spe PMU's format bits in perf_event_attr.config (Linux drivers/perf/arm_spe_pmu.c). */
#define PERF_EXPORT_SPE_TS_ENABLE     (1ull << 0)   /* PMSCR_EL1.TS */
#define PERF_EXPORT_SPE_PA_ENABLE     (1ull << 1)   /* PMSCR_EL1.PA */
#define PERF_EXPORT_SPE_PCT_ENABLE    (1ull << 2)   /* PMSCR_EL1.PCT */
#define PERF_EXPORT_SPE_JITTER        (1ull << 16)  /* PMSIRR_EL1.RND */
#define PERF_EXPORT_SPE_BRANCH_FILTER (1ull << 32)  /* PMSFCR_EL1.B */
#define PERF_EXPORT_SPE_LOAD_FILTER   (1ull << 33)  /* PMSFCR_EL1.LD */
#define PERF_EXPORT_SPE_STORE_FILTER  (1ull << 34)  /* PMSFCR_EL1.ST */

/* One CPU's Profiling Buffer contents. */
typedef struct perf_export_buf {
    const uint8_t *data;
    size_t len;
    uint32_t cpu;           /* CPU number (distinct per buffer, < PERF_EXPORT_MAX_CPUS) */
    uint32_t tid;           /* thread whose trace this is (0: the process, opts.pid); a thread
                               other than pid gets its own PERF_RECORD_COMM in process pid */
} perf_export_buf;

/* What the records of the buffers hold, as perf_export_write_cpus() describes them. */
typedef struct perf_export_scan {
    uint64_t records;
    int any_pa;             /* a Physical Address packet (data_pa): PERF_SAMPLE_PHYS_ADDR, pa_enable */
    int any_ts;             /* a Timestamp packet: ts_enable */
    int any_kernel_pc;      /* a PC at EL1 or EL2 */
} perf_export_scan;

/* Decodes the buffers (leniently) and says what their records hold. */
void perf_export_scan_bufs(const perf_export_buf *bufs, size_t n, perf_export_scan *out);

/* perf's tick -> ns conversion (struct perf_tsc_conversion subset). */
typedef struct perf_time_conv {
    uint16_t shift;
    uint32_t mult;
    uint64_t zero;
} perf_time_conv;

/* The mult/shift pair for a counter of `hz` (> 0): mult / 2^shift is 1e9 / hz, rounded, with the
 * largest shift <= 31 whose mult fits 32 bits (exact for every hz that divides 1e9 * 2^shift). */
perf_time_conv perf_export_time_conv(uint64_t hz);
/* Ticks to ns exactly as perf computes it (tsc_to_perf_time(), tools/perf/util/tsc.c). */
uint64_t perf_export_ticks_to_ns(uint64_t ticks, const perf_time_conv *c);

/* Writes `path` with one buffer per CPU. Returns 0, or -1 with a message in err. */
int perf_export_write_cpus(const char *path, const perf_export_buf *bufs, size_t n, const perf_export_opts *o,
                           char *err, size_t errlen);
/* One buffer, on CPU o->cpu. */
int perf_export_write(const char *path, const uint8_t *buf, size_t len, const perf_export_opts *o,
                      char *err, size_t errlen);

#endif
