/* SPDX-License-Identifier: Apache-2.0 */
/* spu.c: the Statistical Profiling Unit's state machine and API: open / reset, the clock edge
 * (seed 001 §2.2.1 steps 5-6 and §2.5: sampled operations complete, their records are captured,
 * buffered and written out), time, the memory port's asynchronous answers, and observation.
 * The parts of the edge live in the files named after their spec sections:
 *   spu_config.c      the configuration (PMSIDR_EL1 / PMBIDR_EL1 values, microarchitecture)
 *   sample_counter.c  §3.1 the sample interval counter, §2.2.4 / §3.1.4 collisions
 *   enable.c          §3.2.1 / §3.2.3 enables, §3.4.2 / seed 000 D17.7.5 the owning regime
 *   filter.c          §3.2.2 filtering (CollectRecord)
 *   collection.c      §3.3 collection controls, §2.3 the collected data, slot admission
 *   inflight.c        §2.2.1 / §2.5 in-flight sampled operations and record capture
 *   record_fifo.c     the record FIFO between capture and the Profiling Buffer
 *   buffer_writer.c   §3.4 the Profiling Buffer, §3.5.2 buffer full, seed 000 D17.7.4
 *   mgmt_event.c      §3.5 Profiling Buffer management events, §3.5.3 faults, §3.5.4 aborts
 *   psb_csync.c       §3.6 synchronization (PSB CSYNC)
 *   spu_regs.c        §4.3 / seed 002 the registers;  spu_state.c checkpoints;
 *   spu_ext.c         the external sampler (rtl-cosim). */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "spu_internal.h"

/* =============================================================================================
 * Open / close / reset
 * ============================================================================================= */

armprof_err spu_open(const spu_config *cfg, const armprof_host_ops *ops, spu_t **out)
{
    if (!out)
        return ARMPROF_ERR_INVAL;
    *out = NULL;
    char why[160];
    armprof_err e = spu_config_validate(cfg, why, sizeof(why));
    if (e != ARMPROF_OK) {
        if (ops)
            ap_log(ops, ARMPROF_LOG_ERROR, "spu_open: %s", why);
        return e;
    }
    spu_t *spu = calloc(1, sizeof(*spu));
    if (!spu)
        return ARMPROF_ERR_NOMEM;
    spu->cfg = *cfg;
    if (ops)
        spu->ops = *ops;
    spu->slots = calloc(cfg->max_inflight, sizeof(spu_slot));
    spu->slot_bytes = calloc(cfg->max_inflight, (size_t)1 << cfg->max_size);
    spu->ring_bytes = spu_fifo_ring_bytes(cfg);
    spu->fifo_data = calloc(1, spu_fifo_ring_bytes(cfg));
    /* The smallest record is an Events packet and an End packet: 3 bytes. */
    spu->fifo_nrec_cap = cfg->fifo_bytes / 3 + 2;
    spu->fifo_recs = calloc(spu->fifo_nrec_cap, sizeof(spu_fifo_rec));
    spu->wbuf = calloc(1, spu_wbuf_bytes(cfg));
    spu->wbuf_mask = spu_wbuf_bytes(cfg) - 1;
    spu->wtmp = calloc(1, spu_wtmp_bytes(cfg));
    spu->wq = calloc(cfg->max_outstanding_writes, sizeof(spu_wr));
    spu->wr_cap = 4 * cfg->max_outstanding_writes + 4;
    spu->wr = calloc(spu->wr_cap, sizeof(spu_wrec));
    spu->next_done = UINT64_MAX;
    /* Bin width: fifo_bytes / SPU_FIFO_HIST_BINS rounded up to a power of two (a shift). */
    while (((uint32_t)SPU_FIFO_HIST_BINS << spu->hist_shift) < cfg->fifo_bytes)
        spu->hist_shift++;
    if (!spu->slots || !spu->slot_bytes || !spu->fifo_data || !spu->fifo_recs || !spu->wbuf ||
        !spu->wtmp || !spu->wq || !spu->wr) {
        spu_close(spu);
        return ARMPROF_ERR_NOMEM;
    }
    spu->rf.defs = spu_regdefs;
    spu->rf.count = spu_regdefs_count;
    spu->rf.vals = spu->regs;
    spu->rf.unit = spu;
    armprof_pe_ctx_default(&spu->ctx);
    ap_reg_reset(&spu->rf, true);
    ap_rng_seed(&spu->rng, cfg->rng_seed);
    spu->next_complete = UINT64_MAX;
    spu->slot_shift = cfg->max_size;
    spu->fmt = (spe_format_cfg){ .max_size = cfg->max_size, .align = cfg->align,
                                 .count_size = cfg->count_size };
    spu_reevaluate(spu);
    *out = spu;
    return ARMPROF_OK;
}

