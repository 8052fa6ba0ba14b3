/* SPDX-License-Identifier: Apache-2.0 */
/* spe_run.c: drive the SPU with the synthetic workload and service PMBIRQ the way Linux's arm_spe_pmu does. */
#define _POSIX_C_SOURCE 200809L
#include "spe_run.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "armprof/sysreg.h"

#define BUF_BASE 0x0000000010000000ull

typedef struct run_ctx {
    const spe_run_opts *o;
    uint8_t *mem;
    uint64_t base, size;
    bool irq;
    uint64_t irq_at;
    uint64_t irqs;
    spu_t *spu;
    uint64_t lat_state;         /* splitmix64 state of the latency draws */
} run_ctx;

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The latency of one write, in unit cycles. */
static uint32_t draw_latency(run_ctx *c)
{
    const spe_run_opts *o = c->o;
    switch (o->lat_kind) {
    case SPE_LAT_UNIFORM:
        return o->write_latency +
               (uint32_t)(splitmix64(&c->lat_state) % ((uint64_t)o->write_latency_max - o->write_latency + 1));
    case SPE_LAT_EXP: {
        /* Inverse CDF on a 53-bit uniform in (0, 1]. */
        double u = ((double)(splitmix64(&c->lat_state) >> 11) + 1.0) * (1.0 / 9007199254740992.0);
        double v = -(double)o->write_latency * log(u);
        return v >= (double)o->write_latency_max ? o->write_latency_max : (uint32_t)(v + 0.5);
    }
    case SPE_LAT_FIXED:
    default:
        return o->write_latency;
    }
}

/* A flat memory at BUF_BASE: anything outside it is a stage 1 level 3 translation fault. */
static armprof_mem_result flat_write(void *user, uint64_t addr, const uint8_t *data, uint32_t len,
                                     const armprof_regime *rg)
{
    (void)rg;
    run_ctx *c = user;
    armprof_mem_result r = { .status = ARMPROF_MEM_OK };
    if (addr < c->base || addr + len > c->base + c->size) {
        r.status = ARMPROF_MEM_FAULT;
        r.ec = ARMPROF_EC_S1_ABORT;
        r.fsc = ARMPROF_FSC_TRANSLATION | 3;
        r.written = 0;
        return r;
    }
    memcpy(c->mem + (addr - c->base), data, len);
    r.latency = draw_latency(c);
    return r;
}

static void on_irq(void *user, bool level)
{
    run_ctx *c = user;
    if (level && !c->irq) {
        c->irqs++;
        c->irq_at = spu_now(c->spu);
    }
    c->irq = level;
}

static void on_event(void *user, uint16_t ev, uint64_t n)
{
    run_ctx *c = user;
    if (c->o->event_sink)
        c->o->event_sink(c->o->sink_user, ev, n);
}

static void on_freeze(void *user)
{
    run_ctx *c = user;
    if (c->o->freeze_sink)
        c->o->freeze_sink(c->o->sink_user);
}

void spe_run_opts_default(spe_run_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->ops = 100000000ull;
    o->ops_per_cycle = 1;
    o->interval = 1024;
    o->rnd = true;
    o->buffer_bytes = 64 * 1024;
    o->service = true;
    o->irq_latency = 2000;
    o->ts = o->pa = o->cx = true;
    spu_config_default(&o->spu);
    wl_config_default(&o->wl);
}

static int lat_fail(char *why, size_t n, const char *msg, const char *s)
{
    if (why && n)
        snprintf(why, n, "%s, got '%s'", msg, s);
    return -1;
}

static int lat_num(const char **p, uint32_t *out)
{
    char *end;
    errno = 0;
    if (**p < '0' || **p > '9')
        return -1;
    unsigned long long v = strtoull(*p, &end, 10);
    if (errno || v > (1u << 24))
        return -1;
    *out = (uint32_t)v;
    *p = end;
    return 0;
}

int spe_run_parse_latency(const char *s, spe_run_opts *o, char *why, size_t n)
{
    const char *p = s;
    uint32_t a = 0, b = 0;
    if (!strncmp(p, "fixed:", 6)) {
        p += 6;
        if (lat_num(&p, &a) || *p)
            return lat_fail(why, n, "fixed:CYCLES expects an integer 0 .. 16777216", s);
        o->lat_kind = SPE_LAT_FIXED;
        o->write_latency = o->write_latency_max = a;
    } else if (!strncmp(p, "uniform:", 8)) {
        p += 8;
        if (lat_num(&p, &a) || *p++ != ':' || lat_num(&p, &b) || *p || a > b)
            return lat_fail(why, n, "uniform:A:B expects integers 0 <= A <= B <= 16777216", s);
        o->lat_kind = SPE_LAT_UNIFORM;
        o->write_latency = a;
        o->write_latency_max = b;
    } else if (!strncmp(p, "exp:", 4)) {
        p += 4;
        if (lat_num(&p, &a) || *p || a == 0 || a > (1u << 18))
            return lat_fail(why, n, "exp:MEAN expects an integer 1 .. 262144", s);
        o->lat_kind = SPE_LAT_EXP;
        o->write_latency = a;
        o->write_latency_max = 64 * a;
    } else {
        return lat_fail(why, n, "expected fixed:CYCLES, uniform:A:B or exp:MEAN", s);
    }
    return 0;
}

