/* SPDX-License-Identifier: Apache-2.0 */
/* spu.h: public C API of the Statistical Profiling Unit and its Profiling Buffer (SPE). */
#ifndef ARMPROF_SPU_H
#define ARMPROF_SPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "armprof/armprof.h"
#include "armprof/spe.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spu spu_t;

/* SPE register encodings (REGISTERS.md). */
#define SPU_PMSCR_EL1 ARMPROF_SYSREG(3, 0, 9, 9, 0)
#define SPU_PMSCR_EL12 ARMPROF_SYSREG(3, 5, 9, 9, 0)
#define SPU_PMSCR_EL2 ARMPROF_SYSREG(3, 4, 9, 9, 0)
#define SPU_PMSNEVFR_EL1 ARMPROF_SYSREG(3, 0, 9, 9, 1)
#define SPU_PMSICR_EL1 ARMPROF_SYSREG(3, 0, 9, 9, 2)
#define SPU_PMSIRR_EL1 ARMPROF_SYSREG(3, 0, 9, 9, 3)
#define SPU_PMSFCR_EL1 ARMPROF_SYSREG(3, 0, 9, 9, 4)
#define SPU_PMSEVFR_EL1 ARMPROF_SYSREG(3, 0, 9, 9, 5)
#define SPU_PMSLATFR_EL1 ARMPROF_SYSREG(3, 0, 9, 9, 6)
#define SPU_PMSIDR_EL1 ARMPROF_SYSREG(3, 0, 9, 9, 7)
#define SPU_PMBLIMITR_EL1 ARMPROF_SYSREG(3, 0, 9, 10, 0)
#define SPU_PMBPTR_EL1 ARMPROF_SYSREG(3, 0, 9, 10, 1)
#define SPU_PMBSR_EL1 ARMPROF_SYSREG(3, 0, 9, 10, 3)
#define SPU_PMBMAR_EL1 ARMPROF_SYSREG(3, 0, 9, 10, 5)
#define SPU_PMBIDR_EL1 ARMPROF_SYSREG(3, 0, 9, 10, 7)

/* How an External abort on a buffer write is handled (PMBIDR_EL1.EA, 3.5.4). */
typedef enum spu_ea_policy {
    SPU_EA_REPORT = 0,       /* a Profiling Buffer management event (PMBIDR_EL1.EA = 0b0000) */
    SPU_EA_IGNORE = 1,       /* ignored: the write is dropped, no event (PMBIDR_EL1.EA = 0b0001) */
    SPU_EA_SERROR = 2        /* an SError to the host, PMBSR unchanged (PMBIDR_EL1.EA = 0b0010) */
} spu_ea_policy;

/* What the unit does when software breaks RHXSYK / RHLXGD (RPGGHS lets it choose). */
typedef enum spu_ptr_policy {
    SPU_PTR_BUFFER_FULL = 0, /* a buffer full management event (S=1, EC=0, BSC=1), no write */
    SPU_PTR_DISCARD = 1,     /* silently discard all profiling data */
    SPU_PTR_WRITE = 2        /* write as asked (the limit is still never crossed) */
} spu_ptr_policy;

