/* SPDX-License-Identifier: Apache-2.0 */
/* trbu.h: public C API of the Trace Buffer Unit (FEAT_TRBE, seed 004 = Arm ARM D6.5). */
#ifndef ARMPROF_TRBU_H
#define ARMPROF_TRBU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "armprof/armprof.h"
#include "armprof/sysreg.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct trbu trbu_t;

/* TRBE register encodings (REGISTERS.md). */
#define TRBU_TRBLIMITR_EL1 ARMPROF_SYSREG(3, 0, 9, 11, 0)
#define TRBU_TRBPTR_EL1 ARMPROF_SYSREG(3, 0, 9, 11, 1)
#define TRBU_TRBBASER_EL1 ARMPROF_SYSREG(3, 0, 9, 11, 2)
#define TRBU_TRBSR_EL1 ARMPROF_SYSREG(3, 0, 9, 11, 3)
#define TRBU_TRBMAR_EL1 ARMPROF_SYSREG(3, 0, 9, 11, 4)
#define TRBU_TRBTRG_EL1 ARMPROF_SYSREG(3, 0, 9, 11, 6)
#define TRBU_TRBIDR_EL1 ARMPROF_SYSREG(3, 0, 9, 11, 7)
#define TRBU_TRBSR_EL2 ARMPROF_SYSREG(3, 4, 9, 11, 3)   /* FEAT_TRBE_EXC */
#define TRBU_TRBSR_EL3 ARMPROF_SYSREG(3, 6, 9, 11, 3)   /* FEAT_TRBE_EXC */
#define TRBU_TRBSR_EL12 ARMPROF_SYSREG(3, 5, 9, 11, 3)  /* FEAT_TRBE_EXC with FEAT_VHE: TRBSR_EL1 */

/* Register fields: armprof/sysreg.h (TRBLIMITR_EL1_E, TRBSR_EL1_EC, TRBIDR_EL1_Align, ...), as
 * masks for ap_field_get / ap_field_prep. TRBSR_<field> names the field of TRBSR_EL1, TRBSR_EL2
 * and TRBSR_EL3 alike (the three share one layout). */
#define TRBSR_MSS2          TRBSR_EL1_MSS2
#define TRBSR_TopLevel      TRBSR_EL1_TopLevel     /* MSS2 bit 13, as ESR_ELx.ISS2 */
#define TRBSR_AssuredOnly   TRBSR_EL1_AssuredOnly  /* MSS2 bit 12, as ESR_ELx.ISS2 */
#define TRBSR_EC            TRBSR_EL1_EC
#define TRBSR_DAT           TRBSR_EL1_DAT
#define TRBSR_IRQ           TRBSR_EL1_IRQ
#define TRBSR_TRG           TRBSR_EL1_TRG
#define TRBSR_WRAP          TRBSR_EL1_WRAP
#define TRBSR_EA            TRBSR_EL1_EA
#define TRBSR_S             TRBSR_EL1_S
#define TRBSR_MSS           TRBSR_EL1_MSS
#define TRBSR_BSC           TRBSR_EL1_BSC          /* MSS[5:0] for EC 0x00 */
#define TRBSR_FSC           TRBSR_EL1_FSC          /* MSS[5:0] for EC 0x1E / 0x24 / 0x25 */

/* TRBLIMITR_EL1.FM and .TM encodings. */
enum { TRBU_FM_FILL = 0, TRBU_FM_WRAP = 1, TRBU_FM_CIRCULAR = 3 };
enum { TRBU_TM_STOP = 0, TRBU_TM_IRQ = 1, TRBU_TM_IGNORE = 3 };
/* TRBSR_ELx.BSC values (EC 0x00). */
enum { TRBU_BSC_NOT_FILLED = 0x0, TRBU_BSC_FILLED = 0x1, TRBU_BSC_TRIGGER = 0x2 };
/* TRBSR_ELx.MSS of the unit's own IMPLEMENTATION DEFINED event for a programming error (EC 0x1F). */
#define TRBU_IMPDEF_MSS_BAD_POINTERS 0x0001u

