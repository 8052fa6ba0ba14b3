/* SPDX-License-Identifier: Apache-2.0 */
/* report.c: a sweep's results as CSV and JSON, gnuplot plots (PNG and SVG) and a text recommendation. */
#define _POSIX_C_SOURCE 200809L
#include "explore.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int axis_of(const ex_sweep *sw, const char *param)
{
    int p = ex_param_find(param);
    for (int a = 0; a < sw->naxes; a++)
        if (sw->axes[a].param == p)
            return a;
    return -1;
}

/* Axis values in ascending numeric order: order[k] is the value index of the k-th smallest. */
static void sorted_order(const ex_axis *ax, int *order)
{
    for (int i = 0; i < ax->nvals; i++)
        order[i] = i;
    for (int i = 1; i < ax->nvals; i++)
        for (int j = i; j > 0 && ax->vals[order[j]].d < ax->vals[order[j - 1]].d; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
}

static void human_bytes(char *b, size_t n, double v)
{
    uint64_t u = (uint64_t)v;
    if (u && u % (1024 * 1024) == 0)
        snprintf(b, n, "%" PRIu64 " MiB", u >> 20);
    else if (u && u % 1024 == 0)
        snprintf(b, n, "%" PRIu64 " KiB", u >> 10);
    else
        snprintf(b, n, "%" PRIu64 " B", u);
}

static const char *fmt_metric(char *b, size_t n, double v)
{
    if (isnan(v))
        snprintf(b, n, "%s", ""); /* not measured */
    else if (v == floor(v) && fabs(v) < 9e15)
        snprintf(b, n, "%.0f", v);
    else
        snprintf(b, n, "%.6g", v);
    return b;
}

/* Statistics of a metric over the points whose value index on axis ax1 is v1 and (when ax2 >= 0)
 * on axis ax2 is v2, whatever the other axes hold. */
typedef struct agg {
    double mean, max;
    size_t n;
} agg;

static agg aggregate(const ex_sweep *sw, const ex_result *res, int metric, int ax1, int v1, int ax2, int v2,
                     int ax3, int v3)
{
    agg g = { 0, -INFINITY, 0 };
    int idx[EX_MAX_AXES];
    for (size_t i = 0; i < sw->npoints; i++) {
        ex_point_indices(sw, i, idx);
        if ((ax1 >= 0 && idx[ax1] != v1) || (ax2 >= 0 && idx[ax2] != v2) || (ax3 >= 0 && idx[ax3] != v3))
            continue;
        double x = res[i].m[metric];
        g.mean += x;
        if (x > g.max)
            g.max = x;
        g.n++;
    }
    if (g.n)
        g.mean /= (double)g.n;
    return g;
}

/* The lines of the collisions-against-FIFO plot and the groups of its recommendation: the first
 * swept of the memory system's parameters (memory latency first), else the drain bandwidth. The
 * other axes are aggregated (plot: mean; recommendation: worst point). */
static const struct { const char *param, *unit, *label; } line_axes[] = {
    { "write_latency_ns", " ns", "write latency %s ns" },
    { "write_latency", " cycles", "write latency %s cycles" },
    { "background_traffic", "", "background traffic %s" },
    { "max_outstanding_writes", "", "%s outstanding writes" },
    { "write_bytes", " B", "writes of %s B" },
    { "drain", " B/cycle", "drain %s B/cycle" },
};

static int line_axis(const ex_sweep *sw, int *which)
{
    for (size_t i = 0; i < sizeof(line_axes) / sizeof(line_axes[0]); i++) {
        int a = axis_of(sw, line_axes[i].param);
        if (a >= 0) {
            *which = (int)i;
            return a;
        }
    }
    *which = (int)(sizeof(line_axes) / sizeof(line_axes[0])) - 1;
    return -1;
}

/* Closes an output file: -1 with `err` naming dir/name and the reason when anything written to
 * it was lost (a full file system, a file-size limit). */
static int close_in(FILE *f, const char *dir, const char *name, char *err, size_t errlen)
{
    /* A failed write left its errno (nothing since has set it); fclose writes what is left, and
     * fails again with the reason. */
    int had = ferror(f) ? (errno ? errno : EIO) : 0;
    int e = fclose(f) != 0 ? errno : had;
    if (!e)
        return 0;
    snprintf(err, errlen, "cannot write %s%s%s: %s", dir ? dir : "", dir ? "/" : "", name, strerror(e));
    return -1;
}

/* ----- CSV and JSON ------------------------------------------------------------------------ */

static int write_csv(const ex_sweep *sw, const ex_result *res, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    /* A metric no point measured (a unit that did not run, a figure the model lacks) has no column. */
    bool col[EXM__COUNT];
    for (int m = 0; m < EXM__COUNT; m++) {
        col[m] = false;
        for (size_t i = 0; i < sw->npoints && !col[m]; i++)
            col[m] = !isnan(res[i].m[m]);
    }
    fprintf(f, "index");
    for (int a = 0; a < sw->naxes; a++)
        fprintf(f, ",%s", ex_param(sw->axes[a].param)->name);
    for (int m = 0; m < EXM__COUNT; m++)
        if (col[m])
            fprintf(f, ",%s", ex_metric_name(m));
    fputc('\n', f);
    char b[48];
    for (size_t i = 0; i < sw->npoints; i++) {
        ex_point_cfg cfg;
        ex_point_build(sw, i, &cfg);
        fprintf(f, "%zu", i);
        for (int a = 0; a < sw->naxes; a++)
            fprintf(f, ",%s", ex_param_get((size_t)sw->axes[a].param, &cfg).text);
        for (int m = 0; m < EXM__COUNT; m++)
            if (col[m])
                fprintf(f, ",%s", fmt_metric(b, sizeof(b), res[i].m[m]));
        fputc('\n', f);
    }
    return close_in(f, NULL, path, err, errlen);
}

static int write_json(const ex_sweep *sw, const ex_result *res, const char *path, const ex_reco *reco, int nreco,
                      char *err, size_t errlen)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "sweep", sw->name);
    cJSON_AddStringToObject(j, "file", sw->file);
    cJSON_AddStringToObject(j, "model", sw->model == EX_MODEL_PLATFORM ? "platform" : "c-level");
    cJSON *sc = cJSON_AddObjectToObject(j, "scenario");
    ex_point_cfg base;
    ex_point_cfg_default(&base);
    for (size_t p = 0; p < ex_param_count(); p++)
        if (sw->fixed[p])
            ex_param_apply(p, &base, &sw->fixed_val[p]);
    for (size_t p = 0; p < ex_param_count(); p++) {
        ex_val v = ex_param_get(p, &base);
        if (ex_param(p)->kind == EX_U64 || ex_param(p)->kind == EX_REAL)
            cJSON_AddNumberToObject(sc, ex_param(p)->name, ex_param(p)->kind == EX_U64 ? (double)v.u : v.d);
        else if (ex_param(p)->kind == EX_BOOL)
            cJSON_AddBoolToObject(sc, ex_param(p)->name, v.u != 0);
        else
            cJSON_AddStringToObject(sc, ex_param(p)->name, v.text);
    }
    cJSON *ax = cJSON_AddObjectToObject(j, "sweep_axes");
    for (int a = 0; a < sw->naxes; a++) {
        cJSON *l = cJSON_AddArrayToObject(ax, ex_param(sw->axes[a].param)->name);
        for (int k = 0; k < sw->axes[a].nvals; k++)
            cJSON_AddItemToArray(l, cJSON_CreateString(sw->axes[a].vals[k].text));
    }
    cJSON *md = cJSON_AddObjectToObject(j, "metrics");
    for (int m = 0; m < EXM__COUNT; m++)
        cJSON_AddStringToObject(md, ex_metric_name(m), ex_metric_help(m));
    cJSON *pts = cJSON_AddArrayToObject(j, "points");
    for (size_t i = 0; i < sw->npoints; i++) {
        cJSON *pt = cJSON_CreateObject();
        cJSON_AddNumberToObject(pt, "index", (double)i);
        ex_point_cfg cfg;
        ex_point_build(sw, i, &cfg);
        char key[17];
        ex_point_key(&cfg, key);
        cJSON_AddStringToObject(pt, "key", key);
        char seed[24];
        snprintf(seed, sizeof(seed), "0x%016" PRIx64, ex_point_seed(&cfg));
        cJSON_AddStringToObject(pt, "seed", seed);
        cJSON *pp = cJSON_AddObjectToObject(pt, "params");
        for (int a = 0; a < sw->naxes; a++) {
            ex_val vv = ex_param_get((size_t)sw->axes[a].param, &cfg);
            const ex_val *v = &vv;
            ex_kind k = ex_param(sw->axes[a].param)->kind;
            const char *name = ex_param(sw->axes[a].param)->name;
            if (k == EX_U64 || k == EX_REAL)
                cJSON_AddNumberToObject(pp, name, k == EX_U64 ? (double)v->u : v->d);
            else if (k == EX_BOOL)
                cJSON_AddBoolToObject(pp, name, v->u != 0);
            else
                cJSON_AddStringToObject(pp, name, v->text);
        }
        cJSON *mm = cJSON_AddObjectToObject(pt, "metrics");
        for (int m = 0; m < EXM__COUNT; m++) {
            if (isnan(res[i].m[m]))
                cJSON_AddNullToObject(mm, ex_metric_name(m)); /* not measured */
            else
                cJSON_AddNumberToObject(mm, ex_metric_name(m), res[i].m[m]);
        }
        cJSON_AddItemToArray(pts, pt);
    }
    cJSON *rl = cJSON_AddArrayToObject(j, "recommendation");
    for (int i = 0; i < nreco; i++)
        cJSON_AddItemToArray(rl, cJSON_CreateString(reco[i].text));
    char *text = cJSON_Print(j);
    cJSON_Delete(j);
    FILE *f = fopen(path, "w");
    int rc = 0;
    if (!f)
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    else if (!text)
        snprintf(err, errlen, "out of memory writing %s", path);
    if (!f || !text)
        rc = -1;
    if (f) {
        fprintf(f, "%s\n", text ? text : "");
        if (close_in(f, NULL, path, err, errlen))
            rc = -1;
    }
    cJSON_free(text);
    return rc;
}

