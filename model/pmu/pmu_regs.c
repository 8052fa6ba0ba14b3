/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pmu_regs.c: the PMU's System registers (Arm ARM D24.5): which exist in the configuration,
 * access checks (PMUSERENR_EL0 at EL0; counters reserved for EL2 by MDCR_EL2.HPMN are UNDEFINED at
 * EL1 and EL0), RES0 and read-only fields, the SET/CLR pairs, PMCR_EL0, PMSELR_EL0 / PMXEV*,
 * reset, and the register access entry points.
 */
#include <string.h>

#include "armprof/pmu.h"
#include "pmu/pmu_internal.h"

/* Does this configuration implement the register at all? */
static bool slot_present(const pmu_t *p, unsigned s)
{
    switch (s) {
    case S_ICNTR:
    case S_ICFILTR:
        return p->cfg.feat_pmuv3_icntr;
    case S_SSCR:
    case S_ECR:
    case S_CCNTSVR:
        return p->cfg.feat_pmuv3_ss;
    case S_ICNTSVR:
        return p->cfg.feat_pmuv3_ss && p->cfg.feat_pmuv3_icntr;
    default:
        break;
    }
    if (pmu_is_evcntsvr(s) && !p->cfg.feat_pmuv3_ss)
        return false;
    return true;
}

static bool slot_is_el1(unsigned s)
{
    return s == S_INTENSET || s == S_INTENCLR || s == S_SSCR || s == S_ECR || s == S_CCNTSVR ||
           s == S_ICNTSVR || pmu_is_evcntsvr(s);
}

/* ----- Access checks ----------------------------------------------------------------------- */

/*
 * The access rules modelled: registers of features not configured do not exist (NOREG);
 * PMEVCNTR<n>/PMEVTYPER<n>/PMEVCNTSVR<n> with n >= PMCR_EL0.N are UNDEFINED (the CONSTRAINED
 * UNPREDICTABLE choice, docs/implementation-defined.md); reads of PMSWINC_EL0 are UNDEFINED; at EL0 the
 * _EL1 registers are UNDEFINED and the _EL0 ones follow PMUSERENR_EL0.{EN,SW,CR,ER} (a denied
 * EL0 access traps to EL1, reported as ARMPROF_ERR_UNDEFINED). EL2/EL3 traps (MDCR_ELx.TPM,
 * fine-grained traps) belong to the host CPU model and are not modelled.
 */
static armprof_err pmu_check(void *unit, const ap_regdef *r, bool write)
{
    const pmu_t *p = unit;
    unsigned s = r->slot;
    if (!slot_present(p, s))
        return ARMPROF_ERR_NOREG;
    int n = pmu_slot_counter(s);
    if (n >= 0 && n >= p->cfg.num_counters)
        return ARMPROF_ERR_UNDEFINED;
    /* n >= GetNumEventCountersAccessible(): EL2's counter, UNDEFINED at EL1 and EL0 */
    if (n >= 0 && (unsigned)n >= pmu_counters_accessible(p))
        return ARMPROF_ERR_UNDEFINED;
    if (s == S_SWINC && !write)
        return ARMPROF_ERR_UNDEFINED;
    if (p->ctx.el != 0)
        return ARMPROF_OK;
    if (slot_is_el1(s))
        return ARMPROF_ERR_UNDEFINED;
    uint64_t ue = p->vals[S_USERENR];
    if (s == S_USERENR)
        return write ? ARMPROF_ERR_UNDEFINED : ARMPROF_OK;
    if (ue & USERENR_EN)
        return ARMPROF_OK;
    if (s == S_CCNTR && !write && (ue & USERENR_CR))
        return ARMPROF_OK;
    if ((pmu_is_evcntr(s) || s == S_XEVCNTR) && !write && (ue & USERENR_ER))
        return ARMPROF_OK;
    if (s == S_SELR && (ue & USERENR_ER))
        return ARMPROF_OK;
    if (s == S_SWINC && write && (ue & USERENR_SW))
        return ARMPROF_OK;
    return ARMPROF_ERR_UNDEFINED;
}

/* ----- Register hooks ---------------------------------------------------------------------- */

