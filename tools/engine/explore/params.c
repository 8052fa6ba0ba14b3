/* SPDX-License-Identifier: Apache-2.0 */
/* params.c: the parameters a sweep can set, the metrics of a point, and running one point. */
#define _POSIX_C_SOURCE 200809L
#include "explore.h"
#include "explore_int.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Where a parameter lives in ex_point_cfg and how it is stored. */
typedef enum ex_ftype { FT_U64, FT_U32, FT_U8, FT_BOOL, FT_DBL, FT_MIX, FT_ENUM, FT_TEXT, FT_LAT } ex_ftype;

typedef struct ex_param_impl {
    ex_param_def def;
    ex_ftype ft;
    size_t off;
    /* TF_KEY: added with memory timing, left out of a point's key at its default value (the keys
     * of sweeps without memory timing stay what they were). TF_IF_SET: written into armprof-vp's
     * scenario only when the sweep sets it (otherwise the platform's own default holds). */
    unsigned flags;
} ex_param_impl;
enum { TF_KEY = 1, TF_IF_SET = 2 };

#define OFF(f) offsetof(ex_point_cfg, f)
#define GiB (1024.0 * 1024.0 * 1024.0)

const char *const ex_mix_names[] = { "default", "compute", "memory", "branchy", NULL };
/* TRBLIMITR_EL1.FM and .TM, in the order of these tables. */
const char *const ex_trbe_mode_names[] = { "fill", "wrap", "circular", NULL };
const char *const ex_trbe_tm_names[] = { "stop", "irq", "ignore", NULL };
/* armprof-vp's `timing:` (memory timing reaching the units); the platform's default first. */
const char *const ex_timing_names[] = { "lt", "at", "off", NULL };
static const unsigned trbe_fm_enc[] = { TRBU_FM_FILL, TRBU_FM_WRAP, TRBU_FM_CIRCULAR };
static const unsigned trbe_tm_enc[] = { TRBU_TM_STOP, TRBU_TM_IRQ, TRBU_TM_IGNORE };

/* name, alias, kind, lo, hi, byte suffixes, seeds, help, enum names, armprof-vp key, storage */
#define P(n, al, k, lo, hi, by, se, h, nm, pk, ft, f) \
    { { n, al, k, lo, hi, by, se, h, nm, pk }, ft, OFF(f), 0 }
#define U(n, al, lo, hi, h, pk, ft, f) P(n, al, EX_U64, lo, hi, false, false, h, NULL, pk, ft, f)
#define B(n, h, pk, f) P(n, NULL, EX_BOOL, 0, 1, false, false, h, NULL, pk, FT_BOOL, f)
/* A memory-timing parameter (ex_param_impl.timing). */
#define T(n, al, k, lo, hi, h, pk, ft, f) \
    { { n, al, k, lo, hi, false, false, h, NULL, pk }, ft, OFF(f), TF_KEY | TF_IF_SET }
#define TB(n, al, lo, hi, h, pk, ft, f) \
    { { n, al, EX_U64, lo, hi, true, false, h, NULL, pk }, ft, OFF(f), TF_KEY | TF_IF_SET }
/* An older parameter armprof-vp gained a key for: written only when set. */
#define S(n, al, k, lo, hi, by, h, pk, ft, f) \
    { { n, al, k, lo, hi, by, false, h, NULL, pk }, ft, OFF(f), TF_IF_SET }

/* Table order is the order of application: `mix` first (it reloads the workload), then the
 * rest, so `workload.*` values refine the chosen mix. */