/* ----- Recommendation ------------------------------------------------------------------------
 * For each value of the "other" axis (drain bandwidth, interrupt latency), the smallest swept
 * size from which on every larger size keeps the metric under the target at every point
 * (worst case over the remaining axes and the seeds). */

const char *const ex_limit_names[] = { "", "drain", "memory", "slots", "buffer" };

static int add_reco(ex_reco **list, int *n, const ex_reco *r)
{
    ex_reco *l = realloc(*list, sizeof(ex_reco) * (size_t)(*n + 1));
    if (!l)
        return -1;
    *list = l;
    l[(*n)++] = *r;
    return 0;
}

/* The seeds per point: the values of the seed axis (seeds: N, or a swept seed), else 1. */
static int seed_count(const ex_sweep *sw)
{
    int a = axis_of(sw, "seed");
    return a >= 0 ? sw->axes[a].nvals : 1;
}

/* The choice on one line: in sorted order of the size axis, pick (the recommended size, -1: none
 * meets the target) and best (the lowest worst point; between equal ones the larger size). */
typedef struct size_pick {
    int pick, best;
    double pick_worst, best_worst;
} size_pick;

static size_pick pick_size(const ex_sweep *sw, const ex_result *res, int size_ax, const int *order, int other_ax,
                           int o, int metric, double target)
{
    size_pick sp = { -1, -1, 0, INFINITY };
    const ex_axis *sa = &sw->axes[size_ax];
    /* best: the lowest worst point of any size, not only of the sizes scanned before the first
     * one over the target */
    for (int k = sa->nvals - 1; k >= 0; k--) {
        agg g = aggregate(sw, res, metric, size_ax, order[k], other_ax, o, -1, 0);
        if (g.max < sp.best_worst) {
            sp.best_worst = g.max;
            sp.best = k;
        }
    }
    for (int k = sa->nvals - 1; k >= 0; k--) {
        agg g = aggregate(sw, res, metric, size_ax, order[k], other_ax, o, -1, 0);
        if (!(g.max < target))
            break;
        sp.pick = k;
        sp.pick_worst = g.max;
    }
    return sp;
}

