/* SPDX-License-Identifier: Apache-2.0 */
/* armprof.h: types shared by every armprof unit's C API (errors, PE context, memory port, callbacks). */
#ifndef ARMPROF_ARMPROF_H
#define ARMPROF_ARMPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "armprof/version.h" /* ARMPROF_VERSION, ARMPROF_VERSION_STRING, armprof_version() */

/*
 * System register encodings, packed the way Linux's sys_reg() packs them:
 * op0[15:14] op1[13:11] CRn[10:7] CRm[6:3] op2[2:0].
 */
#define ARMPROF_SYSREG(op0, op1, crn, crm, op2) \
    ((uint32_t)(((op0) << 14) | ((op1) << 11) | ((crn) << 7) | ((crm) << 3) | (op2)))
#define ARMPROF_SYSREG_OP0(e) (((e) >> 14) & 0x3)
#define ARMPROF_SYSREG_OP1(e) (((e) >> 11) & 0x7)
#define ARMPROF_SYSREG_CRN(e) (((e) >> 7) & 0xf)
#define ARMPROF_SYSREG_CRM(e) (((e) >> 3) & 0xf)
#define ARMPROF_SYSREG_OP2(e) ((e) & 0x7)

/*
 * Errors. Every call that can fail returns one of these; armprof_strerror() names it.
 * Register access calls return ARMPROF_ERR_UNDEFINED / _TRAP_EL2 / _TRAP_EL3 for the
 * outcomes of the Arm access pseudocode (SysRegAccess_UNDEFINED, _TrapToEL2, _TrapToEL3):
 * the access had no effect and the host CPU model takes the exception.
 */
typedef enum armprof_err {
    ARMPROF_OK = 0,
    ARMPROF_ERR_INVAL,           /* bad argument: NULL pointer, value out of range */
    ARMPROF_ERR_NOMEM,           /* allocation failed (open, restore) */
    ARMPROF_ERR_NOREG,           /* no register with that encoding in this unit */
    ARMPROF_ERR_UNDEFINED,       /* the access is UNDEFINED (e.g. from EL0) */
    ARMPROF_ERR_TRAP_EL2,        /* the access traps to EL2 */
    ARMPROF_ERR_TRAP_EL3,        /* the access traps to EL3 */
    ARMPROF_ERR_READONLY,        /* unused: an MSR to a read-only (ID) register is UNDEFINED */
    ARMPROF_ERR_CFG_RESERVED,    /* configuration: a reserved ID register field value */
    ARMPROF_ERR_CFG_ALIGN,       /* configuration: Align larger than MaxSize or unsupported */
    ARMPROF_ERR_CFG_FIFO,        /* configuration: FIFO depth / drain rate zero or too small */
    ARMPROF_ERR_CFG_RANGE,       /* configuration: another field out of its range */
    ARMPROF_ERR_CFG_FEATURE,     /* configuration: features that cannot be combined */
    ARMPROF_ERR_STATE_CORRUPT,   /* checkpoint blob truncated, bad magic or bad checksum */
    ARMPROF_ERR_STATE_MISMATCH,  /* checkpoint blob from a unit of another configuration */
    ARMPROF_ERR_BUFSZ,           /* caller's buffer too small */
    ARMPROF_ERR_BUSY,            /* operation not allowed in the current state */
    ARMPROF_ERR_NV2_MEM,         /* FEAT_NV2: the access is redirected to memory (NVMem[offset])
                                  * and the host performs it; the unit's register is untouched */
    ARMPROF_ERR__COUNT
} armprof_err;

const char *armprof_strerror(armprof_err err);

/* Security states (FEAT_RME adds Realm and Root). */
typedef enum armprof_security {
    ARMPROF_SECURE = 0,
    ARMPROF_NONSECURE = 1,
    ARMPROF_REALM = 2,
    ARMPROF_ROOT = 3
} armprof_security;

const char *armprof_security_name(armprof_security ss);

/*
 * The PE context: controls owned by the host CPU, not by these units, that the units read
 * (REGISTERS.md, "Controls owned by the PE"). The host sets it whenever one of them changes,
 * with the unit's *_set_pe_context() call. Field names are Arm's; each is the Effective value.
 */
