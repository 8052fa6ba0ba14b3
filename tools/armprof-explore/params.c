/* SPDX-License-Identifier: Apache-2.0 */
/* params.c: the parameters a sweep can set, the metrics of a point, and running one point. */
#define _POSIX_C_SOURCE 200809L
#include "explore.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Where a parameter lives in ex_point_cfg and how it is stored. */
typedef enum ex_ftype { FT_U64, FT_U32, FT_U8, FT_BOOL, FT_DBL, FT_MIX } ex_ftype;

typedef struct ex_param_impl {
    ex_param_def def;
    ex_ftype ft;
    size_t off;
} ex_param_impl;

#define OFF(f) offsetof(ex_point_cfg, f)
#define GiB (1024.0 * 1024.0 * 1024.0)

const char *const ex_mix_names[] = { "default", "compute", "memory", "branchy", NULL };

/* Table order is the order of application: `mix` first (it reloads the workload), then the
 * rest, so `workload.*` values refine the chosen mix. */
static const ex_param_impl params[] = {
    { { "mix", NULL, EX_ENUM, 0, 3, false, true,
        "workload preset: default, compute, memory (more misses), branchy" }, FT_MIX, OFF(mix) },
    { { "seed", NULL, EX_U64, 0, 18446744073709551615.0, false, true,
        "sweep seed: with the workload parameters it seeds each point" }, FT_U64, OFF(seed) },
    { { "ops", NULL, EX_U64, 1, 1e12, false, false, "population operations per point" },
      FT_U64, OFF(run.ops) },
    { { "ops_per_cycle", "rate", EX_U64, 1, 64, false, false,
        "workload rate: operations retired per cycle" }, FT_U32, OFF(run.ops_per_cycle) },
    { { "clock_hz", NULL, EX_REAL, 1e6, 1e11, false, false,
        "simulated PE clock, for per-second figures" }, FT_DBL, OFF(clock_hz) },
    { { "interval", NULL, EX_U64, 256, 4294967040.0, false, false,
        "sampling interval in operations (PMSIRR_EL1.INTERVAL x 256)" }, FT_U32, OFF(run.interval) },
    { { "rnd", NULL, EX_BOOL, 0, 1, false, false, "PMSIRR_EL1.RND" }, FT_BOOL, OFF(run.rnd) },
    { { "buffer_bytes", NULL, EX_U64, 4096, 4 * GiB, true, false,
        "Profiling Buffer size (multiple of 4 KiB)" }, FT_U64, OFF(run.buffer_bytes) },
    { { "service", NULL, EX_BOOL, 0, 1, false, false,
        "service management events as Linux's arm_spe_pmu does" }, FT_BOOL, OFF(run.service) },
    { { "irq_latency", NULL, EX_U64, 0, 1099511627776.0, false, false,
        "cycles from PMBIRQ to the interrupt handler" }, FT_U64, OFF(run.irq_latency) },
    { { "fifo_bytes", "fifo_depth", EX_U64, 1, 64.0 * 1024 * 1024, true, false,
        "record FIFO depth in bytes" }, FT_U32, OFF(run.spu.fifo_bytes) },
    { { "drain", "drain_bytes_per_cycle", EX_U64, 1, 1048576, false, false,
        "record FIFO drain bandwidth, bytes per cycle" }, FT_U32, OFF(run.spu.drain_bytes_per_cycle) },
    { { "inflight", "max_inflight", EX_U64, 1, 4096, false, false,
        "sampled operations in flight before a collision" }, FT_U32, OFF(run.spu.max_inflight) },
    { { "max_size", NULL, EX_U64, 4, 11, false, false, "PMSIDR_EL1.MaxSize (2^n bytes)" },
      FT_U8, OFF(run.spu.max_size) },
    { { "align", NULL, EX_U64, 0, 11, false, false, "PMBIDR_EL1.Align (2^n bytes)" },
      FT_U8, OFF(run.spu.align) },
    { { "ts", NULL, EX_BOOL, 0, 1, false, false, "PMSCR_EL1.TS" }, FT_BOOL, OFF(run.ts) },
    { { "pa", NULL, EX_BOOL, 0, 1, false, false, "PMSCR_EL1.PA" }, FT_BOOL, OFF(run.pa) },
    { { "cx", NULL, EX_BOOL, 0, 1, false, false, "PMSCR_EL1.CX" }, FT_BOOL, OFF(run.cx) },
#define WLP(f, h) { { "workload." #f, NULL, EX_REAL, 0, 1, false, true, h }, FT_DBL, OFF(run.wl.f) }
#define WLU(f, h) { { "workload." #f, NULL, EX_U64, 0, 1000000, false, true, h }, FT_U32, OFF(run.wl.f) }
    WLP(p_load, "probability of a load"),
    WLP(p_store, "probability of a store"),
    WLP(p_branch, "probability of a branch"),
    WLP(p_atomic, "of loads/stores: atomic"),
    WLP(p_simd, "of loads/stores: SIMD&FP"),
    WLP(p_cond, "of branches and others: conditional"),
    WLP(p_indirect, "of branches: indirect"),
    WLP(p_not_taken, "of conditional branches: not taken"),
    WLP(p_mispredict, "of branches: mispredicted"),
    WLP(p_l1_miss, "of loads/stores: L1 miss"),
    WLP(p_tlb_miss, "of loads/stores: TLB miss"),
    WLP(p_llc_miss, "of L1 misses: last-level cache miss"),
    WLP(p_exception, "any operation: exception"),
    WLP(p_sequential, "of loads/stores: sequential stream"),
    WLU(lat_other, "latency of other operations (cycles)"),
    WLU(lat_branch, "latency of branches"),
    WLU(lat_l1_hit, "latency of an L1 hit"),
    WLU(lat_l1_miss, "latency of an L1 miss"),
    WLU(lat_llc_miss, "latency of a last-level cache miss"),
    WLU(lat_tlb_walk, "extra latency of a TLB walk"),
    WLU(lat_jitter, "uniform extra latency 0..n"),
    WLU(stride, "sequential stream stride (bytes)"),
#undef WLP
#undef WLU
};
#define NPARAMS (sizeof(params) / sizeof(params[0]))
_Static_assert(sizeof(params) / sizeof(params[0]) <= EX_MAX_PARAMS, "raise EX_MAX_PARAMS");

