/* SPDX-License-Identifier: Apache-2.0 */
/* engine.c: armprof/engine.h over the sweep engine (explore/) and the C-level run (run/): scenarios, sweeps, one run, the recommendation. */
#define _GNU_SOURCE /* mkdtemp */
#include "armprof/engine.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "explore.h"

struct ape_sweep {
    ex_sweep sw;
};

static void set_err(ape_error *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_err(ape_error *e, int code, const char *fmt, ...)
{
    if (!e)
        return;
    memset(e, 0, sizeof(*e));
    e->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->text, sizeof(e->text), fmt, ap);
    va_end(ap);
}

static void ok(ape_error *e)
{
    if (e)
        memset(e, 0, sizeof(*e));
}

ape_sweep *ape_sweep_load(const char *path, const char *name, const char *text, int kind, int model,
                          ape_error *err)
{
    ok(err);
    if ((!path && !text) || (model != APE_MODEL_C && model != APE_MODEL_PLATFORM) ||
        (kind != APE_KIND_SWEEP && kind != APE_KIND_SCENARIO)) {
        set_err(err, APE_ERR_ARG, "ape_sweep_load: a path or a text, a model and a kind");
        return NULL;
    }
    if (path && access(path, R_OK) != 0) {
        set_err(err, APE_ERR_IO, "%s: %s", path, strerror(errno));
        return NULL;
    }
    ape_sweep *s = calloc(1, sizeof(*s));
    if (!s) {
        set_err(err, APE_ERR_NOMEM, "out of memory");
        return NULL;
    }
    ex_load_error le;
    char msg[1024];
    unsigned flags = kind == APE_KIND_SCENARIO ? EX_LOAD_SCENARIO : 0;
    int rc = ex_sweep_load_ex(path, name ? name : (kind == APE_KIND_SCENARIO ? "scenario" : "sweep"), text, flags,
                              &s->sw, &le, msg, sizeof(msg));
    if (!rc)
        rc = ex_sweep_set_model_ex(&s->sw, model == APE_MODEL_PLATFORM ? EX_MODEL_PLATFORM : EX_MODEL_C, &le, msg,
                                   sizeof(msg));
    if (rc) {
        if (err) {
            memset(err, 0, sizeof(*err));
            err->code = APE_ERR_SCENARIO;
            err->line = le.line;
            err->column = le.column;
            snprintf(err->key, sizeof(err->key), "%s", le.key);
            snprintf(err->value, sizeof(err->value), "%s", le.value);
            snprintf(err->text, sizeof(err->text), "%s", msg);
        }
        free(s);
        return NULL;
    }
    return s;
}

void ape_sweep_free(ape_sweep *s)
{
    free(s);
}

size_t ape_sweep_points(const ape_sweep *s)
{
    return s ? s->sw.npoints : 0;
}

const char *ape_sweep_name(const ape_sweep *s)
{
    return s ? s->sw.name : "";
}

int ape_sweep_axes(const ape_sweep *s)
{
    return s ? s->sw.naxes : 0;
}

const char *ape_sweep_axis_name(const ape_sweep *s, int a)
{
    if (!s || a < 0 || a >= s->sw.naxes)
        return NULL;
    return ex_param((size_t)s->sw.axes[a].param)->name;
}

int ape_sweep_axis_numeric(const ape_sweep *s, int a)
{
    if (!s || a < 0 || a >= s->sw.naxes)
        return 0;
    ex_kind k = ex_param((size_t)s->sw.axes[a].param)->kind;
    return k != EX_ENUM && k != EX_TEXT;
}

int ape_sweep_point_param(const ape_sweep *s, size_t i, int a, char *buf, size_t len, double *number)
{
    if (!s || a < 0 || a >= s->sw.naxes || i >= s->sw.npoints)
        return -1;
    ex_point_cfg cfg;
    ex_point_build(&s->sw, i, &cfg);
    ex_val v = ex_param_get((size_t)s->sw.axes[a].param, &cfg);
    if (buf && len)
        snprintf(buf, len, "%s", v.text);
    if (number)
        *number = v.d;
    return 0;
}

