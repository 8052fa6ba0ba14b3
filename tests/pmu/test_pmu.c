/* SPDX-License-Identifier: Apache-2.0 */
/* test_pmu.c: PMU counters and PMU snapshots against Arm ARM D13.9 (RSCLCQ, RMFJWS, RYWLFL, RTSYTY). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "armprof/pmu.h"

#define PMCR_E (1ull << 0)
#define PMCR_P (1ull << 1)
#define PMCR_C (1ull << 2)
#define PMCR_DP (1ull << 5)
#define PMCR_LC (1ull << 6)
#define PMCR_LP (1ull << 7)
#define PMCR_FZS (1ull << 32)
#define NC (1ull << 32)
#define SS (1ull << 0)
#define SSE(v) ((uint64_t)(v) << 3)
#define CNT_C (1ull << 31)
#define CNT_F0 (1ull << 32)
#define EVT_P (1ull << 31)
#define EVT_U (1ull << 30)
#define EVT_NSK (1ull << 29)
#define EVT_NSH (1ull << 27)

typedef struct fixture {
    pmu_t *pmu;
    pmu_config cfg;
    armprof_pe_ctx ctx;
    int irq_edges;
    bool irq;
} fixture;

static void on_irq(void *user, bool level)
{
    fixture *f = user;
    f->irq = level;
    f->irq_edges++;
}

static void reopen(fixture *f)
{
    if (f->pmu)
        pmu_close(f->pmu);
    armprof_host_ops ops = { .irq = on_irq, .user = f };
    assert_int_equal(pmu_open(&f->cfg, &ops, &f->pmu), ARMPROF_OK);
    assert_int_equal(pmu_set_pe_context(f->pmu, &f->ctx), ARMPROF_OK);
}

static int setup(void **state)
{
    static fixture f;
    memset(&f, 0, sizeof(f));
    pmu_config_default(&f.cfg);
    armprof_pe_ctx_default(&f.ctx);
    reopen(&f);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    pmu_close(f->pmu);
    f->pmu = NULL;
    return 0;
}

static void set_ctx(fixture *f) { assert_int_equal(pmu_set_pe_context(f->pmu, &f->ctx), ARMPROF_OK); }

static uint64_t rd(fixture *f, uint32_t enc)
{
    uint64_t v = 0xdeadbeef;
    assert_int_equal(pmu_reg_read(f->pmu, enc, &v), ARMPROF_OK);
    return v;
}

static void wr(fixture *f, uint32_t enc, uint64_t v)
{
    assert_int_equal(pmu_reg_write(f->pmu, enc, v), ARMPROF_OK);
}

/* Counters 0..3 on events ev[0..3], everything enabled. */
static void program(fixture *f, const uint16_t *ev, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        wr(f, PMU_PMEVTYPER_EL0(i), ev[i]);
    wr(f, PMU_PMCNTENSET_EL0, ((1ull << n) - 1) | CNT_C | CNT_F0);
    wr(f, PMU_PMCR_EL0, PMCR_E | PMCR_LP | PMCR_LC);
}

/* ----- Event numbers, configuration, register table --------------------------------------- */

static void test_event_numbers(void **s)
{
    (void)s;
    /* seed 001 §2.6; Arm ARM D14.3 (PMU_SNAPSHOT 0x8127, TRB_WRAP 0x400C, TRB_TRIG 0x400E) */
    assert_int_equal(ARMPROF_EV_SAMPLE_POP, 0x4000);
    assert_int_equal(ARMPROF_EV_SAMPLE_FEED, 0x4001);
    assert_int_equal(ARMPROF_EV_SAMPLE_FILTRATE, 0x4002);
    assert_int_equal(ARMPROF_EV_SAMPLE_COLLISION, 0x4003);
    assert_int_equal(ARMPROF_EV_TRB_WRAP, 0x400C);
    assert_int_equal(ARMPROF_EV_TRB_TRIG, 0x400E);
    assert_int_equal(ARMPROF_EV_PMU_SNAPSHOT, 0x8127);
}

static void test_config_validate(void **s)
{
    (void)s;
    pmu_config c;
    char why[128];
    pmu_config_default(&c);
    assert_int_equal(pmu_config_validate(&c, why, sizeof why), ARMPROF_OK);
    c.num_counters = 32;
    assert_int_equal(pmu_config_validate(&c, why, sizeof why), ARMPROF_ERR_CFG_RANGE);
    assert_non_null(strstr(why, "num_counters"));
    pmu_config_default(&c);
    c.feat_pmuv3p7 = false;
    assert_int_equal(pmu_config_validate(&c, why, sizeof why), ARMPROF_ERR_CFG_FEATURE);
    pmu_config_default(&c);
    c.feat_spev1p2 = false;
    c.feat_spe_dpfzs = true;
    assert_int_equal(pmu_config_validate(&c, why, sizeof why), ARMPROF_ERR_CFG_FEATURE);
    pmu_t *p = NULL;
    assert_int_equal(pmu_open(&c, NULL, &p), ARMPROF_ERR_CFG_FEATURE);
    assert_null(p);
}

/* REGISTERS.md encodings of the snapshot registers, and the counter encodings of D24.5. */
/* RVLKCZ: as many PMEVCNTSVR<n>_EL1 as event counters (n >= N is UNDEFINED). */
static void test_encodings(void **st)
{
    fixture *f = *st;
    static const struct { const char *name; uint32_t enc; } want[] = {
        { "PMSSCR_EL1", ARMPROF_SYSREG(3, 0, 9, 13, 3) },
        { "PMECR_EL1", ARMPROF_SYSREG(3, 0, 9, 14, 5) },
        { "PMCCNTSVR_EL1", ARMPROF_SYSREG(2, 0, 14, 11, 7) },
        { "PMICNTSVR_EL1", ARMPROF_SYSREG(2, 0, 14, 12, 0) },
        { "PMEVCNTSVR0_EL1", ARMPROF_SYSREG(2, 0, 14, 8, 0) },
        { "PMEVCNTSVR5_EL1", ARMPROF_SYSREG(2, 0, 14, 8, 5) },
        { "PMEVCNTR5_EL0", ARMPROF_SYSREG(3, 3, 14, 8, 5) },
        { "PMEVTYPER5_EL0", ARMPROF_SYSREG(3, 3, 14, 12, 5) },
        { "PMCCFILTR_EL0", ARMPROF_SYSREG(3, 3, 14, 15, 7) },
        { "PMCR_EL0", ARMPROF_SYSREG(3, 3, 9, 12, 0) },
        { "PMCCNTR_EL0", ARMPROF_SYSREG(3, 3, 9, 13, 0) },
        { "PMICNTR_EL0", ARMPROF_SYSREG(3, 3, 9, 4, 0) },
    };
    size_t n = pmu_reg_count(f->pmu);
    for (size_t w = 0; w < sizeof(want) / sizeof(want[0]); w++) {
        bool found = false;
        for (size_t i = 0; i < n; i++) {
            pmu_reg_info ri;
            assert_int_equal(pmu_reg_info_at(f->pmu, i, &ri), ARMPROF_OK);
            if (strcmp(ri.name, want[w].name) == 0) {
                assert_int_equal(ri.enc, want[w].enc);
                found = true;
            }
        }
        assert_true(found);
    }
    /* n >= N: PMEVCNTR6_EL0 with 6 counters is not listed and is UNDEFINED */
    uint64_t v;
    assert_int_equal(pmu_reg_read(f->pmu, PMU_PMEVCNTR_EL0(6), &v), ARMPROF_ERR_UNDEFINED);
    assert_int_equal(pmu_reg_read(f->pmu, PMU_PMEVCNTSVR_EL1(6), &v), ARMPROF_ERR_UNDEFINED);
    /* 22 fixed registers + 3 x 6 per-counter ones */
    assert_int_equal(n, 22 + 3 * 6);
}

