/* SPDX-License-Identifier: Apache-2.0 */
/* buffer_writer.c: writing records to the Profiling Buffer: seed 001 §3.4 "The Profiling
 * Buffer" (PMBPTR_EL1, PMBLIMITR_EL1.{LIMIT,FM,E}, Discard mode), §3.4.1 "Restrictions on the
 * current write pointer", §3.5.2 "Buffer full event" (raised when less than one maximum-size
 * record is left), §3.6.1 (records buffered when the buffer is disabled); seed 000 D17.7
 * RPSLVX (nothing written at or past the limit) and D17.7.4 RHXSYK, RHLXGD, RPGGHS (the
 * CONSTRAINED UNPREDICTABLE write pointer: ptr_policy). The writer's memory timing (write_bytes,
 * max_outstanding_writes, latency, ARMPROF_MEM_PENDING) is the model's; a failed write's
 * answer is turned into a management event by mgmt_event.c (§3.5.3, §3.5.4). A record written
 * out asserts CTI input trigger 2 (§2.7, "Interaction with the Embedded Cross Trigger"). */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "spu_internal.h"

/* =============================================================================================
 * The buffer writer (§3.4, §3.5, seed 000 D17.7.4)
 * ============================================================================================= */

static uint64_t limit_addr(const spu_t *spu)
{
    return spu_reg(spu, R_PMBLIMITR_EL1) & PMBLIMITR_LIMIT;
}

/* RHXSYK and RHLXGD, checked once for each value software gives PMBPTR_EL1. A pointer that
 * equals where the unit last left it is a restored saved pointer: RHLXGD's alignment rule does
 * not apply to it. */
static bool ptr_rules_hold(spu_t *spu, uint64_t ptr)
{
    uint64_t lim = limit_addr(spu);
    uint64_t rec = 1ull << spu->cfg.max_size;
    const char *broken = NULL;
    if ((ptr >> 56) != (lim >> 56))
        broken = "RHXSYK: PMBPTR_EL1.PTR[63:56] != PMBLIMITR_EL1.LIMIT[63:56]";
    else if (lim < rec || ptr > lim - rec)
        broken = "RHXSYK: PMBPTR_EL1 is not at least one maximum-size record below the limit";
    else if (ptr != spu->unit_ptr && (ptr & ((1ull << spu->cfg.align) - 1)))
        broken = "RHLXGD: PMBPTR_EL1 is not aligned to 2^PMBIDR_EL1.Align";
    if (!broken)
        return true;
    ap_log(&spu->ops, ARMPROF_LOG_WARN,
           "%s (PMBPTR_EL1=0x%016llx PMBLIMITR_EL1=0x%016llx): CONSTRAINED UNPREDICTABLE (RPGGHS), "
           "behaving as ptr_policy=%s",
           broken, (unsigned long long)ptr, (unsigned long long)spu_reg(spu, R_PMBLIMITR_EL1),
           spu->cfg.ptr_policy == SPU_PTR_BUFFER_FULL ? "buffer-full"
           : spu->cfg.ptr_policy == SPU_PTR_DISCARD   ? "discard"
                                                      : "write");
    return false;
}

/*
 * The writer with memory timing. A record that leaves the FIFO is placed at the writer's
 * pointer (PMBPTR_EL1 when nothing is placed, else after the last placed record) and cut into
 * writes: one per record split at write_granule (write_bytes 0), or aligned blocks of
 * write_bytes that may hold parts of several records. A write is issued while fewer than
 * max_outstanding_writes are outstanding; its answer takes effect `latency` cycles later (or at
 * spu_mem_complete()), in issue order. A record counts as written, and PMBPTR_EL1 moves past it,
 * when every write holding its bytes has been accepted. A buffer full event is raised only once
 * every earlier write has been accepted (software reading the buffer on PMBIRQ sees the data);
 * the first faulting answer wins and the answers of later writes are ignored
 * (docs/implementation-defined.md, "SPU buffer writes with memory timing").
 */

static void wrec_pop(spu_t *spu)
{
    spu->wr_head = spu->wr_head + 1 == spu->wr_cap ? 0 : spu->wr_head + 1;
    spu->wr_n--;
    if (spu->wr_iss)
        spu->wr_iss--;
}

/* A record has been written out: every write holding its bytes was accepted and PMBPTR_EL1 has
 * moved past it. §2.7: CTI input trigger 2 is asserted, once per record written (never for a
 * filtered or discarded one), in the cycle of the last write's acceptance. */
static inline void written_out(spu_t *spu)
{
    spu->st.records_written++;
    if (spu->ops.cti_trigger)
        spu->ops.cti_trigger(spu->ops.user, ARMPROF_CTI_SPE_SAMPLE);
}