static const ex_param_impl params[] = {
    P("mix", NULL, EX_ENUM, 0, 3, false, true, "workload preset: default, compute, memory (more misses), branchy",
      ex_mix_names, NULL, FT_MIX, mix),
    P("seed", NULL, EX_U64, 0, 18446744073709551615.0, false, true,
      "sweep seed: with the workload parameters it seeds each point", NULL, "seed", FT_U64, seed),
    U("ops", NULL, 1, 1e12, "population operations per point", "ops", FT_U64, run.ops),
    U("ops_per_cycle", "rate", 1, 64, "workload rate: operations retired per cycle", "ops_per_cycle", FT_U32,
      run.ops_per_cycle),
    P("clock_hz", NULL, EX_REAL, 1e6, 1e11, false, false, "simulated PE clock, for per-second figures", NULL,
      "clock_ns", FT_DBL, clock_hz),
    B("spe_enabled", "run the SPU (false: TRBE only; the platform always runs it)", NULL, spe_enabled),
    U("interval", NULL, 256, 4294967040.0, "sampling interval in operations (PMSIRR_EL1.INTERVAL x 256)",
      "spe.interval", FT_U32, run.interval),
    B("rnd", "PMSIRR_EL1.RND", "spe.rnd", run.rnd),
    P("buffer_bytes", NULL, EX_U64, 4096, 4 * GiB, true, false, "Profiling Buffer size (multiple of 4 KiB)",
      NULL, "spe.buffer_bytes", FT_U64, run.buffer_bytes),
    B("service", "service management events as Linux's arm_spe_pmu does", NULL, run.service),
    U("irq_latency", NULL, 0, 1099511627776.0, "cycles from PMBIRQ to the interrupt handler", "spe.irq_latency",
      FT_U64, run.irq_latency),
    S("fifo_bytes", "fifo_depth", EX_U64, 1, 64.0 * 1024 * 1024, true, "record FIFO depth in bytes",
      "spe.fifo_bytes", FT_U32, run.spu.fifo_bytes),
    S("drain", "drain_bytes_per_cycle", EX_U64, 1, 1048576, false, "record FIFO drain bandwidth, bytes per cycle",
      "spe.drain_bytes_per_cycle", FT_U32, run.spu.drain_bytes_per_cycle),
    S("inflight", "max_inflight", EX_U64, 1, 4096, false, "sampled operations in flight before a collision",
      "spe.max_inflight", FT_U32, run.spu.max_inflight),
    { { "timing", NULL, EX_ENUM, 0, 2, false, false,
        "memory timing: lt, at (platform: AT protocol; C level: as lt), off (functional: write latency 0)",
        ex_timing_names, "timing" }, FT_ENUM, OFF(timing), TF_KEY | TF_IF_SET },
    T("write_latency_ns", "memory.write_latency_ns", EX_REAL, 0, 1e6,
      "fixed memory write latency, ns (C level: rounded to cycles of clock_hz)", "memory.write_latency_ns", FT_DBL,
      write_latency_ns),
    T("write_latency", NULL, EX_LATENCY, 0, 16777216,
      "C level: memory write latency in cycles: C, fixed:C, uniform:A:B or exp:MEAN (seeded per point)", NULL,
      FT_LAT, run.lat_kind),
    TB("write_bytes", NULL, 0, 4096,
      "buffer writer's write size: 0 one write per record, else a power of two 16..4096 (e.g. 64-byte lines)",
      "spe.write_bytes", FT_U32, run.spu.write_bytes),
    T("max_outstanding_writes", NULL, EX_U64, 1, 256, "buffer writes in flight before the record FIFO stops draining",
      "spe.max_outstanding_writes", FT_U32, run.spu.max_outstanding_writes),
    T("background_traffic", "bus.background_traffic.share", EX_REAL, 0, 1,
      "platform: share of the bus bandwidth taken by seeded background read bursts (0: none)",
      "bus.background_traffic.share", FT_DBL, bg_share),
    TB("background_burst_bytes", "bus.background_traffic.burst_bytes", 1, 4096,
      "platform: bytes per background burst", "bus.background_traffic.burst_bytes", FT_U32, bg_burst),
    T("background_seed", "bus.background_traffic.seed", EX_U64, 0, 18446744073709551615.0,
      "platform: seed of the background bursts (0: from the point's seed)", "bus.background_traffic.seed", FT_U64,
      bg_seed),
    U("max_size", NULL, 4, 11, "PMSIDR_EL1.MaxSize (2^n bytes)", NULL, FT_U8, run.spu.max_size),
    U("align", NULL, 0, 11, "PMBIDR_EL1.Align (2^n bytes)", NULL, FT_U8, run.spu.align),
    B("ts", "PMSCR_EL1.TS", "spe.ts", run.ts),
    B("pa", "PMSCR_EL1.PA", "spe.pa", run.pa),
    B("cx", "PMSCR_EL1.CX", "spe.cx", run.cx),
    B("trbe_enabled", "run the TRBU (default: true when a trbe_ parameter is set)", "trbe.enabled", trbe_enabled),
    P("trbe_buffer_bytes", NULL, EX_U64, 8192, 1 * GiB, true, false,
      "trace buffer size (multiple of 4 KiB, at least 8 KiB)", NULL, "trbe.buffer_bytes", FT_U64,
      trbe.buffer_bytes),
    P("trbe_mode", NULL, EX_ENUM, 0, 2, false, false, "TRBLIMITR_EL1.FM: fill (as Linux), wrap, circular",
      ex_trbe_mode_names, NULL, FT_ENUM, trbe_mode),
    U("trbe_irq_latency", NULL, 0, 1099511627776.0, "cycles from TRBIRQ to the interrupt handler",
      "trbe.irq_latency", FT_U64, trbe.irq_latency),
    P("trbe_bytes", NULL, EX_U64, 1, 1e12, true, false, "trace bytes the synthetic source produces", NULL,
      "trbe.bytes", FT_U64, trbe.bytes),
    U("trbe_mean_burst", NULL, 1, 32768, "mean bytes per burst from the trace unit", "trbe.mean_burst", FT_U32,
      trbe.mean_burst),
    U("trbe_bytes_per_cycle", NULL, 1, 1048576, "trace bandwidth of the source, bytes per cycle",
      "trbe.bytes_per_cycle", FT_U32, trbe.bytes_per_cycle),
    U("trbe_trigger_every", NULL, 0, 1e12, "mean trace bytes between Detected Triggers (0: none)",
      "trbe.trigger_every", FT_U64, trbe.trigger_every),
    U("trbe_trigger_count", NULL, 0, 4294967295.0, "TRBTRG_EL1 at each enable", "trbe.trigger_count", FT_U32,
      trbe.trigger_count),
    P("trbe_tm", NULL, EX_ENUM, 0, 2, false, false, "TRBLIMITR_EL1.TM: stop, irq, ignore (as Linux)",
      ex_trbe_tm_names, "trbe.tm", FT_ENUM, trbe_tm),
    U("trbe_align", NULL, 0, 11, "TRBIDR_EL1.Align (2^n-byte write unit)", "trbe.align", FT_U8, trbe.trbu.align),
    P("workload.trace", NULL, EX_TEXT, 0, 0, false, true,
      "operation-trace file replayed instead of the generator (docs/trace-format.md; relative to the sweep file)",
      NULL, "workload.trace", FT_TEXT, trace),
    U("workload.repeat", NULL, 1, 1e12, "times workload.trace is replayed: ops = its operations x this",
      "workload.repeat", FT_U64, trace_repeat),
#define WLP(f, h) P("workload." #f, NULL, EX_REAL, 0, 1, false, true, h, NULL, NULL, FT_DBL, run.wl.f)
#define WLU(f, h) P("workload." #f, NULL, EX_U64, 0, 1000000, false, true, h, NULL, NULL, FT_U32, run.wl.f)
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
#undef P
#undef U
#undef B
#undef T
#undef TB
#undef S
#define NPARAMS (sizeof(params) / sizeof(params[0]))
_Static_assert(sizeof(params) / sizeof(params[0]) <= EX_MAX_PARAMS, "raise EX_MAX_PARAMS");

size_t ex_param_count(void) { return NPARAMS; }
bool ex_param_platform_if_set(size_t p) { return p < NPARAMS && (params[p].flags & TF_IF_SET); }
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
    /* ... and the TRBE ones under `trbe:`: trbe.buffer_bytes is trbe_buffer_bytes. */
    char tb[96];
    if (!strncmp(name, "trbe.", 5)) {
        snprintf(tb, sizeof(tb), "trbe_%s", name + 5);
        name = tb;
    }
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
    case EX_ENUM: snprintf(v->text, sizeof(v->text), "%s", params[p].def.names[v->u]); v->d = (double)v->u; break;
    case EX_REAL: snprintf(v->text, sizeof(v->text), "%.10g", v->d); v->u = 0; break;
    case EX_TEXT: v->u = 0; v->d = 0; break;
    case EX_LATENCY: break; /* text and mean set by the caller */
    }
}

