/* SPDX-License-Identifier: Apache-2.0 */
/* trbu.c: the Trace Buffer Unit state machine: trace in, buffer modes, triggers, faults, time. */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/state.h"
#include "trbu_internal.h"

#define TRBU_STATE_TAG 0x55425254u /* "TRBU" */
#define TRBU_STATE_VERSION 2u /* 2: outstanding writes */

/* ----- Configuration --------------------------------------------------------------------------- */

void trbu_config_default(trbu_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->align = 6;
    cfg->ea_write = TRBU_EA_REPORT;
    cfg->ea_walk = TRBU_EA_MMU_FAULT;
    cfg->bad_ptr = TRBU_BADPTR_IMPDEF_EVENT;
    cfg->pad_byte = 0x70;
    cfg->flush_cycles = 16;
    cfg->ea_async_cycles = 64;
    cfg->write_granule = 4096;
    cfg->max_burst = 4096;
    cfg->max_outstanding_writes = 1;
}

static armprof_err why_fail(char *why, size_t len, armprof_err e, const char *msg)
{
    if (why && len) {
        strncpy(why, msg, len - 1);
        why[len - 1] = '\0';
    }
    return e;
}

armprof_err trbu_config_validate(const trbu_config *cfg, char *why, size_t len)
{
    if (!cfg)
        return why_fail(why, len, ARMPROF_ERR_INVAL, "cfg is NULL");
    if (cfg->align > 11)
        return why_fail(why, len, ARMPROF_ERR_CFG_ALIGN, "align: TRBIDR_EL1.Align above 0b1011 (2 KiB)");
    if (cfg->ea_write > TRBU_EA_REPORT || cfg->ea_walk > TRBU_EA_REPORT)
        return why_fail(why, len, ARMPROF_ERR_CFG_RANGE, "ea_write / ea_walk: not a trbu_ea_policy");
    if (cfg->ea_write == TRBU_EA_MMU_FAULT)
        return why_fail(why, len, ARMPROF_ERR_CFG_RANGE,
                        "ea_write: a synchronous MMU fault applies to walk aborts only (D6.5.5.3)");
    if (cfg->armv9p3 && (cfg->ea_write == TRBU_EA_REPORT || cfg->ea_walk == TRBU_EA_REPORT))
        return why_fail(why, len, ARMPROF_ERR_CFG_FEATURE,
                        "armv9p3: External aborts are not reported to the unit from Armv9.3 (IFRNZK)");
    if (cfg->bad_ptr > TRBU_BADPTR_DISCARD)
        return why_fail(why, len, ARMPROF_ERR_CFG_RANGE, "bad_ptr: not a trbu_bad_ptr_policy");
    uint32_t unit = 1u << cfg->align;
    if (cfg->write_granule &&
        ((cfg->write_granule & (cfg->write_granule - 1)) || cfg->write_granule < unit))
        return why_fail(why, len, ARMPROF_ERR_CFG_RANGE,
                        "write_granule: 0 or a power of two no smaller than 2^Align");
    if (cfg->max_burst < unit)
        return why_fail(why, len, ARMPROF_ERR_CFG_RANGE, "max_burst: smaller than 2^Align");
    if (cfg->max_outstanding_writes < 1 || cfg->max_outstanding_writes > TRBU_MAX_OUTSTANDING)
        return why_fail(why, len, ARMPROF_ERR_CFG_RANGE, "max_outstanding_writes: 1 .. 1024");
    return ARMPROF_OK;
}

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

/* ----- Small helpers --------------------------------------------------------------------------- */

static uint64_t limit_of(const trbu_t *t) { return t->vals[TRBU_SLOT_LIMITR] & TRBLIMITR_EL1_LIMIT; }
static uint64_t base_of(const trbu_t *t) { return t->vals[TRBU_SLOT_BASER] & TRBBASER_EL1_BASE; }

/* FM 0b10 and TM 0b10 are reserved: this model treats them as Fill mode and Ignore trigger. */
static unsigned fm_of(const trbu_t *t)
{
    unsigned fm = (unsigned)ap_field_get(TRBLIMITR_EL1_FM, t->vals[TRBU_SLOT_LIMITR]);
    return fm == 2 ? TRBU_FM_FILL : fm;
}
static unsigned tm_of(const trbu_t *t)
{
    unsigned tm = (unsigned)ap_field_get(TRBLIMITR_EL1_TM, t->vals[TRBU_SLOT_LIMITR]);
    return tm == 2 ? TRBU_TM_IGNORE : tm;
}