/* Walk the table: reset values, RES0 bits never read as 1, read-only registers refuse writes. */
static void test_regtable_walk(void **st)
{
    fixture *f = *st;
    size_t n = pmu_reg_count(f->pmu);
    /* first pass: every reset value (before any write: the *CLR registers read the *SET ones) */
    for (size_t i = 0; i < n; i++) {
        pmu_reg_info ri;
        assert_int_equal(pmu_reg_info_at(f->pmu, i, &ri), ARMPROF_OK);
        uint64_t v;
        if (ri.write_only || ri.enc == PMU_PMXEVTYPER_EL0 || ri.enc == PMU_PMXEVCNTR_EL0)
            continue;
        assert_int_equal(pmu_reg_peek(f->pmu, ri.enc, &v), ARMPROF_OK);
        if (v != ri.reset)
            fail_msg("%s: reset %llx, want %llx", ri.name, (unsigned long long)v,
                     (unsigned long long)ri.reset);
    }
    for (size_t i = 0; i < n; i++) {
        pmu_reg_info ri;
        assert_int_equal(pmu_reg_info_at(f->pmu, i, &ri), ARMPROF_OK);
        uint64_t v;
        if (ri.write_only) {
            assert_int_equal(pmu_reg_read(f->pmu, ri.enc, &v), ARMPROF_ERR_UNDEFINED);
            continue;
        }
        if (ri.read_only) {
            /* no MSR form: UNDEFINED */
            assert_int_equal(pmu_reg_write(f->pmu, ri.enc, ~0ull), ARMPROF_ERR_UNDEFINED);
            continue;
        }
        if (ri.enc == PMU_PMSSCR_EL1 || ri.enc == PMU_PMXEVTYPER_EL0 ||
            ri.enc == PMU_PMXEVCNTR_EL0)
            continue; /* side effects / indirection: tested below */
        assert_int_equal(pmu_reg_write(f->pmu, ri.enc, ~0ull), ARMPROF_OK);
        assert_int_equal(pmu_reg_read(f->pmu, ri.enc, &v), ARMPROF_OK);
        if (v & ri.res0)
            fail_msg("%s: RES0 bits %llx read as 1", ri.name, (unsigned long long)(v & ri.res0));
    }
    /* PMCR_EL0: N = 6 is read-only; P and C read as 0 */
    uint64_t pmcr = rd(f, PMU_PMCR_EL0);
    assert_int_equal((pmcr >> 11) & 0x1f, 6);
    assert_int_equal(pmcr & (PMCR_P | PMCR_C), 0);
    /* PMICFILTR_EL0.evtCount is INST_RETIRED whatever is written */
    assert_int_equal(rd(f, PMU_PMICFILTR_EL0) & 0xffff, PMU_EV_INST_RETIRED);
}

static void test_feature_absent(void **st)
{
    fixture *f = *st;
    f->cfg.feat_pmuv3_ss = false;
    f->cfg.feat_pmuv3_icntr = false;
    reopen(f);
    uint64_t v;
    assert_int_equal(pmu_reg_read(f->pmu, PMU_PMSSCR_EL1, &v), ARMPROF_ERR_NOREG);
    assert_int_equal(pmu_reg_read(f->pmu, PMU_PMCCNTSVR_EL1, &v), ARMPROF_ERR_NOREG);
    assert_int_equal(pmu_reg_read(f->pmu, PMU_PMICNTR_EL0, &v), ARMPROF_ERR_NOREG);
    assert_int_equal(pmu_snapshot_request(f->pmu), PMU_REQ_NOT_IMPLEMENTED);
    assert_int_equal(pmu_capture_state_now(f->pmu), PMU_CAPTURE_DISABLED);
    assert_int_equal(pmu_reg_count(f->pmu), 22 - 6 + 2 * 6);
}

/* ----- Table D13-10 and RYWLFL / RTSYTY ---------------------------------------------------- */

/* Table D13-10, with its "xx" wildcards (-1). */
static const struct { int m3, m2, sse; pmu_capture_state res; } table_d13_10[] = {
    { 0, -1, -1, PMU_CAPTURE_DISABLED },
    { 1, 0, -1, PMU_CAPTURE_DISABLED },
    { 1, 1, 0, PMU_CAPTURE_DISABLED },
    { 1, 1, 2, PMU_CAPTURE_PROHIBITED },
    { 1, 1, 3, PMU_CAPTURE_ALLOWED },
    { 1, 2, -1, PMU_CAPTURE_PROHIBITED },
    { 1, 3, -1, PMU_CAPTURE_ALLOWED },
    { 2, -1, -1, PMU_CAPTURE_PROHIBITED },
    { 3, -1, -1, PMU_CAPTURE_ALLOWED },
};

/* Looks up the table; an EL that is not implemented behaves as its PMSSE == 0b01 (RYWLFL,
 * RTSYTY: "EL3 is not implemented or MDCR_EL3.PMSSE is 0b01"). -1: no row (SSE 0b01). */
static int table_lookup(int m3, int m2, int sse, bool el3, bool el2)
{
    if (!el3)
        m3 = 1;
    if (!el2)
        m2 = 1;
    int hits = 0, res = -1;
    for (size_t i = 0; i < sizeof(table_d13_10) / sizeof(table_d13_10[0]); i++) {
        if (table_d13_10[i].m3 != m3)
            continue;
        if (table_d13_10[i].m2 >= 0 && table_d13_10[i].m2 != m2)
            continue;
        if (table_d13_10[i].sse >= 0 && table_d13_10[i].sse != sse)
            continue;
        hits++;
        res = (int)table_d13_10[i].res;
    }
    assert_true(hits <= 1);
    return res;
}