typedef struct armprof_pe_ctx {
    /* What the PE implements. */
    bool have_el2;
    bool have_el3;
    bool have_rme;               /* FEAT_RME: Realm state exists */
    bool have_secure;            /* Secure state implemented (relevant with RME) */

    /* PSTATE and debug. */
    uint8_t el;                  /* PSTATE.EL, 0..3 */
    bool aarch32;                /* PE executing in AArch32 (profiling disabled, 2.1.1) */
    bool debug_state;            /* PE in Debug state */
    bool os_lock;                /* OS Lock locked (OSLSR_EL1.OSLK) */
    bool pstate_pm;              /* PSTATE.PM (FEAT_EBEP) */

    /* SCR_EL3 */
    bool scr_ns;                 /* SCR_EL3.NS */
    bool scr_nse;                /* SCR_EL3.NSE (FEAT_RME) */
    bool scr_eel2;               /* SCR_EL3.EEL2 (Secure EL2 enabled) */
    bool scr_fgten;              /* SCR_EL3.FGTEn */
    /* MDCR_EL3 */
    uint8_t mdcr3_nspb;          /* MDCR_EL3.NSPB, 2 bits */
    bool mdcr3_nspbe;            /* MDCR_EL3.NSPBE (FEAT_RME) */
    uint8_t mdcr3_nstb;          /* MDCR_EL3.NSTB, 2 bits */
    bool mdcr3_nstbe;            /* MDCR_EL3.NSTBE (FEAT_RME) */
    uint8_t mdcr3_trbee;         /* MDCR_EL3.TRBEE, 2 bits (FEAT_TRBE_EXC) */
    uint8_t mdcr3_pmsse;         /* MDCR_EL3.PMSSE, 2 bits (FEAT_PMUv3_SS) */
    bool mdcr3_spme;             /* MDCR_EL3.SPME */
    /* MDCR_EL2 */
    uint8_t mdcr2_e2pb;          /* MDCR_EL2.E2PB, 2 bits */
    bool mdcr2_tpms;             /* MDCR_EL2.TPMS */
    uint8_t mdcr2_e2tb;          /* MDCR_EL2.E2TB, 2 bits */
    uint8_t mdcr2_pmsse;         /* MDCR_EL2.PMSSE, 2 bits (FEAT_PMUv3_SS) */
    uint8_t mdcr2_hpmn;          /* MDCR_EL2.HPMN; ARMPROF_MDCR2_HPMN_N: PMCR_EL0.N (its reset value) */
    bool mdcr2_hpme;             /* MDCR_EL2.HPME: enables event counters [HPMN..N-1] (EL2's) */
    bool mdcr2_hpmd;             /* MDCR_EL2.HPMD: no counting at EL2 by counters [0..HPMN-1] */
    bool mdcr2_hlp;              /* MDCR_EL2.HLP (FEAT_PMUv3p5): counters [HPMN..N-1] overflow at 64 bits */
    bool mdcr2_hpmfzs;           /* MDCR_EL2.HPMFZS (FEAT_SPEv1p2): SPE freeze of [HPMN..N-1] */
    /* HCR_EL2 */
    bool hcr_tge;                /* HCR_EL2.TGE */
    bool hcr_e2h;                /* HCR_EL2.E2H */
    bool hcr_vm;                 /* HCR_EL2.VM: stage 2 enabled for EL1&0 */
    bool hcr_nv, hcr_nv1, hcr_nv2; /* HCR_EL2.{NV,NV1,NV2} */
    /* Fine-grained traps (FEAT_FGT) on the SPE buffer registers: HDFGRTR/HDFGWTR_EL2 bits. */
    bool hdfgrtr_pmb;            /* HDFGRTR_EL2.PMBSR_EL1 (read trap) */
    bool hdfgwtr_pmb;            /* HDFGWTR_EL2.PMBSR_EL1 (write trap) */
    /* ... and on the trace buffer registers: one bit per register, ARMPROF_FGT_TRB* below
     * (HDFGRTR_EL2 / HDFGWTR_EL2 .TRBBASER_EL1, .TRBIDR_EL1 (read only), .TRBLIMITR_EL1,
     * .TRBMAR_EL1, .TRBPTR_EL1, .TRBSR_EL1, .TRBTRG_EL1). */
    uint8_t hdfgrtr_trb;         /* read traps */
    uint8_t hdfgwtr_trb;         /* write traps */
    /* Trace filter controls */
    bool trfcr_el1_e0tre, trfcr_el1_e1tre; /* TRFCR_EL1.{E0TRE,E1TRE} */
    bool trfcr_el2_e0htre, trfcr_el2_e2tre; /* TRFCR_EL2.{E0HTRE,E2TRE} */

    /* Context and time. */
    uint64_t contextidr_el1;     /* CONTEXTIDR_EL1 */
    uint64_t contextidr_el2;     /* CONTEXTIDR_EL2 */
    uint64_t cntvoff;            /* CNTVOFF_EL2 (virtual offset) */
    bool cntvoff_zero;           /* a read of CNTVCT_EL0 here treats the offset as zero */
    bool timer_enabled;          /* Generic Timer system counter enabled (CNTCR.EN) */

    /* Trace buffer controls (seed 004: RBNQRP, RMFMXQ, RVSCDV). Zero is the FEAT_TRBE default:
     * every management event in TRBSR_EL1 and TRBIRQ driving the interrupt. */
    uint8_t trfcr_el1_ee;        /* TRFCR_EL1.EE, 2 bits (FEAT_TRBE_EXC) */
    bool trfcr_el1_ke;           /* TRFCR_EL1.KE (FEAT_TRBE_EXC) */
    uint8_t trfcr_el2_ee;        /* TRFCR_EL2.EE, 2 bits (FEAT_TRBE_EXC) */
    bool trfcr_el2_ke;           /* TRFCR_EL2.KE (FEAT_TRBE_EXC) */
    bool scr_gpf;                /* SCR_EL3.GPF */
    bool scr_ea;                 /* SCR_EL3.EA */
    bool hcr_gpf;                /* HCR_EL2.GPF */
    bool hcr_tea;                /* HCR_EL2.TEA */
    bool self_hosted_trace_off;  /* SelfHostedTraceEnabled() is FALSE (external debugger owns trace) */
} armprof_pe_ctx;