/*
 * What happens to an External abort on a write to the trace buffer (D6.5.5, RGQWBF). The choice
 * is made separately for an abort on the write itself and for an abort on a translation table
 * walk / update / GPT walk.
 */
typedef enum trbu_ea_policy {
    TRBU_EA_IGNORE = 0,      /* D6.5.5.1: as if the write completed; TRBSR unchanged */
    TRBU_EA_SERROR = 1,      /* D6.5.5.2: an SError to the host; TRBSR unchanged */
    TRBU_EA_MMU_FAULT = 2,   /* D6.5.5.3: walk / update / GPT walk aborts only: a synchronous MMU fault */
    TRBU_EA_REPORT = 3       /* D6.5.5.4: reported to the unit (not permitted with Armv9.3) */
} trbu_ea_policy;

/* What the unit does when the pointers break the programming rules (TRBPTR_EL1 outside
 * [TRBBASER_EL1, LIMIT), or LIMIT <= BASE): UNPREDICTABLE behaviour of the PE (D6.5). */
typedef enum trbu_bad_ptr_policy {
    TRBU_BADPTR_IMPDEF_EVENT = 0, /* an IMPLEMENTATION DEFINED management event, EC 0x1F,
                                   * MSS = TRBU_IMPDEF_MSS_BAD_POINTERS, nothing written */
    TRBU_BADPTR_DISCARD = 1       /* trace silently discarded */
} trbu_bad_ptr_policy;

/* Configuration: the ID register fields, features and IMPLEMENTATION DEFINED choices
 * (docs/implementation-defined.md lists every choice with its spec reference). */
typedef struct trbu_config {
    /* TRBIDR_EL1 */
    uint8_t align;             /* Align, 0 .. 11: the internal buffer and write unit is 2^Align bytes */
    bool flag_update;          /* F: hardware Access flag / dirty state update */
    /* Features */
    bool feat_trbe_exc;        /* TRBSR_EL2/EL3, event routing, TRBE Profiling exception */
    bool feat_trbe_ext;        /* TRBLIMITR_EL1.XE implemented (stored only: no External mode) */
    bool feat_mss2;            /* TRBSR_ELx.MSS2 {TopLevel, AssuredOnly} (FEAT_THE / FEAT_S2POE) */
    bool armv9p3;              /* Armv9.3: External aborts are never reported to the unit (IFRNZK) */
    /* IMPLEMENTATION DEFINED / CONSTRAINED UNPREDICTABLE choices */
    trbu_ea_policy ea_write;   /* External abort on the buffer write itself (not MMU_FAULT) */
    trbu_ea_policy ea_walk;    /* External abort on a walk, table update or GPT walk */
    bool ea_async;             /* TRBU_EA_REPORT: handled asynchronously (else synchronously) */
    bool walk_ea_sets_ea;      /* TRBU_EA_MMU_FAULT: TRBSR_ELx.EA set to 1 (else unchanged), RFSPBK */
    bool trig_over_decrement;  /* RQFGNQ: bytes already in the internal buffer at the Detected
                                * Trigger also decrement the Trigger Counter when written */
    bool misaligned_ptr_fault; /* a write at a TRBPTR_EL1 not aligned to 2^Align: Alignment fault */
    trbu_bad_ptr_policy bad_ptr;
    bool drain_pad;            /* a drained partial unit is padded to 2^Align with pad_byte */
    uint8_t pad_byte;          /* 0x70 is the ETE Ignore packet */
    bool disable_drains;       /* TRBLIMITR_EL1.E 1->0 writes the internal buffer (else it is lost) */
    /* Timing and micro-architecture */
    uint32_t flush_cycles;     /* trace unit flush latency when no flush hook is installed */
    uint32_t ea_async_cycles;  /* delay before an asynchronous External abort is reported */
    uint32_t write_granule;    /* merged writes never cross a multiple of this (page size) */
    uint32_t max_burst;        /* largest merged write through the memory port, bytes */
    uint32_t max_outstanding_writes; /* writes issued but not yet accepted by memory (1 .. 1024) */
    uint8_t pe_index;          /* reported in armprof_regime.pe */
} trbu_config;

