/* SPDX-License-Identifier: Apache-2.0 */
/* report.c: a sweep's results as CSV and JSON, gnuplot plots (PNG and SVG) and a text recommendation. */
#define _POSIX_C_SOURCE 200809L
#include "explore.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
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
    if (fclose(f) != 0) {
        snprintf(err, errlen, "cannot write %s", path);
        return -1;
    }
    return 0;
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
    if (!f || !text || fprintf(f, "%s\n", text) < 0)
        rc = -1;
    if (f && fclose(f) != 0)
        rc = -1;
    cJSON_free(text);
    if (rc)
        snprintf(err, errlen, "cannot write %s", path);
    return rc;
}

/* ----- Recommendation ------------------------------------------------------------------------
 * For each value of the "other" axis (drain bandwidth, interrupt latency), the smallest swept
 * size from which on every larger size keeps the metric under the target at every point
 * (worst case over the remaining axes). */

static int add_reco(ex_reco **list, int *n, const ex_reco *r)
{
    ex_reco *l = realloc(*list, sizeof(ex_reco) * (size_t)(*n + 1));
    if (!l)
        return -1;
    *list = l;
    l[(*n)++] = *r;
    return 0;
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
    for (int oi = 0; oi < nother; oi++) {
        int o = oorder[oi];
        ex_reco r = { .size_param = sa->param, .metric = metric, .target = target, .line_param = -1,
                      .line_number = NAN, .size = NAN, .worst = NAN };
        char prefix[96] = "", hb[32];
        if (other_ax >= 0) {
            const ex_axis *oa = &sw->axes[other_ax];
            snprintf(prefix, sizeof(prefix), "%s %s%s: ", ex_param(oa->param)->name, oa->vals[o].text, other_unit);
            r.line_param = oa->param;
            snprintf(r.line_value, sizeof(r.line_value), "%s", oa->vals[o].text);
            ex_kind k = ex_param(oa->param)->kind;
            r.line_number = k == EX_ENUM || k == EX_TEXT ? NAN : oa->vals[o].d;
        }
        int pick = -1;
        double pick_worst = 0, best = INFINITY;
        int best_k = -1;
        /* best: the lowest worst point of any size (between equal ones the larger), not only of
         * the sizes scanned before the first one over the target */
        for (int k = sa->nvals - 1; k >= 0; k--) {
            agg g = aggregate(sw, res, metric, size_ax, order[k], other_ax, o, -1, 0);
            if (g.max < best) {
                best = g.max;
                best_k = k;
            }
        }
        for (int k = sa->nvals - 1; k >= 0; k--) {
            agg g = aggregate(sw, res, metric, size_ax, order[k], other_ax, o, -1, 0);
            if (!(g.max < target))
                break;
            pick = k;
            pick_worst = g.max;
        }
        r.best_size = best_k >= 0 ? sa->vals[order[best_k]].d : NAN;
        r.best_worst = best;
        if (pick >= 0) {
            r.met = true;
            r.size = sa->vals[order[pick]].d;
            r.worst = pick_worst;
            human_bytes(hb, sizeof(hb), r.size);
            snprintf(r.text, sizeof(r.text), "%sthe smallest %s with %s under %g %% is %s (%s %.3g %%)", prefix,
                     what, metric_what, target, hb, "worst point", pick_worst);
        } else {
            human_bytes(hb, sizeof(hb), r.best_size);
            snprintf(r.text, sizeof(r.text), "%sno swept %s keeps %s under %g %% (best: %s with %.3g %%)", prefix,
                     what, metric_what, target, hb, best);
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
        ex_reco hint = { .size_param = -1, .metric = -1, .target = NAN, .line_param = -1, .line_number = NAN,
                         .size = NAN, .worst = NAN, .best_size = NAN, .best_worst = NAN };
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

/* Collision rate against FIFO depth, one line per drain bandwidth. */
static int plot_collisions(const ex_sweep *sw, const ex_result *res, const char *dir, FILE *gp, char *err,
                           size_t errlen)
{
    int which;
    int fa = axis_of(sw, "fifo_bytes"), da = line_axis(sw, &which);
    FILE *d = open_in(dir, "collisions_vs_fifo.dat", err, errlen);
    if (!d)
        return -1;
    int fo[EX_MAX_VALUES], dord[EX_MAX_VALUES] = { 0 };
    sorted_order(&sw->axes[fa], fo);
    int nd = da >= 0 ? sw->axes[da].nvals : 1;
    if (da >= 0)
        sorted_order(&sw->axes[da], dord);
    size_t per = 0;
    bool pow2 = true;
    fprintf(d, "# fifo_bytes collision_pct_mean collision_pct_max points\n");
    for (int di = 0; di < nd; di++) {
        int dv = dord[di];
        fprintf(d, "# %s %s\n", line_axes[which].param, da >= 0 ? sw->axes[da].vals[dv].text : "(fixed)");
        for (int k = 0; k < sw->axes[fa].nvals; k++) {
            agg g = aggregate(sw, res, EXM_COLLISION_PCT, fa, fo[k], da, dv, -1, 0);
            double x = sw->axes[fa].vals[fo[k]].d;
            uint64_t u = (uint64_t)x;
            if (!u || (u & (u - 1)))
                pow2 = false;
            fprintf(d, "%.0f %.9g %.9g %zu\n", x, g.mean, g.max, g.n);
            per = g.n;
        }
        fprintf(d, "\n\n");
    }
    fclose(d);

    FILE *p = open_in(dir, "collisions_vs_fifo.plt", err, errlen);
    if (!p)
        return -1;
    char name[160];
    title_esc(name, sizeof(name), sw->name);
    fprintf(p, "reset\n");
    fprintf(p, "set title \"%s: collision rate against record FIFO depth%s\"\n", name,
            per > 1 ? " (mean over the other parameters)" : "");
    fprintf(p, "set xlabel 'record FIFO depth (bytes)'\nset ylabel 'collision rate (%% of sample points)'\n");
    /* The drain lines flatten towards the right; memory-latency lines do not: their key goes
     * beside the plot. */
    fprintf(p, "set grid\nset key %s box opaque\nset yrange [0:*]\n",
            da >= 0 && strcmp(line_axes[which].param, "drain") ? "outside right center" : "right center");
    if (pow2)
        fprintf(p, "set logscale x 2\nset format x '%%.0f'\n");
    fprintf(p, "set style line 99 lc rgb '#b02020' dt 2 lw 1.5\n");
    fprintf(p, "plot \\\n");
    for (int di = 0; di < nd; di++) {
        char t[64];
        char te[128];
        if (da >= 0)
            snprintf(t, sizeof(t), line_axes[which].label, sw->axes[da].vals[dord[di]].text);
        else
            snprintf(t, sizeof(t), "collision rate");
        title_esc(te, sizeof(te), t);
        fprintf(p, "  'collisions_vs_fifo.dat' index %d using 1:2 with linespoints lw 2 pt 7 title '%s', \\\n", di, te);
    }
    fprintf(p, "  %g with lines ls 99 title 'target %g %%'\n", sw->max_collision_pct, sw->max_collision_pct);
    fclose(p);
    gp_terms(gp, "collisions_vs_fifo", NULL, false);
    return 0;
}

/* Heat map: data lost against buffer size (x) and interrupt latency (y). */
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
    fprintf(d, "# buffer_index irq_latency_index lost_pct_mean buffer_bytes irq_latency\n");
    for (int y = 0; y < sw->axes[la].nvals; y++) {
        for (int x = 0; x < sw->axes[ba].nvals; x++) {
            agg g = aggregate(sw, res, EXM_LOST_PCT, ba, bo[x], la, lo[y], -1, 0);
            fprintf(d, "%d %d %.9g %s %s\n", x, y, g.mean, sw->axes[ba].vals[bo[x]].text,
                    sw->axes[la].vals[lo[y]].text);
            per = g.n;
            if (g.mean > vmax)
                vmax = g.mean;
        }
        fprintf(d, "\n");
    }
    fclose(d);
    FILE *p = open_in(dir, "lost_heatmap.plt", err, errlen);
    if (!p)
        return -1;
    char name[160];
    title_esc(name, sizeof(name), sw->name);
    fprintf(p, "reset\n");
    fprintf(p, "set title \"%s: data lost (%% of sample points)%s\"\n", name,
            per > 1 ? ", mean over the other parameters" : "");
    fprintf(p, "set xlabel 'Profiling Buffer size'\nset ylabel 'interrupt service latency (cycles)'\n");
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
    fprintf(p, "plot 'lost_heatmap.dat' using 1:2:3 with image, \\\n"
               "     '' using 1:2:(sprintf('%%.2g', $3)) with labels font 'Sans,10'\n");
    fclose(p);
    gp_terms(gp, "lost_heatmap", NULL, true);
    return 0;
}

/* TRBE: bytes lost against trace buffer size, one line per mode (or interrupt latency). */
static int plot_trbe(const ex_sweep *sw, const ex_result *res, const char *dir, FILE *gp, int ba, int oa, char *err,
                     size_t errlen)
{
    FILE *d = open_in(dir, "trbe_lost_vs_buffer.dat", err, errlen);
    if (!d)
        return -1;
    int bo[EX_MAX_VALUES], oo[EX_MAX_VALUES] = { 0 };
    sorted_order(&sw->axes[ba], bo);
    int no = oa >= 0 ? sw->axes[oa].nvals : 1;
    if (oa >= 0)
        sorted_order(&sw->axes[oa], oo);
    size_t per = 0;
    fprintf(d, "# trbe_buffer_bytes trbe_lost_pct_mean trbe_lost_pct_max points\n");
    for (int oi = 0; oi < no; oi++) {
        fprintf(d, "# %s\n", oa >= 0 ? sw->axes[oa].vals[oo[oi]].text : "(fixed)");
        for (int k = 0; k < sw->axes[ba].nvals; k++) {
            agg g = aggregate(sw, res, EXM_TRBE_LOST_PCT, ba, bo[k], oa, oo[oi], -1, 0);
            fprintf(d, "%.0f %.9g %.9g %zu\n", sw->axes[ba].vals[bo[k]].d, g.mean, g.max, g.n);
            if (g.n > per)
                per = g.n;
        }
        fprintf(d, "\n\n");
    }
    fclose(d);
    FILE *p = open_in(dir, "trbe_lost_vs_buffer.plt", err, errlen);
    if (!p)
        return -1;
    char name[160];
    title_esc(name, sizeof(name), sw->name);
    fprintf(p, "reset\n");
    fprintf(p, "set title \"%s: TRBE trace lost against trace buffer size%s\"\n", name,
            per > 1 ? " (mean over the other parameters)" : "");
    fprintf(p, "set xlabel 'trace buffer size (bytes)'\nset ylabel 'trace bytes lost (%% of trace)'\n");
    fprintf(p, "set grid\nset key right top box opaque\nset yrange [0:*]\nset logscale x 2\nset format x '%%.0f'\n");
    fprintf(p, "set style line 99 lc rgb '#b02020' dt 2 lw 1.5\nplot \\\n");
    for (int oi = 0; oi < no; oi++) {
        char t[96];
        if (oa >= 0)
            snprintf(t, sizeof(t), "%s %s", ex_param(sw->axes[oa].param)->name + 5, sw->axes[oa].vals[oo[oi]].text);
        else
            snprintf(t, sizeof(t), "trace lost");
        char te[128];
        title_esc(te, sizeof(te), t);
        fprintf(p, "  'trbe_lost_vs_buffer.dat' index %d using 1:2 with linespoints lw 2 pt 7 title '%s', \\\n", oi,
                te);
    }
    fprintf(p, "  %g with lines ls 99 title 'target %g %%'\n", sw->max_lost_pct, sw->max_lost_pct);
    fclose(p);
    gp_terms(gp, "trbe_lost_vs_buffer", NULL, false);
    return 0;
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
            fclose(f);
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
        if (gp)
            fclose(gp);
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
        fprintf(summary, "armprof-explore: %s: %zu points -> %s/results.csv, results.json%s\n", sw->name,
                sw->npoints, outdir, *plotted ? ", plots (.png, .svg)" : "");
        for (int i = 0; i < nreco; i++)
            fprintf(summary, "  %s\n", reco[i].text);
    }
    free(reco);
    return rc;
}
