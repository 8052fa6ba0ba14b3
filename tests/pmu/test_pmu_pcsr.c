/* SPDX-License-Identifier: Apache-2.0 */
/* test_pmu_pcsr.c: PC sampling on PMU snapshot Capture events (FEAT_PCSRv8p9, Arm ARM D13.9 and
 * H7.1), the PMU external view of the PC sample registers (Tables I5-1 / I5-2) and the BRBE
 * freeze output on a successful Capture event (RLBQZR). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "armprof/pmu.h"

#define SS (1ull << 0)
#define NC (1ull << 32)
#define LO 0xFFFFFFFFull

typedef struct fixture {
    pmu_t *pmu;
    pmu_config cfg;
    armprof_pe_ctx ctx;
    pmu_pc_sample smp;
    int brbe;              /* BRBE freeze outputs seen */
    int hook_calls;
    uint64_t sscr_in_hook; /* PMSSCR_EL1 as the sample hook saw it */
    uint64_t svr_in_hook;  /* PMCCNTSVR_EL1 as the sample hook saw it */
} fixture;

static void on_brbe(void *user) { ((fixture *)user)->brbe++; }

static bool on_sample(void *user, pmu_pc_sample *out)
{
    fixture *f = user;
    f->hook_calls++;
    assert_int_equal(pmu_reg_peek(f->pmu, PMU_PMSSCR_EL1, &f->sscr_in_hook), ARMPROF_OK);
    assert_int_equal(pmu_reg_peek(f->pmu, PMU_PMCCNTSVR_EL1, &f->svr_in_hook), ARMPROF_OK);
    *out = f->smp;
    return f->smp.valid;
}

static void reopen(fixture *f)
{
    if (f->pmu)
        pmu_close(f->pmu);
    assert_int_equal(pmu_open(&f->cfg, NULL, &f->pmu), ARMPROF_OK);
    assert_int_equal(pmu_set_pe_context(f->pmu, &f->ctx), ARMPROF_OK);
    pmu_set_brbe_freeze_hook(f->pmu, on_brbe, f);
}

/* A sample at EL1 Non-secure, AArch64, with a PC using bits [55:32]. */
static void default_sample(pmu_pc_sample *s)
{
    memset(s, 0, sizeof(*s));
    s->valid = true;
    s->pc = 0x0000123456789ABCull;
    s->el = 1;
    s->ss = ARMPROF_NONSECURE;
    s->contextidr_el1 = 0x1111;
    s->contextidr_el2 = 0x2222;
    s->vmid = 0x33;
}

