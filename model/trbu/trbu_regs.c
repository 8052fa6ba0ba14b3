/* SPDX-License-Identifier: Apache-2.0 */
/* trbu_regs.c: the TRBE register access table (reset values, RES0 masks, access checks, hooks). */
#include <string.h>

#include "trbu_internal.h"

uint64_t trbu_idr_value(const trbu_config *cfg)
{
    /* TRBIDR_EL1.EA describes the External abort on the write itself. */
    uint64_t ea = cfg->ea_write == TRBU_EA_IGNORE ? 0x1 : cfg->ea_write == TRBU_EA_SERROR ? 0x2 : 0x0;
    return ap_field_prep(TRBIDR_EL1_EA, ea) | ap_field_prep(TRBIDR_EL1_F, cfg->flag_update) |
           ap_field_prep(TRBIDR_EL1_Align, cfg->align);
}

/*
 * Access checks of the TRB* registers at EL1 and EL2:
 *   EL0: UNDEFINED.
 *   EL1: trap to EL2 when EL2 is enabled and MDCR_EL2.E2TB is 0bx0;
 *   EL1 and EL2: trap to EL3 when MDCR_EL3.NSTB[0] is 0 (no lower-EL access) or the PE is not
 *        in the owning Security state (MDCR_EL3.{NSTBE, NSTB[1]}).
 */
static armprof_err check_el3_trap(const trbu_t *t)
{
    const armprof_pe_ctx *c = &t->ctx;
    if (c->have_el3 && c->el < 3 &&
        (!(c->mdcr3_nstb & 0x1) || armprof_pe_security(c) != trbu_owning_ss(t)))
        return ARMPROF_ERR_TRAP_EL3;
    return ARMPROF_OK;
}

/* The fine-grained trap bit (FEAT_FGT) of each register slot. */
static uint8_t fgt_bit(uint16_t slot)
{
    switch (slot) {
    case TRBU_SLOT_LIMITR: return ARMPROF_FGT_TRBLIMITR;
    case TRBU_SLOT_PTR: return ARMPROF_FGT_TRBPTR;
    case TRBU_SLOT_BASER: return ARMPROF_FGT_TRBBASER;
    case TRBU_SLOT_SR1: return ARMPROF_FGT_TRBSR;
    case TRBU_SLOT_MAR: return ARMPROF_FGT_TRBMAR;
    case TRBU_SLOT_TRG: return ARMPROF_FGT_TRBTRG;
    case TRBU_SLOT_IDR: return ARMPROF_FGT_TRBIDR;
    default: return 0;
    }
}

/* HDFGRTR_EL2 / HDFGWTR_EL2 at EL1: EL2 enabled and, with EL3, SCR_EL3.FGTEn == 1. */
static bool fgt_traps(const trbu_t *t, const ap_regdef *r, bool write)
{
    const armprof_pe_ctx *c = &t->ctx;
    if (c->el != 1 || !armprof_pe_el2_enabled(c, armprof_pe_security(c)) || (c->have_el3 && !c->scr_fgten))
        return false;
    return ((write ? c->hdfgwtr_trb : c->hdfgrtr_trb) & fgt_bit(r->slot)) != 0;
}

/* Arm ARM's accessors of the TRB registers at EL1: the fine-grained trap, then MDCR_EL2.E2TB,
 * then MDCR_EL3.NSTB; TRBSR_EL1 alone then goes to NVMem[0x860] under FEAT_NV2 with
 * HCR_EL2.{NV2,NV1,NV} = {1,1,1} when both TRFCR_EL2.EE and TRFCR_EL1.EE are nonzero. */
static armprof_err check_el1_reg(void *unit, const ap_regdef *r, bool write)
{
    const trbu_t *t = unit;
    const armprof_pe_ctx *c = &t->ctx;
    if (c->el == 0)
        return ARMPROF_ERR_UNDEFINED;
    if (fgt_traps(t, r, write))
        return ARMPROF_ERR_TRAP_EL2;
    if (c->el == 1 && armprof_pe_el2_enabled(c, armprof_pe_security(c)) && !(c->mdcr2_e2tb & 0x1))
        return ARMPROF_ERR_TRAP_EL2;
    armprof_err e = check_el3_trap(t);
    if (e != ARMPROF_OK)
        return e;
    if (r->slot == TRBU_SLOT_SR1 && c->el == 1 && c->hcr_nv2 && c->hcr_nv1 && c->hcr_nv &&
        c->trfcr_el2_ee && c->trfcr_el1_ee)
        return ARMPROF_ERR_NV2_MEM;
    return ARMPROF_OK;
}

/* TRBSR_EL12 (FEAT_TRBE_EXC, FEAT_VHE): TRBSR_EL1 from EL2 and EL3 when EL2 is in host
 * (HCR_EL2.E2H == 1); from EL1 NVMem[0x860] with HCR_EL2.{NV2,NV1,NV} = {1,0,1}, a trap to EL2
 * with NV == 1; UNDEFINED otherwise. */