/* Configuration: the ID register fields, features and IMPLEMENTATION DEFINED choices. */
typedef struct spu_config {
    /* PMSIDR_EL1 */
    uint8_t max_size;          /* MaxSize, 4 (16 B) .. 11 (2 KiB) */
    uint8_t count_size;        /* CountSize, 2 (12-bit) or 3 (16-bit) saturating */
    uint8_t interval;          /* Interval encoding: 0, 2..8 (256 .. 4096 minimum interval) */
    uint8_t format;            /* FORMAT [23:20] */
    bool ernd;                 /* ERnd: secondary counter ECOUNT with RND */
    bool lds;                  /* LDS: Data Source packet */
    bool arch_inst;            /* ArchInst: architecture instructions (else micro-ops) */
    bool fe, ft, fl;           /* filtering by event / type / latency implemented */
    bool fne;                  /* FnE (FEAT_SPEv1p2) */
    bool pbt;                  /* PBT [24] */
    /* PMBIDR_EL1 */
    uint8_t align;             /* Align, 0 .. 11: records padded to 2^Align bytes */
    bool flag_update;          /* F: hardware Access flag / dirty update */
    spu_ea_policy ea;          /* EA */
    /* Features */
    bool feat_spev1p2;         /* PMSNEVFR_EL1, FnE, PMBLIMITR_EL1.{PMFZ, FM=Discard} */
    bool feat_spe_nvm;         /* PMBLIMITR_EL1.nVM, PMBMAR_EL1 */
    bool feat_ecv;             /* PCT == 0b11 guest physical time */
    uint8_t nvm_bit;           /* bit of PMBLIMITR_EL1 holding nVM (seed 000 gives none; default 3) */
    uint8_t envm_bit;          /* bit of PMSCR_EL2 holding EnVM (seed 000 gives none; default 8) */
    /* IMPLEMENTATION DEFINED / CONSTRAINED UNPREDICTABLE choices (docs/implementation-defined.md) */
    uint32_t rng_seed;         /* seed of the xorshift32 generator (0 = AP_RNG_DEFAULT_SEED) */
    bool sample_next_op;       /* sample the op after the one at which the counter reached 0 */
    bool cu_fe_zero_discards;  /* FE==1 and PMSEVFR_EL1==0: records discarded (else all pass) */
    bool cu_ft_zero_discards;  /* FT==1 and {B,LD,ST}==0: records discarded (else per Table 4) */
    bool cu_fl_zero_discards;  /* FL==1 and MINLAT==0: records discarded (else all pass) */
    spu_ptr_policy ptr_policy; /* RPGGHS */
    bool ts_when_timer_off;    /* timer disabled: collect UNKNOWN (0) timestamp, else as if TS=0 */
    /* Micro-architecture */
    uint32_t max_inflight;     /* sampled operations in flight before a collision (>= 1) */
    uint32_t fifo_bytes;       /* record FIFO depth in bytes (>= 2^max_size) */
    uint32_t drain_bytes_per_cycle; /* record FIFO to memory bandwidth (>= 1) */
    uint32_t write_granule;    /* buffer writes never cross a multiple of this (page size, 4096) */
    uint32_t write_bytes;      /* buffer writer's write size: 0 = one write per record (split at
                                * write_granule); else a power of two, 16 .. write_granule: writes
                                * of aligned blocks (cache lines) that may hold parts of records */
    uint32_t max_outstanding_writes; /* writes issued but not yet accepted by memory (>= 1) */
    uint32_t cycles_per_tick;  /* PE cycles per Generic Timer tick (>= 1) */
    uint8_t pe_index;          /* reported in armprof_regime.pe */
} spu_config;

/* A sensible default: Neoverse-like IDs (MaxSize 2^6, CountSize 12-bit, Interval 256, Align 0,
 * FE/FT/FL, LDS and ArchInst on, ERnd off), FIFO 1 KiB draining 16 B/cycle, 4 sampled ops in
 * flight (docs/implementation-defined.md lists every default). */
void spu_config_default(spu_config *cfg);
/* Checks a configuration; on failure `why` (if not NULL) names the field and the rule. */
armprof_err spu_config_validate(const spu_config *cfg, char *why, size_t whylen);

armprof_err spu_open(const spu_config *cfg, const armprof_host_ops *ops, spu_t **out);
void spu_close(spu_t *spu);
/* Warm reset: registers to their reset values (PMBLIMITR_EL1.E = 0), FIFO and slots emptied.
 * Records captured and not yet written count as discarded (SPU_DISCARD_DISABLED); operations
 * still in flight produce no record. */
void spu_reset(spu_t *spu);
const spu_config *spu_get_config(const spu_t *spu);

/* The PE context (Exception level, Security state, MDCR/SCR/HCR controls, timer, CONTEXTIDR). */
armprof_err spu_set_pe_context(spu_t *spu, const armprof_pe_ctx *ctx);
const armprof_pe_ctx *spu_get_pe_context(const spu_t *spu);

