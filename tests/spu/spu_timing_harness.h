/* SPDX-License-Identifier: Apache-2.0 */
/* spu_timing_harness.h: seeded SPU scenarios behind a memory port with latency, PENDING answers and faults, digested. */
#ifndef ARMPROF_TESTS_SPU_TIMING_HARNESS_H
#define ARMPROF_TESTS_SPU_TIMING_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "armprof/spu.h"

/*
 * The same file builds the golden generator (SPU_TIMING_GOLDEN: the digests of the unit before
 * memory timing, with none of the timing API) and test_spu_timing.
 */

#define TM_BASE 0x0000000040000000ull
#define TM_MEM (128u * 1024u)
#define TM_QCAP 4096u

enum { TM_LAT_FIXED = 0, TM_LAT_UNIFORM = 1 };

typedef struct tm_scen {
    uint32_t interval;          /* PMSIRR_EL1.INTERVAL * 256 */
    bool rnd;
    uint32_t fifo_bytes, drain, max_inflight, granule;
    uint64_t buf_size;          /* the buffer: [TM_BASE, TM_BASE + buf_size) */
    armprof_mem_status fault;   /* ARMPROF_MEM_OK: none */
    bool async;
    spu_ea_policy ea;
    uint64_t fault_off;         /* first faulting byte, from TM_BASE */
    int fault_count;
    bool discard_mode;
    uint32_t seed;
    uint32_t samples;
} tm_scen;

typedef struct tm_timing {
    uint32_t lat_kind, lat_a, lat_b; /* latency: fixed lat_a, or uniform lat_a .. lat_b */
    bool pending;                    /* answer ARMPROF_MEM_PENDING, then spu_mem_complete */
    uint32_t write_bytes, max_out;
    bool cycle_level;                /* spu_cycle every cycle instead of spu_advance */
} tm_timing;

typedef struct tm_pend {
    uint64_t due;
    armprof_mem_result res;
} tm_pend;

typedef struct tm_port {
    spu_t *spu;
    uint8_t *mem;
    const tm_scen *sc;
    tm_timing tt;
    uint32_t rng;
    int fault_left;
    tm_pend *q;
    uint32_t qh, qn;
    uint64_t last_due;
    uint64_t irq_hash;
    int irq_edges;
    bool irq;
    uint64_t writes, restarts, max_len;
    uint64_t first_irq_at;
} tm_port;

