/* SPDX-License-Identifier: Apache-2.0 */
/* trbu_state.c: checkpoints of the Trace Buffer Unit (trbu_save / trbu_restore): registers, the
 * internal buffer, pending flush and External abort, outstanding writes, statistics. */
#include <stdlib.h>
#include <string.h>

#include "common/state.h"
#include "trbu_internal.h"

#define TRBU_STATE_TAG 0x55425254u /* "TRBU" */
#define TRBU_STATE_VERSION 2u /* 2: outstanding writes */

/* A hash of the configuration, field by field (no padding bytes), for checkpoints. */
static uint64_t cfg_hash(const trbu_config *c)
{
    uint64_t f[] = { c->align, c->flag_update, c->feat_trbe_exc, c->feat_trbe_ext, c->feat_mss2,
                     c->armv9p3, c->ea_write, c->ea_walk, c->ea_async, c->walk_ea_sets_ea,
                     c->trig_over_decrement, c->misaligned_ptr_fault, c->bad_ptr, c->drain_pad,
                     c->pad_byte, c->disable_drains, c->flush_cycles, c->ea_async_cycles,
                     c->write_granule, c->max_burst, c->pe_index, c->max_outstanding_writes };
    return ap_fnv1a64(f, sizeof(f), AP_FNV_INIT);
}

armprof_err trbu_save(const trbu_t *t, uint8_t *buf, size_t cap, size_t *len)
{
    if (!t || !len)
        return ARMPROF_ERR_INVAL;
    ap_state_writer w;
    ap_state_begin(&w, buf, cap, TRBU_STATE_TAG, TRBU_STATE_VERSION, cfg_hash(&t->cfg));
    for (unsigned i = 0; i < TRBU_SLOT__COUNT; i++)
        ap_state_put_u64(&w, t->vals[i]);
    ap_state_put_u32(&w, t->ibuf_len);
    ap_state_put(&w, t->ibuf, t->ibuf_len);
    ap_state_put_u32(&w, t->pre_trig);
    ap_state_put_u64(&w, t->now);
    ap_state_put_u32(&w, (uint32_t)t->flush_pending | (uint32_t)t->flush_tm << 8 |
                             (uint32_t)t->ea_pending << 16 | (uint32_t)t->irq_level << 24);
    ap_state_put_u64(&w, t->flush_at);
    ap_state_put_u64(&w, t->ea_at);
    ap_state_put_u32(&w, (uint32_t)t->ea_ec | (uint32_t)t->ea_fsc << 8);
    /* Outstanding writes: their bytes are already with the memory port; what is kept is the
     * answer to come (or given, for a synchronous one) and when. */
    ap_state_put_u32(&w, t->wq_n);
    ap_state_put_u32(&w, t->wq_live);
    ap_state_put_u32(&w, (uint32_t)t->drain_wanted | (uint32_t)t->trg_wait << 1);
    ap_state_put_u64(&w, t->inflight_bytes);
    ap_state_put_u64(&w, t->wr_seq);
    ap_state_put_u64(&w, t->acc_seq);
    ap_state_put_u64(&w, t->lat_n);
    ap_state_put_u64(&w, t->trg_wait_seq);
    for (uint32_t i = 0; i < t->wq_n; i++) {
        const trbu_wr *e = trbu_wq_at(t, i);
        ap_state_put_u64(&w, e->ptr);
        ap_state_put_u64(&w, e->issued);
        ap_state_put_u64(&w, e->due);
        ap_state_put_u64(&w, e->seq);
        ap_state_put_u32(&w, e->len);
        ap_state_put_u32(&w, (uint32_t)e->pending | (uint32_t)e->dead << 1 |
                                 (uint32_t)e->res.async << 2);
        ap_state_put_u32(&w, (uint32_t)e->res.status | (uint32_t)e->res.ec << 8 |
                                 (uint32_t)e->res.fsc << 16);
        ap_state_put_u32(&w, e->res.written);
        ap_state_put_u32(&w, e->res.mss2);
    }
    const uint64_t *s = (const uint64_t *)(const void *)&t->st;
    for (size_t i = 0; i < sizeof(t->st) / sizeof(uint64_t); i++)
        ap_state_put_u64(&w, s[i]);
    armprof_err e = ap_state_end(&w);
    *len = w.len;
    return e;
}

