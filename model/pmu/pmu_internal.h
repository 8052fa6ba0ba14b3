/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pmu_internal.h: the PMU model's state and the declarations its source files share (not part
 * of the public C API), and the reference-mode test hook.
 *
 *   pmu.c          configuration, life cycle, PE context, statistics, checkpoints
 *   pmu_count.c    event counting, overflow and PMUIRQ, cached enables and lazy time (hot path)
 *   pmu_filter.c   CountPMUEvents(): enables, prohibition, filtering, SPE freeze (D13 / D24.5)
 *   pmu_snapshot.c PMU snapshot Capture events, FEAT_PMUv3_SS (D13.9)
 *   pmu_pcsample.c PC Sample-based Profiling, FEAT_PCSRv8p9 (H7.1, D13.9), external view
 *   pmu_regs.c     register table, access checks, reset, register access
 */
#ifndef ARMPROF_MODEL_PMU_INTERNAL_H
#define ARMPROF_MODEL_PMU_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "armprof/bits.h"
#include "armprof/pmu.h"
#include "common/regtable.h"

/*
 * Reference mode, for tests that compare the fast PMU with the plain reading of the
 * pseudocode: with `on`, every event evaluates CountPMUEvents() for every counter afresh (no
 * cached enables) and pmu_advance() applies every cycle at once (no lazy time). Counts,
 * overflow flags and PMUIRQ must be identical in both modes for the same calls.
 */
void pmu_set_reference_mode(pmu_t *pmu, bool on);

/* ----- Fields (Arm ARM D24.5, Linux arch/arm64/tools/sysreg) ------------------------------- */

#define PMCR_E AP_BIT(0)
#define PMCR_P AP_BIT(1)
#define PMCR_C AP_BIT(2)
#define PMCR_D AP_BIT(3)
#define PMCR_X AP_BIT(4)
#define PMCR_DP AP_BIT(5)
#define PMCR_LC AP_BIT(6)
#define PMCR_LP AP_BIT(7)
#define PMCR_FZO AP_BIT(9)
#define PMCR_N AP_GENMASK(15, 11)
#define PMCR_IDCODE AP_GENMASK(23, 16)
#define PMCR_IMP AP_GENMASK(31, 24)
#define PMCR_FZS AP_BIT(32)

/* PMEVTYPER<n>_EL0, PMCCFILTR_EL0, PMICFILTR_EL0 filter bits. */
#define EVT_P AP_BIT(31)
#define EVT_U AP_BIT(30)
#define EVT_NSK AP_BIT(29)
#define EVT_NSU AP_BIT(28)
#define EVT_NSH AP_BIT(27)
#define EVT_M AP_BIT(26)
#define EVT_MT AP_BIT(25)
#define EVT_SH AP_BIT(24)
#define EVT_T AP_BIT(23)
#define EVT_RLK AP_BIT(22)
#define EVT_RLU AP_BIT(21)
#define EVT_RLH AP_BIT(20)
#define EVT_EVTCOUNT AP_GENMASK(15, 0)

#define USERENR_EN AP_BIT(0)
#define USERENR_SW AP_BIT(1)
#define USERENR_CR AP_BIT(2)
#define USERENR_ER AP_BIT(3)

#define PMSELR_SEL AP_GENMASK(4, 0)

#define PMSSCR_NC AP_BIT(32)
#define PMSSCR_SS AP_BIT(0)

#define PMECR_SSE AP_GENMASK(4, 3)

/* Bit positions shared by PMCNTENSET/CLR, PMOVSSET/CLR, PMINTENSET/CLR. */
#define CNT_C AP_BIT(PMU_CYCLE_COUNTER_ID)
#define CNT_F0 AP_BIT(PMU_INSTRUCTION_COUNTER_ID)


#define PCS_LO AP_GENMASK(31, 0)
#define PCS_PC_HI AP_GENMASK(55, 32)
#define PCS_EL AP_GENMASK(62, 61)
#define VCIDSR_VMID AP_GENMASK(47, 32)

/* ----- Register slots ---------------------------------------------------------------------- */

