/* SPDX-License-Identifier: Apache-2.0 */
/* test_trbu_timing.c: TRBU trace writes with memory latency: zero-latency identity, cycle cases, faults in flight, PENDING. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef TRBU_GOLDEN_PRINT
#include <cmocka.h>
#else
#include <assert.h>
#define assert_true(x) assert(x)
#define assert_int_equal(a, b) assert((a) == (b))
#define assert_non_null(x) assert((x) != NULL)
#endif

#include "armprof/trbu.h"
#include "armprof/bits.h"
#include "trbu_fake.h"

#define BASE 0x10000ull
#define LIMIT 0x11000ull /* 4 KiB buffer */

/* ----- A memory port with latency ------------------------------------------------------------ */

typedef struct lmem {
    fake f;                  /* first member: fake_write()'s user */
    trbu_t *t;
    uint32_t latency;        /* every answer's latency ... */
    uint64_t lat_rng;        /* ... or, when not 0, drawn 0 .. lat_max per write */
    uint32_t lat_max;
    bool pending;            /* answer ARMPROF_MEM_PENDING (the answer kept in ans[]) */
    armprof_mem_result ans[64];
    unsigned nans;
    uint64_t fault_addr[2];  /* writes covering these answer a stage 1 translation fault */
    unsigned nfault;
    uint64_t irq_rise_at[16];
    unsigned nrise;
} lmem;

static uint64_t xs(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

#ifndef TRBU_GOLDEN_PRINT
static armprof_mem_result lmem_write(void *user, uint64_t addr, const uint8_t *data, uint32_t len,
                                     const armprof_regime *g)
{
    lmem *m = user;
    armprof_mem_result r = fake_write(&m->f, addr, data, len, g);
    for (unsigned i = 0; i < m->nfault; i++)
        if (m->fault_addr[i] >= addr && m->fault_addr[i] < addr + len) {
            r.status = ARMPROF_MEM_FAULT;
            r.ec = ARMPROF_EC_S1_ABORT;
            r.fsc = ARMPROF_FSC_TRANSLATION | (uint8_t)(1 + i);
            r.written = (uint32_t)(m->fault_addr[i] - addr);
        }
    r.latency = m->lat_rng ? (uint32_t)(xs(&m->lat_rng) % (m->lat_max + 1)) : m->latency;
    if (m->pending) {
        assert_true(m->nans < 64);
        m->ans[m->nans++] = r;
        armprof_mem_result p = { .status = ARMPROF_MEM_PENDING };
        return p;
    }
    return r;
}
#endif

static void lmem_irq(void *user, bool level)
{
    lmem *m = user;
    if (level && !m->f.irq && m->nrise < 16)
        m->irq_rise_at[m->nrise++] = trbu_now(m->t);
    fake_irq(&m->f, level);
}

static trbu_t *lmem_open(lmem *m, const trbu_config *cfg, bool timed)
{
    armprof_host_ops ops = fake_ops(&m->f);
    ops.user = m;
    ops.irq = lmem_irq;
#ifndef TRBU_GOLDEN_PRINT
    if (timed)
        ops.mem_write = lmem_write;
#else
    (void)timed;
#endif
    assert_int_equal(trbu_open(cfg, &ops, &m->t), ARMPROF_OK);
    return m->t;
}

static void wr(trbu_t *t, uint32_t enc, uint64_t v)
{
    armprof_pe_ctx c = *trbu_get_pe_context(t), c3 = c;
    c3.el = 3;
    trbu_set_pe_context(t, &c3);
    assert_int_equal(trbu_reg_write(t, enc, v), ARMPROF_OK);
    trbu_set_pe_context(t, &c);
}
static uint64_t rd(const trbu_t *t, uint32_t enc)
{
    uint64_t v = 0;
    assert_int_equal(trbu_reg_peek(t, enc, &v), ARMPROF_OK);
    return v;
}
static void program(trbu_t *t, unsigned fm, unsigned tm, uint32_t trg)
{
    wr(t, TRBU_TRBLIMITR_EL1, 0);
    wr(t, TRBU_TRBSR_EL1, 0);
    wr(t, TRBU_TRBBASER_EL1, BASE);
    wr(t, TRBU_TRBPTR_EL1, BASE);
    wr(t, TRBU_TRBTRG_EL1, trg);
    wr(t, TRBU_TRBLIMITR_EL1, (LIMIT & TRBLIMITR_EL1_LIMIT) | ap_field_prep(TRBLIMITR_EL1_FM, fm) |
                                  ap_field_prep(TRBLIMITR_EL1_TM, tm) | TRBLIMITR_EL1_E);
}

/* ----- Scenarios and their digest (bytes, registers, IRQ, statistics) --------------------------- */

typedef struct scen {
    unsigned fm, tm;
    uint32_t trg;
    int trigger_at;          /* cycle of the Detected Trigger, -1: none */
    uint32_t total;          /* trace bytes offered */
    armprof_mem_status inj;  /* one-shot injection at inj_addr (OK: none) */
    uint64_t inj_addr;
    uint8_t inj_fsc;
    bool inj_async;
    bool drain_pad;
    int csync_at;            /* cycle of a TSB CSYNC mid-run, -1: none */
} scen;

static const scen kScen[] = {
    { TRBU_FM_FILL, TRBU_TM_IGNORE, 0, -1, 6000, ARMPROF_MEM_OK, 0, 0, false, false, -1 },
    { TRBU_FM_WRAP, TRBU_TM_IRQ, 1500, 20, 12000, ARMPROF_MEM_OK, 0, 0, false, false, -1 },
    { TRBU_FM_CIRCULAR, TRBU_TM_STOP, 3000, 10, 12000, ARMPROF_MEM_OK, 0, 0, false, false, -1 },
    { TRBU_FM_FILL, TRBU_TM_IGNORE, 0, -1, 6000, ARMPROF_MEM_FAULT, BASE + 0x348,
      ARMPROF_FSC_TRANSLATION | 2, false, false, -1 },
    { TRBU_FM_WRAP, TRBU_TM_IGNORE, 0, -1, 9000, ARMPROF_MEM_EXT_ABORT, BASE + 0x810,
      ARMPROF_FSC_SEA_WRITE, false, false, -1 },
    { TRBU_FM_CIRCULAR, TRBU_TM_IRQ, 700, 3, 9000, ARMPROF_MEM_EXT_ABORT, BASE + 0x200,
      ARMPROF_FSC_SEA_WRITE, true, true, 15 },
    { TRBU_FM_WRAP, TRBU_TM_IGNORE, 0, -1, 9000, ARMPROF_MEM_EXT_ABORT, BASE + 0x5C0,
      ARMPROF_FSC_SEA_WALK | 1, false, true, 30 },
};
#define NSCEN (sizeof(kScen) / sizeof(kScen[0]))

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001B3ull;
    }
    return h;
}
#define FNV_U64(h, v) do { uint64_t v_ = (v); (h) = fnv((h), &v_, 8); } while (0)