static bool unit_enabled(const trbu_t *t)
{
    return (t->vals[TRBU_SLOT_LIMITR] & TRBLIMITR_EL1_E) && !t->ctx.self_hosted_trace_off;
}

bool trbu_collection_stopped(const trbu_t *t)
{
    if (t->vals[TRBU_SLOT_SR1] & TRBSR_S)
        return true;
    return t->cfg.feat_trbe_exc &&
           ((t->vals[TRBU_SLOT_SR2] | t->vals[TRBU_SLOT_SR3]) & TRBSR_S);
}

static void discard(trbu_t *t, trbu_discard_reason r, uint64_t n)
{
    t->st.discarded[r] += n;
    t->st.bytes_discarded += n;
}

static void discard_ibuf(trbu_t *t, trbu_discard_reason r)
{
    discard(t, r, t->ibuf_len);
    t->ibuf_len = 0;
    t->pre_trig = 0;
}

static void pmu_event(trbu_t *t, uint16_t ev)
{
    if (t->ops.event)
        t->ops.event(t->ops.user, ev, 1);
}

void trbu_update_outputs(trbu_t *t)
{
    bool lvl = trbu_irq_level(t);
    if (lvl == t->irq_level)
        return;
    t->irq_level = lvl;
    if (lvl)
        t->st.irq_rises++;
    if (t->ops.irq)
        t->ops.irq(t->ops.user, lvl);
}

static void make_regime(const trbu_t *t, armprof_regime *g)
{
    memset(g, 0, sizeof(*g));
    g->ss = trbu_owning_ss(t);
    g->el = trbu_owning_el(t);
    if (g->el == 2) {
        g->kind = t->ctx.hcr_e2h ? ARMPROF_REGIME_EL20 : ARMPROF_REGIME_EL2;
    } else {
        g->kind = ARMPROF_REGIME_EL10;
        g->stage2 = armprof_pe_el2_enabled(&t->ctx, g->ss) && t->ctx.hcr_vm;
    }
    g->nvm = (t->vals[TRBU_SLOT_LIMITR] & TRBLIMITR_EL1_nVM) != 0;
    g->hw_flag_update = t->cfg.flag_update;
    g->mar = (uint16_t)(t->vals[TRBU_SLOT_MAR] & (TRBMAR_EL1_PAS | TRBMAR_EL1_SH | TRBMAR_EL1_Attr));
    g->unit = ARMPROF_UNIT_TRBU;
    g->pe = t->cfg.pe_index;
}

bool trbu_buffer_enabled(const trbu_t *t, armprof_regime *regime)
{
    if (!unit_enabled(t))
        return false;
    if (regime)
        make_regime(t, regime);
    return true;
}

/* ----- Management events ---------------------------------------------------------------------- */

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
    discard_ibuf(t, TRBU_DISCARD_STOPPED);
    return true;
}

/* RFSPBK: an Alignment fault or MMU fault (including a GPC fault) on a write. */
static void fault_event(trbu_t *t, uint8_t ec, uint8_t fsc, uint32_t mss2, bool set_ea)
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
static void ea_report(trbu_t *t, uint8_t ec, uint8_t fsc)
{
    uint8_t el = trbu_event_route(t, trbu_kind_of(ec, fsc));
    uint64_t *r = trbu_sr(t, el);
    *r |= TRBSR_EA;
    if (!(*r & TRBSR_S)) {
        mgmt_irq(t, el);
        set_stop(t, r, ec, fsc);
    }
    discard_ibuf(t, TRBU_DISCARD_STOPPED);
    t->st.ext_abort_events++;
}

static void impdef_event(trbu_t *t, uint16_t mss)
{
    /* RCHNSL: IRQ, S, EC = 0x1F and MSS are all set, whatever S was. */
    uint64_t *r = mgmt_irq(t, trbu_event_route(t, TRBU_EVK_OTHER));
    *r |= TRBSR_S;
    *r = ap_field_set(*r, TRBSR_EC, ARMPROF_EC_IMPDEF);
    *r = ap_field_set(*r, TRBSR_MSS, mss);
    discard_ibuf(t, TRBU_DISCARD_STOPPED);
    t->st.impdef_events++;
}