/* A sensible default: Align 6 (64-byte unit), F=0, FEAT_TRBE_EXC off, External aborts on the
 * write reported synchronously (pre-Armv9.3), walk aborts as MMU faults, flush in 16 cycles. */
void trbu_config_default(trbu_config *cfg);
/* Checks a configuration; on failure `why` (if not NULL) names the field and the rule. */
armprof_err trbu_config_validate(const trbu_config *cfg, char *why, size_t whylen);

armprof_err trbu_open(const trbu_config *cfg, const armprof_host_ops *ops, trbu_t **out);
void trbu_close(trbu_t *t);
/* Warm reset: registers to their reset values (TRBLIMITR_EL1.E = 0), internal buffer emptied. */
void trbu_reset(trbu_t *t);
const trbu_config *trbu_get_config(const trbu_t *t);

/* The PE context: Exception level, Security state, MDCR/SCR/HCR/TRFCR controls. */
armprof_err trbu_set_pe_context(trbu_t *t, const armprof_pe_ctx *ctx);
const armprof_pe_ctx *trbu_get_pe_context(const trbu_t *t);

/* MRS / MSR from the current PE context, with the access checks (UNDEFINED / traps / NV2
 * redirection). An MSR to the read-only TRBIDR_EL1 is ARMPROF_ERR_UNDEFINED (no MSR form). */
armprof_err trbu_reg_read(trbu_t *t, uint32_t enc, uint64_t *val);
armprof_err trbu_reg_write(trbu_t *t, uint32_t enc, uint64_t val);
/* The access checks alone: exactly what trbu_reg_read() (is_write false) or trbu_reg_write()
 * (is_write true) would return from the current PE context, other than for a NULL val, with
 * no effect (for a host that raises the exception before the access, QEMU's accessfn). */
armprof_err trbu_reg_check(const trbu_t *t, uint32_t enc, bool is_write);
/* Debugger / test view: the stored value with no access check and no side effect. */
armprof_err trbu_reg_peek(const trbu_t *t, uint32_t enc, uint64_t *val);

typedef struct trbu_reg_info {
    const char *name;
    uint32_t enc;
    uint64_t reset;           /* reset value (TRBIDR_EL1: from the configuration) */
    uint64_t res0;            /* effective RES0 mask for this configuration */
    uint64_t ro;              /* read-only bits */
    bool read_only;           /* ID register */
    bool present;             /* implemented in this configuration (TRBSR_EL2/EL3/EL12 need FEAT_TRBE_EXC) */
    bool alias;               /* another name of a register (TRBSR_EL12 names TRBSR_EL1) */
} trbu_reg_info;
size_t trbu_reg_count(const trbu_t *t);
armprof_err trbu_reg_info_at(const trbu_t *t, size_t index, trbu_reg_info *info);

/* ----- Outputs the host CPU model reads ----------------------------------------------------- */

/* TRBIRQ (RVSCDV): TRBSR_EL1.IRQ while the interrupt request is enabled, else LOW. */
bool trbu_irq_level(const trbu_t *t);

/* The TRBE Profiling exception (RMFMXQ, Tables D6-8 .. D6-10) as seen from the current EL. */
typedef enum trbu_exc_outcome {
    TRBU_EXC_NONE = 0,        /* disabled (or not pending) */
    TRBU_EXC_TAKEN,           /* enabled, unmasked: taken to target_el */
    TRBU_EXC_MASKED_PM,       /* enabled, masked by PSTATE.PM ("B"): remains pending */
    TRBU_EXC_MASKED           /* enabled, masked whatever PSTATE.PM ("C"): remains pending */
} trbu_exc_outcome;
typedef struct trbu_exc_state {
    bool pending;             /* enabled and pending */
    uint8_t target_el;        /* 1, 2 or 3 when pending */
    trbu_exc_outcome outcome;
} trbu_exc_state;
void trbu_exception_state(const trbu_t *t, trbu_exc_state *st);

