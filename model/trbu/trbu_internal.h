/* SPDX-License-Identifier: Apache-2.0 */
/* trbu_internal.h: the Trace Buffer Unit's state, shared by the model's source files only. */
#ifndef ARMPROF_TRBU_INTERNAL_H
#define ARMPROF_TRBU_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "armprof/trbu.h"
#include "armprof/bits.h"
#include "common/regtable.h"

/* Slots of the register file. */
enum {
    TRBU_SLOT_LIMITR = 0,
    TRBU_SLOT_PTR,
    TRBU_SLOT_BASER,
    TRBU_SLOT_SR1,
    TRBU_SLOT_MAR,
    TRBU_SLOT_TRG,
    TRBU_SLOT_IDR,
    TRBU_SLOT_SR2,
    TRBU_SLOT_SR3,
    TRBU_SLOT__COUNT
};

#define TRBU_NO_TIME UINT64_MAX
#define TRBU_NREGS 10
#define TRBU_MAX_OUTSTANDING 1024u /* largest cfg.max_outstanding_writes */

/* A write issued to the memory port and not yet accepted (armprof_mem_result.latency or
 * ARMPROF_MEM_PENDING). Writes are accepted in issue order. */
typedef struct trbu_wr {
    uint64_t ptr;                 /* address of the write (TRBPTR_EL1 when it is accepted) */
    uint64_t issued;              /* unit time of the port call */
    uint64_t due;                 /* acceptance time; TRBU_NO_TIME while the answer is pending */
    uint64_t seq;                 /* issue sequence number, from 1 */
    uint32_t len;
    bool pending;                 /* ARMPROF_MEM_PENDING: trbu_mem_complete() not yet called */
    bool dead;                    /* an earlier write faulted: its answer is ignored, bytes lost */
    armprof_mem_result res;       /* the answer (valid once !pending) */
} trbu_wr;

struct trbu {
    trbu_config cfg;
    armprof_host_ops ops;
    armprof_pe_ctx ctx;
    uint64_t vals[TRBU_SLOT__COUNT];
    ap_regdef regdefs[TRBU_NREGS];
    ap_regfile rf;

    /* The internal buffer of 2^Align bytes (IQQKZF). */
    uint8_t *ibuf;
    uint32_t unit;
    uint32_t ibuf_len;
    /* Bytes at the front of the not-yet-written stream that were accepted before the Detected
     * Trigger: they do not decrement the Trigger Counter unless cfg.trig_over_decrement. */
    uint32_t pre_trig;

    uint64_t now;
    /* Trace unit flush requested by a Trigger Event (RXRRWP). */
    bool flush_pending;
    uint8_t flush_tm;
    uint64_t flush_at;            /* TRBU_NO_TIME while the host's flush hook owns completion */
    trbu_flush_fn flush_fn;
    void *flush_user;
    /* An External abort handled asynchronously (D6.5.5.4), reported at ea_at. */
    bool ea_pending;
    uint64_t ea_at;
    uint8_t ea_ec, ea_fsc;

    /* Memory timing: outstanding writes (a ring of cfg.max_outstanding_writes), the live ones
     * (not dead) being the newest wq_live entries. */
    trbu_wr *wq;
    uint32_t wq_head, wq_n, wq_live;
    uint64_t inflight_bytes;      /* bytes of live outstanding writes */
    uint64_t wr_seq, acc_seq;     /* last issued / last accepted write */
    uint64_t lat_n;               /* accepted writes (for write_latency_min) */
    bool drain_wanted;            /* a drain (TSB CSYNC, flush, disable) waits for a free slot */
    /* A trigger management event (flush completed) waiting for earlier writes: Stop on trigger
     * waits for the drained internal buffer to be accepted, IRQ on trigger for the writes
     * issued before the flush completed (trg_wait_seq). */
    bool trg_wait;
    uint64_t trg_wait_seq;

    bool irq_level;
    /* The owning translation regime, cached between register writes / context changes. */
    bool regime_valid;
    armprof_regime regime;
    trbu_stats st;
};

/* trbu_route.c */
armprof_security trbu_owning_ss(const trbu_t *t);
uint8_t trbu_owning_el(const trbu_t *t);
bool trbu_irq_enabled(const trbu_t *t);
trbu_event_kind trbu_kind_of(uint8_t ec, uint8_t fsc);
void trbu_make_regime(const trbu_t *t, armprof_regime *g);

/* trbu_regs.c */
void trbu_regs_init(trbu_t *t);
uint64_t trbu_idr_value(const trbu_config *cfg);