/* Every row of Table D13-10, every value behind each "xx", every EL2/EL3-implemented combination:
 * the state, and what a write of 1 to PMSSCR_EL1.SS does (RSCLCQ, RMFJWS). */
/* RVPZHN / RDBRSV: every row of Table D13-10. */
static void test_RYWLFL_RTSYTY_table_d13_10(void **st)
{
    fixture *f = *st;
    f->cfg.capture_cycles = 0;
    reopen(f);
    uint16_t ev[1] = { ARMPROF_EV_SAMPLE_POP };
    program(f, ev, 1);
    int rows_seen[3] = { 0 };
    for (int impl = 0; impl < 4; impl++) {
        bool el3 = impl & 1, el2 = impl & 2;
        for (int m3 = 0; m3 < 4; m3++)
            for (int m2 = 0; m2 < 4; m2++)
                for (int sse = 0; sse < 4; sse++) {
                    int want = table_lookup(m3, m2, sse, el3, el2);
                    if (want < 0)
                        continue; /* SSE == 0b01 reaching PMECR_EL1: reserved, tested apart */
                    rows_seen[want]++;
                    f->ctx.have_el3 = el3;
                    f->ctx.have_el2 = el2;
                    f->ctx.mdcr3_pmsse = (uint8_t)m3;
                    f->ctx.mdcr2_pmsse = (uint8_t)m2;
                    set_ctx(f);
                    wr(f, PMU_PMECR_EL1, SSE(sse));
                    assert_int_equal(pmu_capture_state_now(f->pmu), want);
                    /* Behaviour: the saved registers get a fresh marker value when allowed */
                    pmu_count_event(f->pmu, ARMPROF_EV_SAMPLE_POP, 1);
                    uint64_t live = rd(f, PMU_PMEVCNTR_EL0(0));
                    uint64_t before_svr = rd(f, PMU_PMEVCNTSVR_EL1(0));
                    uint64_t before_sscr = rd(f, PMU_PMSSCR_EL1);
                    wr(f, PMU_PMSSCR_EL1, SS);
                    uint64_t sscr = rd(f, PMU_PMSSCR_EL1);
                    uint64_t svr = rd(f, PMU_PMEVCNTSVR_EL1(0));
                    switch (want) {
                    case PMU_CAPTURE_DISABLED: /* RMFJWS: the write is ignored */
                        assert_int_equal(sscr, before_sscr);
                        assert_int_equal(svr, before_svr);
                        break;
                    case PMU_CAPTURE_PROHIBITED:
                        assert_int_equal(sscr, NC);
                        assert_int_equal(svr, before_svr);
                        break;
                    default:
                        assert_int_equal(sscr, 0);
                        assert_int_equal(svr, live);
                        break;
                    }
                }
    }
    /* every outcome happened under every combination (sanity of the walk itself) */
    assert_true(rows_seen[0] > 0 && rows_seen[1] > 0 && rows_seen[2] > 0);
    /* EL3 and EL2 absent: PMECR_EL1.SSE alone decides, 3 rows x 1 */
    f->ctx.have_el3 = false;
    f->ctx.have_el2 = false;
    set_ctx(f);
    wr(f, PMU_PMECR_EL1, SSE(3));
    assert_int_equal(pmu_capture_state_now(f->pmu), PMU_CAPTURE_ALLOWED);
    wr(f, PMU_PMECR_EL1, SSE(2));
    assert_int_equal(pmu_capture_state_now(f->pmu), PMU_CAPTURE_PROHIBITED);
    wr(f, PMU_PMECR_EL1, SSE(0));
    assert_int_equal(pmu_capture_state_now(f->pmu), PMU_CAPTURE_DISABLED);
}

/* RYWLFL: "This applies even when EL2 is disabled in the current Security state." */
static void test_RYWLFL_el2_disabled_still_applies(void **st)
{
    fixture *f = *st;
    f->ctx.mdcr3_pmsse = 1;
    f->ctx.mdcr2_pmsse = 0;
    f->ctx.scr_ns = false; /* Secure, SCR_EL3.EEL2 == 0: EL2 disabled */
    f->ctx.scr_eel2 = false;
    set_ctx(f);
    wr(f, PMU_PMECR_EL1, SSE(3));
    assert_int_equal(pmu_capture_state_now(f->pmu), PMU_CAPTURE_DISABLED);
}

/* PMECR_EL1.SSE == 0b01 is reserved: each CONSTRAINED UNPREDICTABLE choice. */
static void test_sse_reserved_choices(void **st)
{
    fixture *f = *st;
    static const pmu_capture_state want[] = { PMU_CAPTURE_DISABLED, PMU_CAPTURE_PROHIBITED,
                                              PMU_CAPTURE_ALLOWED };
    for (int c = 0; c < 3; c++) {
        f->cfg.sse_reserved = (pmu_sse_reserved)c;
        f->ctx.mdcr3_pmsse = 1;
        f->ctx.mdcr2_pmsse = 1;
        reopen(f);
        wr(f, PMU_PMECR_EL1, SSE(1));
        assert_int_equal(pmu_capture_state_now(f->pmu), want[c]);
    }
}

/* RTSYTY: the OS Lock and Debug state make an enabled Capture event prohibited. */
static void test_RTSYTY_os_lock_debug(void **st)
{
    fixture *f = *st;
    f->cfg.capture_cycles = 0;
    reopen(f);
    assert_int_equal(pmu_capture_state_now(f->pmu), PMU_CAPTURE_ALLOWED);
    f->ctx.os_lock = true;
    set_ctx(f);
    assert_int_equal(pmu_capture_state_now(f->pmu), PMU_CAPTURE_PROHIBITED);
    wr(f, PMU_PMSSCR_EL1, SS);
    assert_int_equal(rd(f, PMU_PMSSCR_EL1), NC);
    f->ctx.os_lock = false;
    f->ctx.debug_state = true;
    set_ctx(f);
    assert_int_equal(pmu_capture_state_now(f->pmu), PMU_CAPTURE_PROHIBITED);
    /* IMPLEMENTATION DEFINED: a PE that allows Capture events in Debug state */
    f->cfg.capture_in_debug = true;
    reopen(f);
    assert_int_equal(pmu_capture_state_now(f->pmu), PMU_CAPTURE_ALLOWED);
    /* a disabled control stays disabled whatever the OS Lock */
    f->ctx.debug_state = false;
    f->ctx.os_lock = true;
    f->ctx.mdcr3_pmsse = 0;
    set_ctx(f);
    assert_int_equal(pmu_capture_state_now(f->pmu), PMU_CAPTURE_DISABLED);
}

/* ----- Capture behaviour ------------------------------------------------------------------- */

