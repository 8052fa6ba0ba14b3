/* SPDX-License-Identifier: Apache-2.0 */
/* spu_internal.h: the SPU's state, register field masks and the functions its files share (one
 * block per file, see spu.c for which spec section each file implements); the small helpers on
 * the per-operation and per-edge paths are static inline here so that they inline into the file
 * that calls them (the record FIFO's push and drain, the writer's queues, the counter's common
 * step, in-flight slots). */
#ifndef ARMPROF_SPU_INTERNAL_H
#define ARMPROF_SPU_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "armprof/spu.h"
#include "armprof/bits.h"
#include "common/regtable.h"
#include "armprof/rng.h"

/* ---- Register fields (REGISTERS.md, seed 001 §4.3, seed 002) ---- */
#define PMSCR_PCT AP_GENMASK(7, 6)
#define PMSCR_PCT_BIT0 AP_BIT(6)
#define PMSCR_TS AP_BIT(5)
#define PMSCR_PA AP_BIT(4)
#define PMSCR_CX AP_BIT(3)
#define PMSCR_E1SPE AP_BIT(1) /* PMSCR_EL2.E2SPE at the same position */
#define PMSCR_E0SPE AP_BIT(0) /* PMSCR_EL2.E0HSPE at the same position */

#define PMSICR_ECOUNT AP_GENMASK(63, 56)
#define PMSICR_COUNT AP_GENMASK(31, 0)
#define PMSIRR_INTERVAL AP_GENMASK(31, 8)
#define PMSIRR_RND AP_BIT(0)

#define PMSFCR_ST AP_BIT(18)
#define PMSFCR_LD AP_BIT(17)
#define PMSFCR_B AP_BIT(16)
#define PMSFCR_FNE AP_BIT(3)
#define PMSFCR_FL AP_BIT(2)
#define PMSFCR_FT AP_BIT(1)
#define PMSFCR_FE AP_BIT(0)

/* The event bits CollectRecord() compares: E[63:48,31:24,15:12,7,5,3,1]. */
#define PMSEVFR_FILTERABLE \
    (AP_GENMASK(63, 48) | AP_GENMASK(31, 24) | AP_GENMASK(15, 12) | AP_BIT(7) | AP_BIT(5) | \
     AP_BIT(3) | AP_BIT(1))

#define PMSIDR_PBT AP_BIT(24)
#define PMSIDR_FORMAT AP_GENMASK(23, 20)
#define PMSIDR_COUNTSIZE AP_GENMASK(19, 16)
#define PMSIDR_MAXSIZE AP_GENMASK(15, 12)
#define PMSIDR_INTERVAL AP_GENMASK(11, 8)
#define PMSIDR_FNE AP_BIT(6)
#define PMSIDR_ERND AP_BIT(5)
#define PMSIDR_LDS AP_BIT(4)
#define PMSIDR_ARCHINST AP_BIT(3)
#define PMSIDR_FL AP_BIT(2)
#define PMSIDR_FT AP_BIT(1)
#define PMSIDR_FE AP_BIT(0)

#define PMBLIMITR_LIMIT AP_GENMASK(63, 12)
#define PMBLIMITR_PMFZ AP_BIT(5)
#define PMBLIMITR_FM AP_GENMASK(2, 1)
#define PMBLIMITR_E AP_BIT(0)
#define PMBLIMITR_FM_FILL 0x0
#define PMBLIMITR_FM_DISCARD 0x2

#define PMBSR_EC AP_GENMASK(31, 26)
#define PMBSR_DL AP_BIT(19)
#define PMBSR_EA AP_BIT(18)
#define PMBSR_S AP_BIT(17)
#define PMBSR_COLL AP_BIT(16)
#define PMBSR_MSS AP_GENMASK(15, 0)
#define PMBSR_FSC AP_GENMASK(5, 0) /* BSC in the same place */
#define PMBSR_BSC_FILLED 0x1

#define PMBMAR_SH AP_GENMASK(9, 8)
#define PMBMAR_ATTR AP_GENMASK(7, 0)

