/* SPDX-License-Identifier: Apache-2.0 */
/* trbu_route.c: ownership and the owning translation regime, management event routing (RBNQRP), TRBE Profiling
 * exception (RMFMXQ) and TRBIRQ (RVSCDV). */
#include <string.h>

#include "trbu_internal.h"

/*
 * The owning Security state comes from MDCR_EL3.{NSTBE, NSTB[1]} (0b00 Secure, 0b01 Non-secure,
 * 0b11 Realm; 0b10 reserved, taken as Secure). Without EL3 it is the PE's own Security state.
 */
armprof_security trbu_owning_ss(const trbu_t *t)
{
    const armprof_pe_ctx *c = &t->ctx;
    if (!c->have_el3)
        return armprof_pe_security(c);
    bool nstb1 = (c->mdcr3_nstb & 0x2) != 0;
    if (c->have_rme && c->mdcr3_nstbe)
        return nstb1 ? ARMPROF_REALM : ARMPROF_SECURE;
    return nstb1 ? ARMPROF_NONSECURE : ARMPROF_SECURE;
}

/* Owning Exception level: EL2 when EL2 is enabled in the owning Security state and
 * MDCR_EL2.E2TB is 0b00 (0b01 is reserved and behaves as 0b00 here), else EL1. */
uint8_t trbu_owning_el(const trbu_t *t)
{
    const armprof_pe_ctx *c = &t->ctx;
    if (armprof_pe_el2_enabled(c, trbu_owning_ss(t)) && (c->mdcr2_e2tb & 0x2) == 0)
        return 2;
    return 1;
}

trbu_event_kind trbu_kind_of(uint8_t ec, uint8_t fsc)
{
    if (ec == ARMPROF_EC_GPC)
        return TRBU_EVK_GPC;
    if (ec != ARMPROF_EC_S1_ABORT && ec != ARMPROF_EC_S2_ABORT)
        return TRBU_EVK_OTHER;
    bool s2 = ec == ARMPROF_EC_S2_ABORT;
    /* GPF: 0b101000 on the access, 0b1001xx / 0b100011 on a translation table walk. */
    bool gpf = fsc == ARMPROF_FSC_GPF || (fsc & 0x3C) == 0x24 || fsc == 0x23;
    /* External abort: on the write (0b010000, 0b010001) or on a walk (0b0101xx, 0b010011). */
    bool ea = fsc == ARMPROF_FSC_SEA_WRITE || fsc == ARMPROF_FSC_AEA_WRITE ||
              (fsc & 0x3C) == ARMPROF_FSC_SEA_WALK || fsc == 0x13;
    if (gpf)
        return s2 ? TRBU_EVK_S2_GPF : TRBU_EVK_S1_GPF;
    if (ea)
        return s2 ? TRBU_EVK_S2_EA : TRBU_EVK_S1_EA;
    return s2 ? TRBU_EVK_S2_OTHER : TRBU_EVK_S1_OTHER;
}

static bool eff_scr_ns(const armprof_pe_ctx *c)
{
    return c->have_el3 ? c->scr_ns : armprof_pe_security(c) != ARMPROF_SECURE;
}
static bool eff_scr_eel2(const armprof_pe_ctx *c)
{
    return c->have_el3 ? c->scr_eel2 : true;
}

/*
 * RBNQRP: which TRBSR_ELx records a management event (Tables D6-5, D6-6, D6-7). Without
 * FEAT_TRBE_EXC, or with self-hosted trace disabled, always TRBSR_EL1.
 */
uint8_t trbu_event_route(const trbu_t *t, trbu_event_kind kind)
{
    const armprof_pe_ctx *c = &t->ctx;
    if (!t->cfg.feat_trbe_exc || c->self_hosted_trace_off)
        return 1;
    bool gpf = kind == TRBU_EVK_S1_GPF || kind == TRBU_EVK_S2_GPF;
    bool ea = kind == TRBU_EVK_S1_EA || kind == TRBU_EVK_S2_EA;
    bool s2 = kind == TRBU_EVK_S2_GPF || kind == TRBU_EVK_S2_EA || kind == TRBU_EVK_S2_OTHER;
    bool fault = kind != TRBU_EVK_OTHER;

    if (c->have_el3) {
        /* A fault that a store at the owning EL would take to EL3: GPC faults other than GPFs,
         * GPFs when SCR_EL3.GPF, External aborts when SCR_EL3.EA. */
        bool to_el3 = kind == TRBU_EVK_GPC || (gpf && c->scr_gpf) || (ea && c->scr_ea);
        if (c->mdcr3_trbee == 0x3 || (c->mdcr3_trbee == 0x2 && to_el3))
            return 3;
    }
    if ((!c->have_el3 || c->mdcr3_trbee != 0x0) && c->have_el2 &&
        (eff_scr_ns(c) || eff_scr_eel2(c))) {
        uint8_t ee2 = c->trfcr_el2_ee;
        /* A fault that a store at the owning EL would take to EL2: any fault when EL2 owns the
         * buffer; with EL1 owning it, stage 2 faults, GPFs when HCR_EL2.GPF, External aborts
         * when HCR_EL2.TEA. */
        bool to_el2;
        if (trbu_owning_el(t) == 2)
            to_el2 = fault;
        else
            to_el2 = (fault && s2) || (gpf && c->hcr_gpf) || (ea && c->hcr_tea);
        if (ee2 == 0x3 || (ee2 == 0x2 && to_el2) || (ee2 == 0x2 && kind == TRBU_EVK_GPC))
            return 2;
    }
    return 1;
}