void spu_close(spu_t *spu)
{
    if (!spu)
        return;
    free(spu->slots);
    free(spu->slot_bytes);
    free(spu->fifo_data);
    free(spu->fifo_recs);
    free(spu->wbuf);
    free(spu->wtmp);
    free(spu->wq);
    free(spu->wr);
    free(spu->ext);
    free(spu);
}

const spu_config *spu_get_config(const spu_t *spu) { return &spu->cfg; }

/* Records captured and not yet written when a warm reset empties the unit: in completed
 * slots, in the FIFO, and placed in the buffer but not all accepted. They count as discarded
 * with the buffer disabled (reset clears PMBLIMITR_EL1.E). */
static uint64_t records_held(spu_t *spu)
{
    uint64_t n = spu->fifo_nrec;
    for (uint32_t k = 0; k < spu->inflight; k++) {
        const spu_slot *s = slot_at(spu, k);
        n += s->completed && s->collect;
    }
    for (uint32_t k = 0; k < spu->wr_n; k++)
        n += !wrec_at(spu, k)->aborted;
    return n;
}

void spu_reset(spu_t *spu)
{
    discard(spu, SPU_DISCARD_DISABLED, records_held(spu));
    ap_reg_reset(&spu->rf, false);
    memset(spu->slots, 0, spu->cfg.max_inflight * sizeof(spu_slot));
    spu->inflight = 0;
    spu->slot_head = 0;
    spu->next_complete = UINT64_MAX;
    spu->sample_pending = false;
    spu_fifo_clear(spu);
    /* The writer forgets its writes: answers the host still owes are refused (ARMPROF_ERR_BUSY). */
    spu->wq_head = spu->wq_n = spu->wq_ignored = spu->wq_pending = 0;
    spu->next_done = UINT64_MAX;
    spu->wr_head = spu->wr_n = spu->wr_iss = 0;
    spu->wptr = spu->iaddr = 0;
    spu->deferred = spu->flush = false;
    writer_blocked_update(spu);
    ap_rng_seed(&spu->rng, spu->cfg.rng_seed);
    spu->ptr_checked = false;
    spu_set_irq(spu);
    spu_reevaluate(spu);
}

/* =============================================================================================
 * Operations (the per-operation step: the counter's common case stays inline here)
 * ============================================================================================= */

static inline spu_op_result retire_one(spu_t *spu, const spu_op *op)
{
    if (!spu->prof_enabled)
        return SPU_OP_NOT_COUNTED;
    spu->st.population++;
    emit(spu, ARMPROF_EV_SAMPLE_POP, 1);
    if (counter_step_plain(spu))
        return SPU_OP_COUNTED;
    return spu_retire_tick(spu, op);
}

spu_op_result spu_retire(spu_t *spu, const spu_op *op)
{
    /* The record is captured at the clock edge that ends the cycle of its completion
     * (spu_advance / spu_cycle / spu_psb_csync), exactly as in the cycle-level step. */
    return retire_one(spu, op);
}

/* =============================================================================================
 * Time
 * ============================================================================================= */

/* One clock edge: drain, then accept completed records; time moves on by one cycle. An edge with
 * nothing draining, nothing completing and nothing waiting for FIFO room only counts time. */

/* One clock edge: answers due were taken at the end of the previous one; drain, then accept
 * completed records; time moves on by one cycle and the answers due then take effect. An edge
 * with nothing draining, nothing completing and nothing waiting for FIFO room only counts time. */
