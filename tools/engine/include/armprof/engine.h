/* SPDX-License-Identifier: Apache-2.0 */
/* engine.h: the engines the front ends share (the C-level run, the sweep, the platform run, the columnar decoder) as a small C interface: libarmprof-engine.so. */
#ifndef ARMPROF_ENGINE_H
#define ARMPROF_ENGINE_H

/*
 * A scenario is armprof-explore's sweep-file format without the `sweep:` section: the parameters
 * of `armprof-explore --list-params` (armprof-run's options) and armprof-vp's sections. A sweep
 * is the same with `sweep:`. Either comes from a file or from text (YAML, or JSON, which YAML
 * reads as it is). Errors come back in an ape_error: the message as the command-line tools print
 * it ("FILE:LINE:COL: ..."), and, for a bad scenario, the key and the value at fault.
 *
 * Handles are opaque; every function that can fail returns 0 (or a non-NULL handle) on success
 * and fills *err otherwise. Nothing here prints.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ape_code {
    APE_OK = 0,
    APE_ERR_SCENARIO,       /* a bad scenario or sweep (key, value and line say where) */
    APE_ERR_RUN,            /* a point could not run (an invalid unit configuration, armprof-vp failed) */
    APE_ERR_IO,             /* a file could not be read or written */
    APE_ERR_NOMEM,
    APE_ERR_INTERRUPTED,    /* the stop flag was raised: the results hold the points done */
    APE_ERR_DECODE,         /* the SPE stream is not well formed (offset in text) */
    APE_ERR_ARG             /* a wrong argument to this interface */
} ape_code;

typedef struct ape_error {
    int code;               /* ape_code */
    int line, column;       /* in the scenario text or file, 1-based (0: not known) */
    char key[96];           /* the parameter or key at fault ("workload.mix", "fifo_bytes"), or "" */
    char value[256];        /* its value as written, or "" */
    char text[1024];        /* the whole message */
} ape_error;

/* ----- Scenarios and sweeps ------------------------------------------------------------------ */

typedef struct ape_sweep ape_sweep;

enum { APE_MODEL_C = 0, APE_MODEL_PLATFORM = 1 };
enum { APE_KIND_SWEEP = 0, APE_KIND_SCENARIO = 1 };

/* Reads a sweep (kind APE_KIND_SWEEP: `sweep:` required) or a scenario (APE_KIND_SCENARIO: one
 * point, `sweep:` refused) from the file at `path`, or, when path is NULL, from `text` (`name`
 * stands for it in messages; relative paths in it, e.g. workload.trace, are taken from the
 * current folder). `model` is APE_MODEL_C or APE_MODEL_PLATFORM. NULL on error. */
ape_sweep *ape_sweep_load(const char *path, const char *name, const char *text, int kind, int model,
                          ape_error *err);
void ape_sweep_free(ape_sweep *sw);

size_t ape_sweep_points(const ape_sweep *sw);
/* The sweep's name (`name:`, else the file's name without its extension). */
const char *ape_sweep_name(const ape_sweep *sw);
/* The swept parameters (the CSV's columns after `index`), in the file's order. */
int ape_sweep_axes(const ape_sweep *sw);
const char *ape_sweep_axis_name(const ape_sweep *sw, int axis);
/* 1 when the axis holds numbers (its values' `number` is the value), 0 for names (enums, text). */
int ape_sweep_axis_numeric(const ape_sweep *sw, int axis);
/* Point i's value on an axis: its canonical text (as in results.csv) into buf, and its number. */
int ape_sweep_point_param(const ape_sweep *sw, size_t i, int axis, char *buf, size_t len, double *number);

/* The metrics, one per column of results.csv after the parameters, in that order. */
int ape_metric_count(void);
const char *ape_metric_name(int m);
const char *ape_metric_help(int m);

/* The parameters a scenario can set (armprof-explore --list-params). */
int ape_param_count(void);
const char *ape_param_name(int p);
const char *ape_param_help(int p);

/* The armprof-vp the platform model runs: `vp_path` when not NULL, else $ARMPROF_VP, else the one
 * next to the running program or in `fallback_dir`; NULL when none is executable. Static storage. */
