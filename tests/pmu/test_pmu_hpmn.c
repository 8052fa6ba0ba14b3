/* SPDX-License-Identifier: Apache-2.0 */
/* test_pmu_hpmn.c: MDCR_EL2.HPMN counter ranges, rule by rule (PMUCounterIsHyp, CountPMUEvents, GetNumEventCountersAccessible, CheckForPMUOverflow, SPEFreezeOnEvent). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "armprof/bits.h"
#include "armprof/pmu.h"

#define N 6
#define HPMN 4 /* counters 4 and 5 reserved for EL2 */
#define EVT_NSH AP_BIT(27)
#define PMCR_E AP_BIT(0)
#define PMCR_P AP_BIT(1)
#define PMCR_LP AP_BIT(7)
#define PMCR_FZS AP_BIT(32)
#define EV 0x4000 /* SAMPLE_POP */

static bool irq_level;
static void on_irq(void *u, bool level) { (void)u; irq_level = level; }

/* A PMU of N counters; the context: Non-secure, EL2 and EL3 implemented, HPMN = 4. */
static pmu_t *open_pmu(armprof_pe_ctx *c)
{
    pmu_config cfg;
    pmu_config_default(&cfg);
    cfg.num_counters = N;
    armprof_host_ops ops = { .irq = on_irq };
    pmu_t *p = NULL;
    assert_int_equal(pmu_open(&cfg, &ops, &p), ARMPROF_OK);
    armprof_pe_ctx_default(c);
    c->mdcr2_hpmn = HPMN;
    c->mdcr3_spme = true;
    return p;
}

static void set_ctx(pmu_t *p, const armprof_pe_ctx *c) { assert_int_equal(pmu_set_pe_context(p, c), ARMPROF_OK); }

static uint64_t peek(pmu_t *p, uint32_t enc)
{
    uint64_t v = 0;
    assert_int_equal(pmu_reg_peek(p, enc, &v), ARMPROF_OK);
    return v;
}

/* Program every counter on EV (NSH = 1 so that EL2 is not filtered out) and enable them all;
 * done at EL2, where every counter is accessible. */
static void program_all(pmu_t *p, armprof_pe_ctx *c, uint64_t pmcr)
{
    uint8_t el = c->el;
    c->el = 2;
    set_ctx(p, c);
    for (unsigned i = 0; i < N; i++)
        assert_int_equal(pmu_reg_write(p, PMU_PMEVTYPER_EL0(i), EV | EVT_NSH), ARMPROF_OK);
    assert_int_equal(pmu_reg_write(p, PMU_PMCNTENSET_EL0, AP_GENMASK(N - 1, 0)), ARMPROF_OK);
    assert_int_equal(pmu_reg_write(p, PMU_PMCR_EL0, pmcr), ARMPROF_OK);
    c->el = el;
    set_ctx(p, c);
}

/* ----- CountPMUEvents with counter ranges, one row per rule ---------------------------------- */

typedef struct count_row {
    const char *rule;
    uint8_t el;
    bool have_el2;
    bool secure_no_eel2; /* Secure state with SCR_EL3.EEL2 == 0: EL2 disabled there */
    uint8_t hpmn;
    bool e, hpme, hpmd;
    unsigned idx;
    bool counts;
} count_row;

static const count_row count_rows[] = {
    { "first range: PMCR_EL0.E enables", 1, true, false, HPMN, true, false, false, 0, true },
    { "first range: MDCR_EL2.HPME does not enable", 1, true, false, HPMN, false, true, false, 0, false },
    { "first range: last counter below HPMN", 1, true, false, HPMN, true, false, false, HPMN - 1, true },
    { "second range (n == HPMN): PMCR_EL0.E does not enable", 1, true, false, HPMN, true, false, false, HPMN, false },
    { "second range: MDCR_EL2.HPME enables", 1, true, false, HPMN, false, true, false, 5, true },
    { "second range: counts at EL0 with HPME", 0, true, false, HPMN, false, true, false, 5, true },
    { "EL2, first range: MDCR_EL2.HPMD prohibits", 2, true, false, HPMN, true, true, true, 0, false },
    { "EL2, first range: HPMD == 0 counts", 2, true, false, HPMN, true, true, false, 0, true },
    { "EL2, second range: HPMD does not prohibit", 2, true, false, HPMN, true, true, true, 5, true },
    { "EL1: HPMD only applies at EL2", 1, true, false, HPMN, true, true, true, 0, true },
    { "HPMN = N (ARMPROF_MDCR2_HPMN_N): no second range", 1, true, false, ARMPROF_MDCR2_HPMN_N, true, false, false, 5, true },
    { "HPMN > N: as N", 1, true, false, N + 3, true, false, false, 5, true },
    { "HPMN = 0: every counter EL2's", 1, true, false, 0, true, false, false, 0, false },
    { "EL2 not implemented: HPMN ignored", 1, false, false, HPMN, true, false, false, 5, true },
    { "EL2 disabled in Secure state: still reserved (HaveEL(EL2))", 1, true, true, HPMN, true, false, false, 5, false },
    { "EL2 disabled in Secure state: HPME enables", 1, true, true, HPMN, false, true, false, 5, true },
};

