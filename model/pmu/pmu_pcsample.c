/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pmu_pcsample.c: PC Sample-based Profiling (FEAT_PCSRv8p9; Arm ARM H7.1, D13.9): whether PC
 * sampling is allowed (H7.1.1), a sample into PMPCSR and the context registers, on a read of
 * PMPCSR (PMPCSCTL.SS == 0) or on a PMU snapshot Capture event (PMPCSCTL.SS == 1, RMPZSB), and
 * the external (memory-mapped) view of those registers (Tables I5-1, I5-2).
 */
#include <string.h>

#include "armprof/pmu.h"
#include "pmu/pmu_internal.h"

/* ----- PC Sample-based Profiling (H7.1, D13.9 FEAT_PCSRv8p9) ------------------------------- */

/* H7.1.1: ExternalNoninvasiveDebugEnabled() and, outside Non-secure state with EL3 implemented,
 * the Secure / Realm / Root variant for the PE's current Security state. The AArch32
 * SDER.SUNIDEN case does not arise: the model's EL1 and EL3 use AArch64. */
bool pmu_pc_sampling_allowed(const pmu_t *p)
{
    const armprof_pe_ctx *c = &p->ctx;
    if (!p->auth.niden)
        return false;
    if (!c->have_el3)
        return true;
    switch (armprof_pe_security(c)) {
    case ARMPROF_NONSECURE:
        return true;
    case ARMPROF_SECURE:
        return p->auth.spniden;
    case ARMPROF_REALM:
        return p->auth.rlpiden;
    default:
        return p->auth.rtpiden;
    }
}

/* SetPCSRUnknown() with the UNKNOWN values chosen as "unchanged": PMPCSR[31:0] = 0xFFFFFFFF, the
 * rest as they were (the D13.9 Capture rule requires that; reads may leave them so too). */
static void pcs_set_ones(pmu_t *p)
{
    p->pcsr |= PCS_LO;
    p->stats.pc_samples_ones++;
}

/* SetPCSample(). UNKNOWN CONTEXTIDR_EL2 (EL2 not enabled) and VMID (not EL1/EL0, or EL0 in the
 * EL2&0 regime) are written as 0. */
static void pcs_set_sample(pmu_t *p, const pmu_pc_sample *s)
{
    uint64_t v = s->pc & PCS_LO;
    if (!s->aarch32)
        v |= s->pc & PCS_PC_HI;
    v |= ap_field_prep(PCS_EL, s->el & 3);
    bool ns = s->ss == ARMPROF_NONSECURE || s->ss == ARMPROF_REALM;
    bool nse = s->ss == ARMPROF_REALM || s->ss == ARMPROF_ROOT;
    if (ns)
        v |= PMU_PMPCSR_NS;
    if (p->ctx.have_rme && nse)
        v |= PMU_PMPCSR_NSE;
    p->pcsr = v;
    bool has_el2 = armprof_pe_el2_enabled(&p->ctx, s->ss);
    uint32_t cid2 = has_el2 ? s->contextidr_el2 : 0;
    uint16_t vmid = has_el2 && s->el <= 1 && !s->el0h ? s->vmid : 0;
    if (p->cfg.feat_pmuv3_ext64) {
        p->ccidsr = ((uint64_t)cid2 << 32) | s->contextidr_el1;
        p->vcidsr = ap_field_prep(VCIDSR_VMID, vmid) | s->contextidr_el1;
    }
    if (p->cfg.feat_pmuv3_ext32) {
        p->cid1sr = s->contextidr_el1;
        p->cid2sr = cid2;
        p->vidsr = vmid;
    }
    p->stats.pc_samples++;
}

/* Take a sample into PMPCSR and the context registers: allowed, Non-debug state and a sample
 * available -> SetPCSample(); otherwise PMPCSR[31:0] = 0xFFFFFFFF and the rest unchanged. */
void pmu_pcs_take(pmu_t *p, bool valid)
{
    if (!valid || !pmu_pc_sampling_allowed(p) || p->ctx.debug_state) {
        pcs_set_ones(p);
        return;
    }
    pmu_pc_sample s = p->sample;
    if (p->sample_fn) {
        memset(&s, 0, sizeof(s));
        s.valid = p->sample_fn(p->sample_user, &s);
    }
    if (!s.valid) {
        pcs_set_ones(p);
        return;
    }
    pcs_set_sample(p, &s);
}

/* ----- External view of the PC Sample-based Profiling registers ---------------------------- */

/* The 32-bit word at `off`: its 64-bit backing register and bit shift; NULL if the configured
 * view has no register there. Offsets: Arm ARM I5.2.1 Tables I5-1 / I5-2. */
