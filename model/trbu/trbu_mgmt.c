/* SPDX-License-Identifier: Apache-2.0 */
/*
 * trbu_mgmt.c: trace buffer management events (seed 004, Arm ARM D6.5): the TRBSR_ELx syndrome of
 * a buffer full / wrap event (D6.5.2, RMBSHC), a Trigger Event and its trigger mode (D6.5.3,
 * RDHLQG, RKSQJW, RXRRWP, RLMQHK, RMWWHM), faults (D6.5.4, RFSPBK, RLYHGV), External aborts
 * reported to the unit (D6.5.5) and IMPLEMENTATION DEFINED events (RCHNSL). Which TRBSR_ELx an
 * event lands in (RBNQRP) and TRBIRQ are in trbu_route.c.
 */
#include "trbu_internal.h"

/* Sets TRBSR_ELx.IRQ (a trace buffer management event) and returns that register. */
static uint64_t *mgmt_irq(trbu_t *t, uint8_t el)
{
    uint64_t *r = trbu_sr(t, el);
    *r |= TRBSR_IRQ;
    t->st.management_events++;
    t->st.mgmt_by_el[el]++;
    return r;
}

/* "If TRBSR_ELx.S is 0": S = 1 (collection stopped), EC, MSS. Bytes still in the internal
 * buffer when collection stops are lost. */
static bool set_stop(trbu_t *t, uint64_t *r, uint8_t ec, uint64_t mss)
{
    if (*r & TRBSR_S)
        return false;
    *r |= TRBSR_S;
    *r = ap_field_set(*r, TRBSR_EC, ec);
    *r = ap_field_set(*r, TRBSR_MSS, mss);
    trbu_discard_ibuf(t, TRBU_DISCARD_STOPPED);
    return true;
}

/* RFSPBK: an Alignment fault or MMU fault (including a GPC fault) on a write. */
void trbu_fault_event(trbu_t *t, uint8_t ec, uint8_t fsc, uint32_t mss2, bool set_ea)
{
    uint8_t el = trbu_event_route(t, trbu_kind_of(ec, fsc));
    uint64_t *r = mgmt_irq(t, el);
    if (set_stop(t, r, ec, fsc) && ec == ARMPROF_EC_S2_ABORT && t->cfg.feat_mss2) {
        /* RLYHGV: TopLevel / AssuredOnly for a stage 2 fault, 0 for any other stage 2 fault. */
        uint64_t m2 = ((uint64_t)mss2 << 32) & (TRBSR_TopLevel | TRBSR_AssuredOnly);
        *r = (*r & ~TRBSR_MSS2) | m2;
    }
    if (set_ea)
        *r |= TRBSR_EA;
    t->st.fault_events++;
}

/* D6.5.5.4: an External abort reported to the unit. EA is set whatever S was; the unit stops. */
void trbu_ea_report(trbu_t *t, uint8_t ec, uint8_t fsc)
{
    uint8_t el = trbu_event_route(t, trbu_kind_of(ec, fsc));
    uint64_t *r = trbu_sr(t, el);
    *r |= TRBSR_EA;
    if (!(*r & TRBSR_S)) {
        mgmt_irq(t, el);
        set_stop(t, r, ec, fsc);
    }
    trbu_discard_ibuf(t, TRBU_DISCARD_STOPPED);
    t->st.ext_abort_events++;
}

void trbu_raise_impdef(trbu_t *t, uint16_t mss)
{
    /* RCHNSL: IRQ, S, EC = 0x1F and MSS are all set, whatever S was. */
    uint64_t *r = mgmt_irq(t, trbu_event_route(t, TRBU_EVK_OTHER));
    *r |= TRBSR_S;
    *r = ap_field_set(*r, TRBSR_EC, ARMPROF_EC_IMPDEF);
    *r = ap_field_set(*r, TRBSR_MSS, mss);
    trbu_discard_ibuf(t, TRBU_DISCARD_STOPPED);
    t->st.impdef_events++;
}