static inline void edge(spu_t *spu)
{
    if (spu->fifo_nrec) {
        if (!spu->nodrain) {
            fifo_drain(spu, spu->cfg.drain_bytes_per_cycle, false);
            if (spu->cfg.write_bytes && spu->iaddr != spu->wptr)
                spu_writer_run(spu, spu->head_drained == 0); /* a partial block nobody fills */
        } else {
            spu->st.writer_stall_cycles++;
        }
    }
    if (spu->next_complete <= spu->now || (spu->inflight && spu->slots[spu->slot_head].completed))
        spu_accept_completed(spu);
    if (ap_field_get(PMBSR_S, spu->regs[R_PMBSR_EL1]))
        spu->st.service_cycles++;
    spu->now++;
    if (spu->next_done <= spu->now)
        spu_writer_run(spu, spu->head_drained == 0);
}

/* Edges before the next one at which something other than steady draining happens. */
static uint64_t quiet_edges(const spu_t *spu)
{
    uint64_t q = UINT64_MAX;
    if (spu->next_complete != UINT64_MAX)
        q = spu->next_complete > spu->now ? spu->next_complete - spu->now : 0;
    /* A write's answer takes effect at the end of the edge that reaches its time. */
    if (spu->next_done != UINT64_MAX) {
        uint64_t d = spu->next_done > spu->now ? spu->next_done - spu->now - 1 : 0;
        if (d < q)
            q = d;
    }
    /* (A management event outside an edge's drain sets next_complete to now: the next edge
     * takes the completed record that waited for FIFO room, see spu_mgmt_event().) */
    bool draining = spu->fifo_nrec && !spu->nodrain;
    if (draining) {
        uint32_t left = spu->fifo_recs[spu->fifo_rhead].len - spu->head_drained;
        uint64_t r = spu->cfg.drain_bytes_per_cycle;
        uint64_t e = (left + r - 1) / r; /* the edge that finishes the head record */
        if (e - 1 < q)
            q = e - 1;
    }
    /* The oldest completed record waiting for FIFO room enters at the edge whose drain leaves
     * it room (bytes free up with every drained byte, not only when the head is written); for
     * a free record descriptor it waits for the head record, as above. */
    const spu_slot *w = &spu->slots[spu->slot_head];
    if (spu->inflight && draining && w->completed && w->collect &&
        spu->fifo_level + w->len > spu->cfg.fifo_bytes) {
        uint64_t need = spu->fifo_level + w->len - spu->cfg.fifo_bytes;
        uint64_t r = spu->cfg.drain_bytes_per_cycle;
        uint64_t e = (need + r - 1) / r;
        if (e - 1 < q)
            q = e - 1;
    }
    return q;
}

void spu_advance(spu_t *spu, uint64_t cycles)
{
    while (cycles) {
        uint64_t q = quiet_edges(spu);
        if (q > cycles)
            q = cycles;
        if (q) {
            /* q edges of plain draining: no record finishes, no operation completes, no write
             * is answered. */
            if (spu->fifo_nrec && !spu->nodrain) {
                level_touch(spu);
                uint64_t l0 = spu->fifo_level;
                uint64_t b = q * spu->cfg.drain_bytes_per_cycle;
                spu->head_drained += (uint32_t)b;
                spu->fifo_level -= (uint32_t)b;
                spu->drained_total += b;
                spu_level_run(spu, l0, spu->cfg.drain_bytes_per_cycle, q);
                spu->lvl_t = spu->now + q;
            } else if (spu->fifo_nrec) {
                spu->st.writer_stall_cycles += q;
            }
            if (ap_field_get(PMBSR_S, spu->regs[R_PMBSR_EL1]))
                spu->st.service_cycles += q;
            /* Waiting completed records retry at every edge; count those cycles. */
            if (spu->inflight) {
                const spu_slot *w = &spu->slots[spu->slot_head];
                if (w->completed && w->collect)
                    spu->st.fifo_full_cycles += q;
            }
            spu->now += q;
            cycles -= q;
            continue;
        }
        edge(spu);
        cycles--;
    }
}

