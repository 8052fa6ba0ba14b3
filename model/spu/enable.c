/* SPDX-License-Identifier: Apache-2.0 */
/* enable.c: enabling profiling and the Profiling Buffer: seed 001 §3.2.1 "Enabling Profiling",
 * §3.2.3 StatisticalProfilingEnabled(), §3.4.2 "The owning Exception level", §3.4.6
 * ProfilingBufferEnabled() / ProfilingBufferOwner(); seed 000 D17.7.5 (RWWFKZ, RBWRVP, RKFMHR,
 * RTDHBH, RKRVDC, Table D17-4: the owning Security state, Exception level and translation regime)
 * and D17.7 RKLGPG (the Effective nVM). spu_reevaluate() recomputes everything derived from the
 * registers and the PE context after any change of them. */
#include <string.h>

#include "spu_internal.h"

bool spu_buffer_owner(const spu_t *spu, armprof_security *ss, uint8_t *el)
{
    const armprof_pe_ctx *c = &spu->ctx;
    armprof_security s;
    if (!c->have_el3) {
        s = armprof_pe_security(c);
    } else if (c->have_rme) {
        bool ns_owned = (c->mdcr3_nspb & 2) != 0;
        if (c->mdcr3_nspbe)
            s = ns_owned ? ARMPROF_REALM : ARMPROF_ROOT; /* {1, 0b0x}: reserved */
        else
            s = ns_owned ? ARMPROF_NONSECURE : ARMPROF_SECURE;
        if (s == ARMPROF_ROOT)
            return false;
        if (s == ARMPROF_SECURE && !c->have_secure)
            return false;
    } else {
        s = (c->mdcr3_nspb & 2) ? ARMPROF_NONSECURE : ARMPROF_SECURE;
    }
    *ss = s;
    *el = (armprof_pe_el2_enabled(c, s) && c->mdcr2_e2pb == 0) ? 2 : 1;
    return true;
}

/* The Security state that SCR_EL3.{NSE,NS} selects for the lower Exception levels. */
static armprof_security lower_state(const armprof_pe_ctx *c)
{
    if (!c->have_el3)
        return armprof_pe_security(c);
    if (c->have_rme && c->scr_nse)
        return c->scr_ns ? ARMPROF_REALM : ARMPROF_SECURE;
    return c->scr_ns ? ARMPROF_NONSECURE : ARMPROF_SECURE;
}

/* ProfilingBufferEnabled(), filling the owning translation regime. */
bool spu_eval_buffer_enabled(const spu_t *spu, armprof_regime *rg)
{
    const uint64_t lim = spu_reg(spu, R_PMBLIMITR_EL1);
    armprof_security ss;
    uint8_t el;
    if (!spu_buffer_owner(spu, &ss, &el))
        return false;
    if (ss != lower_state(&spu->ctx))
        return false;
    if (!ap_field_get(PMBLIMITR_E, lim) || ap_field_get(PMBSR_S, spu_reg(spu, R_PMBSR_EL1)))
        return false;
    if (rg) {
        const armprof_pe_ctx *c = &spu->ctx;
        memset(rg, 0, sizeof(*rg));
        rg->ss = ss;
        rg->el = el;
        rg->kind = el == 1 ? ARMPROF_REGIME_EL10 : (c->hcr_e2h ? ARMPROF_REGIME_EL20 : ARMPROF_REGIME_EL2);
        rg->stage2 = el == 1 && armprof_pe_el2_enabled(c, ss) && c->hcr_vm;
        /* RKLGPG: the Effective PMBLIMITR_EL1.nVM is 0 without FEAT_SPE_nVM, and when EL2 is
         * implemented and enabled in the owning Security state, the owning EL is EL1 and the
         * Effective PMSCR_EL2.EnVM is 0: a guest cannot bypass its stage 1 unless EL2 lets it. */
        bool envm = ap_field_get(AP_BIT(spu->cfg.envm_bit), spu_reg(spu, R_PMSCR_EL2)) != 0;
        rg->nvm = spu->cfg.feat_spe_nvm && (lim & AP_BIT(spu->cfg.nvm_bit)) &&
                  !(armprof_pe_el2_enabled(c, ss) && el == 1 && !envm);
        rg->hw_flag_update = spu->cfg.flag_update;
        rg->mar = (uint16_t)spu_reg(spu, R_PMBMAR_EL1);
        rg->unit = ARMPROF_UNIT_SPU;
        rg->pe = spu->cfg.pe_index;
    }
    return true;
}

/* StatisticalProfilingEnabled() */
bool spu_eval_profiling_enabled(const spu_t *spu)
{
    const armprof_pe_ctx *c = &spu->ctx;
    if (c->aarch32 || c->debug_state || c->el == 3 || !spu->buf_enabled)
        return false;
    armprof_security cur = armprof_pe_security(c);
    armprof_security oss;
    uint8_t oel;
    if (!spu_buffer_owner(spu, &oss, &oel))
        return false;
    bool in_host = cur != ARMPROF_SECURE ? (c->have_el2 && c->hcr_tge)
                                         : (armprof_pe_el2_enabled(c, cur) && c->hcr_tge);
    if (oel < c->el || oss != cur || (in_host && oel == 1))
        return false;
    uint64_t el1 = spu_reg(spu, R_PMSCR_EL1), el2 = spu_reg(spu, R_PMSCR_EL2);
    switch (c->el) {
    case 2: return ap_field_get(PMSCR_E1SPE, el2);                  /* E2SPE */
    case 1: return ap_field_get(PMSCR_E1SPE, el1);                  /* E1SPE */
    default: return in_host ? ap_field_get(PMSCR_E0SPE, el2)        /* E0HSPE */
                            : ap_field_get(PMSCR_E0SPE, el1);       /* E0SPE */
    }
}

void spu_reevaluate(spu_t *spu)
{
    bool was = spu->prof_enabled;
    spu->buf_enabled = spu_eval_buffer_enabled(spu, &spu->regime);
    spu->prof_enabled = spu_eval_profiling_enabled(spu);
    spu_sample_attrs_update(spu);
    if (spu->prof_enabled && !was && !spu->ext) /* an external sampler initialises its own */
        spu_counter_on_enable(spu);
}

armprof_err spu_set_pe_context(spu_t *spu, const armprof_pe_ctx *ctx)
{
    if (!spu || !ctx || ctx->el > 3)
        return ARMPROF_ERR_INVAL;
    spu->ctx = *ctx;
    spu_reevaluate(spu);
    return ARMPROF_OK;
}

const armprof_pe_ctx *spu_get_pe_context(const spu_t *spu) { return &spu->ctx; }
bool spu_irq_level(const spu_t *spu) { return spu->irq; }
bool spu_profiling_enabled(const spu_t *spu) { return spu->prof_enabled; }

bool spu_buffer_enabled(const spu_t *spu, armprof_regime *regime)
{
    if (spu->buf_enabled && regime)
        *regime = spu->regime;
    return spu->buf_enabled;
}
