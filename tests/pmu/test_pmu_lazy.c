/* SPDX-License-Identifier: Apache-2.0 */
/* test_pmu_lazy.c: the PMU's cached enables and lazy cycle counting against its reference mode (CountPMUEvents afresh, every cycle at once) under random register writes, PE-context changes, freezes, events and time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "armprof/pmu.h"
#include "armprof/bits.h"
#include "pmu/pmu_internal.h"

typedef struct side {
    pmu_t *pmu;
    bool irq;
    unsigned edges;
} side;

static void on_irq(void *user, bool level)
{
    side *s = user;
    s->irq = level;
    s->edges++;
}

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static uint64_t below(uint64_t n) { return rnd() % n; }

static const uint16_t events[] = { PMU_EV_SW_INCR, PMU_EV_INST_RETIRED, PMU_EV_CPU_CYCLES,
                                   ARMPROF_EV_SAMPLE_POP, ARMPROF_EV_SAMPLE_FEED,
                                   ARMPROF_EV_PMU_SNAPSHOT };
#define NEV (sizeof(events) / sizeof(events[0]))

/* Every register of the configuration, peeked on both sides (a peek settles the lazy side, so
 * the caller does it only now and then). */
static void compare_all(side *a, side *b, unsigned seed, unsigned step)
{
    size_t n = pmu_reg_count(a->pmu);
    assert_int_equal(n, pmu_reg_count(b->pmu));
    for (size_t i = 0; i < n; i++) {
        pmu_reg_info info;
        assert_int_equal(pmu_reg_info_at(a->pmu, i, &info), ARMPROF_OK);
        uint64_t va = 0, vb = 0;
        armprof_err ea = pmu_reg_peek(a->pmu, info.enc, &va);
        armprof_err eb = pmu_reg_peek(b->pmu, info.enc, &vb);
        if (ea != eb || va != vb)
            fail_msg("seed %u step %u: %s fast=%#llx (%d) reference=%#llx (%d)", seed, step, info.name,
                     (unsigned long long)va, ea, (unsigned long long)vb, eb);
    }
    pmu_stats sa, sb;
    pmu_get_stats(a->pmu, &sa);
    pmu_get_stats(b->pmu, &sb);
    assert_memory_equal(&sa, &sb, sizeof(sa));
}

/* A random register write, the same on both sides; both answer the same. */
static void random_write(side *s[2], unsigned ncnt)
{
    uint32_t enc;
    uint64_t v;
    unsigned n = (unsigned)below(ncnt + 1); /* one past N: an UNDEFINED access */
    switch (below(12)) {
    case 0: /* E, P, C, LC, LP, DP, FZS */
        enc = PMU_PMCR_EL0;
        v = rnd() & (AP_BIT(0) | AP_BIT(1) | AP_BIT(2) | AP_BIT(5) | AP_BIT(6) | AP_BIT(7) | AP_BIT(32));
        if (below(3))
            v |= 1; /* mostly enabled */
        break;
    case 1:
        enc = PMU_PMCNTENSET_EL0;
        v = rnd();
        break;
    case 2:
        enc = PMU_PMCNTENCLR_EL0;
        v = rnd() & rnd();
        break;
    case 3: { /* event and filter bits P, U, NSK, NSU, NSH, M, SH */
        enc = PMU_PMEVTYPER_EL0(n);
        v = events[below(NEV)] | (below(4) ? 0 : (rnd() & AP_GENMASK(31, 24)));
        break;
    }
    case 4:
        enc = PMU_PMCCFILTR_EL0;
        v = below(4) ? 0 : (rnd() & AP_GENMASK(31, 24));
        break;
    case 5: /* a counter near an overflow at bit 31 or 63 */
        enc = PMU_PMEVCNTR_EL0(n);
        v = (below(2) ? 0xFFFFFFFFull : ~0ull) - below(3000);
        break;
    case 6:
        enc = PMU_PMCCNTR_EL0;
        v = (below(2) ? 0xFFFFFFFFull : ~0ull) - below(3000);
        break;
    case 7:
        enc = below(2) ? PMU_PMINTENSET_EL1 : PMU_PMINTENCLR_EL1;
        v = rnd();
        break;
    case 8:
        enc = PMU_PMOVSCLR_EL0;
        v = rnd();
        break;
    case 9:
        enc = PMU_PMSWINC_EL0;
        v = rnd();
        break;
    case 10:
        enc = PMU_PMSSCR_EL1; /* a Capture request */
        v = 1;
        break;
    default:
        enc = PMU_PMICNTR_EL0;
        v = ~0ull - below(3000);
        break;
    }
    armprof_err e0 = pmu_reg_write(s[0]->pmu, enc, v);
    armprof_err e1 = pmu_reg_write(s[1]->pmu, enc, v);
    assert_int_equal(e0, e1);
}