#define PMBIDR_EA AP_GENMASK(11, 8)
#define PMBIDR_F AP_BIT(5)
#define PMBIDR_P AP_BIT(4)
#define PMBIDR_ALIGN AP_GENMASK(3, 0)

/* Storage slots of the register table. */
enum {
    R_PMSCR_EL1,
    R_PMSCR_EL2,
    R_PMSNEVFR_EL1,
    R_PMSICR_EL1,
    R_PMSIRR_EL1,
    R_PMSFCR_EL1,
    R_PMSEVFR_EL1,
    R_PMSLATFR_EL1,
    R_PMSIDR_EL1,
    R_PMBLIMITR_EL1,
    R_PMBPTR_EL1,
    R_PMBSR_EL1,
    R_PMBMAR_EL1,
    R_PMBIDR_EL1,
    R__COUNT
};

/* A sampled operation holding an in-flight slot. */
typedef struct spu_slot {
    uint64_t complete_at;     /* cycle at which the op completes and its record is captured */
    uint64_t seq;             /* sampling order */
    bool used;
    bool completed;           /* record captured, waiting for FIFO space */
    bool collect;             /* passed CollectRecord() (decided at completion) */
    uint8_t ts_kind;          /* 0 none, 1 virtual, 2 physical (CollectTimeStamp at sampling) */
    uint16_t len;             /* encoded length once completed */
    spe_record rec;
    uint8_t optype;           /* OpType for CollectRecord */
    uint32_t total_lat;       /* unsaturated, for the latency filter */
    uint64_t events;          /* unmasked events for the event filter */
} spu_slot;

/* One record in the FIFO ring. */
typedef struct spu_fifo_rec {
    uint32_t off;             /* offset of its bytes in fifo_data */
    uint16_t len;
} spu_fifo_rec;

/* A write issued to the memory port and not yet accepted (answers are taken in issue order). */
typedef struct spu_wr {
    uint64_t addr;
    uint64_t issue_at;
    uint64_t done_at;         /* when its answer takes effect; UINT64_MAX: ARMPROF_MEM_PENDING */
    armprof_mem_result res;   /* the answer (synchronous form, or given by spu_mem_complete) */
    uint32_t len;
    bool ignore;              /* issued before a management event: its answer has no effect */
} spu_wr;

/* A record the writer has placed in the buffer and not yet retired (written or discarded). */
typedef struct spu_wrec {
    uint64_t start, end;      /* buffer addresses [start, end) */
    bool aborted;             /* an ignored External abort hit it: already counted discarded */
} spu_wrec;

struct spu {
    spu_config cfg;
    armprof_host_ops ops;
    armprof_pe_ctx ctx;
    ap_regfile rf;
    uint64_t regs[R__COUNT];

    /* Derived state, recomputed by spu_reevaluate() after any register or context change. */
    bool prof_enabled;        /* StatisticalProfilingEnabled() */
    bool buf_enabled;         /* ProfilingBufferEnabled() */
    armprof_regime regime;    /* owning translation regime when buf_enabled */
    bool irq;                 /* last level driven on PMBIRQ */

    /* Sample interval counter (the COUNT/ECOUNT values live in regs[R_PMSICR_EL1]). */
    ap_rng rng;
    bool sample_pending;      /* sample_next_op: the next population op is sampled */

    /* Time. */
    uint64_t now;

    /* In-flight sampled operations. */
    spu_slot *slots;          /* a ring in sampling order: records enter the FIFO in that order */
    uint8_t *slot_bytes;      /* each slot's encoded record, 2^MaxSize bytes apiece (kept apart
                               * from the slots so the ring of headers stays small in cache) */
    uint64_t next_seq;
    uint32_t slot_head;       /* the oldest occupied slot */
    uint32_t inflight;
    uint64_t next_complete;   /* earliest complete_at of an incomplete slot, UINT64_MAX if none */
    uint64_t last_complete_at; /* complete_at of the youngest slot */
    bool complete_in_order;   /* complete_at never decreases from the oldest slot to the youngest:
                               * they complete in sampling order (derived; false is always safe) */
    uint8_t slot_shift;       /* max_size: each slot's record bytes are 1 << slot_shift apart */
    spe_format_cfg fmt;       /* the record layout PMSIDR_EL1 and PMBIDR_EL1 describe */