/* The index of the point with the largest metric among those at value v1 of ax1 and v2 of ax2. */
static size_t worst_point(const ex_sweep *sw, const ex_result *res, int metric, int ax1, int v1, int ax2, int v2)
{
    int idx[EX_MAX_AXES];
    size_t w = 0;
    double wv = -INFINITY;
    for (size_t i = 0; i < sw->npoints; i++) {
        ex_point_indices(sw, i, idx);
        if ((ax1 >= 0 && idx[ax1] != v1) || (ax2 >= 0 && idx[ax2] != v2))
            continue;
        if (res[i].m[metric] > wv) {
            wv = res[i].m[metric];
            w = i;
        }
    }
    return w;
}

static double pow2_at_least(double x)
{
    double p = 1;
    while (p < x)
        p *= 2;
    return p;
}

static void clock_text(char *b, size_t n, double hz)
{
    if (hz >= 1e9)
        snprintf(b, n, "%g GHz", hz / 1e9);
    else
        snprintf(b, n, "%g MHz", hz / 1e6);
}

/* Appends to r->text. */
static void reco_append(ex_reco *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reco_append(ex_reco *r, const char *fmt, ...)
{
    size_t n = strlen(r->text);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->text + n, sizeof(r->text) - n, fmt, ap);
    va_end(ap);
}

/* Collisions no swept FIFO depth keeps under the target: what the write path at the reference
 * point lacks. The records need B bytes per cycle (record_bytes_per_cycle). The drain carries
 * `drain` B/cycle; with memory timing, N writes of W bytes in flight over a latency of L cycles
 * carry N x W / L (Little's law: bytes in flight = byte rate x latency), so B needs B x L bytes
 * in flight. That is the least for the mean rate; samples come in bursts, and a FIFO absorbs
 * them only while the write path is at most EX_MAX_USE busy (measured in docs/explore.md: at 90 %
 * a 1 KiB FIFO meets 1 %, at 95 % no FIFO up to 16 KiB does), so the figures asked for are those
 * for B / EX_MAX_USE: ceil(B x L / EX_MAX_USE / W) writes of W bytes, or N writes of a power of
 * two >= B x L / EX_MAX_USE / N bytes, or a latency of at most EX_MAX_USE x N x W / B, or a drain
 * of ceil(B / EX_MAX_USE). When the write path has that margin already, the collisions are the
 * in-flight slots'. */
#define EX_MAX_USE 0.9

static void fifo_needs(const ex_sweep *sw, const ex_result *res, ex_reco *r)
{
    ex_point_cfg cfg;
    ex_point_build(sw, r->ref, &cfg);
    const double *m = res[r->ref].m;
    double B = m[EXM_RECORD_BYTES_PER_CYCLE];
    if (isnan(B) || B <= 0)
        return;
    double hz = cfg.clock_hz;
    r->clock_hz = hz;
    r->record_bytes_per_cycle = B;
    r->record_gbytes_per_s = B * hz / 1e9;
    r->drain = cfg.run.spu.drain_bytes_per_cycle;
    /* The latency: a fixed one as configured (C level), else the writes' measured mean (the
     * platform's bus adds its own; a distribution's answers take effect in issue order). */
    double lat_ns = m[EXM_WRITE_LAT_MEAN_NS];
    double L = isnan(lat_ns) ? 0 : lat_ns * hz / 1e9;
    if (cfg.model == EX_MODEL_C && cfg.timing == 2)
        L = 0;
    else if (cfg.model == EX_MODEL_C && cfg.write_latency_ns > 0)
        L = floor(cfg.write_latency_ns * hz / 1e9 + 0.5);
    else if (cfg.model == EX_MODEL_C && cfg.run.lat_kind == SPE_LAT_FIXED)
        L = cfg.run.write_latency;
    r->write_latency_cycles = L;
    double N = cfg.run.spu.max_outstanding_writes, W = cfg.run.spu.write_bytes;
    if (W == 0) { /* one write per record: the mean record */
        double recs = m[EXM_RECORDS_WRITTEN], bytes = m[EXM_BUS_BYTES_PER_CYCLE] * m[EXM_CYCLES];
        W = recs > 0 ? bytes / recs : NAN;
    }
    r->write_bytes = W;
    r->outstanding_writes = N;
    double cap_mem = L >= 1 && !isnan(W) ? N * W / L : INFINITY;
    r->capacity_bytes_per_cycle = r->drain < cap_mem ? r->drain : cap_mem;
    double use_d = B / r->drain, use_m = B / cap_mem;
    char ck[32];
    clock_text(ck, sizeof(ck), hz);
    reco_append(r, "; the records need %.4g B/cycle (%.3g GB/s at %s)", B, r->record_gbytes_per_s, ck);
    if (use_d <= EX_MAX_USE && use_m <= EX_MAX_USE) {
        r->limit = EX_LIMIT_SLOTS;
        reco_append(r, " and the write path carries %.4g (%.0f %% in use): the collisions are sampled operations "
                    "holding all %u in-flight slots (sweep inflight)", r->capacity_bytes_per_cycle,
                    100 * B / r->capacity_bytes_per_cycle, (unsigned)cfg.run.spu.max_inflight);
        return;
    }
    if (use_d > EX_MAX_USE) {
        r->limit = EX_LIMIT_DRAIN;
        r->need_drain = ceil(B / EX_MAX_USE);
        reco_append(r, ", %.0f %% of the drain's %g B/cycle: a drain of at least %g B/cycle (at most %.0f %% in use, "
                    "so that a FIFO absorbs the bursts)", 100 * use_d, r->drain, r->need_drain, 100 * EX_MAX_USE);
    }
    if (use_m > EX_MAX_USE) {
        r->limit = EX_LIMIT_MEMORY;
        double inflight = B * L, want = inflight / EX_MAX_USE;
        r->bytes_in_flight = inflight;
        r->min_outstanding_writes = ceil(inflight / W);
        r->need_outstanding_writes = ceil(want / W);
        double wb = pow2_at_least(want / N);
        r->need_write_bytes = wb < 16 ? 16 : wb <= 4096 ? wb : NAN;
        r->max_write_latency_ns = EX_MAX_USE * N * W / B / hz * 1e9;
        reco_append(r, "%s %g writes of %.3g B in flight over %.0f cycles (%.0f ns) carry %.4g (%.0f %% in use): "
                    "Little's law puts %.4g x %.0f = %.0f B in flight (%g writes of %.3g B); at %.0f %% use, so that "
                    "a FIFO absorbs the bursts, %.0f B: %g outstanding writes of %.3g B",
                    use_d > EX_MAX_USE ? "; and" : ", and", N, W, L, L / hz * 1e9, cap_mem, 100 * use_m, B, L,
                    inflight, r->min_outstanding_writes, W, 100 * EX_MAX_USE, want, r->need_outstanding_writes, W);
        if (!isnan(r->need_write_bytes))
            reco_append(r, ", or %g of %g B", N, r->need_write_bytes);
        reco_append(r, ", or a write latency of at most %.0f ns", r->max_write_latency_ns);
    }
}