/* Example D13-8: MSR PMSSCR_EL1 #1, then poll SS until it reads 0, then read the snapshot. */
/* RTYNSW: an allowed Capture writes PMEVCNTSVR<n>_EL1, PMCCNTSVR_EL1 and PMICNTSVR_EL1; RWSVYM:
 * then PMSSCR_EL1.{NC,SS} = {0,0}, which the poll below waits for. */
static void test_example_d13_8_polling(void **st)
{
    fixture *f = *st;
    f->cfg.capture_cycles = 5;
    reopen(f);
    uint16_t ev[3] = { ARMPROF_EV_SAMPLE_FEED, PMU_EV_INST_RETIRED, ARMPROF_EV_PMU_SNAPSHOT };
    program(f, ev, 3);
    pmu_count_event(f->pmu, ARMPROF_EV_SAMPLE_FEED, 7);
    pmu_count_event(f->pmu, PMU_EV_INST_RETIRED, 100);
    pmu_advance(f->pmu, 10);
    wr(f, PMU_PMSSCR_EL1, SS);
    assert_true(pmu_capture_in_progress(f->pmu));
    assert_int_equal(pmu_cycles_to_next_event(f->pmu), 5);
    int polls = 0;
    for (;;) {
        uint64_t x0 = rd(f, PMU_PMSSCR_EL1); /* MRS X0, PMSSCR_EL1 */
        if (!(x0 & SS))                       /* TBNZ X0, #0, loop */
            break;
        pmu_count_event(f->pmu, PMU_EV_INST_RETIRED, 3); /* the loop's MRS, ISB, TBNZ */
        pmu_advance(f->pmu, 1);
        polls++;
        assert_true(polls <= 5);
    }
    assert_int_equal(polls, 5);
    assert_int_equal(rd(f, PMU_PMSSCR_EL1), 0); /* {NC,SS} = {0,0}: successful */
    /* The saved values are the counters at the completing cycle */
    assert_int_equal(rd(f, PMU_PMEVCNTSVR_EL1(0)), 7);
    assert_int_equal(rd(f, PMU_PMEVCNTSVR_EL1(1)), 100 + 3 * 5);
    assert_int_equal(rd(f, PMU_PMCCNTSVR_EL1), 15);
    assert_int_equal(rd(f, PMU_PMICNTSVR_EL1), 100 + 3 * 5);
    /* PMU_SNAPSHOT is generated after the counters were captured: its counter saved 0 */
    assert_int_equal(rd(f, PMU_PMEVCNTSVR_EL1(2)), 0);
    assert_int_equal(rd(f, PMU_PMEVCNTR_EL0(2)), 1);
    assert_int_equal(pmu_cycles_to_next_event(f->pmu), UINT64_MAX);
    /* The counters go on: the snapshot does not follow them */
    pmu_advance(f->pmu, 4);
    assert_int_equal(rd(f, PMU_PMCCNTR_EL0), 19);
    assert_int_equal(rd(f, PMU_PMCCNTSVR_EL1), 15);
}

/* A prohibited capture leaves every saved register unchanged, {NC,SS} = {1,0}, no PMU_SNAPSHOT. */
static void test_prohibited_capture(void **st)
{
    fixture *f = *st;
    f->cfg.capture_cycles = 2;
    reopen(f);
    uint16_t ev[2] = { ARMPROF_EV_SAMPLE_POP, ARMPROF_EV_PMU_SNAPSHOT };
    program(f, ev, 2);
    pmu_count_event(f->pmu, ARMPROF_EV_SAMPLE_POP, 11);
    pmu_count_event(f->pmu, PMU_EV_INST_RETIRED, 5);
    wr(f, PMU_PMSSCR_EL1, SS);
    pmu_advance(f->pmu, 2);
    assert_int_equal(rd(f, PMU_PMSSCR_EL1), 0);
    uint64_t svr0 = rd(f, PMU_PMEVCNTSVR_EL1(0)), svr1 = rd(f, PMU_PMEVCNTSVR_EL1(1));
    uint64_t csvr = rd(f, PMU_PMCCNTSVR_EL1), isvr = rd(f, PMU_PMICNTSVR_EL1);
    assert_int_equal(svr0, 11);
    assert_int_equal(isvr, 5);
    assert_int_equal(rd(f, PMU_PMEVCNTR_EL0(1)), 1);
    /* change every counter, then a prohibited capture (MDCR_EL3.PMSSE = 0b10) */
    pmu_count_event(f->pmu, ARMPROF_EV_SAMPLE_POP, 4);
    pmu_count_event(f->pmu, PMU_EV_INST_RETIRED, 9);
    f->ctx.mdcr3_pmsse = 2;
    set_ctx(f);
    wr(f, PMU_PMSSCR_EL1, SS);
    assert_int_equal(rd(f, PMU_PMSSCR_EL1) & SS, SS); /* still takes its cycles */
    pmu_advance(f->pmu, 2);
    assert_int_equal(rd(f, PMU_PMSSCR_EL1), NC);
    assert_int_equal(rd(f, PMU_PMEVCNTSVR_EL1(0)), svr0);
    assert_int_equal(rd(f, PMU_PMEVCNTSVR_EL1(1)), svr1);
    assert_int_equal(rd(f, PMU_PMCCNTSVR_EL1), csvr);
    assert_int_equal(rd(f, PMU_PMICNTSVR_EL1), isvr);
    assert_int_equal(rd(f, PMU_PMEVCNTR_EL0(1)), 1); /* no PMU_SNAPSHOT */
    pmu_stats stt;
    pmu_get_stats(f->pmu, &stt);
    assert_int_equal(stt.captures_ok, 1);
    assert_int_equal(stt.captures_prohibited, 1);
    /* a later allowed capture clears NC again */
    f->ctx.mdcr3_pmsse = 3;
    set_ctx(f);
    wr(f, PMU_PMSSCR_EL1, SS);
    pmu_advance(f->pmu, 2);
    assert_int_equal(rd(f, PMU_PMSSCR_EL1), 0);
    assert_int_equal(rd(f, PMU_PMEVCNTSVR_EL1(0)), 15);
}

/* RMFJWS: with Capture events disabled, PMSSCR_EL1.SS ignores writes; the external request too. */
static void test_RMFJWS_writes_ignored_when_disabled(void **st)
{
    fixture *f = *st;
    f->cfg.capture_cycles = 0;
    f->ctx.mdcr3_pmsse = 2; /* prohibited first, to leave NC = 1 */
    reopen(f);
    wr(f, PMU_PMSSCR_EL1, SS);
    assert_int_equal(rd(f, PMU_PMSSCR_EL1), NC);
    f->ctx.mdcr3_pmsse = 0;
    set_ctx(f);
    wr(f, PMU_PMSSCR_EL1, SS | NC);
    assert_int_equal(rd(f, PMU_PMSSCR_EL1), NC);
    assert_false(pmu_capture_in_progress(f->pmu));
    assert_int_equal(pmu_snapshot_request(f->pmu), PMU_REQ_IGNORED_DISABLED);
    assert_int_equal(rd(f, PMU_PMSSCR_EL1), NC);
    /* NC is read-only and writing 0 to SS does nothing */
    f->ctx.mdcr3_pmsse = 3;
    set_ctx(f);
    wr(f, PMU_PMSSCR_EL1, 0);
    assert_int_equal(rd(f, PMU_PMSSCR_EL1), NC);
}