const char *ape_find_vp(const char *vp_path, const char *fallback_dir);

/* ----- Running a sweep ------------------------------------------------------------------------ */

typedef struct ape_sweep_opts {
    unsigned jobs;              /* worker threads (0: the machine's cores) */
    const char *outdir;         /* points.jsonl (resume), results.csv/json, recommendation.txt and
                                 * plots as armprof-explore writes them; NULL: results in memory
                                 * only (the platform's scenarios then go to a temporary folder) */
    int fresh;                  /* forget finished points in OUTDIR/points.jsonl */
    int plots;                  /* gnuplot PNG and SVG into outdir */
    const char *vp_path;        /* armprof-vp for the platform model */
    volatile int *stop;         /* when it becomes non-zero no new point starts (may be NULL) */
    volatile size_t *done;      /* points finished so far, updated as they finish (may be NULL) */
} ape_sweep_opts;

/* Runs every point. metrics: npoints * ape_metric_count() doubles, NaN where not measured or not
 * run; have: npoints bytes, 1 for each point with a result. Returns 0 when every point ran;
 * APE_ERR_INTERRUPTED (in err->code) when stopped, with the points done filled in. */
int ape_sweep_run(const ape_sweep *sw, const ape_sweep_opts *o, double *metrics, unsigned char *have,
                  ape_error *err);

/* Seeds per point: the values of the seed axis (`seeds: N` in the sweep, or a swept `seed`); 1
 * without one. With N > 1 the points of one configuration differ only in `seed` (an axis of its
 * own, the last), and the recommendation takes the worst of them. */
int ape_sweep_seeds(const ape_sweep *sw);

/* The recommendation for a sweep's results (all points present): per line of the plot (a value of
 * the memory or drain axis, or the interrupt latency), the smallest swept size that keeps the
 * metric under the target at every point (every seed) of that line, or, when none does, the best
 * size and what would meet the target (Little's law: bytes in flight = byte rate x latency). */
typedef struct ape_reco {
    char size_param[64];        /* fifo_bytes, buffer_bytes or trbe_buffer_bytes */
    char metric[64];            /* collision_pct, lost_pct or trbe_lost_pct */
    double target;              /* the metric's target (percent) */
    char line_param[64];        /* the axis each line stands for ("" when none is swept) */
    char line_value[256];       /* its value on this line */
    double line_number;         /* ... as a number (NaN for names) */
    int met;                    /* 1: `size` meets the target */
    double size;                /* met: the smallest size from which on every larger one meets it */
    double worst;               /* met: the worst point's metric at that size */
    double best_size;           /* the size with the lowest worst point (met or not) */
    double best_worst;          /* that worst point's metric */
    char text[1024];            /* the line armprof-explore prints and writes to recommendation.txt */
    int seeds;                  /* seeds per point the worst point is taken over */
    /* When no swept size meets the target (met == 0), what would, from the worst point of the best
     * size (ref_point); NaN where it does not apply or is not known. */
    size_t ref_point;           /* that point's index */
    char limit[16];             /* "drain", "memory" (the writes in flight), "slots" (the write path
                                 * keeps up: sampled operations in flight), "buffer", or "" */
    double record_bytes_per_cycle;  /* the records' byte rate (data lost: while profiling runs) */
    double record_gbytes_per_s;     /* ... at clock_hz: the memory bandwidth the records need */
    double clock_hz;
    double drain;                   /* the point's drain, bytes per cycle */
    double write_latency_cycles;    /* its writes' latency (0: no memory timing) */
    double write_bytes;             /* bytes per write (one write per record: the mean record) */
    double outstanding_writes;      /* its max_outstanding_writes */
    double capacity_bytes_per_cycle;/* what its write path carries: min(drain, writes x bytes / latency) */
    double bytes_in_flight;         /* record_bytes_per_cycle x write_latency_cycles (data lost: the
                                     * bytes one interrupt latency misses) */
    double min_outstanding_writes;  /* bytes_in_flight / write_bytes, rounded up: the mean rate only */
    double need_drain;              /* what carries the records at most 90 % in use (so that a FIFO */
    double need_outstanding_writes; /* absorbs their bursts): a drain, or writes in flight, or */
    double need_write_bytes;        /* a power-of-two write size with the point's writes in flight, */
    double max_write_latency_ns;    /* or a write latency at most this */
    double need_buffer_bytes;       /* data lost: the Profiling Buffer the interrupt latency needs */
} ape_reco;