/* MRS / MSR from the current PE context, with the access checks of seeds 001 and 002.
 * Outcomes: ARMPROF_OK; ARMPROF_ERR_NOREG (no SPE register has that encoding);
 * ARMPROF_ERR_UNDEFINED (EL0, AArch32, an absent feature's register, an EL2 name from EL1, and
 * every MSR to the read-only PMSIDR_EL1 / PMBIDR_EL1, whose MSR encodings are unallocated);
 * ARMPROF_ERR_TRAP_EL2 / _TRAP_EL3 (MDCR_EL2.{TPMS,E2PB}, HDFGRTR/HDFGWTR_EL2, HCR_EL2.NV,
 * MDCR_EL3.{NSPB,NSPBE}); ARMPROF_ERR_NV2_MEM (FEAT_NV2: PMBSR_EL1 at EL1 is NVMem[0x820], the
 * host performs the access). Any outcome other than ARMPROF_OK leaves the unit unchanged.
 * ARMPROF_ERR_INVAL for a NULL spu (or val). At EL2 with HCR_EL2.E2H == 1 the PMSCR_EL1
 * encoding names PMSCR_EL2. */
armprof_err spu_reg_read(spu_t *spu, uint32_t enc, uint64_t *val);
armprof_err spu_reg_write(spu_t *spu, uint32_t enc, uint64_t val);
/* The access checks alone: exactly what spu_reg_read() (is_write false) or spu_reg_write()
 * (is_write true) would return for `enc` from the current PE context, other than for a NULL
 * val, with no effect on the unit. A host that must raise the exception before it performs the
 * access (QEMU's accessfn) asks this first; the access that follows returns the same outcome. */
armprof_err spu_reg_check(const spu_t *spu, uint32_t enc, bool is_write);
/* Debugger / test view: the stored value with no access check and no side effect. */
armprof_err spu_reg_peek(const spu_t *spu, uint32_t enc, uint64_t *val);

/* One register of the access table, for tools and tests that walk it. */
typedef struct spu_reg_info {
    const char *name;
    uint32_t enc;
    uint64_t reset;           /* reset value (ID registers: from the configuration) */
    uint64_t res0;            /* effective RES0 mask for this configuration */
    uint64_t ro;              /* read-only bits */
    bool read_only;           /* ID register */
    bool alias;               /* alias of another register (PMSCR_EL12) */
    bool unknown_at_reset;    /* architecturally UNKNOWN after reset */
    bool present;             /* implemented in this configuration (PMSNEVFR_EL1 needs
                               * feat_spev1p2, PMBMAR_EL1 feat_spe_nvm; else UNDEFINED) */
} spu_reg_info;
size_t spu_reg_count(const spu_t *spu);
armprof_err spu_reg_info_at(const spu_t *spu, size_t index, spu_reg_info *info);

/* PMBIRQ: a level equal to PMBSR_EL1.S. */
bool spu_irq_level(const spu_t *spu);
/* StatisticalProfilingEnabled() for the current context. */
bool spu_profiling_enabled(const spu_t *spu);
/* ProfilingBufferEnabled(), and the owning translation regime when it is. */
bool spu_buffer_enabled(const spu_t *spu, armprof_regime *regime);

/* ----- Operations from the host ------------------------------------------------------------ */

/* Flags of an operation. They decide E[0] and E[1] of its Events packet (§5.3.7, §2.3.5),
 * whatever bits 0 and 1 of spu_op.events say:
 *   neither flag: retired, E[1] = 1, E[0] = 0;
 *   SPU_OP_EXCEPTION: completed with a synchronous architectural exception, E[0] = E[1] = 1,
 *     and the record holds no latencies, addresses or Data Source (2.3.5);
 *   SPU_OP_NOT_RETIRED (with or without SPU_OP_EXCEPTION): misspeculated, or generating a
 *     non-architectural exception: E[0] = E[1] = 0. */