/* A latency model's canonical text and mean (cycles) from spe_run_opts' fields. */
static void lat_canon(ex_val *v, unsigned kind, uint32_t a, uint32_t b)
{
    v->u = kind;
    switch (kind) {
    case SPE_LAT_UNIFORM:
        snprintf(v->text, sizeof(v->text), "uniform:%" PRIu32 ":%" PRIu32, a, b);
        v->d = ((double)a + (double)b) / 2;
        break;
    case SPE_LAT_EXP:
        snprintf(v->text, sizeof(v->text), "exp:%" PRIu32, a);
        v->d = a;
        break;
    default:
        snprintf(v->text, sizeof(v->text), "fixed:%" PRIu32, a);
        v->d = a;
        break;
    }
}

int ex_param_parse(size_t p, const char *text, ex_val *out, char *why, size_t whylen)
{
    const ex_param_def *d = &params[p].def;
    memset(out, 0, sizeof(*out));
    switch (d->kind) {
    case EX_LATENCY: {
        /* A bare number of cycles is fixed:C. */
        char buf[300];
        snprintf(buf, sizeof(buf), "%s%s", text[0] >= '0' && text[0] <= '9' ? "fixed:" : "", text);
        spe_run_opts o;
        spe_run_opts_default(&o);
        char lw[160];
        if (spe_run_parse_latency(buf, &o, lw, sizeof(lw))) {
            snprintf(why, whylen, "%s: %s", d->name, lw);
            return -1;
        }
        lat_canon(out, o.lat_kind, o.write_latency, o.write_latency_max);
        return 0;
    }
    case EX_TEXT:
        if (!text[0] || strlen(text) >= sizeof(out->text)) {
            snprintf(why, whylen, "%s expects a file name of 1 to %zu characters", d->name, sizeof(out->text) - 1);
            return -1;
        }
        snprintf(out->text, sizeof(out->text), "%s", text);
        break;
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
        for (i = 0; d->names[i]; i++)
            if (!strcmp(text, d->names[i]))
                break;
        if (!d->names[i]) {
            char list[128] = "";
            size_t k = 0;
            for (size_t j = 0; d->names[j] && k < sizeof(list); j++)
                k += (size_t)snprintf(list + k, sizeof(list) - k, "%s%s", j ? ", " : "", d->names[j]);
            snprintf(why, whylen, "%s expects one of %s; got '%s'", d->name, list, text);
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
        if (!strcmp(d->name, "write_bytes") && out->u && (out->u < 16 || (out->u & (out->u - 1)))) {
            snprintf(why, whylen, "write_bytes = %s is neither 0 (one write per record) nor a power of two "
                     "16 .. 4096", text);
            return -1;
        }
        if (!strcmp(d->name, "trbe_buffer_bytes") && (out->u & 4095)) {
            snprintf(why, whylen, "trbe_buffer_bytes = %s is not a multiple of 4096 (TRBBASER_EL1.BASE and "
                     "TRBLIMITR_EL1.LIMIT have 4 KiB granularity)", text);
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
    case FT_ENUM: { uint64_t x; memcpy(&x, b, sizeof(x)); v.u = x; break; }
    case FT_TEXT: snprintf(v.text, sizeof(v.text), "%s", b); break;
    case FT_LAT:
        lat_canon(&v, cfg->run.lat_kind, cfg->run.write_latency, cfg->run.write_latency_max);
        return v;
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
    case FT_ENUM: { uint64_t x = v->u; memcpy(b, &x, sizeof(x)); break; }
    case FT_TEXT: snprintf(b, sizeof(cfg->trace), "%s", v->text); break;
    case FT_LAT: {
        char why[160];
        spe_run_parse_latency(v->text, &cfg->run, why, sizeof(why)); /* canonical: checked when parsed */
        break;
    }
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
    cfg->spe_enabled = true;
    /* The TRBE side as armprof-vp's trbe: defaults (examples/trbe.yaml). */
    run_trbe_opts_default(&cfg->trbe);
    cfg->trbe.bytes = 4ull << 20;
    cfg->trbe.buffer_bytes = 64 << 10;
    cfg->trbe.trigger_every = 0;
    cfg->trbe_mode = 0; /* fill */
    cfg->trbe_tm = 2;   /* ignore */
    cfg->trace_repeat = 1;
    cfg->bg_burst = 64; /* armprof-vp's TrafficGen default */
}

/* The C level's write latency of a point: write_latency_ns at clock_hz (rounded to the nearest
 * cycle), else the write_latency model. */
static int c_latency(ex_point_cfg *cfg, char *why, size_t whylen)
{
    if (cfg->timing == 2) { /* off: the functional behaviour, as armprof-vp's timing: off */
        cfg->run.lat_kind = SPE_LAT_FIXED;
        cfg->run.write_latency = cfg->run.write_latency_max = 0;
        return 0;
    }
    if (cfg->write_latency_ns <= 0)
        return 0;
    if (cfg->run.lat_kind != SPE_LAT_FIXED || cfg->run.write_latency != 0) {
        snprintf(why, whylen, "write_latency_ns and write_latency are both set: one memory latency model");
        return -1;
    }
    double c = floor(cfg->write_latency_ns * cfg->clock_hz / 1e9 + 0.5);
    if (c > 16777216.0) {
        snprintf(why, whylen, "write_latency_ns %g at %g Hz is more than 2^24 cycles", cfg->write_latency_ns,
                 cfg->clock_hz);
        return -1;
    }
    cfg->run.write_latency = cfg->run.write_latency_max = (uint32_t)c;
    return 0;
}

/* The run_trbe options of a point (the enum parameters as register encodings). */
static run_trbe_opts trbe_opts(const ex_point_cfg *cfg)
{
    run_trbe_opts o = cfg->trbe;
    o.fm = trbe_fm_enc[cfg->trbe_mode < 3 ? cfg->trbe_mode : 0];
    o.tm = trbe_tm_enc[cfg->trbe_tm < 3 ? cfg->trbe_tm : 2];
    o.dump = NULL;
    return o;
}

int ex_point_validate(const ex_point_cfg *cfg, char *why, size_t whylen)
{
    if (ex_point_validate_unit(cfg, why, whylen))
        return -1;
    if (cfg->model == EX_MODEL_PLATFORM && (cfg->run.lat_kind != SPE_LAT_FIXED || cfg->run.write_latency != 0)) {
        snprintf(why, whylen, "write_latency is the C level's cycle model: the platform takes write_latency_ns");
        return -1;
    }
    if (cfg->model == EX_MODEL_C && cfg->bg_share > 0) {
        snprintf(why, whylen, "background_traffic needs the platform's bus (--model platform); the C-level memory "
                 "is flat (model contention there as a write_latency distribution)");
        return -1;
    }
    ex_point_cfg c = *cfg;
    return cfg->model == EX_MODEL_C ? c_latency(&c, why, whylen) : 0;
}

int ex_point_validate_unit(const ex_point_cfg *cfg, char *why, size_t whylen)
{
    if (!cfg->spe_enabled && !cfg->trbe_enabled) {
        snprintf(why, whylen, "spe_enabled and trbe_enabled are both false: nothing to run");
        return -1;
    }
    if (cfg->spe_enabled && spu_config_validate(&cfg->run.spu, why, whylen) != ARMPROF_OK)
        return -1;
    if (cfg->write_latency_ns > 0 && (cfg->run.lat_kind != SPE_LAT_FIXED || cfg->run.write_latency != 0)) {
        snprintf(why, whylen, "write_latency_ns and write_latency are both set: one memory latency model");
        return -1;
    }
    if (cfg->trbe_enabled) {
        if (trbu_config_validate(&cfg->trbe.trbu, why, whylen) != ARMPROF_OK)
            return -1;
        if (cfg->trbe.buffer_bytes < 8192 || (cfg->trbe.buffer_bytes & 4095)) {
            snprintf(why, whylen, "trbe_buffer_bytes: a multiple of 4 KiB, at least 8 KiB");
            return -1;
        }
        if (cfg->trbe.buffer_bytes < (2ull << cfg->trbe.trbu.align)) {
            snprintf(why, whylen, "trbe_buffer_bytes %" PRIu64 " holds fewer than two 2^trbe_align-byte units",
                     cfg->trbe.buffer_bytes);
            return -1;
        }
    }
    return 0;
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
    [EXM_RECORD_BYTES_PER_CYCLE] = { "record_bytes_per_cycle", "bytes per cycle the records need: what the writer would write if no sample point collided (written bytes per record x records per sample x sample points / cycles)" },
    [EXM_SAMPLES_PER_S] = { "samples_per_s", "records written per simulated second" },
    [EXM_WRITER_STALL_CYCLES] = { "writer_stall_cycles", "cycles the record FIFO held bytes the writer could not issue (writes outstanding)" },
    [EXM_OUTSTANDING_WRITES_MAX] = { "outstanding_writes_max", "buffer writes in flight, maximum" },
    [EXM_WRITE_LAT_MIN_NS] = { "write_latency_min_ns", "buffer write latency (issue to acceptance), minimum, ns" },
    [EXM_WRITE_LAT_MEAN_NS] = { "write_latency_mean_ns", "buffer write latency, mean, ns" },
    [EXM_WRITE_LAT_MAX_NS] = { "write_latency_max_ns", "buffer write latency, maximum, ns" },
    [EXM_TRBE_BYTES_IN] = { "trbe_bytes_in", "TRBE: trace bytes handed to the unit" },
    [EXM_TRBE_BYTES_WRITTEN] = { "trbe_bytes_written", "TRBE: bytes written to the trace buffer (with padding)" },
    [EXM_TRBE_BYTES_COPIED] = { "trbe_bytes_copied", "TRBE: bytes the driver copied out of the buffer" },
    [EXM_TRBE_BYTES_DISCARDED] = { "trbe_bytes_discarded", "TRBE: bytes the unit discarded (stopped, disabled, fault)" },
    [EXM_TRBE_BYTES_OVERWRITTEN] = { "trbe_bytes_overwritten", "TRBE: bytes overwritten before the driver copied them (Wrap, Circular)" },
    [EXM_TRBE_BYTES_LOST] = { "trbe_bytes_lost", "TRBE: discarded + overwritten" },
    [EXM_TRBE_LOST_PCT] = { "trbe_lost_pct", "TRBE: bytes lost / bytes in, %" },
    [EXM_TRBE_WRAPS] = { "trbe_wraps", "TRBE: wrap events (TRB_WRAP)" },
    [EXM_TRBE_MGMT_EVENTS] = { "trbe_management_events", "TRBE: trace buffer management events" },
    [EXM_TRBE_IRQS] = { "trbe_interrupts", "TRBE: TRBIRQ rising edges" },
    [EXM_TRBE_IRQ_PER_S] = { "trbe_interrupts_per_s", "TRBE: TRBIRQ rate per simulated second" },
    [EXM_TRBE_FULL_PCT] = { "trbe_buffer_full_pct", "TRBE: time collection was stopped (TRBSR_EL1.S == 1), %" },
    [EXM_TRBE_CYCLES] = { "trbe_cycles", "TRBE: simulated cycles of the trace run" },
    [EXM_CYCLES] = { "cycles", "simulated cycles" },
    [EXM_SIM_SECONDS] = { "sim_seconds", "simulated seconds (cycles / clock_hz)" },
    [EXM_HOST_SECONDS] = { "host_seconds", "host time of the point" },
};

const char *ex_metric_name(int m) { return m >= 0 && m < EXM__COUNT ? metrics[m].name : "?"; }
const char *ex_metric_help(int m) { return m >= 0 && m < EXM__COUNT ? metrics[m].help : "?"; }
bool ex_metric_deterministic(int m) { return m != EXM_HOST_SECONDS; }

bool ex_metric_platform_missing(int m)
{
    /* summary.json has no time-weighted FIFO occupancy, no time spent with PMBSR_EL1.S or
     * TRBSR_EL1.S set, and the platform's TRBE run has no cycle count of its own. */
    return m == EXM_FIFO_MEAN || m == EXM_FIFO_P99 || m == EXM_BUFFER_FULL_PCT || m == EXM_TRBE_FULL_PCT ||
           m == EXM_TRBE_CYCLES;
}

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
    cfg->model = sw->model;
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
    ex_point_cfg def;
    ex_point_cfg_default(&def);
    for (size_t p = 0; p < NPARAMS; p++) {
        if (seeds_only && !params[p].def.seeds)
            continue;
        /* Without a trace, workload.trace and workload.repeat are left out: keys and seeds of
         * sweeps of the generator stay what they were before trace replay existed. */
        if (!cfg->trace[0] && params[p].ft == FT_TEXT)
            continue;
        if (!cfg->trace[0] && params[p].off == OFF(trace_repeat))
            continue;
        ex_val v = ex_param_get(p, cfg);
        if ((params[p].flags & TF_KEY) && !strcmp(v.text, ex_param_get(p, &def).text))
            continue; /* at its default: keys as before memory timing */
        h = fnv1a(h, params[p].def.name);
        h = fnv1a(h, "=");
        h = fnv1a(h, v.text);
        h = fnv1a(h, ";");
    }
    return mix64(h);
}

void ex_point_key(const ex_point_cfg *cfg, char out[17])
{
    uint64_t h = hash_params(cfg, false);
    if (cfg->model == EX_MODEL_PLATFORM)
        h = mix64(h ^ 0x706c6174666f726dull); /* "platform": a result of the other model never resumes */
    snprintf(out, 17, "%016" PRIx64, h);
}

uint64_t ex_point_seed(const ex_point_cfg *cfg)
{
    return hash_params(cfg, true);
}

void ex_spe_metrics(const ex_spe_counts *k, double *m)
{
    double points = k->feed + k->collisions;
    m[EXM_SAMPLES] = k->feed;
    m[EXM_COLLISIONS] = k->collisions;
    m[EXM_COLLISION_PCT] = points > 0 ? 100.0 * k->collisions / points : 0;
    m[EXM_RECORDS_WRITTEN] = k->written;
    m[EXM_RECORDS_DISCARDED] = k->discarded;
    for (int i = 0; i < SPU_DISCARD__COUNT; i++)
        m[EXM_DISCARD_FIRST + i] = k->discard[i];
    double unsampled = k->ops > k->population ? k->ops - k->population : 0;
    m[EXM_UNSAMPLED_OPS] = unsampled;
    /* While PMBSR_EL1.S is 1 profiling is disabled: those operations never reach the sample
     * counter. Their sample points are estimated at the rate seen over the population. */
    double missed = k->population > 0 ? unsampled * points / k->population : 0;
    double lost = k->discarded + k->collisions + missed;
    double all = k->written + lost;
    m[EXM_LOST_PCT] = all > 0 ? 100.0 * lost / all : 0;
    m[EXM_DL_EVENTS] = k->dl;
    m[EXM_MGMT_EVENTS] = k->mgmt;
    m[EXM_BUFFER_FULL_EVENTS] = k->full;
    m[EXM_FAULT_EVENTS] = k->fault;
    m[EXM_EXT_ABORT_EVENTS] = k->ext_abort;
    m[EXM_IRQS] = k->irqs;
    m[EXM_IRQ_PER_S] = k->secs > 0 ? k->irqs / k->secs : 0;
    m[EXM_BUFFER_FULL_PCT] = k->cycles > 0 ? 100.0 * k->service_cycles / k->cycles : 0;
    m[EXM_FIFO_MEAN] = k->fifo_mean;
    m[EXM_FIFO_P99] = k->fifo_p99;
    m[EXM_FIFO_MAX] = k->fifo_max;
    m[EXM_BUS_BYTES_PER_CYCLE] = k->cycles > 0 ? k->bytes / k->cycles : 0;
    m[EXM_BUS_MBYTES_PER_S] = k->secs > 0 ? k->bytes / k->secs / 1e6 : 0;
    m[EXM_SAMPLES_PER_S] = k->secs > 0 ? k->written / k->secs : 0;
    ex_result r;
    memcpy(r.m, m, sizeof(r.m));
    ex_result_derive(&r);
    m[EXM_RECORD_BYTES_PER_CYCLE] = r.m[EXM_RECORD_BYTES_PER_CYCLE];
    m[EXM_WRITER_STALL_CYCLES] = k->stall_cycles;
    m[EXM_OUTSTANDING_WRITES_MAX] = k->outstanding_max;
    m[EXM_WRITE_LAT_MIN_NS] = k->lat_min_ns;
    m[EXM_WRITE_LAT_MEAN_NS] = k->lat_mean_ns;
    m[EXM_WRITE_LAT_MAX_NS] = k->lat_max_ns;
}

void ex_trbe_metrics(const ex_trbe_counts *k, double *m)
{
    m[EXM_TRBE_BYTES_IN] = k->in;
    m[EXM_TRBE_BYTES_WRITTEN] = k->written;
    m[EXM_TRBE_BYTES_COPIED] = k->copied;
    m[EXM_TRBE_BYTES_DISCARDED] = k->discarded;
    m[EXM_TRBE_BYTES_OVERWRITTEN] = k->overwritten;
    m[EXM_TRBE_BYTES_LOST] = k->discarded + k->overwritten;
    m[EXM_TRBE_LOST_PCT] = k->in > 0 ? 100.0 * (k->discarded + k->overwritten) / k->in : 0;
    m[EXM_TRBE_WRAPS] = k->wraps;
    m[EXM_TRBE_MGMT_EVENTS] = k->mgmt;
    m[EXM_TRBE_IRQS] = k->irqs;
    m[EXM_TRBE_IRQ_PER_S] = k->secs > 0 ? k->irqs / k->secs : 0;
    m[EXM_TRBE_FULL_PCT] = k->cycles > 0 ? 100.0 * k->stopped_cycles / k->cycles : 0;
    m[EXM_TRBE_CYCLES] = k->cycles;
}

void ex_result_clear(ex_result *res)
{
    for (int i = 0; i < EXM__COUNT; i++)
        res->m[i] = NAN;
}

void ex_result_derive(ex_result *res)
{
    /* The records' byte rate: the bytes the writer wrote per cycle, scaled up by the records that
     * did not reach memory (discarded) and by the sample points that collided (each would have
     * been a sampled operation, a record with the same odds as those that got a slot). This is
     * what the drain path and the memory must carry for collisions to stay away. */
    double *m = res->m;
    double bus = m[EXM_BUS_BYTES_PER_CYCLE], w = m[EXM_RECORDS_WRITTEN], d = m[EXM_RECORDS_DISCARDED];
    double feed = m[EXM_SAMPLES], col = m[EXM_COLLISIONS];
    if (isnan(bus) || isnan(w) || isnan(d) || isnan(feed) || isnan(col))
        return;
    if (feed + col == 0)
        m[EXM_RECORD_BYTES_PER_CYCLE] = 0;
    else if (w > 0 && feed > 0)
        m[EXM_RECORD_BYTES_PER_CYCLE] = bus * (w + d) / w * (feed + col) / feed;
}

int ex_point_run(const ex_point_cfg *cfg, ex_result *res, char *err, size_t errlen)
{
    return ex_point_run_io(cfg, NULL, res, err, errlen);
}

int ex_point_run_io(const ex_point_cfg *cfg, const ex_point_io *io, ex_result *res, char *err, size_t errlen)
{
    ex_point_cfg c = *cfg;
    uint64_t s = ex_point_seed(cfg);
    c.run.wl.seed = s;
    c.run.spu.rng_seed = (uint32_t)(s ^ (s >> 32)) | 1u; /* xorshift32 needs a non-zero state */
    c.run.dump = io ? io->spe_dump : NULL;
    c.run.progress = NULL;
    char why[160];
    if (ex_point_validate(&c, why, sizeof(why)) || c_latency(&c, why, sizeof(why))) {
        snprintf(err, errlen, "invalid unit configuration: %s", why);
        return -1;
    }
    ex_result_clear(res);
    double *m = res->m;
    double host = 0, cycles = 0;
    if (c.spe_enabled) {
        /* Replay: the file's operations * repeat instead of the generator (its seed only feeds
         * PMSIRR_EL1.RND). The sweep checked the file when it was read. */
        wl_trace t = { 0 };
        if (c.trace[0]) {
            char terr[512];
            if (wl_trace_load(c.trace, &t, terr, sizeof(terr))) {
                snprintf(err, errlen, "workload.trace: %s", terr);
                return -1;
            }
            c.run.trace = &t;
            c.run.ops = t.count * (c.trace_repeat ? c.trace_repeat : 1);
        }
        spe_run_result r;
        int rc = spe_run(&c.run, &r);
        if (io && io->spe)
            *io->spe = r;
        wl_trace_free(&t);
        c.run.trace = NULL;
        if (rc != 0) {
            snprintf(err, errlen, "%s (%s)", r.error_text, armprof_strerror(r.error));
            return -1;
        }
        const spu_stats *st = &r.st;
        ex_spe_counts k = {
            .feed = (double)st->feed, .collisions = (double)st->collisions, .written = (double)st->records_written,
            .discarded = (double)st->records_discarded, .population = (double)st->population,
            .ops = (double)c.run.ops, .dl = (double)r.dl_events, .mgmt = (double)st->management_events,
            .full = (double)st->buffer_full_events, .fault = (double)st->fault_events,
            .ext_abort = (double)st->ext_abort_events, .irqs = (double)r.irqs,
            .service_cycles = (double)st->service_cycles, .fifo_mean = r.fifo_mean, .fifo_p99 = (double)r.fifo_p99,
            .fifo_max = (double)r.fifo_max, .bytes = (double)st->bytes_written, .cycles = (double)r.cycles,
            .secs = (double)r.cycles / c.clock_hz };
        for (int i = 0; i < SPU_DISCARD__COUNT; i++)
            k.discard[i] = (double)st->discarded[i];
        double ns = 1e9 / c.clock_hz;
        k.stall_cycles = (double)st->writer_stall_cycles;
        k.outstanding_max = (double)st->outstanding_writes_max;
        k.lat_min_ns = st->writes_answered ? (double)st->write_latency_min * ns : 0;
        k.lat_mean_ns = st->writes_answered ? (double)st->write_latency_sum / (double)st->writes_answered * ns : 0;
        k.lat_max_ns = (double)st->write_latency_max * ns;
        ex_spe_metrics(&k, m);
        host += r.host_seconds;
        cycles = (double)r.cycles;
    }
    if (c.trbe_enabled) {
        run_trbe_opts o = trbe_opts(&c);
        o.seed = s ^ 0x5452424555ull; /* the trace source: its own stream from the point's seed */
        o.dump = io ? io->trbe_dump : NULL;
        run_trbe_result r;
        int trc = run_trbe(&o, &r);
        if (io && io->trbe)
            *io->trbe = r;
        if (trc != 0) {
            snprintf(err, errlen, "TRBE: %s (%s)", r.error_text, armprof_strerror(r.error));
            return -1;
        }
        ex_trbe_counts k = {
            .in = (double)r.st.bytes_in, .written = (double)r.st.bytes_written, .copied = (double)r.dumped_bytes,
            .discarded = (double)r.st.bytes_discarded, .overwritten = (double)r.overwritten_bytes,
            .wraps = (double)r.st.wraps, .mgmt = (double)r.st.management_events, .irqs = (double)r.irqs,
            .stopped_cycles = (double)r.stopped_cycles, .cycles = (double)r.cycles,
            .secs = (double)r.cycles / c.clock_hz };
        ex_trbe_metrics(&k, m);
        host += r.host_seconds;
        if (!c.spe_enabled)
            cycles = (double)r.cycles;
    }
    m[EXM_CYCLES] = cycles;
    m[EXM_SIM_SECONDS] = cycles / c.clock_hz;
    m[EXM_HOST_SECONDS] = host;
    return 0;
}