uint64_t spu_cycles_to_next_event(const spu_t *spu)
{
    uint64_t q = quiet_edges(spu);
    return q == UINT64_MAX ? UINT64_MAX : q + 1;
}

uint64_t spu_now(const spu_t *spu) { return spu->now; }

void spu_cycle(spu_t *spu, const spu_op *ops, uint32_t n, spu_op_result *result)
{
    for (uint32_t i = 0; i < n; i++) {
        spu_op_result r = retire_one(spu, &ops[i]);
        if (result)
            result[i] = r;
    }
    edge(spu);
}

void spu_set_drain_stall(spu_t *spu, bool stall)
{
    spu->drain_stall = stall;
    spu->nodrain = spu->wblocked || stall;
}

armprof_err spu_mem_complete(spu_t *spu, const armprof_mem_result *res)
{
    if (!spu || !res || res->status == ARMPROF_MEM_PENDING || (unsigned)res->status > ARMPROF_MEM_PENDING)
        return ARMPROF_ERR_INVAL;
    if (!spu->wq_pending)
        return ARMPROF_ERR_BUSY;
    for (uint32_t k = 0; k < spu->wq_n; k++) {
        spu_wr *w = wq_at(spu, k);
        if (w->done_at == UINT64_MAX) {
            w->res = *res;
            w->done_at = spu->now;
            spu->wq_pending--;
            break;
        }
    }
    wq_next_done(spu);
    spu_writer_run(spu, spu->head_drained == 0);
    return ARMPROF_OK;
}

uint32_t spu_writes_outstanding(const spu_t *spu) { return spu->wq_n; }

bool spu_drain_ready(const spu_t *spu) { return writer_ready(spu); }

/* =============================================================================================
 * Observation
 * ============================================================================================= */

const char *spu_discard_reason_name(spu_discard_reason r)
{
    switch (r) {
    case SPU_DISCARD_SERVICE: return "service";
    case SPU_DISCARD_DISABLED: return "disabled";
    case SPU_DISCARD_MODE: return "discard_mode";
    case SPU_DISCARD_FAULT: return "fault";
    case SPU_DISCARD_PTR: return "write_pointer";
    case SPU_DISCARD_EXT_ABORT: return "external_abort";
    case SPU_DISCARD__COUNT: break;
    }
    return "unknown";
}

/* Writes of the functional path: issued and answered at once, latency 0, one outstanding. */
static void direct_writes_account(const spu_t *spu, spu_stats *st)
{
    if (!spu->direct_writes)
        return;
    st->writes_issued += spu->direct_writes;
    st->writes_answered += spu->direct_writes;
    st->write_latency_min = 0;
    if (!st->outstanding_writes_max)
        st->outstanding_writes_max = 1;
}

void spu_get_stats(const spu_t *spu, spu_stats *st)
{
    *st = spu->st;
    if (spu->fifo_level)
        level_account(spu, st);
    uint64_t counted = 0;
    for (int i = 0; i < SPU_FIFO_HIST_BINS; i++)
        counted += st->fifo_hist[i];
    st->fifo_hist[0] += spu->now - counted; /* the cycles with an empty FIFO */
    direct_writes_account(spu, st);
    st->fifo_bytes_now = spu->fifo_level;
    st->inflight_now = spu->inflight;
}

void spu_get_probe(const spu_t *spu, spu_probe *p)
{
    uint64_t icr = spu->regs[R_PMSICR_EL1];
    p->count = (uint32_t)ap_field_get(PMSICR_COUNT, icr);
    p->ecount = (uint8_t)ap_field_get(PMSICR_ECOUNT, icr);
    p->ecount_active = p->ecount != 0;
    p->fifo_level = spu->fifo_level;
    p->inflight = spu->inflight;
    p->drained = spu->drained_total;
    p->rng_state = spu->rng.state;
}

void spu_set_record_hook(spu_t *spu, spu_record_fn fn, void *user)
{
    spu->rec_hook = fn;
    spu->rec_hook_user = user;
}

uint32_t spu_fifo_hist_width(const spu_t *spu) { return 1u << spu->hist_shift; }
