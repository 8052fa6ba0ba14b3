/* SPDX-License-Identifier: Apache-2.0 */
/* spu_state.c: checkpoints of the unit (spu_save / spu_restore): the registers, the PE context,
 * the counter and RNG, in-flight slots, the record FIFO and the buffer writer with its
 * outstanding writes. No spec section: a model facility (common/state.h). */
#include <stdlib.h>
#include <string.h>

#include "common/state.h"
#include "spu_internal.h"

#define SPU_STATE_TAG 0x53505531u /* "SPU1" */
#define SPU_STATE_VERSION 2u

/* =============================================================================================
 * Checkpoints
 * ============================================================================================= */

armprof_err spu_save(const spu_t *spu, uint8_t *buf, size_t cap, size_t *len)
{
    if (!spu || !len)
        return ARMPROF_ERR_INVAL;
    ap_state_writer w;
    ap_state_begin(&w, buf, cap, SPU_STATE_TAG, SPU_STATE_VERSION, spu_cfg_hash(&spu->cfg));
    ap_state_put(&w, &spu->ctx, sizeof(spu->ctx));
    ap_state_put(&w, spu->regs, sizeof(spu->regs));
    ap_state_put_u32(&w, spu->rng.state);
    ap_state_put_u32(&w, spu->sample_pending);
    ap_state_put_u32(&w, spu->irq);
    ap_state_put_u64(&w, spu->now);
    ap_state_put_u64(&w, spu->next_seq);
    ap_state_put_u32(&w, spu->inflight);
    ap_state_put_u32(&w, spu->slot_head);
    ap_state_put(&w, spu->slots, spu->cfg.max_inflight * sizeof(spu_slot));
    ap_state_put(&w, spu->slot_bytes, (size_t)spu->cfg.max_inflight << spu->cfg.max_size);
    ap_state_put(&w, spu->fifo_data, ring_size(spu));
    ap_state_put_u32(&w, spu->fifo_head);
    ap_state_put_u32(&w, spu->fifo_level);
    ap_state_put(&w, spu->fifo_recs, spu->fifo_nrec_cap * sizeof(spu_fifo_rec));
    ap_state_put_u32(&w, spu->fifo_rhead);
    ap_state_put_u32(&w, spu->fifo_nrec);
    ap_state_put_u32(&w, spu->head_drained);
    ap_state_put_u64(&w, spu->drained_total);
    ap_state_put_u64(&w, spu->unit_ptr);
    ap_state_put_u32(&w, spu->ptr_checked);
    ap_state_put(&w, &spu->st, sizeof(spu->st));
    /* The buffer writer: placed records, unissued bytes, outstanding writes and their answers. */
    ap_state_put_u64(&w, spu->wptr);
    ap_state_put_u64(&w, spu->iaddr);
    ap_state_put(&w, spu->wbuf, spu->wbuf_mask + 1);
    ap_state_put_u32(&w, spu->wq_n);
    ap_state_put_u32(&w, spu->wq_ignored);
    ap_state_put_u32(&w, spu->wq_pending);
    for (uint32_t k = 0; k < spu->wq_n; k++) {
        const spu_wr *q = &spu->wq[(spu->wq_head + k) % spu->cfg.max_outstanding_writes];
        ap_state_put_u64(&w, q->addr);
        ap_state_put_u64(&w, q->issue_at);
        ap_state_put_u64(&w, q->done_at);
        ap_state_put_u32(&w, q->len);
        ap_state_put_u32(&w, q->res.status);
        ap_state_put_u32(&w, q->res.ec);
        ap_state_put_u32(&w, q->res.fsc);
        ap_state_put_u32(&w, q->res.async);
        ap_state_put_u32(&w, q->res.written);
        ap_state_put_u32(&w, q->res.mss2);
        ap_state_put_u32(&w, q->res.latency);
    }
    ap_state_put_u32(&w, spu->wr_n);
    ap_state_put_u32(&w, spu->wr_iss);
    for (uint32_t k = 0; k < spu->wr_n; k++) {
        const spu_wrec *q = &spu->wr[(spu->wr_head + k) % spu->wr_cap];
        ap_state_put_u64(&w, q->start);
        ap_state_put_u64(&w, q->end);
        ap_state_put_u32(&w, q->aborted);
    }
    ap_state_put_u32(&w, spu->deferred);
    ap_state_put_u64(&w, spu->deferred_ptr);
    ap_state_put_u64(&w, spu->lvl_t);
    ap_state_put_u64(&w, spu->direct_writes);
    armprof_err e = ap_state_end(&w);
    *len = w.len;
    return e;
}