/* Bits of armprof_pe_ctx.hdfgrtr_trb / hdfgwtr_trb. */
enum {
    ARMPROF_FGT_TRBLIMITR = 1u << 0,
    ARMPROF_FGT_TRBPTR = 1u << 1,
    ARMPROF_FGT_TRBBASER = 1u << 2,
    ARMPROF_FGT_TRBSR = 1u << 3,
    ARMPROF_FGT_TRBMAR = 1u << 4,
    ARMPROF_FGT_TRBTRG = 1u << 5,
    ARMPROF_FGT_TRBIDR = 1u << 6
};

/* MDCR_EL2.HPMN value that stands for PMCR_EL0.N, which a context does not know: every event counter
 * in the first range. The PMU takes any HPMN above N as N (docs/implementation-defined.md). */
#define ARMPROF_MDCR2_HPMN_N 0xFF

/* A reset-like context: EL1 Non-secure, EL2 and EL3 implemented, owning EL1 (NSPB=0b11, E2PB=0b11),
 * MDCR_EL2.HPMN = PMCR_EL0.N (ARMPROF_MDCR2_HPMN_N) as after a reset. */
void armprof_pe_ctx_default(armprof_pe_ctx *ctx);
/* Current Security state derived from SCR_EL3.{NS,NSE} and PSTATE.EL. */
armprof_security armprof_pe_security(const armprof_pe_ctx *ctx);
/* EL2 implemented and enabled in security state ss (Secure EL2 needs SCR_EL3.EEL2). */
bool armprof_pe_el2_enabled(const armprof_pe_ctx *ctx, armprof_security ss);

/*
 * The owning translation regime of a buffer write: what the memory port needs to translate.
 */
typedef enum armprof_regime_kind {
    ARMPROF_REGIME_EL10 = 0,     /* EL1&0 (stage 2 applies when `stage2`) */
    ARMPROF_REGIME_EL2 = 1,      /* EL2 (HCR_EL2.E2H == 0) */
    ARMPROF_REGIME_EL20 = 2      /* EL2&0 (HCR_EL2.E2H == 1) */
} armprof_regime_kind;