/* Today's (pre-timing) fields only: the new timing statistics are not part of the identity. */
static uint64_t digest(lmem *m)
{
    trbu_t *t = m->t;
    uint64_t h = 0xCBF29CE484222325ull;
    h = fnv(h, fake_at(&m->f, BASE), LIMIT - BASE);
    FNV_U64(h, rd(t, TRBU_TRBSR_EL1));
    FNV_U64(h, rd(t, TRBU_TRBPTR_EL1));
    FNV_U64(h, rd(t, TRBU_TRBTRG_EL1));
    FNV_U64(h, m->f.irq);
    FNV_U64(h, m->f.irq_edges);
    FNV_U64(h, m->f.writes);
    FNV_U64(h, m->f.ev_wrap);
    FNV_U64(h, m->f.ev_trig);
    FNV_U64(h, m->f.serrors);
    for (unsigned i = 0; i < m->nrise; i++)
        FNV_U64(h, m->irq_rise_at[i]);
    trbu_stats s;
    trbu_get_stats(t, &s);
    uint64_t f[] = { s.bytes_in, s.bytes_accepted, s.bytes_written, s.bytes_padded,
                     s.bytes_discarded, s.port_writes, s.wraps, s.detected_triggers,
                     s.trigger_events, s.flushes, s.management_events, s.buffer_full_events,
                     s.wrap_irq_events, s.trigger_mgmt_events, s.fault_events, s.ext_abort_events,
                     s.ext_aborts_ignored, s.serrors, s.impdef_events, s.tsb_csyncs, s.irq_rises };
    h = fnv(h, f, sizeof(f));
    h = fnv(h, s.discarded, sizeof(s.discarded));
    h = fnv(h, s.mgmt_by_el, sizeof(s.mgmt_by_el));
    return h;
}

/* Runs scenario `k` cycle by cycle (pieces of 1 .. 200 bytes), TSB CSYNC at the end. `timed`:
 * through lmem_write (latency 0, max_out outstanding writes allowed). */
static uint64_t run_scen(unsigned k, bool timed, uint32_t max_out)
{
    const scen *s = &kScen[k];
    lmem *m = calloc(1, sizeof(*m));
    assert_non_null(m);
    trbu_config cfg;
    trbu_config_default(&cfg);
    cfg.drain_pad = s->drain_pad;
    cfg.max_burst = 256;
#ifndef TRBU_GOLDEN_PRINT
    cfg.max_outstanding_writes = max_out;
#else
    (void)max_out;
#endif
    trbu_t *t = lmem_open(m, &cfg, timed);
    program(t, s->fm, s->tm, s->trg);
    if (s->inj != ARMPROF_MEM_OK)
        fake_inject(&m->f, s->inj_addr, s->inj, ARMPROF_EC_S1_ABORT, s->inj_fsc, s->inj_async, 0);
    uint64_t rng = 0x5EEDull + k;
    uint8_t buf[256];
    uint8_t pat = 0;
    uint32_t sent = 0;
    for (int c = 0; sent < s->total || c < 200; c++) {
        uint32_t n = 0;
        if (sent < s->total) {
            n = 1 + (uint32_t)(xs(&rng) % 200);
            if (n > s->total - sent)
                n = s->total - sent;
            for (uint32_t i = 0; i < n; i++)
                buf[i] = pat++;
            sent += n;
        }
        trbu_cycle(t, buf, n, c == s->trigger_at);
        if (c == s->csync_at)
            trbu_tsb_csync(t);
    }
    trbu_tsb_csync(t);
    uint64_t h = digest(m);
    trbu_close(t);
    free(m);
    return h;
}