size_t ex_param_count(void) { return NPARAMS; }
const ex_param_def *ex_param(size_t i) { return i < NPARAMS ? &params[i].def : NULL; }

static bool same_name(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a == '-' ? '_' : (char)tolower((unsigned char)*a);
        char y = *b == '-' ? '_' : (char)tolower((unsigned char)*b);
        if (x != y)
            return false;
    }
    return *a == *b;
}

int ex_param_find(const char *name)
{
    /* The platform's scenario files group the SPE controls under `spe:`. */
    if (!strncmp(name, "spe.", 4))
        name += 4;
    for (size_t i = 0; i < NPARAMS; i++)
        if (same_name(name, params[i].def.name) || (params[i].def.alias && same_name(name, params[i].def.alias)))
            return (int)i;
    return -1;
}

static void canon(size_t p, ex_val *v)
{
    switch (params[p].def.kind) {
    case EX_U64: snprintf(v->text, sizeof(v->text), "%" PRIu64, v->u); v->d = (double)v->u; break;
    case EX_BOOL: snprintf(v->text, sizeof(v->text), "%s", v->u ? "true" : "false"); v->d = (double)v->u; break;
    case EX_ENUM: snprintf(v->text, sizeof(v->text), "%s", ex_mix_names[v->u]); v->d = (double)v->u; break;
    case EX_REAL: snprintf(v->text, sizeof(v->text), "%.10g", v->d); v->u = 0; break;
    }
}