int ape_metric_count(void)
{
    return EXM__COUNT;
}

const char *ape_metric_name(int m)
{
    return m >= 0 && m < EXM__COUNT ? ex_metric_name(m) : NULL;
}

const char *ape_metric_help(int m)
{
    return m >= 0 && m < EXM__COUNT ? ex_metric_help(m) : NULL;
}

int ape_param_count(void)
{
    return (int)ex_param_count();
}

const char *ape_param_name(int p)
{
    return p >= 0 && (size_t)p < ex_param_count() ? ex_param((size_t)p)->name : NULL;
}

const char *ape_param_help(int p)
{
    return p >= 0 && (size_t)p < ex_param_count() ? ex_param((size_t)p)->help : NULL;
}

const char *ape_find_vp(const char *vp_path, const char *fallback_dir)
{
    static char path[4200];
    const char *env = getenv("ARMPROF_VP");
    if (vp_path && *vp_path)
        snprintf(path, sizeof(path), "%s", vp_path);
    else if (env && *env)
        snprintf(path, sizeof(path), "%s", env);
    else if (ex_default_vp_path())
        snprintf(path, sizeof(path), "%s", ex_default_vp_path());
    else if (fallback_dir && *fallback_dir)
        snprintf(path, sizeof(path), "%s/armprof-vp", fallback_dir);
    else
        return NULL;
    return access(path, X_OK) == 0 ? path : NULL;
}

/* ----- Sweeps ---------------------------------------------------------------------------------- */

static void rm_tree_shallow(const char *dir)
{
    /* The platform's per-point folders are removed by the engine after a good run; a failed one
     * is kept for its log, so only an empty folder goes. */
    rmdir(dir);
}

static const char *vp_for(const ape_sweep *s, const char *vp, ape_error *err)
{
    if (s->sw.model != EX_MODEL_PLATFORM)
        return NULL;
    const char *p = ape_find_vp(vp, NULL);
    if (!p)
        set_err(err, APE_ERR_RUN, "the platform model needs armprof-vp: %s%s",
                vp && *vp ? vp : "none found ($ARMPROF_VP, or next to the program)",
                vp && *vp ? " is not an executable" : "");
    return p;
}

int ape_sweep_run(const ape_sweep *s, const ape_sweep_opts *o, double *metrics, unsigned char *have, ape_error *err)
{
    ok(err);
    if (!s || !o || !metrics || !have) {
        set_err(err, APE_ERR_ARG, "ape_sweep_run: a sweep, options and result arrays");
        return -1;
    }
    size_t n = s->sw.npoints;
    for (size_t i = 0; i < n * EXM__COUNT; i++)
        metrics[i] = NAN;
    memset(have, 0, n);
    const char *vp = NULL;
    if (s->sw.model == EX_MODEL_PLATFORM && !(vp = vp_for(s, o->vp_path, err)))
        return -1;
    ex_result *res = calloc(n ? n : 1, sizeof(*res));
    if (!res) {
        set_err(err, APE_ERR_NOMEM, "out of memory");
        return -1;
    }
    char tmp[] = "/tmp/armprof-sweep-XXXXXX";
    const char *workdir = NULL;
    if (!o->outdir && s->sw.model == EX_MODEL_PLATFORM) {
        const char *t = getenv("TMPDIR");
        static char tmpl[4200];
        if (t && *t) {
            snprintf(tmpl, sizeof(tmpl), "%s/armprof-sweep-XXXXXX", t);
            workdir = mkdtemp(tmpl);
        } else {
            workdir = mkdtemp(tmp);
        }
        if (!workdir) {
            free(res);
            set_err(err, APE_ERR_IO, "cannot create a temporary folder: %s", strerror(errno));
            return -1;
        }
    }
    ex_run_opts ro = { .outdir = o->outdir, .jobs = o->jobs, .fresh = o->fresh != 0, .progress = false,
                       .plots = o->plots != 0, .stop = o->stop, .summary = NULL, .vp_path = vp, .results = res,
                       .have = have, .done = o->done, .workdir = workdir };
    ex_run_stats st;
    char msg[1024];
    int rc = ex_sweep_run(&s->sw, &ro, &st, msg, sizeof(msg));
    for (size_t i = 0; i < n; i++)
        if (have[i])
            memcpy(metrics + i * EXM__COUNT, res[i].m, sizeof(res[i].m));
    free(res);
    if (workdir)
        rm_tree_shallow(workdir);
    if (rc) {
        set_err(err, st.interrupted && !st.failed ? APE_ERR_INTERRUPTED : APE_ERR_RUN, "%s", msg);
        return -1;
    }
    return 0;
}

