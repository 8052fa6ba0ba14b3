/* SPDX-License-Identifier: Apache-2.0 */
/* spu_regs.c: the SPE registers: seed 001 §4 "Detailed Programmers Model" (§4.1 index, §4.2
 * resets, §4.3 descriptions), seed 002 PMBSR_EL1 with its access pseudocode, REGISTERS.md: the
 * access table (encodings, reset values, masks, access checks: CheckStatisticalProfilingAccess,
 * CheckProfilingBufferAccess, traps to EL2 / EL3, hooks) and the register access API
 * (spu_reg_read / write / peek, FEAT_VHE redirection of PMSCR_EL1 to PMSCR_EL2). */
#include <string.h>

#include "common/log.h"
#include "spu_internal.h"

/* ---- Access checks (seed 001 §3.2.3 / §3.4.6 pseudocode, seed 002 PMBSR_EL1) ---- */

/* "HaveEL(EL3) && PSTATE.EL != EL3 && MDCR_EL3.NSPB != SCR_EL3.NS:'1'" (with FEAT_RME the
 * NSPBE bit must also equal SCR_EL3.NSE). */
static bool el3_traps(const armprof_pe_ctx *c)
{
    if (!c->have_el3 || c->el == 3)
        return false;
    uint8_t want = (uint8_t)((c->scr_ns ? 2 : 0) | 1);
    if (c->mdcr3_nspb != want)
        return true;
    if (c->have_rme && c->mdcr3_nspbe != c->scr_nse)
        return true;
    return false;
}

static bool el2_enabled_here(const armprof_pe_ctx *c)
{
    return armprof_pe_el2_enabled(c, armprof_pe_security(c));
}

/* CheckStatisticalProfilingAccess() */
static armprof_err check_pms(void *unit, const ap_regdef *r, bool write)
{
    (void)r; (void)write;
    const spu_t *spu = unit;
    const armprof_pe_ctx *c = &spu->ctx;
    if (c->el == 0 || c->aarch32)
        return ARMPROF_ERR_UNDEFINED;
    if (c->el == 1 && el2_enabled_here(c) && c->mdcr2_tpms)
        return ARMPROF_ERR_TRAP_EL2;
    if (el3_traps(c))
        return ARMPROF_ERR_TRAP_EL3;
    return ARMPROF_OK;
}

/* PMSNEVFR_EL1 exists only with FEAT_SPEv1p2. */
static armprof_err check_pmsnevfr(void *unit, const ap_regdef *r, bool write)
{
    const spu_t *spu = unit;
    if (!spu_reg_present(&spu->cfg, r->slot))
        return ARMPROF_ERR_UNDEFINED;
    return check_pms(unit, r, write);
}

/* CheckProfilingBufferAccess() */
static armprof_err check_pmb(void *unit, const ap_regdef *r, bool write)
{
    (void)r; (void)write;
    const spu_t *spu = unit;
    const armprof_pe_ctx *c = &spu->ctx;
    if (c->el == 0 || c->aarch32)
        return ARMPROF_ERR_UNDEFINED;
    if (c->el == 1 && el2_enabled_here(c) && !(c->mdcr2_e2pb & 1))
        return ARMPROF_ERR_TRAP_EL2;
    if (el3_traps(c))
        return ARMPROF_ERR_TRAP_EL3;
    return ARMPROF_OK;
}

/* PMBMAR_EL1 exists only with FEAT_SPE_nVM. */
static armprof_err check_pmbmar(void *unit, const ap_regdef *r, bool write)
{
    const spu_t *spu = unit;
    if (!spu_reg_present(&spu->cfg, r->slot))
        return ARMPROF_ERR_UNDEFINED;
    return check_pmb(unit, r, write);
}

/* PMBSR_EL1 MRS/MSR pseudocode of seed 002, in its order: fine-grained trap, E2PB trap,
 * EL3 trap, then the FEAT_NV2 redirection to NVMem[0x820]. */
static armprof_err check_pmbsr(void *unit, const ap_regdef *r, bool write)
{
    (void)r;
    const spu_t *spu = unit;
    const armprof_pe_ctx *c = &spu->ctx;
    if (c->el == 0 || c->aarch32)
        return ARMPROF_ERR_UNDEFINED;
    if (c->el == 1) {
        bool el2 = el2_enabled_here(c);
        bool fgt = !c->have_el3 || c->scr_fgten;
        if (el2 && fgt && (write ? c->hdfgwtr_pmb : c->hdfgrtr_pmb))
            return ARMPROF_ERR_TRAP_EL2;
        if (el2 && !(c->mdcr2_e2pb & 1))
            return ARMPROF_ERR_TRAP_EL2;
        if (el3_traps(c))
            return ARMPROF_ERR_TRAP_EL3;
        if (el2 && c->hcr_nv2 && c->hcr_nv)
            return ARMPROF_ERR_NV2_MEM;
        return ARMPROF_OK;
    }
    if (c->el == 2 && el3_traps(c))
        return ARMPROF_ERR_TRAP_EL3;
    return ARMPROF_OK;
}