static uint64_t res0_counter_mask(void *unit, const ap_regdef *r)
{
    (void)r;
    return ~pmu_counter_mask(unit);
}

static uint64_t res0_swinc(void *unit, const ap_regdef *r)
{
    (void)r;
    return ~(pmu_counter_mask(unit) & AP_GENMASK(30, 0));
}

static uint64_t res0_pmcr(void *unit, const ap_regdef *r)
{
    const pmu_t *p = unit;
    (void)r;
    uint64_t m = 0;
    if (!p->cfg.feat_pmuv3p5)
        m |= PMCR_LP;
    if (!p->cfg.feat_pmuv3p7)
        m |= PMCR_FZO;
    if (!p->cfg.feat_spev1p2)
        m |= PMCR_FZS;
    return m;
}

static uint64_t res0_evcntr(void *unit, const ap_regdef *r)
{
    const pmu_t *p = unit;
    (void)r;
    return p->cfg.feat_pmuv3p5 ? 0 : AP_GENMASK(63, 32);
}

/* The *CLR registers read as their *SET register, whose slot holds the state. */
static unsigned set_slot_of(unsigned s)
{
    return s == S_CNTENCLR ? S_CNTENSET : s == S_OVSCLR ? S_OVSSET : S_INTENSET;
}

static uint64_t read_clr(void *unit, const ap_regdef *r, uint64_t stored)
{
    const pmu_t *p = unit;
    (void)stored;
    return p->vals[set_slot_of(r->slot)] & pmu_access_mask(p);
}

static uint64_t read_set(void *unit, const ap_regdef *r, uint64_t stored)
{
    (void)r;
    return stored & pmu_access_mask(unit);
}

static uint64_t prewrite_set(void *unit, const ap_regdef *r, uint64_t old, uint64_t v)
{
    (void)r;
    return old | (v & pmu_access_mask(unit));
}

static void postwrite_clr(void *unit, const ap_regdef *r, uint64_t old, uint64_t v)
{
    pmu_t *p = unit;
    (void)old;
    p->vals[set_slot_of(r->slot)] &= ~(v & pmu_access_mask(p));
    p->vals[r->slot] = 0;
}

/* PMCR_EL0.N read at EL1 or EL0 with EL2 enabled in the current Security state: MDCR_EL2.HPMN. */
static uint64_t read_pmcr(void *unit, const ap_regdef *r, uint64_t stored)
{
    (void)r;
    return (stored & ~PMCR_N) | ap_field_prep(PMCR_N, pmu_counters_accessible(unit));
}

static void postwrite_pmcr(void *unit, const ap_regdef *r, uint64_t old, uint64_t v)
{
    pmu_t *p = unit;
    (void)r; (void)old;
    /* ClearEventCounters(): PMEVCNTR<n>_EL0 only; at EL1 and EL0 with EL2 enabled, not the
     * counters reserved for EL2 */
    if (v & PMCR_P)
        for (unsigned i = 0; i < pmu_counters_accessible(p); i++)
            p->vals[S_EVCNTR0 + i] = 0;
    if (v & PMCR_C) /* ZeroCycleCounter() */
        p->vals[S_CCNTR] = 0;
    p->vals[S_PMCR] &= ~(PMCR_P | PMCR_C); /* write-only bits read as 0 */
}

/* ----- The register table ------------------------------------------------------------------ */

#define REG(nm, e, s, ...) { .name = nm, .enc = (e), .slot = (s), .check = pmu_check, __VA_ARGS__ }
#define CNTMASK_SET(nm, e, s) \
    REG(nm, e, s, .read = read_set, .prewrite = prewrite_set, .res0_extra = res0_counter_mask)
#define CNTMASK_CLR(nm, e, s) \
    REG(nm, e, s, .read = read_clr, .postwrite = postwrite_clr, .res0_extra = res0_counter_mask)
#define FILTER_RES0 (AP_GENMASK(63, 32) | EVT_MT | EVT_T | AP_GENMASK(19, 16))