int ex_param_parse(size_t p, const char *text, ex_val *out, char *why, size_t whylen)
{
    const ex_param_def *d = &params[p].def;
    memset(out, 0, sizeof(*out));
    switch (d->kind) {
    case EX_BOOL:
        if (!strcmp(text, "true") || !strcmp(text, "yes") || !strcmp(text, "on") || !strcmp(text, "1"))
            out->u = 1;
        else if (!strcmp(text, "false") || !strcmp(text, "no") || !strcmp(text, "off") || !strcmp(text, "0"))
            out->u = 0;
        else {
            snprintf(why, whylen, "%s expects true or false, got '%s'", d->name, text);
            return -1;
        }
        break;
    case EX_ENUM: {
        size_t i;
        for (i = 0; ex_mix_names[i]; i++)
            if (!strcmp(text, ex_mix_names[i]))
                break;
        if (!ex_mix_names[i]) {
            snprintf(why, whylen, "%s expects one of default, compute, memory, branchy; got '%s'", d->name, text);
            return -1;
        }
        out->u = i;
        break;
    }
    case EX_U64: {
        char *end;
        errno = 0;
        if (!isdigit((unsigned char)text[0])) {
            snprintf(why, whylen, "%s expects a whole number in [%.0f, %.0f], got '%s'", d->name, d->lo, d->hi, text);
            return -1;
        }
        unsigned long long v = strtoull(text, &end, 0);
        double scale = 1;
        if (d->bytes && *end) {
            static const struct { const char *s; double m; } suf[] = {
                { "K", 1024.0 }, { "KiB", 1024.0 }, { "M", 1048576.0 }, { "MiB", 1048576.0 },
                { "G", GiB }, { "GiB", GiB } };
            for (size_t i = 0; i < sizeof(suf) / sizeof(suf[0]); i++)
                if (!strcmp(end, suf[i].s)) {
                    scale = suf[i].m;
                    end += strlen(end);
                    break;
                }
        }
        if (errno || *end) {
            snprintf(why, whylen, "%s expects a whole number%s in [%.0f, %.0f], got '%s'", d->name,
                     d->bytes ? " (suffixes K, M, G)" : "", d->lo, d->hi, text);
            return -1;
        }
        double x = (double)v * scale;
        if (x < d->lo || x > d->hi) {
            snprintf(why, whylen, "%s = %s is out of range [%.0f, %.0f]", d->name, text, d->lo, d->hi);
            return -1;
        }
        out->u = (uint64_t)v * (uint64_t)scale;
        if (!strcmp(d->name, "buffer_bytes") && (out->u & 4095)) {
            snprintf(why, whylen, "buffer_bytes = %s is not a multiple of 4096 (PMBLIMITR_EL1.LIMIT "
                     "has 4 KiB granularity)", text);
            return -1;
        }
        break;
    }
    case EX_REAL: {
        char *end;
        errno = 0;
        double v = strtod(text, &end);
        if (errno || end == text || *end || !isfinite(v)) {
            snprintf(why, whylen, "%s expects a number in [%g, %g], got '%s'", d->name, d->lo, d->hi, text);
            return -1;
        }
        if (v < d->lo || v > d->hi) {
            snprintf(why, whylen, "%s = %s is out of range [%g, %g]", d->name, text, d->lo, d->hi);
            return -1;
        }
        out->d = v;
        break;
    }
    }
    canon(p, out);
    return 0;
}

ex_val ex_param_get(size_t p, const ex_point_cfg *cfg)
{
    ex_val v;
    memset(&v, 0, sizeof(v));
    const char *b = (const char *)cfg + params[p].off;
    switch (params[p].ft) {
    case FT_U64: { uint64_t x; memcpy(&x, b, sizeof(x)); v.u = x; break; }
    case FT_U32: { uint32_t x; memcpy(&x, b, sizeof(x)); v.u = x; break; }
    case FT_U8: { uint8_t x; memcpy(&x, b, sizeof(x)); v.u = x; break; }
    case FT_BOOL: { bool x; memcpy(&x, b, sizeof(x)); v.u = x; break; }
    case FT_DBL: { double x; memcpy(&x, b, sizeof(x)); v.d = x; break; }
    case FT_MIX: v.u = cfg->mix; break;
    }
    canon(p, &v);
    return v;
}