/* Digests of the scenarios computed with the TRBU before memory timing (commit e5b0eb6):
 *   git archive e5b0eb6 capi model/trbu model/common | tar -x -C OLD && cd OLD &&
 *   cc -std=c11 -DTRBU_GOLDEN_PRINT -Icapi -Imodel -Imodel/trbu -I<src>/tests/trbu \
 *      <src>/tests/trbu/test_trbu_timing.c model/trbu/ *.c <build>/lib/libarmprof_common.a && ./a.out
 * (a scenario added here needs its digest from that old model, not from the current one). */
static const uint64_t kGolden[NSCEN] = {
#include "trbu_timing_golden.inc"
};

#ifdef TRBU_GOLDEN_PRINT
int main(void)
{
    for (unsigned k = 0; k < NSCEN; k++)
        printf("    0x%016llxull,\n", (unsigned long long)run_scen(k, false, 1));
    (void)kGolden;
    return 0;
}
#else

/* Zero latency reproduces the functional TRBU bit for bit: the same bytes in memory, TRBSR_EL1,
 * TRBPTR_EL1, TRBTRG_EL1, IRQ edges and times, and statistics as before memory timing existed
 * (Fill / Wrap / Circular, IRQ and Stop on trigger, an MMU fault, External aborts reported
 * synchronously and asynchronously, a walk abort as an MMU fault, TSB CSYNC with padding),
 * with the default port, a port answering latency 0, and up to 4 writes allowed outstanding. */
static void test_zero_latency_identity(void **state)
{
    (void)state;
    for (unsigned k = 0; k < NSCEN; k++) {
        uint64_t a = run_scen(k, false, 1);
        if (a != kGolden[k])
            fail_msg("scenario %u: digest 0x%016llx, before memory timing 0x%016llx", k,
                     (unsigned long long)a, (unsigned long long)kGolden[k]);
        assert_true(run_scen(k, true, 1) == kGolden[k]);
        assert_true(run_scen(k, true, 4) == kGolden[k]);
    }
}

/* The scenarios differ from each other (the digest sees what they do). */
static void test_scenarios_distinct(void **state)
{
    (void)state;
    for (unsigned i = 0; i < NSCEN; i++)
        for (unsigned j = i + 1; j < NSCEN; j++)
            assert_true(kGolden[i] != kGolden[j]);
}

static uint8_t g_unit[64];

/* Offers the 64-byte unit `u` (bytes u*64 ..) this cycle and advances one cycle; returns the bytes
 * taken (the trace unit offers the same unit again next cycle if refused). */
static size_t offer_unit(trbu_t *t, unsigned u)
{
    for (unsigned i = 0; i < 64; i++)
        g_unit[i] = (uint8_t)(u * 64 + i);
    return trbu_cycle(t, g_unit, 64, false);
}

/* One unit, one outstanding write, latency L = 10: the unit offered at cycle 0 is written at
 * once (the port call at cycle 0) and accepted at cycle 10: TRBPTR_EL1 moves then, not before. */
static void test_one_unit_latency(void **state)
{
    (void)state;
    lmem m = { 0 };
    m.latency = 10;
    trbu_config cfg;
    trbu_config_default(&cfg);
    trbu_t *t = lmem_open(&m, &cfg, true);
    program(t, TRBU_FM_FILL, TRBU_TM_IGNORE, 0);
    assert_int_equal(offer_unit(t, 0), 64);
    assert_int_equal(m.f.writes, 1);                 /* issued in cycle 0 */
    assert_int_equal(trbu_writes_outstanding(t), 1);
    for (int c = 1; c < 10; c++) {
        assert_int_equal(rd(t, TRBU_TRBPTR_EL1), BASE); /* not yet accepted */
        trbu_cycle(t, NULL, 0, false);
    }
    assert_int_equal(trbu_now(t), 10);
    assert_int_equal(rd(t, TRBU_TRBPTR_EL1), BASE + 64);
    assert_int_equal(trbu_writes_outstanding(t), 0);
    trbu_stats st;
    trbu_get_stats(t, &st);
    assert_int_equal(st.bytes_written, 64);
    assert_int_equal(st.write_latency_min, 10);
    assert_int_equal(st.write_latency_max, 10);
    assert_int_equal(st.write_latency_sum, 10);
    assert_int_equal(st.outstanding_writes_max, 1);
    assert_int_equal(st.buf_bytes_max, 64);
    trbu_close(t);
}

