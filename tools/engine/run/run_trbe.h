/* SPDX-License-Identifier: Apache-2.0 */
/* run_trbe.h: one TRBU run over a flat memory with a synthetic trace source and a Linux-like service loop (armprof-run --trbe). */
#ifndef ARMPROF_RUN_TRBE_H
#define ARMPROF_RUN_TRBE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "armprof/trbu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct run_trbe_opts {
    uint64_t bytes;             /* trace bytes the synthetic source produces */
    uint64_t seed;              /* source and trigger randomness */
    uint64_t buffer_bytes;      /* trace buffer size, a multiple of 4 KiB, at least 8 KiB */
    uint32_t mean_burst;        /* mean bytes per burst from the trace unit (1 .. 32768) */
    uint32_t bytes_per_cycle;   /* trace bandwidth of the source (>= 1) */
    uint64_t trigger_every;     /* mean bytes between Detected Triggers (0: none) */
    uint32_t trigger_count;     /* TRBTRG_EL1 loaded at each enable (the Trigger Counter) */
    unsigned tm;                /* TRBLIMITR_EL1.TM: TRBU_TM_IGNORE as Linux, or STOP / IRQ */
    unsigned fm;                /* TRBLIMITR_EL1.FM: TRBU_FM_FILL as Linux (default), WRAP or CIRCULAR */
    uint64_t irq_latency;       /* cycles from TRBIRQ rising to the handler running */
    uint32_t write_latency;     /* unit cycles until memory accepts each buffer write (0: at once,
                                 * the functional model); trbu.max_outstanding_writes in flight */
    trbu_config trbu;
    FILE *dump;                 /* the consumed buffer contents are appended here (may be NULL) */
    const volatile sig_atomic_t *stop; /* non-zero: the source stops and the session ends (NULL: never) */
} run_trbe_opts;

typedef struct run_trbe_result {
    trbu_stats st;              /* bytes written, wraps, management events by kind, discards */
    uint64_t trbsr, trbptr, trblimitr, trbbaser;  /* final register values */
    uint64_t buffer_base;
    uint64_t cycles;
    uint64_t irqs;              /* TRBIRQ rising edges */
    uint64_t serviced_wraps;    /* buffer full events handled and restarted (TRBE_FAULT_ACT_WRAP) */
    uint64_t spurious;          /* interrupts with no wrap (TRBE_FAULT_ACT_SPURIOUS) */
    uint64_t fatal;             /* trigger / fault / abort events (TRBE_FAULT_ACT_FATAL), then restarted */
    uint64_t pad_bytes;         /* ETE Ignore bytes the driver wrote to re-align its head */
    uint64_t dumped_bytes;      /* bytes copied out of the buffer (trace and driver padding) */
    uint64_t overwritten_bytes; /* Wrap / Circular: bytes the unit overwrote before they were copied out */
    uint64_t stopped_cycles;    /* cycles with collection stopped (TRBSR_EL1.S == 1), burst granularity */
    uint64_t source_stall_cycles; /* cycles the trace source held refused bytes (back-pressure
                                 * from the unit's writes outstanding); st.bytes_refused counts
                                 * each refused offer, so st.bytes_in = bytes + st.bytes_refused */
    double host_seconds;
    bool interrupted;           /* *opts.stop ended the source before its bytes */
    armprof_err error;          /* ARMPROF_OK, or why the run could not start */
    char error_text[160];
} run_trbe_result;

void run_trbe_opts_default(run_trbe_opts *o);
/* Runs the scenario; returns 0 on success (r->error says why otherwise). */
int run_trbe(const run_trbe_opts *o, run_trbe_result *r);

#ifdef __cplusplus
}
#endif
#endif