enum {
    SPU_OP_EXCEPTION = 1u << 0,   /* generated a synchronous exception */
    SPU_OP_NOT_RETIRED = 1u << 1, /* misspeculated / non-architectural: E[0] and E[1] clear */
    SPU_OP_HAS_VA = 1u << 2,      /* data_va valid (loads, stores, atomics) */
    SPU_OP_HAS_PA = 1u << 3,      /* data_pa valid */
    SPU_OP_HAS_TARGET = 1u << 4,  /* target valid (branches, exception returns) */
    SPU_OP_HAS_XLAT = 1u << 5,    /* xlat_lat valid */
    SPU_OP_HAS_DSRC = 1u << 6     /* data_source valid (with PMSIDR_EL1.LDS) */
};

/* One operation of the sample population, as the host CPU model retires it. */
typedef struct spu_op {
    uint64_t pc;
    uint8_t op_class;             /* SPE_CLASS_* */
    uint8_t op_subclass;          /* Operation Type payload (§5.3.8). An atomic is
                                   * SPE_LDST_EXTENDED | SPE_LDST_AT, with SPE_LDST_ST when it
                                   * returns no value to a register (STADD) and without it when
                                   * it does (LDADD, SWP, CAS): the type filter (§3.2.2) takes
                                   * every atomic as a store, those that return a value also as
                                   * a load */
    uint32_t flags;               /* SPU_OP_* */
    uint64_t events;              /* E[n] of the Events packet (E[0], E[1] from flags) */
    uint32_t total_lat;           /* cycles; also the time from sampling to completion */
    uint32_t issue_lat;
    uint32_t xlat_lat;
    uint64_t data_va;             /* with its top-byte tag */
    uint64_t data_pa;
    bool data_pa_ns;
    uint64_t target;
    uint8_t target_el;
    bool target_ns;
    uint16_t data_source;
} spu_op;

/* What happened to one reported operation. */
typedef enum spu_op_result {
    SPU_OP_NOT_COUNTED = 0,       /* profiling disabled: not in the population */
    SPU_OP_COUNTED,               /* counted (SAMPLE_POP), not sampled */
    SPU_OP_SAMPLED,               /* sampled: record follows when the op completes */
    SPU_OP_COLLIDED               /* the sample point fell on it but no slot was free */
} spu_op_result;

/* Report one retired operation (transaction level: at the current time). */
spu_op_result spu_retire(spu_t *spu, const spu_op *op);
/* Operations that can be retired before the one that will be sampled: after spu_skip() of that
 * many, the next spu_retire() is the sampled operation (SPU_OP_SAMPLED or SPU_OP_COLLIDED), as
 * long as nothing changes the counter meanwhile (a PMSICR_EL1 / PMSIRR_EL1 write, profiling
 * disabled). Exact in both sampling modes (with sample_next_op it counts the operation at which
 * the counter reaches zero) and with ERnd (it looks ahead at the generator's next draw); only
 * PMSIRR_EL1.INTERVAL = 0 with RND and ERnd can make it a lower bound. 0 when the next operation
 * is sampled; UINT64_MAX when profiling is disabled (nothing is counted). */
uint64_t spu_ops_until_sample(const spu_t *spu);
/* Report n operations known not to be sampled: counts at most spu_ops_until_sample() and returns
 * how many it counted, leaving the counter, ECOUNT and the generator as that many spu_retire()
 * calls would. O(1): one step per run of decrements, plus the one or two operations at which
 * COUNT reloads or ECOUNT reaches zero. */
uint64_t spu_skip(spu_t *spu, uint64_t n);

/* ----- Time ----------------------------------------------------------------------------------- */

/* Advance time: complete in-flight operations, move records to the FIFO, drain it to memory. */
void spu_advance(spu_t *spu, uint64_t cycles);
/* Cycles until something changes by itself (an op completes, the FIFO drains), or UINT64_MAX. */
uint64_t spu_cycles_to_next_event(const spu_t *spu);
uint64_t spu_now(const spu_t *spu);
/* Cycle-level step for lockstep use: `n` operations retire in this cycle (up to any width),
 * then one clock edge. result[i] (may be NULL) receives each op's outcome. */
void spu_cycle(spu_t *spu, const spu_op *ops, uint32_t n, spu_op_result *result);

/* Drain stall input: while set, no bytes leave the record FIFO for the buffer writer (a busy
 * memory port); completed records still enter the FIFO while they fit. A host input, like the
 * PE context, but not part of a checkpoint. spu_psb_csync() drains regardless. */