    /* Record FIFO: a byte ring plus a ring of record descriptors. */
    uint8_t *fifo_data;
    uint32_t ring_bytes;      /* size of fifo_data: fifo_bytes + 2^MaxSize */
    uint32_t fifo_head;       /* byte offset of the oldest byte */
    uint32_t fifo_level;      /* bytes held (including the part of the head already drained) */
    spu_fifo_rec *fifo_recs;
    uint32_t fifo_nrec_cap;
    uint32_t fifo_rhead, fifo_nrec;
    uint32_t head_drained;    /* bytes of the head record already drained */
    bool drain_stall;         /* host input: the buffer writer takes no bytes (spu_set_drain_stall) */
    uint64_t drained_total;

    /* The buffer writer with memory timing (armprof_mem_result.latency, ARMPROF_MEM_PENDING).
     * Placed records occupy [PMBPTR_EL1 .. wptr) of the buffer: bytes below iaddr are issued to
     * the memory port, the rest wait in wbuf (indexed by address). Functional runs (every
     * answer at once) never leave anything here between calls. */
    uint64_t wptr;            /* address after the last placed record */
    uint64_t iaddr;           /* first placed byte not yet issued */
    uint8_t *wbuf;            /* unissued bytes, at address & wbuf_mask */
    uint8_t *wtmp;            /* one write's bytes when they wrap around wbuf */
    uint32_t wbuf_mask;
    spu_wr *wq;               /* issued writes, oldest first: a ring of max_outstanding_writes */
    uint32_t wq_head, wq_n;
    uint32_t wq_ignored;      /* the oldest wq_ignored writes are ignored ones */
    uint32_t wq_pending;      /* writes waiting for spu_mem_complete() */
    uint64_t next_done;       /* done_at of the oldest write when it is not pending, else MAX */
    spu_wrec *wr;             /* placed records, oldest first (a ring that grows) */
    uint32_t wr_cap, wr_head, wr_n;
    uint32_t wr_iss;          /* wr[wr_head + wr_iss] is the record holding iaddr */
    bool deferred;            /* a buffer full event waits for every earlier write (§3.5.2) */
    bool wblocked;            /* the writer takes no bytes: max_outstanding_writes or deferred */
    bool nodrain;             /* no bytes leave the FIFO at an edge: wblocked or drain_stall */
    uint64_t deferred_ptr;
    bool flush;               /* issue a partial block now (PSB CSYNC, buffer full) */
    uint64_t direct_writes;   /* writes of the functional path, counted into spu_stats lazily */
    uint64_t lvl_t;           /* the FIFO level has held since this cycle (level statistics) */
    uint8_t hist_shift;       /* log2 of the bin width of spu_stats.fifo_hist */

    /* Write-pointer bookkeeping for RHXSYK / RHLXGD. */
    uint64_t unit_ptr;        /* PMBPTR_EL1 as the unit last left it */
    bool ptr_checked;         /* the current PMBPTR_EL1 value passed the checks */

    /* What every sampled record takes from the PE context and PMSCR_EL1/EL2 (§3.3.1), worked
     * out by spu_reevaluate() after each change of them instead of once per sample. */
    struct {
        bool context1, context2;   /* CollectContext(): CONTEXTIDR_EL1 / _EL2 packets */
        bool pa;                   /* CollectPhysicalAddress() */
        bool pc_ns;                /* the PE is not in Secure state */
        uint8_t ts_kind;           /* CollectTimeStamp(): 0 none, 1 virtual, 2 physical */
        uint16_t count_max;        /* saturation value of the CountSize counters */
    } samp;