armprof_err spu_restore(spu_t *spu, const uint8_t *buf, size_t len)
{
    if (!spu)
        return ARMPROF_ERR_INVAL;
    ap_state_reader r;
    armprof_err e = ap_state_open(&r, buf, len, SPU_STATE_TAG, SPU_STATE_VERSION, spu_cfg_hash(&spu->cfg));
    if (e != ARMPROF_OK)
        return e;
    /* Read into a scratch copy first so a corrupt payload leaves the unit untouched. */
    spu_t *t = malloc(sizeof(*t));
    spu_slot *slots = malloc(spu->cfg.max_inflight * sizeof(spu_slot));
    uint8_t *fd = malloc(ring_size(spu));
    size_t sb_len = (size_t)spu->cfg.max_inflight << spu->cfg.max_size;
    uint8_t *sb = malloc(sb_len);
    spu_fifo_rec *fr = malloc(spu->fifo_nrec_cap * sizeof(spu_fifo_rec));
    if (!t || !slots || !fd || !fr || !sb) {
        free(t); free(slots); free(fd); free(fr); free(sb);
        return ARMPROF_ERR_NOMEM;
    }
    *t = *spu;
    ap_state_get(&r, &t->ctx, sizeof(t->ctx));
    ap_state_get(&r, t->regs, sizeof(t->regs));
    t->rng.state = ap_state_get_u32(&r);
    t->sample_pending = ap_state_get_u32(&r) != 0;
    t->irq = ap_state_get_u32(&r) != 0;
    t->now = ap_state_get_u64(&r);
    t->next_seq = ap_state_get_u64(&r);
    t->inflight = ap_state_get_u32(&r);
    t->slot_head = ap_state_get_u32(&r);
    ap_state_get(&r, slots, spu->cfg.max_inflight * sizeof(spu_slot));
    ap_state_get(&r, sb, sb_len);
    ap_state_get(&r, fd, ring_size(spu));
    t->fifo_head = ap_state_get_u32(&r);
    t->fifo_level = ap_state_get_u32(&r);
    ap_state_get(&r, fr, spu->fifo_nrec_cap * sizeof(spu_fifo_rec));
    t->fifo_rhead = ap_state_get_u32(&r);
    t->fifo_nrec = ap_state_get_u32(&r);
    t->head_drained = ap_state_get_u32(&r);
    t->drained_total = ap_state_get_u64(&r);
    t->unit_ptr = ap_state_get_u64(&r);
    t->ptr_checked = ap_state_get_u32(&r) != 0;
    ap_state_get(&r, &t->st, sizeof(t->st));
    uint32_t M = spu->cfg.max_outstanding_writes;
    uint8_t *wb = malloc(spu->wbuf_mask + 1);
    spu_wr *wq = calloc(M, sizeof(spu_wr));
    spu_wrec *wr = NULL;
    uint32_t wr_cap = spu->wr_cap;
    if (!wb || !wq) {
        e = ARMPROF_ERR_NOMEM;
        goto out;
    }
    t->wptr = ap_state_get_u64(&r);
    t->iaddr = ap_state_get_u64(&r);
    ap_state_get(&r, wb, spu->wbuf_mask + 1);
    t->wq_n = ap_state_get_u32(&r);
    t->wq_ignored = ap_state_get_u32(&r);
    t->wq_pending = ap_state_get_u32(&r);
    if (t->wq_n > M || t->wq_ignored > t->wq_n || t->wq_pending > t->wq_n) {
        e = ARMPROF_ERR_STATE_CORRUPT;
        goto out;
    }
    for (uint32_t k = 0; k < t->wq_n; k++) {
        spu_wr *q = &wq[k];
        q->addr = ap_state_get_u64(&r);
        q->issue_at = ap_state_get_u64(&r);
        q->done_at = ap_state_get_u64(&r);
        q->len = ap_state_get_u32(&r);
        q->res.status = (armprof_mem_status)ap_state_get_u32(&r);
        q->res.ec = (uint8_t)ap_state_get_u32(&r);
        q->res.fsc = (uint8_t)ap_state_get_u32(&r);
        q->res.async = ap_state_get_u32(&r) != 0;
        q->res.written = ap_state_get_u32(&r);
        q->res.mss2 = ap_state_get_u32(&r);
        q->res.latency = ap_state_get_u32(&r);
    }
    t->wq_head = 0;
    t->wr_n = ap_state_get_u32(&r);
    t->wr_iss = ap_state_get_u32(&r);
    if (t->wr_n > (1u << 26) || t->wr_iss > t->wr_n) {
        e = ARMPROF_ERR_STATE_CORRUPT;
        goto out;
    }
    while (wr_cap < t->wr_n)
        wr_cap *= 2;
    wr = calloc(wr_cap, sizeof(spu_wrec));
    if (!wr) {
        e = ARMPROF_ERR_NOMEM;
        goto out;
    }
    for (uint32_t k = 0; k < t->wr_n; k++) {
        wr[k].start = ap_state_get_u64(&r);
        wr[k].end = ap_state_get_u64(&r);
        wr[k].aborted = ap_state_get_u32(&r) != 0;
    }
    t->wr_head = 0;
    /* The writer's invariants, so that a corrupt state cannot make it read past its buffers. */
    bool bad = t->iaddr > t->wptr || t->wptr - t->iaddr > spu->wbuf_mask + 1;
    for (uint32_t k = 0; k < t->wr_n && !bad; k++)
        bad = wr[k].end <= wr[k].start || wr[k].end - wr[k].start > (1u << spu->cfg.max_size) ||
              (k && wr[k].start != wr[k - 1].end) || wr[k].end > t->wptr;
    for (uint32_t k = 0; k < t->wq_n && !bad; k++)
        bad = wq[k].len == 0 || wq[k].len > spu_wtmp_bytes(&spu->cfg);
    if (bad) {
        e = ARMPROF_ERR_STATE_CORRUPT;
        goto out;
    }
    t->deferred = ap_state_get_u32(&r) != 0;
    t->deferred_ptr = ap_state_get_u64(&r);
    t->lvl_t = ap_state_get_u64(&r);
    t->direct_writes = ap_state_get_u64(&r);
    e = ap_state_close(&r);
    if (e == ARMPROF_OK && (t->inflight > spu->cfg.max_inflight || t->slot_head >= spu->cfg.max_inflight || t->fifo_nrec > spu->fifo_nrec_cap ||
                            t->fifo_rhead >= spu->fifo_nrec_cap || t->fifo_head >= ring_size(spu) ||
                            t->fifo_level > spu->cfg.fifo_bytes || t->ctx.el > 3))
        e = ARMPROF_ERR_STATE_CORRUPT;
    if (e == ARMPROF_OK) {
        memcpy(spu->slots, slots, spu->cfg.max_inflight * sizeof(spu_slot));
        memcpy(spu->slot_bytes, sb, sb_len);
        memcpy(spu->fifo_data, fd, ring_size(spu));
        memcpy(spu->fifo_recs, fr, spu->fifo_nrec_cap * sizeof(spu_fifo_rec));
        t->slots = spu->slots;
        t->slot_bytes = spu->slot_bytes;
        t->fifo_data = spu->fifo_data;
        t->fifo_recs = spu->fifo_recs;
        memcpy(spu->wbuf, wb, spu->wbuf_mask + 1);
        memcpy(spu->wq, wq, M * sizeof(spu_wr));
        t->wbuf = spu->wbuf;
        t->wq = spu->wq;
        free(spu->wr);
        t->wr = wr;
        t->wr_cap = wr_cap;
        wr = NULL;
        t->flush = false;
        *spu = *t;
        wq_next_done(spu);
        writer_blocked_update(spu);
        spu->buf_enabled = spu_eval_buffer_enabled(spu, &spu->regime);
        spu->prof_enabled = spu_eval_profiling_enabled(spu);
        spu_sample_attrs_update(spu);
        spu->complete_in_order = false; /* not known: the full scan */
        spu_recompute_next_complete(spu);
    }
out:
    free(wb); free(wq); free(wr);
    free(t); free(slots); free(fd); free(fr); free(sb);
    return e;
}
