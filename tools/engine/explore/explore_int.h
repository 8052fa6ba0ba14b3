/* SPDX-License-Identifier: Apache-2.0 */
/* explore_int.h: armprof-explore internals shared by the C-level (params.c) and platform (platform.c) runs. */
#ifndef ARMPROF_EXPLORE_INT_H
#define ARMPROF_EXPLORE_INT_H

#include "explore.h"

/* The counts of an SPU run, from spe_run() or from armprof-vp's summary.json. */
typedef struct ex_spe_counts {
    double feed, collisions, written, discarded, discard[SPU_DISCARD__COUNT], population, ops;
    double dl, mgmt, full, fault, ext_abort, irqs, service_cycles, fifo_mean, fifo_p99, fifo_max, bytes;
    double cycles, secs;
    /* memory timing: NaN where the model does not report it */
    double stall_cycles, outstanding_max, lat_min_ns, lat_mean_ns, lat_max_ns;
} ex_spe_counts;

/* The counts of a TRBU run, from run_trbe() or from summary.json. */
typedef struct ex_trbe_counts {
    double in, written, copied, discarded, overwritten, wraps, mgmt, irqs, stopped_cycles, cycles, secs;
} ex_trbe_counts;

/* Fill the SPE / TRBE metrics of a point from the counts. */
void ex_spe_metrics(const ex_spe_counts *k, double *m);
void ex_trbe_metrics(const ex_trbe_counts *k, double *m);

/* True for the parameters written into armprof-vp's scenario only when the sweep sets them (the
 * platform keeps its own default otherwise): the memory-timing ones and the FIFO's. */
bool ex_param_platform_if_set(size_t p);
/* True when the sweep sets parameter p (scenario part or an axis). */
bool ex_sweep_sets(const ex_sweep *sw, size_t p);
/* ex_point_validate without the model's own checks (the sweep file is read before the model is
 * chosen; ex_sweep_set_model checks those). */
int ex_point_validate_unit(const ex_point_cfg *cfg, char *why, size_t whylen);

/* The columns of the terminal on fd (TIOCGWINSZ), else $COLUMNS, else 80. */
int ex_term_width(int fd);
/* Redraws a progress line in place (\r) on a terminal `width` columns wide: cut to width - 1
 * columns and padded over the rest of the line before it (*last_len: its columns, updated). */
void ex_term_line(FILE *f, const char *text, int width, int *last_len);

#endif