/* trbu_writer.c */
void trbu_on_disable(trbu_t *t);
void trbu_drain(trbu_t *t);
void trbu_process_writes(trbu_t *t);
void trbu_settle_writes(trbu_t *t);

/* trbu_mgmt.c: management events. */
void trbu_fault_event(trbu_t *t, uint8_t ec, uint8_t fsc, uint32_t mss2, bool set_ea);
void trbu_ea_report(trbu_t *t, uint8_t ec, uint8_t fsc);
void trbu_raise_impdef(trbu_t *t, uint16_t mss);
void trbu_wrap_event(trbu_t *t);
void trbu_trigger_event(trbu_t *t);
void trbu_try_trigger_mgmt(trbu_t *t);
void trbu_flush_done(trbu_t *t);

/* trbu.c */
void trbu_irq_changed(trbu_t *t, bool lvl);
void trbu_process_due_slow(trbu_t *t);

/* ----- Small helpers, shared by the source files (hot paths inline) ----------------------------- */

static inline uint64_t trbu_limit_of(const trbu_t *t) { return t->vals[TRBU_SLOT_LIMITR] & TRBLIMITR_EL1_LIMIT; }
static inline uint64_t trbu_base_of(const trbu_t *t) { return t->vals[TRBU_SLOT_BASER] & TRBBASER_EL1_BASE; }

/* FM 0b10 and TM 0b10 are reserved: this model treats them as Fill mode and Ignore trigger. */
static inline unsigned trbu_fm_of(const trbu_t *t)
{
    unsigned fm = (unsigned)ap_field_get(TRBLIMITR_EL1_FM, t->vals[TRBU_SLOT_LIMITR]);
    return fm == 2 ? TRBU_FM_FILL : fm;
}
static inline unsigned trbu_tm_of(const trbu_t *t)
{
    unsigned tm = (unsigned)ap_field_get(TRBLIMITR_EL1_TM, t->vals[TRBU_SLOT_LIMITR]);
    return tm == 2 ? TRBU_TM_IGNORE : tm;
}

static inline bool trbu_unit_enabled(const trbu_t *t)
{
    return (t->vals[TRBU_SLOT_LIMITR] & TRBLIMITR_EL1_E) && !t->ctx.self_hosted_trace_off;
}

static inline void trbu_discard(trbu_t *t, trbu_discard_reason r, uint64_t n)
{
    t->st.discarded[r] += n;
    t->st.bytes_discarded += n;
}

static inline void trbu_discard_ibuf(trbu_t *t, trbu_discard_reason r)
{
    trbu_discard(t, r, t->ibuf_len);
    t->ibuf_len = 0;
    t->pre_trig = 0;
}

/* A PMU event (TRB_WRAP, TRB_TRIG) to the host. */
static inline void trbu_pmu_event(trbu_t *t, uint16_t ev)
{
    if (t->ops.event)
        t->ops.event(t->ops.user, ev, 1);
}

/* Outstanding write i, 0 the oldest. */
static inline trbu_wr *trbu_wq_at(const trbu_t *t, uint32_t i)
{
    return &t->wq[(t->wq_head + i) % t->cfg.max_outstanding_writes];
}

/* Stop on trigger: a completed flush waits for its drain; trace arriving meanwhile is after
 * the flush, so it is discarded as once collection has stopped. */
static inline bool trbu_stopping(const trbu_t *t)
{
    return t->trg_wait && t->flush_tm == TRBU_TM_STOP;
}

/* What is due now: outstanding writes, a flush completing, an asynchronous External abort. */
static inline void trbu_process_due(trbu_t *t)
{
    if (t->wq_n || t->flush_pending || t->ea_pending)
        trbu_process_due_slow(t);       /* else the common case: nothing scheduled */
}

/* TRBIRQ follows the registers (trbu_irq_level(), trbu_route.c). */
static inline void trbu_update_outputs(trbu_t *t)
{
    bool lvl = trbu_irq_level(t);
    if (lvl != t->irq_level)
        trbu_irq_changed(t, lvl);
}

static inline uint64_t *trbu_sr(trbu_t *t, unsigned el)
{
    return &t->vals[el == 3 ? TRBU_SLOT_SR3 : el == 2 ? TRBU_SLOT_SR2 : TRBU_SLOT_SR1];
}
static inline uint64_t trbu_sr_get(const trbu_t *t, unsigned el)
{
    return t->vals[el == 3 ? TRBU_SLOT_SR3 : el == 2 ? TRBU_SLOT_SR2 : TRBU_SLOT_SR1];
}

/* ELIsInHost(EL2): EL2 implemented with HCR_EL2.E2H == 1. */
bool trbu_el2_in_host(const trbu_t *t);

#endif