/* Retire the placed records whose bytes are all below `bound` (accepted): written, unless an
 * ignored External abort already counted them discarded; PMBPTR_EL1 moves past each. */
void spu_writer_retire_below(spu_t *spu, uint64_t bound)
{
    while (spu->wr_n) {
        spu_wrec *r = wrec_at(spu, 0);
        if (r->end > bound)
            break;
        bool written = !r->aborted;
        spu->regs[R_PMBPTR_EL1] = r->end;
        spu->unit_ptr = r->end;
        wrec_pop(spu);
        if (written)
            written_out(spu);
    }
}

static void writer_retire(spu_t *spu)
{
    uint64_t bound = spu->wq_n > spu->wq_ignored ? wq_at(spu, spu->wq_ignored)->addr : spu->iaddr;
    spu_writer_retire_below(spu, bound);
}

static armprof_err wrec_grow(spu_t *spu)
{
    uint32_t cap = spu->wr_cap * 2;
    spu_wrec *n = calloc(cap, sizeof(*n));
    if (!n)
        return ARMPROF_ERR_NOMEM;
    for (uint32_t k = 0; k < spu->wr_n; k++)
        n[k] = *wrec_at(spu, k);
    free(spu->wr);
    spu->wr = n;
    spu->wr_cap = cap;
    spu->wr_head = 0;
    return ARMPROF_OK;
}

/* Length of the next write from iaddr, or 0 when none may be issued now. `tail_ok`: a partial
 * block at the end of the placed bytes may go (no record is draining into it). */
static uint32_t writer_next_piece(spu_t *spu, bool tail_ok)
{
    while (spu->iaddr < spu->wptr && spu->wr_iss < spu->wr_n) {
        const spu_wrec *r = wrec_at(spu, spu->wr_iss);
        if (r->end <= spu->iaddr) {
            spu->wr_iss++;
            continue;
        }
        if (!r->aborted)
            break;
        spu->iaddr = r->end; /* bytes of a record lost to an ignored abort are not written */
        spu->wr_iss++;
    }
    if (spu->iaddr >= spu->wptr)
        return 0;
    uint64_t a = spu->iaddr;
    uint64_t blk = spu->cfg.write_bytes ? spu->cfg.write_bytes : spu->cfg.write_granule;
    uint64_t end = (a | (blk - 1)) + 1;
    if (!spu->cfg.write_bytes) {
        uint64_t rend = wrec_at(spu, spu->wr_iss)->end;
        if (end > rend)
            end = rend;
    } else if (end > spu->wptr) {
        if (!tail_ok && !spu->flush && !spu->deferred)
            return 0;
        end = spu->wptr;
    }
    return (uint32_t)(end - a);
}

/* A write with the port's answer joins the outstanding ones. */
static void wq_push(spu_t *spu, uint64_t a, uint32_t n, const armprof_mem_result *res)
{
    spu->st.writes_issued++;
    spu_wr *w = wq_at(spu, spu->wq_n);
    memset(w, 0, sizeof(*w));
    w->addr = a;
    w->len = n;
    w->issue_at = spu->now;
    /* Field by field: the answer was just stored by the host's callback field by field, and a
     * wide copy of it could not be forwarded from those stores (it would wait for every earlier
     * store, the record's bytes in the host's memory among them, to reach the cache). */
    w->res.status = res->status;
    w->res.ec = res->ec;
    w->res.fsc = res->fsc;
    w->res.async = res->async;
    w->res.written = res->written;
    w->res.mss2 = res->mss2;
    w->res.latency = res->latency;
    if (res->status == ARMPROF_MEM_PENDING) {
        w->done_at = UINT64_MAX;
        spu->wq_pending++;
    } else {
        w->done_at = spu->now + res->latency;
    }
    spu->wq_n++;
    writer_blocked_update(spu);
    if (spu->wq_n > spu->st.outstanding_writes_max)
        spu->st.outstanding_writes_max = spu->wq_n;
    if (spu->wq_n == 1)
        spu->next_done = w->done_at;
}

static void writer_issue(spu_t *spu, uint32_t n)
{
    uint64_t a = spu->iaddr;
    uint32_t off = (uint32_t)(a & spu->wbuf_mask);
    const uint8_t *p = spu->wbuf + off;
    if (off + n > spu->wbuf_mask + 1) {
        uint32_t first = spu->wbuf_mask + 1 - off;
        memcpy(spu->wtmp, p, first);
        memcpy(spu->wtmp + first, spu->wbuf, n - first);
        p = spu->wtmp;
    }
    armprof_mem_result res = { .status = ARMPROF_MEM_OK };
    if (spu->ops.mem_write)
        res = spu->ops.mem_write(spu->ops.user, a, p, n, &spu->regime);
    spu->iaddr = a + n;
    wq_push(spu, a, n, &res);
}