void spu_set_drain_stall(spu_t *spu, bool stall);

/* Asynchronous memory port (ARMPROF_MEM_PENDING): the answer to the oldest pending write, at
 * the unit's current time (spu_advance() it there first). ARMPROF_ERR_BUSY if no write is
 * pending, ARMPROF_ERR_INVAL for a bad status (PENDING again, or NULL).
 * Answers take effect in issue order (a synchronous answer behind a pending one waits for it).
 * Writes are issued only at events: a host of this form runs the unit from event to event
 * (spu_cycles_to_next_event()) so that it never passes a pending answer's time; the port call
 * sees spu_now() = the issue cycle, and an answer takes effect no earlier than the end of that
 * cycle's edge (latency >= 1). PSB CSYNC cannot hurry pending writes (docs/integration.md). */
armprof_err spu_mem_complete(spu_t *spu, const armprof_mem_result *res);
/* Writes issued to the memory port and not yet accepted (synchronous and pending ones). */
uint32_t spu_writes_outstanding(const spu_t *spu);
/* The buffer writer takes bytes from the record FIFO at the next clock edge (up to
 * drain_bytes_per_cycle, even if its writes fill up on the way): fewer than
 * max_outstanding_writes writes are outstanding and no buffer full event waits for them. A host
 * with an external sampler feeds this to its FIFO's drain `ready` input before the edge. */
bool spu_drain_ready(const spu_t *spu);

/* PSB CSYNC, with the DSB that follows it (seed 001 §3.6). Call it where the PE executes PSB
 * CSYNC, after reporting every operation before it. Time does not move (spu_now() is the same
 * on return); before it returns:
 *   1. every sampled operation still in flight completes now, whatever its total_lat: its record
 *      is captured as at a completion at spu_now() (CollectRecord() with the registers as they
 *      are now, the Timestamp packet's value now; the latency counters are the operation's own);
 *   2. every captured record, with those already in the FIFO and the writer, is written to
 *      memory, or discarded with its reason counted in spu_stats.discarded[] (PMBSR_EL1.S = 1:
 *      SPU_DISCARD_SERVICE; buffer disabled: _DISABLED; Discard mode: _MODE; a fault or External
 *      abort: its management event is raised as for any write);
 *   3. PMBPTR_EL1, PMBSR_EL1 and PMBIRQ show the result.
 * So after disable (PMSCR_EL1 = 0, or PMBLIMITR_EL1.E = 0 which discards as _DISABLED), PSB
 * CSYNC, DSB, as Linux's arm_spe_pmu does it, the host reads in PMBPTR_EL1 the address after
 * the last record written; spu_stats.inflight_now and fifo_bytes_now are 0 and every sampled
 * operation is written, discarded or filtered out (spu_stats: feed = filtered_out +
 * records_written + records_discarded, less operations a warm reset dropped in flight).
 * One case leaves work: a memory port that answered ARMPROF_MEM_PENDING (a pending write and
 * what waits behind it stay, spu_writes_outstanding() > 0: the PE's DSB waits for them, so the
 * host answers them with spu_mem_complete() and calls spu_psb_csync() again). Synchronous
 * answers with a latency take effect at once. The same holds with an external sampler. */
void spu_psb_csync(spu_t *spu);

/* ----- Observation ---------------------------------------------------------------------------- */

/* Bins of spu_stats.fifo_hist. */
#define SPU_FIFO_HIST_BINS 16

/* Why records were discarded. */
typedef enum spu_discard_reason {
    SPU_DISCARD_SERVICE = 0,      /* PMBSR_EL1.S == 1 (management event pending) */
    SPU_DISCARD_DISABLED,         /* buffer disabled when the record reached it */
    SPU_DISCARD_MODE,             /* Discard mode, PMBLIMITR_EL1.FM == 0b10 */
    SPU_DISCARD_FAULT,            /* lost to a fault / External abort while being written */
    SPU_DISCARD_PTR,              /* RPGGHS: pointer rules broken, CONSTRAINED UNPREDICTABLE */
    SPU_DISCARD_EXT_ABORT,        /* External abort ignored or taken as SError: write lost */
    SPU_DISCARD__COUNT
} spu_discard_reason;
const char *spu_discard_reason_name(spu_discard_reason r);

