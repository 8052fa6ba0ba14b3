/* SPDX-License-Identifier: Apache-2.0 */
/*
 * trbu_writer.c: the trace buffer writer (seed 004, Arm ARM D6.5): trace bytes in through the
 * internal buffer of 2^Align bytes (IQQKZF), writes at TRBPTR_EL1 in Fill / Wrap / Circular
 * Buffer mode wrapping at the Limit pointer (D6.5.2, RMBSHC), the Trigger Counter counted down
 * by the bytes written (RBQTGW), the memory port's answer to each write (faults RFSPBK, GVGPB;
 * External aborts D6.5.5) and the writes outstanding at the port, accepted in issue order.
 * The management events these raise are in trbu_mgmt.c.
 */
#include <string.h>

#include "common/log.h"
#include "trbu_internal.h"

bool trbu_collection_stopped(const trbu_t *t)
{
    if (t->vals[TRBU_SLOT_SR1] & TRBSR_S)
        return true;
    return t->cfg.feat_trbe_exc &&
           ((t->vals[TRBU_SLOT_SR2] | t->vals[TRBU_SLOT_SR3]) & TRBSR_S);
}

/* ----- The write path ------------------------------------------------------------------------- */

static bool counting(const trbu_t *t)
{
    if (!(t->vals[TRBU_SLOT_TRG] & TRBTRG_EL1_TRG))
        return false;
    return (trbu_sr_get(t, trbu_event_route(t, TRBU_EVK_OTHER)) & TRBSR_TRG) != 0;
}

/* `c` bytes were written at TRBPTR_EL1: move the pointer, count the Trigger Counter down
 * (RBQTGW), wrap at the Limit pointer. */
static void wrote(trbu_t *t, uint64_t c)
{
    t->st.bytes_written += c;
    uint32_t pre = t->pre_trig < c ? t->pre_trig : (uint32_t)c;
    t->pre_trig -= pre;
    bool fire = false;
    if (counting(t)) {
        uint64_t ctr = t->vals[TRBU_SLOT_TRG] & TRBTRG_EL1_TRG;
        uint64_t dec = t->cfg.trig_over_decrement ? c : c - pre;
        if (dec) {
            uint64_t nc = ctr > dec ? ctr - dec : 0;
            t->vals[TRBU_SLOT_TRG] = ap_field_set(t->vals[TRBU_SLOT_TRG], TRBTRG_EL1_TRG, nc);
            fire = nc == 0;
        }
    }
    uint64_t ptr = t->vals[TRBU_SLOT_PTR] + c;
    bool wrapped = ptr == trbu_limit_of(t);
    t->vals[TRBU_SLOT_PTR] = wrapped ? trbu_base_of(t) : ptr;
    if (fire)
        trbu_trigger_event(t);
    if (wrapped)
        trbu_wrap_event(t);
}

static bool walk_abort(uint8_t ec, uint8_t fsc)
{
    return (fsc & 0x3C) == ARMPROF_FSC_SEA_WALK || fsc == 0x13 || ec == ARMPROF_EC_GPC;
}

/*
 * The answer to a write of `len` bytes at `ptr` takes effect (at once with latency 0, else
 * when the write is accepted). Returns true when the write stopped the unit writing (a fault
 * or an External abort handled as one): the bytes of the write not written are counted lost
 * (TRBU_DISCARD_FAULT) and TRBPTR_EL1 is the address that faulted (RFSPBK, GVGPB).
 */