/* Data lost no swept Profiling Buffer keeps under the target: while profiling runs the records
 * fill the buffer at B bytes per cycle (record_bytes_per_cycle over the time PMBSR_EL1.S was 0);
 * each buffer full event stops profiling for the interrupt latency T, so the share the buffer
 * loses is about B x T / (size + B x T). The collisions are lost too (whatever the buffer), so
 * the buffer's share is what the target leaves after them, p = target - collision_pct, and it
 * needs size >= B x T x (100 / p - 1). */
static void buffer_needs(const ex_sweep *sw, const ex_result *res, ex_reco *r)
{
    ex_point_cfg cfg;
    ex_point_build(sw, r->ref, &cfg);
    const double *m = res[r->ref].m;
    double B = m[EXM_RECORD_BYTES_PER_CYCLE], col = m[EXM_COLLISION_PCT];
    double off = !isnan(m[EXM_BUFFER_FULL_PCT]) ? m[EXM_BUFFER_FULL_PCT] : m[EXM_LOST_PCT];
    double T = (double)cfg.run.irq_latency;
    if (isnan(B) || B <= 0 || isnan(off) || off >= 100 || T <= 0 || isnan(col))
        return;
    double Bon = B / (1 - off / 100);
    double hz = cfg.clock_hz;
    r->clock_hz = hz;
    r->record_bytes_per_cycle = Bon;
    r->record_gbytes_per_s = Bon * hz / 1e9;
    r->limit = EX_LIMIT_BUFFER;
    r->bytes_in_flight = Bon * T; /* the bytes the records would fill while the handler is on its way */
    double p = r->target - col;
    if (p <= 0) {
        reco_append(r, "; collisions alone lose %.3g %% there: size the FIFO and the write path first", col);
        return;
    }
    double need = Bon * T * (100 / p - 1);
    r->need_buffer_bytes = ceil(need / 4096) * 4096;
    char hb[32], hn[32];
    human_bytes(hb, sizeof(hb), r->need_buffer_bytes);
    human_bytes(hn, sizeof(hn), pow2_at_least(r->need_buffer_bytes));
    reco_append(r, "; the records fill %.3g B/cycle while profiling, so each interrupt's %.0f cycles miss %.0f B; "
                "with %.2g %% of collisions that leaves %.2g %% to the buffer: at least %s (%s as a power of two)",
                Bon, T, r->bytes_in_flight, col, p, hb, hn);
}

/* An entry with no figures (NaN) and no line. */
static ex_reco reco_blank(void)
{
    ex_reco r = { .size_param = -1, .metric = -1, .target = NAN, .line_param = -1, .line_number = NAN,
                  .size = NAN, .worst = NAN, .best_size = NAN, .best_worst = NAN, .seeds = 1,
                  .record_bytes_per_cycle = NAN, .record_gbytes_per_s = NAN, .clock_hz = NAN, .drain = NAN,
                  .write_latency_cycles = NAN, .write_bytes = NAN, .outstanding_writes = NAN,
                  .capacity_bytes_per_cycle = NAN, .bytes_in_flight = NAN, .need_drain = NAN,
                  .min_outstanding_writes = NAN, .need_outstanding_writes = NAN, .need_write_bytes = NAN, .max_write_latency_ns = NAN,
                  .need_buffer_bytes = NAN };
    return r;
}

static int recommend_size(const ex_sweep *sw, const ex_result *res, int size_ax, int other_ax, int metric,
                          double target, const char *what, const char *metric_what, const char *other_unit,
                          ex_reco **list, int *n)
{
    int order[EX_MAX_VALUES];
    const ex_axis *sa = &sw->axes[size_ax];
    sorted_order(sa, order);
    int nother = other_ax >= 0 ? sw->axes[other_ax].nvals : 1;
    int oorder[EX_MAX_VALUES] = { 0 };
    if (other_ax >= 0)
        sorted_order(&sw->axes[other_ax], oorder);
    int seeds = seed_count(sw);
    char of_seeds[48] = "";
    if (seeds > 1)
        snprintf(of_seeds, sizeof(of_seeds), ", worst of %d seeds", seeds);
    for (int oi = 0; oi < nother; oi++) {
        int o = oorder[oi];
        ex_reco r = reco_blank();
        r.size_param = sa->param;
        r.metric = metric;
        r.target = target;
        r.seeds = seeds;
        char prefix[96] = "", hb[32];
        if (other_ax >= 0) {
            const ex_axis *oa = &sw->axes[other_ax];
            snprintf(prefix, sizeof(prefix), "%s %s%s: ", ex_param(oa->param)->name, oa->vals[o].text, other_unit);
            r.line_param = oa->param;
            snprintf(r.line_value, sizeof(r.line_value), "%s", oa->vals[o].text);
            ex_kind k = ex_param(oa->param)->kind;
            r.line_number = k == EX_ENUM || k == EX_TEXT ? NAN : oa->vals[o].d;
        }
        size_pick sp = pick_size(sw, res, size_ax, order, other_ax, o, metric, target);
        r.best_size = sp.best >= 0 ? sa->vals[order[sp.best]].d : NAN;
        r.best_worst = sp.best_worst;
        if (sp.pick >= 0) {
            r.met = true;
            r.size = sa->vals[order[sp.pick]].d;
            r.worst = sp.pick_worst;
            r.ref = worst_point(sw, res, metric, size_ax, order[sp.pick], other_ax, o);
            human_bytes(hb, sizeof(hb), r.size);
            snprintf(r.text, sizeof(r.text), "%sthe smallest %s with %s under %g %% is %s (worst point %.3g %%%s)",
                     prefix, what, metric_what, target, hb, sp.pick_worst, of_seeds);
        } else {
            r.ref = sp.best >= 0 ? worst_point(sw, res, metric, size_ax, order[sp.best], other_ax, o) : 0;
            human_bytes(hb, sizeof(hb), r.best_size);
            snprintf(r.text, sizeof(r.text), "%sno swept %s keeps %s under %g %% (best: %s with %.3g %%%s)", prefix,
                     what, metric_what, target, hb, sp.best_worst, of_seeds);
            if (sp.best >= 0 && metric == EXM_COLLISION_PCT)
                fifo_needs(sw, res, &r);
            else if (sp.best >= 0 && metric == EXM_LOST_PCT)
                buffer_needs(sw, res, &r);
        }
        if (add_reco(list, n, &r))
            return -1;
    }
    return 0;
}