    spu_stats st;
    spu_record_fn rec_hook;
    void *rec_hook_user;
    uint8_t scratch[2048];
    struct spu_ext *ext;      /* external sampler state (spu_set_external_sampler), or NULL */
};

/* spu_regs.c */
extern const ap_regdef spu_regdefs[];
extern const size_t spu_regdefs_count;
uint64_t spu_pmsidr_value(const spu_config *cfg);
uint64_t spu_pmbidr_value(const spu_t *spu);
bool spu_reg_present(const spu_config *cfg, int slot);

static inline uint64_t spu_reg(const spu_t *spu, int slot) { return spu->regs[slot]; }

/* PMBLIMITR_EL1.FM selects Discard mode (0b10 with FEAT_SPEv1p2). §4.3.2: a reserved FM value
 * (0b01, 0b11, and 0b10 without FEAT_SPEv1p2) behaves as a defined value, here 0b00 (fill), for
 * everything other than a direct read, which returns the value written. */
static inline bool spu_discard_mode(const spu_t *spu)
{
    return spu->cfg.feat_spev1p2 &&
           ap_field_get(PMBLIMITR_FM, spu->regs[R_PMBLIMITR_EL1]) == PMBLIMITR_FM_DISCARD;
}

/* spu_config.c */
uint64_t spu_cfg_hash(const spu_config *c);
uint32_t spu_fifo_ring_bytes(const spu_config *c);
uint32_t spu_wbuf_bytes(const spu_config *c);
uint32_t spu_wtmp_bytes(const spu_config *c);

/* enable.c */
void spu_reevaluate(spu_t *spu);
/* ProfilingBufferOwner(): owning Security state and Exception level; false when reserved. */
bool spu_buffer_owner(const spu_t *spu, armprof_security *ss, uint8_t *el);
bool spu_eval_buffer_enabled(const spu_t *spu, armprof_regime *rg);
bool spu_eval_profiling_enabled(const spu_t *spu);

/* sample_counter.c */
void spu_counter_on_enable(spu_t *spu);
spu_op_result spu_retire_tick(spu_t *spu, const spu_op *op);
spu_op_result spu_collide(spu_t *spu);

/* filter.c */
/* Operation types of the type filter: an atomic counts as a store, and as a load when it
 * returns a value to a register (§3.2.2, PMSFCR_EL1.{LD,ST}). */
enum { OPTYPE_OTHER, OPTYPE_LOAD, OPTYPE_STORE, OPTYPE_BRANCH, OPTYPE_ATOMIC, OPTYPE_ATOMIC_RET };
bool spu_collect_record(const spu_t *spu, uint64_t events, uint32_t total_lat, int optype);

/* collection.c */
void spu_sample_attrs_update(spu_t *spu);
void spu_build_record(const spu_t *spu, const spu_op *op, spu_slot *s);
spu_slot *spu_admit(spu_t *spu, const spu_op *op);

/* inflight.c */
void spu_accept_completed(spu_t *spu);
void spu_recompute_next_complete(spu_t *spu);
void spu_complete_inflight(spu_t *spu);

/* record_fifo.c */
void spu_fifo_clear(spu_t *spu);
void spu_level_run(spu_t *spu, uint64_t l0, uint64_t r, uint64_t q);

/* buffer_writer.c */
void spu_writer_run(spu_t *spu, bool tail_ok);
void spu_writer_retire_below(spu_t *spu, uint64_t bound);
/* The head record of the FIFO has fully drained: hand it to the buffer writer. */
void spu_fifo_pop_write(spu_t *spu);

/* mgmt_event.c */
typedef enum { MGMT_FULL, MGMT_FAULT, MGMT_EXT_ABORT, MGMT_OTHER } mgmt_kind;
void spu_set_irq(spu_t *spu);
void spu_mgmt_event(spu_t *spu, mgmt_kind kind, uint8_t ec, uint8_t mss, bool dl, bool ea,
                    uint64_t ptr);
void spu_writer_failed(spu_t *spu, const spu_wr *e);