/* Filling the 4 KiB buffer (64 units) with latency L = 10 and one write outstanding, the trace
 * unit offering one unit a cycle and offering a refused unit again:
 *  - unit 0 is written at cycle 0 (direct), unit 1 waits in the internal buffer from cycle 1;
 *  - write k is issued at cycle 10k (when write k-1 is accepted) and accepted at 10(k+1);
 *  - unit k+1 enters the internal buffer at cycle 10k, so units are taken at cycles 0, 1, 10,
 *    20, ..., 620 and every other offer in cycles 2 .. 619 is refused: 620 + 1 - 64 = 557 offers;
 *  - the writer stalls (a full unit waits) in cycles 1 .. 629: 63L - 1 = 629 cycles;
 *  - write 63 reaches the Limit pointer and is accepted at cycle 640: the buffer full event
 *    (RMBSHC: WRAP, IRQ, S, BSC 0b000001) and TRBIRQ rise then, at cycle 640 and not before. */
static void test_fill_latency_cycles(void **state)
{
    (void)state;
    lmem m = { 0 };
    m.latency = 10;
    trbu_config cfg;
    trbu_config_default(&cfg);
    trbu_t *t = lmem_open(&m, &cfg, true);
    program(t, TRBU_FM_FILL, TRBU_TM_IGNORE, 0);
    unsigned u = 0, refused = 0;
    uint64_t taken_at[64];
    while (trbu_now(t) < 700) {
        uint64_t c = trbu_now(t);
        if (u < 64) {
            size_t n = offer_unit(t, u);
            if (n == 64)
                taken_at[u++] = c;
            else {
                assert_int_equal(n, 0);
                refused++;
            }
        } else {
            trbu_cycle(t, NULL, 0, false);
        }
        if (trbu_now(t) < 640)
            assert_true(!m.f.irq);
    }
    assert_int_equal(u, 64);
    assert_int_equal(taken_at[0], 0);
    assert_int_equal(taken_at[1], 1);
    for (unsigned k = 2; k < 64; k++)
        assert_int_equal(taken_at[k], 10 * (k - 1));
    assert_int_equal(refused, 557);
    assert_int_equal(m.nrise, 1);
    assert_int_equal(m.irq_rise_at[0], 640);
    uint64_t sr = rd(t, TRBU_TRBSR_EL1);
    assert_true(sr & TRBSR_S);
    assert_true(sr & TRBSR_IRQ);
    assert_true(sr & TRBSR_WRAP);
    assert_int_equal(ap_field_get(TRBSR_EC, sr), 0);
    assert_int_equal(ap_field_get(TRBSR_BSC, sr), TRBU_BSC_FILLED);
    assert_int_equal(rd(t, TRBU_TRBPTR_EL1), BASE);
    for (unsigned i = 0; i < 4096; i++)
        assert_int_equal(fake_at(&m.f, BASE)[i], (uint8_t)i);
    trbu_stats st;
    trbu_get_stats(t, &st);
    assert_int_equal(st.bytes_written, 4096);
    assert_int_equal(st.bytes_refused, 557 * 64);
    assert_int_equal(st.bytes_in, st.bytes_written + st.bytes_refused + st.bytes_discarded);
    assert_int_equal(st.writer_stall_cycles, 629);
    assert_int_equal(st.outstanding_writes_max, 1);
    assert_int_equal(st.buf_bytes_max, 128);
    assert_int_equal(st.port_writes, 64);
    assert_int_equal(st.write_latency_min, 10);
    assert_int_equal(st.write_latency_max, 10);
    assert_int_equal(st.write_latency_sum, 640);
    assert_int_equal(st.buffer_full_events, 1);
    trbu_close(t);
}

/* A fault on write 1 with writes 2 and 3 in flight (4 outstanding allowed, latency 10, one unit
 * per write): at cycle 10 the writes are accepted in order; write 0 moves TRBPTR_EL1 to BASE+64,
 * write 1 faults 16 bytes in: RFSPBK (IRQ, S, EC 0x24, FSC of write 1) and TRBPTR_EL1 = the
 * faulting address BASE+80 (GVGPB). Write 3 faults too, later: ignored, the earliest fault wins
 * (RFSPBK applies with S == 0 only); the bytes of writes 1 (48 not written), 2 and 3 are lost. */