static inline uint32_t tm_xs(uint32_t *s)
{
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

static inline uint64_t tm_fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static inline armprof_mem_result tm_write(void *user, uint64_t addr, const uint8_t *data, uint32_t len,
                                          const armprof_regime *rg)
{
    (void)rg;
    tm_port *p = user;
    armprof_mem_result r = { .status = ARMPROF_MEM_OK };
    p->writes++;
    if (len > p->max_len)
        p->max_len = len;
    uint32_t ok = len;
    const tm_scen *sc = p->sc;
    if (sc->fault != ARMPROF_MEM_OK && p->fault_left != 0 && TM_BASE + sc->fault_off >= addr &&
        TM_BASE + sc->fault_off < addr + len) {
        ok = (uint32_t)(TM_BASE + sc->fault_off - addr);
        if (p->fault_left > 0)
            p->fault_left--;
        r.status = sc->fault;
        r.ec = sc->fault == ARMPROF_MEM_FAULT ? ARMPROF_EC_S1_ABORT : 0;
        r.fsc = sc->fault == ARMPROF_MEM_FAULT ? 0x07 : 0;
        r.async = sc->async;
        r.written = ok;
    }
    if (addr >= TM_BASE && addr + ok <= TM_BASE + TM_MEM)
        memcpy(p->mem + (addr - TM_BASE), data, ok);
    uint32_t lat = p->tt.lat_a;
    if (p->tt.lat_kind == TM_LAT_UNIFORM)
        lat = p->tt.lat_a + tm_xs(&p->rng) % (p->tt.lat_b - p->tt.lat_a + 1);
#ifndef SPU_TIMING_GOLDEN
    if (p->tt.pending) {
        uint64_t due = spu_now(p->spu) + lat;
        if (due < p->last_due)
            due = p->last_due; /* answers in issue order */
        p->last_due = due;
        tm_pend *e = &p->q[(p->qh + p->qn) % TM_QCAP];
        e->due = due;
        e->res = r;
        p->qn++;
        r.status = ARMPROF_MEM_PENDING;
        return r;
    }
#endif
    r.latency = lat;
    return r;
}

static inline void tm_irq(void *user, bool level)
{
    tm_port *p = user;
    uint64_t t = p->spu ? spu_now(p->spu) : 0;
    if (level != p->irq) {
        p->irq_edges++;
        if (level && !p->first_irq_at)
            p->first_irq_at = t;
    }
    p->irq = level;
    uint64_t v[2] = { t, level };
    p->irq_hash = tm_fnv(p->irq_hash, v, sizeof(v));
}

/* Answers of pending writes that are due. */
static inline void tm_answer(tm_port *p)
{
#ifndef SPU_TIMING_GOLDEN
    while (p->qn && p->q[p->qh].due <= spu_now(p->spu)) {
        armprof_mem_result r = p->q[p->qh].res;
        p->qh = (p->qh + 1) % TM_QCAP;
        p->qn--;
        (void)spu_mem_complete(p->spu, &r);
    }
#else
    (void)p;
#endif
}

/* Time passes: `cycles` edges, with pending answers at their due times. */
static inline void tm_run(tm_port *p, uint64_t cycles)
{
    while (cycles) {
        tm_answer(p);
        uint64_t step = cycles;
        if (p->tt.pending) {
            /* A host of the asynchronous form runs the unit from event to event: a write is
             * issued at an event, and its answer must not find the unit past its time. */
            uint64_t e = spu_cycles_to_next_event(p->spu);
            if (e < step)
                step = e;
        }
        if (p->qn) {
            uint64_t now = spu_now(p->spu), d = p->q[p->qh].due;
            if (d > now && d - now < step)
                step = d - now;
        }
        if (p->tt.cycle_level) {
            for (uint64_t i = 0; i < step; i++)
                spu_cycle(p->spu, NULL, 0, NULL);
        } else {
            spu_advance(p->spu, step);
        }
        cycles -= step;
    }
    tm_answer(p);
}

static inline void tm_wr(tm_port *p, uint32_t enc, uint64_t v) { (void)spu_reg_write(p->spu, enc, v); }

static inline uint64_t tm_rd(const tm_port *p, uint32_t enc)
{
    uint64_t v = 0;
    (void)spu_reg_peek(p->spu, enc, &v);
    return v;
}

static inline void tm_config(const tm_scen *sc, const tm_timing *tt, spu_config *c)
{
    spu_config_default(c);
    c->fifo_bytes = sc->fifo_bytes;
    c->drain_bytes_per_cycle = sc->drain;
    c->max_inflight = sc->max_inflight;
    c->write_granule = sc->granule;
    c->ea = sc->ea;
    c->feat_spev1p2 = true;
    c->rng_seed = sc->seed;
#ifndef SPU_TIMING_GOLDEN
    c->write_bytes = tt->write_bytes;
    c->max_outstanding_writes = tt->max_out ? tt->max_out : 1;
#else
    (void)tt;
#endif
}

static inline int tm_open(tm_port *p, const tm_scen *sc, const tm_timing *tt)
{
    memset(p, 0, sizeof(*p));
    p->sc = sc;
    p->tt = *tt;
    p->rng = sc->seed * 2654435761u + 7;
    p->fault_left = sc->fault_count;
    p->mem = calloc(1, TM_MEM);
    p->q = calloc(TM_QCAP, sizeof(tm_pend));
    p->irq_hash = 0xcbf29ce484222325ull;
    spu_config c;
    tm_config(sc, tt, &c);
    armprof_host_ops ops = { .mem_write = tm_write, .irq = tm_irq, .user = p };
    if (!p->mem || !p->q || spu_open(&c, &ops, &p->spu) != ARMPROF_OK)
        return -1;
    armprof_pe_ctx ctx;
    armprof_pe_ctx_default(&ctx);
    spu_set_pe_context(p->spu, &ctx);
    tm_wr(p, SPU_PMSIRR_EL1, ((uint64_t)(sc->interval >> 8) << 8) | (sc->rnd ? 1 : 0));
    tm_wr(p, SPU_PMSICR_EL1, 0);
    tm_wr(p, SPU_PMBPTR_EL1, TM_BASE);
    tm_wr(p, SPU_PMBSR_EL1, 0);
    tm_wr(p, SPU_PMBLIMITR_EL1, (TM_BASE + sc->buf_size) | (sc->discard_mode ? 0x4 : 0) | 1);
    tm_wr(p, SPU_PMSCR_EL1, (1u << 5) | (1u << 4) | 3); /* TS, PA, E0SPE, E1SPE */
    return 0;
}

static inline void tm_close(tm_port *p)
{
    spu_close(p->spu);
    free(p->mem);
    free(p->q);
    p->spu = NULL;
}

/* The scenario: sampled loads with seeded latencies and gaps; software restarts the buffer
 * at fixed times when PMBSR_EL1.S is set. */
static inline void tm_play(tm_port *p)
{
    const tm_scen *sc = p->sc;
    uint32_t s = sc->seed | 1;
    spu_op op;
    memset(&op, 0, sizeof(op));
    op.op_class = SPE_CLASS_LDST;
    op.flags = SPU_OP_HAS_VA | SPU_OP_HAS_PA | SPU_OP_HAS_XLAT;
    op.events = 0x16;
    for (uint32_t i = 0; i < sc->samples; i++) {
        uint64_t k = spu_ops_until_sample(p->spu);
        if (k != UINT64_MAX)
            spu_skip(p->spu, k);
        op.pc = 0xffff800000001000ull + 4u * (tm_xs(&s) % 4096);
        op.data_va = 0x1000 + (tm_xs(&s) % 65536) * 8;
        op.data_pa = op.data_va + 0x80000000ull;
        op.total_lat = tm_xs(&s) % 200;
        op.issue_lat = op.total_lat / 4;
        uint32_t gap = 8 + tm_xs(&s) % 120;
        if (p->tt.cycle_level) {
            tm_answer(p);
            spu_cycle(p->spu, &op, 1, NULL);
            tm_run(p, gap - 1);
        } else {
            spu_retire(p->spu, &op);
            tm_run(p, gap);
        }
        if (i % 16 == 15 && (tm_rd(p, SPU_PMBSR_EL1) & (1u << 17))) {
            tm_wr(p, SPU_PMBSR_EL1, 0);
            tm_wr(p, SPU_PMBPTR_EL1, TM_BASE);
            p->restarts++;
        }
        /* PSB CSYNC takes synchronous answers at once (cutting their latency short) but must
         * wait for pending ones: with memory timing the scenario leaves it to the end, when
         * everything has been answered, so that both forms agree. */
        if (i % 500 == 499 && p->tt.lat_a == 0 && p->tt.lat_kind == TM_LAT_FIXED && !p->tt.pending)
            spu_psb_csync(p->spu);
    }
    tm_run(p, 2000);
#ifndef SPU_TIMING_GOLDEN
    for (int i = 0; i < 1000; i++) { /* until the memory system has answered everything */
        spu_stats st;
        spu_get_stats(p->spu, &st);
        if (!spu_writes_outstanding(p->spu) && !st.fifo_bytes_now && !st.inflight_now)
            break;
        tm_run(p, 1000);
    }
#endif
    spu_psb_csync(p->spu);
}

/* Everything the unit did before memory timing existed: memory, registers, PMBIRQ edges and
 * times, the statistics up to service_cycles, the time. */
static inline uint64_t tm_digest(const tm_port *p)
{
    uint64_t h = 0xcbf29ce484222325ull;
    h = tm_fnv(h, p->mem, TM_MEM);
    uint64_t v[5] = { tm_rd(p, SPU_PMBSR_EL1), tm_rd(p, SPU_PMBPTR_EL1), p->irq_hash,
                      spu_now(p->spu), p->restarts };
    h = tm_fnv(h, v, sizeof(v));
    spu_stats st;
    spu_get_stats(p->spu, &st);
    h = tm_fnv(h, &st, offsetof(spu_stats, fifo_byte_cycles));
    return h;
}

/* The scenarios of the zero-latency identity. */
static const tm_scen tm_scens[] = {
    /* interval  rnd  fifo  drain inflight granule  buf  fault  async ea off count discard seed samples */
    { 256, false, 1024, 16, 4, 4096, 65536, ARMPROF_MEM_OK, false, SPU_EA_REPORT, 0, 0, false, 1, 3000 },
    { 256, true, 128, 2, 4, 4096, 16384, ARMPROF_MEM_OK, false, SPU_EA_REPORT, 0, 0, false, 2, 3000 },
    { 512, false, 512, 8, 6, 4096, 65536, ARMPROF_MEM_FAULT, false, SPU_EA_REPORT, 5003, 1, false, 3, 3000 },
    { 256, true, 256, 4, 4, 4096, 32768, ARMPROF_MEM_EXT_ABORT, false, SPU_EA_REPORT, 3000, 2, false, 4, 3000 },
    { 256, false, 256, 4, 4, 4096, 32768, ARMPROF_MEM_EXT_ABORT, true, SPU_EA_REPORT, 7001, 1, false, 5, 3000 },
    { 1024, true, 512, 8, 8, 4096, 65536, ARMPROF_MEM_EXT_ABORT, false, SPU_EA_IGNORE, 2000, 3, false, 6, 3000 },
    { 256, false, 2048, 32, 4, 4096, 65536, ARMPROF_MEM_EXT_ABORT, false, SPU_EA_SERROR, 9000, -1, false, 7, 3000 },
    { 256, true, 1024, 16, 4, 4096, 65536, ARMPROF_MEM_OK, false, SPU_EA_REPORT, 0, 0, true, 8, 3000 },
    { 256, false, 512, 8, 4, 64, 65536, ARMPROF_MEM_FAULT, false, SPU_EA_REPORT, 4130, 1, false, 9, 3000 },
    { 1024, false, 4096, 64, 16, 4096, 4096, ARMPROF_MEM_OK, false, SPU_EA_REPORT, 0, 0, false, 10, 3000 },
};
#define TM_NSCENS (sizeof(tm_scens) / sizeof(tm_scens[0]))

#endif