/* RMBSHC and its neighbours: the current write pointer wrapped to the Base pointer. */
static void wrap_event(trbu_t *t)
{
    t->st.wraps++;
    pmu_event(t, ARMPROF_EV_TRB_WRAP);
    unsigned fm = fm_of(t);
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
static void trigger_event(trbu_t *t)
{
    t->st.trigger_events++;
    pmu_event(t, ARMPROF_EV_TRB_TRIG);
    if (trbu_collection_stopped(t))
        return;                                       /* RMWWHM: TRBSR unchanged */
    unsigned tm = tm_of(t);
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
    bool wrapped = ptr == limit_of(t);
    t->vals[TRBU_SLOT_PTR] = wrapped ? base_of(t) : ptr;
    if (fire)
        trigger_event(t);
    if (wrapped)
        wrap_event(t);
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
        discard(t, TRBU_DISCARD_FAULT, len - w);
        fault_event(t, ec, res->fsc, res->mss2, false);
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
        discard(t, TRBU_DISCARD_FAULT, len - w);
        fault_event(t, ec, res->fsc, res->mss2, t->cfg.walk_ea_sets_ea);
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
        discard(t, TRBU_DISCARD_FAULT, len - w);
        ea_report(t, ec, res->fsc);
        return true;
    }
    }
}

/* ----- Outstanding writes ---------------------------------------------------------------------- */

static trbu_wr *wq_at(const trbu_t *t, uint32_t i)
{
    return &t->wq[(t->wq_head + i) % t->cfg.max_outstanding_writes];
}

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
    const trbu_wr *e = wq_at(t, t->wq_n - 1);
    uint64_t end = e->ptr + e->len;
    if (end == limit_of(t)) {
        *at_limit = true;
        return base_of(t);
    }
    return end;
}

/* The live outstanding writes die (an earlier one faulted): their bytes are lost and their
 * answers, when they come, are ignored. */
static void kill_live(trbu_t *t)
{
    for (uint32_t i = t->wq_n - t->wq_live; i < t->wq_n; i++) {
        trbu_wr *e = wq_at(t, i);
        e->dead = true;
        discard(t, TRBU_DISCARD_FAULT, e->len);
    }
    t->wq_live = 0;
    t->inflight_bytes = 0;
}

static void pump(trbu_t *t);
static void try_trigger_mgmt(trbu_t *t);

/* The oldest outstanding write is accepted now: its answer takes effect. */
static void accept_head(trbu_t *t)
{
    trbu_wr e = *wq_at(t, 0);
    t->wq_head = (t->wq_head + 1) % t->cfg.max_outstanding_writes;
    t->wq_n--;
    t->acc_seq = e.seq;
    note_latency(t, t->now - e.issued);
    if (e.dead)
        return;
    t->wq_live--;
    t->inflight_bytes -= e.len;
    if (trbu_collection_stopped(t) && (e.res.status != ARMPROF_MEM_OK)) {
        /* Collection already stopped (an earlier event): the earliest event wins; a later
         * fault or abort is not reported (RFSPBK applies only with TRBSR_ELx.S == 0). */
        discard(t, TRBU_DISCARD_FAULT, e.len);
        return;
    }
    if (take_answer(t, e.ptr, e.len, &e.res))
        kill_live(t);
}

/* Accepts every outstanding write whose time has come, in issue order, and issues what the
 * freed slots allow. */