/* RSCLCQ: the external snapshot request input, the Core power domain, a request in progress. */
static void test_RSCLCQ_external_request(void **st)
{
    fixture *f = *st;
    f->cfg.capture_cycles = 3;
    reopen(f);
    uint16_t ev[1] = { ARMPROF_EV_TRB_WRAP };
    program(f, ev, 1);
    pmu_count_event(f->pmu, ARMPROF_EV_TRB_WRAP, 2);
    pmu_set_core_powered(f->pmu, false);
    assert_int_equal(pmu_snapshot_request(f->pmu), PMU_REQ_IGNORED_POWER);
    assert_int_equal(rd(f, PMU_PMSSCR_EL1), 0);
    pmu_advance(f->pmu, 5);
    assert_int_equal(rd(f, PMU_PMEVCNTSVR_EL1(0)), 0);
    pmu_set_core_powered(f->pmu, true);
    assert_int_equal(pmu_snapshot_request(f->pmu), PMU_REQ_STARTED);
    assert_int_equal(rd(f, PMU_PMSSCR_EL1), SS); /* indirectly writes 1 to SS */
    assert_int_equal(pmu_snapshot_request(f->pmu), PMU_REQ_IN_PROGRESS);
    wr(f, PMU_PMSSCR_EL1, SS); /* software's request merges too */
    pmu_advance(f->pmu, 3);
    assert_int_equal(rd(f, PMU_PMSSCR_EL1), 0);
    assert_int_equal(rd(f, PMU_PMEVCNTSVR_EL1(0)), 2);
    pmu_stats stt;
    pmu_get_stats(f->pmu, &stt);
    assert_int_equal(stt.captures_started, 1);
    assert_int_equal(stt.captures_ok, 1);
    assert_int_equal(stt.requests_ignored, 1);
}

/* In Debug state (allowed by the IMPLEMENTATION DEFINED choice) PMU_SNAPSHOT follows the CU knob. */
static void test_snapshot_event_in_debug(void **st)
{
    fixture *f = *st;
    for (int gen = 0; gen < 2; gen++) {
        f->cfg.capture_cycles = 0;
        f->cfg.capture_in_debug = true;
        f->cfg.snapshot_event_in_debug = gen;
        f->ctx.debug_state = false;
        reopen(f);
        uint16_t ev[1] = { ARMPROF_EV_PMU_SNAPSHOT };
        program(f, ev, 1);
        f->ctx.debug_state = true;
        set_ctx(f);
        wr(f, PMU_PMSSCR_EL1, SS);
        assert_int_equal(rd(f, PMU_PMSSCR_EL1), 0);
        /* event counting is disabled in Debug state, so no counter sees it; the unit does */
        assert_int_equal(rd(f, PMU_PMEVCNTR_EL0(0)), 0);
        pmu_stats stt;
        pmu_get_stats(f->pmu, &stt);
        assert_int_equal(stt.captures_ok, 1);
        assert_int_equal(stt.snapshot_events, (uint64_t)gen);
    }
    /* Non-debug state: the event counts */
    f->cfg.capture_in_debug = false;
    f->ctx.debug_state = false;
    reopen(f);
    uint16_t ev[1] = { ARMPROF_EV_PMU_SNAPSHOT };
    program(f, ev, 1);
    wr(f, PMU_PMSSCR_EL1, SS);
    assert_int_equal(rd(f, PMU_PMEVCNTR_EL0(0)), 1);
}

/* ----- Counting ---------------------------------------------------------------------------- */

static void test_counting_enables(void **st)
{
    fixture *f = *st;
    wr(f, PMU_PMEVTYPER_EL0(0), ARMPROF_EV_SAMPLE_POP);
    wr(f, PMU_PMEVTYPER_EL0(1), ARMPROF_EV_SAMPLE_POP);
    wr(f, PMU_PMEVTYPER_EL0(2), ARMPROF_EV_SAMPLE_FEED);
    /* PMCR_EL0.E == 0: nothing counts */
    wr(f, PMU_PMCNTENSET_EL0, 0x7 | CNT_C);
    pmu_count_event(f->pmu, ARMPROF_EV_SAMPLE_POP, 5);
    pmu_advance(f->pmu, 5);
    assert_int_equal(rd(f, PMU_PMEVCNTR_EL0(0)), 0);
    assert_int_equal(rd(f, PMU_PMCCNTR_EL0), 0);
    wr(f, PMU_PMCR_EL0, PMCR_E);
    wr(f, PMU_PMCNTENCLR_EL0, 0x2);
    assert_int_equal(rd(f, PMU_PMCNTENSET_EL0), 0x5 | CNT_C);
    assert_int_equal(rd(f, PMU_PMCNTENCLR_EL0), 0x5 | CNT_C);
    pmu_count_event(f->pmu, ARMPROF_EV_SAMPLE_POP, 5);
    pmu_count_event(f->pmu, 0x1234, 9); /* a host event nobody counts */
    pmu_advance(f->pmu, 7);
    assert_int_equal(rd(f, PMU_PMEVCNTR_EL0(0)), 5);
    assert_int_equal(rd(f, PMU_PMEVCNTR_EL0(1)), 0); /* disabled by PMCNTENCLR_EL0 */
    assert_int_equal(rd(f, PMU_PMEVCNTR_EL0(2)), 0); /* other event */
    assert_int_equal(rd(f, PMU_PMCCNTR_EL0), 7);
    /* Debug state: no counting */
    f->ctx.debug_state = true;
    set_ctx(f);
    pmu_count_event(f->pmu, ARMPROF_EV_SAMPLE_POP, 5);
    pmu_advance(f->pmu, 3);
    assert_int_equal(rd(f, PMU_PMEVCNTR_EL0(0)), 5);
    assert_int_equal(rd(f, PMU_PMCCNTR_EL0), 7);
    /* PMCR_EL0.P and .C zero the counters */
    f->ctx.debug_state = false;
    set_ctx(f);
    wr(f, PMU_PMCR_EL0, PMCR_E | PMCR_P);
    assert_int_equal(rd(f, PMU_PMEVCNTR_EL0(0)), 0);
    assert_int_equal(rd(f, PMU_PMCCNTR_EL0), 7);
    wr(f, PMU_PMCR_EL0, PMCR_E | PMCR_C);
    assert_int_equal(rd(f, PMU_PMCCNTR_EL0), 0);
    /* CPU_CYCLES on an event counter counts with time */
    wr(f, PMU_PMEVTYPER_EL0(2), PMU_EV_CPU_CYCLES);
    pmu_advance(f->pmu, 12);
    assert_int_equal(rd(f, PMU_PMEVCNTR_EL0(2)), 12);
}