#define EVCNTR(n) REG("PMEVCNTR" #n "_EL0", PMU_PMEVCNTR_EL0(n), S_EVCNTR0 + (n), \
                      .flags = AP_REG_NORESET, .res0_extra = res0_evcntr)
#define EVTYPER(n) REG("PMEVTYPER" #n "_EL0", PMU_PMEVTYPER_EL0(n), S_EVTYPER0 + (n), \
                       .flags = AP_REG_NORESET, .res0 = FILTER_RES0)
#define EVCNTSVR(n) REG("PMEVCNTSVR" #n "_EL1", PMU_PMEVCNTSVR_EL1(n), S_EVCNTSVR0 + (n), \
                        .flags = AP_REG_RO | AP_REG_NORESET)
#define ALL31(X) X(0), X(1), X(2), X(3), X(4), X(5), X(6), X(7), X(8), X(9), X(10), X(11), \
    X(12), X(13), X(14), X(15), X(16), X(17), X(18), X(19), X(20), X(21), X(22), X(23), X(24), \
    X(25), X(26), X(27), X(28), X(29), X(30)

static const ap_regdef pmu_regdefs[] = {
    REG("PMCR_EL0", PMU_PMCR_EL0, S_PMCR, .res0 = AP_GENMASK(63, 33) | AP_BIT(10) | AP_BIT(8),
        .ro = PMCR_N | PMCR_IDCODE | PMCR_IMP, .res0_extra = res0_pmcr, .read = read_pmcr,
        .postwrite = postwrite_pmcr),
    CNTMASK_SET("PMCNTENSET_EL0", PMU_PMCNTENSET_EL0, S_CNTENSET),
    CNTMASK_CLR("PMCNTENCLR_EL0", PMU_PMCNTENCLR_EL0, S_CNTENCLR),
    CNTMASK_CLR("PMOVSCLR_EL0", PMU_PMOVSCLR_EL0, S_OVSCLR),
    REG("PMSWINC_EL0", PMU_PMSWINC_EL0, S_SWINC, .res0_extra = res0_swinc,
        .postwrite = pmu_postwrite_swinc),
    REG("PMSELR_EL0", PMU_PMSELR_EL0, S_SELR, .res0 = AP_GENMASK(63, 5), .flags = AP_REG_NORESET),
    REG("PMCEID0_EL0", PMU_PMCEID0_EL0, S_CEID0, .flags = AP_REG_RO),
    REG("PMCEID1_EL0", PMU_PMCEID1_EL0, S_CEID1, .flags = AP_REG_RO),
    REG("PMCCNTR_EL0", PMU_PMCCNTR_EL0, S_CCNTR, .flags = AP_REG_NORESET),
    REG("PMXEVTYPER_EL0", PMU_PMXEVTYPER_EL0, S_XEVTYPER),
    REG("PMXEVCNTR_EL0", PMU_PMXEVCNTR_EL0, S_XEVCNTR),
    REG("PMUSERENR_EL0", PMU_PMUSERENR_EL0, S_USERENR, .res0 = AP_GENMASK(63, 4),
        .flags = AP_REG_NORESET),
    CNTMASK_SET("PMINTENSET_EL1", PMU_PMINTENSET_EL1, S_INTENSET),
    CNTMASK_CLR("PMINTENCLR_EL1", PMU_PMINTENCLR_EL1, S_INTENCLR),
    CNTMASK_SET("PMOVSSET_EL0", PMU_PMOVSSET_EL0, S_OVSSET),
    REG("PMCCFILTR_EL0", PMU_PMCCFILTR_EL0, S_CCFILTR, .res0 = FILTER_RES0 | AP_GENMASK(15, 0)),
    REG("PMICNTR_EL0", PMU_PMICNTR_EL0, S_ICNTR, .flags = AP_REG_NORESET),
    REG("PMICFILTR_EL0", PMU_PMICFILTR_EL0, S_ICFILTR, .res0 = FILTER_RES0,
        .ro = EVT_EVTCOUNT, .reset = PMU_EV_INST_RETIRED),
    REG("PMSSCR_EL1", PMU_PMSSCR_EL1, S_SSCR, .res0 = ~(PMSSCR_NC | PMSSCR_SS), .ro = PMSSCR_NC,
        .prewrite = pmu_prewrite_sscr, .postwrite = pmu_postwrite_sscr),
    REG("PMECR_EL1", PMU_PMECR_EL1, S_ECR, .res0 = ~PMECR_SSE),
    REG("PMCCNTSVR_EL1", PMU_PMCCNTSVR_EL1, S_CCNTSVR, .flags = AP_REG_RO | AP_REG_NORESET),
    REG("PMICNTSVR_EL1", PMU_PMICNTSVR_EL1, S_ICNTSVR, .flags = AP_REG_RO | AP_REG_NORESET),
    ALL31(EVCNTR),
    ALL31(EVTYPER),
    ALL31(EVCNTSVR),
};
#define PMU_NREGS (sizeof(pmu_regdefs) / sizeof(pmu_regdefs[0]))