/* The oldest write's answer takes effect now. */
static void writer_complete_head(spu_t *spu)
{
    spu_wr e = spu->wq[spu->wq_head];
    spu->wq_head = spu->wq_head + 1 == spu->cfg.max_outstanding_writes ? 0 : spu->wq_head + 1;
    spu->wq_n--;
    writer_blocked_update(spu);
    wq_next_done(spu);
    uint64_t lat = spu->now - e.issue_at;
    if ((!spu->st.writes_answered && !spu->direct_writes) || lat < spu->st.write_latency_min)
        spu->st.write_latency_min = lat;
    if (lat > spu->st.write_latency_max)
        spu->st.write_latency_max = lat;
    spu->st.write_latency_sum += lat;
    spu->st.writes_answered++;
    if (spu->wq_ignored) {
        spu->wq_ignored--;
        return;
    }
    if (e.res.status == ARMPROF_MEM_OK) {
        spu->st.bytes_written += e.len;
        writer_retire(spu);
        return;
    }
    spu_writer_failed(spu, &e);
}

/* Take the answers due by now, issue what may be issued, retire records, and raise a waiting
 * buffer full event once every earlier write has been accepted. */
void spu_writer_run(spu_t *spu, bool tail_ok)
{
    /* One answer at a time, each followed by the writes it lets go, as a host of the
     * asynchronous form gives them (spu_mem_complete() per answer): both forms agree. A write
     * answered at once (latency 0) is taken before the next is issued. */
    for (;;) {
        if (spu->next_done <= spu->now)
            writer_complete_head(spu);
        while (spu->wq_n < spu->cfg.max_outstanding_writes) {
            uint32_t n = writer_next_piece(spu, tail_ok);
            if (!n)
                break;
            writer_issue(spu, n);
            if (spu->next_done <= spu->now)
                break;
        }
        if (spu->next_done > spu->now)
            break;
    }
    writer_retire(spu);
    if (spu->deferred && !spu->wr_n) {
        spu->deferred = false;
        writer_blocked_update(spu);
        spu_mgmt_event(spu, MGMT_FULL, ARMPROF_EC_OTHER, PMBSR_BSC_FILLED, false, false,
                   spu->deferred_ptr);
    }
}

/* A buffer full event at `ptr`, once every earlier write has been accepted. */
static void writer_full(spu_t *spu, uint64_t ptr)
{
    spu->deferred = true;
    spu->deferred_ptr = ptr;
    writer_blocked_update(spu);
    spu_writer_run(spu, false);
}

/* Place a record at ptr (checked against the limit) in the writer's bytes. */
static void writer_place(spu_t *spu, const uint8_t *bytes, uint32_t len, uint64_t ptr, uint64_t lim)
{
    if (!spu->wr_n) {
        spu->iaddr = ptr;
        spu->wr_iss = 0;
    }
    spu_wrec *r = wrec_at(spu, spu->wr_n++);
    r->start = ptr;
    r->end = ptr + len;
    r->aborted = false;
    uint32_t off = (uint32_t)(ptr & spu->wbuf_mask);
    if (off + len <= spu->wbuf_mask + 1) {
        memcpy(spu->wbuf + off, bytes, len);
    } else {
        uint32_t first = spu->wbuf_mask + 1 - off;
        memcpy(spu->wbuf + off, bytes, first);
        memcpy(spu->wbuf, bytes + first, len - first);
    }
    spu->wptr = ptr + len;
    /* §3.5.2: not enough room left for a maximum-size record: buffer full, raised when the
     * record's writes (and every earlier one) have been accepted. */
    if (lim - spu->wptr < (1ull << spu->cfg.max_size)) {
        spu->deferred = true;
        spu->deferred_ptr = spu->wptr;
        writer_blocked_update(spu);
    }
}

/*
 * The functional path: nothing placed or outstanding, one write per record. The record's
 * writes go to the port at once; while every answer is at once (latency 0) this is all there
 * is. A later answer (latency, ARMPROF_MEM_PENDING) or a failure hands the record to the
 * writer's general path, which is the same behaviour with time in it.
 */
_Static_assert(ARMPROF_MEM_OK == 0, "write_direct() tests status and latency together");