/*
 * RVSCDV: TRBIRQ is enabled (and driven from TRBSR_EL1.IRQ) unless FEAT_TRBE_EXC routes
 * TRBSR_EL1 events to the TRBE Profiling exception. TRFCR_EL1.EE is decoded by its top bit, as
 * Table D6-8 groups it (0b0X interrupt, 0b1X exception); 0b01 and 0b10 are reserved.
 */
bool trbu_irq_enabled(const trbu_t *t)
{
    const armprof_pe_ctx *c = &t->ctx;
    if (!t->cfg.feat_trbe_exc || c->self_hosted_trace_off)
        return true;
    if (c->have_el3 && c->mdcr3_trbee == 0x0)
        return true;
    if (c->have_el2 && c->trfcr_el2_ee == 0x0 && (eff_scr_ns(c) || eff_scr_eel2(c)))
        return true;
    return (c->trfcr_el1_ee & 0x2) == 0;
}

bool trbu_irq_level(const trbu_t *t)
{
    return trbu_irq_enabled(t) && (t->vals[TRBU_SLOT_SR1] & TRBSR_IRQ) != 0;
}

/* RMFMXQ: is the exception unmasked at the current EL, for a given PSTATE.PM? */
static bool exc_unmasked(const trbu_t *t, uint8_t target, bool pm)
{
    const armprof_pe_ctx *c = &t->ctx;
    if (c->debug_state)
        return false;
    bool own_ss = armprof_pe_security(c) == trbu_owning_ss(t);
    switch (target) {
    case 3:
        return c->el <= 2;
    case 2:
        return own_ss && (c->el <= 1 ||
                          (c->el == 2 && c->trfcr_el2_ee == 0x3 && c->trfcr_el2_ke && !pm));
    default:
        return own_ss && (c->el == 0 || (c->el == 1 && c->trfcr_el1_ke && !pm));
    }
}

void trbu_exception_state(const trbu_t *t, trbu_exc_state *st)
{
    const armprof_pe_ctx *c = &t->ctx;
    st->pending = false;
    st->target_el = 0;
    st->outcome = TRBU_EXC_NONE;
    if (!t->cfg.feat_trbe_exc || c->self_hosted_trace_off)
        return;
    bool trbee_not0 = !c->have_el3 || c->mdcr3_trbee != 0x0;
    /* "EL2 enabled in the current Security state" is read from the Effective SCR_EL3.{NS, EEL2},
     * as RBNQRP and RVSCDV do, so that it also holds at EL3 (Tables D6-8 and D6-9, EL3 column). */
    bool el2_en = c->have_el2 && (eff_scr_ns(c) || eff_scr_eel2(c));
    uint8_t target = 0;
    bool el1_rule = false;
    if (c->have_el3 && (c->mdcr3_trbee & 0x2) && (t->vals[TRBU_SLOT_SR3] & TRBSR_IRQ)) {
        target = 3;
    } else if (trbee_not0 && el2_en && (c->trfcr_el2_ee & 0x2) &&
               (t->vals[TRBU_SLOT_SR2] & TRBSR_IRQ)) {
        target = 2;
    } else if (trbee_not0 && (!el2_en || c->trfcr_el2_ee != 0x0) && (c->trfcr_el1_ee & 0x2) &&
               (t->vals[TRBU_SLOT_SR1] & TRBSR_IRQ)) {
        target = (el2_en && c->hcr_tge) ? 2 : 1;
        el1_rule = true;
    }
    if (!target)
        return;
    st->pending = true;
    st->target_el = target;
    /* For the TRBSR_EL1 rule the masking is that of EL1's exception even when TGE sends it to
     * EL2: unmasked only at EL0, or at EL1 with TRFCR_EL1.KE and PSTATE.PM == 0. */
    uint8_t rule = el1_rule ? 1 : target;
    if (exc_unmasked(t, rule, c->pstate_pm))
        st->outcome = TRBU_EXC_TAKEN;
    else if (exc_unmasked(t, rule, false))
        st->outcome = TRBU_EXC_MASKED_PM;
    else
        st->outcome = TRBU_EXC_MASKED;
}

/* The owning translation regime of the trace buffer's writes (from the owning Security state and
 * Exception level above), given to the memory port with each write. */
void trbu_make_regime(const trbu_t *t, armprof_regime *g)
{
    memset(g, 0, sizeof(*g));
    g->ss = trbu_owning_ss(t);
    g->el = trbu_owning_el(t);
    if (g->el == 2) {
        g->kind = t->ctx.hcr_e2h ? ARMPROF_REGIME_EL20 : ARMPROF_REGIME_EL2;
    } else {
        g->kind = ARMPROF_REGIME_EL10;
        g->stage2 = armprof_pe_el2_enabled(&t->ctx, g->ss) && t->ctx.hcr_vm;
    }
    g->nvm = (t->vals[TRBU_SLOT_LIMITR] & TRBLIMITR_EL1_nVM) != 0;
    g->hw_flag_update = t->cfg.flag_update;
    g->mar = (uint16_t)(t->vals[TRBU_SLOT_MAR] & (TRBMAR_EL1_PAS | TRBMAR_EL1_SH | TRBMAR_EL1_Attr));
    g->unit = ARMPROF_UNIT_TRBU;
    g->pe = t->cfg.pe_index;
}

bool trbu_buffer_enabled(const trbu_t *t, armprof_regime *regime)
{
    if (!trbu_unit_enabled(t))
        return false;
    if (regime)
        trbu_make_regime(t, regime);
    return true;
}