static void test_fault_with_writes_in_flight(void **state)
{
    (void)state;
    lmem m = { 0 };
    m.latency = 10;
    m.fault_addr[0] = BASE + 64 + 16;
    m.fault_addr[1] = BASE + 3 * 64 + 8;
    m.nfault = 2;
    trbu_config cfg;
    trbu_config_default(&cfg);
    cfg.max_burst = 64;
    cfg.max_outstanding_writes = 4;
    trbu_t *t = lmem_open(&m, &cfg, true);
    program(t, TRBU_FM_FILL, TRBU_TM_IGNORE, 0);
    uint8_t d[256];
    for (unsigned i = 0; i < 256; i++)
        d[i] = (uint8_t)i;
    assert_int_equal(trbu_cycle(t, d, 256, false), 256);
    assert_int_equal(m.f.writes, 4);
    assert_int_equal(trbu_writes_outstanding(t), 4);
    trbu_advance(t, 8);                               /* now 9 */
    assert_int_equal(rd(t, TRBU_TRBSR_EL1), 0);
    assert_true(!m.f.irq);
    trbu_advance(t, 1);                               /* now 10: all four accepted */
    assert_int_equal(trbu_writes_outstanding(t), 0);
    uint64_t sr = rd(t, TRBU_TRBSR_EL1);
    assert_true(sr & TRBSR_IRQ);
    assert_true(sr & TRBSR_S);
    assert_int_equal(ap_field_get(TRBSR_EC, sr), ARMPROF_EC_S1_ABORT);
    assert_int_equal(ap_field_get(TRBSR_FSC, sr), ARMPROF_FSC_TRANSLATION | 1);
    assert_true(!(sr & TRBSR_EA));
    assert_int_equal(rd(t, TRBU_TRBPTR_EL1), BASE + 80);
    assert_true(m.f.irq);
    assert_int_equal(m.irq_rise_at[0], 10);
    trbu_stats st;
    trbu_get_stats(t, &st);
    assert_int_equal(st.fault_events, 1);
    assert_int_equal(st.management_events, 1);
    assert_int_equal(st.bytes_written, 80);
    assert_int_equal(st.discarded[TRBU_DISCARD_FAULT], 48 + 64 + 64);
    assert_int_equal(st.outstanding_writes_max, 4);
    assert_int_equal(st.bytes_in, st.bytes_written + st.bytes_discarded);
    /* Collection stopped: more trace is discarded as such. */
    assert_int_equal(trbu_cycle(t, d, 64, false), 0);
    trbu_get_stats(t, &st);
    assert_int_equal(st.discarded[TRBU_DISCARD_STOPPED], 64);
    trbu_close(t);
}

/* Collection stopped by another event (an IMPLEMENTATION DEFINED one, RCHNSL) with writes in
 * flight: an OK answer still moves TRBPTR_EL1 (the data is in memory), a later fault is not
 * reported (RFSPBK needs S == 0): TRBSR_EL1 keeps EC 0x1F and its MSS, TRBPTR_EL1 stays. */
static void test_answers_after_other_stop(void **state)
{
    (void)state;
    lmem m = { 0 };
    m.latency = 5;
    m.fault_addr[0] = BASE + 64 + 4;
    m.nfault = 1;
    trbu_config cfg;
    trbu_config_default(&cfg);
    cfg.max_burst = 64;
    cfg.max_outstanding_writes = 2;
    trbu_t *t = lmem_open(&m, &cfg, true);
    program(t, TRBU_FM_WRAP, TRBU_TM_IGNORE, 0);
    uint8_t d[128];
    memset(d, 3, sizeof(d));
    assert_int_equal(trbu_cycle(t, d, 128, false), 128);
    trbu_impdef_event(t, 0x42);
    trbu_advance(t, 10);
    assert_int_equal(trbu_writes_outstanding(t), 0);
    uint64_t sr = rd(t, TRBU_TRBSR_EL1);
    assert_int_equal(ap_field_get(TRBSR_EC, sr), ARMPROF_EC_IMPDEF);
    assert_int_equal(ap_field_get(TRBSR_MSS, sr), 0x42);
    assert_int_equal(rd(t, TRBU_TRBPTR_EL1), BASE + 64);
    trbu_stats st;
    trbu_get_stats(t, &st);
    assert_int_equal(st.fault_events, 0);
    assert_int_equal(st.management_events, 1);
    assert_int_equal(st.bytes_written, 64);
    assert_int_equal(st.discarded[TRBU_DISCARD_FAULT], 64);
    trbu_close(t);
}

/* The asynchronous port: writes answered ARMPROF_MEM_PENDING stay outstanding until
 * trbu_mem_complete(); answers apply in issue order at the unit's current time. */