/* spu_ext.c */
void spu_ext_accept(spu_t *spu);
/* PSB CSYNC completed a sampled operation due at `due` whose record (len bytes) the sampler
 * takes into its FIFO at that time. */
void spu_ext_early(spu_t *spu, uint64_t due, uint32_t len);

/* ---- Small and hot: inline in every file that uses them ---- */

/* PMU events (seed 001 §2.6). */
static inline void emit(spu_t *spu, uint16_t ev, uint64_t n)
{
    if (spu->ops.event && n)
        spu->ops.event(spu->ops.user, ev, n);
}

/* A record leaves with no write: counted by reason. */
static inline void discard(spu_t *spu, spu_discard_reason why, uint64_t n)
{
    spu->st.discarded[why] += n;
    spu->st.records_discarded += n;
}

/* In-flight slots (inflight.c). */
static inline spu_slot *slot_at(spu_t *spu, uint32_t k)
{
    uint32_t i = spu->slot_head + k;
    if (i >= spu->cfg.max_inflight)
        i -= spu->cfg.max_inflight;
    return &spu->slots[i];
}

static inline uint8_t *slot_bytes(spu_t *spu, const spu_slot *s)
{
    return spu->slot_bytes + ((size_t)(s - spu->slots) << spu->slot_shift);
}

/* The record ends in a Timestamp packet: CollectTimeStamp() chose a counter at sampling and
 * the timer is on (or the model is configured to keep the packet with the timer off). */
static inline bool record_has_timestamp(const spu_t *spu, const spu_slot *s)
{
    return s->ts_kind && (spu->ctx.timer_enabled || spu->cfg.ts_when_timer_off);
}

/* The Timestamp packet's value (collection.c, CollectTimeStamp()). */
static inline uint64_t timestamp_now(const spu_t *spu, uint8_t kind)
{
    uint64_t phys = spu->now / spu->cfg.cycles_per_tick;
    if (kind == 2 || spu->ctx.cntvoff_zero)
        return phys;
    return phys - spu->ctx.cntvoff;
}

/* The counter step of most operations (sample_counter.c): COUNT != 0, no ECOUNT running and no
 * sample pending, so the full step would only decrement COUNT. False (nothing changed) otherwise. */
static inline bool counter_step_plain(spu_t *spu)
{
    uint64_t icr = spu->regs[R_PMSICR_EL1];
    if (spu->sample_pending || !ap_field_get(PMSICR_COUNT, icr) ||
        (spu->cfg.ernd && ap_field_get(PMSICR_ECOUNT, icr)))
        return false;
    spu->regs[R_PMSICR_EL1] = icr - 1; /* COUNT is bits [31:0] and not zero: no borrow */
    return true;
}

/* The buffer writer's queues (buffer_writer.c). */
static inline spu_wr *wq_at(spu_t *spu, uint32_t k)
{
    uint32_t i = spu->wq_head + k;
    if (i >= spu->cfg.max_outstanding_writes)
        i -= spu->cfg.max_outstanding_writes;
    return &spu->wq[i];
}

static inline spu_wrec *wrec_at(spu_t *spu, uint32_t k)
{
    uint32_t i = spu->wr_head + k;
    if (i >= spu->wr_cap)
        i -= spu->wr_cap;
    return &spu->wr[i];
}

static inline bool writer_ready(const spu_t *spu) { return !spu->wblocked; }

/* After any change of wq_n or deferred. */
static inline void writer_blocked_update(spu_t *spu)
{
    spu->wblocked = spu->wq_n >= spu->cfg.max_outstanding_writes || spu->deferred;
    spu->nodrain = spu->wblocked || spu->drain_stall;
}

static inline void wq_next_done(spu_t *spu)
{
    spu->next_done = spu->wq_n ? spu->wq[spu->wq_head].done_at : UINT64_MAX;
}

