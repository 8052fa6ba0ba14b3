/* SPDX-License-Identifier: Apache-2.0 */
/* mgmt_event.c: Profiling Buffer management events: seed 001 §3.5 "Profiling Buffer management
 * event" (PMBSR_EL1.{S,EC,MSS,DL,EA}, PMBPTR_EL1, PMBIRQ; records discarded while S is 1),
 * §3.5.1 prioritization, §3.5.3 "Faults and watchpoints", §3.5.4 "External aborts" (reported
 * to the unit, or as an SError: PMBIDR_EL1.EA), seed 002 PMBSR_EL1 (EC and the FSC / BSC
 * encodings of MSS), and FEAT_SPEv1p2 PMBLIMITR_EL1.PMFZ. Buffer full (§3.5.2) is detected by
 * the writer (buffer_writer.c) and raised here. */
#include "spu_internal.h"

/* =============================================================================================
 * Management events (§3.5)
 * ============================================================================================= */

static void fifo_discard_all(spu_t *spu, spu_discard_reason why)
{
    discard(spu, why, spu->fifo_nrec);
    spu_fifo_clear(spu);
}

/* A Profiling Buffer management event: S=1, the syndrome, PMBPTR_EL1, PMBIRQ asserted; all
 * buffered records are discarded while S is 1. `dl` sets DL (it is otherwise unchanged). */
void spu_mgmt_event(spu_t *spu, mgmt_kind kind, uint8_t ec, uint8_t mss, bool dl, bool ea,
                       uint64_t ptr)
{
    uint64_t sr = spu_reg(spu, R_PMBSR_EL1);
    sr = ap_field_set(sr, PMBSR_S, 1);
    sr = ap_field_set(sr, PMBSR_EC, ec);
    sr = ap_field_set(sr, PMBSR_MSS, mss);
    if (dl)
        sr = ap_field_set(sr, PMBSR_DL, 1);
    if (ea)
        sr = ap_field_set(sr, PMBSR_EA, 1);
    spu->regs[R_PMBSR_EL1] = sr;
    spu->regs[R_PMBPTR_EL1] = ptr;
    spu->unit_ptr = ptr;
    spu->ptr_checked = false;
    spu->st.management_events++;
    if (kind == MGMT_FULL)
        spu->st.buffer_full_events++;
    else if (kind == MGMT_FAULT)
        spu->st.fault_events++;
    else if (kind == MGMT_EXT_ABORT)
        spu->st.ext_abort_events++;
    /* FEAT_SPEv1p2: PMBLIMITR_EL1.PMFZ freezes the PMU on a management event. */
    if (spu->cfg.feat_spev1p2 && ap_field_get(PMBLIMITR_PMFZ, spu_reg(spu, R_PMBLIMITR_EL1)) &&
        spu->ops.pmu_freeze)
        spu->ops.pmu_freeze(spu->ops.user);
    spu_set_irq(spu);
    fifo_discard_all(spu, SPU_DISCARD_SERVICE);
    /* A completed record waiting for room is taken (discarded) at the next edge: outside an
     * edge's drain (a write's answer at the end of an edge, spu_mem_complete) that edge must
     * not be skipped as quiet. */
    if (spu->next_complete > spu->now)
        spu->next_complete = spu->now;
    spu_reevaluate(spu);
}

void spu_set_irq(spu_t *spu)
{
    bool level = ap_field_get(PMBSR_S, spu_reg(spu, R_PMBSR_EL1)) != 0;
    if (level != spu->irq) {
        spu->irq = level;
        if (spu->ops.irq)
            spu->ops.irq(spu->ops.user, level);
    }
}

/* The oldest write's answer was a fault or an External abort (§3.5.3, §3.5.4). */
void spu_writer_failed(spu_t *spu, const spu_wr *e)
{
    const armprof_mem_result *res = &e->res;
    uint32_t w = res->written < e->len ? res->written : e->len;
    spu->st.bytes_written += w;
    uint64_t at = e->addr + w;
    /* Records wholly below the failing byte are in memory: earlier writes were accepted. */
    spu_writer_retire_below(spu, at);
    if (res->status != ARMPROF_MEM_FAULT && (spu->cfg.ea == SPU_EA_IGNORE || spu->cfg.ea == SPU_EA_SERROR)) {
        if (spu->cfg.ea == SPU_EA_SERROR) {
            spu->st.serrors++;
            if (spu->ops.serror)
                spu->ops.serror(spu->ops.user);
        }
        /* The unit does not see the abort: it carries on as if the bytes were written; the
         * records with bytes in the lost part are discarded, their other bytes not written. */
        for (uint32_t k = 0; k < spu->wr_n; k++) {
            spu_wrec *r = wrec_at(spu, k);
            if (r->start >= e->addr + e->len)
                break;
            if (!r->aborted) {
                r->aborted = true;
                discard(spu, SPU_DISCARD_EXT_ABORT, 1);
            }
        }
        return;
    }
    /* A management event: the record holding the failing byte is lost to it; the records
     * placed after it are discarded as S is now 1; later writes' answers are ignored. */
    uint64_t rec_end = at;
    for (uint32_t k = 0; k < spu->wr_n; k++) {
        spu_wrec *r = wrec_at(spu, k);
        if (k == 0)
            rec_end = r->end;
        if (!r->aborted)
            discard(spu, k == 0 ? SPU_DISCARD_FAULT : SPU_DISCARD_SERVICE, 1);
    }
    uint64_t ptr = spu_reg(spu, R_PMBPTR_EL1);
    bool partial = at != ptr; /* not the first byte after the last complete record */
    spu->wr_n = spu->wr_iss = 0;
    spu->iaddr = spu->wptr;
    spu->wq_ignored = spu->wq_n;
    spu->deferred = false;
    writer_blocked_update(spu);
    if (res->status == ARMPROF_MEM_FAULT) {
        /* §3.5.3: EC for the stage, FSC, PMBPTR_EL1 = the faulting address; DL when it is not
         * the first byte after the last complete record. Faults outrank buffer full (§3.5.1). */
        uint8_t ec = res->ec ? res->ec : ARMPROF_EC_S1_ABORT;
        spu_mgmt_event(spu, MGMT_FAULT, ec, res->fsc & 0x3f, partial, false, at);
        return;
    }
    /* Where the abort happened (armprof_mem_result.ec): on a stage 2 walk EC 0x25; on a GPT
     * fetch EC 0x1E, the GPC fault class of PMBSR_EL1.EC (REGISTERS.md: 0b011110); on the write
     * itself or a stage 1 walk (0 or 0x24) EC 0x24 (§3.5.4). MSS holds the FSC either way. */
    uint8_t ec = res->ec == ARMPROF_EC_S2_ABORT ? ARMPROF_EC_S2_ABORT
               : res->ec == ARMPROF_EC_GPC      ? ARMPROF_EC_GPC
                                                : ARMPROF_EC_S1_ABORT;
    uint8_t fsc = res->fsc ? (uint8_t)(res->fsc & 0x3f)
                           : (res->async ? ARMPROF_FSC_AEA_WRITE : ARMPROF_FSC_SEA_WRITE);
    /* Asynchronous: DL = 1 and PMBPTR_EL1 is not the aborted address (armprof leaves it past
     * the record, where the writer had got to). Synchronous: PMBPTR_EL1 = the aborted
     * address, DL when that is not the first byte after the last complete record. */
    if (res->async)
        spu_mgmt_event(spu, MGMT_EXT_ABORT, ec, fsc, true, true, rec_end);
    else
        spu_mgmt_event(spu, MGMT_EXT_ABORT, ec, fsc, partial, true, at);
}