int ex_recommend(const ex_sweep *sw, const ex_result *res, ex_reco **out)
{
    ex_reco *list = NULL;
    int n = 0, rc = 0;
    int which;
    int fa = axis_of(sw, "fifo_bytes"), da = line_axis(sw, &which);
    int ba = axis_of(sw, "buffer_bytes"), la = axis_of(sw, "irq_latency");
    if (fa >= 0)
        rc |= recommend_size(sw, res, fa, da, EXM_COLLISION_PCT, sw->max_collision_pct, "record FIFO depth",
                             "collisions", line_axes[which].unit, &list, &n);
    if (ba >= 0)
        rc |= recommend_size(sw, res, ba, la, EXM_LOST_PCT, sw->max_lost_pct, "Profiling Buffer", "data lost",
                             " cycles", &list, &n);
    int tba = axis_of(sw, "trbe_buffer_bytes"), tma = axis_of(sw, "trbe_mode");
    int toa = tma >= 0 ? tma : axis_of(sw, "trbe_irq_latency");
    if (tba >= 0)
        rc |= recommend_size(sw, res, tba, toa, EXM_TRBE_LOST_PCT, sw->max_lost_pct, "trace buffer",
                             "TRBE trace lost", tma >= 0 ? "" : " cycles", &list, &n);
    if (fa < 0 && ba < 0 && tba < 0) {
        ex_reco hint = reco_blank();
        snprintf(hint.text, sizeof(hint.text), "sweep fifo_bytes, buffer_bytes or trbe_buffer_bytes for a sizing "
                 "recommendation");
        rc |= add_reco(&list, &n, &hint);
    }
    if (rc) {
        free(list);
        return -1;
    }
    *out = list;
    return n;
}

/* ----- Plots ---------------------------------------------------------------------------------- */

static void gp_terms(FILE *g, const char *stem, const char *plot_cmd_file, bool square)
{
    (void)plot_cmd_file;
    fprintf(g, "set terminal pngcairo size %s enhanced font 'Sans,11'\n", square ? "900,700" : "900,600");
    fprintf(g, "set output '%s.png'\nload '%s.plt'\n", stem, stem);
    fprintf(g, "set terminal svg size %s dynamic enhanced font 'Sans,11'\n", square ? "900,700" : "900,600");
    fprintf(g, "set output '%s.svg'\nload '%s.plt'\nunset output\n", stem, stem);
}

static FILE *open_in(const char *dir, const char *name, char *err, size_t errlen)
{
    char p[4096];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (!f)
        snprintf(err, errlen, "cannot write %s: %s", p, strerror(errno));
    return f;
}


static void title_esc(char *out, size_t n, const char *in)
{
    size_t k = 0;
    for (; *in && k + 2 < n; in++) {
        if (*in == '_' || *in == '^' || *in == '{' || *in == '}' || *in == '@' || *in == '&')
            out[k++] = '\\';
        if (*in == '\'')
            continue;
        out[k++] = *in;
    }
    out[k] = '\0';
}

/* The metric's spread over the seeds at value v1 of ax1 and v2 of ax2: the mean over the other
 * axes for each seed, and the lowest and highest of those (both the mean when there is one seed). */
static void seed_spread(const ex_sweep *sw, const ex_result *res, int metric, int ax1, int v1, int ax2, int v2,
                        double *lo, double *hi)
{
    int sa = axis_of(sw, "seed");
    agg all = aggregate(sw, res, metric, ax1, v1, ax2, v2, -1, 0);
    *lo = *hi = all.mean;
    if (sa < 0 || sa == ax1 || sa == ax2)
        return;
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int s = 0; s < sw->axes[sa].nvals; s++) {
        agg g = aggregate(sw, res, metric, ax1, v1, ax2, v2, sa, s);
        if (!g.n)
            continue;
        if (g.mean < *lo)
            *lo = g.mean;
        if (g.mean > *hi)
            *hi = g.mean;
    }
    if (*lo > *hi)
        *lo = *hi = all.mean;
}

/* A line plot of a percentage against a size, one line per value of the line axis, for a
 * decision at a target percentage: a log y axis (the lines near a 1 % target lie decades apart
 * instead of on the target line; values under the axis floor, 0 included, sit on the floor),
 * error bars from the lowest to the highest seed when the points run with several seeds, and a
 * mark per line at the recommended size (a circle: the target is met from there on) or, when no
 * size meets it, at the best one (a square). The data file has every column the plot uses. */
typedef struct line_plot {
    const char *stem;       /* file names: STEM.dat, STEM.plt, STEM.png, STEM.svg */
    int size_ax, line_ax, metric;
    double target;
    const char *what;       /* the title after the sweep's name */
    const char *xlabel, *ylabel;
    const char *line_name;  /* the block headers' name for the line axis */
    const char *line_fmt;   /* a line's title, with %s for its value */
    const char *key;        /* gnuplot's `set key` position */
    bool logx;              /* log2 x axis (with the sizes as tic labels) */
} line_plot;