/* The record FIFO (record_fifo.c) and its level statistics. */
static inline uint32_t hist_bin(const spu_t *spu, uint64_t level)
{
    uint64_t b = level >> spu->hist_shift;
    return b < SPU_FIFO_HIST_BINS ? (uint32_t)b : SPU_FIFO_HIST_BINS - 1;
}

/* The FIFO level statistics count, for each cycle, the level after its edge. The level holds
 * from lvl_t on: before it changes at `now` the cycles lvl_t .. now-1 are counted (a change
 * within the edge of cycle now only decides the level from now on). Cycles with an empty FIFO
 * are not counted here: bin 0 gets them in spu_get_stats() (the rest of spu_now()). */
static inline void level_account(const spu_t *spu, spu_stats *st)
{
    uint64_t d = spu->now - spu->lvl_t;
    st->fifo_byte_cycles += d * spu->fifo_level;
    st->fifo_hist[hist_bin(spu, spu->fifo_level)] += d;
}

static inline void level_touch(spu_t *spu)
{
    if (spu->lvl_t != spu->now) {
        if (spu->fifo_level)
            level_account(spu, &spu->st);
        spu->lvl_t = spu->now;
    }
}

static inline uint32_t ring_size(const spu_t *spu) { return spu->ring_bytes; }

/* Bytes of the FIFO ring in use (undrained bytes plus the drained part of the head record). */
static inline uint32_t fifo_used(const spu_t *spu) { return spu->fifo_level + spu->head_drained; }

/* A completed record enters the FIFO (inflight.c); false when it has no room for it. */
static inline bool fifo_push(spu_t *spu, const uint8_t *b, uint32_t len)
{
    if (spu->fifo_level + len > spu->cfg.fifo_bytes || spu->fifo_nrec == spu->fifo_nrec_cap)
        return false;
    uint32_t rs = ring_size(spu);
    uint32_t off = spu->fifo_head + fifo_used(spu);
    if (off >= rs)
        off -= rs;
    if (len <= rs - off) {
        memcpy(spu->fifo_data + off, b, len);
    } else {
        uint32_t first = rs - off;
        memcpy(spu->fifo_data + off, b, first);
        memcpy(spu->fifo_data, b + first, len - first);
    }
    uint32_t idx = spu->fifo_rhead + spu->fifo_nrec;
    if (idx >= spu->fifo_nrec_cap)
        idx -= spu->fifo_nrec_cap;
    spu->fifo_recs[idx].off = off;
    spu->fifo_recs[idx].len = (uint16_t)len;
    spu->fifo_nrec++;
    level_touch(spu);
    spu->fifo_level += len;
    if (spu->fifo_level > spu->st.fifo_bytes_max)
        spu->st.fifo_bytes_max = spu->fifo_level;
    return true;
}

/* Drain `bytes` (at most what the FIFO holds) and write every record that finishes. At an edge
 * the drain's `ready` is the writer's at the start of the edge (a valid/ready handshake): the
 * whole budget leaves even if the writer fills up on the way (`stop` false); PSB CSYNC stops
 * when it is full. */
static inline __attribute__((always_inline)) void fifo_drain_(spu_t *spu, uint64_t bytes, bool stop)
{
    level_touch(spu);
    while (bytes && spu->fifo_nrec && (!stop || writer_ready(spu))) {
        uint32_t left = spu->fifo_recs[spu->fifo_rhead].len - spu->head_drained;
        uint32_t n = bytes < left ? (uint32_t)bytes : left;
        spu->head_drained += n;
        spu->fifo_level -= n;
        spu->drained_total += n;
        bytes -= n;
        if (n == left)
            spu_fifo_pop_write(spu);
    }
}

static inline void fifo_drain_edge(spu_t *spu, uint64_t bytes) { fifo_drain_(spu, bytes, false); }
static inline void fifo_drain_csync(spu_t *spu, uint64_t bytes) { fifo_drain_(spu, bytes, true); }
#define fifo_drain(spu, bytes, stop) ((stop) ? fifo_drain_csync(spu, bytes) : fifo_drain_edge(spu, bytes))

#endif