enum {
    S_PMCR, S_CNTENSET, S_CNTENCLR, S_OVSCLR, S_SWINC, S_SELR, S_CEID0, S_CEID1, S_CCNTR,
    S_XEVTYPER, S_XEVCNTR, S_USERENR, S_INTENSET, S_INTENCLR, S_OVSSET, S_CCFILTR, S_ICNTR,
    S_ICFILTR, S_SSCR, S_ECR, S_CCNTSVR, S_ICNTSVR,
    S_EVCNTR0,
    S_EVTYPER0 = S_EVCNTR0 + PMU_MAX_COUNTERS,
    S_EVCNTSVR0 = S_EVTYPER0 + PMU_MAX_COUNTERS,
    S__COUNT = S_EVCNTSVR0 + PMU_MAX_COUNTERS
};

struct pmu {
    /*
     * Hot state first, together: what every pmu_count_event() / pmu_advance() touches.
     *
     * Lazy time: `now` runs ahead, the counters counting cycles hold their value as of
     * `settled`. They are settled before anything reads them or changes what counts, and when
     * `due` cycles after `settled` one of them overflows, so every overflow flag (and PMUIRQ)
     * is set in the same pmu_advance() call as when each cycle was applied at once.
     */
    bool reference;            /* pmu_set_reference_mode(): no caches, no lazy time */
    bool capture_pending;      /* PMSSCR_EL1.SS == 1: a Capture event in progress */
    bool ev64;                 /* cfg.feat_pmuv3p5: 64-bit event counters */
    uint64_t events_in;        /* pmu_stats.events_in, kept here beside the rest of the hot state */
    uint64_t now;
    uint64_t settled;
    uint64_t due;              /* UINT64_MAX: no counter counting cycles can overflow */
    /*
     * Derived state, so that counting an event or advancing time costs a few instructions:
     * recomputed by reconfigure() whenever an input of CountPMUEvents() changes (a register
     * write, the PE context, the SPE freeze level, reset, restore), never on the counting path.
     */
    uint64_t count_mask;       /* counters for which CountPMUEvents() is TRUE: <n>, C (31), F0 (32) */
    uint64_t cycle_mask;       /* counters that count cycles: C and EVTCOUNT == CPU_CYCLES */
    uint64_t wide_mask;        /* counters that overflow at bit 63 (compute_wide_mask) */
    /* evmap by event number, direct-mapped (EVHASH); a slot two events share says so and the
     * lookup falls back to evmap. */
    struct {
        uint64_t mask;
        uint16_t tag;
        uint8_t state;         /* 0 empty, 1 one event (tag), 2 shared */
    } evh[64];
    pmu_config cfg;
    armprof_host_ops ops;
    armprof_pe_ctx ctx;
    uint64_t vals[S__COUNT];
    ap_regfile rf;
    uint64_t capture_remaining; /* cycles until it completes */
    bool spe_stopped;          /* SPEFreezeOnEvent's PMBLIMITR_EL1.{E,PMFZ}=={1,1} && S == 1 */
    bool powered;
    bool irq;
    pmu_stats stats;
    /* FEAT_PCSRv8p9 (external view only; D13.9, H7.1). */
    uint64_t pcsr, cid1sr, cid2sr, vidsr, ccidsr, vcidsr, pcsctl;
    bool pcs_first;            /* no successful Capture since PMPCSCTL.SS was set to 1 */
    bool pcs_suspended;        /* PMPCSCTL.IMP == 0: suspended (H7.1.1.1) */
    pmu_pc_sample sample;      /* the host's latest "recently-executed instruction" */
    pmu_debug_auth auth;
    pmu_pc_sample_fn sample_fn;
    void *sample_user;
    pmu_brbe_freeze_fn brbe_fn;
    void *brbe_user;
    struct {
        uint16_t event;
        uint64_t mask;
    } evmap[PMU_MAX_COUNTERS + 1]; /* each event counted now -> the counters counting it */
    unsigned n_evmap;
};

/* ----- Shared between the source files ------------------------------------------------------ */

/* pmu_count.c */
void pmu_settle(pmu_t *p);              /* apply the cycles lazy time holds back */
void pmu_update_irq(pmu_t *p);          /* CheckForPMUOverflow() -> PMUIRQ */
void pmu_reconfigure(pmu_t *p);         /* after an input of CountPMUEvents() changed */
bool pmu_add_event(pmu_t *p, uint16_t event, uint64_t n); /* true: an overflow flag was set */
void pmu_postwrite_swinc(void *unit, const ap_regdef *r, uint64_t old, uint64_t v);

/* pmu_filter.c */
uint64_t pmu_count_mask_now(const pmu_t *p); /* CountPMUEvents() of every counter, evaluated */