static void test_pending_complete(void **state)
{
    (void)state;
    lmem m = { 0 };
    m.pending = true;
    m.fault_addr[0] = BASE + 64 + 32;
    m.nfault = 1;
    trbu_config cfg;
    trbu_config_default(&cfg);
    cfg.max_burst = 64;
    cfg.max_outstanding_writes = 2;
    trbu_t *t = lmem_open(&m, &cfg, true);
    program(t, TRBU_FM_FILL, TRBU_TM_IGNORE, 0);
    armprof_mem_result ok = { .status = ARMPROF_MEM_OK };
    assert_int_equal(trbu_mem_complete(t, &ok), ARMPROF_ERR_BUSY); /* none pending */
    uint8_t d[192];
    memset(d, 0xA5, sizeof(d));
    /* Two units issued, the third waits in the internal buffer. */
    assert_int_equal(trbu_trace_bytes(t, d, 192), 192);
    assert_int_equal(trbu_writes_outstanding(t), 2);
    assert_int_equal(m.nans, 2);
    trbu_advance(t, 1000);                            /* nothing happens by itself */
    assert_int_equal(trbu_writes_outstanding(t), 2);
    assert_int_equal(rd(t, TRBU_TRBPTR_EL1), BASE);
    assert_int_equal(trbu_cycles_to_next_event(t), UINT64_MAX);
    armprof_mem_result bad = { .status = ARMPROF_MEM_PENDING };
    assert_int_equal(trbu_mem_complete(t, &bad), ARMPROF_ERR_INVAL);
    assert_int_equal(trbu_mem_complete(t, NULL), ARMPROF_ERR_INVAL);
    assert_int_equal(trbu_mem_complete(t, &m.ans[0]), ARMPROF_OK);
    assert_int_equal(rd(t, TRBU_TRBPTR_EL1), BASE + 64);
    /* The freed slot took the buffered unit at once. */
    assert_int_equal(m.nans, 3);
    assert_int_equal(trbu_writes_outstanding(t), 2);
    trbu_advance(t, 5);
    assert_int_equal(trbu_mem_complete(t, &m.ans[1]), ARMPROF_OK); /* 32 bytes, then a fault */
    uint64_t sr = rd(t, TRBU_TRBSR_EL1);
    assert_true(sr & TRBSR_S);
    assert_int_equal(ap_field_get(TRBSR_EC, sr), ARMPROF_EC_S1_ABORT);
    assert_int_equal(rd(t, TRBU_TRBPTR_EL1), BASE + 96);
    /* The third write still needs its answer (the memory system owns it); ignored when given. */
    assert_int_equal(trbu_writes_outstanding(t), 1);
    assert_int_equal(trbu_mem_complete(t, &m.ans[2]), ARMPROF_OK);
    assert_int_equal(trbu_writes_outstanding(t), 0);
    assert_int_equal(rd(t, TRBU_TRBPTR_EL1), BASE + 96);
    assert_int_equal(trbu_mem_complete(t, &ok), ARMPROF_ERR_BUSY);
    trbu_stats st;
    trbu_get_stats(t, &st);
    assert_int_equal(st.write_latency_min, 5);    /* write 2: issued at 1000, answered at 1005 */
    assert_int_equal(st.write_latency_max, 1005); /* write 1: issued at 0, answered at 1005 */
    assert_int_equal(st.write_latency_sum, 1000 + 1005 + 5);
    assert_int_equal(st.bytes_written, 96);
    assert_int_equal(st.discarded[TRBU_DISCARD_FAULT], 32 + 64);
    trbu_close(t);
}

/* Wrap mode with a trigger and writes outstanding: the trigger event happens when the write that
 * takes the Trigger Counter to zero is accepted (RBQTGW), the Stop-on-trigger management event
 * after the flush and after every earlier write (the drained internal buffer included) is
 * accepted (RXRRWP); TSB CSYNC accepts the synchronous writes still outstanding. */
static void test_trigger_and_csync_with_latency(void **state)
{
    (void)state;
    lmem m = { 0 };
    m.latency = 7;
    trbu_config cfg;
    trbu_config_default(&cfg);
    cfg.max_burst = 64;
    cfg.max_outstanding_writes = 2;
    cfg.flush_cycles = 3;
    trbu_t *t = lmem_open(&m, &cfg, true);
    program(t, TRBU_FM_WRAP, TRBU_TM_STOP, 128);
    trbu_trigger(t);                                  /* counting from now: 128 bytes */
    uint8_t d[64];
    memset(d, 1, sizeof(d));
    assert_int_equal(trbu_cycle(t, d, 64, false), 64); /* write 0 at 0, accepted at 7 */
    assert_int_equal(trbu_cycle(t, d, 64, false), 64); /* write 1 at 1, accepted at 8: ctr 0 */
    assert_int_equal(trbu_cycle(t, d, 40, false), 40); /* buffered (partial unit) */
    trbu_stats st;
    for (int c = 3; c < 8; c++) {
        trbu_get_stats(t, &st);
        assert_int_equal(st.trigger_events, 0);
        trbu_cycle(t, NULL, 0, false);
    }
    trbu_get_stats(t, &st);                           /* now 8 */
    assert_int_equal(st.trigger_events, 1);
    assert_int_equal(rd(t, TRBU_TRBTRG_EL1), 0);
    assert_int_equal(st.flushes, 1);
    /* Flush done at 11: the partial unit is drained (write at 11, accepted at 18), the event
     * and the stop follow at 18. */
    while (trbu_now(t) < 18) {
        assert_true(!(rd(t, TRBU_TRBSR_EL1) & TRBSR_S));
        trbu_cycle(t, NULL, 0, false);
    }
    uint64_t sr = rd(t, TRBU_TRBSR_EL1);
    assert_true(sr & TRBSR_S);
    assert_true(sr & TRBSR_IRQ);
    assert_int_equal(ap_field_get(TRBSR_BSC, sr), TRBU_BSC_TRIGGER);
    assert_int_equal(m.irq_rise_at[0], 18);
    assert_int_equal(rd(t, TRBU_TRBPTR_EL1), BASE + 168);
    trbu_close(t);

    /* TSB CSYNC with writes outstanding: they are accepted at the CSYNC, then the drain. */
    lmem m2 = { 0 };
    m2.latency = 50;
    t = lmem_open(&m2, &cfg, true);
    program(t, TRBU_FM_WRAP, TRBU_TM_IGNORE, 0);
    assert_int_equal(trbu_trace_bytes(t, d, 64), 64);
    assert_int_equal(trbu_trace_bytes(t, d, 64), 64);
    assert_int_equal(trbu_trace_bytes(t, d, 10), 10);
    assert_int_equal(trbu_writes_outstanding(t), 2);
    trbu_tsb_csync(t);
    assert_int_equal(trbu_writes_outstanding(t), 0);
    assert_int_equal(rd(t, TRBU_TRBPTR_EL1), BASE + 138);
    trbu_get_stats(t, &st);
    assert_int_equal(st.bytes_written, 138);
    trbu_close(t);
}