static bool take_answer(trbu_t *t, uint64_t ptr, uint64_t len, const armprof_mem_result *res)
{
    uint64_t w = res->written < len ? res->written : len;
    if (res->status == ARMPROF_MEM_OK) {
        wrote(t, len);
        return false;
    }
    if (res->status == ARMPROF_MEM_FAULT) {
        uint8_t ec = res->ec ? res->ec : ARMPROF_EC_S1_ABORT;
        if (w)
            wrote(t, w);
        t->vals[TRBU_SLOT_PTR] = ptr + w;             /* GVGPB: TRBPTR_EL1 is the fault address */
        trbu_discard(t, TRBU_DISCARD_FAULT, len - w);
        trbu_fault_event(t, ec, res->fsc, res->mss2, false);
        return true;
    }
    /* External abort (D6.5.5). */
    bool walk = walk_abort(res->ec, res->fsc);
    trbu_ea_policy pol = walk ? t->cfg.ea_walk : t->cfg.ea_write;
    switch (pol) {
    case TRBU_EA_IGNORE:
    case TRBU_EA_SERROR:
        /* The unit carries on as if the write completed; TRBSR is not modified. */
        if (pol == TRBU_EA_IGNORE) {
            t->st.ext_aborts_ignored++;
        } else {
            t->st.serrors++;
            if (t->ops.serror)
                t->ops.serror(t->ops.user);
        }
        wrote(t, len);
        return false;
    case TRBU_EA_MMU_FAULT: {
        uint8_t ec = res->ec ? res->ec : ARMPROF_EC_S1_ABORT;
        if (w)
            wrote(t, w);
        t->vals[TRBU_SLOT_PTR] = ptr + w;
        trbu_discard(t, TRBU_DISCARD_FAULT, len - w);
        trbu_fault_event(t, ec, res->fsc, res->mss2, t->cfg.walk_ea_sets_ea);
        return true;
    }
    case TRBU_EA_REPORT:
    default: {
        /* EC: GPT fetch 0x1E, stage 2 walk 0x25, otherwise 0x24. */
        uint8_t ec = res->ec == ARMPROF_EC_GPC ? ARMPROF_EC_GPC
                   : res->ec == ARMPROF_EC_S2_ABORT ? ARMPROF_EC_S2_ABORT : ARMPROF_EC_S1_ABORT;
        if (t->cfg.ea_async || res->async) {
            /* Asynchronous: the write looks complete; the event comes later and TRBPTR_EL1
             * is not the faulting address. */
            if (!t->ea_pending) {
                t->ea_pending = true;
                t->ea_at = t->now + t->cfg.ea_async_cycles;
                t->ea_ec = ec;
                t->ea_fsc = res->fsc;
            }
            wrote(t, len);
            return false;
        }
        if (w)
            wrote(t, w);
        t->vals[TRBU_SLOT_PTR] = ptr + w;
        trbu_discard(t, TRBU_DISCARD_FAULT, len - w);
        trbu_ea_report(t, ec, res->fsc);
        return true;
    }
    }
}

/* The answer would stop the unit writing (take_answer() returns true for it). */
static bool stops_unit(const trbu_t *t, const armprof_mem_result *res)
{
    if (res->status == ARMPROF_MEM_OK)
        return false;
    if (res->status == ARMPROF_MEM_FAULT)
        return true;
    trbu_ea_policy pol = walk_abort(res->ec, res->fsc) ? t->cfg.ea_walk : t->cfg.ea_write;
    if (pol == TRBU_EA_IGNORE || pol == TRBU_EA_SERROR)
        return false;
    return pol == TRBU_EA_MMU_FAULT || !(t->cfg.ea_async || res->async);
}

/* ----- Outstanding writes ---------------------------------------------------------------------- */

static void note_buf(trbu_t *t)
{
    uint64_t b = t->ibuf_len + t->inflight_bytes;
    if (b > t->st.buf_bytes_max)
        t->st.buf_bytes_max = b;
}

static void note_latency(trbu_t *t, uint64_t lat)
{
    if (t->lat_n == 0 || lat < t->st.write_latency_min)
        t->st.write_latency_min = lat;
    if (lat > t->st.write_latency_max)
        t->st.write_latency_max = lat;
    t->st.write_latency_sum += lat;
    t->lat_n++;
}

/* The address of the next write: the end of the newest live outstanding write (wrapped to the
 * Base pointer at the Limit pointer), or TRBPTR_EL1 with none outstanding. */
static uint64_t issue_ptr(const trbu_t *t, bool *at_limit)
{
    *at_limit = false;
    if (!t->wq_live)
        return t->vals[TRBU_SLOT_PTR];
    const trbu_wr *e = trbu_wq_at(t, t->wq_n - 1);
    uint64_t end = e->ptr + e->len;
    if (end == trbu_limit_of(t)) {
        *at_limit = true;
        return trbu_base_of(t);
    }
    return end;
}