static void dump(run_ctx *c, spe_run_result *r, uint64_t upto)
{
    if (upto <= c->base || upto > c->base + c->size)
        return;
    uint64_t n = upto - c->base;
    if (c->o->dump)
        fwrite(c->mem, 1, n, c->o->dump);
    r->dumped_bytes += n;
}

static void wr(spu_t *spu, uint32_t enc, uint64_t v)
{
    armprof_err e = spu_reg_write(spu, enc, v);
    (void)e; /* the run is at Non-secure EL1 with EL1 owning the buffer: no access traps */
}

static uint64_t rd(spu_t *spu, uint32_t enc)
{
    uint64_t v = 0;
    spu_reg_read(spu, enc, &v);
    return v;
}

/* arm_spe_pmu's interrupt handler: PSB CSYNC, read PMBSR_EL1, hand the data to perf (here: the
 * dump), then restart at the buffer base and clear PMBSR_EL1; a fault or External abort is
 * fatal to the session and disables the buffer. */
static void service(run_ctx *c, spe_run_result *r)
{
    spu_t *spu = c->spu;
    spu_psb_csync(spu);
    uint64_t sr = rd(spu, SPU_PMBSR_EL1);
    if (!(sr & PMBSR_EL1_S))
        return;
    uint64_t ec = ap_field_get(PMBSR_EL1_EC, sr);
    bool dl = sr & PMBSR_EL1_DL, ea = sr & PMBSR_EL1_EA;
    uint64_t ptr = rd(spu, SPU_PMBPTR_EL1);
    r->serviced++;
    if (ec == PMBSR_EL1_EC_BUF && !ea) {
        if (!dl)
            dump(c, r, ptr);        /* DL=1: the tail cannot be trusted, perf truncates */
        wr(spu, SPU_PMBPTR_EL1, c->base);
        wr(spu, SPU_PMBSR_EL1, 0);
    } else {
        if (!dl && !ea)
            dump(c, r, ptr);
        r->fatal++;
        wr(spu, SPU_PMBLIMITR_EL1, 0);
        wr(spu, SPU_PMBSR_EL1, 0);
    }
}