/* Cycle-level (trbu_cycle every cycle) and transaction-level (trbu_trace_bytes at the arrival
 * cycles, trbu_advance over the gaps, a refused rest offered again at the next event) agree with
 * random latencies and several writes outstanding: same bytes, registers, IRQ rise times and
 * statistics (but bytes_in / bytes_refused, which count the extra offers of the cycle-level
 * host). Also across a checkpoint taken with writes outstanding. */
static unsigned g_ck_outstanding; /* writes outstanding at the checkpoints, over the seeds */

static uint64_t run_random(unsigned seed, bool cycle_level, bool checkpoint, trbu_stats *out)
{
    lmem *m = calloc(1, sizeof(*m));
    assert_non_null(m);
    m->lat_rng = 0x1234567ull + seed;
    m->lat_max = 40;
    trbu_config cfg;
    trbu_config_default(&cfg);
    cfg.max_burst = 128;
    cfg.max_outstanding_writes = 1 + seed % 4;
    trbu_t *t = lmem_open(m, &cfg, true);
    program(t, seed % 2 ? TRBU_FM_WRAP : TRBU_FM_CIRCULAR, TRBU_TM_IRQ, 2000 + 100 * seed);
    uint64_t rng = 99 + seed;
    uint8_t src[20000];
    for (unsigned i = 0; i < sizeof(src); i++)
        src[i] = (uint8_t)(i * 7 + seed);
    size_t sent = 0;
    uint64_t next = 0;                                /* cycle of the next arrival */
    size_t want = 0;                                  /* bytes the trace unit holds */
    while (sent < sizeof(src) || trbu_cycles_to_next_event(t) != UINT64_MAX) {
        if (sent < sizeof(src) && want == 0 && trbu_now(t) >= next) {
            want = 1 + xs(&rng) % 300;
            if (want > sizeof(src) - sent)
                want = sizeof(src) - sent;
            next = trbu_now(t) + 1 + xs(&rng) % 12;
        }
        if (trbu_now(t) == 300 && checkpoint) {
            /* Save with writes outstanding, restore into a fresh unit, carry on with it. */
            g_ck_outstanding += trbu_writes_outstanding(t);
            static uint8_t ck[65536];
            size_t len = 0;
            assert_int_equal(trbu_save(t, ck, sizeof(ck), &len), ARMPROF_OK);
            trbu_t *t2;
            armprof_host_ops ops = fake_ops(&m->f);
            ops.user = m;
            ops.irq = lmem_irq;
            ops.mem_write = lmem_write;
            assert_int_equal(trbu_open(&cfg, &ops, &t2), ARMPROF_OK);
            assert_int_equal(trbu_restore(t2, ck, len), ARMPROF_OK);
            trbu_close(t);
            t = m->t = t2;
        }
        if (trbu_now(t) == 150)
            trbu_trigger(t);
        size_t got = 0;
        if (want)
            got = trbu_trace_bytes(t, src + sent, want);
        sent += got;
        want -= got;
        if (cycle_level) {
            trbu_advance(t, 1);
        } else {
            /* To the next arrival, the next event (a refused rest waits for it), or 150 / 300. */
            uint64_t now = trbu_now(t), to = UINT64_MAX;
            if (want || sent >= sizeof(src)) {
                uint64_t d = trbu_cycles_to_next_event(t);
                to = d == UINT64_MAX ? now + 1 : now + (d ? d : 1);
            } else {
                to = next > now ? next : now + 1;
            }
            if (now < 150 && to > 150)
                to = 150;
            if (now < 300 && to > 300)
                to = 300;
            trbu_advance(t, to - now);
        }
    }
    trbu_tsb_csync(t);
    trbu_get_stats(t, out);
    uint64_t h = 0xCBF29CE484222325ull;
    h = fnv(h, fake_at(&m->f, BASE), LIMIT - BASE);
    FNV_U64(h, rd(t, TRBU_TRBSR_EL1));
    FNV_U64(h, rd(t, TRBU_TRBPTR_EL1));
    FNV_U64(h, trbu_now(t));
    for (unsigned i = 0; i < m->nrise; i++)
        FNV_U64(h, m->irq_rise_at[i]);
    trbu_close(t);
    free(m);
    return h;
}