/* The live outstanding writes die (an earlier one faulted): their bytes are lost and their
 * answers, when they come, are ignored. */
static void kill_live(trbu_t *t)
{
    for (uint32_t i = t->wq_n - t->wq_live; i < t->wq_n; i++) {
        trbu_wr *e = trbu_wq_at(t, i);
        e->dead = true;
        trbu_discard(t, TRBU_DISCARD_FAULT, e->len);
    }
    t->wq_live = 0;
    t->inflight_bytes = 0;
}

static void pump(trbu_t *t);

/* The oldest outstanding write is accepted now: its answer takes effect. */
static void accept_head(trbu_t *t)
{
    trbu_wr e = *trbu_wq_at(t, 0);
    t->wq_head = (t->wq_head + 1) % t->cfg.max_outstanding_writes;
    t->wq_n--;
    t->acc_seq = e.seq;
    note_latency(t, t->now - e.issued);
    if (e.dead)
        return;
    t->wq_live--;
    t->inflight_bytes -= e.len;
    if (trbu_collection_stopped(t) && stops_unit(t, &e.res)) {
        /* Collection already stopped (an earlier event): the earliest event wins; a later
         * fault or abort handled as one is not reported (RFSPBK applies only with
         * TRBSR_ELx.S == 0) and TRBPTR_EL1 keeps the earlier event's value. */
        trbu_discard(t, TRBU_DISCARD_FAULT, e.len);
        return;
    }
    if (take_answer(t, e.ptr, e.len, &e.res))
        kill_live(t);
}

/* Accepts every outstanding write whose time has come, in issue order, and issues what the
 * freed slots allow. */
void trbu_process_writes(trbu_t *t)
{
    bool any = false;
    while (t->wq_n) {
        const trbu_wr *h = trbu_wq_at(t, 0);
        if (h->pending || h->due > t->now)
            break;
        accept_head(t);
        any = true;
    }
    if (any) {
        pump(t);
        trbu_try_trigger_mgmt(t);
    }
}

/*
 * Writes `n` accepted bytes at the issue pointer through the memory port, in chunks that never
 * cross the Limit pointer, a write granule, max_burst, or the point where the Trigger Counter
 * reaches zero. Returns the bytes consumed: written, issued (outstanding), or lost to a fault
 * (counted). Stops early, without consuming the rest, when collection stops on a wrap in Fill
 * mode, or when the writer cannot issue (max_outstanding_writes outstanding, or in Fill mode a
 * write up to the Limit pointer not yet accepted).
 */
