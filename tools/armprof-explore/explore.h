/* SPDX-License-Identifier: Apache-2.0 */
/* explore.h: armprof-explore's library: sweep files, sweep points, the parallel runner, tables and plots. */
#ifndef ARMPROF_EXPLORE_H
#define ARMPROF_EXPLORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "spe_run.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ----- Parameters ------------------------------------------------------------------------------
 * Every knob a sweep file can set or sweep. Names follow armprof-run's options (with '_' for
 * '-'); workload fields are `workload.<field of wl_config>`. */

typedef enum ex_kind { EX_U64, EX_BOOL, EX_REAL, EX_ENUM } ex_kind;

typedef struct ex_val {
    uint64_t u;         /* EX_U64, EX_BOOL (0/1), EX_ENUM (index) */
    double d;           /* every kind: the value as a number (plots, tables) */
    char text[32];      /* canonical text: the point key, CSV and JSON use it */
} ex_val;

typedef struct ex_point_cfg {
    spe_run_opts run;   /* what spe_run() gets */
    uint64_t seed;      /* the sweep's seed, before the per-point derivation */
    uint64_t mix;       /* index into ex_mix_names */
    double clock_hz;    /* simulated PE clock: turns cycles into seconds */
} ex_point_cfg;

typedef struct ex_param_def {
    const char *name;
    const char *alias;      /* another accepted spelling (NULL: none) */
    ex_kind kind;
    double lo, hi;          /* accepted range (EX_U64, EX_REAL) */
    bool bytes;             /* accepts K, KiB, M, MiB, G, GiB suffixes */
    bool seeds;             /* part of the point's seed (workload parameters) */
    const char *help;
} ex_param_def;

size_t ex_param_count(void);
const ex_param_def *ex_param(size_t i);
/* Index of a parameter by name or alias ('-' and '_' are the same), or -1. */
int ex_param_find(const char *name);
/* Parses a scalar for parameter p; on failure returns -1 with a message in why. */
int ex_param_parse(size_t p, const char *text, ex_val *out, char *why, size_t whylen);
/* The value of parameter p in cfg. */
ex_val ex_param_get(size_t p, const ex_point_cfg *cfg);
/* Sets parameter p of cfg (the "mix" parameter reloads the workload preset). */
void ex_param_apply(size_t p, ex_point_cfg *cfg, const ex_val *v);

extern const char *const ex_mix_names[];
void ex_point_cfg_default(ex_point_cfg *cfg);

/* ----- Metrics ----------------------------------------------------------------------------------
 * One number per metric and point; the CSV has one column each, in this order. */
enum {
    EXM_SAMPLES, EXM_COLLISIONS, EXM_COLLISION_PCT, EXM_RECORDS_WRITTEN, EXM_RECORDS_DISCARDED,
    EXM_DISCARD_FIRST, /* one per spu_discard_reason */
    EXM_UNSAMPLED_OPS = EXM_DISCARD_FIRST + SPU_DISCARD__COUNT,
    EXM_LOST_PCT, EXM_DL_EVENTS, EXM_MGMT_EVENTS, EXM_BUFFER_FULL_EVENTS, EXM_FAULT_EVENTS,
    EXM_EXT_ABORT_EVENTS, EXM_IRQS, EXM_IRQ_PER_S, EXM_BUFFER_FULL_PCT, EXM_FIFO_MEAN,
    EXM_FIFO_P99, EXM_FIFO_MAX, EXM_BUS_BYTES_PER_CYCLE, EXM_BUS_MBYTES_PER_S, EXM_SAMPLES_PER_S,
    EXM_CYCLES, EXM_SIM_SECONDS, EXM_HOST_SECONDS,
    EXM__COUNT
};
const char *ex_metric_name(int m);
const char *ex_metric_help(int m);
/* False for host time: the only metric that differs between runs of the same point. */
bool ex_metric_deterministic(int m);

typedef struct ex_result {
    double m[EXM__COUNT];
} ex_result;

/* ----- Sweep files ------------------------------------------------------------------------------ */