typedef struct armprof_regime {
    armprof_regime_kind kind;
    armprof_security ss;         /* owning Security state */
    uint8_t el;                  /* owning Exception level, 1 or 2 */
    bool stage2;                 /* addresses from stage 1 go through stage 2 (EL2 enabled, HCR_EL2.VM) */
    bool nvm;                    /* Effective nVM == 1: pointers are PAs, or IPAs when stage2 */
    bool hw_flag_update;         /* PMBIDR_EL1.F / TRBIDR_EL1.F: AF/dirty set by hardware, else fault */
    uint16_t mar;                /* PMBMAR_EL1 / TRBMAR_EL1 {SH, Attr} when nVM (and PAS for TRBE) */
    uint8_t unit;                /* which unit writes: ARMPROF_UNIT_* */
    uint8_t pe;                  /* index of the PE (for shared memory models) */
} armprof_regime;

enum { ARMPROF_UNIT_SPU = 0, ARMPROF_UNIT_TRBU = 1, ARMPROF_UNIT_PMU = 2 };

/* What a write through the memory port answered. */
typedef enum armprof_mem_status {
    ARMPROF_MEM_OK = 0,          /* every byte written */
    ARMPROF_MEM_FAULT,           /* MMU fault: ec (0x24 stage 1, 0x25 stage 2, 0x1E GPC), fsc */
    ARMPROF_MEM_EXT_ABORT,       /* External abort: fsc; async says how it is reported */
    ARMPROF_MEM_PENDING          /* asynchronous form: the port has taken the write and gives its
                                  * answer later, with the unit's *_mem_complete() call */
} armprof_mem_status;

/* Exception class values used in PMBSR_EL1.EC and TRBSR_ELx.EC. */
enum {
    ARMPROF_EC_OTHER = 0x00,
    ARMPROF_EC_GPC = 0x1E,
    ARMPROF_EC_IMPDEF = 0x1F,
    ARMPROF_EC_S1_ABORT = 0x24,
    ARMPROF_EC_S2_ABORT = 0x25
};

/* Fault status codes (seed 002 FSC table). Level-carrying codes take the level in bits [1:0]. */
enum {
    ARMPROF_FSC_ADDR_SIZE = 0x00,      /* 0b0000xx */
    ARMPROF_FSC_TRANSLATION = 0x04,    /* 0b0001xx */
    ARMPROF_FSC_ACCESS_FLAG = 0x08,    /* 0b0010xx */
    ARMPROF_FSC_PERMISSION = 0x0C,     /* 0b0011xx */
    ARMPROF_FSC_SEA_WRITE = 0x10,      /* synchronous External abort on write */
    ARMPROF_FSC_AEA_WRITE = 0x11,      /* asynchronous External abort on write */
    ARMPROF_FSC_SEA_WALK = 0x14,       /* 0b0101xx: sync External abort on walk */
    ARMPROF_FSC_ALIGNMENT = 0x21,
    ARMPROF_FSC_GPF = 0x28,            /* Granule Protection fault (with EC 0x1E) */
    ARMPROF_FSC_TLB_CONFLICT = 0x30,
    ARMPROF_FSC_UNSUPP_ATOMIC = 0x31
};

typedef struct armprof_mem_result {
    armprof_mem_status status;
    uint8_t ec;                  /* the EC to report: for ARMPROF_MEM_FAULT 0x24 (stage 1), 0x25
                                  * (stage 2) or 0x1E (GPC); for ARMPROF_MEM_EXT_ABORT where the
                                  * abort happened: 0 or 0x24 on the write or a stage 1 walk,
                                  * 0x25 on a stage 2 walk, 0x1E on a GPT fetch */
    uint8_t fsc;                 /* fault status code, level included */
    bool async;                  /* External abort reported asynchronously */
    uint32_t written;            /* bytes written before the fault; fault address = addr + written */
    uint32_t mss2;               /* TRBSR_ELx.MSS2 (TopLevel, AssuredOnly) where modelled */
    uint32_t latency;            /* unit cycles from this call until the memory system has accepted
                                  * the write (its response): the write stays outstanding that long
                                  * and its answer (OK, fault, abort) takes effect then. 0: at once,
                                  * the functional behaviour. Ignored with ARMPROF_MEM_PENDING. */
} armprof_mem_result;