int ape_sweep_seeds(const ape_sweep *s)
{
    if (!s)
        return 0;
    int p = ex_param_find("seed");
    for (int a = 0; a < s->sw.naxes; a++)
        if (s->sw.axes[a].param == p)
            return s->sw.axes[a].nvals;
    return 1;
}

int ape_sweep_recommend(const ape_sweep *s, const double *metrics, ape_reco *out, int max)
{
    if (!s || !metrics)
        return -1;
    size_t n = s->sw.npoints;
    ex_result *res = calloc(n ? n : 1, sizeof(*res));
    if (!res)
        return -1;
    for (size_t i = 0; i < n; i++)
        memcpy(res[i].m, metrics + i * EXM__COUNT, sizeof(res[i].m));
    ex_reco *r = NULL;
    int k = ex_recommend(&s->sw, res, &r);
    free(res);
    for (int i = 0; i < k && i < max && out; i++) {
        ape_reco *a = &out[i];
        memset(a, 0, sizeof(*a));
        if (r[i].size_param >= 0)
            snprintf(a->size_param, sizeof(a->size_param), "%s", ex_param((size_t)r[i].size_param)->name);
        if (r[i].metric >= 0)
            snprintf(a->metric, sizeof(a->metric), "%s", ex_metric_name(r[i].metric));
        a->target = r[i].target;
        if (r[i].line_param >= 0)
            snprintf(a->line_param, sizeof(a->line_param), "%s", ex_param((size_t)r[i].line_param)->name);
        snprintf(a->line_value, sizeof(a->line_value), "%s", r[i].line_value);
        a->line_number = r[i].line_number;
        a->met = r[i].met;
        a->size = r[i].size;
        a->worst = r[i].worst;
        a->best_size = r[i].best_size;
        a->best_worst = r[i].best_worst;
        snprintf(a->text, sizeof(a->text), "%s", r[i].text);
        a->seeds = r[i].seeds;
        a->ref_point = r[i].ref;
        snprintf(a->limit, sizeof(a->limit), "%s", ex_limit_names[r[i].limit]);
        a->record_bytes_per_cycle = r[i].record_bytes_per_cycle;
        a->record_gbytes_per_s = r[i].record_gbytes_per_s;
        a->clock_hz = r[i].clock_hz;
        a->drain = r[i].drain;
        a->write_latency_cycles = r[i].write_latency_cycles;
        a->write_bytes = r[i].write_bytes;
        a->outstanding_writes = r[i].outstanding_writes;
        a->capacity_bytes_per_cycle = r[i].capacity_bytes_per_cycle;
        a->bytes_in_flight = r[i].bytes_in_flight;
        a->min_outstanding_writes = r[i].min_outstanding_writes;
        a->need_drain = r[i].need_drain;
        a->need_outstanding_writes = r[i].need_outstanding_writes;
        a->need_write_bytes = r[i].need_write_bytes;
        a->max_write_latency_ns = r[i].max_write_latency_ns;
        a->need_buffer_bytes = r[i].need_buffer_bytes;
    }
    free(r);
    return k;
}

/* ----- One run --------------------------------------------------------------------------------- */