static void test_count_pmu_events_ranges(void **st)
{
    (void)st;
    for (size_t r = 0; r < sizeof(count_rows) / sizeof(count_rows[0]); r++) {
        const count_row *row = &count_rows[r];
        armprof_pe_ctx c;
        pmu_t *p = open_pmu(&c);
        c.have_el2 = row->have_el2;
        c.mdcr2_hpmn = row->hpmn;
        c.mdcr2_hpme = row->hpme;
        c.mdcr2_hpmd = row->hpmd;
        if (row->secure_no_eel2) {
            c.scr_ns = false;
            c.scr_eel2 = false;
        }
        program_all(p, &c, row->e ? PMCR_E : 0);
        c.el = row->el;
        set_ctx(p, &c);
        pmu_count_event(p, EV, 5);
        uint64_t v = peek(p, PMU_PMEVCNTR_EL0(row->idx));
        if (v != (row->counts ? 5u : 0u))
            fail_msg("%s: PMEVCNTR%u_EL0 = %llu", row->rule, row->idx, (unsigned long long)v);
        pmu_close(p);
    }
}

/* ----- GetNumEventCountersAccessible: PMCR_EL0.N and the counter registers ------------------- */

typedef struct access_row {
    const char *rule;
    uint8_t el;
    bool have_el2, secure_no_eel2;
    unsigned n_read;       /* PMCR_EL0.N as read */
    bool evcntr5_ok;       /* PMEVCNTR5_EL0 accessible */
} access_row;

static const access_row access_rows[] = {
    { "EL1, EL2 enabled: N reads HPMN, EL2's counters UNDEFINED", 1, true, false, HPMN, false },
    { "EL0 (PMUSERENR_EL0.EN), EL2 enabled: as EL1", 0, true, false, HPMN, false },
    { "EL2: N and every counter", 2, true, false, N, true },
    { "EL3: N and every counter", 3, true, false, N, true },
    { "EL1, EL2 not implemented: N", 1, false, false, N, true },
    { "EL1 Secure, EL2 disabled (SCR_EL3.EEL2 == 0): N, second range accessible", 1, true, true, N, true },
};

static void test_counters_accessible(void **st)
{
    (void)st;
    for (size_t r = 0; r < sizeof(access_rows) / sizeof(access_rows[0]); r++) {
        const access_row *row = &access_rows[r];
        armprof_pe_ctx c;
        pmu_t *p = open_pmu(&c);
        c.el = 1;
        set_ctx(p, &c);
        assert_int_equal(pmu_reg_write(p, PMU_PMUSERENR_EL0, 1), ARMPROF_OK); /* EN */
        c.el = row->el;
        c.have_el2 = row->have_el2;
        if (row->secure_no_eel2) {
            c.scr_ns = false;
            c.scr_eel2 = false;
        }
        set_ctx(p, &c);
        uint64_t pmcr = 0, v = 0;
        assert_int_equal(pmu_reg_read(p, PMU_PMCR_EL0, &pmcr), ARMPROF_OK);
        if (((pmcr >> 11) & 0x1F) != row->n_read)
            fail_msg("%s: PMCR_EL0.N = %llu", row->rule, (unsigned long long)((pmcr >> 11) & 0x1F));
        armprof_err want = row->evcntr5_ok ? ARMPROF_OK : ARMPROF_ERR_UNDEFINED;
        if (pmu_reg_read(p, PMU_PMEVCNTR_EL0(5), &v) != want ||
            pmu_reg_write(p, PMU_PMEVTYPER_EL0(5), EV) != want)
            fail_msg("%s: PMEVCNTR5_EL0 / PMEVTYPER5_EL0 access", row->rule);
        /* PMXEVCNTR_EL0 with PMSELR_EL0.SEL = 5 follows the same rule */
        assert_int_equal(pmu_reg_write(p, PMU_PMSELR_EL0, 5), ARMPROF_OK);
        if (pmu_reg_read(p, PMU_PMXEVCNTR_EL0, &v) != want)
            fail_msg("%s: PMXEVCNTR_EL0 with SEL = 5", row->rule);
        /* a first-range counter is always accessible */
        assert_int_equal(pmu_reg_read(p, PMU_PMEVCNTR_EL0(HPMN - 1), &v), ARMPROF_OK);
        pmu_close(p);
    }
}