#define EX_MAX_AXES 12
#define EX_MAX_PARAMS 64
#define EX_MAX_VALUES 64

typedef struct ex_axis {
    int param;
    int nvals;
    ex_val vals[EX_MAX_VALUES];
    int line;               /* of the parameter's key in the sweep file (1-based) */
} ex_axis;

/* One cross product of the `sweep:` section (a mapping; a list of mappings gives several). Its
 * axes are indices into ex_sweep.axes, with the value indices it takes from each. */
#define EX_MAX_GROUPS 8
typedef struct ex_group {
    int nax;
    int axis[EX_MAX_AXES];
    int nsel[EX_MAX_AXES];
    int sel[EX_MAX_AXES][EX_MAX_VALUES];
    size_t first, npoints;
} ex_group;

typedef struct ex_sweep {
    char file[512];
    char name[64];
    bool fixed[EX_MAX_PARAMS];      /* set by the scenario part of the file */
    ex_val fixed_val[EX_MAX_PARAMS];
    int naxes;              /* every swept parameter, each with the union of its values */
    ex_axis axes[EX_MAX_AXES];
    int ngroups;
    ex_group groups[EX_MAX_GROUPS];
    size_t npoints;
    char ignored[256];      /* platform-only scenario keys the C-level model does not use */
    double max_collision_pct;   /* recommendation thresholds (recommend: in the file) */
    double max_lost_pct;
} ex_sweep;

/* Reads a sweep file. On error returns -1 and writes "FILE:LINE:COL: message" to err. */
int ex_sweep_load(const char *path, ex_sweep *sw, char *err, size_t errlen);
/* The same from text in memory; `name` stands for the file in messages. */
int ex_sweep_load_string(const char *name, const char *text, ex_sweep *sw, char *err, size_t errlen);

/* Point i: its value index on every axis (idx[naxes]; -1 where its group does not sweep that
 * parameter and the scenario value holds) and its full configuration. */
void ex_point_indices(const ex_sweep *sw, size_t i, int *idx);
void ex_point_build(const ex_sweep *sw, size_t i, ex_point_cfg *cfg);
/* The key of a point: a hash of every parameter's value, so an edited file reruns the points
 * it changed. 16 hex digits and a NUL. */
void ex_point_key(const ex_point_cfg *cfg, char out[17]);
/* The seed of a point: from the sweep seed and its workload parameters only (not its index or
 * worker), so points that differ only in the hardware see the same operations. */
uint64_t ex_point_seed(const ex_point_cfg *cfg);
/* Runs one point (the fast C-level model). Returns 0, or -1 with a message. */
int ex_point_run(const ex_point_cfg *cfg, ex_result *res, char *err, size_t errlen);

/* ----- Running a sweep -------------------------------------------------------------------------- */

typedef struct ex_run_opts {
    const char *outdir;
    unsigned jobs;          /* worker threads (0: the machine's cores) */
    bool fresh;             /* ignore finished points in the state file */
    bool progress;          /* progress bar and ETA on stderr */
    bool plots;             /* gnuplot PNG and SVG */
    volatile int *stop;     /* when it becomes non-zero, no new point starts (may be NULL) */
    FILE *summary;          /* recommendation and the list of files written (may be NULL) */
} ex_run_opts;

typedef struct ex_run_stats {
    size_t points, ran, resumed, failed;
    double wall_seconds;
    bool interrupted;
    bool plotted;           /* gnuplot ran and made every plot the sweep allows */
} ex_run_stats;

/* Runs every point not already in OUTDIR/points.jsonl, then writes results.csv, results.json,
 * the plots and recommendation.txt. Returns 0 when every point has a result. */
int ex_sweep_run(const ex_sweep *sw, const ex_run_opts *ro, ex_run_stats *st, char *err, size_t errlen);

/* Writes the tables, plots and recommendation from per-point results (all present). */
int ex_write_outputs(const ex_sweep *sw, const ex_result *res, const char *outdir, bool plots,
                     bool *plotted, FILE *summary, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