/* CountPMUEvents(): the {P,U,NSK,NSH} filter by Exception level and Security state, and the
 * Secure-state prohibition with MDCR_EL3.SPME == 0. */
static void test_counting_filters(void **st)
{
    fixture *f = *st;
    static const struct { uint8_t el; bool ns; uint64_t filt; bool spme; bool counts; } rows[] = {
        { 1, true, 0, false, true },
        { 1, true, EVT_P, false, false },            /* P excludes EL1 */
        { 1, true, EVT_P | EVT_NSK, false, true },   /* NSK == P: counts in Non-secure EL1 */
        { 1, true, EVT_NSK, false, false },          /* NSK != P */
        { 0, true, EVT_U, false, false },
        { 0, true, EVT_P, false, true },
        { 2, true, 0, false, false },                /* EL2 counts only with NSH */
        { 2, true, EVT_NSH, false, true },
        { 1, false, 0, false, false },               /* Secure, SPME == 0: prohibited */
        { 1, false, 0, true, true },
        { 1, false, EVT_P, true, false },
        { 3, false, 0, true, true },
        { 3, false, EVT_P, true, false },            /* M != P */
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        /* program from Non-secure EL1, then count in the row's context */
        f->ctx.el = 1;
        f->ctx.scr_ns = true;
        set_ctx(f);
        wr(f, PMU_PMEVTYPER_EL0(0), ARMPROF_EV_SAMPLE_POP | rows[i].filt);
        wr(f, PMU_PMCNTENSET_EL0, 1);
        wr(f, PMU_PMCR_EL0, PMCR_E | PMCR_P);
        f->ctx.el = rows[i].el;
        f->ctx.scr_ns = rows[i].ns;
        f->ctx.mdcr3_spme = rows[i].spme;
        set_ctx(f);
        pmu_count_event(f->pmu, ARMPROF_EV_SAMPLE_POP, 3);
        uint64_t v;
        assert_int_equal(pmu_reg_peek(f->pmu, PMU_PMEVCNTR_EL0(0), &v), ARMPROF_OK);
        if (v != (rows[i].counts ? 3u : 0u))
            fail_msg("row %zu: EL%u ns=%d filter=%llx counted %llu", i, rows[i].el, rows[i].ns,
                     (unsigned long long)rows[i].filt, (unsigned long long)v);
    }
}

/* Overflow flags, PMINTENSET_EL1 and the PMUIRQ level. */
static void test_overflow_irq(void **st)
{
    fixture *f = *st;
    wr(f, PMU_PMEVTYPER_EL0(0), ARMPROF_EV_SAMPLE_COLLISION);
    wr(f, PMU_PMCNTENSET_EL0, 1 | CNT_C);
    wr(f, PMU_PMCR_EL0, PMCR_E); /* LP == 0: overflow at 32 bits */
    wr(f, PMU_PMEVCNTR_EL0(0), 0xFFFFFFFEull);
    wr(f, PMU_PMINTENSET_EL1, 1);
    pmu_count_event(f->pmu, ARMPROF_EV_SAMPLE_COLLISION, 1);
    assert_int_equal(rd(f, PMU_PMOVSSET_EL0), 0);
    assert_false(pmu_irq_level(f->pmu));
    pmu_count_event(f->pmu, ARMPROF_EV_SAMPLE_COLLISION, 1);
    assert_int_equal(rd(f, PMU_PMOVSSET_EL0), 1);
    assert_int_equal(rd(f, PMU_PMEVCNTR_EL0(0)), 0x100000000ull); /* 64-bit counter */
    assert_true(pmu_irq_level(f->pmu));
    assert_true(f->irq);
    /* PMCR_EL0.E == 0 lowers PMUIRQ; PMOVSCLR_EL0 clears the flag */
    wr(f, PMU_PMCR_EL0, 0);
    assert_false(f->irq);
    wr(f, PMU_PMCR_EL0, PMCR_E);
    assert_true(f->irq);
    wr(f, PMU_PMOVSCLR_EL0, 1);
    assert_int_equal(rd(f, PMU_PMOVSSET_EL0), 0);
    assert_false(f->irq);
    /* LP == 1: no overflow at 32 bits; LC == 0: the cycle counter overflows at 32 bits */
    wr(f, PMU_PMCR_EL0, PMCR_E | PMCR_LP);
    wr(f, PMU_PMEVCNTR_EL0(0), 0xFFFFFFFFull);
    pmu_count_event(f->pmu, ARMPROF_EV_SAMPLE_COLLISION, 1);
    assert_int_equal(rd(f, PMU_PMOVSSET_EL0), 0);
    wr(f, PMU_PMEVCNTR_EL0(0), ~0ull);
    pmu_count_event(f->pmu, ARMPROF_EV_SAMPLE_COLLISION, 2);
    assert_int_equal(rd(f, PMU_PMOVSSET_EL0), 1);
    assert_int_equal(rd(f, PMU_PMEVCNTR_EL0(0)), 1);
    wr(f, PMU_PMCCNTR_EL0, 0xFFFFFFF0ull);
    pmu_advance(f->pmu, 0x20);
    assert_int_equal(rd(f, PMU_PMOVSSET_EL0), 1 | CNT_C);
    assert_int_equal(rd(f, PMU_PMCCNTR_EL0), 0x100000010ull);
}