/* PMBIDR_EL1: "Traps and enables: None"; UNDEFINED at EL0 (§4.3.1). */
static armprof_err check_pmbidr(void *unit, const ap_regdef *r, bool write)
{
    (void)r; (void)write;
    const spu_t *spu = unit;
    return (spu->ctx.el == 0 || spu->ctx.aarch32) ? ARMPROF_ERR_UNDEFINED : ARMPROF_OK;
}

/* PMSCR_EL2: an EL2 register. From EL1 it is UNDEFINED, or traps to EL2 under FEAT_NV. */
static armprof_err check_pmscr_el2(void *unit, const ap_regdef *r, bool write)
{
    (void)r; (void)write;
    const spu_t *spu = unit;
    const armprof_pe_ctx *c = &spu->ctx;
    if (!c->have_el2 || c->el == 0 || c->aarch32)
        return ARMPROF_ERR_UNDEFINED;
    if (c->el == 1)
        return (el2_enabled_here(c) && c->hcr_nv) ? ARMPROF_ERR_TRAP_EL2 : ARMPROF_ERR_UNDEFINED;
    if (c->el == 2 && el3_traps(c))
        return ARMPROF_ERR_TRAP_EL3;
    return ARMPROF_OK;
}

/* PMSCR_EL12: the EL2&0 name of PMSCR_EL1, accessible at EL2 (and EL3) when HCR_EL2.E2H is 1. */
static armprof_err check_pmscr_el12(void *unit, const ap_regdef *r, bool write)
{
    (void)r; (void)write;
    const spu_t *spu = unit;
    const armprof_pe_ctx *c = &spu->ctx;
    if (!c->have_el2 || c->el == 0 || c->aarch32)
        return ARMPROF_ERR_UNDEFINED;
    if (c->el == 1)
        return (el2_enabled_here(c) && c->hcr_nv) ? ARMPROF_ERR_TRAP_EL2 : ARMPROF_ERR_UNDEFINED;
    if (!c->hcr_e2h)
        return ARMPROF_ERR_UNDEFINED;
    if (c->el == 2 && el3_traps(c))
        return ARMPROF_ERR_TRAP_EL3;
    return ARMPROF_OK;
}

/* ---- ID registers, computed from the configuration ---- */

uint64_t spu_pmsidr_value(const spu_config *cfg)
{
    uint64_t v = 0;
    v = ap_field_set(v, PMSIDR_FORMAT, cfg->format);
    v = ap_field_set(v, PMSIDR_COUNTSIZE, cfg->count_size);
    v = ap_field_set(v, PMSIDR_MAXSIZE, cfg->max_size);
    v = ap_field_set(v, PMSIDR_INTERVAL, cfg->interval);
    v = ap_field_set(v, PMSIDR_PBT, cfg->pbt);
    v = ap_field_set(v, PMSIDR_FNE, cfg->fne && cfg->feat_spev1p2);
    v = ap_field_set(v, PMSIDR_ERND, cfg->ernd);
    v = ap_field_set(v, PMSIDR_LDS, cfg->lds);
    v = ap_field_set(v, PMSIDR_ARCHINST, cfg->arch_inst);
    v = ap_field_set(v, PMSIDR_FL, cfg->fl);
    v = ap_field_set(v, PMSIDR_FT, cfg->ft);
    v = ap_field_set(v, PMSIDR_FE, cfg->fe);
    return v;
}

/* PMBIDR_EL1.P: 1 when the buffer is owned by a higher Exception level or another Security
 * state than the current one (§4.3.1 lists the cases). */
uint64_t spu_pmbidr_value(const spu_t *spu)
{
    const armprof_pe_ctx *c = &spu->ctx;
    uint64_t v = 0;
    v = ap_field_set(v, PMBIDR_ALIGN, spu->cfg.align);
    v = ap_field_set(v, PMBIDR_F, spu->cfg.flag_update);
    v = ap_field_set(v, PMBIDR_EA, (uint64_t)spu->cfg.ea);
    armprof_security oss;
    uint8_t oel;
    bool p;
    if (c->el == 3)
        p = false;
    else if (!spu_buffer_owner(spu, &oss, &oel))
        p = true;
    else
        p = oel > c->el || oss != armprof_pe_security(c);
    return ap_field_set(v, PMBIDR_P, p);
}