/* PMCNTENSET_EL0 bits [N-1:HPMN] are RAZ/WI at EL1 with EL2 enabled; EL2 sees and sets them. */
static void test_counter_bits_raz_wi_at_el1(void **st)
{
    (void)st;
    armprof_pe_ctx c;
    pmu_t *p = open_pmu(&c);
    set_ctx(p, &c); /* EL1 */
    assert_int_equal(pmu_reg_write(p, PMU_PMCNTENSET_EL0, ~0ull), ARMPROF_OK);
    uint64_t v = 0;
    assert_int_equal(pmu_reg_read(p, PMU_PMCNTENSET_EL0, &v), ARMPROF_OK);
    assert_int_equal(v & AP_GENMASK(30, 0), AP_GENMASK(HPMN - 1, 0));
    c.el = 2;
    set_ctx(p, &c);
    assert_int_equal(pmu_reg_read(p, PMU_PMCNTENSET_EL0, &v), ARMPROF_OK);
    assert_int_equal(v & AP_GENMASK(30, 0), AP_GENMASK(HPMN - 1, 0)); /* the EL1 write was WI */
    assert_int_equal(pmu_reg_write(p, PMU_PMCNTENSET_EL0, AP_BIT(5)), ARMPROF_OK);
    c.el = 1;
    set_ctx(p, &c);
    assert_int_equal(pmu_reg_write(p, PMU_PMCNTENCLR_EL0, ~0ull), ARMPROF_OK); /* bit 5 WI */
    c.el = 2;
    set_ctx(p, &c);
    assert_int_equal(pmu_reg_read(p, PMU_PMCNTENSET_EL0, &v), ARMPROF_OK);
    assert_int_equal(v & AP_GENMASK(30, 0), AP_BIT(5));
    pmu_close(p);
}

/* PMCR_EL0.P from EL1 resets the first range only; from EL2 every event counter. PMSWINC_EL0
 * bits of EL2's counters are WI from EL1. */
static void test_pmcr_p_by_range(void **st)
{
    (void)st;
    armprof_pe_ctx c;
    pmu_t *p = open_pmu(&c);
    c.mdcr2_hpme = true;
    program_all(p, &c, PMCR_E);
    pmu_count_event(p, EV, 7);
    assert_int_equal(pmu_reg_write(p, PMU_PMCR_EL0, PMCR_E | PMCR_P), ARMPROF_OK); /* at EL1 */
    assert_int_equal(peek(p, PMU_PMEVCNTR_EL0(0)), 0);
    assert_int_equal(peek(p, PMU_PMEVCNTR_EL0(HPMN - 1)), 0);
    assert_int_equal(peek(p, PMU_PMEVCNTR_EL0(HPMN)), 7);
    assert_int_equal(peek(p, PMU_PMEVCNTR_EL0(5)), 7);
    c.el = 2;
    set_ctx(p, &c);
    assert_int_equal(pmu_reg_write(p, PMU_PMCR_EL0, PMCR_E | PMCR_P), ARMPROF_OK);
    assert_int_equal(peek(p, PMU_PMEVCNTR_EL0(5)), 0);
    /* PMSWINC_EL0 bits of EL2's counters are WI from EL1: SW_INCR on counters 0 and 5 */
    assert_int_equal(pmu_reg_write(p, PMU_PMEVTYPER_EL0(0), PMU_EV_SW_INCR | EVT_NSH), ARMPROF_OK);
    assert_int_equal(pmu_reg_write(p, PMU_PMEVTYPER_EL0(5), PMU_EV_SW_INCR | EVT_NSH), ARMPROF_OK); /* NSH: count at EL2 */
    c.el = 1;
    set_ctx(p, &c);
    assert_int_equal(pmu_reg_write(p, PMU_PMSWINC_EL0, AP_BIT(0) | AP_BIT(5)), ARMPROF_OK);
    assert_int_equal(peek(p, PMU_PMEVCNTR_EL0(0)), 1);
    assert_int_equal(peek(p, PMU_PMEVCNTR_EL0(5)), 0);
    c.el = 2;
    set_ctx(p, &c);
    assert_int_equal(pmu_reg_write(p, PMU_PMSWINC_EL0, AP_BIT(5)), ARMPROF_OK);
    assert_int_equal(peek(p, PMU_PMEVCNTR_EL0(5)), 1);
    pmu_close(p);
}