/* Reset value, with the configuration's read-only fields. */
static uint64_t reset_value(const pmu_t *p, const ap_regdef *r)
{
    switch (r->slot) {
    case S_PMCR:
        return ap_field_prep(PMCR_N, p->cfg.num_counters) | ap_field_prep(PMCR_IMP, p->cfg.imp) |
               ap_field_prep(PMCR_IDCODE, p->cfg.idcode);
    case S_CEID0:
        return p->cfg.pmceid0;
    case S_CEID1:
        return p->cfg.pmceid1;
    default:
        return r->reset;
    }
}

void pmu_do_reset(pmu_t *p, bool cold)
{
    pmu_settle(p); /* counters that keep their value over a Warm reset count up to it */
    ap_reg_reset(&p->rf, cold);
    for (size_t i = 0; i < PMU_NREGS; i++)
        p->vals[pmu_regdefs[i].slot] = (pmu_regdefs[i].flags & AP_REG_NORESET) && !cold
                                           ? p->vals[pmu_regdefs[i].slot]
                                           : reset_value(p, &pmu_regdefs[i]);
    p->capture_pending = false;
    p->capture_remaining = 0;
    p->spe_stopped = false;
    /* PC sample registers: 0 at Cold reset, unchanged by Warm reset (UNKNOWN). PMPCSCTL.{SS,EN}
     * reset to 0; with IMP == 0 the state after reset is the configured one (H7.1.1.1). */
    if (cold)
        p->pcsr = p->cid1sr = p->cid2sr = p->vidsr = p->ccidsr = p->vcidsr = 0;
    p->pcsctl = p->cfg.feat_pcsr && p->cfg.pcsr_en_imp ? PMU_PMPCSCTL_IMP : 0;
    p->pcs_suspended = !p->cfg.pcsr_active_at_reset;
    p->pcs_first = false;
    pmu_reconfigure(p);
    pmu_update_irq(p);
}

/* ----- Register access --------------------------------------------------------------------- */

/*
 * PMXEVTYPER_EL0 / PMXEVCNTR_EL0 reach the register PMSELR_EL0.SEL selects: SEL == 31 selects
 * PMCCFILTR_EL0 for PMXEVTYPER_EL0; PMXEVCNTR_EL0 with SEL == 31, and SEL >= N, are UNDEFINED
 * (CONSTRAINED UNPREDICTABLE choice).
 */
static armprof_err redirect(const pmu_t *p, uint32_t *enc)
{
    if (*enc != PMU_PMXEVTYPER_EL0 && *enc != PMU_PMXEVCNTR_EL0)
        return ARMPROF_OK;
    unsigned sel = (unsigned)ap_field_get(PMSELR_SEL, p->vals[S_SELR]);
    if (sel == 31 && *enc == PMU_PMXEVTYPER_EL0) {
        *enc = PMU_PMCCFILTR_EL0;
        return ARMPROF_OK;
    }
    if (sel >= pmu_counters_accessible(p))
        return ARMPROF_ERR_UNDEFINED;
    *enc = *enc == PMU_PMXEVTYPER_EL0 ? PMU_PMEVTYPER_EL0(sel) : PMU_PMEVCNTR_EL0(sel);
    return ARMPROF_OK;
}

