/* SPDX-License-Identifier: Apache-2.0 */
/* explore.h: the sweep engine (armprof-explore, bench-explore, the Python package through armprof/engine.h): sweep files, sweep points, the parallel runner, tables and plots. */
#ifndef ARMPROF_EXPLORE_H
#define ARMPROF_EXPLORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "run_trbe.h"
#include "spe_run.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ----- Parameters ------------------------------------------------------------------------------
 * Every knob a sweep file can set or sweep. Names follow armprof-run's options (with '_' for
 * '-'); workload fields are `workload.<field of wl_config>`. */

/* EX_LATENCY: a memory write latency model in cycles, "C", "fixed:C", "uniform:A:B" or "exp:MEAN"
 * (spe_run_parse_latency); its number (ex_val.d) is the mean in cycles. */
typedef enum ex_kind { EX_U64, EX_BOOL, EX_REAL, EX_ENUM, EX_TEXT, EX_LATENCY } ex_kind;

typedef struct ex_val {
    uint64_t u;         /* EX_U64, EX_BOOL (0/1), EX_ENUM (index) */
    double d;           /* every kind: the value as a number (plots, tables) */
    char text[256];     /* canonical text: the point key, CSV and JSON use it (EX_TEXT: the value) */
} ex_val;

/* Which model runs the points: the C-level units (fast, in-process) or the SystemC platform
 * (armprof-vp, one child process per point). */
typedef enum ex_model { EX_MODEL_C = 0, EX_MODEL_PLATFORM = 1 } ex_model;

typedef struct ex_point_cfg {
    spe_run_opts run;   /* what spe_run() gets */
    run_trbe_opts trbe; /* what run_trbe() gets */
    bool spe_enabled;   /* run the SPU (spe_run) */
    bool trbe_enabled;  /* run the TRBU (run_trbe) */
    uint64_t trbe_mode; /* index into ex_trbe_mode_names */
    uint64_t trbe_tm;   /* index into ex_trbe_tm_names */
    uint64_t seed;      /* the sweep's seed, before the per-point derivation */
    uint64_t mix;       /* index into ex_mix_names */
    double clock_hz;    /* simulated PE clock: turns cycles into seconds */
    ex_model model;     /* part of the point's key */
    char trace[256];    /* workload.trace: operation-trace file replayed instead of the generator ("" none) */
    uint64_t trace_repeat; /* workload.repeat: the run is the file's operations * this */
    /* Memory timing (issue 12). write_latency_ns > 0 is a fixed latency: the platform's
     * memory.write_latency_ns, at C level rounded to cycles of clock_hz (run.lat_kind and
     * run.write_latency hold the C level's own cycle model, parameter write_latency). */
    uint64_t timing;        /* index into ex_timing_names (lt, at, off) */
    double write_latency_ns;
    double bg_share;        /* bus.background_traffic.share (platform only; 0: none) */
    uint32_t bg_burst;      /* bus.background_traffic.burst_bytes */
    uint64_t bg_seed;       /* bus.background_traffic.seed (0: from the scenario's seed) */
} ex_point_cfg;