static int mkdirs(const char *dir)
{
    char b[4096];
    snprintf(b, sizeof(b), "%s", dir);
    for (char *p = b + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(b, 0777) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(b, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

static void hexs(cJSON *o, const char *k, uint64_t v)
{
    char b[24];
    snprintf(b, sizeof(b), "0x%016" PRIx64, v);
    cJSON_AddStringToObject(o, k, b);
}

/* summary.json of a C-level run: the point's metrics and the runs' own counts and registers. */
static char *c_summary(const ape_sweep *s, const ex_point_cfg *cfg, const ex_result *res, const spe_run_result *sr,
                       const run_trbe_result *tr)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "model", "c");
    cJSON_AddStringToObject(j, "scenario", s->sw.name);
    hexs(j, "seed", ex_point_seed(cfg));
    cJSON *m = cJSON_AddObjectToObject(j, "metrics");
    for (int k = 0; k < EXM__COUNT; k++)
        if (!isnan(res->m[k]))
            cJSON_AddNumberToObject(m, ex_metric_name(k), res->m[k]);
    if (sr) {
        const spu_stats *st = &sr->st;
        cJSON *o = cJSON_AddObjectToObject(j, "spu");
#define N(f) cJSON_AddNumberToObject(o, #f, (double)st->f)
        N(population); N(feed); N(filtrate); N(collisions); N(filtered_out); N(records_written); N(bytes_written);
        N(records_discarded); N(management_events); N(buffer_full_events); N(fault_events); N(ext_abort_events);
        N(fifo_bytes_max); N(service_cycles); N(writer_stall_cycles); N(writes_issued); N(outstanding_writes_max);
        N(write_latency_min); N(write_latency_max);
#undef N
        cJSON *d = cJSON_AddObjectToObject(o, "discarded");
        for (int k = 0; k < SPU_DISCARD__COUNT; k++)
            cJSON_AddNumberToObject(d, spu_discard_reason_name((spu_discard_reason)k), (double)st->discarded[k]);
        cJSON_AddNumberToObject(o, "interrupts", (double)sr->irqs);
        cJSON_AddNumberToObject(o, "serviced", (double)sr->serviced);
        cJSON_AddNumberToObject(o, "fatal", (double)sr->fatal);
        cJSON_AddNumberToObject(o, "dl_events", (double)sr->dl_events);
        cJSON_AddNumberToObject(o, "dumped_bytes", (double)sr->dumped_bytes);
        cJSON_AddNumberToObject(o, "cycles", (double)sr->cycles);
        cJSON_AddNumberToObject(o, "fifo_mean", sr->fifo_mean);
        cJSON_AddNumberToObject(o, "fifo_p99", (double)sr->fifo_p99);
        cJSON_AddNumberToObject(o, "host_seconds", sr->host_seconds);
        hexs(o, "pmbsr", sr->pmbsr);
        hexs(o, "pmbptr", sr->pmbptr);
        hexs(o, "pmblimitr", sr->pmblimitr);
        hexs(o, "pmsicr", sr->pmsicr);
        hexs(o, "buffer_base", sr->buffer_base);
    }
    if (tr) {
        const trbu_stats *st = &tr->st;
        cJSON *o = cJSON_AddObjectToObject(j, "trbu");
#define N(f) cJSON_AddNumberToObject(o, #f, (double)st->f)
        N(bytes_in); N(bytes_refused); N(bytes_written); N(bytes_discarded); N(wraps); N(management_events);
        N(buffer_full_events); N(wrap_irq_events); N(trigger_mgmt_events); N(fault_events); N(ext_abort_events);
        N(detected_triggers); N(trigger_events); N(buf_bytes_max); N(writer_stall_cycles); N(outstanding_writes_max);
#undef N
        cJSON_AddNumberToObject(o, "interrupts", (double)tr->irqs);
        cJSON_AddNumberToObject(o, "serviced_wraps", (double)tr->serviced_wraps);
        cJSON_AddNumberToObject(o, "dumped_bytes", (double)tr->dumped_bytes);
        cJSON_AddNumberToObject(o, "overwritten_bytes", (double)tr->overwritten_bytes);
        cJSON_AddNumberToObject(o, "cycles", (double)tr->cycles);
        cJSON_AddNumberToObject(o, "host_seconds", tr->host_seconds);
        hexs(o, "trbsr", tr->trbsr);
        hexs(o, "trbptr", tr->trbptr);
        hexs(o, "trblimitr", tr->trblimitr);
        hexs(o, "trbbaser", tr->trbbaser);
    }
    char *text = cJSON_Print(j);
    cJSON_Delete(j);
    return text;
}

static int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    bool good = fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    return fclose(f) == 0 && good ? 0 : -1;
}