static void random_ctx(armprof_pe_ctx *c, unsigned ncnt)
{
    armprof_pe_ctx_default(c);
    c->el = (uint8_t)below(4);
    c->scr_ns = below(4) != 0;
    c->scr_eel2 = below(2);
    c->have_el2 = below(5) != 0;
    c->debug_state = below(10) == 0;
    c->mdcr3_spme = below(2);
    unsigned h = (unsigned)below(ncnt + 3);
    c->mdcr2_hpmn = h == ncnt + 2 ? ARMPROF_MDCR2_HPMN_N : (uint8_t)h;
    c->mdcr2_hpme = below(2);
    c->mdcr2_hpmd = below(3) == 0;
    c->mdcr2_hlp = below(2);
    c->mdcr2_hpmfzs = below(2);
}

static void run_seed(unsigned seed, unsigned steps)
{
    rng_state = 0x9E3779B97F4A7C15ull ^ ((uint64_t)seed * 0x100000001B3ull);
    pmu_config cfg;
    pmu_config_default(&cfg);
    cfg.num_counters = (uint8_t)(1 + below(8));
    cfg.feat_pmuv3p5 = below(4) != 0; /* sometimes 32-bit event counters */
    cfg.feat_spe_dpfzs = below(2);
    cfg.capture_cycles = (uint32_t)below(20);
    side fast = { 0 }, ref = { 0 };
    side *s[2] = { &fast, &ref };
    for (int k = 0; k < 2; k++) {
        armprof_host_ops ops = { .irq = on_irq, .user = s[k] };
        assert_int_equal(pmu_open(&cfg, &ops, &s[k]->pmu), ARMPROF_OK);
    }
    pmu_set_reference_mode(ref.pmu, true);
    armprof_pe_ctx ctx;
    armprof_pe_ctx_default(&ctx);
    for (unsigned step = 0; step < steps; step++) {
        unsigned what = (unsigned)below(100);
        if (what < 30) {
            uint16_t ev = events[below(NEV)];
            uint64_t n = below(8) ? 1 + below(1000) : below(1ull << 33);
            pmu_count_event(fast.pmu, ev, n);
            pmu_count_event(ref.pmu, ev, n);
        } else if (what < 60) {
            uint64_t c = below(10) ? 1 + below(3000) : below(1ull << 33);
            pmu_advance(fast.pmu, c);
            pmu_advance(ref.pmu, c);
        } else if (what < 82) {
            random_write(s, cfg.num_counters);
        } else if (what < 88) {
            random_ctx(&ctx, cfg.num_counters);
            assert_int_equal(pmu_set_pe_context(fast.pmu, &ctx), ARMPROF_OK);
            assert_int_equal(pmu_set_pe_context(ref.pmu, &ctx), ARMPROF_OK);
        } else if (what < 93) {
            bool fz = below(2);
            pmu_set_spe_freeze(fast.pmu, fz);
            pmu_set_spe_freeze(ref.pmu, fz);
        } else if (what < 95) {
            pmu_request_result r0 = pmu_snapshot_request(fast.pmu);
            pmu_request_result r1 = pmu_snapshot_request(ref.pmu);
            assert_int_equal(r0, r1);
        } else if (what < 96) {
            pmu_reset(fast.pmu);
            pmu_reset(ref.pmu);
        } else if (what < 98) {
            /* a read by software: the same answer, and the lazy side settles */
            uint32_t enc = below(2) ? PMU_PMCCNTR_EL0 : PMU_PMEVCNTR_EL0(below(cfg.num_counters));
            uint64_t v0 = 1, v1 = 2;
            armprof_err e0 = pmu_reg_read(fast.pmu, enc, &v0);
            armprof_err e1 = pmu_reg_read(ref.pmu, enc, &v1);
            assert_int_equal(e0, e1);
            if (e0 == ARMPROF_OK && v0 != v1)
                fail_msg("seed %u step %u: read %#x fast=%#llx reference=%#llx", seed, step, enc,
                         (unsigned long long)v0, (unsigned long long)v1);
        } else {
            compare_all(&fast, &ref, seed, step);
        }
        /* PMUIRQ and the next event agree after every call, without settling anything */
        if (fast.irq != ref.irq || fast.edges != ref.edges)
            fail_msg("seed %u step %u: PMUIRQ fast=%d (%u edges) reference=%d (%u edges)", seed, step,
                     fast.irq, fast.edges, ref.irq, ref.edges);
        assert_int_equal(pmu_irq_level(fast.pmu), pmu_irq_level(ref.pmu));
        assert_int_equal(pmu_cycles_to_next_event(fast.pmu), pmu_cycles_to_next_event(ref.pmu));
        if (pmu_cycles_to_overflow(fast.pmu) != pmu_cycles_to_overflow(ref.pmu))
            fail_msg("seed %u step %u (op %u): cycles to overflow fast=%llu reference=%llu", seed, step,
                     what, (unsigned long long)pmu_cycles_to_overflow(fast.pmu),
                     (unsigned long long)pmu_cycles_to_overflow(ref.pmu));
        assert_int_equal(pmu_now(fast.pmu), pmu_now(ref.pmu));
    }
    compare_all(&fast, &ref, seed, steps);
    pmu_close(fast.pmu);
    pmu_close(ref.pmu);
}