/* ----- Overflow width (PMCR_EL0.LP / MDCR_EL2.HLP) and PMUIRQ (CheckForPMUOverflow) ---------- */

typedef struct irq_row {
    const char *rule;
    unsigned idx;
    bool e, hpme, lp, hlp;
    bool ovf;   /* overflow flag after 2^32 - v0 + 1 increments from 0xFFFFFFFF */
    bool irq;
} irq_row;

static const irq_row irq_rows[] = {
    { "first range, LP = 0: overflow at bit 31; PMCR_EL0.E drives PMUIRQ", 0, true, false, false, true, true, true },
    { "first range, LP = 1: no overflow at bit 31", 0, true, false, true, false, false, false },
    { "second range, HLP = 0: overflow at bit 31, whatever LP", 5, false, true, true, false, true, true },
    { "second range, HLP = 1: no overflow at bit 31", 5, false, true, false, true, false, false },
    { "second range: PMCR_EL0.E neither counts nor interrupts", 5, true, false, false, false, false, false },
};

static void test_overflow_width_and_pmuirq(void **st)
{
    (void)st;
    for (size_t r = 0; r < sizeof(irq_rows) / sizeof(irq_rows[0]); r++) {
        const irq_row *row = &irq_rows[r];
        armprof_pe_ctx c;
        pmu_t *p = open_pmu(&c);
        c.mdcr2_hpme = row->hpme;
        c.mdcr2_hlp = row->hlp;
        irq_level = false;
        program_all(p, &c, (row->e ? PMCR_E : 0) | (row->lp ? PMCR_LP : 0));
        c.el = 2;
        set_ctx(p, &c);
        assert_int_equal(pmu_reg_write(p, PMU_PMINTENSET_EL1, AP_BIT(row->idx)), ARMPROF_OK);
        assert_int_equal(pmu_reg_write(p, PMU_PMEVCNTR_EL0(row->idx), 0xFFFFFFFFull), ARMPROF_OK);
        pmu_count_event(p, EV, 1);
        bool ovf = peek(p, PMU_PMOVSSET_EL0) & AP_BIT(row->idx);
        if (ovf != row->ovf || irq_level != row->irq || pmu_irq_level(p) != row->irq)
            fail_msg("%s: overflow %d PMUIRQ %d", row->rule, ovf, irq_level);
        pmu_close(p);
    }
}

/* CheckForPMUOverflow: a second-range overflow raises PMUIRQ only with MDCR_EL2.HPME, a first
 * range one only with PMCR_EL0.E; changing the enable moves the level. */