static void load_mix(wl_config *w, uint64_t mix)
{
    uint64_t seed = w->seed;
    wl_config_default(w);
    w->seed = seed;
    switch (mix) {
    case 1: /* compute: few memory operations, mostly hits */
        w->p_load = 0.15; w->p_store = 0.05; w->p_branch = 0.12;
        w->p_l1_miss = 0.02; w->p_llc_miss = 0.1;
        break;
    case 2: /* memory: many loads and stores, frequent misses: long sample latencies */
        w->p_load = 0.40; w->p_store = 0.15; w->p_branch = 0.10;
        w->p_l1_miss = 0.25; w->p_llc_miss = 0.5; w->p_tlb_miss = 0.05; w->p_sequential = 0.3;
        break;
    case 3: /* branchy: control-flow heavy, more mispredictions */
        w->p_load = 0.20; w->p_store = 0.08; w->p_branch = 0.35; w->p_mispredict = 0.10;
        w->p_indirect = 0.2;
        break;
    default:
        break;
    }
}

void ex_param_apply(size_t p, ex_point_cfg *cfg, const ex_val *v)
{
    char *b = (char *)cfg + params[p].off;
    switch (params[p].ft) {
    case FT_U64: { uint64_t x = v->u; memcpy(b, &x, sizeof(x)); break; }
    case FT_U32: { uint32_t x = (uint32_t)v->u; memcpy(b, &x, sizeof(x)); break; }
    case FT_U8: { uint8_t x = (uint8_t)v->u; memcpy(b, &x, sizeof(x)); break; }
    case FT_BOOL: { bool x = v->u != 0; memcpy(b, &x, sizeof(x)); break; }
    case FT_DBL: { double x = v->d; memcpy(b, &x, sizeof(x)); break; }
    case FT_MIX: cfg->mix = v->u; load_mix(&cfg->run.wl, v->u); break;
    }
}

void ex_point_cfg_default(ex_point_cfg *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    spe_run_opts_default(&cfg->run);
    cfg->run.ops = 2000000;
    cfg->seed = 1;
    cfg->mix = 0;
    cfg->clock_hz = 2e9;
}

/* ----- Metrics ------------------------------------------------------------------------------- */

static const struct { const char *name, *help; } metrics[EXM__COUNT] = {
    [EXM_SAMPLES] = { "samples", "sampled operations that got a slot (SAMPLE_FEED)" },
    [EXM_COLLISIONS] = { "collisions", "sample points with no free slot (SAMPLE_COLLISION)" },
    [EXM_COLLISION_PCT] = { "collision_pct", "collisions / (samples + collisions), %" },
    [EXM_RECORDS_WRITTEN] = { "records_written", "complete records in the Profiling Buffer" },
    [EXM_RECORDS_DISCARDED] = { "records_discarded", "records discarded, all reasons" },
    [EXM_DISCARD_FIRST + SPU_DISCARD_SERVICE] = { "discarded_service", "discarded: PMBSR_EL1.S == 1" },
    [EXM_DISCARD_FIRST + SPU_DISCARD_DISABLED] = { "discarded_disabled", "discarded: buffer disabled" },
    [EXM_DISCARD_FIRST + SPU_DISCARD_MODE] = { "discarded_discard_mode", "discarded: Discard mode" },
    [EXM_DISCARD_FIRST + SPU_DISCARD_FAULT] = { "discarded_fault", "discarded: fault or External abort" },
    [EXM_DISCARD_FIRST + SPU_DISCARD_PTR] = { "discarded_write_pointer", "discarded: RPGGHS pointer rules" },
    [EXM_DISCARD_FIRST + SPU_DISCARD_EXT_ABORT] = { "discarded_external_abort", "discarded: External abort ignored/SError" },
    [EXM_UNSAMPLED_OPS] = { "unsampled_ops", "operations outside the population (profiling off while PMBSR_EL1.S == 1)" },
    [EXM_LOST_PCT] = { "lost_pct", "data lost: (discarded + collisions + samples missed while S == 1) / all sample points, %" },
    [EXM_DL_EVENTS] = { "dl_events", "management events serviced with PMBSR_EL1.DL == 1" },
    [EXM_MGMT_EVENTS] = { "management_events", "Profiling Buffer management events" },
    [EXM_BUFFER_FULL_EVENTS] = { "buffer_full_events", "of which buffer full" },
    [EXM_FAULT_EVENTS] = { "fault_events", "of which faults" },
    [EXM_EXT_ABORT_EVENTS] = { "ext_abort_events", "of which External aborts" },
    [EXM_IRQS] = { "interrupts", "PMBIRQ rising edges" },
    [EXM_IRQ_PER_S] = { "interrupts_per_s", "PMBIRQ rate per simulated second" },
    [EXM_BUFFER_FULL_PCT] = { "buffer_full_pct", "time PMBSR_EL1.S was 1 (buffer full, awaiting service), %" },
    [EXM_FIFO_MEAN] = { "fifo_mean_bytes", "record FIFO occupancy, time-weighted mean" },
    [EXM_FIFO_P99] = { "fifo_p99_bytes", "record FIFO occupancy, 99th percentile" },
    [EXM_FIFO_MAX] = { "fifo_max_bytes", "record FIFO occupancy, maximum" },
    [EXM_BUS_BYTES_PER_CYCLE] = { "bus_bytes_per_cycle", "buffer write bandwidth used, bytes per cycle" },
    [EXM_BUS_MBYTES_PER_S] = { "bus_mbytes_per_s", "buffer write bandwidth used, MB per simulated second" },
    [EXM_SAMPLES_PER_S] = { "samples_per_s", "records written per simulated second" },
    [EXM_CYCLES] = { "cycles", "simulated cycles" },
    [EXM_SIM_SECONDS] = { "sim_seconds", "simulated seconds (cycles / clock_hz)" },
    [EXM_HOST_SECONDS] = { "host_seconds", "host time of the point" },
};