static int plot_lines(const ex_sweep *sw, const ex_result *res, const char *dir, FILE *gp, const line_plot *lp,
                      char *err, size_t errlen)
{
    const ex_axis *xa = &sw->axes[lp->size_ax];
    int xo[EX_MAX_VALUES], lo_[EX_MAX_VALUES] = { 0 };
    sorted_order(xa, xo);
    int nl = lp->line_ax >= 0 ? sw->axes[lp->line_ax].nvals : 1;
    if (lp->line_ax >= 0)
        sorted_order(&sw->axes[lp->line_ax], lo_);
    int seeds = seed_count(sw);
    static double mean[EX_MAX_VALUES][EX_MAX_VALUES], worst[EX_MAX_VALUES][EX_MAX_VALUES];
    static double slo[EX_MAX_VALUES][EX_MAX_VALUES], shi[EX_MAX_VALUES][EX_MAX_VALUES];
    static size_t cnt[EX_MAX_VALUES][EX_MAX_VALUES];
    static int mark[EX_MAX_VALUES][EX_MAX_VALUES];
    double vmax = lp->target, vmin_pos = INFINITY;
    size_t per = 0;
    for (int li = 0; li < nl; li++) {
        size_pick sp = pick_size(sw, res, lp->size_ax, xo, lp->line_ax, lo_[li], lp->metric, lp->target);
        for (int k = 0; k < xa->nvals; k++) {
            agg g = aggregate(sw, res, lp->metric, lp->size_ax, xo[k], lp->line_ax, lo_[li], -1, 0);
            mean[li][k] = g.mean;
            worst[li][k] = g.max;
            cnt[li][k] = g.n;
            if (g.n > per)
                per = g.n;
            seed_spread(sw, res, lp->metric, lp->size_ax, xo[k], lp->line_ax, lo_[li], &slo[li][k], &shi[li][k]);
            mark[li][k] = sp.pick >= 0 ? (k == sp.pick ? 1 : 0) : (k == sp.best ? 2 : 0);
            double vals[3] = { g.mean, slo[li][k], shi[li][k] };
            for (int q = 0; q < 3; q++) {
                if (vals[q] > vmax)
                    vmax = vals[q];
                if (vals[q] > 0 && vals[q] < vmin_pos)
                    vmin_pos = vals[q];
            }
        }
    }
    /* The log axis: from a decade at most 1/10 of the target (lower when a value is) to the
     * decade above the largest value. */
    double floor_ = pow(10, floor(log10(lp->target > 0 ? lp->target / 10 : 1e-3)));
    if (vmin_pos < floor_)
        floor_ = pow(10, floor(log10(vmin_pos)));
    if (floor_ < 1e-6)
        floor_ = 1e-6;
    double top = pow(10, ceil(log10(vmax * 1.05)));
    if (vmax <= 100 && top > 100) /* a percentage: 100 at most */
        top = 100;
    if (top <= floor_ * 10)
        top = floor_ * 100;

    char name[96];
    snprintf(name, sizeof(name), "%s.dat", lp->stem);
    FILE *d = open_in(dir, name, err, errlen);
    if (!d)
        return -1;
    const char *mn = ex_metric_name(lp->metric), *xn = ex_param(xa->param)->name;
    fprintf(d, "# %s %s_mean %s_max points %s_seed_min %s_seed_max recommended plot_y plot_y_min plot_y_max\n", xn,
            mn, mn, mn, mn);
    fprintf(d, "# mean and max (the worst point) over the other parameters and %d seed(s); seed_min/seed_max: the "
               "lowest and highest seed's mean; recommended: 1 the recommended size, 2 the best size when none meets "
               "the target of %g %%, 0 other sizes; plot_*: the values on the log axis (at least %g)\n",
            seeds, lp->target, floor_);
    for (int li = 0; li < nl; li++) {
        fprintf(d, "# %s %s\n", lp->line_name, lp->line_ax >= 0 ? sw->axes[lp->line_ax].vals[lo_[li]].text : "(fixed)");
        for (int k = 0; k < xa->nvals; k++) {
            double m = mean[li][k], l = slo[li][k], h = shi[li][k];
            fprintf(d, "%.0f %.9g %.9g %zu %.9g %.9g %d %.9g %.9g %.9g\n", xa->vals[xo[k]].d, m, worst[li][k],
                    cnt[li][k], l, h, mark[li][k], m > floor_ ? m : floor_, l > floor_ ? l : floor_,
                    h > floor_ ? h : floor_);
        }
        fprintf(d, "\n\n");
    }
    if (close_in(d, dir, name, err, errlen))
        return -1;

    snprintf(name, sizeof(name), "%s.plt", lp->stem);
    FILE *p = open_in(dir, name, err, errlen);
    if (!p)
        return -1;
    char title[160];
    title_esc(title, sizeof(title), sw->name);
    char sub[160] = "";
    if (per > (size_t)seeds && seeds > 1)
        snprintf(sub, sizeof(sub), "mean over the other parameters; bars: lowest to highest of %d seeds", seeds);
    else if (seeds > 1)
        snprintf(sub, sizeof(sub), "mean of %d seeds; bars: lowest to highest seed", seeds);
    else if (per > 1)
        snprintf(sub, sizeof(sub), "mean over the other parameters");
    fprintf(p, "reset\nset encoding utf8\n");
    if (sub[0])
        fprintf(p, "set title \"%s: %s\\n{/*0.85 (%s)}\"\n", title, lp->what, sub);
    else
        fprintf(p, "set title \"%s: %s\"\n", title, lp->what);
    fprintf(p, "set xlabel '%s'\nset ylabel '%s (log scale)'\n", lp->xlabel, lp->ylabel);
    fprintf(p, "set grid xtics ytics mytics\nset key %s box opaque\n", lp->key);
    if (lp->logx)
        fprintf(p, "set logscale x 2\nset format x '%%.0f'\n");
    fprintf(p, "set logscale y 10\nset yrange [%g:%g]\nset format y '%%g'\n", floor_, top);
    fprintf(p, "set ytics add ('≤ %g' %g)\n", floor_, floor_);
    fprintf(p, "set style line 99 lc rgb '#b02020' dt 2 lw 1.5\n");
    fprintf(p, "plot \\\n");
    for (int li = 0; li < nl; li++) {
        char t[96], te[192];
        if (lp->line_ax >= 0)
            snprintf(t, sizeof(t), lp->line_fmt, sw->axes[lp->line_ax].vals[lo_[li]].text);
        else
            snprintf(t, sizeof(t), "%s", lp->ylabel);
        title_esc(te, sizeof(te), t);
        int lt = li + 1;
        if (seeds > 1)
            fprintf(p, "  '%s.dat' index %d using 1:8:9:10 with yerrorlines lt %d lw 2 pt 7 title '%s', \\\n",
                    lp->stem, li, lt, te);
        else
            fprintf(p, "  '%s.dat' index %d using 1:8 with linespoints lt %d lw 2 pt 7 title '%s', \\\n", lp->stem, li,
                    lt, te);
        fprintf(p, "  '' index %d using 1:($7 == 1 ? $8 : NaN) with points lt %d lw 2 pt 6 ps 3 notitle, \\\n", li, lt);
        fprintf(p, "  '' index %d using 1:($7 == 2 ? $8 : NaN) with points lt %d lw 2 pt 4 ps 3 notitle, \\\n", li, lt);
    }
    fprintf(p, "  NaN with points lc 'black' lw 2 pt 6 ps 2 title 'recommended', \\\n");
    fprintf(p, "  NaN with points lc 'black' lw 2 pt 4 ps 2 title 'best, target not met', \\\n");
    fprintf(p, "  %g with lines ls 99 title 'target %g %%'\n", lp->target, lp->target);
    if (close_in(p, dir, name, err, errlen))
        return -1;
    gp_terms(gp, lp->stem, NULL, false);
    return 0;
}