static uint64_t *ext_word(pmu_t *p, uint32_t off, unsigned *shift)
{
    *shift = 0;
    if (off == PMU_EXT_PMPCSCTL || off == PMU_EXT_PMPCSCTL + 4) {
        *shift = off & 4 ? 32 : 0;
        return &p->pcsctl;
    }
    if (off >= 0x220 && off < 0x228)
        off -= 0x20; /* PMPCSR alias */
    if (off == PMU_EXT_PMPCSR || off == PMU_EXT_PMPCSR + 4) {
        *shift = off & 4 ? 32 : 0;
        return &p->pcsr;
    }
    if (p->cfg.feat_pmuv3_ext64) {
        if (off == PMU_EXT_PMVCIDSR || off == PMU_EXT_PMVCIDSR + 4) {
            *shift = off & 4 ? 32 : 0;
            return &p->vcidsr;
        }
        if (off == PMU_EXT_PMCCIDSR || off == PMU_EXT_PMCCIDSR + 4) {
            *shift = off & 4 ? 32 : 0;
            return &p->ccidsr;
        }
        return NULL;
    }
    switch (off) {
    case PMU_EXT_PMCID1SR:
    case PMU_EXT_PMCID1SR_ALIAS:
        return &p->cid1sr;
    case PMU_EXT_PMVIDSR:
        return &p->vidsr;
    case PMU_EXT_PMCID2SR:
        return &p->cid2sr;
    default:
        return NULL;
    }
}

static armprof_err ext_check(pmu_t *p, uint32_t off, unsigned size)
{
    if (size != 4 && size != 8)
        return ARMPROF_ERR_INVAL;
    if (off % size)
        return ARMPROF_ERR_INVAL;
    if (!p->cfg.feat_pcsr)
        return ARMPROF_ERR_NOREG;
    unsigned sh;
    for (unsigned w = 0; w < size; w += 4)
        if (!ext_word(p, off + w, &sh))
            return ARMPROF_ERR_NOREG;
    return ARMPROF_OK;
}

/* Read_PMPCSR(): sampling on reads (PMPCSCTL.SS == 0). A read while suspended activates PC
 * Sample-based Profiling (SetPCSRActive) and returns 0xFFFFFFFF in [31:0]. */
static void read_pmpcsr(pmu_t *p)
{
    if (pmu_pcs_ss(p))
        return; /* sampling on reads disabled: the value of the last sample, no side effect */
    bool valid = true;
    bool imp = p->pcsctl & PMU_PMPCSCTL_IMP;
    if ((imp && !(p->pcsctl & PMU_PMPCSCTL_EN)) || (!imp && p->pcs_suspended)) {
        valid = false;
        if (imp)
            p->pcsctl |= PMU_PMPCSCTL_EN;
        else
            p->pcs_suspended = false;
    }
    pmu_pcs_take(p, valid);
}

armprof_err pmu_ext_read(pmu_t *p, uint32_t off, unsigned size, uint64_t *val)
{
    if (!p || !val)
        return ARMPROF_ERR_INVAL;
    armprof_err e = ext_check(p, off, size);
    if (e != ARMPROF_OK)
        return e;
    if (off == PMU_EXT_PMPCSR || off == PMU_EXT_PMPCSR_ALIAS)
        read_pmpcsr(p); /* a read of PMPCSR[31:0] or PMPCSR[63:0] */
    uint64_t v = 0;
    for (unsigned w = 0; w < size; w += 4) {
        unsigned sh;
        uint64_t *r = ext_word(p, off + w, &sh);
        v |= ((*r >> sh) & 0xFFFFFFFFull) << (w * 8);
    }
    *val = v;
    return ARMPROF_OK;
}

armprof_err pmu_ext_write(pmu_t *p, uint32_t off, unsigned size, uint64_t val)
{
    if (!p)
        return ARMPROF_ERR_INVAL;
    armprof_err e = ext_check(p, off, size);
    if (e != ARMPROF_OK)
        return e;
    if (off != PMU_EXT_PMPCSCTL)
        return ARMPROF_OK; /* sample registers and PMPCSCTL[63:32]: writes ignored */
    uint64_t wmask = 0;
    if (p->cfg.feat_pmuv3_ss)
        wmask |= PMU_PMPCSCTL_SS;
    if (p->pcsctl & PMU_PMPCSCTL_IMP)
        wmask |= PMU_PMPCSCTL_EN;
    uint64_t old = p->pcsctl;
    p->pcsctl = (old & ~wmask) | (val & wmask);
    if (!(old & PMU_PMPCSCTL_SS) && (p->pcsctl & PMU_PMPCSCTL_SS))
        p->pcs_first = true;
    return ARMPROF_OK;
}

void pmu_set_pc_sample(pmu_t *p, const pmu_pc_sample *s)
{
    if (p && s)
        p->sample = *s;
}

void pmu_set_pc_sample_hook(pmu_t *p, pmu_pc_sample_fn fn, void *user)
{
    p->sample_fn = fn;
    p->sample_user = user;
}

void pmu_set_debug_auth(pmu_t *p, const pmu_debug_auth *a)
{
    if (p && a)
        p->auth = *a;
}