/*
 * The memory port: write `len` bytes at `addr` (VA, IPA or PA per `regime`).
 *
 * Timing. A port answers in one of two forms:
 *  - synchronous (simple C hosts, TLM loosely-timed): the answer now, with `latency` saying how
 *    many unit cycles the memory system takes to accept it (a TLM b_transport's annotated delay);
 *  - asynchronous (TLM approximately-timed): ARMPROF_MEM_PENDING now, and the answer later through
 *    spu_mem_complete() / trbu_mem_complete(), in the order the writes were issued, at the unit
 *    time the host has advanced it to.
 * Either way the unit keeps at most its configured number of writes outstanding, and its record
 * FIFO (or internal trace buffer) drains only as writes are accepted.
 */
typedef armprof_mem_result (*armprof_mem_write_fn)(void *user, uint64_t addr, const uint8_t *data,
                                                  uint32_t len, const armprof_regime *regime);
/* Interrupt output (level). */
typedef void (*armprof_irq_fn)(void *user, bool level);
/* PMU event output: `count` occurrences of PMU event number `event`. */
typedef void (*armprof_event_fn)(void *user, uint16_t event, uint64_t count);
/* SError signalled to the host (External abort taken as SError, IMPLEMENTATION DEFINED). */
typedef void (*armprof_serror_fn)(void *user);
/* PMBLIMITR_EL1.PMFZ (FEAT_SPEv1p2): the SPU asks the PMU to freeze its counters because a
 * Profiling Buffer management event occurred. */
typedef void (*armprof_pmu_freeze_fn)(void *user);
/* Embedded Cross Trigger output: the unit asserts CTI input trigger `trigger` (one call, one
 * assertion: a pulse; a CTI that wants a level holds it for as long as it likes). The SPU asserts
 * trigger 2 (ARMPROF_CTI_SPE_SAMPLE, seed 001 §2.7) once for each sample record written out to
 * the Profiling Buffer, in the cycle its last write is accepted (when PMBPTR_EL1 moves past it);
 * never for a record removed by the filters or discarded (Discard mode, PMBSR_EL1.S == 1, the
 * buffer disabled, a fault or an External abort on its writes). */
typedef void (*armprof_cti_fn)(void *user, uint8_t trigger);

typedef enum armprof_log_level {
    ARMPROF_LOG_ERROR = 0,
    ARMPROF_LOG_WARN = 1,        /* CONSTRAINED UNPREDICTABLE behaviour was chosen, misuse */
    ARMPROF_LOG_INFO = 2,
    ARMPROF_LOG_DEBUG = 3
} armprof_log_level;
typedef void (*armprof_log_fn)(void *user, armprof_log_level level, const char *msg);

/* Everything a unit calls out to. Any member may be NULL (then that output is dropped,
 * and a NULL mem_write answers every write OK without storing it). */
typedef struct armprof_host_ops {
    armprof_mem_write_fn mem_write;
    armprof_irq_fn irq;
    armprof_event_fn event;
    armprof_serror_fn serror;
    armprof_pmu_freeze_fn pmu_freeze;
    armprof_log_fn log;
    void *user;
    armprof_cti_fn cti_trigger;  /* last, so that the members before it keep their offsets */
} armprof_host_ops;

/* CTI input triggers the units assert through armprof_host_ops.cti_trigger. */
enum {
    ARMPROF_CTI_SPE_SAMPLE = 2   /* seed 001 §2.7: a sample record has been written out */
};

/* PMU event numbers these units generate. SAMPLE_* from seed 001 §2.6; TRB_WRAP 0x400C and
 * TRB_TRIG 0x400E as in Linux perf's Arm common-event tables; PMU_SNAPSHOT 0x8127 from Arm ARM
 * DDI 0487 M.c D14.3 ("0x8127, PMU_SNAPSHOT, Successful PMU capture event"). */
enum {
    ARMPROF_EV_SAMPLE_POP = 0x4000,
    ARMPROF_EV_SAMPLE_FEED = 0x4001,
    ARMPROF_EV_SAMPLE_FILTRATE = 0x4002,
    ARMPROF_EV_SAMPLE_COLLISION = 0x4003,
    ARMPROF_EV_TRB_WRAP = 0x400C,
    ARMPROF_EV_TRB_TRIG = 0x400E,
    ARMPROF_EV_PMU_SNAPSHOT = 0x8127
};

#ifdef __cplusplus
}
#endif
#endif /* ARMPROF_ARMPROF_H */