/* TraceBufferEnabled(): TRBLIMITR_EL1.E and self-hosted trace; with the owning regime. */
bool trbu_buffer_enabled(const trbu_t *t, armprof_regime *regime);
/* Collection stopped: some TRBSR_ELx.S is 1. */
bool trbu_collection_stopped(const trbu_t *t);

/* The Exception level (1..3) whose TRBSR records a management event of this kind (RBNQRP). */
typedef enum trbu_event_kind {
    TRBU_EVK_OTHER = 0,       /* EC 0x00 (buffer full, wrap, trigger, TRG) and EC 0x1F */
    TRBU_EVK_S1_GPF, TRBU_EVK_S1_EA, TRBU_EVK_S1_OTHER,
    TRBU_EVK_S2_GPF, TRBU_EVK_S2_EA, TRBU_EVK_S2_OTHER,
    TRBU_EVK_GPC,             /* EC 0x1E: GPC fault other than a GPF */
    TRBU_EVK__COUNT
} trbu_event_kind;
uint8_t trbu_event_route(const trbu_t *t, trbu_event_kind kind);

/* ----- Inputs from the trace unit ----------------------------------------------------------- */

/* The trace unit hands `len` bytes to the unit at the current time. Returns the bytes accepted.
 * Of the rest, those the unit discarded are counted in trbu_stats.discarded[] (unit disabled,
 * collection stopped); with memory timing the unit may also refuse bytes (back-pressure: its
 * internal buffer is full behind max_outstanding_writes outstanding writes): those are counted
 * in trbu_stats.bytes_refused and stay with the trace unit, which hands them over again later
 * (or drops them as its own overflow). A host that never answers with latency or PENDING never
 * sees a refusal. The accepted bytes are always the first ones of `data`. */
size_t trbu_trace_bytes(trbu_t *t, const uint8_t *data, size_t len);
/* A Detected Trigger from the trace unit, between the bytes already handed over and the next. */
void trbu_trigger(trbu_t *t);

/* A trace unit flush request (RXRRWP). With a hook installed, the host's trace unit may hand
 * over more bytes and then calls trbu_flush_complete(); without one, the flush completes
 * cfg.flush_cycles after it was requested. The hook runs inside the unit (from a write that
 * made the Trigger Counter reach zero, or from trbu_trigger): it must only note the request and
 * not call back into the unit. */
typedef void (*trbu_flush_fn)(void *user);
void trbu_set_flush_hook(trbu_t *t, trbu_flush_fn fn, void *user);
void trbu_flush_complete(trbu_t *t);
bool trbu_flush_pending(const trbu_t *t);

/* An IMPLEMENTATION DEFINED management event (RCHNSL): EC 0x1F with this MSS. */
void trbu_impdef_event(trbu_t *t, uint16_t mss);

/* TSB CSYNC: every byte the unit accepted is written to memory (or reported lost) before it
 * returns; a pending asynchronous External abort is reported. */
void trbu_tsb_csync(trbu_t *t);

/* ----- Time ----------------------------------------------------------------------------------- */

void trbu_advance(trbu_t *t, uint64_t cycles);
/* Cycles until something changes by itself (a flush completes, an External abort is
 * reported), or UINT64_MAX. */
uint64_t trbu_cycles_to_next_event(const trbu_t *t);
uint64_t trbu_now(const trbu_t *t);
/* Cycle-level step: `len` trace bytes (and a Detected Trigger after them when `trigger`) arrive
 * in this cycle, then one clock edge. Same results as trbu_trace_bytes + trbu_advance(1). */
size_t trbu_cycle(trbu_t *t, const uint8_t *data, size_t len, bool trigger);

/* ----- Observation ---------------------------------------------------------------------------- */

typedef enum trbu_discard_reason {
    TRBU_DISCARD_DISABLED = 0,   /* TraceBufferEnabled() false when the bytes arrived */
    TRBU_DISCARD_STOPPED,        /* collection stopped (TRBSR_ELx.S == 1) */
    TRBU_DISCARD_FAULT,          /* lost to a fault / External abort while being written */
    TRBU_DISCARD_BAD_PTR,        /* pointers break the programming rules */
    TRBU_DISCARD_DISABLE,        /* in the internal buffer when the unit was disabled */
    TRBU_DISCARD__COUNT
} trbu_discard_reason;
const char *trbu_discard_reason_name(trbu_discard_reason r);

