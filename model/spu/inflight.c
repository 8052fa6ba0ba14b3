/* SPDX-License-Identifier: Apache-2.0 */
/* inflight.c: sampled operations in flight and the capture of their records: seed 001 §2.2.1
 * steps 5-6 ("When the sampled operation is completed, the sample record is captured"), §2.5
 * "Capturing records of sampled operations", §2.6 SAMPLE_FILTRATE. A sampled operation holds a
 * slot (collection.c admits it) until its record, filtered (filter.c) and encoded, has
 * entered the record FIFO in sampling order (record_fifo.c), or has been removed by the
 * filters, or discarded while PMBSR_EL1.S is 1 (§3.5). */
#include "spu_internal.h"

/* =============================================================================================
 * Capture (§2.5)
 * ============================================================================================= */

/* The sampled operation in slot s completes: capture, filter, encode. */
static void complete_slot(spu_t *spu, spu_slot *s)
{
    s->completed = true;
    s->collect = spu_collect_record(spu, s->events, s->total_lat, s->optype);
    if (!s->collect) {
        spu->st.filtered_out++;
        return;
    }
    spu->st.filtrate++;
    emit(spu, ARMPROF_EV_SAMPLE_FILTRATE, 1);
    spe_record *r = &s->rec;
    if (record_has_timestamp(spu, s)) {
        r->present |= SPE_R_TIMESTAMP;
        r->timestamp = spu->ctx.timer_enabled ? timestamp_now(spu, s->ts_kind) : 0;
    }
    uint8_t *b = slot_bytes(spu, s);
    size_t n = spe_encode(r, &spu->fmt, b, (size_t)1 << spu->slot_shift);
    s->len = (uint16_t)n;
    if (spu->rec_hook)
        spu->rec_hook(spu->rec_hook_user, r, b, n);
}

/* PSB CSYNC (§3.6): every sampled operation still in flight completes now, so that its record
 * is captured (filtered, encoded, timestamped now) and can be written before PSB CSYNC ends. */
void spu_complete_inflight(spu_t *spu)
{
    for (uint32_t k = 0; k < spu->inflight; k++) {
        spu_slot *s = slot_at(spu, k);
        if (s->completed)
            continue;
        uint64_t due = s->complete_at;
        s->complete_at = spu->now;
        complete_slot(spu, s);
        if (spu->ext)
            spu_ext_early(spu, due, s->collect ? s->len : 0);
    }
    spu->next_complete = UINT64_MAX;
}

/* Only the oldest slot is ever freed: records leave in sampling order. */
static void free_slot(spu_t *spu, spu_slot *s)
{
    s->used = false;
    spu->slot_head = spu->slot_head + 1 == spu->cfg.max_inflight ? 0 : spu->slot_head + 1;
    spu->inflight--;
}

void spu_recompute_next_complete(spu_t *spu)
{
    uint64_t m = UINT64_MAX;
    for (uint32_t k = 0; k < spu->inflight; k++) {
        const spu_slot *s = slot_at(spu, k);
        if (!s->completed && s->complete_at < m)
            m = s->complete_at;
    }
    spu->next_complete = m;
}

/* The oldest slot when its operation has completed (records enter the FIFO in the order they
 * were sampled, so a younger completed record waits behind an older incomplete one). */
static spu_slot *oldest_waiting(spu_t *spu, bool *blocked_by_incomplete)
{
    *blocked_by_incomplete = false;
    if (!spu->inflight)
        return NULL;
    spu_slot *s = slot_at(spu, 0);
    if (!s->completed) {
        *blocked_by_incomplete = true;
        return NULL;
    }
    return s;
}

/* Clock edge, part 2: completions at or before `now` are captured; completed records enter the
 * FIFO in sampling order while it has room. A slot is freed when its record is accepted (or
 * when the record is not going to the FIFO at all). */
void spu_accept_completed(spu_t *spu)
{
    if (spu->next_complete <= spu->now) {
        /* One pass in sampling order: capture what is due, and find the next completion among
         * the rest (the ring index wraps by compare, not by a modulo per slot). */
        uint64_t m = UINT64_MAX;
        const uint64_t now = spu->now;
        uint32_t i = spu->slot_head;
        const uint32_t cap = spu->cfg.max_inflight;
        if (spu->complete_in_order) {
            /* Completed slots are a prefix and the rest complete in ring order: stop at the
             * first one not yet due, which is also the next completion. */
            for (uint32_t k = spu->inflight; k; k--) {
                spu_slot *s = &spu->slots[i];
                if (!s->completed) {
                    if (s->complete_at > now) {
                        m = s->complete_at;
                        break;
                    }
                    complete_slot(spu, s);
                }
                if (++i == cap)
                    i = 0;
            }
        } else {
            for (uint32_t k = spu->inflight; k; k--) {
                spu_slot *s = &spu->slots[i];
                if (!s->completed) {
                    if (s->complete_at <= now)
                        complete_slot(spu, s);
                    else if (s->complete_at < m)
                        m = s->complete_at;
                }
                if (++i == cap)
                    i = 0;
            }
        }
        spu->next_complete = m;
    }
    if (!spu->inflight || !spu->slots[spu->slot_head].completed)
        return; /* nothing waits for the FIFO */
    for (;;) {
        bool blocked;
        spu_slot *s = oldest_waiting(spu, &blocked);
        if (!s)
            break;
        if (!s->collect) {
            free_slot(spu, s);
            continue;
        }
        if (ap_field_get(PMBSR_S, spu_reg(spu, R_PMBSR_EL1))) {
            /* While S is 1 all buffered records are discarded. */
            discard(spu, SPU_DISCARD_SERVICE, 1);
            free_slot(spu, s);
            continue;
        }
        if (!fifo_push(spu, slot_bytes(spu, s), s->len)) {
            spu->st.fifo_full_cycles++;
            break;
        }
        free_slot(spu, s);
    }
}