/* Collision rate against FIFO depth, one line per memory latency (or drain bandwidth, ...). */
static int plot_collisions(const ex_sweep *sw, const ex_result *res, const char *dir, FILE *gp, char *err,
                           size_t errlen)
{
    int which;
    int fa = axis_of(sw, "fifo_bytes"), da = line_axis(sw, &which);
    bool pow2 = true;
    for (int k = 0; k < sw->axes[fa].nvals; k++) {
        uint64_t u = (uint64_t)sw->axes[fa].vals[k].d;
        if (!u || (u & (u - 1)))
            pow2 = false;
    }
    line_plot lp = { .stem = "collisions_vs_fifo", .size_ax = fa, .line_ax = da, .metric = EXM_COLLISION_PCT,
                     .target = sw->max_collision_pct, .what = "collision rate against record FIFO depth",
                     .xlabel = "record FIFO depth (bytes)", .ylabel = "collision rate (% of sample points)",
                     .line_name = line_axes[which].param, .line_fmt = line_axes[which].label,
                     .key = da >= 0 ? "outside right center" : "right top", .logx = pow2 };
    return plot_lines(sw, res, dir, gp, &lp, err, errlen);
}

/* Heat map: data lost against buffer size (x) and interrupt latency (y); each cell the mean (with
 * the lowest and highest seed's when the points run with several seeds), and a square around the
 * recommended buffer of each latency (dashed: the best one when none meets the target). */
static int plot_heatmap(const ex_sweep *sw, const ex_result *res, const char *dir, FILE *gp, char *err,
                        size_t errlen)
{
    int ba = axis_of(sw, "buffer_bytes"), la = axis_of(sw, "irq_latency");
    int bo[EX_MAX_VALUES], lo[EX_MAX_VALUES];
    sorted_order(&sw->axes[ba], bo);
    sorted_order(&sw->axes[la], lo);
    FILE *d = open_in(dir, "lost_heatmap.dat", err, errlen);
    if (!d)
        return -1;
    size_t per = 0;
    double vmax = 0;
    int seeds = seed_count(sw);
    fprintf(d, "# buffer_index irq_latency_index lost_pct_mean buffer_bytes irq_latency lost_pct_seed_min "
               "lost_pct_seed_max recommended\n");
    fprintf(d, "# over %d seed(s); recommended: 1 the recommended buffer of the latency, 2 the best one when none "
               "meets the target of %g %%, 0 other sizes\n", seeds, sw->max_lost_pct);
    for (int y = 0; y < sw->axes[la].nvals; y++) {
        size_pick sp = pick_size(sw, res, ba, bo, la, lo[y], EXM_LOST_PCT, sw->max_lost_pct);
        for (int x = 0; x < sw->axes[ba].nvals; x++) {
            agg g = aggregate(sw, res, EXM_LOST_PCT, ba, bo[x], la, lo[y], -1, 0);
            double smin, smax;
            seed_spread(sw, res, EXM_LOST_PCT, ba, bo[x], la, lo[y], &smin, &smax);
            int mk = sp.pick >= 0 ? (x == sp.pick ? 1 : 0) : (x == sp.best ? 2 : 0);
            fprintf(d, "%d %d %.9g %s %s %.9g %.9g %d\n", x, y, g.mean, sw->axes[ba].vals[bo[x]].text,
                    sw->axes[la].vals[lo[y]].text, smin, smax, mk);
            per = g.n;
            if (g.mean > vmax)
                vmax = g.mean;
        }
        fprintf(d, "\n");
    }
    if (close_in(d, dir, "lost_heatmap.dat", err, errlen))
        return -1;
    FILE *p = open_in(dir, "lost_heatmap.plt", err, errlen);
    if (!p)
        return -1;
    char name[160];
    title_esc(name, sizeof(name), sw->name);
    fprintf(p, "reset\nset encoding utf8\n");
    fprintf(p, "set title \"%s: data lost (%% of sample points)%s%s\"\n", name,
            per > (size_t)seeds ? ", mean over the other parameters" : "",
            seeds > 1 ? "; lowest - highest of the seeds below" : "");
    fprintf(p, "set xlabel 'Profiling Buffer size (squares: the recommended size per latency; dashed: the best, "
               "target %g %% not met)'\nset ylabel 'interrupt service latency (cycles)'\n", sw->max_lost_pct);
    fprintf(p, "set xtics (");
    for (int x = 0; x < sw->axes[ba].nvals; x++) {
        char hb[32];
        human_bytes(hb, sizeof(hb), sw->axes[ba].vals[bo[x]].d);
        fprintf(p, "%s'%s' %d", x ? ", " : "", hb, x);
    }
    fprintf(p, ")\nset ytics (");
    for (int y = 0; y < sw->axes[la].nvals; y++)
        fprintf(p, "%s'%s' %d", y ? ", " : "", sw->axes[la].vals[lo[y]].text, y);
    fprintf(p, ")\n");
    fprintf(p, "set xrange [-0.5:%d.5]\nset yrange [-0.5:%d.5]\n", sw->axes[ba].nvals - 1, sw->axes[la].nvals - 1);
    fprintf(p, "set palette defined (0 '#ffffff', 1 '#ffe08a', 2 '#f08a3c', 3 '#b01c1c')\n");
    fprintf(p, "set cbrange [0:%g]\nset cblabel 'data lost (%%)'\nunset key\nset tics out nomirror\n",
            vmax > 0 ? vmax : 1);
    fprintf(p, "plot 'lost_heatmap.dat' using 1:2:3 with image, \\\n");
    if (seeds > 1)
        fprintf(p, "     '' using 1:2:(sprintf(\"%%.2g\\n{/*0.8 %%.2g - %%.2g}\", $3, $6, $7)) with labels "
                   "font 'Sans,10', \\\n");
    else
        fprintf(p, "     '' using 1:2:(sprintf('%%.2g', $3)) with labels font 'Sans,10', \\\n");
    fprintf(p, "     '' using 1:2:($8 == 1 ? 0.44 : NaN):(0.4) with boxxyerror fs empty lc 'black' lw 2.5, \\\n"
               "     '' using 1:2:($8 == 2 ? 0.44 : NaN):(0.4) with boxxyerror fs empty lc 'black' lw 2.5 dt 2\n");
    if (close_in(p, dir, "lost_heatmap.plt", err, errlen))
        return -1;
    gp_terms(gp, "lost_heatmap", NULL, true);
    return 0;
}