static uint64_t read_pmsidr(void *unit, const ap_regdef *r, uint64_t stored)
{
    (void)r; (void)stored;
    return spu_pmsidr_value(&((spu_t *)unit)->cfg);
}

static uint64_t read_pmbidr(void *unit, const ap_regdef *r, uint64_t stored)
{
    (void)r; (void)stored;
    return spu_pmbidr_value(unit);
}

/* ---- Configuration-dependent RES0 bits ---- */

static uint64_t res0_pmscr(void *unit, const ap_regdef *r)
{
    (void)r;
    const spu_t *spu = unit;
    /* PCT is one bit (6) unless FEAT_ECV adds the 0b11 encoding. */
    return spu->cfg.feat_ecv ? 0 : AP_BIT(7);
}

/* PMSCR_EL2 adds EnVM (FEAT_SPE_nVM, RKLGPG) at the configured bit. */
static uint64_t res0_pmscr_el2(void *unit, const ap_regdef *r)
{
    const spu_t *spu = unit;
    uint64_t m = res0_pmscr(unit, r) | AP_GENMASK(63, 8);
    if (spu->cfg.feat_spe_nvm)
        m &= ~AP_BIT(spu->cfg.envm_bit);
    return m;
}

static uint64_t res0_pmsicr(void *unit, const ap_regdef *r)
{
    (void)r;
    return ((spu_t *)unit)->cfg.ernd ? 0 : PMSICR_ECOUNT;
}

static uint64_t res0_pmsfcr(void *unit, const ap_regdef *r)
{
    (void)r;
    const spu_config *cfg = &((spu_t *)unit)->cfg;
    uint64_t m = 0;
    if (!cfg->fe)
        m |= PMSFCR_FE;
    if (!cfg->ft)
        m |= PMSFCR_FT;
    if (!cfg->fl)
        m |= PMSFCR_FL;
    if (!(cfg->fne && cfg->feat_spev1p2))
        m |= PMSFCR_FNE;
    return m;
}

static uint64_t res0_pmslatfr(void *unit, const ap_regdef *r)
{
    (void)r;
    /* MINLAT is as wide as the counters: 12 bits with CountSize 0b0010. */
    return ((spu_t *)unit)->cfg.count_size == 2 ? AP_GENMASK(15, 12) : 0;
}

static uint64_t res0_pmblimitr(void *unit, const ap_regdef *r)
{
    (void)r;
    const spu_config *cfg = &((spu_t *)unit)->cfg;
    uint64_t m = AP_GENMASK(11, 3);
    if (cfg->feat_spev1p2)
        m &= ~PMBLIMITR_PMFZ;
    if (cfg->feat_spe_nvm)
        m &= ~AP_BIT(cfg->nvm_bit);
    return m;
}

/* ---- Write hooks ---- */

static uint64_t pre_pmscr_el1(void *unit, const ap_regdef *r, uint64_t old, uint64_t v)
{
    (void)r; (void)old;
    /* §3.3: "If EL2 is not implemented, PMSCR_EL1.PCT is RES1." */
    if (!((spu_t *)unit)->ctx.have_el2)
        v |= PMSCR_PCT_BIT0;
    return v;
}

/* The same RES1 bit on a read, so that it reads as 1 from reset on, before any write. */
static uint64_t read_pmscr_el1(void *unit, const ap_regdef *r, uint64_t stored)
{
    return pre_pmscr_el1(unit, r, stored, stored);
}

static void post_reevaluate(void *unit, const ap_regdef *r, uint64_t old, uint64_t v)
{
    (void)r; (void)old; (void)v;
    spu_reevaluate(unit);
}

/* §4.3.2: a reserved FM value behaves as a defined one "other than for a direct read of the
 * register": it is stored as written (and read back); spu_discard_mode() takes it as 0b00. */
static uint64_t pre_pmblimitr(void *unit, const ap_regdef *r, uint64_t old, uint64_t v)
{
    (void)r; (void)old;
    spu_t *spu = unit;
    uint64_t fm = ap_field_get(PMBLIMITR_FM, v);
    bool ok = fm == PMBLIMITR_FM_FILL || (fm == PMBLIMITR_FM_DISCARD && spu->cfg.feat_spev1p2);
    if (!ok)
        ap_log(&spu->ops, ARMPROF_LOG_WARN,
               "PMBLIMITR_EL1.FM=0b%u%u is reserved; behaves as 0b00 (fill mode)",
               (unsigned)(fm >> 1), (unsigned)(fm & 1));
    return v;
}