static void process_writes(trbu_t *t)
{
    bool any = false;
    while (t->wq_n) {
        const trbu_wr *h = wq_at(t, 0);
        if (h->pending || h->due > t->now)
            break;
        accept_head(t);
        any = true;
    }
    if (any) {
        pump(t);
        try_trigger_mgmt(t);
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
        make_regime(t, &t->regime);
        t->regime_valid = true;
    }
    const armprof_regime *g = &t->regime;
    while (done < n) {
        if (trbu_collection_stopped(t))
            break;
        if (t->wq_n >= t->cfg.max_outstanding_writes)
            break;
        bool at_limit;
        uint64_t base = base_of(t), limit = limit_of(t), ptr = issue_ptr(t, &at_limit);
        if (at_limit && fm_of(t) == TRBU_FM_FILL)
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
            discard(t, TRBU_DISCARD_BAD_PTR, left);
            if (t->cfg.bad_ptr == TRBU_BADPTR_IMPDEF_EVENT)
                impdef_event(t, TRBU_IMPDEF_MSS_BAD_POINTERS);
            return n;
        }
        if (t->cfg.misaligned_ptr_fault && (ptr & (t->unit - 1))) {
            if (t->wq_live)
                break;
            discard(t, TRBU_DISCARD_FAULT, left);
            fault_event(t, ARMPROF_EC_S1_ABORT, ARMPROF_FSC_ALIGNMENT, 0, false);
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
            /* Accepted at once: the functional behaviour. */
            t->acc_seq = t->wr_seq;
            note_latency(t, 0);
            if (take_answer(t, ptr, chunk, &res)) {
                discard(t, TRBU_DISCARD_FAULT, left - chunk);
                return n;
            }
            done += chunk;
            continue;
        }
        trbu_wr *e = wq_at(t, t->wq_n);
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
            discard(t, TRBU_DISCARD_STOPPED, n - c);
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
    if (!t->ibuf_len || !unit_enabled(t) || trbu_collection_stopped(t))
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
static void settle(trbu_t *t)
{
    for (;;) {
        process_writes(t);
        if (!t->wq_n || wq_at(t, 0)->pending)
            break;
        wq_at(t, 0)->due = t->now;
    }
}

void trbu_on_disable(trbu_t *t)
{
    t->flush_pending = false;
    t->trg_wait = false;
    if (t->cfg.disable_drains) {
        settle(t);
        trbu_drain(t);
        settle(t);
    }
    discard_ibuf(t, TRBU_DISCARD_DISABLE);
    t->drain_wanted = false;
}

/* ----- Time ----------------------------------------------------------------------------------- */

/* The trigger management event of a completed flush, once the writes before it are accepted. */
static void try_trigger_mgmt(trbu_t *t)
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

static void flush_done(trbu_t *t)
{
    t->flush_pending = false;
    /* The trace accepted before the flush completed reaches memory before collection stops
     * (Stop on trigger); the event follows the writes issued before it. */
    if (t->flush_tm == TRBU_TM_STOP)
        trbu_drain(t);
    t->trg_wait = true;
    t->trg_wait_seq = t->wr_seq;
    try_trigger_mgmt(t);
}

/* Stop on trigger: a completed flush waits for its drain; trace arriving meanwhile is after
 * the flush, so it is discarded as once collection has stopped. */
static bool stopping(const trbu_t *t)
{
    return t->trg_wait && t->flush_tm == TRBU_TM_STOP;
}

static uint64_t wq_due(const trbu_t *t)
{
    if (!t->wq_n || wq_at(t, 0)->pending)
        return TRBU_NO_TIME;
    return wq_at(t, 0)->due;
}

static void process_due(trbu_t *t)
{
    for (;;) {
        uint64_t w = wq_due(t);
        uint64_t f = t->flush_pending ? t->flush_at : TRBU_NO_TIME;
        uint64_t e = t->ea_pending ? t->ea_at : TRBU_NO_TIME;
        if (w <= t->now) {
            process_writes(t);
        } else if (f <= t->now && f <= e) {
            flush_done(t);
        } else if (e <= t->now) {
            t->ea_pending = false;
            ea_report(t, t->ea_ec, t->ea_fsc);
        } else {
            break;
        }
    }
}

uint64_t trbu_cycles_to_next_event(const trbu_t *t)
{
    uint64_t f = t->flush_pending ? t->flush_at : TRBU_NO_TIME;
    uint64_t e = t->ea_pending ? t->ea_at : TRBU_NO_TIME;
    uint64_t w = wq_due(t);
    uint64_t m = f < e ? f : e;
    if (w < m)
        m = w;
    if (m == TRBU_NO_TIME)
        return UINT64_MAX;
    return m > t->now ? m - t->now : 0;
}

/* The writer is stalled: bytes wait in the internal buffer to be issued behind outstanding
 * writes (a full unit, or a drain). */
static bool writer_stalled(const trbu_t *t)
{
    return t->wq_n && t->ibuf_len && (t->ibuf_len == t->unit || t->drain_wanted) &&
           !trbu_collection_stopped(t);
}

void trbu_advance(trbu_t *t, uint64_t cycles)
{
    uint64_t target = t->now + cycles;
    for (;;) {
        uint64_t d = trbu_cycles_to_next_event(t);
        if (d == UINT64_MAX || t->now + d > target)
            break;
        if (writer_stalled(t))
            t->st.writer_stall_cycles += d;
        t->now += d;
        process_due(t);
    }
    if (writer_stalled(t))
        t->st.writer_stall_cycles += target - t->now;
    t->now = target;
    trbu_update_outputs(t);
}

uint64_t trbu_now(const trbu_t *t)
{
    return t->now;
}

/* ----- Public entry points -------------------------------------------------------------------- */

size_t trbu_trace_bytes(trbu_t *t, const uint8_t *data, size_t len)
{
    size_t taken = 0;
    bool direct = true;
    t->st.bytes_in += len;
    if (!unit_enabled(t)) {
        discard(t, TRBU_DISCARD_DISABLED, len);
        return 0;
    }
    while (len) {
        if (trbu_collection_stopped(t) || stopping(t)) {
            discard(t, TRBU_DISCARD_STOPPED, len);
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
    process_due(t);
    trbu_update_outputs(t);
    return taken;
}

void trbu_trigger(trbu_t *t)
{
    t->st.detected_triggers++;
    if (unit_enabled(t)) {
        /* RKSQJW: TRG set in the Other-event TRBSR_ELx; RDHLQG / RQFGNQ decide the rest. */
        uint64_t *r = trbu_sr(t, trbu_event_route(t, TRBU_EVK_OTHER));
        bool was = (*r & TRBSR_TRG) != 0;
        *r |= TRBSR_TRG;
        if (!was) {
            if ((t->vals[TRBU_SLOT_TRG] & TRBTRG_EL1_TRG) == 0)
                trigger_event(t);
            else /* accepted before the Detected Trigger: buffered or in outstanding writes */
                t->pre_trig = t->ibuf_len + (uint32_t)t->inflight_bytes;
        }
    }
    process_due(t);
    trbu_update_outputs(t);
}

size_t trbu_cycle(trbu_t *t, const uint8_t *data, size_t len, bool trigger)
{
    size_t n = len ? trbu_trace_bytes(t, data, len) : 0;
    if (trigger)
        trbu_trigger(t);
    trbu_advance(t, 1);
    return n;
}

void trbu_set_flush_hook(trbu_t *t, trbu_flush_fn fn, void *user)
{
    t->flush_fn = fn;
    t->flush_user = user;
}

void trbu_flush_complete(trbu_t *t)
{
    if (t->flush_pending)
        flush_done(t);
    process_due(t);
    trbu_update_outputs(t);
}

bool trbu_flush_pending(const trbu_t *t)
{
    return t->flush_pending;
}

armprof_err trbu_mem_complete(trbu_t *t, const armprof_mem_result *res)
{
    if (!t || !res || res->status == ARMPROF_MEM_PENDING || res->status > ARMPROF_MEM_PENDING)
        return ARMPROF_ERR_INVAL;
    for (uint32_t i = 0; i < t->wq_n; i++) {
        trbu_wr *e = wq_at(t, i);
        if (!e->pending)
            continue;
        /* The oldest pending write: its answer takes effect now (after older writes). */
        e->pending = false;
        e->res = *res;
        e->due = t->now;
        process_due(t);
        trbu_update_outputs(t);
        return ARMPROF_OK;
    }
    return ARMPROF_ERR_BUSY;
}

uint32_t trbu_writes_outstanding(const trbu_t *t)
{
    return t ? t->wq_n : 0;
}

void trbu_impdef_event(trbu_t *t, uint16_t mss)
{
    impdef_event(t, mss);
    trbu_update_outputs(t);
}

void trbu_tsb_csync(trbu_t *t)
{
    t->st.tsb_csyncs++;
    /* Outstanding writes with a synchronous answer are accepted now (the model does not stall
     * the PE: a host that does advances the unit until trbu_writes_outstanding() is 0 first);
     * the drained bytes follow them. Writes with a pending answer stay outstanding. */
    settle(t);
    trbu_drain(t);
    settle(t);
    if (t->ea_pending) {
        t->ea_pending = false;
        ea_report(t, t->ea_ec, t->ea_fsc);
    }
    process_due(t);
    trbu_update_outputs(t);
}

/* ----- Life cycle, registers, context --------------------------------------------------------- */

armprof_err trbu_open(const trbu_config *cfg, const armprof_host_ops *ops, trbu_t **out)
{
    if (!out)
        return ARMPROF_ERR_INVAL;
    *out = NULL;
    armprof_err e = trbu_config_validate(cfg, NULL, 0);
    if (e != ARMPROF_OK)
        return e;
    trbu_t *t = calloc(1, sizeof(*t));
    if (!t)
        return ARMPROF_ERR_NOMEM;
    t->cfg = *cfg;
    t->unit = 1u << cfg->align;
    t->ibuf = calloc(1, t->unit);
    t->wq = calloc(cfg->max_outstanding_writes, sizeof(*t->wq));
    if (!t->ibuf || !t->wq) {
        free(t->ibuf);
        free(t->wq);
        free(t);
        return ARMPROF_ERR_NOMEM;
    }
    if (ops)
        t->ops = *ops;
    armprof_pe_ctx_default(&t->ctx);
    trbu_regs_init(t);
    ap_reg_reset(&t->rf, true);
    *out = t;
    return ARMPROF_OK;
}

void trbu_close(trbu_t *t)
{
    if (!t)
        return;
    free(t->ibuf);
    free(t->wq);
    free(t);
}

void trbu_reset(trbu_t *t)
{
    ap_reg_reset(&t->rf, false);
    t->regime_valid = false;
    t->ibuf_len = 0;
    t->pre_trig = 0;
    t->flush_pending = false;
    t->ea_pending = false;
    /* Outstanding writes are forgotten (a pending answer given later is refused). */
    t->wq_head = t->wq_n = t->wq_live = 0;
    t->inflight_bytes = 0;
    t->drain_wanted = false;
    t->trg_wait = false;
    trbu_update_outputs(t);
}

const trbu_config *trbu_get_config(const trbu_t *t)
{
    return &t->cfg;
}

armprof_err trbu_set_pe_context(trbu_t *t, const armprof_pe_ctx *ctx)
{
    if (!t || !ctx || ctx->el > 3)
        return ARMPROF_ERR_INVAL;
    t->ctx = *ctx;
    t->regime_valid = false;
    trbu_update_outputs(t);
    return ARMPROF_OK;
}

const armprof_pe_ctx *trbu_get_pe_context(const trbu_t *t)
{
    return &t->ctx;
}

armprof_err trbu_reg_read(trbu_t *t, uint32_t enc, uint64_t *val)
{
    if (!t)
        return ARMPROF_ERR_INVAL;
    return ap_reg_read(&t->rf, enc, val);
}

armprof_err trbu_reg_write(trbu_t *t, uint32_t enc, uint64_t val)
{
    if (!t)
        return ARMPROF_ERR_INVAL;
    t->regime_valid = false;
    armprof_err e = ap_reg_write(&t->rf, enc, val);
    t->regime_valid = false;
    trbu_update_outputs(t);
    return e;
}

armprof_err trbu_reg_peek(const trbu_t *t, uint32_t enc, uint64_t *val)
{
    if (!t || !val)
        return ARMPROF_ERR_INVAL;
    const ap_regdef *r = ap_reg_find(&t->rf, enc);
    if (!r)
        return ARMPROF_ERR_NOREG;
    *val = t->vals[r->slot];
    return ARMPROF_OK;
}

const char *trbu_discard_reason_name(trbu_discard_reason r)
{
    switch (r) {
    case TRBU_DISCARD_DISABLED: return "disabled";
    case TRBU_DISCARD_STOPPED: return "stopped";
    case TRBU_DISCARD_FAULT: return "fault";
    case TRBU_DISCARD_BAD_PTR: return "bad_pointers";
    case TRBU_DISCARD_DISABLE: return "lost_on_disable";
    case TRBU_DISCARD__COUNT: break;
    }
    return "unknown";
}

void trbu_get_stats(const trbu_t *t, trbu_stats *st)
{
    *st = t->st;
}

/* ----- Checkpoints ---------------------------------------------------------------------------- */

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
        const trbu_wr *e = wq_at(t, i);
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