static void test_swinc_xev_userenr(void **st)
{
    fixture *f = *st;
    wr(f, PMU_PMEVTYPER_EL0(3), PMU_EV_SW_INCR);
    wr(f, PMU_PMCNTENSET_EL0, 0x8);
    wr(f, PMU_PMCR_EL0, PMCR_E);
    wr(f, PMU_PMSWINC_EL0, 0x8 | 0x1);
    wr(f, PMU_PMSWINC_EL0, 0x8);
    assert_int_equal(rd(f, PMU_PMEVCNTR_EL0(3)), 2);
    assert_int_equal(rd(f, PMU_PMEVCNTR_EL0(0)), 0);
    /* PMXEVTYPER_EL0 / PMXEVCNTR_EL0 through PMSELR_EL0.SEL */
    wr(f, PMU_PMSELR_EL0, 3);
    assert_int_equal(rd(f, PMU_PMXEVCNTR_EL0), 2);
    wr(f, PMU_PMXEVCNTR_EL0, 40);
    assert_int_equal(rd(f, PMU_PMEVCNTR_EL0(3)), 40);
    wr(f, PMU_PMXEVTYPER_EL0, ARMPROF_EV_TRB_TRIG);
    assert_int_equal(rd(f, PMU_PMEVTYPER_EL0(3)), ARMPROF_EV_TRB_TRIG);
    wr(f, PMU_PMSELR_EL0, 31);
    wr(f, PMU_PMXEVTYPER_EL0, EVT_P);
    assert_int_equal(rd(f, PMU_PMCCFILTR_EL0), EVT_P);
    uint64_t v;
    assert_int_equal(pmu_reg_read(f->pmu, PMU_PMXEVCNTR_EL0, &v), ARMPROF_ERR_UNDEFINED);
    wr(f, PMU_PMSELR_EL0, 6);
    assert_int_equal(pmu_reg_read(f->pmu, PMU_PMXEVTYPER_EL0, &v), ARMPROF_ERR_UNDEFINED);
    /* EL0 accesses follow PMUSERENR_EL0 */
    f->ctx.el = 0;
    set_ctx(f);
    assert_int_equal(pmu_reg_read(f->pmu, PMU_PMCCNTR_EL0, &v), ARMPROF_ERR_UNDEFINED);
    assert_int_equal(pmu_reg_read(f->pmu, PMU_PMSSCR_EL1, &v), ARMPROF_ERR_UNDEFINED);
    assert_int_equal(pmu_reg_write(f->pmu, PMU_PMUSERENR_EL0, 1), ARMPROF_ERR_UNDEFINED);
    f->ctx.el = 1;
    set_ctx(f);
    wr(f, PMU_PMUSERENR_EL0, 1 << 2); /* CR: EL0 reads of PMCCNTR_EL0 */
    f->ctx.el = 0;
    set_ctx(f);
    assert_int_equal(pmu_reg_read(f->pmu, PMU_PMCCNTR_EL0, &v), ARMPROF_OK);
    assert_int_equal(pmu_reg_write(f->pmu, PMU_PMCCNTR_EL0, 0), ARMPROF_ERR_UNDEFINED);
    assert_int_equal(pmu_reg_read(f->pmu, PMU_PMEVCNTR_EL0(3), &v), ARMPROF_ERR_UNDEFINED);
    assert_int_equal(pmu_reg_read(f->pmu, PMU_PMSSCR_EL1, &v), ARMPROF_ERR_UNDEFINED);
}

/* PMBLIMITR_EL1.PMFZ / PMCR_EL0.FZS (SPEFreezeOnEvent), with and without FEAT_SPE_DPFZS. */
static void test_pmfz_freeze(void **st)
{
    fixture *f = *st;
    uint16_t ev[2] = { ARMPROF_EV_SAMPLE_POP, PMU_EV_INST_RETIRED };
    program(f, ev, 2);
    wr(f, PMU_PMCR_EL0, PMCR_E | PMCR_FZS | PMCR_DP);
    pmu_count_event(f->pmu, ARMPROF_EV_SAMPLE_POP, 2);
    pmu_advance(f->pmu, 2);
    pmu_freeze_sink(f->pmu); /* the SPU's management event with PMFZ == 1 */
    assert_true(pmu_spe_frozen(f->pmu));
    pmu_count_event(f->pmu, ARMPROF_EV_SAMPLE_POP, 5);
    pmu_count_event(f->pmu, PMU_EV_INST_RETIRED, 5);
    pmu_advance(f->pmu, 3);
    assert_int_equal(rd(f, PMU_PMEVCNTR_EL0(0)), 2);
    assert_int_equal(rd(f, PMU_PMEVCNTR_EL0(1)), 0);
    assert_int_equal(rd(f, PMU_PMICNTR_EL0), 0);
    assert_int_equal(rd(f, PMU_PMCCNTR_EL0), 5); /* no FEAT_SPE_DPFZS: cycles go on */
    /* software clears PMBSR_EL1.S: counting resumes */
    pmu_set_spe_freeze(f->pmu, false);
    pmu_count_event(f->pmu, ARMPROF_EV_SAMPLE_POP, 1);
    assert_int_equal(rd(f, PMU_PMEVCNTR_EL0(0)), 3);
    /* FZS == 0: the freeze input has no effect */
    wr(f, PMU_PMCR_EL0, PMCR_E);
    pmu_freeze_sink(f->pmu);
    assert_false(pmu_spe_frozen(f->pmu));
    pmu_count_event(f->pmu, ARMPROF_EV_SAMPLE_POP, 1);
    assert_int_equal(rd(f, PMU_PMEVCNTR_EL0(0)), 4);
    pmu_stats stt;
    pmu_get_stats(f->pmu, &stt);
    assert_int_equal(stt.freeze_events, 2);
    /* FEAT_SPE_DPFZS with PMCR_EL0.DP == 1: the cycle counter freezes too; DP == 0: it runs */
    f->cfg.feat_spe_dpfzs = true;
    reopen(f);
    program(f, ev, 2);
    wr(f, PMU_PMCR_EL0, PMCR_E | PMCR_FZS | PMCR_DP);
    pmu_freeze_sink(f->pmu);
    pmu_advance(f->pmu, 4);
    assert_int_equal(rd(f, PMU_PMCCNTR_EL0), 0);
    wr(f, PMU_PMCR_EL0, PMCR_E | PMCR_FZS);
    pmu_advance(f->pmu, 4);
    assert_int_equal(rd(f, PMU_PMCCNTR_EL0), 4);
    /* Without FEAT_SPEv1p2 PMCR_EL0.FZS is RES0 */
    f->cfg.feat_spev1p2 = false;
    f->cfg.feat_spe_dpfzs = false;
    reopen(f);
    wr(f, PMU_PMCR_EL0, PMCR_E | PMCR_FZS);
    assert_int_equal(rd(f, PMU_PMCR_EL0) & PMCR_FZS, 0);
}