typedef struct spu_stats {
    uint64_t population;          /* SAMPLE_POP */
    uint64_t feed;                /* SAMPLE_FEED */
    uint64_t filtrate;            /* SAMPLE_FILTRATE */
    uint64_t collisions;          /* SAMPLE_COLLISION */
    uint64_t filtered_out;        /* sampled, removed by CollectRecord */
    uint64_t records_written;     /* complete records in memory */
    uint64_t bytes_written;       /* bytes the buffer writer wrote (including padding) */
    uint64_t records_discarded;   /* sum of discarded[] */
    uint64_t discarded[SPU_DISCARD__COUNT];
    uint64_t management_events;   /* PMBSR_EL1.S set by the unit */
    uint64_t buffer_full_events;
    uint64_t fault_events;
    uint64_t ext_abort_events;
    uint64_t serrors;
    uint64_t fifo_bytes_max;      /* high-water mark of the record FIFO */
    uint64_t fifo_bytes_now;
    uint64_t fifo_full_cycles;    /* cycles a completed record waited for FIFO space */
    uint64_t inflight_now;
    uint64_t service_cycles;      /* cycles PMBSR_EL1.S was 1 */
    /* Memory timing (armprof_mem_result.latency, ARMPROF_MEM_PENDING). */
    uint64_t fifo_byte_cycles;    /* sum over cycles of the FIFO level: mean = this / cycles */
    uint64_t fifo_hist[SPU_FIFO_HIST_BINS]; /* cycles with the level (after the edge) in bin i:
                                   * bin width is fifo_bytes / SPU_FIFO_HIST_BINS rounded up to a
                                   * power of two (spu_fifo_hist_width()); the last bin includes
                                   * a full FIFO. Sums to spu_now() minus the time of the reset. */
    uint64_t writer_stall_cycles; /* cycles the FIFO held bytes to drain but the writer could not
                                   * issue (max_outstanding_writes in flight, or a pending answer) */
    uint64_t writes_issued;       /* calls to the memory port */
    uint64_t outstanding_writes_max;
    uint64_t write_latency_min;   /* cycles from issue to acceptance, over accepted writes */
    uint64_t write_latency_max;
    uint64_t write_latency_sum;   /* mean = write_latency_sum / writes_answered */
    uint64_t writes_answered;     /* writes whose answer arrived (OK, fault or abort, including
                                   * ones ignored after a management event): the population of
                                   * write_latency_{min,max,sum} */
} spu_stats;
void spu_get_stats(const spu_t *spu, spu_stats *st);
/* Bytes per bin of spu_stats.fifo_hist. */
uint32_t spu_fifo_hist_width(const spu_t *spu);

/* Internal state of the sample interval counter and record FIFO, for lockstep co-simulation. */
typedef struct spu_probe {
    uint32_t count;               /* PMSICR_EL1.COUNT */
    uint8_t ecount;               /* PMSICR_EL1.ECOUNT */
    bool ecount_active;           /* secondary counter running (ERnd == 1) */
    uint32_t fifo_level;          /* bytes in the record FIFO */
    uint32_t inflight;            /* occupied sampled-operation slots */
    uint64_t drained;             /* bytes drained from the FIFO to the buffer writer so far */
    uint32_t rng_state;           /* xorshift32 state */
} spu_probe;
void spu_get_probe(const spu_t *spu, spu_probe *p);

/* Every encoded record as it leaves the encoder (before the FIFO), for tests and tools: one call
 * per record that passes CollectRecord() (spu_stats.filtrate), when it is captured. A record
 * reported here may still be discarded on its way to memory (spu_stats.discarded[]: S = 1,
 * buffer disabled, Discard mode, fault, External abort, RPGGHS, reset): once nothing is held
 * (after spu_psb_csync() with no write pending), the calls equal records_written +
 * records_discarded. */