const char *ex_metric_name(int m) { return m >= 0 && m < EXM__COUNT ? metrics[m].name : "?"; }
const char *ex_metric_help(int m) { return m >= 0 && m < EXM__COUNT ? metrics[m].help : "?"; }
bool ex_metric_deterministic(int m) { return m != EXM_HOST_SECONDS; }

/* ----- Points -------------------------------------------------------------------------------- */

void ex_point_indices(const ex_sweep *sw, size_t i, int *idx)
{
    for (int a = 0; a < sw->naxes; a++)
        idx[a] = -1;
    for (int g = 0; g < sw->ngroups; g++) {
        const ex_group *gr = &sw->groups[g];
        if (i < gr->first || i >= gr->first + gr->npoints)
            continue;
        size_t j = i - gr->first;
        /* The last axis of the group varies fastest. */
        for (int k = gr->nax - 1; k >= 0; k--) {
            idx[gr->axis[k]] = gr->sel[k][j % (size_t)gr->nsel[k]];
            j /= (size_t)gr->nsel[k];
        }
        return;
    }
}

void ex_point_build(const ex_sweep *sw, size_t i, ex_point_cfg *cfg)
{
    int idx[EX_MAX_AXES];
    ex_point_indices(sw, i, idx);
    ex_point_cfg_default(cfg);
    for (size_t p = 0; p < NPARAMS; p++) {
        const ex_val *v = sw->fixed[p] ? &sw->fixed_val[p] : NULL;
        for (int a = 0; a < sw->naxes; a++)
            if (sw->axes[a].param == (int)p && idx[a] >= 0)
                v = &sw->axes[a].vals[idx[a]];
        if (v)
            ex_param_apply(p, cfg, v);
    }
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ull;
    }
    return h;
}

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t hash_params(const ex_point_cfg *cfg, bool seeds_only)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t p = 0; p < NPARAMS; p++) {
        if (seeds_only && !params[p].def.seeds)
            continue;
        ex_val v = ex_param_get(p, cfg);
        h = fnv1a(h, params[p].def.name);
        h = fnv1a(h, "=");
        h = fnv1a(h, v.text);
        h = fnv1a(h, ";");
    }
    return mix64(h);
}