/* Fills up to `max` entries of out; returns how many there are (may exceed max). */
int ape_sweep_recommend(const ape_sweep *sw, const double *metrics, ape_reco *out, int max);

/* ----- One run --------------------------------------------------------------------------------- */

typedef struct ape_run_opts {
    const char *outdir;         /* spe.bin (the buffer contents the service loop copied out),
                                 * trbe.bin with the TRBU, summary.json; created when missing */
    const char *vp_path;        /* armprof-vp for the platform model */
} ape_run_opts;

/* Runs a scenario's one point on its model: at C level armprof-run's engine (spe_run, run_trbe)
 * with the point's seed as armprof-explore derives it; on the platform armprof-vp through its
 * fork server. metrics: ape_metric_count() doubles as a sweep point has them; *summary (when not
 * NULL): summary.json's text, malloc'd (ape_free). */
int ape_run(const ape_sweep *scenario, const ape_run_opts *o, double *metrics, char **summary, ape_error *err);

void ape_free(void *p);

/* ----- Decoding into columns ---------------------------------------------------------------------
 * libarmprof's SPE decoder (spe_decoder_next) over a buffer, one array element per record. Any
 * column pointer may be NULL (not wanted). Fields a record does not have are 0; `have` says which
 * it has (SPE_R_* of armprof/spe.h, with SPE_R_EVENTS). */
typedef struct ape_columns {
    size_t cap;                 /* elements each non-NULL array holds */
    uint64_t *offset;           /* byte offset of the record's first packet */
    uint32_t *size;             /* bytes up to and including its End or Timestamp packet */
    uint32_t *have;
    uint64_t *pc;
    uint8_t *el, *ns;           /* of the PC */
    uint8_t *op_class, *op_subclass;
    uint64_t *events;           /* E[n] as bit n */
    uint16_t *lat_total, *lat_issue, *lat_xlat;
    uint64_t *target;
    uint8_t *target_el, *target_ns;
    uint64_t *va;
    uint8_t *va_tag;
    uint64_t *pa;
    uint8_t *pa_ns;
    uint32_t *contextidr_el1, *contextidr_el2;
    uint16_t *data_source;
    uint64_t *ts;
    uint16_t *ignored_packets;
    /* absent[b][i] is 1 when record i lacks part b (SPE_R_* == 1 << b, b < APE_PARTS): a mask
     * per part, so that a front end need not compute them from `have`. */
    uint8_t *absent[13];
} ape_columns;
#define APE_PARTS 13

typedef struct ape_decode_opts {
    uint8_t max_size;           /* PMSIDR_EL1.MaxSize to check record lengths against (0: none) */
    uint64_t base;              /* buffer address of byte 0 */
    int lenient;                /* resynchronise after an error and go on (as armprof-decode --lenient) */
} ape_decode_opts;

/* Decodes buf: returns the number of records (cols may be NULL to count them only; at most
 * cols->cap are stored), or -1 with err (APE_ERR_DECODE, the decoder's text with its offset) when
 * a strict decode meets an error; *errors (may be NULL) gets the errors a lenient one met. */
int64_t ape_decode(const void *buf, size_t len, const ape_decode_opts *o, ape_columns *cols, uint64_t *errors,
                   ape_error *err);
/* The same in one pass, with every column allocated here (cols->cap elements, at least the
 * number returned); the caller frees each with ape_free(). On error no column is left. */
int64_t ape_decode_alloc(const void *buf, size_t len, const ape_decode_opts *o, ape_columns *cols, uint64_t *errors,
                         ape_error *err);

#ifdef __cplusplus
}
#endif
#endif