static void test_pmuirq_follows_each_range_enable(void **st)
{
    (void)st;
    armprof_pe_ctx c;
    pmu_t *p = open_pmu(&c);
    c.el = 2;
    set_ctx(p, &c);
    irq_level = false;
    assert_int_equal(pmu_reg_write(p, PMU_PMINTENSET_EL1, AP_BIT(0) | AP_BIT(5)), ARMPROF_OK);
    assert_int_equal(pmu_reg_write(p, PMU_PMOVSSET_EL0, AP_BIT(5)), ARMPROF_OK);
    assert_int_equal(pmu_reg_write(p, PMU_PMCR_EL0, PMCR_E), ARMPROF_OK);
    assert_false(irq_level); /* E alone: counter 5's flag does not count */
    c.mdcr2_hpme = true;
    set_ctx(p, &c);
    assert_true(irq_level); /* HPME: it does */
    assert_int_equal(pmu_reg_write(p, PMU_PMCR_EL0, 0), ARMPROF_OK);
    assert_true(irq_level); /* PMCR_EL0.E does not gate EL2's counters */
    assert_int_equal(pmu_reg_write(p, PMU_PMOVSCLR_EL0, AP_BIT(5)), ARMPROF_OK);
    assert_false(irq_level);
    assert_int_equal(pmu_reg_write(p, PMU_PMOVSSET_EL0, AP_BIT(0)), ARMPROF_OK);
    assert_false(irq_level); /* counter 0 needs PMCR_EL0.E */
    assert_int_equal(pmu_reg_write(p, PMU_PMCR_EL0, PMCR_E), ARMPROF_OK);
    assert_true(irq_level);
    pmu_close(p);
}

/* SPEFreezeOnEvent: PMCR_EL0.FZS freezes the first range, MDCR_EL2.HPMFZS the second. */
static void test_spe_freeze_by_range(void **st)
{
    (void)st;
    static const struct {
        bool fzs, hpmfzs, frozen0, frozen5;
    } rows[] = { { true, false, true, false }, { false, true, false, true }, { true, true, true, true },
                 { false, false, false, false } };
    for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
        armprof_pe_ctx c;
        pmu_t *p = open_pmu(&c);
        c.mdcr2_hpme = true;
        c.mdcr2_hpmfzs = rows[r].hpmfzs;
        program_all(p, &c, PMCR_E | (rows[r].fzs ? PMCR_FZS : 0));
        pmu_set_spe_freeze(p, true);
        pmu_count_event(p, EV, 3);
        assert_int_equal(peek(p, PMU_PMEVCNTR_EL0(0)), rows[r].frozen0 ? 0 : 3);
        assert_int_equal(peek(p, PMU_PMEVCNTR_EL0(5)), rows[r].frozen5 ? 0 : 3);
        pmu_set_spe_freeze(p, false);
        pmu_count_event(p, EV, 2);
        assert_int_equal(peek(p, PMU_PMEVCNTR_EL0(5)), rows[r].frozen5 ? 2 : 5);
        pmu_close(p);
    }
}

/* armprof_pe_ctx_default(): MDCR_EL2.HPMN resets to PMCR_EL0.N, so every counter is EL1's. */
static void test_default_context_hpmn_is_n(void **st)
{
    (void)st;
    armprof_pe_ctx c;
    armprof_pe_ctx_default(&c);
    assert_int_equal(c.mdcr2_hpmn, ARMPROF_MDCR2_HPMN_N);
    pmu_config cfg;
    pmu_config_default(&cfg);
    pmu_t *p = NULL;
    assert_int_equal(pmu_open(&cfg, NULL, &p), ARMPROF_OK); /* pmu_open uses the default context */
    uint64_t pmcr = 0, v = 0;
    assert_int_equal(pmu_reg_read(p, PMU_PMCR_EL0, &pmcr), ARMPROF_OK); /* EL1, EL2 enabled */
    assert_int_equal((pmcr >> 11) & 0x1F, cfg.num_counters);
    assert_int_equal(pmu_reg_read(p, PMU_PMEVCNTR_EL0(cfg.num_counters - 1), &v), ARMPROF_OK);
    pmu_close(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_count_pmu_events_ranges),
        cmocka_unit_test(test_counters_accessible),
        cmocka_unit_test(test_counter_bits_raz_wi_at_el1),
        cmocka_unit_test(test_pmcr_p_by_range),
        cmocka_unit_test(test_overflow_width_and_pmuirq),
        cmocka_unit_test(test_pmuirq_follows_each_range_enable),
        cmocka_unit_test(test_spe_freeze_by_range),
        cmocka_unit_test(test_default_context_hpmn_is_n),
    };
    return cmocka_run_group_tests_name("pmu_hpmn", tests, NULL, NULL);
}