typedef struct ex_param_def {
    const char *name;
    const char *alias;      /* another accepted spelling (NULL: none) */
    ex_kind kind;
    double lo, hi;          /* accepted range (EX_U64, EX_REAL) */
    bool bytes;             /* accepts K, KiB, M, MiB, G, GiB suffixes */
    bool seeds;             /* part of the point's seed (workload parameters) */
    const char *help;
    const char *const *names;   /* EX_ENUM: the accepted values, NULL-terminated */
    const char *platform;   /* the armprof-vp scenario key it maps to ("spe.interval"), NULL: none */
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
extern const char *const ex_trbe_mode_names[];  /* fill, wrap, circular (TRBLIMITR_EL1.FM) */
extern const char *const ex_trbe_tm_names[];    /* stop, irq, ignore (TRBLIMITR_EL1.TM) */
extern const char *const ex_timing_names[];     /* lt, at, off (armprof-vp's timing:) */
void ex_point_cfg_default(ex_point_cfg *cfg);

/* ----- Metrics ----------------------------------------------------------------------------------
 * One number per metric and point; the CSV has one column each, in this order. */
enum {
    EXM_SAMPLES, EXM_COLLISIONS, EXM_COLLISION_PCT, EXM_RECORDS_WRITTEN, EXM_RECORDS_DISCARDED,
    EXM_DISCARD_FIRST, /* one per spu_discard_reason */
    EXM_UNSAMPLED_OPS = EXM_DISCARD_FIRST + SPU_DISCARD__COUNT,
    EXM_LOST_PCT, EXM_DL_EVENTS, EXM_MGMT_EVENTS, EXM_BUFFER_FULL_EVENTS, EXM_FAULT_EVENTS,
    EXM_EXT_ABORT_EVENTS, EXM_IRQS, EXM_IRQ_PER_S, EXM_BUFFER_FULL_PCT, EXM_FIFO_MEAN,
    EXM_FIFO_P99, EXM_FIFO_MAX, EXM_BUS_BYTES_PER_CYCLE, EXM_BUS_MBYTES_PER_S, EXM_RECORD_BYTES_PER_CYCLE,
    EXM_SAMPLES_PER_S,
    EXM_WRITER_STALL_CYCLES, EXM_OUTSTANDING_WRITES_MAX, EXM_WRITE_LAT_MIN_NS, EXM_WRITE_LAT_MEAN_NS,
    EXM_WRITE_LAT_MAX_NS,
    EXM_TRBE_BYTES_IN, EXM_TRBE_BYTES_WRITTEN, EXM_TRBE_BYTES_COPIED, EXM_TRBE_BYTES_DISCARDED,
    EXM_TRBE_BYTES_OVERWRITTEN, EXM_TRBE_BYTES_LOST, EXM_TRBE_LOST_PCT, EXM_TRBE_WRAPS,
    EXM_TRBE_MGMT_EVENTS, EXM_TRBE_IRQS, EXM_TRBE_IRQ_PER_S, EXM_TRBE_FULL_PCT, EXM_TRBE_CYCLES,
    EXM_CYCLES, EXM_SIM_SECONDS, EXM_HOST_SECONDS,
    EXM__COUNT
};
const char *ex_metric_name(int m);
const char *ex_metric_help(int m);
/* False for host time: the only metric that differs between runs of the same point. */
bool ex_metric_deterministic(int m);

/* A metric a point did not measure (its unit did not run, or the model has no such figure) is
 * NaN: an empty CSV cell and null in JSON; a column no point measured is left out. */
typedef struct ex_result {
    double m[EXM__COUNT];
} ex_result;

/* Every metric NaN. */
void ex_result_clear(ex_result *res);
/* The metrics computed from others (record_bytes_per_cycle), where those are there: a state
 * file written before such a metric existed still resumes. */
void ex_result_derive(ex_result *res);
/* Which metrics the platform model (armprof-vp's summary.json) cannot give: true for those. */
bool ex_metric_platform_missing(int m);

/* ----- Sweep files ------------------------------------------------------------------------------ */

#define EX_MAX_AXES 12
#define EX_MAX_PARAMS 96
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
    int fixed_line[EX_MAX_PARAMS];
    char ignored[256];      /* platform-only scenario keys the C-level model does not use */
    char platform_top[2048];    /* those keys as YAML lines for armprof-vp's scenario (flow style) */
    char platform_spe[512];     /* ... the ones under spe: */
    char platform_trbe[256];    /* ... the ones under trbe: */
    char platform_bus[512];     /* ... under bus: (but background_traffic, a parameter) */
    char platform_memory[256];  /* ... under memory: (but write_latency_ns, a parameter) */
    ex_model model;         /* set by ex_sweep_set_model() */
    double max_collision_pct;   /* recommendation thresholds (recommend: in the file) */
    double max_lost_pct;
    /* seeds: N (1 by default): N > 1 adds `seed` as the last axis of every group, with N values
     * from the scenario's seed on, so each point runs with N seeds. A swept `seed` is the same
     * axis: plots draw its spread as error bars and the recommendation takes its worst seed. */
    int seeds;
    int seeds_line;
} ex_sweep;

/* What went wrong reading a sweep or scenario, in parts (the message itself goes to err). */
typedef struct ex_load_error {
    int line, column;       /* 1-based, 0: not known */
    char key[96];           /* the parameter or key at fault, or "" */
    char value[256];        /* its value as written, or "" */
} ex_load_error;

/* ex_sweep_load_ex flags. EX_LOAD_SCENARIO: a scenario, one point with no axes; `sweep:` is an error. */
enum { EX_LOAD_SCENARIO = 1u };

/* Reads a sweep file. On error returns -1 and writes "FILE:LINE:COL: message" to err. */
int ex_sweep_load(const char *path, ex_sweep *sw, char *err, size_t errlen);
/* The same from text in memory; `name` stands for the file in messages. */
int ex_sweep_load_string(const char *name, const char *text, ex_sweep *sw, char *err, size_t errlen);

/* Either of the above (text when path is NULL; name stands for it), with flags, and the error's
 * parts in *le (may be NULL). */
int ex_sweep_load_ex(const char *path, const char *name, const char *text, unsigned flags, ex_sweep *sw,
                     ex_load_error *le, char *err, size_t errlen);

/* Chooses the model that runs the points; the platform accepts only the parameters armprof-vp's
 * scenarios have (the others must keep the platform's built-in value). On error returns -1 with
 * "FILE:LINE: message" naming the first offending parameter. */