static int setup(void **state)
{
    static fixture f;
    memset(&f, 0, sizeof(f));
    pmu_config_default(&f.cfg);
    f.cfg.capture_cycles = 0;
    f.cfg.feat_pcsr = true;
    f.cfg.feat_pmuv3_ext32 = true;
    f.cfg.brbe_freeze_on_capture = true;
    armprof_pe_ctx_default(&f.ctx);
    reopen(&f);
    default_sample(&f.smp);
    pmu_set_pc_sample(f.pmu, &f.smp);
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

static uint64_t ext(fixture *f, uint32_t off, unsigned size)
{
    uint64_t v = 0xdeadbeef;
    assert_int_equal(pmu_ext_read(f->pmu, off, size, &v), ARMPROF_OK);
    return v;
}

static void ext_wr(fixture *f, uint32_t off, uint64_t v)
{
    assert_int_equal(pmu_ext_write(f->pmu, off, 4, v), ARMPROF_OK);
}

static uint64_t sscr(fixture *f)
{
    uint64_t v;
    assert_int_equal(pmu_reg_read(f->pmu, PMU_PMSSCR_EL1, &v), ARMPROF_OK);
    return v;
}

static void capture(fixture *f)
{
    assert_int_equal(pmu_reg_write(f->pmu, PMU_PMSSCR_EL1, SS), ARMPROF_OK);
}

static void set_ctx(fixture *f) { assert_int_equal(pmu_set_pe_context(f->pmu, &f->ctx), ARMPROF_OK); }

/* The expected PMPCSR for s (SetPCSample, without RME). */
static uint64_t pmpcsr_of(const pmu_pc_sample *s)
{
    uint64_t v = s->pc & LO;
    if (!s->aarch32)
        v |= s->pc & 0x00FFFFFF00000000ull;
    v |= (uint64_t)s->el << PMU_PMPCSR_EL_SHIFT;
    if (s->ss != ARMPROF_SECURE)
        v |= PMU_PMPCSR_NS;
    return v;
}

/* ----- configuration and the external view ------------------------------------------------ */

static void test_config_and_offsets(void **st)
{
    fixture *f = *st;
    pmu_config c = f->cfg;
    char why[160];
    assert_int_equal(pmu_config_validate(&c, why, sizeof why), ARMPROF_OK);
    c.feat_pmuv3_ext64 = true;
    assert_int_equal(pmu_config_validate(&c, why, sizeof why), ARMPROF_ERR_CFG_FEATURE);
    assert_non_null(strstr(why, "ext64"));
    c.feat_pmuv3_ext32 = c.feat_pmuv3_ext64 = false;
    assert_int_equal(pmu_config_validate(&c, why, sizeof why), ARMPROF_ERR_CFG_FEATURE);
    assert_non_null(strstr(why, "feat_pcsr"));
    /* Offsets of Arm ARM Tables I5-1 / I5-2 (and H7-1) */
    assert_int_equal(PMU_EXT_PMPCSR, 0x200);
    assert_int_equal(PMU_EXT_PMCID1SR, 0x208);
    assert_int_equal(PMU_EXT_PMVIDSR, 0x20C);
    assert_int_equal(PMU_EXT_PMPCSR_ALIAS, 0x220);
    assert_int_equal(PMU_EXT_PMCID2SR, 0x22C);
    assert_int_equal(PMU_EXT_PMVCIDSR, 0x208);
    assert_int_equal(PMU_EXT_PMCCIDSR, 0x228);
    assert_int_equal(PMU_EXT_PMPCSCTL, 0xE50);
    /* bad accesses */
    uint64_t v;
    assert_int_equal(pmu_ext_read(f->pmu, 0x200, 2, &v), ARMPROF_ERR_INVAL);
    assert_int_equal(pmu_ext_read(f->pmu, 0x204, 8, &v), ARMPROF_ERR_INVAL);
    assert_int_equal(pmu_ext_read(f->pmu, 0x210, 4, &v), ARMPROF_ERR_NOREG);
    assert_int_equal(pmu_ext_write(f->pmu, 0x300, 4, 0), ARMPROF_ERR_NOREG);
    /* PMPCSCTL: IMP reads 0 (not configured), EN RES0, SS writable with FEAT_PMUv3_SS */
    assert_int_equal(ext(f, 0xE50, 8), 0);
    ext_wr(f, 0xE50, 0xFFFFFFFF);
    assert_int_equal(ext(f, 0xE50, 8), PMU_PMPCSCTL_SS);
    /* writes to the sample registers are ignored */
    ext_wr(f, 0x208, 0x1234);
    assert_int_equal(ext(f, 0x208, 4), 0);
    /* no FEAT_PCSRv8p9: none of the registers exist */
    f->cfg.feat_pcsr = false;
    f->cfg.feat_pmuv3_ext32 = false;
    reopen(f);
    assert_int_equal(pmu_ext_read(f->pmu, 0x200, 4, &v), ARMPROF_ERR_NOREG);
    assert_int_equal(pmu_ext_read(f->pmu, 0xE50, 4, &v), ARMPROF_ERR_NOREG);
}

/* ----- D13.9: sampling on Capture events ----------------------------------------------------- */

/* RPLPCY: on an allowed Capture with PMPCSCTL.SS the PC sample and context views are written. */
/* SS = 1, allowed, Non-debug: PMPCSR = address + execution state, PMCID1SR / PMCID2SR / PMVIDSR
 * (EXT32); reads while SS == 1 have no side effect (H7.1.1.1: sampling on reads disabled). */
static void test_ss1_allowed_ext32(void **st)
{
    fixture *f = *st;
    ext_wr(f, PMU_EXT_PMPCSCTL, PMU_PMPCSCTL_SS);
    capture(f);
    assert_int_equal(sscr(f), 0);
    uint64_t want = pmpcsr_of(&f->smp);
    assert_int_equal(want, 0xA000123456789ABCull); /* NS = 1, EL = 0b01, PC[55:0] */
    assert_int_equal(ext(f, 0x200, 8), want);
    assert_int_equal(ext(f, 0x204, 4), want >> 32);
    assert_int_equal(ext(f, 0x220, 8), want); /* alias */
    assert_int_equal(ext(f, PMU_EXT_PMCID1SR, 4), 0x1111);
    assert_int_equal(ext(f, PMU_EXT_PMCID1SR_ALIAS, 4), 0x1111);
    assert_int_equal(ext(f, PMU_EXT_PMCID2SR, 4), 0x2222);
    assert_int_equal(ext(f, PMU_EXT_PMVIDSR, 4), 0x33);
    /* a new instruction executes; reads return the last Capture's sample */
    f->smp.pc = 0x4000;
    pmu_set_pc_sample(f->pmu, &f->smp);
    assert_int_equal(ext(f, 0x200, 4), want & LO);
    assert_int_equal(ext(f, 0x200, 8), want);
    /* next Capture: new sample; an AArch32 one has PMPCSR[55:32] = 0; EL2 has no VMID */
    f->smp.pc = 0x0000ABCD00004000ull;
    f->smp.aarch32 = true;
    f->smp.el = 0;
    pmu_set_pc_sample(f->pmu, &f->smp);
    capture(f);
    assert_int_equal(ext(f, 0x200, 8), PMU_PMPCSR_NS | 0x4000);
    f->smp.aarch32 = false;
    f->smp.el = 2;
    pmu_set_pc_sample(f->pmu, &f->smp);
    capture(f);
    assert_int_equal(ext(f, 0x200, 8), PMU_PMPCSR_NS | (2ull << 61) | 0x0000ABCD00004000ull);
    assert_int_equal(ext(f, PMU_EXT_PMVIDSR, 4), 0);
    pmu_stats s;
    pmu_get_stats(f->pmu, &s);
    assert_int_equal(s.pc_samples, 3);
    assert_int_equal(s.pc_samples_ones, 0);
}

/* EXT64: PMCCIDSR = CONTEXTIDR_EL2:CONTEXTIDR_EL1, PMVCIDSR = VMID:CONTEXTIDR_EL1. */
static void test_ss1_allowed_ext64(void **st)
{
    fixture *f = *st;
    f->cfg.feat_pmuv3_ext32 = false;
    f->cfg.feat_pmuv3_ext64 = true;
    reopen(f);
    f->smp.el = 0;
    pmu_set_pc_sample(f->pmu, &f->smp);
    ext_wr(f, PMU_EXT_PMPCSCTL, PMU_PMPCSCTL_SS);
    capture(f);
    assert_int_equal(ext(f, 0x200, 8), pmpcsr_of(&f->smp));
    assert_int_equal(ext(f, PMU_EXT_PMCCIDSR, 8), 0x0000222200001111ull);
    assert_int_equal(ext(f, PMU_EXT_PMVCIDSR, 8), 0x0000003300001111ull);
    assert_int_equal(ext(f, 0x22C, 4), 0x2222); /* upper half of PMCCIDSR */
    /* EL0 in the EL2&0 regime: VMID not sampled (UNKNOWN, written as 0) */
    f->smp.el0h = true;
    pmu_set_pc_sample(f->pmu, &f->smp);
    capture(f);
    assert_int_equal(ext(f, PMU_EXT_PMVCIDSR, 8), 0x1111);
    /* Realm state with FEAT_RME: PMPCSR.{NSE,NS} = {1,1} */
    f->ctx.have_rme = true;
    f->ctx.scr_nse = true;
    set_ctx(f);
    pmu_debug_auth a = { .niden = true, .rlpiden = true };
    pmu_set_debug_auth(f->pmu, &a);
    f->smp.ss = ARMPROF_REALM;
    f->smp.el0h = false;
    f->smp.el = 1;
    pmu_set_pc_sample(f->pmu, &f->smp);
    capture(f);
    assert_int_equal(sscr(f), 0);
    assert_int_equal(ext(f, 0x200, 8), pmpcsr_of(&f->smp) | PMU_PMPCSR_NSE);
}

/* SS = 0: a Capture leaves every PC sample register unchanged. */
static void test_ss0_unchanged(void **st)
{
    fixture *f = *st;
    ext_wr(f, PMU_EXT_PMPCSCTL, PMU_PMPCSCTL_SS);
    capture(f);
    uint64_t want = pmpcsr_of(&f->smp);
    ext_wr(f, PMU_EXT_PMPCSCTL, 0);
    f->smp.pc = 0x8888;
    f->smp.contextidr_el1 = 0x9999;
    f->smp.contextidr_el2 = 0xAAAA;
    f->smp.vmid = 0x77;
    pmu_set_pc_sample(f->pmu, &f->smp);
    capture(f);
    assert_int_equal(sscr(f), 0);
    ext_wr(f, PMU_EXT_PMPCSCTL, PMU_PMPCSCTL_SS); /* back to no-side-effect reads */
    assert_int_equal(ext(f, 0x200, 8), want);
    assert_int_equal(ext(f, PMU_EXT_PMCID1SR, 4), 0x1111);
    assert_int_equal(ext(f, PMU_EXT_PMCID2SR, 4), 0x2222);
    assert_int_equal(ext(f, PMU_EXT_PMVIDSR, 4), 0x33);
}

/* Not allowed (H7.1.1) or Debug state or no sample: PMPCSR[31:0] = 0xFFFFFFFF, the rest
 * unchanged; the Capture itself is successful. */
static void test_not_allowed_debug_invalid(void **st)
{
    fixture *f = *st;
    f->cfg.capture_in_debug = true;
    reopen(f);
    pmu_set_pc_sample(f->pmu, &f->smp);
    ext_wr(f, PMU_EXT_PMPCSCTL, PMU_PMPCSCTL_SS);
    capture(f);
    uint64_t want = pmpcsr_of(&f->smp);
    uint64_t ones = (want & ~LO) | LO;
    f->smp.pc = 0x5555;
    f->smp.el = 0;
    f->smp.contextidr_el1 = 0x6666;
    pmu_set_pc_sample(f->pmu, &f->smp);
    /* 1: ExternalNoninvasiveDebugEnabled() FALSE */
    pmu_debug_auth a = { .niden = false };
    pmu_set_debug_auth(f->pmu, &a);
    capture(f);
    assert_int_equal(sscr(f), 0);
    assert_int_equal(ext(f, 0x200, 8), ones);
    assert_int_equal(ext(f, PMU_EXT_PMCID1SR, 4), 0x1111);
    /* 2: Secure state without SPNIDEN, then with it */
    a.niden = true;
    pmu_set_debug_auth(f->pmu, &a);
    f->ctx.scr_ns = false;
    set_ctx(f);
    assert_false(pmu_pc_sampling_allowed(f->pmu));
    capture(f);
    assert_int_equal(ext(f, 0x200, 8), ones);
    a.spniden = true;
    pmu_set_debug_auth(f->pmu, &a);
    assert_true(pmu_pc_sampling_allowed(f->pmu));
    f->smp.ss = ARMPROF_SECURE;
    pmu_set_pc_sample(f->pmu, &f->smp);
    capture(f);
    assert_int_equal(ext(f, 0x200, 8), 0x5555); /* NS = 0, EL0 */
    assert_int_equal(ext(f, PMU_EXT_PMCID1SR, 4), 0x6666);
    /* 3: Debug state (Capture events allowed there by capture_in_debug) */
    f->ctx.debug_state = true;
    set_ctx(f);
    f->smp.pc = 0x7777;
    f->smp.contextidr_el1 = 0x7;
    pmu_set_pc_sample(f->pmu, &f->smp);
    capture(f);
    assert_int_equal(sscr(f), 0);
    assert_int_equal(ext(f, 0x200, 8), LO);
    assert_int_equal(ext(f, PMU_EXT_PMCID1SR, 4), 0x6666);
    /* 4: no recently-executed instruction available */
    f->ctx.debug_state = false;
    set_ctx(f);
    f->smp.valid = false;
    pmu_set_pc_sample(f->pmu, &f->smp);
    capture(f);
    assert_int_equal(ext(f, 0x200, 8), LO);
    assert_int_equal(ext(f, PMU_EXT_PMCID1SR, 4), 0x6666);
    pmu_stats s;
    pmu_get_stats(f->pmu, &s);
    assert_int_equal(s.pc_samples_ones, 4);
    assert_int_equal(s.captures_ok, 6);
}

/* Prohibited Capture: PC sample registers unchanged, {NC,SS} = {1,0}, no BRBE freeze. */
static void test_prohibited_no_write_no_freeze(void **st)
{
    fixture *f = *st;
    ext_wr(f, PMU_EXT_PMPCSCTL, PMU_PMPCSCTL_SS);
    capture(f);
    assert_int_equal(f->brbe, 1);
    uint64_t want = pmpcsr_of(&f->smp);
    f->smp.pc = 0x1;
    f->smp.contextidr_el1 = 0x2;
    pmu_set_pc_sample(f->pmu, &f->smp);
    f->ctx.mdcr3_pmsse = 2; /* Table D13-10: prohibited */
    set_ctx(f);
    capture(f);
    assert_int_equal(sscr(f), NC);
    assert_int_equal(ext(f, 0x200, 8), want);
    assert_int_equal(ext(f, PMU_EXT_PMCID1SR, 4), 0x1111);
    assert_int_equal(f->brbe, 1);
    /* Debug state without capture_in_debug (RTSYTY): prohibited as well */
    f->ctx.mdcr3_pmsse = 3;
    f->ctx.debug_state = true;
    set_ctx(f);
    capture(f);
    assert_int_equal(sscr(f), NC);
    assert_int_equal(ext(f, 0x200, 8), want);
    assert_int_equal(f->brbe, 1);
    pmu_stats s;
    pmu_get_stats(f->pmu, &s);
    assert_int_equal(s.brbe_freezes, 1);
    assert_int_equal(s.captures_prohibited, 2);
}

/* The sample is captured before PMSSCR_EL1.{NC,SS} = {0,0}, after the counters were saved; with
 * a timed Capture nothing changes before it completes. */
/* RMPZSB: the recently-executed instruction is sampled before PMSSCR_EL1.{NC,SS} = {0,0}. */
static void test_order_and_timed(void **st)
{
    fixture *f = *st;
    f->cfg.capture_cycles = 4;
    reopen(f);
    pmu_set_pc_sample_hook(f->pmu, on_sample, f);
    assert_int_equal(pmu_reg_write(f->pmu, PMU_PMCNTENSET_EL0, 1ull << 31), ARMPROF_OK);
    assert_int_equal(pmu_reg_write(f->pmu, PMU_PMCR_EL0, 1), ARMPROF_OK);
    ext_wr(f, PMU_EXT_PMPCSCTL, PMU_PMPCSCTL_SS);
    pmu_advance(f->pmu, 10);
    capture(f);
    pmu_advance(f->pmu, 3);
    assert_int_equal(f->hook_calls, 0);
    assert_int_equal(sscr(f), SS);
    assert_int_equal(ext(f, 0x200, 8), 0); /* cold reset value, no read side effect */
    pmu_advance(f->pmu, 1);
    assert_int_equal(f->hook_calls, 1);
    assert_int_equal(f->sscr_in_hook, SS);  /* not yet {0,0} */
    assert_int_equal(f->svr_in_hook, 14);   /* PMCCNTR_EL0 already saved */
    assert_int_equal(sscr(f), 0);
    assert_int_equal(ext(f, 0x200, 8), pmpcsr_of(&f->smp));
    assert_int_equal(f->brbe, 1);
}

/* RLBQZR: one BRBE freeze per successful Capture when configured; none when not. */
static void test_brbe_freeze(void **st)
{
    fixture *f = *st;
    capture(f); /* SS = 0: the freeze does not depend on PC sampling */
    capture(f);
    pmu_snapshot_request(f->pmu);
    assert_int_equal(f->brbe, 3);
    f->cfg.brbe_freeze_on_capture = false;
    reopen(f);
    capture(f);
    assert_int_equal(sscr(f), 0);
    assert_int_equal(f->brbe, 3);
    pmu_stats s;
    pmu_get_stats(f->pmu, &s);
    assert_int_equal(s.brbe_freezes, 0);
    pmu_config c = f->cfg;
    c.brbe_freeze_on_capture = true;
    c.feat_pmuv3_ss = false;
    assert_int_equal(pmu_config_validate(&c, NULL, 0), ARMPROF_ERR_CFG_FEATURE);
}

/* Permitted: the first Capture after PMPCSCTL.SS was set to 1 records 0xFFFFFFFF. */
static void test_first_capture_ones(void **st)
{
    fixture *f = *st;
    f->cfg.pcsr_first_capture_ones = true;
    reopen(f);
    pmu_set_pc_sample(f->pmu, &f->smp);
    ext_wr(f, PMU_EXT_PMPCSCTL, PMU_PMPCSCTL_SS);
    capture(f);
    assert_int_equal(ext(f, 0x200, 8), LO);
    assert_int_equal(ext(f, PMU_EXT_PMCID1SR, 4), 0);
    capture(f);
    assert_int_equal(ext(f, 0x200, 8), pmpcsr_of(&f->smp));
    ext_wr(f, PMU_EXT_PMPCSCTL, PMU_PMPCSCTL_SS); /* still 1: not "set to 1" again */
    capture(f);
    assert_int_equal(ext(f, 0x200, 8), pmpcsr_of(&f->smp));
    ext_wr(f, PMU_EXT_PMPCSCTL, 0);
    ext_wr(f, PMU_EXT_PMPCSCTL, PMU_PMPCSCTL_SS);
    capture(f);
    assert_int_equal(ext(f, 0x200, 8), (pmpcsr_of(&f->smp) & ~LO) | LO);
}

/* H7.1.1.1 / Read_PMPCSR(): with SS == 0 reads sample; suspended (IMP = 1, EN = 0): the read
 * returns 0xFFFFFFFF and sets EN; SS = 1 makes profiling active regardless of EN. */
static void test_read_sampling_suspend(void **st)
{
    fixture *f = *st;
    f->cfg.pcsr_en_imp = true;
    reopen(f);
    pmu_set_pc_sample(f->pmu, &f->smp);
    assert_int_equal(ext(f, 0xE50, 4), PMU_PMPCSCTL_IMP);
    assert_int_equal(ext(f, 0x200, 4), LO);
    assert_int_equal(ext(f, 0xE50, 4), PMU_PMPCSCTL_IMP | PMU_PMPCSCTL_EN);
    assert_int_equal(ext(f, 0x200, 4), 0x56789ABC);
    assert_int_equal(ext(f, 0x204, 4), pmpcsr_of(&f->smp) >> 32);
    assert_int_equal(ext(f, PMU_EXT_PMCID1SR, 4), 0x1111);
    /* suspend again; SS = 1 samples on Capture although EN == 0 */
    ext_wr(f, 0xE50, PMU_PMPCSCTL_SS);
    f->smp.pc = 0x42;
    pmu_set_pc_sample(f->pmu, &f->smp);
    capture(f);
    assert_int_equal(ext(f, 0x200, 4), 0x42);
    assert_int_equal(ext(f, 0xE50, 4), PMU_PMPCSCTL_IMP | PMU_PMPCSCTL_SS);
    /* IMP == 0, active at reset: the first read samples */
    f->cfg.pcsr_en_imp = false;
    f->cfg.pcsr_active_at_reset = true;
    reopen(f);
    pmu_set_pc_sample(f->pmu, &f->smp);
    assert_int_equal(ext(f, 0x200, 4), 0x42);
}

/* Checkpoints include the PC sample registers, PMPCSCTL and the "first Capture" state. */
static void test_save_restore_pcsr(void **st)
{
    fixture *f = *st;
    f->cfg.pcsr_first_capture_ones = true;
    reopen(f);
    pmu_set_pc_sample(f->pmu, &f->smp);
    ext_wr(f, PMU_EXT_PMPCSCTL, PMU_PMPCSCTL_SS);
    capture(f);
    capture(f);
    ext_wr(f, PMU_EXT_PMPCSCTL, 0);
    ext_wr(f, PMU_EXT_PMPCSCTL, PMU_PMPCSCTL_SS); /* the next Capture is a "first" one */
    uint8_t buf[4096];
    size_t len = 0;
    assert_int_equal(pmu_save(f->pmu, buf, sizeof buf, &len), ARMPROF_OK);
    pmu_t *o;
    assert_int_equal(pmu_open(&f->cfg, NULL, &o), ARMPROF_OK);
    assert_int_equal(pmu_restore(o, buf, len), ARMPROF_OK);
    uint64_t v;
    assert_int_equal(pmu_ext_read(o, 0x200, 8, &v), ARMPROF_OK);
    assert_int_equal(v, pmpcsr_of(&f->smp));
    assert_int_equal(pmu_ext_read(o, PMU_EXT_PMCID2SR, 4, &v), ARMPROF_OK);
    assert_int_equal(v, 0x2222);
    assert_int_equal(pmu_ext_read(o, 0xE50, 4, &v), ARMPROF_OK);
    assert_int_equal(v, PMU_PMPCSCTL_SS);
    assert_int_equal(pmu_reg_write(o, PMU_PMSSCR_EL1, SS), ARMPROF_OK);
    assert_int_equal(pmu_ext_read(o, 0x200, 8, &v), ARMPROF_OK);
    assert_int_equal(v, (pmpcsr_of(&f->smp) & ~LO) | LO); /* pcs_first restored */
    capture(f);
    capture(f);
    /* the host's sample travelled too: o's second Capture records it */
    assert_int_equal(pmu_reg_write(o, PMU_PMSSCR_EL1, SS), ARMPROF_OK);
    assert_int_equal(pmu_ext_read(o, 0x200, 8, &v), ARMPROF_OK);
    assert_int_equal(v, pmpcsr_of(&f->smp));
    pmu_close(o);
    /* another PC-sampling configuration does not accept it */
    pmu_config c2 = f->cfg;
    c2.pcsr_first_capture_ones = false;
    assert_int_equal(pmu_open(&c2, NULL, &o), ARMPROF_OK);
    assert_int_equal(pmu_restore(o, buf, len), ARMPROF_ERR_STATE_MISMATCH);
    pmu_close(o);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_config_and_offsets),
        T(test_ss1_allowed_ext32),
        T(test_ss1_allowed_ext64),
        T(test_ss0_unchanged),
        T(test_not_allowed_debug_invalid),
        T(test_prohibited_no_write_no_freeze),
        T(test_order_and_timed),
        T(test_brbe_freeze),
        T(test_first_capture_ones),
        T(test_read_sampling_suspend),
        T(test_save_restore_pcsr),
    };
    return cmocka_run_group_tests_name("pmu_pcsr", tests, NULL, NULL);
}