static void post_pmbptr(void *unit, const ap_regdef *r, uint64_t old, uint64_t v)
{
    (void)r; (void)old; (void)v;
    spu_t *spu = unit;
    spu->ptr_checked = false;
    spu_reevaluate(spu);
}

static uint64_t pre_pmbsr(void *unit, const ap_regdef *r, uint64_t old, uint64_t v)
{
    (void)r;
    spu_t *spu = unit;
    uint64_t ec = ap_field_get(PMBSR_EC, v);
    if (ec != ARMPROF_EC_OTHER && ec != ARMPROF_EC_S1_ABORT && ec != ARMPROF_EC_S2_ABORT &&
        ec != ARMPROF_EC_GPC && ec != ARMPROF_EC_IMPDEF) {
        /* "Writing a reserved value to this field will make the value of this field UNKNOWN":
         * armprof keeps the previous EC. */
        ap_log(&spu->ops, ARMPROF_LOG_WARN, "PMBSR_EL1.EC=0x%02x is reserved; EC left unchanged",
               (unsigned)ec);
        v = ap_field_set(v, PMBSR_EC, ap_field_get(PMBSR_EC, old));
    }
    return v;
}

static void post_pmbsr(void *unit, const ap_regdef *r, uint64_t old, uint64_t v)
{
    (void)r; (void)old; (void)v;
    spu_t *spu = unit;
    spu_set_irq(spu); /* PMBIRQ follows S, also for a direct write */
    spu_reevaluate(spu);
}

#define NOR AP_REG_NORESET

const ap_regdef spu_regdefs[] = {
    { .name = "PMSCR_EL1", .enc = SPU_PMSCR_EL1, .slot = R_PMSCR_EL1,
      .res0 = AP_GENMASK(63, 8) | AP_BIT(2), .res0_extra = res0_pmscr,
      .check = check_pms, .read = read_pmscr_el1, .prewrite = pre_pmscr_el1, .postwrite = post_reevaluate },
    { .name = "PMSCR_EL12", .enc = SPU_PMSCR_EL12, .slot = R_PMSCR_EL1, .flags = AP_REG_ALIAS,
      .check = check_pmscr_el12, .read = read_pmscr_el1 },
    { .name = "PMSCR_EL2", .enc = SPU_PMSCR_EL2, .slot = R_PMSCR_EL2,
      .res0 = AP_BIT(2), .res0_extra = res0_pmscr_el2,
      .check = check_pmscr_el2, .postwrite = post_reevaluate },
    { .name = "PMSNEVFR_EL1", .enc = SPU_PMSNEVFR_EL1, .slot = R_PMSNEVFR_EL1,
      .res0 = ~PMSEVFR_FILTERABLE, .check = check_pmsnevfr },
    { .name = "PMSICR_EL1", .enc = SPU_PMSICR_EL1, .slot = R_PMSICR_EL1,
      .res0 = AP_GENMASK(55, 32), .res0_extra = res0_pmsicr, .check = check_pms },
    { .name = "PMSIRR_EL1", .enc = SPU_PMSIRR_EL1, .slot = R_PMSIRR_EL1,
      .res0 = AP_GENMASK(63, 32) | AP_GENMASK(7, 1), .check = check_pms },
    { .name = "PMSFCR_EL1", .enc = SPU_PMSFCR_EL1, .slot = R_PMSFCR_EL1,
      .res0 = AP_GENMASK(63, 19) | AP_GENMASK(15, 4), .res0_extra = res0_pmsfcr,
      .check = check_pms },
    { .name = "PMSEVFR_EL1", .enc = SPU_PMSEVFR_EL1, .slot = R_PMSEVFR_EL1,
      .res0 = ~PMSEVFR_FILTERABLE, .check = check_pms },
    { .name = "PMSLATFR_EL1", .enc = SPU_PMSLATFR_EL1, .slot = R_PMSLATFR_EL1,
      .res0 = AP_GENMASK(63, 16), .res0_extra = res0_pmslatfr, .check = check_pms },
    { .name = "PMSIDR_EL1", .enc = SPU_PMSIDR_EL1, .slot = R_PMSIDR_EL1, .flags = AP_REG_RO,
      .res0 = AP_GENMASK(63, 25) | AP_BIT(7), .check = check_pms, .read = read_pmsidr },
    { .name = "PMBLIMITR_EL1", .enc = SPU_PMBLIMITR_EL1, .slot = R_PMBLIMITR_EL1,
      .res0_extra = res0_pmblimitr, .check = check_pmb, .prewrite = pre_pmblimitr,
      .postwrite = post_reevaluate },
    { .name = "PMBPTR_EL1", .enc = SPU_PMBPTR_EL1, .slot = R_PMBPTR_EL1, .flags = NOR,
      .check = check_pmb, .postwrite = post_pmbptr },
    { .name = "PMBSR_EL1", .enc = SPU_PMBSR_EL1, .slot = R_PMBSR_EL1, .flags = NOR,
      .res0 = AP_GENMASK(63, 32) | AP_GENMASK(25, 20) | AP_GENMASK(15, 6),
      .check = check_pmbsr, .prewrite = pre_pmbsr, .postwrite = post_pmbsr },
    { .name = "PMBMAR_EL1", .enc = SPU_PMBMAR_EL1, .slot = R_PMBMAR_EL1,
      .res0 = AP_GENMASK(63, 10), .check = check_pmbmar },
    { .name = "PMBIDR_EL1", .enc = SPU_PMBIDR_EL1, .slot = R_PMBIDR_EL1, .flags = AP_REG_RO,
      .res0 = AP_GENMASK(63, 12) | AP_GENMASK(7, 6), .check = check_pmbidr, .read = read_pmbidr },
};
const size_t spu_regdefs_count = sizeof(spu_regdefs) / sizeof(spu_regdefs[0]);