/* The access checks of a read or write of `enc` (PMXEV* first by their own check, then as the
 * register they select), with no effect; on ARMPROF_OK *enc names the register accessed. */
static armprof_err access_check(const pmu_t *p, uint32_t *enc, bool write)
{
    const ap_regdef *r = ap_reg_find(&p->rf, *enc);
    if (r && (*enc == PMU_PMXEVTYPER_EL0 || *enc == PMU_PMXEVCNTR_EL0)) {
        armprof_err e = pmu_check((void *)p, r, write);
        if (e != ARMPROF_OK)
            return e;
        if ((e = redirect(p, enc)) != ARMPROF_OK)
            return e;
    }
    return ap_reg_check(&p->rf, *enc, write);
}

armprof_err pmu_reg_check(const pmu_t *p, uint32_t enc, bool is_write)
{
    if (!p)
        return ARMPROF_ERR_INVAL;
    return access_check(p, &enc, is_write);
}

armprof_err pmu_reg_read(pmu_t *p, uint32_t enc, uint64_t *val)
{
    if (!p || !val)
        return ARMPROF_ERR_INVAL;
    pmu_settle(p);
    armprof_err e = access_check(p, &enc, false);
    if (e != ARMPROF_OK)
        return e;
    return ap_reg_read(&p->rf, enc, val);
}

armprof_err pmu_reg_write(pmu_t *p, uint32_t enc, uint64_t val)
{
    if (!p)
        return ARMPROF_ERR_INVAL;
    pmu_settle(p);
    armprof_err e = access_check(p, &enc, true);
    if (e != ARMPROF_OK)
        return e;
    e = ap_reg_write(&p->rf, enc, val);
    if (e == ARMPROF_OK) {
        pmu_reconfigure(p); /* PMCR_EL0, PMCNTEN*, PMEVTYPER*, filters, counter values */
        pmu_update_irq(p);
    }
    return e;
}

armprof_err pmu_reg_peek(const pmu_t *p, uint32_t enc, uint64_t *val)
{
    if (!p || !val)
        return ARMPROF_ERR_INVAL;
    /* Settling pending cycles changes no observable state: the counters read as if settled. */
    pmu_settle((pmu_t *)p);
    armprof_err e = redirect(p, &enc);
    if (e != ARMPROF_OK)
        return e;
    const ap_regdef *r = ap_reg_find(&p->rf, enc);
    if (!r || !slot_present(p, r->slot))
        return ARMPROF_ERR_NOREG;
    uint64_t v = p->vals[r->slot];
    *val = r->read ? r->read((void *)p, r, v) : v;
    return ARMPROF_OK;
}

static bool reg_listed(const pmu_t *p, const ap_regdef *r)
{
    int n = pmu_slot_counter(r->slot);
    return slot_present(p, r->slot) && (n < 0 || n < p->cfg.num_counters);
}

size_t pmu_reg_count(const pmu_t *p)
{
    size_t n = 0;
    for (size_t i = 0; i < PMU_NREGS; i++)
        n += reg_listed(p, &pmu_regdefs[i]);
    return n;
}

armprof_err pmu_reg_info_at(const pmu_t *p, size_t index, pmu_reg_info *info)
{
    if (!p || !info)
        return ARMPROF_ERR_INVAL;
    for (size_t i = 0; i < PMU_NREGS; i++) {
        const ap_regdef *r = &pmu_regdefs[i];
        if (!reg_listed(p, r))
            continue;
        if (index--)
            continue;
        memset(info, 0, sizeof(*info));
        info->name = r->name;
        info->enc = r->enc;
        info->reset = reset_value(p, r);
        info->res0 = ap_reg_res0(&p->rf, r);
        info->ro = r->ro;
        info->read_only = r->flags & AP_REG_RO;
        info->write_only = r->slot == S_SWINC;
        return ARMPROF_OK;
    }
    return ARMPROF_ERR_INVAL;
}

void pmu_regs_init(pmu_t *p)
{
    p->rf.defs = pmu_regdefs;
    p->rf.count = PMU_NREGS;
    p->rf.vals = p->vals;
    p->rf.unit = p;
}