/* TRBE: bytes lost against trace buffer size, one line per mode (or interrupt latency). */
static int plot_trbe(const ex_sweep *sw, const ex_result *res, const char *dir, FILE *gp, int ba, int oa, char *err,
                     size_t errlen)
{
    char fmt[64];
    snprintf(fmt, sizeof(fmt), "%s %%s", oa >= 0 ? ex_param(sw->axes[oa].param)->name + 5 : "");
    line_plot lp = { .stem = "trbe_lost_vs_buffer", .size_ax = ba, .line_ax = oa, .metric = EXM_TRBE_LOST_PCT,
                     .target = sw->max_lost_pct, .what = "TRBE trace lost against trace buffer size",
                     .xlabel = "trace buffer size (bytes)", .ylabel = "trace bytes lost (% of trace)",
                     .line_name = oa >= 0 ? ex_param(sw->axes[oa].param)->name : "trbe", .line_fmt = fmt,
                     .key = "outside right center", .logx = true };
    return plot_lines(sw, res, dir, gp, &lp, err, errlen);
}

/* Runs gnuplot in dir on plots.gp; false if it is missing or fails (its messages: gnuplot.log). */
static bool run_gnuplot(const char *dir)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(126);
        int fd = open("gnuplot.log", O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
            close(fd);
        }
        execlp("gnuplot", "gnuplot", "plots.gp", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int ex_write_outputs(const ex_sweep *sw, const ex_result *res, const char *outdir, bool plots, bool *plotted,
                     FILE *summary, char *err, size_t errlen)
{
    char path[4096];
    *plotted = false;
    snprintf(path, sizeof(path), "%s/results.csv", outdir);
    if (write_csv(sw, res, path, err, errlen))
        return -1;

    ex_reco *reco = NULL;
    int nreco = ex_recommend(sw, res, &reco);
    if (nreco < 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int fa = axis_of(sw, "fifo_bytes");
    int ba = axis_of(sw, "buffer_bytes"), la = axis_of(sw, "irq_latency");
    int tba = axis_of(sw, "trbe_buffer_bytes"), tma = axis_of(sw, "trbe_mode");
    int toa = tma >= 0 ? tma : axis_of(sw, "trbe_irq_latency");

    snprintf(path, sizeof(path), "%s/results.json", outdir);
    int rc = write_json(sw, res, path, reco, nreco, err, errlen);
    if (!rc) {
        snprintf(path, sizeof(path), "%s/recommendation.txt", outdir);
        FILE *f = fopen(path, "w");
        if (!f) {
            snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
            rc = -1;
        } else {
            fprintf(f, "armprof-explore %s (%zu points, %s model)\n", sw->name, sw->npoints,
                    sw->model == EX_MODEL_PLATFORM ? "platform" : "C-level");
            for (int i = 0; i < nreco; i++)
                fprintf(f, "%s\n", reco[i].text);
            if (close_in(f, NULL, path, err, errlen))
                rc = -1;
        }
    }
    if (!rc && plots) {
        FILE *gp = open_in(outdir, "plots.gp", err, errlen);
        int made = 0, possible = 0;
        if (!gp)
            rc = -1;
        if (!rc && fa >= 0 && sw->axes[fa].nvals >= 2) {
            possible++;
            if (plot_collisions(sw, res, outdir, gp, err, errlen) == 0)
                made++;
            else
                rc = -1;
        }
        if (!rc && ba >= 0 && la >= 0 && sw->axes[ba].nvals >= 2 && sw->axes[la].nvals >= 2) {
            possible++;
            if (plot_heatmap(sw, res, outdir, gp, err, errlen) == 0)
                made++;
            else
                rc = -1;
        }
        if (!rc && tba >= 0 && sw->axes[tba].nvals >= 2) {
            possible++;
            if (plot_trbe(sw, res, outdir, gp, tba, toa, err, errlen) == 0)
                made++;
            else
                rc = -1;
        }
        if (gp && rc)
            fclose(gp); /* the first error is the one said */
        else if (gp && close_in(gp, outdir, "plots.gp", err, errlen))
            rc = -1;
        if (!rc && made) {
            *plotted = run_gnuplot(outdir);
            if (!*plotted && summary)
                fprintf(summary, "armprof-explore: gnuplot failed or is missing (see %s/gnuplot.log); "
                                 "the scripts are in %s/plots.gp\n", outdir, outdir);
        }
        if (!rc && summary && possible == 0)
            fprintf(summary, "armprof-explore: no plot: sweep fifo_bytes (collisions), buffer_bytes and "
                             "irq_latency (heat map), or trbe_buffer_bytes, with at least two values each\n");
    }
    if (!rc && summary) {
        /* The recommendation first, then what was written: the last lines a terminal or a log shows
         * are the summary. */
        fprintf(summary, "armprof-explore: %s: recommendation (%s/recommendation.txt):\n", sw->name, outdir);
        for (int i = 0; i < nreco; i++)
            fprintf(summary, "  %s\n", reco[i].text);
        fprintf(summary, "armprof-explore: %s: %zu points -> %s/results.csv, results.json%s\n", sw->name,
                sw->npoints, outdir, *plotted ? ", plots (.png, .svg)" : "");
        fflush(summary);
    }
    free(reco);
    return rc;
}