int ex_sweep_set_model(ex_sweep *sw, ex_model model, char *err, size_t errlen);
int ex_sweep_set_model_ex(ex_sweep *sw, ex_model model, ex_load_error *le, char *err, size_t errlen);

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
/* Checks that a point can run (unit configurations, TRBE buffer rules); -1 with why otherwise. */
int ex_point_validate(const ex_point_cfg *cfg, char *why, size_t whylen);
/* Runs one point through the C-level model (spe_run and/or run_trbe). Returns 0, or -1 with a message. */
int ex_point_run(const ex_point_cfg *cfg, ex_result *res, char *err, size_t errlen);
/* The same with the buffers' contents appended to spe_dump / trbe_dump and the runs' own results
 * copied out (any of them may be NULL). */
typedef struct ex_point_io {
    FILE *spe_dump, *trbe_dump;
    spe_run_result *spe;
    run_trbe_result *trbe;
} ex_point_io;
int ex_point_run_io(const ex_point_cfg *cfg, const ex_point_io *io, ex_result *res, char *err, size_t errlen);
/* Runs one point through the platform: writes a scenario into a fresh folder under workdir, runs
 * the armprof-vp at vp_path on it, reads its summary.json, removes the folder (kept on failure).
 * Safe from several threads at once. Returns 0, or -1 with a message. */
int ex_point_run_platform(const ex_sweep *sw, const ex_point_cfg *cfg, const char *vp_path, const char *workdir,
                          ex_result *res, char *err, size_t errlen);
/* The same in the existing folder dir, which is kept (armprof-vp's spe.bin, summary.json, its log
 * and the scenario stay there); *summary (when not NULL) gets summary.json's text (malloc'd). */
int ex_point_run_platform_in(const ex_sweep *sw, const ex_point_cfg *cfg, const char *vp_path, const char *dir,
                             ex_result *res, char **summary, char *err, size_t errlen);
/* Platform points run through a fork server per worker thread (armprof-vp --serve: loaded once, a
 * child forked per point before elaboration) unless turned off here or by ARMPROF_EXPLORE_SPAWN=1
 * (then one armprof-vp process is spawned per point). The results are the same either way. */
void ex_platform_fork_server(bool on);
/* The scenario armprof-vp gets for a point, as YAML text (malloc'd; NULL when out of memory). */
char *ex_platform_scenario(const ex_sweep *sw, const ex_point_cfg *cfg);
/* The armprof-vp next to the running program (/proc/self/exe), or NULL. Static storage. */
const char *ex_default_vp_path(void);

/* ----- Running a sweep -------------------------------------------------------------------------- */