typedef void (*spu_record_fn)(void *user, const spe_record *rec, const uint8_t *bytes, size_t len);
void spu_set_record_hook(spu_t *spu, spu_record_fn fn, void *user);

/* ----- External sampler (rtl-cosim's Verilated counter and FIFO in a platform) ------------------ */

/* With an external sampler, an outside implementation of the sample interval counter and of
 * the record FIFO (the RTL of rtl-cosim/, Verilated as a SystemC module) takes their decisions:
 * which operations are sampled and which collide (§3.1.2, §3.1.4), and how many bytes reach the
 * buffer writer at each clock edge. The model keeps everything else: enables, registers (it
 * mirrors PMSICR_EL1 from the sampler), CollectRecord(), the encoder, the buffer writer and
 * management events. The host drives the time with spu_cycle_ext() only (not spu_retire,
 * spu_skip, spu_advance or spu_cycle), and the sampler's inputs from the model: PMSICR_EL1 /
 * PMSIRR_EL1 writes, spu_profiling_enabled(), spu_predict_record_len() of each sampled
 * operation. The model does not load PMSICR_EL1 on enable (§3.1.1): the sampler does.
 * Not part of a checkpoint. */

/* One clock cycle as the external sampler saw it (bit i of a mask is ops[i]). */
typedef struct spu_ext_cycle {
    uint32_t fire;                /* operations selected for sampling (collided or not) */
    uint32_t coll;                /* of those, the ones that collided */
    const uint16_t *len;          /* n lengths the sampler was given (spu_predict_record_len), or NULL */
    uint32_t drained;             /* bytes its FIFO handed to the buffer writer at this edge */
    uint32_t fifo_level;          /* bytes in its FIFO after the edge */
    uint32_t count;               /* PMSICR_EL1.COUNT after the edge */
    uint8_t ecount;               /* PMSICR_EL1.ECOUNT after the edge (ERnd) */
} spu_ext_cycle;

/* Where the model could not follow the sampler (all zero when both agree). */
typedef struct spu_ext_stats {
    uint64_t cycles;              /* spu_cycle_ext() calls */
    uint64_t slot_mismatches;     /* sampled, no model slot free: taken as a collision */
    uint64_t enable_mismatches;   /* sampled while the model has profiling disabled: ignored */
    uint64_t len_mismatches;      /* records whose length at completion is not the predicted one */
    uint64_t level_mismatches;    /* edges after which the two non-empty FIFO levels differ */
    uint64_t owed_edges;          /* edges at which the sampler drained bytes the model lacked */
    uint64_t drain_not_ready;     /* edges at which the sampler drained bytes while
                                   * spu_drain_ready() was false (the bytes wait in the model) */
} spu_ext_stats;

/* On: allowed while no operation is in flight and the FIFO is empty (ARMPROF_ERR_BUSY). */
armprof_err spu_set_external_sampler(spu_t *spu, bool on);
bool spu_external_sampler(const spu_t *spu);
/* Length of the record `op` gets if sampled now and nothing changes before it completes
 * (filters, PMSCR_EL1, timer); 0 when CollectRecord() would drop it. */
uint32_t spu_predict_record_len(const spu_t *spu, const spu_op *op);
/* One cycle: n operations retire with the sampler's decisions, PMSICR_EL1 takes its value,
 * then the clock edge: the FIFO drains as the sampler's did, completed records enter it.
 * Without an external sampler this is spu_cycle(). spu_psb_csync() keeps working. */
void spu_cycle_ext(spu_t *spu, const spu_op *ops, uint32_t n, const spu_ext_cycle *ext,
                   spu_op_result *result);
void spu_get_ext_stats(const spu_t *spu, spu_ext_stats *st);

/* ----- Checkpoints ---------------------------------------------------------------------------- */

/* Complete state into buf. With buf == NULL (or cap too small) sets *len to the size needed
 * and returns ARMPROF_ERR_BUFSZ. */
armprof_err spu_save(const spu_t *spu, uint8_t *buf, size_t cap, size_t *len);
/* Restores a state saved by a unit of the same configuration. */
armprof_err spu_restore(spu_t *spu, const uint8_t *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* ARMPROF_SPU_H */
