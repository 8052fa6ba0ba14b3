/* SPDX-License-Identifier: Apache-2.0 */
/* collection.c: what a sample record holds: seed 001 §2.3 "Collected data" (§2.3.1 branches,
 * §2.3.2 memory accesses, §2.3.5 incomplete records: exceptions and misspeculation), §3.3
 * "Controlling the data that is collected" and the §3.3.1 pseudocode CollectContextIDR1(),
 * CollectContextIDR2(), CollectTimeStamp(), CollectPhysicalAddress() (PMSCR_EL1/EL2.{CX,TS,PA,
 * PCT}), and the Timestamp packet's counter (physical or virtual, CNTVOFF_EL2). The sampled
 * operation takes its slot here (§2.2.1 step 5, SAMPLE_FEED of §2.6) as its data is collected. */
#include "spu_internal.h"

/* =============================================================================================
 * Records
 * ============================================================================================= */

static inline uint16_t saturate(const spu_t *spu, uint32_t v)
{
    uint32_t max = spu->samp.count_max;
    return (uint16_t)(v > max ? max : v);
}

/* §3.3.1 collection controls, evaluated when the operation is sampled. */
static bool collect_context1(const spu_t *spu)
{
    const armprof_pe_ctx *c = &spu->ctx;
    if (c->el == 2)
        return false;
    if (armprof_pe_security(c) != ARMPROF_SECURE && c->have_el2 && c->hcr_tge)
        return false;
    return ap_field_get(PMSCR_CX, spu_reg(spu, R_PMSCR_EL1));
}

static bool collect_context2(const spu_t *spu)
{
    const armprof_pe_ctx *c = &spu->ctx;
    if (!c->have_el2 || armprof_pe_security(c) == ARMPROF_SECURE)
        return false;
    return ap_field_get(PMSCR_CX, spu_reg(spu, R_PMSCR_EL2));
}

/* CollectTimeStamp(): 0 none, 1 virtual, 2 physical. */
static uint8_t collect_timestamp(const spu_t *spu)
{
    armprof_security ss = spu->regime.ss;
    uint8_t el = spu->regime.el;
    uint64_t s1 = spu_reg(spu, R_PMSCR_EL1), s2 = spu_reg(spu, R_PMSCR_EL2);
    if (!ap_field_get(PMSCR_TS, el == 2 ? s2 : s1))
        return 0;
    bool pct;
    if (ss != ARMPROF_SECURE && spu->ctx.have_el2)
        pct = ap_field_get(PMSCR_PCT_BIT0, s2) && (el == 2 || ap_field_get(PMSCR_PCT_BIT0, s1));
    else
        pct = ap_field_get(PMSCR_PCT_BIT0, s1);
    return pct ? 2 : 1;
}

/* CollectPhysicalAddress() */
static bool collect_pa(const spu_t *spu)
{
    uint64_t s1 = spu_reg(spu, R_PMSCR_EL1), s2 = spu_reg(spu, R_PMSCR_EL2);
    if (spu->regime.ss != ARMPROF_SECURE && spu->ctx.have_el2)
        return ap_field_get(PMSCR_PA, s2) && (spu->regime.el == 2 || ap_field_get(PMSCR_PA, s1));
    return ap_field_get(PMSCR_PA, s1);
}

/* The collection controls as they stand now; every input of them (the PE context, PMSCR_EL1,
 * PMSCR_EL2 and the owning regime) changes only through spu_reevaluate() or spu_restore(). */
void spu_sample_attrs_update(spu_t *spu)
{
    spu->samp.context1 = collect_context1(spu);
    spu->samp.context2 = collect_context2(spu);
    spu->samp.pa = collect_pa(spu);
    spu->samp.pc_ns = armprof_pe_security(&spu->ctx) != ARMPROF_SECURE;
    spu->samp.ts_kind = collect_timestamp(spu);
    spu->samp.count_max = spu->cfg.count_size == 2 ? 0xFFFu : 0xFFFFu;
}

/* The operation type CollectRecord() filters on (§3.2.2). An atomic is an extended load/store
 * (SUBCLASS[7:5] == 0, bit 1 set) with AT; its ST bit says whether it returns a value to a
 * register (ST = 0: LDADD, SWP, CAS) or not (ST = 1: STADD). */
static int op_type_of(const spu_op *op)
{
    switch (op->op_class) {
    case SPE_CLASS_BRANCH: return OPTYPE_BRANCH;
    case SPE_CLASS_LDST: {
        uint8_t sub = op->op_subclass;
        bool st = (sub & SPE_LDST_ST) != 0;
        if ((sub & 0xE2u) == SPE_LDST_EXTENDED && (sub & SPE_LDST_AT))
            return st ? OPTYPE_ATOMIC : OPTYPE_ATOMIC_RET;
        return st ? OPTYPE_STORE : OPTYPE_LOAD;
    }
    default: return OPTYPE_OTHER;
    }
}