void ex_point_key(const ex_point_cfg *cfg, char out[17])
{
    snprintf(out, 17, "%016" PRIx64, hash_params(cfg, false));
}

uint64_t ex_point_seed(const ex_point_cfg *cfg)
{
    return hash_params(cfg, true);
}

int ex_point_run(const ex_point_cfg *cfg, ex_result *res, char *err, size_t errlen)
{
    ex_point_cfg c = *cfg;
    uint64_t s = ex_point_seed(cfg);
    c.run.wl.seed = s;
    c.run.spu.rng_seed = (uint32_t)(s ^ (s >> 32)) | 1u; /* xorshift32 needs a non-zero state */
    c.run.dump = NULL;
    c.run.progress = NULL;
    char why[160];
    if (spu_config_validate(&c.run.spu, why, sizeof(why)) != ARMPROF_OK) {
        snprintf(err, errlen, "invalid unit configuration: %s", why);
        return -1;
    }
    spe_run_result r;
    if (spe_run(&c.run, &r) != 0) {
        snprintf(err, errlen, "%s (%s)", r.error_text, armprof_strerror(r.error));
        return -1;
    }
    const spu_stats *st = &r.st;
    double *m = res->m;
    memset(res, 0, sizeof(*res));
    double cyc = (double)r.cycles, secs = cyc / c.clock_hz;
    m[EXM_SAMPLES] = (double)st->feed;
    m[EXM_COLLISIONS] = (double)st->collisions;
    double points = (double)(st->feed + st->collisions);
    m[EXM_COLLISION_PCT] = points > 0 ? 100.0 * (double)st->collisions / points : 0;
    m[EXM_RECORDS_WRITTEN] = (double)st->records_written;
    m[EXM_RECORDS_DISCARDED] = (double)st->records_discarded;
    for (int i = 0; i < SPU_DISCARD__COUNT; i++)
        m[EXM_DISCARD_FIRST + i] = (double)st->discarded[i];
    uint64_t unsampled = c.run.ops > st->population ? c.run.ops - st->population : 0;
    m[EXM_UNSAMPLED_OPS] = (double)unsampled;
    /* While PMBSR_EL1.S is 1 profiling is disabled: those operations never reach the sample
     * counter. Their sample points are estimated at the rate seen over the population. */
    double missed = st->population ? (double)unsampled * points / (double)st->population : 0;
    double lost = (double)st->records_discarded + (double)st->collisions + missed;
    double all = (double)st->records_written + lost;
    m[EXM_LOST_PCT] = all > 0 ? 100.0 * lost / all : 0;
    m[EXM_DL_EVENTS] = (double)r.dl_events;
    m[EXM_MGMT_EVENTS] = (double)st->management_events;
    m[EXM_BUFFER_FULL_EVENTS] = (double)st->buffer_full_events;
    m[EXM_FAULT_EVENTS] = (double)st->fault_events;
    m[EXM_EXT_ABORT_EVENTS] = (double)st->ext_abort_events;
    m[EXM_IRQS] = (double)r.irqs;
    m[EXM_IRQ_PER_S] = secs > 0 ? (double)r.irqs / secs : 0;
    m[EXM_BUFFER_FULL_PCT] = cyc > 0 ? 100.0 * (double)st->service_cycles / cyc : 0;
    m[EXM_FIFO_MEAN] = r.fifo_mean;
    m[EXM_FIFO_P99] = (double)r.fifo_p99;
    m[EXM_FIFO_MAX] = (double)r.fifo_max;
    m[EXM_BUS_BYTES_PER_CYCLE] = cyc > 0 ? (double)st->bytes_written / cyc : 0;
    m[EXM_BUS_MBYTES_PER_S] = secs > 0 ? (double)st->bytes_written / secs / 1e6 : 0;
    m[EXM_SAMPLES_PER_S] = secs > 0 ? (double)st->records_written / secs : 0;
    m[EXM_CYCLES] = cyc;
    m[EXM_SIM_SECONDS] = secs;
    m[EXM_HOST_SECONDS] = r.host_seconds;
    return 0;
}