static void test_save_restore(void **st)
{
    fixture *f = *st;
    uint16_t ev[2] = { ARMPROF_EV_SAMPLE_POP, ARMPROF_EV_SAMPLE_FEED };
    program(f, ev, 2);
    pmu_count_event(f->pmu, ARMPROF_EV_SAMPLE_POP, 10);
    wr(f, PMU_PMSSCR_EL1, SS); /* in progress, 8 cycles */
    pmu_advance(f->pmu, 3);
    size_t len = 0;
    assert_int_equal(pmu_save(f->pmu, NULL, 0, &len), ARMPROF_ERR_BUFSZ);
    uint8_t buf[4096];
    assert_true(len <= sizeof buf);
    assert_int_equal(pmu_save(f->pmu, buf, sizeof buf, &len), ARMPROF_OK);
    pmu_advance(f->pmu, 5);
    uint64_t svr = rd(f, PMU_PMEVCNTSVR_EL1(0)), cc = rd(f, PMU_PMCCNTSVR_EL1);
    assert_int_equal(svr, 10);
    /* restore into a fresh unit of the same configuration and replay */
    pmu_t *other;
    assert_int_equal(pmu_open(&f->cfg, NULL, &other), ARMPROF_OK);
    assert_int_equal(pmu_restore(other, buf, len), ARMPROF_OK);
    assert_true(pmu_capture_in_progress(other));
    pmu_advance(other, 5);
    uint64_t v;
    assert_int_equal(pmu_reg_read(other, PMU_PMEVCNTSVR_EL1(0), &v), ARMPROF_OK);
    assert_int_equal(v, svr);
    assert_int_equal(pmu_reg_read(other, PMU_PMCCNTSVR_EL1, &v), ARMPROF_OK);
    assert_int_equal(v, cc);
    buf[40] ^= 1;
    assert_int_equal(pmu_restore(other, buf, len), ARMPROF_ERR_STATE_CORRUPT);
    pmu_close(other);
    pmu_config c2 = f->cfg;
    c2.num_counters = 4;
    assert_int_equal(pmu_open(&c2, NULL, &other), ARMPROF_OK);
    buf[40] ^= 1;
    assert_int_equal(pmu_restore(other, buf, len), ARMPROF_ERR_STATE_MISMATCH);
    pmu_close(other);
}

/* pmu_reg_check() is what pmu_reg_read() / pmu_reg_write() return, with no effect: every
 * encoding of the PMU's System register space (CRn 9 and 14, op1 0 and 3) x EL0..EL2 x
 * PMUSERENR_EL0 values x MDCR_EL2.HPMN x PMSELR_EL0.SEL (the PMXEV* indirection), with every
 * optional feature on and off. */
static void test_reg_check_is_the_access_outcome(void **st)
{
    (void)st;
    int seen[ARMPROF_ERR__COUNT][2];
    memset(seen, 0, sizeof seen);
    for (int feats = 0; feats <= 1; feats++) {
        pmu_config cfg;
        pmu_config_default(&cfg);
        cfg.feat_pmuv3_ss = cfg.feat_pmuv3_icntr = cfg.feat_pmuv3p5 = feats;
        pmu_t *p;
        assert_int_equal(pmu_open(&cfg, NULL, &p), ARMPROF_OK);
        const uint8_t userenr[] = { 0, 0x1, 0x2, 0x4, 0x8 };
        const uint8_t hpmn[] = { ARMPROF_MDCR2_HPMN_N, 2, 0 };
        const uint8_t sel[] = { 0, 3, 5, 31, 7 };
        for (size_t u = 0; u < sizeof userenr; u++)
            for (size_t h = 0; h < sizeof hpmn; h++)
                for (int el = 0; el <= 2; el++) {
                    armprof_pe_ctx c;
                    armprof_pe_ctx_default(&c);
                    c.el = 2; /* program PMUSERENR_EL0 and PMSELR_EL0 from EL2 */
                    c.mdcr2_hpmn = hpmn[h];
                    assert_int_equal(pmu_set_pe_context(p, &c), ARMPROF_OK);
                    assert_int_equal(pmu_reg_write(p, PMU_PMUSERENR_EL0, userenr[u]), ARMPROF_OK);
                    assert_int_equal(pmu_reg_write(p, PMU_PMSELR_EL0, sel[(u + h + el) % sizeof sel]),
                                     ARMPROF_OK);
                    c.el = (uint8_t)el;
                    assert_int_equal(pmu_set_pe_context(p, &c), ARMPROF_OK);
                    for (uint32_t op1 = 0; op1 <= 3; op1 += 3)
                        for (uint32_t crn = 9; crn <= 14; crn += 5)
                            for (uint32_t crm = 0; crm < 16; crm++)
                                for (uint32_t op2 = 0; op2 < 8; op2++) {
                                    uint32_t enc = ARMPROF_SYSREG(3, op1, crn, crm, op2);
                                    size_t len, len2;
                                    assert_int_equal(pmu_save(p, NULL, 0, &len), ARMPROF_ERR_BUFSZ);
                                    uint8_t *before = malloc(len), *after = malloc(len);
                                    assert_int_equal(pmu_save(p, before, len, &len2), ARMPROF_OK);
                                    armprof_err cr = pmu_reg_check(p, enc, false);
                                    armprof_err cw = pmu_reg_check(p, enc, true);
                                    assert_int_equal(pmu_save(p, after, len, &len2), ARMPROF_OK);
                                    assert_memory_equal(before, after, len);
                                    uint64_t v = 0, peek = 0;
                                    armprof_err r = pmu_reg_read(p, enc, &v);
                                    (void)pmu_reg_peek(p, enc, &peek);
                                    armprof_err w = pmu_reg_write(p, enc, peek);
                                    if (r != cr || w != cw)
                                        fail_msg("feats %d EL%d USERENR %x HPMN %u, 0x%04x: check %s/%s, "
                                                 "access %s/%s", feats, el, userenr[u], hpmn[h], enc,
                                                 armprof_strerror(cr), armprof_strerror(cw),
                                                 armprof_strerror(r), armprof_strerror(w));
                                    assert_int_equal(pmu_restore(p, before, len), ARMPROF_OK);
                                    free(before);
                                    free(after);
                                    seen[cr][0]++;
                                    seen[cw][1]++;
                                }
                }
        pmu_close(p);
    }
    const armprof_err kinds[] = { ARMPROF_OK, ARMPROF_ERR_UNDEFINED, ARMPROF_ERR_NOREG };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (int w = 0; w <= 1; w++)
            if (!seen[kinds[k]][w])
                fail_msg("no %s %s in the walk", w ? "write" : "read", armprof_strerror(kinds[k]));
    assert_int_equal(pmu_reg_check(NULL, PMU_PMCR_EL0, false), ARMPROF_ERR_INVAL);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_event_numbers),
        cmocka_unit_test(test_config_validate),
        T(test_encodings),
        T(test_regtable_walk),
        cmocka_unit_test(test_reg_check_is_the_access_outcome),
        T(test_feature_absent),
        T(test_RYWLFL_RTSYTY_table_d13_10),
        T(test_RYWLFL_el2_disabled_still_applies),
        T(test_sse_reserved_choices),
        T(test_RTSYTY_os_lock_debug),
        T(test_example_d13_8_polling),
        T(test_prohibited_capture),
        T(test_RMFJWS_writes_ignored_when_disabled),
        T(test_RSCLCQ_external_request),
        T(test_snapshot_event_in_debug),
        T(test_counting_enables),
        T(test_counting_filters),
        T(test_overflow_irq),
        T(test_swinc_xev_userenr),
        T(test_pmfz_freeze),
        T(test_save_restore),
    };
    return cmocka_run_group_tests_name("pmu", tests, NULL, NULL);
}