static void write_direct(spu_t *spu, const uint8_t *bytes, uint32_t len, uint64_t ptr, uint64_t lim)
{
    uint32_t done = 0;
    while (done < len) {
        uint64_t a = ptr + done;
        uint32_t room = spu->cfg.write_granule - (uint32_t)(a & (spu->cfg.write_granule - 1));
        uint32_t n = len - done < room ? len - done : room;
        armprof_mem_result res = { .status = ARMPROF_MEM_OK };
        if (spu->ops.mem_write)
            res = spu->ops.mem_write(spu->ops.user, a, bytes + done, n, &spu->regime);
        if ((res.latency | (uint32_t)res.status) == 0) { /* ARMPROF_MEM_OK at once */
            spu->direct_writes++; /* issued and answered at once (spu_get_stats) */
            done += n;
            spu->st.bytes_written += n;
            continue;
        }
        if (res.status != ARMPROF_MEM_PENDING && res.latency == 0)
            spu->direct_writes++;
        /* The general path from here: the record placed, its bytes below a + n issued. */
        writer_place(spu, bytes, len, ptr, lim);
        spu->iaddr = a + n;
        if (res.status != ARMPROF_MEM_PENDING && res.latency == 0) {
            spu_wr e = { .addr = a, .len = n, .issue_at = spu->now, .done_at = spu->now, .res = res };
            spu_writer_failed(spu, &e);
        } else {
            wq_push(spu, a, n, &res);
        }
        spu_writer_run(spu, false);
        return;
    }
    spu->regs[R_PMBPTR_EL1] = ptr + len;
    spu->unit_ptr = ptr + len;
    written_out(spu);
    /* §3.5.2: not enough room left for a maximum-size record: buffer full. */
    if (lim - (ptr + len) < (1ull << spu->cfg.max_size))
        spu_mgmt_event(spu, MGMT_FULL, ARMPROF_EC_OTHER, PMBSR_BSC_FILLED, false, false, ptr + len);
}

/* Place one complete record at the writer's pointer. Exactly one outcome: written (once its
 * writes are accepted), or discarded with a reason (and possibly a management event). */
static void write_record(spu_t *spu, const uint8_t *bytes, uint32_t len)
{
    uint64_t sr = spu_reg(spu, R_PMBSR_EL1);
    if (ap_field_get(PMBSR_S, sr)) {
        discard(spu, SPU_DISCARD_SERVICE, 1);
        return;
    }
    if (!spu->buf_enabled) {
        /* §3.6.1: buffer disabled with records still buffered (no PSB CSYNC before the change):
         * armprof discards them silently, one of the permitted outcomes. */
        discard(spu, SPU_DISCARD_DISABLED, 1);
        return;
    }
    if (spu_discard_mode(spu)) {
        discard(spu, SPU_DISCARD_MODE, 1);
        return;
    }
    /* Nothing placed or outstanding and one write per record: the functional path. */
    bool direct = (spu->wr_n | spu->wq_n | spu->cfg.write_bytes) == 0;
    uint64_t ptr = spu->wr_n ? spu->wptr : spu_reg(spu, R_PMBPTR_EL1);
    uint64_t lim = limit_addr(spu);
    if (!spu->ptr_checked) {
        if (ptr_rules_hold(spu, ptr)) {
            spu->ptr_checked = true;
        } else if (spu->cfg.ptr_policy == SPU_PTR_BUFFER_FULL) {
            discard(spu, SPU_DISCARD_PTR, 1);
            writer_full(spu, ptr);
            return;
        } else if (spu->cfg.ptr_policy == SPU_PTR_DISCARD) {
            discard(spu, SPU_DISCARD_PTR, 1);
            return;
        }
    }
    /* Never at or past the limit, whatever software did. */
    if (ptr >= lim || lim - ptr < len) {
        discard(spu, SPU_DISCARD_PTR, 1);
        writer_full(spu, ptr);
        return;
    }
    if (direct) {
        write_direct(spu, bytes, len, ptr, lim);
        return;
    }
    if (spu->wr_n == spu->wr_cap && wrec_grow(spu) != ARMPROF_OK) {
        discard(spu, SPU_DISCARD_PTR, 1); /* out of host memory: cannot happen in practice */
        return;
    }
    writer_place(spu, bytes, len, ptr, lim);
    spu_writer_run(spu, false);
}

/* =============================================================================================
 * From the record FIFO
 * ============================================================================================= */

/* The head record has fully drained: hand it to the buffer writer. */
void spu_fifo_pop_write(spu_t *spu)
{
    const spu_fifo_rec *r = &spu->fifo_recs[spu->fifo_rhead];
    uint32_t rs = ring_size(spu);
    uint32_t len = r->len;
    const uint8_t *p = spu->fifo_data + r->off;
    if (r->off + len > rs) {
        uint32_t first = rs - r->off;
        memcpy(spu->scratch, p, first);
        memcpy(spu->scratch + first, spu->fifo_data, len - first);
        p = spu->scratch;
    }
    /* The bytes stay valid through write_record(): a management event only resets indices. */
    spu->fifo_head = r->off + len >= rs ? r->off + len - rs : r->off + len;
    spu->fifo_rhead = spu->fifo_rhead + 1 == spu->fifo_nrec_cap ? 0 : spu->fifo_rhead + 1;
    spu->fifo_nrec--;
    spu->head_drained = 0;
    write_record(spu, p, len);
}