/* Every byte is accounted for: bytes_in + bytes_padded == bytes_written + bytes_discarded +
 * bytes_refused + the bytes still in the internal buffer or in outstanding writes. Bytes whose External abort was ignored or signalled
 * as an SError count as written: the unit cannot tell them apart. */
typedef struct trbu_stats {
    uint64_t bytes_in;           /* handed over by the trace unit */
    uint64_t bytes_accepted;     /* taken into the internal buffer */
    uint64_t bytes_written;      /* written to memory (including padding) */
    uint64_t bytes_padded;       /* pad bytes added to drained partial units (cfg.drain_pad) */
    uint64_t bytes_discarded;    /* sum of discarded[] */
    uint64_t discarded[TRBU_DISCARD__COUNT];
    uint64_t port_writes;        /* calls to the memory port */
    uint64_t wraps;              /* TRB_WRAP events */
    uint64_t detected_triggers;
    uint64_t trigger_events;     /* TRB_TRIG events */
    uint64_t flushes;            /* trace unit flushes requested */
    uint64_t management_events;  /* TRBSR_ELx.IRQ set by the unit */
    uint64_t mgmt_by_el[4];      /* ... per TRBSR_ELx (index 1..3) */
    uint64_t buffer_full_events; /* Fill mode wrap with S set */
    uint64_t wrap_irq_events;    /* Wrap mode wrap (IRQ, collection continues) */
    uint64_t trigger_mgmt_events;/* Stop / IRQ on trigger after the flush */
    uint64_t fault_events;       /* Alignment / MMU faults (including walk aborts as MMU faults) */
    uint64_t ext_abort_events;   /* External aborts reported to the unit */
    uint64_t ext_aborts_ignored;
    uint64_t serrors;
    uint64_t impdef_events;      /* EC 0x1F */
    uint64_t tsb_csyncs;
    uint64_t irq_rises;          /* TRBIRQ LOW -> HIGH */
    /* Memory timing (armprof_mem_result.latency, ARMPROF_MEM_PENDING). */
    uint64_t buf_bytes_max;      /* high-water mark of the bytes the unit holds that memory has
                                  * not accepted: internal buffer + outstanding writes */
    uint64_t writer_stall_cycles;/* cycles the internal buffer held a unit to write but the writer
                                  * could not issue (max_outstanding_writes in flight) */
    uint64_t outstanding_writes_max;
    uint64_t write_latency_min;  /* cycles from issue to acceptance */
    uint64_t write_latency_max;
    uint64_t write_latency_sum;  /* mean = write_latency_sum / port_writes (accepted ones) */
    uint64_t bytes_refused;      /* back-pressure: handed over but not taken (left with the
                                  * trace unit; see trbu_trace_bytes) */
} trbu_stats;
void trbu_get_stats(const trbu_t *t, trbu_stats *st);

/* Asynchronous memory port (ARMPROF_MEM_PENDING): the answer to the oldest pending write, at
 * the unit's current time (trbu_advance() it there first); it takes effect after the writes
 * issued before it are accepted. ARMPROF_ERR_BUSY if no write is pending, ARMPROF_ERR_INVAL for
 * NULL or a PENDING / unknown status. Semantics of writes outstanding (TRBPTR_EL1, faults,
 * events, TSB CSYNC, checkpoints): docs/implementation-defined.md, TRBU memory timing. */
armprof_err trbu_mem_complete(trbu_t *t, const armprof_mem_result *res);
/* Writes issued to the memory port and not yet accepted (synchronous and pending ones). */
uint32_t trbu_writes_outstanding(const trbu_t *t);

/* ----- Checkpoints ---------------------------------------------------------------------------- */

armprof_err trbu_save(const trbu_t *t, uint8_t *buf, size_t cap, size_t *len);
armprof_err trbu_restore(trbu_t *t, const uint8_t *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* ARMPROF_TRBU_H */