static armprof_err check_sr12(void *unit, const ap_regdef *r, bool write)
{
    (void)r; (void)write;
    const trbu_t *t = unit;
    const armprof_pe_ctx *c = &t->ctx;
    if (!t->cfg.feat_trbe_exc || c->el == 0)
        return ARMPROF_ERR_UNDEFINED;
    if (c->el == 1) {
        if (c->hcr_nv2 && !c->hcr_nv1 && c->hcr_nv)
            return ARMPROF_ERR_NV2_MEM;
        return c->hcr_nv ? ARMPROF_ERR_TRAP_EL2 : ARMPROF_ERR_UNDEFINED;
    }
    if (!trbu_el2_in_host(t))
        return ARMPROF_ERR_UNDEFINED;
    return c->el == 2 ? check_el3_trap(t) : ARMPROF_OK;
}

/* TRBIDR_EL1 is readable at EL1 and above without the ownership traps: TRBIDR_EL1.P tells
 * software whether it may program the unit. */
static armprof_err check_idr(void *unit, const ap_regdef *r, bool write)
{
    const trbu_t *t = unit;
    if (t->ctx.el == 0)
        return ARMPROF_ERR_UNDEFINED;
    return fgt_traps(t, r, write) ? ARMPROF_ERR_TRAP_EL2 : ARMPROF_OK;
}

static armprof_err check_sr2(void *unit, const ap_regdef *r, bool write)
{
    (void)r; (void)write;
    const trbu_t *t = unit;
    if (!t->cfg.feat_trbe_exc || t->ctx.el < 2)
        return ARMPROF_ERR_UNDEFINED;
    return check_el3_trap(t);
}

static armprof_err check_sr3(void *unit, const ap_regdef *r, bool write)
{
    (void)r; (void)write;
    const trbu_t *t = unit;
    if (!t->cfg.feat_trbe_exc || t->ctx.el < 3)
        return ARMPROF_ERR_UNDEFINED;
    return ARMPROF_OK;
}

/* TRBIDR_EL1.P: programming not allowed from the current EL / Security state. */
static uint64_t read_idr(void *unit, const ap_regdef *r, uint64_t stored)
{
    (void)r;
    const trbu_t *t = unit;
    const armprof_pe_ctx *c = &t->ctx;
    bool p = c->el < 3 && (armprof_pe_security(c) != trbu_owning_ss(t) ||
                           (c->el == 1 && trbu_owning_el(t) == 2));
    return ap_field_set(stored, TRBIDR_EL1_P, p);
}

static uint64_t res0_limitr(void *unit, const ap_regdef *r)
{
    (void)r;
    const trbu_t *t = unit;
    return t->cfg.feat_trbe_ext ? 0 : TRBLIMITR_EL1_XE;
}

static uint64_t res0_sr(void *unit, const ap_regdef *r)
{
    (void)r;
    const trbu_t *t = unit;
    return t->cfg.feat_mss2 ? 0 : TRBSR_MSS2;
}

/* Disabling the unit (E 1 -> 0) runs with the old pointers still in place. */
static uint64_t prewrite_limitr(void *unit, const ap_regdef *r, uint64_t old, uint64_t v)
{
    (void)r;
    trbu_t *t = unit;
    if ((old & TRBLIMITR_EL1_E) && !(v & TRBLIMITR_EL1_E))
        trbu_on_disable(t);
    return v;
}

static void postwrite_outputs(void *unit, const ap_regdef *r, uint64_t old, uint64_t v)
{
    (void)r; (void)old; (void)v;
    trbu_update_outputs(unit);
}

#define TRBSR_RES0 (AP_GENMASK(63, 56) | AP_GENMASK(25, 24) | AP_BIT(19) | AP_BIT(16))

static const ap_regdef trbu_defs[] = {
    { .name = "TRBLIMITR_EL1", .enc = TRBU_TRBLIMITR_EL1, .slot = TRBU_SLOT_LIMITR,
      .reset = 0, .res0 = AP_GENMASK(11, 7), .check = check_el1_reg,
      .prewrite = prewrite_limitr, .postwrite = postwrite_outputs, .res0_extra = res0_limitr },
    { .name = "TRBPTR_EL1", .enc = TRBU_TRBPTR_EL1, .slot = TRBU_SLOT_PTR,
      .flags = AP_REG_NORESET, .check = check_el1_reg },
    { .name = "TRBBASER_EL1", .enc = TRBU_TRBBASER_EL1, .slot = TRBU_SLOT_BASER,
      .flags = AP_REG_NORESET, .res0 = AP_GENMASK(11, 0), .check = check_el1_reg },
    { .name = "TRBSR_EL1", .enc = TRBU_TRBSR_EL1, .slot = TRBU_SLOT_SR1,
      .flags = AP_REG_NORESET, .res0 = TRBSR_RES0, .check = check_el1_reg,
      .postwrite = postwrite_outputs, .res0_extra = res0_sr },
    { .name = "TRBMAR_EL1", .enc = TRBU_TRBMAR_EL1, .slot = TRBU_SLOT_MAR,
      .flags = AP_REG_NORESET, .res0 = AP_GENMASK(63, 12), .check = check_el1_reg },
    { .name = "TRBTRG_EL1", .enc = TRBU_TRBTRG_EL1, .slot = TRBU_SLOT_TRG,
      .flags = AP_REG_NORESET, .res0 = AP_GENMASK(63, 32), .check = check_el1_reg },
    { .name = "TRBIDR_EL1", .enc = TRBU_TRBIDR_EL1, .slot = TRBU_SLOT_IDR,
      .flags = AP_REG_RO, .res0 = AP_GENMASK(63, 12) | AP_GENMASK(7, 6), .check = check_idr,
      .read = read_idr },
    { .name = "TRBSR_EL2", .enc = TRBU_TRBSR_EL2, .slot = TRBU_SLOT_SR2,
      .flags = AP_REG_NORESET, .res0 = TRBSR_RES0, .check = check_sr2,
      .postwrite = postwrite_outputs, .res0_extra = res0_sr },
    { .name = "TRBSR_EL3", .enc = TRBU_TRBSR_EL3, .slot = TRBU_SLOT_SR3,
      .flags = AP_REG_NORESET, .res0 = TRBSR_RES0, .check = check_sr3,
      .postwrite = postwrite_outputs, .res0_extra = res0_sr },
    { .name = "TRBSR_EL12", .enc = TRBU_TRBSR_EL12, .slot = TRBU_SLOT_SR1,
      .flags = AP_REG_NORESET | AP_REG_ALIAS, .res0 = TRBSR_RES0, .check = check_sr12,
      .postwrite = postwrite_outputs, .res0_extra = res0_sr },
};