typedef struct ex_run_opts {
    const char *outdir;     /* NULL: no files (no state file, no outputs): the results in memory only */
    unsigned jobs;          /* worker threads (0: the machine's cores) */
    bool fresh;             /* ignore finished points in the state file */
    bool progress;          /* progress bar and ETA on stderr */
    bool plots;             /* gnuplot PNG and SVG */
    volatile int *stop;     /* when it becomes non-zero, no new point starts (may be NULL) */
    FILE *summary;          /* recommendation and the list of files written (may be NULL) */
    const char *vp_path;    /* armprof-vp for the platform model (sw->model) */
    /* Slurm (slurm.c). A task runs its slice `only` into its own results file `state_path` and
     * writes no outputs; a run without state_path first gathers OUTDIR/slurm/results/ into
     * OUTDIR/points.jsonl. */
    const size_t *only;     /* run only these points (NULL: every point without a result) */
    size_t nonly;
    const char *state_path; /* results file instead of OUTDIR/points.jsonl (NULL: that one) */
    bool merge_only;        /* run nothing: gather results, write the outputs when none is missing */
    size_t **plan;          /* non-NULL: set *plan (malloc'd) / *nplan to the points without a result, run nothing */
    size_t *nplan;
    /* In memory (the Python package): every point's result is copied to results[i] and have[i]
     * set to 1 (both npoints long, may be NULL); *done counts the points finished as they finish. */
    ex_result *results;
    unsigned char *have;
    volatile size_t *done;
    const char *workdir;    /* where the platform's per-point folders go (NULL: outdir) */
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

/* --slurm: the sweep as one Slurm job array (sbatch --array), a task per slice of the points
 * without a result, then a dependent merge job (or, with wait, this process) writes the outputs.
 * Returns 0 when submitted (wait: when every point has a result and the outputs are written). */
typedef struct ex_slurm_opts {
    const char *sweep_path; /* the sweep file, as given */
    const char *slurm_opt;  /* extra sbatch options, shell words (NULL: none) */
    size_t slice;           /* points per task (0: from the point cost) */
    bool wait;              /* wait for the array and merge here instead of a merge job */
} ex_slurm_opts;
int ex_slurm_submit(const ex_sweep *sw, const ex_run_opts *ro, const ex_slurm_opts *so, ex_run_stats *st,
                    char *err, size_t errlen);
/* Inside a Slurm array task: runs line SLURM_ARRAY_TASK_ID of task_file (point indices) into
 * OUTDIR/slurm/results/<job>_<task>.jsonl. */
int ex_slurm_task(const ex_sweep *sw, const ex_run_opts *ro, const char *task_file, ex_run_stats *st, char *err,
                  size_t errlen);
/* The points per task --slurm chooses: about a minute of work per task, at least 32 tasks when the
 * sweep has that many points, at most 1000 tasks. */
size_t ex_slurm_slice(const ex_sweep *sw, size_t npoints);

/* The recommendation, per line of the collisions plot (a value of the memory or drain axis), of
 * the heat map (an interrupt latency) and of the TRBE plot: the smallest swept size from which on
 * every larger one keeps the metric under the target at the worst point of that line, or, when
 * none does, the size with the lowest worst point. */
/* What limits a line whose target no swept size meets (ex_reco.limit). */
typedef enum ex_limit {
    EX_LIMIT_NONE = 0,      /* met, or not known (the metrics the figures need are missing) */
    EX_LIMIT_DRAIN,         /* the drain bandwidth is below the records' byte rate */
    EX_LIMIT_MEMORY,        /* the writes in flight carry less than the records' byte rate (Little's law) */
    EX_LIMIT_SLOTS,         /* the write path keeps up: the sampled operations in flight (inflight) collide */
    EX_LIMIT_BUFFER,        /* the Profiling Buffer fills faster than the interrupt latency allows */
} ex_limit;
extern const char *const ex_limit_names[]; /* "", "drain", "memory", "slots", "buffer" */

typedef struct ex_reco {
    int size_param;         /* fifo_bytes, buffer_bytes or trbe_buffer_bytes; -1: a hint (text only) */
    int metric;             /* EXM_COLLISION_PCT, EXM_LOST_PCT or EXM_TRBE_LOST_PCT */
    double target;          /* percent */
    int line_param;         /* the axis of the line (-1: none swept) */
    char line_value[256];   /* its value's text */
    double line_number;     /* its value as a number (NaN for names) */
    bool met;
    double size, worst;     /* met: the size, and the worst point's metric there */
    double best_size, best_worst;
    int seeds;              /* seeds per point: the worst point is the worst seed's */
    char text[1024];        /* the line of recommendation.txt */
    /* When no swept size meets the target, what would, from the worst point of the best size
     * (ref: its index) and Little's law (bytes in flight = byte rate x latency). NaN: does not
     * apply or not known. */
    size_t ref;
    ex_limit limit;
    double record_bytes_per_cycle;  /* the records' byte rate (metric record_bytes_per_cycle) */
    double record_gbytes_per_s;     /* ... at clock_hz: the memory bandwidth the records need */
    double clock_hz;
    double drain;                   /* drain bytes per cycle of the point */
    double write_latency_cycles;    /* the writes' mean latency (NaN or 0: no memory timing) */
    double write_bytes;             /* bytes per write (writes per record: the mean record) */
    double outstanding_writes;      /* max_outstanding_writes of the point */
    double capacity_bytes_per_cycle;/* what the point's write path carries: min(drain, N x W / latency) */
    double bytes_in_flight;         /* Little's law: record_bytes_per_cycle x write_latency_cycles (data
                                     * lost: the bytes the records fill during one interrupt latency) */
    double min_outstanding_writes;  /* ceil(bytes_in_flight / write_bytes): the mean rate, no margin */
    /* What carries the records at most EX_MAX_USE (90 %) in use, so that a FIFO absorbs bursts: */
    double need_drain;              /* the smallest whole drain, ceil(rate / 0.9) */
    double need_outstanding_writes; /* ceil(bytes_in_flight / 0.9 / write_bytes) */
    double need_write_bytes;        /* the smallest power-of-two write (16 .. 4096) with the point's writes in flight */
    double max_write_latency_ns;    /* the longest latency with the point's writes in flight */
    double need_buffer_bytes;       /* data lost: the Profiling Buffer the interrupt latency needs */
} ex_reco;
/* Sets *out (malloc'd) to the entries; returns their number, or -1 when out of memory. */
int ex_recommend(const ex_sweep *sw, const ex_result *res, ex_reco **out);

/* Writes the tables, plots and recommendation from per-point results (all present). */
int ex_write_outputs(const ex_sweep *sw, const ex_result *res, const char *outdir, bool plots,
                     bool *plotted, FILE *summary, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