static size_t emit(trbu_t *t, const uint8_t *data, size_t n)
{
    size_t done = 0;
    if (!t->regime_valid) {
        trbu_make_regime(t, &t->regime);
        t->regime_valid = true;
    }
    const armprof_regime *g = &t->regime;
    while (done < n) {
        if (trbu_collection_stopped(t))
            break;
        if (t->wq_n >= t->cfg.max_outstanding_writes)
            break;
        bool at_limit;
        uint64_t base = trbu_base_of(t), limit = trbu_limit_of(t), ptr = issue_ptr(t, &at_limit);
        if (at_limit && trbu_fm_of(t) == TRBU_FM_FILL)
            break;                      /* the buffer full event comes first */
        size_t left = n - done;
        if (limit <= base || ptr < base || ptr >= limit) {
            if (t->wq_live)
                break;                  /* checked once the writes before are accepted */
            /* Programming error: UNPREDICTABLE; the configured choice applies. */
            ap_log(&t->ops, ARMPROF_LOG_WARN,
                   "TRBE pointers out of range (BASE 0x%llx PTR 0x%llx LIMIT 0x%llx): %s",
                   (unsigned long long)base, (unsigned long long)ptr, (unsigned long long)limit,
                   t->cfg.bad_ptr == TRBU_BADPTR_DISCARD ? "trace discarded" : "EC 0x1F event");
            trbu_discard(t, TRBU_DISCARD_BAD_PTR, left);
            if (t->cfg.bad_ptr == TRBU_BADPTR_IMPDEF_EVENT)
                trbu_raise_impdef(t, TRBU_IMPDEF_MSS_BAD_POINTERS);
            return n;
        }
        if (t->cfg.misaligned_ptr_fault && (ptr & (t->unit - 1))) {
            if (t->wq_live)
                break;
            trbu_discard(t, TRBU_DISCARD_FAULT, left);
            trbu_fault_event(t, ARMPROF_EC_S1_ABORT, ARMPROF_FSC_ALIGNMENT, 0, false);
            return n;
        }
        uint64_t chunk = left;
        if (chunk > limit - ptr)
            chunk = limit - ptr;
        if (t->cfg.write_granule) {
            uint64_t gl = t->cfg.write_granule - (ptr & (t->cfg.write_granule - 1));
            if (chunk > gl)
                chunk = gl;
        }
        if (chunk > t->cfg.max_burst)
            chunk = t->cfg.max_burst;
        if (counting(t)) {
            /* Stop the chunk at the unit in which the Trigger Counter reaches zero; the bytes
             * of outstanding writes come off it first (in order, pre-trigger bytes first). */
            uint64_t ctr = t->vals[TRBU_SLOT_TRG] & TRBTRG_EL1_TRG;
            uint64_t cap = t->cfg.trig_over_decrement ? ctr : ctr + t->pre_trig;
            if (cap > t->inflight_bytes) {
                cap -= t->inflight_bytes;
                cap = (cap + t->unit - 1) & ~(uint64_t)(t->unit - 1);
                if (chunk > cap)
                    chunk = cap;
            }
        }
        armprof_mem_result res = { .status = ARMPROF_MEM_OK };
        if (t->ops.mem_write)
            res = t->ops.mem_write(t->ops.user, ptr, data + done, (uint32_t)chunk, g);
        t->st.port_writes++;
        t->wr_seq++;
        if (res.status != ARMPROF_MEM_PENDING && res.latency == 0 && t->wq_n == 0) {
            /* Accepted at once: the functional behaviour (latency 0: the minimum is 0). */
            t->acc_seq = t->wr_seq;
            t->lat_n++;
            t->st.write_latency_min = 0;
            if (res.status == ARMPROF_MEM_OK) {
                wrote(t, chunk);
                done += chunk;
                continue;
            }
            if (take_answer(t, ptr, chunk, &res)) {
                trbu_discard(t, TRBU_DISCARD_FAULT, left - chunk);
                return n;
            }
            done += chunk;
            continue;
        }
        trbu_wr *e = trbu_wq_at(t, t->wq_n);
        memset(e, 0, sizeof(*e));
        e->ptr = ptr;
        e->len = (uint32_t)chunk;
        e->issued = t->now;
        e->seq = t->wr_seq;
        e->pending = res.status == ARMPROF_MEM_PENDING;
        e->due = e->pending ? TRBU_NO_TIME : t->now + res.latency;
        e->res = res;
        t->wq_n++;
        t->wq_live++;
        t->inflight_bytes += chunk;
        if (t->wq_n > t->st.outstanding_writes_max)
            t->st.outstanding_writes_max = t->wq_n;
        note_buf(t);
        done += chunk;
    }
    return done;
}

/* Issues the internal buffer: a full unit, or what a drain asked for. */
static void pump(trbu_t *t)
{
    while (t->ibuf_len && (t->ibuf_len == t->unit || t->drain_wanted)) {
        if (trbu_collection_stopped(t))
            break;
        uint32_t n = t->ibuf_len;
        t->ibuf_len = 0;
        size_t c = emit(t, t->ibuf, n);
        if (c == n)
            continue;
        if (trbu_collection_stopped(t)) {
            trbu_discard(t, TRBU_DISCARD_STOPPED, n - c);
            break;
        }
        /* The writer cannot issue: the rest waits in the internal buffer. */
        memmove(t->ibuf, t->ibuf + c, n - c);
        t->ibuf_len = n - (uint32_t)c;
        break;
    }
    if (!t->ibuf_len) {
        t->drain_wanted = false;
        if (!t->wq_live)
            t->pre_trig = 0;
    }
}

