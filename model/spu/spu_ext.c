/* SPDX-License-Identifier: Apache-2.0 */
/* spu_ext.c: the external sampler: the Verilated RTL sample interval counter (§3.1) and record
 * FIFO drive the model's decisions in co-simulation (rtl-cosim/). No spec section of its own. */
#include <stdlib.h>
#include <string.h>

#include "spu_internal.h"

/* =============================================================================================
 * External sampler (the Verilated RTL counter and record FIFO in the platform, rtl-cosim/)
 * =============================================================================================
 * The external sampler takes the decisions of the sample interval counter (which operation is
 * sampled, which collides) and of the record FIFO (how many bytes reach the buffer writer at
 * each edge); the model keeps the records, filters, encoder, buffer writer, management events
 * and registers. Pacing: `stream` counts the bytes of every record that left a slot for the
 * FIFO (pushed, or discarded on the way while PMBSR_EL1.S == 1), `drained` the bytes the
 * external FIFO drained; the model's own FIFO has given away stream - fifo_level bytes and
 * drains until that equals `drained`. PSB CSYNC completes the operations in flight in the model
 * (§3.6) while the sampler's slots keep them until their own time: their bytes are `early`,
 * left out of the stream; the sampler's FIFO drains them later (up to the cycle `early_until`),
 * and those drained bytes are taken off `early` instead of being owed to the model. */

struct spu_ext {
    uint64_t stream;
    uint64_t drained;
    uint64_t early;           /* bytes of records PSB CSYNC completed that the sampler still owes */
    uint64_t early_until;     /* the sampler has taken them by this cycle */
    spu_ext_stats st;
    uint16_t pred[];          /* per slot: the record length the external FIFO was given */
};

armprof_err spu_set_external_sampler(spu_t *spu, bool on)
{
    if (!spu)
        return ARMPROF_ERR_INVAL;
    if (!on) {
        free(spu->ext);
        spu->ext = NULL;
        return ARMPROF_OK;
    }
    if (spu->inflight || spu->fifo_nrec)
        return ARMPROF_ERR_BUSY;
    struct spu_ext *x = calloc(1, sizeof(*x) + spu->cfg.max_inflight * sizeof(uint16_t));
    if (!x)
        return ARMPROF_ERR_NOMEM;
    free(spu->ext);
    spu->ext = x;
    return ARMPROF_OK;
}

bool spu_external_sampler(const spu_t *spu) { return spu->ext != NULL; }

uint32_t spu_predict_record_len(const spu_t *spu, const spu_op *op)
{
    spu_slot s;
    spu_build_record(spu, op, &s);
    if (!spu_collect_record(spu, s.events, s.total_lat, s.optype))
        return 0;
    if (record_has_timestamp(spu, &s))
        s.rec.present |= SPE_R_TIMESTAMP; /* 9 bytes whatever its value */
    return (uint32_t)spe_encoded_size(&s.rec, &spu->fmt);
}

/* retire_one() with the external sampler's decision for this operation. */
static spu_op_result ext_retire(spu_t *spu, const spu_op *op, bool fire, bool coll, uint16_t len)
{
    struct spu_ext *x = spu->ext;
    if (!spu->prof_enabled) {
        if (fire)
            x->st.enable_mismatches++;
        return SPU_OP_NOT_COUNTED;
    }
    spu->st.population++;
    emit(spu, ARMPROF_EV_SAMPLE_POP, 1);
    if (!fire)
        return SPU_OP_COUNTED;
    if (coll || spu->inflight >= spu->cfg.max_inflight) {
        if (!coll)
            x->st.slot_mismatches++;
        return spu_collide(spu);
    }
    spu_slot *s = spu_admit(spu, op);
    x->pred[s - spu->slots] = len;
    return SPU_OP_SAMPLED;
}

/* Edges after an operation's own completion by which the sampler's FIFO has taken its record
 * (its slot hands the record over at the completion's edge; a few edges of margin for a
 * sampler whose slots hand over later). */
#define EARLY_SLACK 4