int ape_run(const ape_sweep *s, const ape_run_opts *o, double *metrics, char **summary, ape_error *err)
{
    ok(err);
    if (summary)
        *summary = NULL;
    if (!s || !o || !o->outdir || !metrics) {
        set_err(err, APE_ERR_ARG, "ape_run: a scenario, an output folder and a metrics array");
        return -1;
    }
    if (s->sw.npoints != 1 || s->sw.naxes) {
        set_err(err, APE_ERR_ARG, "ape_run: '%s' is a sweep: run one scenario", s->sw.name);
        return -1;
    }
    for (int k = 0; k < EXM__COUNT; k++)
        metrics[k] = NAN;
    if (mkdirs(o->outdir)) {
        set_err(err, APE_ERR_IO, "cannot create %s: %s", o->outdir, strerror(errno));
        return -1;
    }
    ex_point_cfg cfg;
    ex_point_build(&s->sw, 0, &cfg);
    ex_result res;
    char msg[1024];
    char *text = NULL;
    char path[4200];
    if (s->sw.model == EX_MODEL_PLATFORM) {
        const char *vp = vp_for(s, o->vp_path, err);
        if (!vp)
            return -1;
        if (ex_point_run_platform_in(&s->sw, &cfg, vp, o->outdir, &res, &text, msg, sizeof(msg))) {
            set_err(err, APE_ERR_RUN, "%s", msg);
            return -1;
        }
    } else {
        FILE *spe = NULL, *trbe = NULL;
        if (cfg.spe_enabled) {
            snprintf(path, sizeof(path), "%s/spe.bin", o->outdir);
            if (!(spe = fopen(path, "wb"))) {
                set_err(err, APE_ERR_IO, "cannot write %s: %s", path, strerror(errno));
                return -1;
            }
        }
        if (cfg.trbe_enabled) {
            snprintf(path, sizeof(path), "%s/trbe.bin", o->outdir);
            if (!(trbe = fopen(path, "wb"))) {
                set_err(err, APE_ERR_IO, "cannot write %s: %s", path, strerror(errno));
                if (spe)
                    fclose(spe);
                return -1;
            }
        }
        spe_run_result sr;
        run_trbe_result tr;
        ex_point_io io = { .spe_dump = spe, .trbe_dump = trbe, .spe = &sr, .trbe = &tr };
        int rc = ex_point_run_io(&cfg, &io, &res, msg, sizeof(msg));
        bool io_bad = (spe && (ferror(spe) | fclose(spe))) || (trbe && (ferror(trbe) | fclose(trbe)));
        if (rc) {
            set_err(err, APE_ERR_RUN, "%s", msg);
            return -1;
        }
        if (io_bad) {
            set_err(err, APE_ERR_IO, "cannot write the buffer contents into %s: %s", o->outdir, strerror(errno));
            return -1;
        }
        text = c_summary(s, &cfg, &res, cfg.spe_enabled ? &sr : NULL, cfg.trbe_enabled ? &tr : NULL);
        snprintf(path, sizeof(path), "%s/summary.json", o->outdir);
        if (!text || write_text(path, text)) {
            set_err(err, text ? APE_ERR_IO : APE_ERR_NOMEM, "cannot write %s", path);
            free(text);
            return -1;
        }
    }
    memcpy(metrics, res.m, sizeof(res.m));
    if (summary)
        *summary = text;
    else
        free(text);
    return 0;
}

void ape_free(void *p)
{
    free(p);
}