/* =============================================================================================
 * Register access
 * ============================================================================================= */

/* FEAT_VHE: at EL2 with HCR_EL2.E2H == 1, the PMSCR_EL1 encoding accesses PMSCR_EL2. */
static uint32_t redirect(const spu_t *spu, uint32_t enc)
{
    if (enc == SPU_PMSCR_EL1 && spu->ctx.el == 2 && spu->ctx.hcr_e2h && spu->ctx.have_el2)
        return SPU_PMSCR_EL2;
    return enc;
}

armprof_err spu_reg_check(const spu_t *spu, uint32_t enc, bool is_write)
{
    if (!spu)
        return ARMPROF_ERR_INVAL;
    return ap_reg_check(&spu->rf, redirect(spu, enc), is_write);
}

armprof_err spu_reg_read(spu_t *spu, uint32_t enc, uint64_t *val)
{
    if (!spu)
        return ARMPROF_ERR_INVAL;
    return ap_reg_read(&spu->rf, redirect(spu, enc), val);
}

armprof_err spu_reg_write(spu_t *spu, uint32_t enc, uint64_t val)
{
    if (!spu)
        return ARMPROF_ERR_INVAL;
    return ap_reg_write(&spu->rf, redirect(spu, enc), val);
}

armprof_err spu_reg_peek(const spu_t *spu, uint32_t enc, uint64_t *val)
{
    if (!spu || !val)
        return ARMPROF_ERR_INVAL;
    const ap_regdef *r = ap_reg_find(&spu->rf, enc);
    if (!r)
        return ARMPROF_ERR_NOREG;
    uint64_t v = spu->regs[r->slot];
    *val = r->read ? r->read((void *)spu, r, v) : v;
    return ARMPROF_OK;
}

/* Registers of optional features exist only with them (their accesses are UNDEFINED). */
bool spu_reg_present(const spu_config *cfg, int slot)
{
    switch (slot) {
    case R_PMSNEVFR_EL1: return cfg->feat_spev1p2;
    case R_PMBMAR_EL1: return cfg->feat_spe_nvm;
    default: return true;
    }
}

size_t spu_reg_count(const spu_t *spu)
{
    (void)spu;
    return spu_regdefs_count;
}

armprof_err spu_reg_info_at(const spu_t *spu, size_t i, spu_reg_info *info)
{
    if (!spu || !info || i >= spu_regdefs_count)
        return ARMPROF_ERR_INVAL;
    const ap_regdef *r = &spu_regdefs[i];
    const ap_regdef *t = r;
    if (r->flags & AP_REG_ALIAS)
        for (size_t j = 0; j < spu_regdefs_count; j++)
            if (spu_regdefs[j].slot == r->slot && !(spu_regdefs[j].flags & AP_REG_ALIAS))
                t = &spu_regdefs[j];
    info->name = r->name;
    info->enc = r->enc;
    info->reset = t->read ? t->read((void *)spu, t, t->reset) : t->reset;
    info->res0 = ap_reg_res0(&spu->rf, t);
    info->ro = t->ro;
    info->read_only = (t->flags & AP_REG_RO) != 0;
    info->alias = (r->flags & AP_REG_ALIAS) != 0;
    info->unknown_at_reset = (t->flags & AP_REG_NORESET) != 0;
    info->present = spu_reg_present(&spu->cfg, t->slot);
    return ARMPROF_OK;
}