/* pmu_snapshot.c */
void pmu_capture_complete(pmu_t *p);
uint64_t pmu_prewrite_sscr(void *unit, const ap_regdef *r, uint64_t old, uint64_t v);
void pmu_postwrite_sscr(void *unit, const ap_regdef *r, uint64_t old, uint64_t v);

/* pmu_pcsample.c */
void pmu_pcs_take(pmu_t *p, bool valid);

/* pmu_regs.c */
void pmu_regs_init(pmu_t *p);
void pmu_do_reset(pmu_t *p, bool cold);

/* ----- Small helpers ----------------------------------------------------------------------------- */

static inline bool pmu_is_evcntr(unsigned s) { return s >= S_EVCNTR0 && s < S_EVCNTR0 + PMU_MAX_COUNTERS; }
static inline bool pmu_is_evtyper(unsigned s) { return s >= S_EVTYPER0 && s < S_EVTYPER0 + PMU_MAX_COUNTERS; }
static inline bool pmu_is_evcntsvr(unsigned s) { return s >= S_EVCNTSVR0 && s < S_EVCNTSVR0 + PMU_MAX_COUNTERS; }

/* Counter index of a per-counter slot, or -1. */
static inline int pmu_slot_counter(unsigned s)
{
    if (pmu_is_evcntr(s))
        return (int)(s - S_EVCNTR0);
    if (pmu_is_evtyper(s))
        return (int)(s - S_EVTYPER0);
    if (pmu_is_evcntsvr(s))
        return (int)(s - S_EVCNTSVR0);
    return -1;
}

/* Bits of the counter-mask registers that name an implemented counter. */
static inline uint64_t pmu_counter_mask(const pmu_t *p)
{
    uint64_t m = CNT_C;
    if (p->cfg.num_counters)
        m |= AP_GENMASK(p->cfg.num_counters - 1, 0);
    if (p->cfg.feat_pmuv3_icntr)
        m |= CNT_F0;
    return m;
}

/* ----- Counter ranges (MDCR_EL2.HPMN) -------------------------------------------------------- */

/*
 * Effective MDCR_EL2.HPMN. Values above PMCR_EL0.N (ARMPROF_MDCR2_HPMN_N among them) are
 * CONSTRAINED UNPREDICTABLE (Unpredictable_CounterReservedForEL2): the model takes them as N, no
 * counter reserved for EL2. HPMN == 0 behaves as with FEAT_HPMN0: every counter is EL2's.
 */
static inline unsigned pmu_hpmn_eff(const pmu_t *p)
{
    unsigned n = p->cfg.num_counters, h = p->ctx.mdcr2_hpmn;
    return h > n ? n : h;
}

/* PMUCounterIsHyp() for every event counter: [HPMN..N-1] when EL2 is implemented (HaveEL(EL2),
 * whether or not it is enabled in the current Security state). Never C or F0. */
static inline uint64_t pmu_hyp_mask(const pmu_t *p)
{
    unsigned n = p->cfg.num_counters, h = pmu_hpmn_eff(p);
    if (!p->ctx.have_el2 || h >= n)
        return 0;
    return AP_GENMASK(n - 1, h);
}

/* GetNumEventCountersAccessible(): at EL1 and EL0 with EL2 enabled in the current Security
 * state, HPMN; otherwise N (the second range is also EL1's when EL2 is disabled). */
static inline unsigned pmu_counters_accessible(const pmu_t *p)
{
    const armprof_pe_ctx *c = &p->ctx;
    if (c->el <= 1 && armprof_pe_el2_enabled(c, armprof_pe_security(c)))
        return pmu_hpmn_eff(p);
    return p->cfg.num_counters;
}

/* Bits of PMCNTEN*, PMINTEN*, PMOVS*, PMSWINC_EL0 the current context may see: bits of event
 * counters at or above pmu_counters_accessible() are RAZ/WI. */
static inline uint64_t pmu_access_mask(const pmu_t *p)
{
    unsigned a = pmu_counters_accessible(p), n = p->cfg.num_counters;
    return a >= n ? ~0ull : ~AP_GENMASK(n - 1, a);
}

/* PMPCSCTL.SS: PC sampling on PMU snapshot Capture events (FEAT_PMUv3_SS), else on reads. */
static inline bool pmu_pcs_ss(const pmu_t *p)
{
    return p->cfg.feat_pmuv3_ss && (p->pcsctl & PMU_PMPCSCTL_SS);
}

#endif
