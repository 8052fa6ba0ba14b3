/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pmu_filter.c: CountPMUEvents(idx) (Arm ARM D13, D24.5): the main enable (PMCR_EL0.E, or
 * MDCR_EL2.HPME for a counter reserved for EL2 by MDCR_EL2.HPMN), PMCNTENSET_EL0, counting
 * prohibited in Secure state / at EL3 (MDCR_EL3.SPME) and at EL2 (MDCR_EL2.HPMD), Debug state,
 * the {P, U, NSK, NSU, NSH, M, SH, RLK, RLU, RLH} filters of PMEVTYPER<n>_EL0 / PMCCFILTR_EL0 /
 * PMICFILTR_EL0, and freezing on SPE events (SPEFreezeOnEvent: PMCR_EL0.FZS, MDCR_EL2.HPMFZS).
 * Evaluated when an input changes; pmu_count.c caches the result.
 */
#include "armprof/pmu.h"
#include "pmu/pmu_internal.h"

static uint64_t filter_reg(const pmu_t *p, unsigned idx)
{
    if (idx == PMU_CYCLE_COUNTER_ID)
        return p->vals[S_CCFILTR];
    if (idx == PMU_INSTRUCTION_COUNTER_ID)
        return p->vals[S_ICFILTR];
    return p->vals[S_EVTYPER0 + idx];
}

/* The {P, U, NSK, NSU, NSH, M, SH, RLK, RLU, RLH} filter of CountPMUEvents(). */
static bool filtered(const armprof_pe_ctx *c, uint64_t f)
{
    bool el3 = c->have_el3, el2 = c->have_el2;
    bool p = f & EVT_P, u = f & EVT_U;
    bool nsk = el3 && (f & EVT_NSK), nsu = el3 && (f & EVT_NSU);
    bool nsh = el2 && (f & EVT_NSH), m = el3 && (f & EVT_M);
    bool sh = el3 && el2 && (f & EVT_SH);
    bool rlk = c->have_rme && (f & EVT_RLK), rlu = c->have_rme && (f & EVT_RLU);
    bool rlh = c->have_rme && (f & EVT_RLH);
    armprof_security ss = armprof_pe_security(c);
    switch (c->el) {
    case 0:
        return ss == ARMPROF_SECURE ? u : ss == ARMPROF_REALM ? u != rlu : u != nsu;
    case 1:
        return ss == ARMPROF_SECURE ? p : ss == ARMPROF_REALM ? p != rlk : p != nsk;
    case 2:
        return ss == ARMPROF_SECURE ? nsh == sh : ss == ARMPROF_REALM ? nsh == rlh : !nsh;
    default:
        return m != p;
    }
}

/* SPEFreezeOnEvent(idx): PMCR_EL0.FZS, or MDCR_EL2.HPMFZS for a counter reserved for EL2 (also
 * when EL2 is disabled in the current Security state), with the SPU's freeze level. */
static bool spe_freeze_on_event(const pmu_t *p, unsigned idx, bool hyp)
{
    if (!p->cfg.feat_spev1p2 || !p->cfg.feat_pmuv3p7)
        return false;
    if (idx == PMU_CYCLE_COUNTER_ID && !p->cfg.feat_spe_dpfzs)
        return false; /* FZS does not affect the cycle counter without FEAT_SPE_DPFZS */
    bool fz = hyp ? p->ctx.mdcr2_hpmfzs : (p->vals[S_PMCR] & PMCR_FZS) != 0;
    return p->spe_stopped && fz;
}

/* CountPMUEvents(idx), first counter range and second (MDCR_EL2.HPMN). */
static bool count_enabled(const pmu_t *p, unsigned idx)
{
    const armprof_pe_ctx *c = &p->ctx;
    if (c->debug_state)
        return false; /* event counting is disabled in Debug state */
    uint64_t pmcr = p->vals[S_PMCR];
    bool hyp = idx < PMU_MAX_COUNTERS && (pmu_hyp_mask(p) & AP_BIT(idx));
    /* Main enable: MDCR_EL2.HPME for a counter reserved for EL2, else PMCR_EL0.E. */
    bool e = hyp ? c->mdcr2_hpme : (pmcr & PMCR_E) != 0;
    bool enabled = e && (p->vals[S_CNTENSET] & AP_BIT(idx));
    bool prohibited = false;
    armprof_security ss = armprof_pe_security(c);
    /* Secure state or EL3 with MDCR_EL3.SPME == 0 (MDCR_EL3.MPMX taken as 0). */
    if (c->have_el3 && (ss == ARMPROF_SECURE || c->el == 3))
        prohibited = !c->mdcr3_spme;
    /* At EL2, MDCR_EL2.HPMD prohibits the counters not reserved for EL2 (FEAT_PMUv3p1). */
    if (!prohibited && c->el == 2 && !hyp)
        prohibited = c->mdcr2_hpmd;
    bool frozen = spe_freeze_on_event(p, idx, hyp);
    if (idx == PMU_CYCLE_COUNTER_ID) {
        /* PMCR_EL0.DP disables the cycle counter when counting is prohibited or frozen;
         * otherwise neither affects it. */
        if (prohibited || frozen)
            enabled = enabled && !(pmcr & PMCR_DP);
        prohibited = frozen = false;
    }
    return enabled && !prohibited && !frozen && !filtered(c, filter_reg(p, idx));
}

/* CountPMUEvents() of every implemented counter, as a counter mask. */
uint64_t pmu_count_mask_now(const pmu_t *p)
{
    uint64_t m = 0;
    for (unsigned i = 0; i < p->cfg.num_counters; i++)
        if (count_enabled(p, i))
            m |= AP_BIT(i);
    if (count_enabled(p, PMU_CYCLE_COUNTER_ID))
        m |= CNT_C;
    if (p->cfg.feat_pmuv3_icntr && count_enabled(p, PMU_INSTRUCTION_COUNTER_ID))
        m |= CNT_F0;
    return m;
}

void pmu_freeze_sink(void *pmu)
{
    pmu_t *p = pmu;
    if (!p)
        return;
    p->stats.freeze_events++;
    pmu_set_spe_freeze(p, true);
}

void pmu_set_spe_freeze(pmu_t *p, bool stopped)
{
    if (p->spe_stopped == stopped)
        return;
    pmu_settle(p);
    p->spe_stopped = stopped;
    pmu_reconfigure(p);
}

bool pmu_spe_frozen(const pmu_t *p)
{
    return spe_freeze_on_event(p, 0, false); /* the first range (PMCR_EL0.FZS) */
}