/* RMBSHC and its neighbours: the current write pointer wrapped to the Base pointer. */
void trbu_wrap_event(trbu_t *t)
{
    t->st.wraps++;
    trbu_pmu_event(t, ARMPROF_EV_TRB_WRAP);
    unsigned fm = trbu_fm_of(t);
    uint8_t el = trbu_event_route(t, TRBU_EVK_OTHER);
    if (fm == TRBU_FM_CIRCULAR) {
        *trbu_sr(t, el) |= TRBSR_WRAP;               /* no interrupt request */
        return;
    }
    uint64_t *r = mgmt_irq(t, el);
    *r |= TRBSR_WRAP;
    if (fm == TRBU_FM_FILL) {
        t->st.buffer_full_events++;
        set_stop(t, r, ARMPROF_EC_OTHER, TRBU_BSC_FILLED);
    } else {
        t->st.wrap_irq_events++;                      /* Wrap mode: S unchanged, trace continues */
    }
}

/* RDHLQG: a Trigger Event, with the trigger mode's consequence (RXRRWP, RLMQHK, RMWWHM). */
void trbu_trigger_event(trbu_t *t)
{
    t->st.trigger_events++;
    trbu_pmu_event(t, ARMPROF_EV_TRB_TRIG);
    if (trbu_collection_stopped(t))
        return;                                       /* RMWWHM: TRBSR unchanged */
    unsigned tm = trbu_tm_of(t);
    if (tm == TRBU_TM_IGNORE || t->flush_pending)
        return;                                       /* RLMQHK */
    /* Stop / IRQ on trigger: a trace unit flush first, the management event on completion. */
    t->flush_pending = true;
    t->flush_tm = (uint8_t)tm;
    t->st.flushes++;
    if (t->flush_fn) {
        t->flush_at = TRBU_NO_TIME;
        t->flush_fn(t->flush_user);
    } else {
        t->flush_at = t->now + t->cfg.flush_cycles;
    }
}

/* The trigger management event of a completed flush, once the writes before it are accepted. */
void trbu_try_trigger_mgmt(trbu_t *t)
{
    if (!t->trg_wait)
        return;
    unsigned tm = t->flush_tm;
    if (tm == TRBU_TM_STOP ? (t->ibuf_len || t->wq_live) : t->acc_seq < t->trg_wait_seq)
        return;
    t->trg_wait = false;
    uint64_t *r = mgmt_irq(t, trbu_event_route(t, TRBU_EVK_OTHER));
    if (tm == TRBU_TM_STOP)
        set_stop(t, r, ARMPROF_EC_OTHER, TRBU_BSC_TRIGGER);
    t->st.trigger_mgmt_events++;
}

void trbu_flush_done(trbu_t *t)
{
    t->flush_pending = false;
    /* The trace accepted before the flush completed reaches memory before collection stops
     * (Stop on trigger); the event follows the writes issued before it. */
    if (t->flush_tm == TRBU_TM_STOP)
        trbu_drain(t);
    t->trg_wait = true;
    t->trg_wait_seq = t->wr_seq;
    trbu_try_trigger_mgmt(t);
}

/* ----- Entry points ---------------------------------------------------------------------------- */

void trbu_trigger(trbu_t *t)
{
    t->st.detected_triggers++;
    if (trbu_unit_enabled(t)) {
        /* RKSQJW: TRG set in the Other-event TRBSR_ELx; RDHLQG / RQFGNQ decide the rest. */
        uint64_t *r = trbu_sr(t, trbu_event_route(t, TRBU_EVK_OTHER));
        bool was = (*r & TRBSR_TRG) != 0;
        *r |= TRBSR_TRG;
        if (!was) {
            if ((t->vals[TRBU_SLOT_TRG] & TRBTRG_EL1_TRG) == 0)
                trbu_trigger_event(t);
            else /* accepted before the Detected Trigger: buffered or in outstanding writes */
                t->pre_trig = t->ibuf_len + (uint32_t)t->inflight_bytes;
        }
    }
    trbu_process_due(t);
    trbu_update_outputs(t);
}

void trbu_set_flush_hook(trbu_t *t, trbu_flush_fn fn, void *user)
{
    t->flush_fn = fn;
    t->flush_user = user;
}

void trbu_flush_complete(trbu_t *t)
{
    if (t->flush_pending)
        trbu_flush_done(t);
    trbu_process_due(t);
    trbu_update_outputs(t);
}

bool trbu_flush_pending(const trbu_t *t)
{
    return t->flush_pending;
}

void trbu_impdef_event(trbu_t *t, uint16_t mss)
{
    trbu_raise_impdef(t, mss);
    trbu_update_outputs(t);
}