static void test_fast_equals_reference_random(void **st)
{
    (void)st;
    for (unsigned seed = 1; seed <= 300; seed++)
        run_seed(seed, 1500);
}

/* The lazy side really is lazy: many advances with nothing due change no counter until a read,
 * and the read gives the sum; an overflow due inside an advance is flagged in that call. */
static void test_lazy_cycles_settle_on_read_and_overflow(void **st)
{
    (void)st;
    pmu_config cfg;
    pmu_config_default(&cfg);
    side s = { 0 };
    armprof_host_ops ops = { .irq = on_irq, .user = &s };
    assert_int_equal(pmu_open(&cfg, &ops, &s.pmu), ARMPROF_OK);
    assert_int_equal(pmu_reg_write(s.pmu, PMU_PMEVTYPER_EL0(0), PMU_EV_CPU_CYCLES), ARMPROF_OK);
    assert_int_equal(pmu_reg_write(s.pmu, PMU_PMCNTENSET_EL0, AP_BIT(0) | AP_BIT(31)), ARMPROF_OK);
    assert_int_equal(pmu_reg_write(s.pmu, PMU_PMINTENSET_EL1, AP_BIT(0)), ARMPROF_OK);
    assert_int_equal(pmu_reg_write(s.pmu, PMU_PMCR_EL0, 1), ARMPROF_OK); /* E; LP = 0: bit 31 */
    assert_int_equal(pmu_reg_write(s.pmu, PMU_PMEVCNTR_EL0(0), 0xFFFFFFFFull - 999), ARMPROF_OK);
    assert_int_equal(pmu_cycles_to_overflow(s.pmu), 1000);
    for (int i = 0; i < 999; i++)
        pmu_advance(s.pmu, 1);
    assert_false(s.irq);
    assert_int_equal(pmu_cycles_to_overflow(s.pmu), 1);
    uint64_t v = 0;
    assert_int_equal(pmu_reg_read(s.pmu, PMU_PMEVCNTR_EL0(0), &v), ARMPROF_OK);
    assert_int_equal(v, 0xFFFFFFFFull);
    pmu_advance(s.pmu, 1); /* the 1000th cycle: overflow at bit 31, PMUIRQ at once */
    assert_true(s.irq);
    assert_int_equal(pmu_reg_read(s.pmu, PMU_PMOVSSET_EL0, &v), ARMPROF_OK);
    assert_int_equal(v & AP_BIT(0), AP_BIT(0));
    assert_int_equal(pmu_reg_read(s.pmu, PMU_PMCCNTR_EL0, &v), ARMPROF_OK);
    assert_int_equal(v, 1000);
    pmu_close(s.pmu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fast_equals_reference_random),
        cmocka_unit_test(test_lazy_cycles_settle_on_read_and_overflow),
    };
    return cmocka_run_group_tests_name("pmu_lazy", tests, NULL, NULL);
}