armprof_err trbu_restore(trbu_t *t, const uint8_t *buf, size_t len)
{
    if (!t)
        return ARMPROF_ERR_INVAL;
    ap_state_reader r;
    armprof_err e = ap_state_open(&r, buf, len, TRBU_STATE_TAG, TRBU_STATE_VERSION, cfg_hash(&t->cfg));
    if (e != ARMPROF_OK)
        return e;
    trbu_t tmp = *t;
    for (unsigned i = 0; i < TRBU_SLOT__COUNT; i++)
        tmp.vals[i] = ap_state_get_u64(&r);
    uint32_t il = ap_state_get_u32(&r);
    if (il > t->unit)
        return ARMPROF_ERR_STATE_CORRUPT;
    uint8_t *ib = malloc(t->unit);
    if (!ib)
        return ARMPROF_ERR_NOMEM;
    ap_state_get(&r, ib, il);
    tmp.ibuf_len = il;
    tmp.pre_trig = ap_state_get_u32(&r);
    tmp.now = ap_state_get_u64(&r);
    uint32_t f = ap_state_get_u32(&r);
    tmp.flush_pending = f & 1;
    tmp.flush_tm = (uint8_t)(f >> 8);
    tmp.ea_pending = (f >> 16) & 1;
    tmp.irq_level = (f >> 24) & 1;
    tmp.flush_at = ap_state_get_u64(&r);
    tmp.ea_at = ap_state_get_u64(&r);
    uint32_t x = ap_state_get_u32(&r);
    tmp.ea_ec = (uint8_t)x;
    tmp.ea_fsc = (uint8_t)(x >> 8);
    uint32_t wn = ap_state_get_u32(&r);
    uint32_t wl = ap_state_get_u32(&r);
    if (wn > t->cfg.max_outstanding_writes || wl > wn)
        return free(ib), ARMPROF_ERR_STATE_CORRUPT;
    uint32_t wf = ap_state_get_u32(&r);
    tmp.drain_wanted = wf & 1;
    tmp.trg_wait = (wf >> 1) & 1;
    tmp.inflight_bytes = ap_state_get_u64(&r);
    tmp.wr_seq = ap_state_get_u64(&r);
    tmp.acc_seq = ap_state_get_u64(&r);
    tmp.lat_n = ap_state_get_u64(&r);
    tmp.trg_wait_seq = ap_state_get_u64(&r);
    trbu_wr wq[TRBU_MAX_OUTSTANDING];
    for (uint32_t i = 0; i < wn; i++) {
        trbu_wr *e = &wq[i];
        memset(e, 0, sizeof(*e));
        e->ptr = ap_state_get_u64(&r);
        e->issued = ap_state_get_u64(&r);
        e->due = ap_state_get_u64(&r);
        e->seq = ap_state_get_u64(&r);
        e->len = ap_state_get_u32(&r);
        uint32_t fl = ap_state_get_u32(&r);
        e->pending = fl & 1;
        e->dead = (fl >> 1) & 1;
        e->res.async = (fl >> 2) & 1;
        uint32_t st = ap_state_get_u32(&r);
        if ((st & 0xFF) > ARMPROF_MEM_PENDING)
            return free(ib), ARMPROF_ERR_STATE_CORRUPT;
        e->res.status = (armprof_mem_status)(st & 0xFF);
        e->res.ec = (uint8_t)(st >> 8);
        e->res.fsc = (uint8_t)(st >> 16);
        e->res.written = ap_state_get_u32(&r);
        e->res.mss2 = ap_state_get_u32(&r);
    }
    uint64_t *s = (uint64_t *)(void *)&tmp.st;
    for (size_t i = 0; i < sizeof(tmp.st) / sizeof(uint64_t); i++)
        s[i] = ap_state_get_u64(&r);
    e = ap_state_close(&r);
    if (e != ARMPROF_OK) {
        free(ib);
        return e;
    }
    memcpy(t->ibuf, ib, il);
    free(ib);
    memcpy(t->vals, tmp.vals, sizeof(t->vals));
    t->regime_valid = false;
    t->ibuf_len = tmp.ibuf_len;
    t->pre_trig = tmp.pre_trig;
    t->now = tmp.now;
    t->flush_pending = tmp.flush_pending;
    t->flush_tm = tmp.flush_tm;
    t->ea_pending = tmp.ea_pending;
    t->flush_at = tmp.flush_at;
    t->ea_at = tmp.ea_at;
    t->ea_ec = tmp.ea_ec;
    t->ea_fsc = tmp.ea_fsc;
    t->st = tmp.st;
    t->wq_head = 0;
    t->wq_n = wn;
    t->wq_live = wl;
    memcpy(t->wq, wq, wn * sizeof(*wq));
    t->inflight_bytes = tmp.inflight_bytes;
    t->wr_seq = tmp.wr_seq;
    t->acc_seq = tmp.acc_seq;
    t->lat_n = tmp.lat_n;
    t->drain_wanted = tmp.drain_wanted;
    t->trg_wait = tmp.trg_wait;
    t->trg_wait_seq = tmp.trg_wait_seq;
    /* The interrupt output follows the restored registers. */
    t->irq_level = tmp.irq_level;
    trbu_update_outputs(t);
    return ARMPROF_OK;
}