/* The table's reset values are constants except TRBIDR_EL1, which comes from the configuration:
 * each unit keeps its own copy of the table with that value filled in. */
_Static_assert(sizeof(trbu_defs) / sizeof(trbu_defs[0]) == TRBU_NREGS, "TRBU_NREGS");

void trbu_regs_init(trbu_t *t)
{
    memcpy(t->regdefs, trbu_defs, sizeof(trbu_defs));
    for (size_t i = 0; i < TRBU_NREGS; i++)
        if (t->regdefs[i].slot == TRBU_SLOT_IDR)
            t->regdefs[i].reset = trbu_idr_value(&t->cfg);
    t->rf.defs = t->regdefs;
    t->rf.count = TRBU_NREGS;
    t->rf.vals = t->vals;
    t->rf.unit = t;
}

size_t trbu_reg_count(const trbu_t *t)
{
    return t->rf.count;
}

armprof_err trbu_reg_info_at(const trbu_t *t, size_t index, trbu_reg_info *info)
{
    if (!t || !info || index >= t->rf.count)
        return ARMPROF_ERR_INVAL;
    const ap_regdef *r = &t->rf.defs[index];
    info->name = r->name;
    info->enc = r->enc;
    info->reset = r->reset;
    info->res0 = ap_reg_res0(&t->rf, r);
    info->ro = r->ro;
    info->read_only = (r->flags & AP_REG_RO) != 0;
    info->alias = (r->flags & AP_REG_ALIAS) != 0;
    info->present = !(r->slot == TRBU_SLOT_SR2 || r->slot == TRBU_SLOT_SR3 || info->alias) ||
                    t->cfg.feat_trbe_exc;
    return ARMPROF_OK;
}

/* At EL2 in host, with FEAT_TRBE_EXC and TRFCR_EL2.EE != 0b00, the TRBSR_EL1 encoding names
 * TRBSR_EL2 (Arm ARM's TRBSR_EL1 accessor; TRBSR_EL12 then reaches TRBSR_EL1). */
static uint32_t redirect(const trbu_t *t, uint32_t enc)
{
    if (enc == TRBU_TRBSR_EL1 && t->cfg.feat_trbe_exc && t->ctx.el == 2 && t->ctx.trfcr_el2_ee &&
        trbu_el2_in_host(t))
        return TRBU_TRBSR_EL2;
    return enc;
}

armprof_err trbu_reg_check(const trbu_t *t, uint32_t enc, bool is_write)
{
    if (!t)
        return ARMPROF_ERR_INVAL;
    return ap_reg_check(&t->rf, redirect(t, enc), is_write);
}

armprof_err trbu_reg_read(trbu_t *t, uint32_t enc, uint64_t *val)
{
    if (!t)
        return ARMPROF_ERR_INVAL;
    return ap_reg_read(&t->rf, redirect(t, enc), val);
}

armprof_err trbu_reg_write(trbu_t *t, uint32_t enc, uint64_t val)
{
    if (!t)
        return ARMPROF_ERR_INVAL;
    t->regime_valid = false;
    armprof_err e = ap_reg_write(&t->rf, redirect(t, enc), val);
    t->regime_valid = false;
    trbu_update_outputs(t);
    return e;
}

armprof_err trbu_reg_peek(const trbu_t *t, uint32_t enc, uint64_t *val)
{
    if (!t || !val)
        return ARMPROF_ERR_INVAL;
    const ap_regdef *r = ap_reg_find(&t->rf, enc);
    if (!r)
        return ARMPROF_ERR_NOREG;
    *val = t->vals[r->slot];
    return ARMPROF_OK;
}