int spe_run(const spe_run_opts *o, spe_run_result *r)
{
    memset(r, 0, sizeof(*r));
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    run_ctx c = { .o = o };
    c.lat_state = o->lat_seed ? o->lat_seed : o->wl.seed ^ 0x6c61746e63790001ull;
    c.base = BUF_BASE;
    c.size = (o->buffer_bytes + 4095) & ~4095ull;
    if (c.size == 0 || o->interval < 256) {
        r->error = ARMPROF_ERR_INVAL;
        snprintf(r->error_text, sizeof(r->error_text),
                 "%s", c.size == 0 ? "buffer size is zero" : "interval must be at least 256 operations");
        return 1;
    }
    c.mem = calloc(1, c.size);
    uint64_t *hist = calloc((size_t)o->spu.fifo_bytes + 1, sizeof(uint64_t));
    if (!c.mem || !hist) {
        free(c.mem);
        free(hist);
        r->error = ARMPROF_ERR_NOMEM;
        snprintf(r->error_text, sizeof(r->error_text), "out of memory");
        return 1;
    }
    armprof_host_ops ops = { .mem_write = flat_write, .irq = on_irq, .event = on_event,
                             .pmu_freeze = on_freeze, .user = &c };
    armprof_err e = spu_open(&o->spu, &ops, &c.spu);
    if (e != ARMPROF_OK) {
        r->error = e;
        spu_config_validate(&o->spu, r->error_text, sizeof(r->error_text));
        free(c.mem);
        free(hist);
        return 1;
    }
    spu_t *spu = c.spu;
    armprof_pe_ctx ctx;
    armprof_pe_ctx_default(&ctx);
    ctx.el = 1;
    ctx.contextidr_el1 = 0x1234;
    spu_set_pe_context(spu, &ctx);

    /* Probe and program as arm_spe_pmu does: filters, PMSIRR, PMSICR from PMSIRR (non-zero),
     * the buffer, then PMSCR_EL1 last. */
    wr(spu, SPU_PMSFCR_EL1, o->pmsfcr);
    wr(spu, SPU_PMSEVFR_EL1, o->pmsevfr);
    wr(spu, SPU_PMSLATFR_EL1, o->pmslatfr);
    uint64_t irr = ap_field_prep(PMSIRR_EL1_INTERVAL, o->interval >> 8) | (o->rnd ? PMSIRR_EL1_RND : 0);
    wr(spu, SPU_PMSIRR_EL1, irr);
    wr(spu, SPU_PMSICR_EL1, rd(spu, SPU_PMSIRR_EL1));
    wr(spu, SPU_PMBPTR_EL1, c.base);
    wr(spu, SPU_PMBLIMITR_EL1, (c.base + c.size) | PMBLIMITR_EL1_E);
    wr(spu, SPU_PMBSR_EL1, 0);
    wr(spu, SPU_PMSCR_EL1, (o->ts ? PMSCR_EL1_TS : 0) | (o->pa ? PMSCR_EL1_PA : 0) | (o->cx ? PMSCR_EL1_CX : 0) |
                               PMSCR_EL1_E1SPE | PMSCR_EL1_E0SPE);

    wl_gen g;
    wl_init(&g, &o->wl);
    /* Operation i retires in cycle i / rate: a run of `step` operations moves time on by the
     * number of cycle boundaries it crosses. */
    const uint64_t rate = o->ops_per_cycle ? o->ops_per_cycle : 1;
    uint64_t done = 0, last_progress = 0;
    double fifo_sum = 0;
    bool first_event = false;
    while (done < o->ops) {
        if (o->stop && *o->stop) {
            r->interrupted = true;
            break;
        }
        if (c.irq && !first_event) {
            first_event = true;
            r->first_pmbsr = rd(spu, SPU_PMBSR_EL1);
        }
        if (c.irq && o->service && spu_now(spu) >= c.irq_at + o->irq_latency) {
            uint64_t sr = rd(spu, SPU_PMBSR_EL1);
            if (sr & PMBSR_EL1_DL)
                r->dl_events++;
            service(&c, r);
            continue;
        }
        uint64_t remaining = o->ops - done;
        uint64_t step;
        uint64_t k = spu_ops_until_sample(spu);
        if (k == 0) {
            if (o->trace && o->trace->count) {
                spu_retire(spu, &o->trace->ops[done % o->trace->count]);
            } else {
                spu_op op;
                wl_next(&g, &op);
                spu_retire(spu, &op);
            }
            step = 1;
        } else {
            /* Stop at the next event (in cycles): at most `cyc` more cycle boundaries. */
            uint64_t cyc = spu_cycles_to_next_event(spu);
            if (c.irq && o->service) {
                uint64_t due = c.irq_at + o->irq_latency - spu_now(spu);
                if (due < cyc)
                    cyc = due ? due : 1;
            }
            step = k < remaining ? k : remaining;
            uint64_t lim = wl_ops_before_event(rate, done, cyc);
            if (lim < step)
                step = lim;
            if (k != UINT64_MAX)
                step = spu_skip(spu, step);
            if (!step)
                step = 1;
        }
        uint64_t cycles = (done + step) / rate - done / rate;
        if (cycles)
            spu_advance(spu, cycles);
        done += step;
        spu_stats st;
        spu_get_stats(spu, &st);
        fifo_sum += (double)st.fifo_bytes_now * (double)cycles;
        hist[st.fifo_bytes_now] += cycles;
        if (o->progress && done - last_progress >= o->ops / 100 + 1) {
            last_progress = done;
            o->progress(o->progress_user, (double)done / (double)o->ops);
        }
    }
    if (c.irq && !first_event)
        r->first_pmbsr = rd(spu, SPU_PMBSR_EL1);
    /* Stop as arm_spe_pmu_stop() does: PSB CSYNC, then collect what the buffer holds. */
    spu_psb_csync(spu);
    uint64_t sr = rd(spu, SPU_PMBSR_EL1);
    if (!((sr >> 19) & 1))
        dump(&c, r, rd(spu, SPU_PMBPTR_EL1));
    spu_get_stats(spu, &r->st);
    r->pmbsr = sr;
    r->pmbptr = rd(spu, SPU_PMBPTR_EL1);
    r->pmblimitr = rd(spu, SPU_PMBLIMITR_EL1);
    r->pmsicr = rd(spu, SPU_PMSICR_EL1);
    r->buffer_base = c.base;
    r->cycles = spu_now(spu);
    r->irqs = c.irqs;
    uint64_t total = 0, acc = 0;
    for (uint64_t i = 0; i <= o->spu.fifo_bytes; i++)
        total += hist[i];
    for (uint64_t i = 0; i <= o->spu.fifo_bytes; i++) {
        acc += hist[i];
        if (hist[i])
            r->fifo_max = i;
        if (acc * 100 < total * 99)
            r->fifo_p99 = i + 1;
    }
    /* The unit's own high-water mark and time-weighted mean are exact (every edge counts);
     * the 99th percentile is from the levels at the loop's steps. */
    (void)fifo_sum;
    r->fifo_max = r->st.fifo_bytes_max;
    if (r->fifo_p99 > r->fifo_max)
        r->fifo_p99 = r->fifo_max;
    r->fifo_mean = r->cycles ? (double)r->st.fifo_byte_cycles / (double)r->cycles : 0;
    spu_close(spu);
    free(c.mem);
    free(hist);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    r->host_seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return 0;
}
