/* SPDX-License-Identifier: Apache-2.0 */
/* spe_run.h: one SPU run over a flat memory with a Linux-like buffer service loop (armprof-run, armprof-explore, the Python package). */
#ifndef ARMPROF_SPE_RUN_H
#define ARMPROF_SPE_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "armprof/spu.h"
#include "trace_file.h"
#include "workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How long the flat memory takes to accept each buffer write (armprof_mem_result.latency). */
typedef enum spe_lat_kind {
    SPE_LAT_FIXED = 0,          /* write_latency cycles */
    SPE_LAT_UNIFORM,            /* uniform in [write_latency, write_latency_max] */
    SPE_LAT_EXP                 /* exponential with mean write_latency, capped at write_latency_max */
} spe_lat_kind;

typedef struct spe_run_opts {
    uint64_t ops;               /* population operations to run */
    uint32_t ops_per_cycle;     /* operations retired per cycle (workload rate; 0 is taken as 1) */
    uint32_t interval;          /* sampling interval in operations (PMSIRR_EL1.INTERVAL = interval / 256) */
    bool rnd;                   /* PMSIRR_EL1.RND */
    uint64_t buffer_bytes;      /* Profiling Buffer size (a multiple of 4 KiB) */
    bool service;               /* service management events as arm_spe_pmu does */
    uint64_t irq_latency;       /* cycles from PMBIRQ to the handler running */
    bool ts, pa, cx;            /* PMSCR_EL1.{TS, PA, CX} */
    uint64_t pmsfcr, pmsevfr, pmslatfr; /* filters */
    spu_config spu;             /* spu.write_bytes, spu.max_outstanding_writes: the writer */
    wl_config wl;
    /* Memory timing of the flat memory port (0: the functional behaviour). */
    spe_lat_kind lat_kind;
    uint32_t write_latency;     /* fixed cycles, the uniform lower bound, or the exponential mean */
    uint32_t write_latency_max; /* the uniform upper bound, or the exponential cap */
    uint64_t lat_seed;          /* seed of the latency draws (0: the workload's seed) */
    /* Replay: operation i of the population is trace->ops[i % trace->count] instead of the
     * generator's (docs/trace-format.md); the caller keeps it alive and sets ops. */
    const wl_trace *trace;
    FILE *dump;                 /* consumed buffer contents are appended here (may be NULL) */
    /* Extra sinks chained after the run's own (e.g. a PMU): may be NULL. */
    armprof_event_fn event_sink;
    armprof_pmu_freeze_fn freeze_sink;
    void *sink_user;
    void (*progress)(void *user, double fraction);
    void *progress_user;
    /* The run ends early, as a complete one does (PSB CSYNC, the buffer collected up to
     * PMBPTR_EL1), once *stop is non-zero (a signal handler or a failed output sets it); NULL:
     * never. */
    const volatile sig_atomic_t *stop;
} spe_run_opts;

typedef struct spe_run_result {
    spu_stats st;
    uint64_t pmbsr, pmbptr, pmblimitr, pmsicr;
    uint64_t buffer_base;
    uint64_t cycles;
    uint64_t irqs;              /* PMBIRQ rising edges */
    uint64_t serviced;          /* management events the handler serviced */
    uint64_t fatal;             /* faults / external aborts that stopped profiling */
    uint64_t dl_events;         /* management events with PMBSR_EL1.DL set */
    uint64_t dumped_bytes;      /* bytes copied out of the buffer */
    uint64_t first_pmbsr;       /* PMBSR_EL1 at the first management event */
    double fifo_mean;           /* record FIFO occupancy (bytes), time-weighted */
    uint64_t fifo_p99, fifo_max;
    double host_seconds;
    bool interrupted;           /* *opts.stop ended the run before its ops */
    armprof_err error;          /* ARMPROF_OK, or why the run could not start */
    char error_text[160];
} spe_run_result;

void spe_run_opts_default(spe_run_opts *o);
/* Parses a latency distribution: "fixed:C", "uniform:A:B" (A <= B) or "exp:MEAN" (capped at
 * 64 * MEAN), each value in cycles <= 2^24; returns 0, or -1 with `why` saying what is wrong. */
int spe_run_parse_latency(const char *s, spe_run_opts *o, char *why, size_t whylen);
/* Runs the scenario; returns 0 on success (r->error says why otherwise). */
int spe_run(const spe_run_opts *o, spe_run_result *r);

#ifdef __cplusplus
}
#endif
#endif