/* Writes whatever the internal buffer holds (a partial unit, padded when cfg.drain_pad); with
 * no free slot the rest is written as writes are accepted. */
void trbu_drain(trbu_t *t)
{
    if (!t->ibuf_len || !trbu_unit_enabled(t) || trbu_collection_stopped(t))
        return;
    if (t->cfg.drain_pad && t->ibuf_len < t->unit) {
        memset(t->ibuf + t->ibuf_len, t->cfg.pad_byte, t->unit - t->ibuf_len);
        t->st.bytes_padded += t->unit - t->ibuf_len;
        t->ibuf_len = t->unit;
    }
    t->drain_wanted = true;
    pump(t);
}

/* Every outstanding write with a synchronous answer is accepted now (TSB CSYNC, disable):
 * writes with a pending answer stay outstanding. */
void trbu_settle_writes(trbu_t *t)
{
    for (;;) {
        trbu_process_writes(t);
        if (!t->wq_n || trbu_wq_at(t, 0)->pending)
            break;
        trbu_wq_at(t, 0)->due = t->now;
    }
}

void trbu_on_disable(trbu_t *t)
{
    t->flush_pending = false;
    t->trg_wait = false;
    if (t->cfg.disable_drains) {
        trbu_settle_writes(t);
        trbu_drain(t);
        trbu_settle_writes(t);
    }
    trbu_discard_ibuf(t, TRBU_DISCARD_DISABLE);
    t->drain_wanted = false;
}

/* ----- Entry points ---------------------------------------------------------------------------- */

size_t trbu_trace_bytes(trbu_t *t, const uint8_t *data, size_t len)
{
    size_t taken = 0;
    bool direct = true;
    t->st.bytes_in += len;
    if (!trbu_unit_enabled(t)) {
        trbu_discard(t, TRBU_DISCARD_DISABLED, len);
        return 0;
    }
    while (len) {
        if (trbu_collection_stopped(t) || trbu_stopping(t)) {
            trbu_discard(t, TRBU_DISCARD_STOPPED, len);
            break;
        }
        if (direct && t->ibuf_len == 0 && len >= t->unit) {
            /* Whole units straight from the trace unit's bytes, merged into larger writes. */
            size_t n = len & ~(size_t)(t->unit - 1);
            size_t c = emit(t, data, n);
            t->st.bytes_accepted += c;
            taken += c;
            data += c;
            len -= c;
            if (c < n)
                direct = false;         /* the writer stalled: the internal buffer takes a unit */
            continue;
        }
        if (t->ibuf_len == t->unit) {
            /* Back-pressure: the internal buffer is full behind outstanding writes. The bytes
             * stay with the trace unit (not taken, not discarded). */
            t->st.bytes_refused += len;
            break;
        }
        uint32_t take = t->unit - t->ibuf_len;
        if (take > len)
            take = (uint32_t)len;
        memcpy(t->ibuf + t->ibuf_len, data, take);
        t->ibuf_len += take;
        t->st.bytes_accepted += take;
        taken += take;
        data += take;
        len -= take;
        note_buf(t);
        if (t->ibuf_len == t->unit)
            pump(t);
    }
    trbu_process_due(t);
    trbu_update_outputs(t);
    return taken;
}

armprof_err trbu_mem_complete(trbu_t *t, const armprof_mem_result *res)
{
    if (!t || !res || res->status == ARMPROF_MEM_PENDING || res->status > ARMPROF_MEM_PENDING)
        return ARMPROF_ERR_INVAL;
    for (uint32_t i = 0; i < t->wq_n; i++) {
        trbu_wr *e = trbu_wq_at(t, i);
        if (!e->pending)
            continue;
        /* The oldest pending write: its answer takes effect now (after older writes). */
        e->pending = false;
        e->res = *res;
        e->due = t->now;
        trbu_process_due(t);
        trbu_update_outputs(t);
        return ARMPROF_OK;
    }
    return ARMPROF_ERR_BUSY;
}

uint32_t trbu_writes_outstanding(const trbu_t *t)
{
    return t ? t->wq_n : 0;
}