/* The record leaves its slot in the PSB CSYNC's spu_ext_accept(), which adds its bytes to the
 * stream: they are taken off here first (modulo 2^64), so they count as `early` only. */
void spu_ext_early(spu_t *spu, uint64_t due, uint32_t len)
{
    struct spu_ext *x = spu->ext;
    x->early += len;
    x->stream -= len;
    if (due + EARLY_SLACK > x->early_until)
        x->early_until = due + EARLY_SLACK;
}

/* spu_accept_completed(), counting the bytes of the records that left their slots. */
void spu_ext_accept(spu_t *spu)
{
    struct spu_ext *x = spu->ext;
    uint32_t head = spu->slot_head, before = spu->inflight;
    spu_accept_completed(spu);
    for (uint32_t k = 0; k < before - spu->inflight; k++) {
        uint32_t i = head + k < spu->cfg.max_inflight ? head + k : head + k - spu->cfg.max_inflight;
        const spu_slot *s = &spu->slots[i];
        uint32_t len = s->collect ? s->len : 0;
        x->stream += len;
        if (len != x->pred[i])
            x->st.len_mismatches++;
    }
}

void spu_cycle_ext(spu_t *spu, const spu_op *ops, uint32_t n, const spu_ext_cycle *ec,
                   spu_op_result *result)
{
    struct spu_ext *x = spu->ext;
    if (!x) {
        spu_cycle(spu, ops, n, result);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        bool fire = i < 32 && (ec->fire >> i) & 1, coll = i < 32 && (ec->coll >> i) & 1;
        spu_op_result r = ext_retire(spu, &ops[i], fire, coll, ec->len && fire ? ec->len[i] : 0);
        if (result)
            result[i] = r;
    }
    /* PMSICR_EL1 as the external counter holds it. */
    uint64_t icr = ap_field_set(spu->regs[R_PMSICR_EL1], PMSICR_COUNT, ec->count);
    if (spu->cfg.ernd)
        icr = ap_field_set(icr, PMSICR_ECOUNT, ec->ecount);
    spu->regs[R_PMSICR_EL1] = icr;
    /* The edge: drain what the external FIFO drained, then accept completed records. */
    bool ready = writer_ready(spu);
    if (ec->drained && !ready)
        x->st.drain_not_ready++;
    if (spu->fifo_level && !ready)
        spu->st.writer_stall_cycles++;
    x->drained += ec->drained;
    uint64_t given = x->stream - spu->fifo_level;
    if (x->early && x->drained > given) { /* the records PSB CSYNC already wrote */
        uint64_t take = x->drained - given < x->early ? x->drained - given : x->early;
        x->early -= take;
        x->drained -= take;
    }
    if (x->drained > given && ready) {
        uint64_t owe = x->drained - given;
        if (owe > spu->fifo_level)
            x->st.owed_edges++;
        if (spu->fifo_nrec)
            fifo_drain(spu, owe < spu->fifo_level ? owe : spu->fifo_level, false);
        if (spu->iaddr != spu->wptr)
            spu_writer_run(spu, spu->head_drained == 0);
    }
    spu_ext_accept(spu);
    if (ap_field_get(PMBSR_S, spu->regs[R_PMBSR_EL1]))
        spu->st.service_cycles++;
    spu->now++;
    if (spu->next_done <= spu->now)
        spu_writer_run(spu, spu->head_drained == 0);
    x->st.cycles++;
    if (spu->fifo_level && spu->fifo_level != ec->fifo_level)
        x->st.level_mismatches++;
    if (!spu->fifo_level && !ec->fifo_level) {
        x->drained = x->stream; /* both empty: in step again */
        if (spu->now >= x->early_until)
            x->early = 0; /* the sampler dropped what it did not drain (fifo_discard, S = 1) */
    }
}

void spu_get_ext_stats(const spu_t *spu, spu_ext_stats *st)
{
    if (spu->ext)
        *st = spu->ext->st;
    else
        memset(st, 0, sizeof(*st));
}