static void test_cycle_vs_transaction_level(void **state)
{
    (void)state;
    g_ck_outstanding = 0;
    for (unsigned seed = 0; seed < 8; seed++) {
        trbu_stats a, b, c;
        uint64_t ha = run_random(seed, true, false, &a);
        uint64_t hb = run_random(seed, false, false, &b);
        uint64_t hc = run_random(seed, false, true, &c);
        if (ha != hb || hb != hc)
            fprintf(stderr, "seed %u: written %llu %llu %llu stall %llu %llu %llu lat %llu %llu %llu "
                    "irq %llu %llu %llu\n", seed, (unsigned long long)a.bytes_written,
                    (unsigned long long)b.bytes_written, (unsigned long long)c.bytes_written,
                    (unsigned long long)a.writer_stall_cycles, (unsigned long long)b.writer_stall_cycles,
                    (unsigned long long)c.writer_stall_cycles, (unsigned long long)a.write_latency_sum,
                    (unsigned long long)b.write_latency_sum, (unsigned long long)c.write_latency_sum,
                    (unsigned long long)a.irq_rises, (unsigned long long)b.irq_rises,
                    (unsigned long long)c.irq_rises);
        assert_true(ha == hb);
        assert_true(hb == hc);
        assert_true(a.port_writes > 100);
        assert_true(a.writer_stall_cycles > 0);
        assert_true(a.write_latency_max > 0);
        trbu_stats *v[] = { &b, &c };
        for (unsigned i = 0; i < 2; i++) {
            assert_int_equal(a.bytes_accepted, v[i]->bytes_accepted);
            assert_int_equal(a.bytes_written, v[i]->bytes_written);
            assert_int_equal(a.bytes_discarded, v[i]->bytes_discarded);
            assert_int_equal(a.port_writes, v[i]->port_writes);
            assert_int_equal(a.wraps, v[i]->wraps);
            assert_int_equal(a.trigger_events, v[i]->trigger_events);
            assert_int_equal(a.management_events, v[i]->management_events);
            assert_int_equal(a.irq_rises, v[i]->irq_rises);
            assert_int_equal(a.buf_bytes_max, v[i]->buf_bytes_max);
            assert_int_equal(a.writer_stall_cycles, v[i]->writer_stall_cycles);
            assert_int_equal(a.outstanding_writes_max, v[i]->outstanding_writes_max);
            assert_int_equal(a.write_latency_min, v[i]->write_latency_min);
            assert_int_equal(a.write_latency_max, v[i]->write_latency_max);
            assert_int_equal(a.write_latency_sum, v[i]->write_latency_sum);
        }
        /* Every byte taken is written, discarded with a reason, or was refused and offered again. */
        assert_int_equal(a.bytes_in, a.bytes_accepted + a.bytes_refused + a.discarded[TRBU_DISCARD_DISABLED] +
                                         a.discarded[TRBU_DISCARD_STOPPED]);
        assert_int_equal(a.bytes_accepted + a.bytes_padded, a.bytes_written + a.bytes_discarded -
                                         a.discarded[TRBU_DISCARD_DISABLED] -
                                         a.discarded[TRBU_DISCARD_STOPPED]);
    }
    assert_true(g_ck_outstanding >= 8);  /* the checkpoints did carry writes in flight */
}

static void test_config_outstanding_range(void **state)
{
    (void)state;
    trbu_config cfg;
    trbu_config_default(&cfg);
    assert_int_equal(cfg.max_outstanding_writes, 1);
    char why[128];
    cfg.max_outstanding_writes = 0;
    assert_int_equal(trbu_config_validate(&cfg, why, sizeof(why)), ARMPROF_ERR_CFG_RANGE);
    assert_true(strstr(why, "max_outstanding_writes") != NULL);
    cfg.max_outstanding_writes = 1025;
    assert_int_equal(trbu_config_validate(&cfg, why, sizeof(why)), ARMPROF_ERR_CFG_RANGE);
    cfg.max_outstanding_writes = 1024;
    assert_int_equal(trbu_config_validate(&cfg, why, sizeof(why)), ARMPROF_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_latency_identity),
        cmocka_unit_test(test_scenarios_distinct),
        cmocka_unit_test(test_one_unit_latency),
        cmocka_unit_test(test_fill_latency_cycles),
        cmocka_unit_test(test_fault_with_writes_in_flight),
        cmocka_unit_test(test_answers_after_other_stop),
        cmocka_unit_test(test_pending_complete),
        cmocka_unit_test(test_trigger_and_csync_with_latency),
        cmocka_unit_test(test_cycle_vs_transaction_level),
        cmocka_unit_test(test_config_outstanding_range),
    };
    return cmocka_run_group_tests_name("trbu_timing", tests, NULL, NULL);
}
#endif