/* Build the record of a sampled operation (everything but the timestamp). */
static void build_record(const spu_t *spu, const spu_op *op, spu_slot *s)
{
    spe_record *r = &s->rec;
    const armprof_pe_ctx *c = &spu->ctx;
    /* Every field set explicitly (a memset of the record is a measurable cost per sample). */
    r->target = r->data_va = r->data_pa = r->timestamp = 0;
    r->target_el = r->data_va_tag = 0;
    r->target_ns = r->data_pa_ns = false;
    r->context_el1 = r->context_el2 = 0;
    r->total_lat = r->issue_lat = r->xlat_lat = r->data_source = 0;
    bool exc = (op->flags & SPU_OP_EXCEPTION) != 0;
    /* E[0] and E[1] come from the flags (§5.3.7, §2.3.5). E[1] "committed its results to the
     * architectural state of the PE, or completed with a synchronous architectural exception":
     * set for a retired operation and for one that generated an (architectural) exception, with
     * E[0] as well. A misspeculated operation, or one generating a non-architectural exception
     * (SPU_OP_NOT_RETIRED, with or without SPU_OP_EXCEPTION), has neither. */
    uint64_t ev = op->events & ~(AP_BIT(SPE_EV_EXCEPTION) | AP_BIT(SPE_EV_RETIRED));
    if (!(op->flags & SPU_OP_NOT_RETIRED))
        ev |= AP_BIT(SPE_EV_RETIRED) | (exc ? AP_BIT(SPE_EV_EXCEPTION) : 0);
    r->events = ev;
    s->events = ev;
    s->total_lat = op->total_lat;
    s->optype = (uint8_t)op_type_of(op);

    r->present = SPE_R_PC | SPE_R_OPTYPE;
    r->pc = op->pc & AP_GENMASK(55, 0);
    r->pc_el = c->el;
    r->pc_ns = spu->samp.pc_ns;
    r->op_class = op->op_class;
    r->op_subclass = op->op_subclass;
    if (spu->samp.context1) {
        r->present |= SPE_R_CONTEXT_EL1;
        r->context_el1 = (uint32_t)c->contextidr_el1;
    }
    if (spu->samp.context2) {
        r->present |= SPE_R_CONTEXT_EL2;
        r->context_el2 = (uint32_t)c->contextidr_el2;
    }
    s->ts_kind = spu->samp.ts_kind;
    if (exc)
        return; /* 2.3.5: armprof records only PC, type, events and time for an exception */
    r->present |= SPE_R_TOTAL_LAT | SPE_R_ISSUE_LAT;
    r->total_lat = saturate(spu, op->total_lat);
    r->issue_lat = saturate(spu, op->issue_lat);
    if (op->op_class == SPE_CLASS_BRANCH && (op->flags & SPU_OP_HAS_TARGET)) {
        r->present |= SPE_R_TARGET;
        r->target = op->target & AP_GENMASK(55, 0);
        r->target_el = op->target_el;
        r->target_ns = op->target_ns;
    }
    if (op->op_class == SPE_CLASS_LDST) {
        if (op->flags & SPU_OP_HAS_XLAT) {
            r->present |= SPE_R_XLAT_LAT;
            r->xlat_lat = saturate(spu, op->xlat_lat);
        }
        if (op->flags & SPU_OP_HAS_VA) {
            r->present |= SPE_R_DATA_VA;
            r->data_va = op->data_va & AP_GENMASK(55, 0);
            r->data_va_tag = (uint8_t)(op->data_va >> 56);
        }
        if ((op->flags & SPU_OP_HAS_PA) && spu->samp.pa) {
            r->present |= SPE_R_DATA_PA;
            r->data_pa = op->data_pa & AP_GENMASK(55, 0);
            r->data_pa_ns = op->data_pa_ns;
        }
        if ((op->flags & SPU_OP_HAS_DSRC) && spu->cfg.lds && !(op->op_subclass & SPE_LDST_ST)) {
            r->present |= SPE_R_DATA_SOURCE;
            r->data_source = op->data_source;
        }
    }
}

/* For the external sampler's length prediction (build_record() itself stays inlinable in admit). */
void spu_build_record(const spu_t *spu, const spu_op *op, spu_slot *s) { build_record(spu, op, s); }

/* =============================================================================================
 * The sampled operation (§2.2.1 step 5): it takes a slot, and its data is collected
 * ============================================================================================= */

/* The sampled operation takes the next free slot (SAMPLE_FEED); returns that slot. */
spu_slot *spu_admit(spu_t *spu, const spu_op *op)
{
    spu->st.feed++;
    emit(spu, ARMPROF_EV_SAMPLE_FEED, 1);
    spu_slot *s = slot_at(spu, spu->inflight);
    s->used = true;
    s->completed = false;
    s->collect = false;
    s->len = 0;
    s->seq = spu->next_seq++;
    s->complete_at = spu->now + op->total_lat;
    if (!spu->inflight)
        spu->complete_in_order = true;
    else if (s->complete_at < spu->last_complete_at)
        spu->complete_in_order = false;
    spu->last_complete_at = s->complete_at;
    spu->inflight++;
    build_record(spu, op, s);
    if (s->complete_at < spu->next_complete)
        spu->next_complete = s->complete_at;
    return s;
}
