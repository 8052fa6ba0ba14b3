/* SPDX-License-Identifier: Apache-2.0 */
/* pmu.c: PMU event counters and PMU snapshot Capture events (Arm ARM D13.9, FEAT_PMUv3_SS). */
#include "armprof/pmu.h"
#include "pmu/pmu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "armprof/bits.h"
#include "common/log.h"
#include "common/regtable.h"
#include "common/state.h"

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

#define PMU_STATE_TAG 0x504D5530u /* "PMU0" */
#define PMU_STATE_VERSION 3u /* 2: FEAT_PCSRv8p9 state; 3: armprof_pe_ctx MDCR_EL2.{HPME,HPMD,HLP,HPMFZS} */

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

static bool is_evcntr(unsigned s) { return s >= S_EVCNTR0 && s < S_EVCNTR0 + PMU_MAX_COUNTERS; }
static bool is_evtyper(unsigned s) { return s >= S_EVTYPER0 && s < S_EVTYPER0 + PMU_MAX_COUNTERS; }
static bool is_evcntsvr(unsigned s) { return s >= S_EVCNTSVR0 && s < S_EVCNTSVR0 + PMU_MAX_COUNTERS; }

/* Counter index of a per-counter slot, or -1. */
static int slot_counter(unsigned s)
{
    if (is_evcntr(s))
        return (int)(s - S_EVCNTR0);
    if (is_evtyper(s))
        return (int)(s - S_EVTYPER0);
    if (is_evcntsvr(s))
        return (int)(s - S_EVCNTSVR0);
    return -1;
}

/* Does this configuration implement the register at all? */
static bool slot_present(const pmu_t *p, unsigned s)
{
    switch (s) {
    case S_ICNTR:
    case S_ICFILTR:
        return p->cfg.feat_pmuv3_icntr;
    case S_SSCR:
    case S_ECR:
    case S_CCNTSVR:
        return p->cfg.feat_pmuv3_ss;
    case S_ICNTSVR:
        return p->cfg.feat_pmuv3_ss && p->cfg.feat_pmuv3_icntr;
    default:
        break;
    }
    if (is_evcntsvr(s) && !p->cfg.feat_pmuv3_ss)
        return false;
    return true;
}

static bool slot_is_el1(unsigned s)
{
    return s == S_INTENSET || s == S_INTENCLR || s == S_SSCR || s == S_ECR || s == S_CCNTSVR ||
           s == S_ICNTSVR || is_evcntsvr(s);
}

/* Bits of the counter-mask registers that name an implemented counter. */
static uint64_t counter_mask(const pmu_t *p)
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
static unsigned hpmn_eff(const pmu_t *p)
{
    unsigned n = p->cfg.num_counters, h = p->ctx.mdcr2_hpmn;
    return h > n ? n : h;
}

/* PMUCounterIsHyp() for every event counter: [HPMN..N-1] when EL2 is implemented (HaveEL(EL2),
 * whether or not it is enabled in the current Security state). Never C or F0. */
static uint64_t hyp_mask(const pmu_t *p)
{
    unsigned n = p->cfg.num_counters, h = hpmn_eff(p);
    if (!p->ctx.have_el2 || h >= n)
        return 0;
    return AP_GENMASK(n - 1, h);
}

/* GetNumEventCountersAccessible(): at EL1 and EL0 with EL2 enabled in the current Security
 * state, HPMN; otherwise N (the second range is also EL1's when EL2 is disabled). */
static unsigned counters_accessible(const pmu_t *p)
{
    const armprof_pe_ctx *c = &p->ctx;
    if (c->el <= 1 && armprof_pe_el2_enabled(c, armprof_pe_security(c)))
        return hpmn_eff(p);
    return p->cfg.num_counters;
}

/* Bits of PMCNTEN*, PMINTEN*, PMOVS*, PMSWINC_EL0 the current context may see: bits of event
 * counters at or above counters_accessible() are RAZ/WI. */
static uint64_t access_mask(const pmu_t *p)
{
    unsigned a = counters_accessible(p), n = p->cfg.num_counters;
    return a >= n ? ~0ull : ~AP_GENMASK(n - 1, a);
}

/* ----- Access checks ----------------------------------------------------------------------- */

/*
 * The access rules modelled: registers of features not configured do not exist (NOREG);
 * PMEVCNTR<n>/PMEVTYPER<n>/PMEVCNTSVR<n> with n >= PMCR_EL0.N are UNDEFINED (the CONSTRAINED
 * UNPREDICTABLE choice, docs/implementation-defined.md); reads of PMSWINC_EL0 are UNDEFINED; at EL0 the
 * _EL1 registers are UNDEFINED and the _EL0 ones follow PMUSERENR_EL0.{EN,SW,CR,ER} (a denied
 * EL0 access traps to EL1, reported as ARMPROF_ERR_UNDEFINED). EL2/EL3 traps (MDCR_ELx.TPM,
 * fine-grained traps) belong to the host CPU model and are not modelled.
 */
static armprof_err pmu_check(void *unit, const ap_regdef *r, bool write)
{
    const pmu_t *p = unit;
    unsigned s = r->slot;
    if (!slot_present(p, s))
        return ARMPROF_ERR_NOREG;
    int n = slot_counter(s);
    if (n >= 0 && n >= p->cfg.num_counters)
        return ARMPROF_ERR_UNDEFINED;
    /* n >= GetNumEventCountersAccessible(): EL2's counter, UNDEFINED at EL1 and EL0 */
    if (n >= 0 && (unsigned)n >= counters_accessible(p))
        return ARMPROF_ERR_UNDEFINED;
    if (s == S_SWINC && !write)
        return ARMPROF_ERR_UNDEFINED;
    if (p->ctx.el != 0)
        return ARMPROF_OK;
    if (slot_is_el1(s))
        return ARMPROF_ERR_UNDEFINED;
    uint64_t ue = p->vals[S_USERENR];
    if (s == S_USERENR)
        return write ? ARMPROF_ERR_UNDEFINED : ARMPROF_OK;
    if (ue & USERENR_EN)
        return ARMPROF_OK;
    if (s == S_CCNTR && !write && (ue & USERENR_CR))
        return ARMPROF_OK;
    if ((is_evcntr(s) || s == S_XEVCNTR) && !write && (ue & USERENR_ER))
        return ARMPROF_OK;
    if (s == S_SELR && (ue & USERENR_ER))
        return ARMPROF_OK;
    if (s == S_SWINC && write && (ue & USERENR_SW))
        return ARMPROF_OK;
    return ARMPROF_ERR_UNDEFINED;
}

/* ----- Counting (CountPMUEvents, first counter range only) --------------------------------- */

static uint64_t filter_reg(const pmu_t *p, unsigned idx)
{
    if (idx == PMU_CYCLE_COUNTER_ID)
        return p->vals[S_CCFILTR];
    if (idx == PMU_INSTRUCTION_COUNTER_ID)
        return p->vals[S_ICFILTR];
    return p->vals[S_EVTYPER0 + idx];
}

/* The {P, U, NSK, NSU, NSH, M, SH, RLK, RLU, RLH} filter of CountPMUEvents(). */
static bool filtered(const armprof_pe_ctx *c, uint64_t f)
{
    bool el3 = c->have_el3, el2 = c->have_el2;
    bool p = f & EVT_P, u = f & EVT_U;
    bool nsk = el3 && (f & EVT_NSK), nsu = el3 && (f & EVT_NSU);
    bool nsh = el2 && (f & EVT_NSH), m = el3 && (f & EVT_M);
    bool sh = el3 && el2 && (f & EVT_SH);
    bool rlk = c->have_rme && (f & EVT_RLK), rlu = c->have_rme && (f & EVT_RLU);
    bool rlh = c->have_rme && (f & EVT_RLH);
    armprof_security ss = armprof_pe_security(c);
    switch (c->el) {
    case 0:
        return ss == ARMPROF_SECURE ? u : ss == ARMPROF_REALM ? u != rlu : u != nsu;
    case 1:
        return ss == ARMPROF_SECURE ? p : ss == ARMPROF_REALM ? p != rlk : p != nsk;
    case 2:
        return ss == ARMPROF_SECURE ? nsh == sh : ss == ARMPROF_REALM ? nsh == rlh : !nsh;
    default:
        return m != p;
    }
}

/* SPEFreezeOnEvent(idx): PMCR_EL0.FZS, or MDCR_EL2.HPMFZS for a counter reserved for EL2 (also
 * when EL2 is disabled in the current Security state), with the SPU's freeze level. */
static bool spe_freeze_on_event(const pmu_t *p, unsigned idx, bool hyp)
{
    if (!p->cfg.feat_spev1p2 || !p->cfg.feat_pmuv3p7)
        return false;
    if (idx == PMU_CYCLE_COUNTER_ID && !p->cfg.feat_spe_dpfzs)
        return false; /* FZS does not affect the cycle counter without FEAT_SPE_DPFZS */
    bool fz = hyp ? p->ctx.mdcr2_hpmfzs : (p->vals[S_PMCR] & PMCR_FZS) != 0;
    return p->spe_stopped && fz;
}

/* CountPMUEvents(idx), first counter range and second (MDCR_EL2.HPMN). */
static bool count_enabled(const pmu_t *p, unsigned idx)
{
    const armprof_pe_ctx *c = &p->ctx;
    if (c->debug_state)
        return false; /* event counting is disabled in Debug state */
    uint64_t pmcr = p->vals[S_PMCR];
    bool hyp = idx < PMU_MAX_COUNTERS && (hyp_mask(p) & AP_BIT(idx));
    /* Main enable: MDCR_EL2.HPME for a counter reserved for EL2, else PMCR_EL0.E. */
    bool e = hyp ? c->mdcr2_hpme : (pmcr & PMCR_E) != 0;
    bool enabled = e && (p->vals[S_CNTENSET] & AP_BIT(idx));
    bool prohibited = false;
    armprof_security ss = armprof_pe_security(c);
    /* Secure state or EL3 with MDCR_EL3.SPME == 0 (MDCR_EL3.MPMX taken as 0). */
    if (c->have_el3 && (ss == ARMPROF_SECURE || c->el == 3))
        prohibited = !c->mdcr3_spme;
    /* At EL2, MDCR_EL2.HPMD prohibits the counters not reserved for EL2 (FEAT_PMUv3p1). */
    if (!prohibited && c->el == 2 && !hyp)
        prohibited = c->mdcr2_hpmd;
    bool frozen = spe_freeze_on_event(p, idx, hyp);
    if (idx == PMU_CYCLE_COUNTER_ID) {
        /* PMCR_EL0.DP disables the cycle counter when counting is prohibited or frozen;
         * otherwise neither affects it. */
        if (prohibited || frozen)
            enabled = enabled && !(pmcr & PMCR_DP);
        prohibited = frozen = false;
    }
    return enabled && !prohibited && !frozen && !filtered(c, filter_reg(p, idx));
}

/* CheckForPMUOverflow(): an overflow flag with its interrupt enabled, of a counter whose main
 * enable is on (MDCR_EL2.HPME for the counters reserved for EL2, PMCR_EL0.E for the others). */
static void update_irq(pmu_t *p)
{
    uint64_t pend = p->vals[S_OVSSET] & p->vals[S_INTENSET] & counter_mask(p);
    uint64_t hyp = hyp_mask(p);
    bool level = ((p->vals[S_PMCR] & PMCR_E) && (pend & ~hyp)) || (p->ctx.mdcr2_hpme && (pend & hyp));
    if (level != p->irq) {
        p->irq = level;
        if (p->ops.irq)
            p->ops.irq(p->ops.user, level);
    }
}

/* The counters that set their overflow flag on unsigned overflow at bit 63 (else at bit 31):
 * PMCCNTR_EL0 with PMCR_EL0.LC; PMICNTR_EL0 always (its Effective PMCR_EL0.LP is 1); with
 * FEAT_PMUv3p5 the event counters with PMCR_EL0.LP, or MDCR_EL2.HLP for those reserved for EL2. */
static uint64_t compute_wide_mask(const pmu_t *p)
{
    uint64_t pmcr = p->vals[S_PMCR], m = CNT_F0;
    if (pmcr & PMCR_LC)
        m |= CNT_C;
    if (p->cfg.feat_pmuv3p5 && p->cfg.num_counters) {
        uint64_t hyp = hyp_mask(p), all = AP_GENMASK(p->cfg.num_counters - 1, 0);
        if (pmcr & PMCR_LP)
            m |= all & ~hyp;
        if (p->ctx.mdcr2_hlp)
            m |= hyp;
    }
    return m;
}

/* Counter idx's slot, whether it overflows at bit 63 (else at bit 31), whether it has 64 bits. */
static void counter_geometry(const pmu_t *p, unsigned idx, unsigned *slot, bool *wide, bool *keep64)
{
    uint64_t wide_mask = p->reference ? compute_wide_mask(p) : p->wide_mask;
    *wide = (wide_mask & AP_BIT(idx)) != 0;
    *keep64 = idx >= PMU_MAX_COUNTERS || p->ev64;
    *slot = idx == PMU_CYCLE_COUNTER_ID         ? S_CCNTR
            : idx == PMU_INSTRUCTION_COUNTER_ID ? S_ICNTR
                                                : S_EVCNTR0 + idx;
}

/* Add n to counter idx; set its overflow flag on unsigned overflow at 32 or 64 bits (true). */
static bool counter_add(pmu_t *p, unsigned idx, uint64_t n)
{
    unsigned slot;
    bool wide, keep64;
    counter_geometry(p, idx, &slot, &wide, &keep64);
    uint64_t old = p->vals[slot];
    uint64_t nv = old + n;
    bool ovf = wide ? nv < old : n > 0xFFFFFFFFull - (old & 0xFFFFFFFFull);
    p->vals[slot] = keep64 ? nv : (nv & 0xFFFFFFFFull);
    if (ovf)
        p->vals[S_OVSSET] |= AP_BIT(idx);
    return ovf;
}

/* ----- Cached enables and lazy time ------------------------------------------------------- */

/* CountPMUEvents() of every implemented counter, as a counter mask. */
static uint64_t compute_count_mask(const pmu_t *p)
{
    uint64_t m = 0;
    for (unsigned i = 0; i < p->cfg.num_counters; i++)
        if (count_enabled(p, i))
            m |= AP_BIT(i);
    if (count_enabled(p, PMU_CYCLE_COUNTER_ID))
        m |= CNT_C;
    if (p->cfg.feat_pmuv3_icntr && count_enabled(p, PMU_INSTRUCTION_COUNTER_ID))
        m |= CNT_F0;
    return m;
}

static uint64_t compute_cycle_mask(const pmu_t *p)
{
    uint64_t m = CNT_C;
    for (unsigned i = 0; i < p->cfg.num_counters; i++)
        if (ap_field_get(EVT_EVTCOUNT, p->vals[S_EVTYPER0 + i]) == PMU_EV_CPU_CYCLES)
            m |= AP_BIT(i);
    return m;
}

/* The counters that count now; in reference mode evaluated afresh on every call. */
static uint64_t counting(const pmu_t *p)
{
    return p->reference ? compute_count_mask(p) : p->count_mask;
}

static uint64_t counting_cycles(const pmu_t *p)
{
    return p->reference ? compute_count_mask(p) & compute_cycle_mask(p)
                        : p->count_mask & p->cycle_mask;
}

/* Increments until counter idx sets its overflow flag (at bit 31 or 63), saturated. */
static uint64_t overflow_distance(const pmu_t *p, unsigned idx)
{
    unsigned slot;
    bool wide, keep64;
    counter_geometry(p, idx, &slot, &wide, &keep64);
    uint64_t v = p->vals[slot];
    if (wide)
        return v ? 0 - v : UINT64_MAX;
    return 0x100000000ull - (v & 0xFFFFFFFFull);
}

static void update_due(pmu_t *p)
{
    uint64_t d = UINT64_MAX;
    for (uint64_t m = counting_cycles(p); m; m &= m - 1) {
        uint64_t x = overflow_distance(p, (unsigned)__builtin_ctzll(m));
        if (x < d)
            d = x;
    }
    p->due = d;
}

/* Apply the pending cycles to PMCCNTR_EL0 and the counters of CPU_CYCLES. */
static void settle(pmu_t *p)
{
    uint64_t n = p->now - p->settled;
    if (!n)
        return;
    p->settled = p->now;
    for (uint64_t m = counting_cycles(p); m; m &= m - 1)
        counter_add(p, (unsigned)__builtin_ctzll(m), n);
    update_due(p);
}

/* After an input of CountPMUEvents() changed (the caller settled before the change). */
static void evmap_add(pmu_t *p, uint16_t event, unsigned idx)
{
    unsigned k = 0;
    while (k < p->n_evmap && p->evmap[k].event != event)
        k++;
    if (k == p->n_evmap) {
        p->evmap[k].event = event;
        p->evmap[k].mask = 0;
        p->n_evmap++;
    }
    p->evmap[k].mask |= AP_BIT(idx);
}

#define EVHASH(e) ((unsigned)((e) ^ ((e) >> 7)) & 63u)

static void reconfigure(pmu_t *p)
{
    p->count_mask = compute_count_mask(p);
    p->cycle_mask = compute_cycle_mask(p);
    p->wide_mask = compute_wide_mask(p);
    p->n_evmap = 0;
    for (uint64_t m = p->count_mask & AP_GENMASK(30, 0); m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctzll(m);
        evmap_add(p, (uint16_t)ap_field_get(EVT_EVTCOUNT, p->vals[S_EVTYPER0 + i]), i);
    }
    if (p->count_mask & CNT_F0)
        evmap_add(p, PMU_EV_INST_RETIRED, PMU_INSTRUCTION_COUNTER_ID);
    memset(p->evh, 0, sizeof(p->evh));
    for (unsigned k = 0; k < p->n_evmap; k++) {
        unsigned h = EVHASH(p->evmap[k].event);
        if (p->evh[h].state) {
            p->evh[h].state = 2;
        } else {
            p->evh[h].state = 1;
            p->evh[h].tag = p->evmap[k].event;
            p->evh[h].mask = p->evmap[k].mask;
        }
    }
    update_due(p);
}

/* The counters that count `event` now (CountPMUEvents and EVTCOUNT; F0 for INST_RETIRED). */
static uint64_t counters_of(const pmu_t *p, uint16_t event)
{
    if (p->reference) {
        uint64_t on = compute_count_mask(p), m = 0;
        for (unsigned i = 0; i < p->cfg.num_counters; i++)
            if ((on & AP_BIT(i)) && ap_field_get(EVT_EVTCOUNT, p->vals[S_EVTYPER0 + i]) == event)
                m |= AP_BIT(i);
        if (event == PMU_EV_INST_RETIRED)
            m |= on & CNT_F0;
        return m;
    }
    unsigned h = EVHASH(event);
    if (p->evh[h].state != 2)
        return p->evh[h].state && p->evh[h].tag == event ? p->evh[h].mask : 0;
    for (unsigned k = 0; k < p->n_evmap; k++)
        if (p->evmap[k].event == event)
            return p->evmap[k].mask;
    return 0;
}

/* True when an overflow flag was set. */
static bool count_event(pmu_t *p, uint16_t event, uint64_t n)
{
    if (n == 0)
        return false;
    if (event == PMU_EV_CPU_CYCLES)
        settle(p); /* pending cycles first, so that an overflow is flagged where it was */
    bool ovf = false;
    for (uint64_t m = counters_of(p, event); m; m &= m - 1)
        ovf |= counter_add(p, (unsigned)__builtin_ctzll(m), n);
    if (event == PMU_EV_CPU_CYCLES)
        update_due(p);
    return ovf;
}

void pmu_count_event(pmu_t *p, uint16_t event, uint64_t n)
{
    if (!p)
        return;
    p->events_in += n;
    if (count_event(p, event, n))
        update_irq(p); /* PMUIRQ changes only with a new overflow flag */
}

/* ----- Capture events (RSCLCQ, RYWLFL, RTSYTY) --------------------------------------------- */

pmu_capture_state pmu_capture_state_now(const pmu_t *p)
{
    const armprof_pe_ctx *c = &p->ctx;
    if (!p->cfg.feat_pmuv3_ss)
        return PMU_CAPTURE_DISABLED;
    /*
     * The most privileged implemented control that is not 0b01 decides (PMUCaptureEventEnabled /
     * PMUCaptureEventAllowed): 0b00 disabled, 0b10 enabled and prohibited, 0b11 enabled and
     * allowed; 0b01 passes the decision down. An EL that is not implemented behaves as 0b01, and
     * MDCR_EL2.PMSSE applies even when EL2 is disabled in the current Security state.
     */
    uint8_t ctl;
    if (c->have_el3 && (c->mdcr3_pmsse & 3) != 1) {
        ctl = c->mdcr3_pmsse & 3;
    } else if (c->have_el2 && (c->mdcr2_pmsse & 3) != 1) {
        ctl = c->mdcr2_pmsse & 3;
    } else {
        ctl = (uint8_t)ap_field_get(PMECR_SSE, p->vals[S_ECR]);
        if (ctl == 1) { /* reserved: CONSTRAINED UNPREDICTABLE (Unpredictable_RESPMSSE) */
            ctl = p->cfg.sse_reserved == PMU_SSE01_ALLOWED      ? 3
                  : p->cfg.sse_reserved == PMU_SSE01_PROHIBITED ? 2
                                                                : 0;
        }
    }
    if (ctl < 2)
        return PMU_CAPTURE_DISABLED;
    if (ctl == 2)
        return PMU_CAPTURE_PROHIBITED;
    /* RTSYTY: also the OS Lock unlocked and Non-debug state (or Debug state allowed). */
    if (c->os_lock)
        return PMU_CAPTURE_PROHIBITED;
    if (c->debug_state && !p->cfg.capture_in_debug)
        return PMU_CAPTURE_PROHIBITED;
    return PMU_CAPTURE_ALLOWED;
}

/* ----- PC Sample-based Profiling (H7.1, D13.9 FEAT_PCSRv8p9) ------------------------------- */

/* H7.1.1: ExternalNoninvasiveDebugEnabled() and, outside Non-secure state with EL3 implemented,
 * the Secure / Realm / Root variant for the PE's current Security state. The AArch32
 * SDER.SUNIDEN case does not arise: the model's EL1 and EL3 use AArch64. */
bool pmu_pc_sampling_allowed(const pmu_t *p)
{
    const armprof_pe_ctx *c = &p->ctx;
    if (!p->auth.niden)
        return false;
    if (!c->have_el3)
        return true;
    switch (armprof_pe_security(c)) {
    case ARMPROF_NONSECURE:
        return true;
    case ARMPROF_SECURE:
        return p->auth.spniden;
    case ARMPROF_REALM:
        return p->auth.rlpiden;
    default:
        return p->auth.rtpiden;
    }
}

static bool pcs_ss(const pmu_t *p)
{
    return p->cfg.feat_pmuv3_ss && (p->pcsctl & PMU_PMPCSCTL_SS);
}

/* SetPCSRUnknown() with the UNKNOWN values chosen as "unchanged": PMPCSR[31:0] = 0xFFFFFFFF, the
 * rest as they were (the D13.9 Capture rule requires that; reads may leave them so too). */
static void pcs_set_ones(pmu_t *p)
{
    p->pcsr |= PCS_LO;
    p->stats.pc_samples_ones++;
}

/* SetPCSample(). UNKNOWN CONTEXTIDR_EL2 (EL2 not enabled) and VMID (not EL1/EL0, or EL0 in the
 * EL2&0 regime) are written as 0. */
static void pcs_set_sample(pmu_t *p, const pmu_pc_sample *s)
{
    uint64_t v = s->pc & PCS_LO;
    if (!s->aarch32)
        v |= s->pc & PCS_PC_HI;
    v |= ap_field_prep(PCS_EL, s->el & 3);
    bool ns = s->ss == ARMPROF_NONSECURE || s->ss == ARMPROF_REALM;
    bool nse = s->ss == ARMPROF_REALM || s->ss == ARMPROF_ROOT;
    if (ns)
        v |= PMU_PMPCSR_NS;
    if (p->ctx.have_rme && nse)
        v |= PMU_PMPCSR_NSE;
    p->pcsr = v;
    bool has_el2 = armprof_pe_el2_enabled(&p->ctx, s->ss);
    uint32_t cid2 = has_el2 ? s->contextidr_el2 : 0;
    uint16_t vmid = has_el2 && s->el <= 1 && !s->el0h ? s->vmid : 0;
    if (p->cfg.feat_pmuv3_ext64) {
        p->ccidsr = ((uint64_t)cid2 << 32) | s->contextidr_el1;
        p->vcidsr = ap_field_prep(VCIDSR_VMID, vmid) | s->contextidr_el1;
    }
    if (p->cfg.feat_pmuv3_ext32) {
        p->cid1sr = s->contextidr_el1;
        p->cid2sr = cid2;
        p->vidsr = vmid;
    }
    p->stats.pc_samples++;
}

/* Take a sample into PMPCSR and the context registers: allowed, Non-debug state and a sample
 * available -> SetPCSample(); otherwise PMPCSR[31:0] = 0xFFFFFFFF and the rest unchanged. */
static void pcs_take(pmu_t *p, bool valid)
{
    if (!valid || !pmu_pc_sampling_allowed(p) || p->ctx.debug_state) {
        pcs_set_ones(p);
        return;
    }
    pmu_pc_sample s = p->sample;
    if (p->sample_fn) {
        memset(&s, 0, sizeof(s));
        s.valid = p->sample_fn(p->sample_user, &s);
    }
    if (!s.valid) {
        pcs_set_ones(p);
        return;
    }
    pcs_set_sample(p, &s);
}

/* PMUCaptureEvent(), run when the Capture event completes. */
static void capture_complete(pmu_t *p)
{
    settle(p); /* the counters as they are at the completing cycle */
    p->capture_pending = false;
    p->capture_remaining = 0;
    if (pmu_capture_state_now(p) != PMU_CAPTURE_ALLOWED) {
        /* Prohibited: no saved register changes; {NC,SS} = {1,0}. */
        p->vals[S_SSCR] = PMSSCR_NC;
        p->stats.captures_prohibited++;
        ap_log(&p->ops, ARMPROF_LOG_DEBUG, "pmu: Capture event prohibited at cycle %llu",
               (unsigned long long)p->now);
        return;
    }
    for (unsigned i = 0; i < p->cfg.num_counters; i++)
        p->vals[S_EVCNTSVR0 + i] = p->vals[S_EVCNTR0 + i];
    p->vals[S_CCNTSVR] = p->vals[S_CCNTR];
    if (p->cfg.feat_pmuv3_icntr)
        p->vals[S_ICNTSVR] = p->vals[S_ICNTR];
    /* FEAT_PCSRv8p9 with PMPCSCTL.SS == 1: the PC sample is captured before {NC,SS} = {0,0}.
     * The first Capture after SS was set to 1 may record 0xFFFFFFFF (permitted, D13.9). */
    if (p->cfg.feat_pcsr && pcs_ss(p)) {
        pcs_take(p, !(p->cfg.pcsr_first_capture_ones && p->pcs_first));
        p->pcs_first = false;
    }
    /* After these writes, {NC,SS} = {0,0}; then PMU_SNAPSHOT, so that a counter counting it
     * was captured before it counts (D13.9). In Debug state whether the event is generated is
     * CONSTRAINED UNPREDICTABLE. */
    p->vals[S_SSCR] = 0;
    p->stats.captures_ok++;
    if (!p->ctx.debug_state || p->cfg.snapshot_event_in_debug) {
        p->stats.snapshot_events++;
        count_event(p, ARMPROF_EV_PMU_SNAPSHOT, 1);
    }
    /* RLBQZR: "On a successful Capture event, a BRBE freeze event might occur". */
    if (p->cfg.brbe_freeze_on_capture) {
        p->stats.brbe_freezes++;
        if (p->brbe_fn)
            p->brbe_fn(p->brbe_user);
    }
    update_irq(p);
}

/* Starts a Capture event if one may start; the caller sets PMSSCR_EL1.SS. */
static pmu_request_result capture_start(pmu_t *p)
{
    if (!p->cfg.feat_pmuv3_ss)
        return PMU_REQ_NOT_IMPLEMENTED;
    if (!p->powered) {
        p->stats.requests_ignored++;
        return PMU_REQ_IGNORED_POWER;
    }
    if (pmu_capture_state_now(p) == PMU_CAPTURE_DISABLED) {
        p->stats.requests_ignored++; /* RMFJWS */
        return PMU_REQ_IGNORED_DISABLED;
    }
    if (p->capture_pending)
        return PMU_REQ_IN_PROGRESS;
    p->capture_pending = true;
    p->capture_remaining = p->cfg.capture_cycles;
    p->stats.captures_started++;
    return PMU_REQ_STARTED;
}

pmu_request_result pmu_snapshot_request(pmu_t *p)
{
    pmu_request_result r = capture_start(p);
    if (r == PMU_REQ_STARTED) {
        p->vals[S_SSCR] |= PMSSCR_SS;
        if (p->capture_remaining == 0)
            capture_complete(p);
    }
    return r;
}

bool pmu_capture_in_progress(const pmu_t *p) { return p->capture_pending; }

/* ----- Register hooks ---------------------------------------------------------------------- */

static uint64_t res0_counter_mask(void *unit, const ap_regdef *r)
{
    (void)r;
    return ~counter_mask(unit);
}

static uint64_t res0_swinc(void *unit, const ap_regdef *r)
{
    (void)r;
    return ~(counter_mask(unit) & AP_GENMASK(30, 0));
}

static uint64_t res0_pmcr(void *unit, const ap_regdef *r)
{
    const pmu_t *p = unit;
    (void)r;
    uint64_t m = 0;
    if (!p->cfg.feat_pmuv3p5)
        m |= PMCR_LP;
    if (!p->cfg.feat_pmuv3p7)
        m |= PMCR_FZO;
    if (!p->cfg.feat_spev1p2)
        m |= PMCR_FZS;
    return m;
}

static uint64_t res0_evcntr(void *unit, const ap_regdef *r)
{
    const pmu_t *p = unit;
    (void)r;
    return p->cfg.feat_pmuv3p5 ? 0 : AP_GENMASK(63, 32);
}

/* The *CLR registers read as their *SET register, whose slot holds the state. */
static unsigned set_slot_of(unsigned s)
{
    return s == S_CNTENCLR ? S_CNTENSET : s == S_OVSCLR ? S_OVSSET : S_INTENSET;
}

static uint64_t read_clr(void *unit, const ap_regdef *r, uint64_t stored)
{
    const pmu_t *p = unit;
    (void)stored;
    return p->vals[set_slot_of(r->slot)] & access_mask(p);
}

static uint64_t read_set(void *unit, const ap_regdef *r, uint64_t stored)
{
    (void)r;
    return stored & access_mask(unit);
}

static uint64_t prewrite_set(void *unit, const ap_regdef *r, uint64_t old, uint64_t v)
{
    (void)r;
    return old | (v & access_mask(unit));
}

static void postwrite_clr(void *unit, const ap_regdef *r, uint64_t old, uint64_t v)
{
    pmu_t *p = unit;
    (void)old;
    p->vals[set_slot_of(r->slot)] &= ~(v & access_mask(p));
    p->vals[r->slot] = 0;
}

/* PMCR_EL0.N read at EL1 or EL0 with EL2 enabled in the current Security state: MDCR_EL2.HPMN. */
static uint64_t read_pmcr(void *unit, const ap_regdef *r, uint64_t stored)
{
    (void)r;
    return (stored & ~PMCR_N) | ap_field_prep(PMCR_N, counters_accessible(unit));
}

static void postwrite_pmcr(void *unit, const ap_regdef *r, uint64_t old, uint64_t v)
{
    pmu_t *p = unit;
    (void)r; (void)old;
    /* ClearEventCounters(): PMEVCNTR<n>_EL0 only; at EL1 and EL0 with EL2 enabled, not the
     * counters reserved for EL2 */
    if (v & PMCR_P)
        for (unsigned i = 0; i < counters_accessible(p); i++)
            p->vals[S_EVCNTR0 + i] = 0;
    if (v & PMCR_C) /* ZeroCycleCounter() */
        p->vals[S_CCNTR] = 0;
    p->vals[S_PMCR] &= ~(PMCR_P | PMCR_C); /* write-only bits read as 0 */
}

static void postwrite_swinc(void *unit, const ap_regdef *r, uint64_t old, uint64_t v)
{
    pmu_t *p = unit;
    (void)r; (void)old;
    /* PMUSwIncrement(): SW_INCR on each counter whose bit is 1 and that counts SW_INCR; bits of
     * counters the current context cannot access are WI. */
    v &= access_mask(p);
    for (unsigned i = 0; i < p->cfg.num_counters; i++)
        if ((v & AP_BIT(i)) &&
            ap_field_get(EVT_EVTCOUNT, p->vals[S_EVTYPER0 + i]) == PMU_EV_SW_INCR &&
            (counting(p) & AP_BIT(i)))
            counter_add(p, i, 1);
    p->vals[S_SWINC] = 0;
}

/*
 * PMSSCR_EL1: NC is read-only; writing 1 to SS is a Capture request (RSCLCQ) when Capture
 * events are enabled, and is ignored when they are disabled (RMFJWS). Writing 0 to SS does not
 * cancel a Capture event in progress.
 */
static uint64_t prewrite_sscr(void *unit, const ap_regdef *r, uint64_t old, uint64_t v)
{
    pmu_t *p = unit;
    (void)r;
    if ((v & PMSSCR_SS) && capture_start(p) == PMU_REQ_STARTED)
        return old | PMSSCR_SS;
    return old;
}

static void postwrite_sscr(void *unit, const ap_regdef *r, uint64_t old, uint64_t v)
{
    pmu_t *p = unit;
    (void)r; (void)old; (void)v;
    if (p->capture_pending && p->capture_remaining == 0)
        capture_complete(p);
}

/* ----- The register table ------------------------------------------------------------------ */

#define REG(nm, e, s, ...) { .name = nm, .enc = (e), .slot = (s), .check = pmu_check, __VA_ARGS__ }
#define CNTMASK_SET(nm, e, s) \
    REG(nm, e, s, .read = read_set, .prewrite = prewrite_set, .res0_extra = res0_counter_mask)
#define CNTMASK_CLR(nm, e, s) \
    REG(nm, e, s, .read = read_clr, .postwrite = postwrite_clr, .res0_extra = res0_counter_mask)
#define FILTER_RES0 (AP_GENMASK(63, 32) | EVT_MT | EVT_T | AP_GENMASK(19, 16))

#define EVCNTR(n) REG("PMEVCNTR" #n "_EL0", PMU_PMEVCNTR_EL0(n), S_EVCNTR0 + (n), \
                      .flags = AP_REG_NORESET, .res0_extra = res0_evcntr)
#define EVTYPER(n) REG("PMEVTYPER" #n "_EL0", PMU_PMEVTYPER_EL0(n), S_EVTYPER0 + (n), \
                       .flags = AP_REG_NORESET, .res0 = FILTER_RES0)
#define EVCNTSVR(n) REG("PMEVCNTSVR" #n "_EL1", PMU_PMEVCNTSVR_EL1(n), S_EVCNTSVR0 + (n), \
                        .flags = AP_REG_RO | AP_REG_NORESET)
#define ALL31(X) X(0), X(1), X(2), X(3), X(4), X(5), X(6), X(7), X(8), X(9), X(10), X(11), \
    X(12), X(13), X(14), X(15), X(16), X(17), X(18), X(19), X(20), X(21), X(22), X(23), X(24), \
    X(25), X(26), X(27), X(28), X(29), X(30)

static const ap_regdef pmu_regdefs[] = {
    REG("PMCR_EL0", PMU_PMCR_EL0, S_PMCR, .res0 = AP_GENMASK(63, 33) | AP_BIT(10) | AP_BIT(8),
        .ro = PMCR_N | PMCR_IDCODE | PMCR_IMP, .res0_extra = res0_pmcr, .read = read_pmcr,
        .postwrite = postwrite_pmcr),
    CNTMASK_SET("PMCNTENSET_EL0", PMU_PMCNTENSET_EL0, S_CNTENSET),
    CNTMASK_CLR("PMCNTENCLR_EL0", PMU_PMCNTENCLR_EL0, S_CNTENCLR),
    CNTMASK_CLR("PMOVSCLR_EL0", PMU_PMOVSCLR_EL0, S_OVSCLR),
    REG("PMSWINC_EL0", PMU_PMSWINC_EL0, S_SWINC, .res0_extra = res0_swinc,
        .postwrite = postwrite_swinc),
    REG("PMSELR_EL0", PMU_PMSELR_EL0, S_SELR, .res0 = AP_GENMASK(63, 5), .flags = AP_REG_NORESET),
    REG("PMCEID0_EL0", PMU_PMCEID0_EL0, S_CEID0, .flags = AP_REG_RO),
    REG("PMCEID1_EL0", PMU_PMCEID1_EL0, S_CEID1, .flags = AP_REG_RO),
    REG("PMCCNTR_EL0", PMU_PMCCNTR_EL0, S_CCNTR, .flags = AP_REG_NORESET),
    REG("PMXEVTYPER_EL0", PMU_PMXEVTYPER_EL0, S_XEVTYPER),
    REG("PMXEVCNTR_EL0", PMU_PMXEVCNTR_EL0, S_XEVCNTR),
    REG("PMUSERENR_EL0", PMU_PMUSERENR_EL0, S_USERENR, .res0 = AP_GENMASK(63, 4),
        .flags = AP_REG_NORESET),
    CNTMASK_SET("PMINTENSET_EL1", PMU_PMINTENSET_EL1, S_INTENSET),
    CNTMASK_CLR("PMINTENCLR_EL1", PMU_PMINTENCLR_EL1, S_INTENCLR),
    CNTMASK_SET("PMOVSSET_EL0", PMU_PMOVSSET_EL0, S_OVSSET),
    REG("PMCCFILTR_EL0", PMU_PMCCFILTR_EL0, S_CCFILTR, .res0 = FILTER_RES0 | AP_GENMASK(15, 0)),
    REG("PMICNTR_EL0", PMU_PMICNTR_EL0, S_ICNTR, .flags = AP_REG_NORESET),
    REG("PMICFILTR_EL0", PMU_PMICFILTR_EL0, S_ICFILTR, .res0 = FILTER_RES0,
        .ro = EVT_EVTCOUNT, .reset = PMU_EV_INST_RETIRED),
    REG("PMSSCR_EL1", PMU_PMSSCR_EL1, S_SSCR, .res0 = ~(PMSSCR_NC | PMSSCR_SS), .ro = PMSSCR_NC,
        .prewrite = prewrite_sscr, .postwrite = postwrite_sscr),
    REG("PMECR_EL1", PMU_PMECR_EL1, S_ECR, .res0 = ~PMECR_SSE),
    REG("PMCCNTSVR_EL1", PMU_PMCCNTSVR_EL1, S_CCNTSVR, .flags = AP_REG_RO | AP_REG_NORESET),
    REG("PMICNTSVR_EL1", PMU_PMICNTSVR_EL1, S_ICNTSVR, .flags = AP_REG_RO | AP_REG_NORESET),
    ALL31(EVCNTR),
    ALL31(EVTYPER),
    ALL31(EVCNTSVR),
};
#define PMU_NREGS (sizeof(pmu_regdefs) / sizeof(pmu_regdefs[0]))

/* Reset value, with the configuration's read-only fields. */
static uint64_t reset_value(const pmu_t *p, const ap_regdef *r)
{
    switch (r->slot) {
    case S_PMCR:
        return ap_field_prep(PMCR_N, p->cfg.num_counters) | ap_field_prep(PMCR_IMP, p->cfg.imp) |
               ap_field_prep(PMCR_IDCODE, p->cfg.idcode);
    case S_CEID0:
        return p->cfg.pmceid0;
    case S_CEID1:
        return p->cfg.pmceid1;
    default:
        return r->reset;
    }
}

static void do_reset(pmu_t *p, bool cold)
{
    settle(p); /* counters that keep their value over a Warm reset count up to it */
    ap_reg_reset(&p->rf, cold);
    for (size_t i = 0; i < PMU_NREGS; i++)
        p->vals[pmu_regdefs[i].slot] = (pmu_regdefs[i].flags & AP_REG_NORESET) && !cold
                                           ? p->vals[pmu_regdefs[i].slot]
                                           : reset_value(p, &pmu_regdefs[i]);
    p->capture_pending = false;
    p->capture_remaining = 0;
    p->spe_stopped = false;
    /* PC sample registers: 0 at Cold reset, unchanged by Warm reset (UNKNOWN). PMPCSCTL.{SS,EN}
     * reset to 0; with IMP == 0 the state after reset is the configured one (H7.1.1.1). */
    if (cold)
        p->pcsr = p->cid1sr = p->cid2sr = p->vidsr = p->ccidsr = p->vcidsr = 0;
    p->pcsctl = p->cfg.feat_pcsr && p->cfg.pcsr_en_imp ? PMU_PMPCSCTL_IMP : 0;
    p->pcs_suspended = !p->cfg.pcsr_active_at_reset;
    p->pcs_first = false;
    reconfigure(p);
    update_irq(p);
}

/* ----- Configuration and lifetime ---------------------------------------------------------- */

void pmu_config_default(pmu_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->num_counters = 6;
    cfg->feat_pmuv3p5 = true;
    cfg->feat_pmuv3p7 = true;
    cfg->feat_pmuv3_ss = true;
    cfg->feat_pmuv3_icntr = true;
    cfg->feat_spev1p2 = true;
    cfg->capture_cycles = 8;
    /* PMCEID0_EL0: SW_INCR, INST_RETIRED, CPU_CYCLES; IDhi: SAMPLE_POP..SAMPLE_COLLISION,
     * TRB_WRAP, TRB_TRIG (bit 32 + event - 0x4000). */
    cfg->pmceid0 = AP_BIT(PMU_EV_SW_INCR) | AP_BIT(PMU_EV_INST_RETIRED) |
                   AP_BIT(PMU_EV_CPU_CYCLES) | AP_GENMASK(35, 32) |
                   AP_BIT(32 + (ARMPROF_EV_TRB_WRAP - 0x4000)) |
                   AP_BIT(32 + (ARMPROF_EV_TRB_TRIG - 0x4000));
}

static armprof_err why_fail(char *why, size_t whylen, armprof_err e, const char *msg)
{
    if (why && whylen)
        snprintf(why, whylen, "%s", msg);
    return e;
}

armprof_err pmu_config_validate(const pmu_config *cfg, char *why, size_t whylen)
{
    if (!cfg)
        return ARMPROF_ERR_INVAL;
    if (cfg->num_counters > PMU_MAX_COUNTERS)
        return why_fail(why, whylen, ARMPROF_ERR_CFG_RANGE, "num_counters: PMCR_EL0.N is 0..31");
    if (cfg->feat_spev1p2 && !cfg->feat_pmuv3p7)
        return why_fail(why, whylen, ARMPROF_ERR_CFG_FEATURE,
                        "feat_spev1p2: freezing (SPEFreezeOnEvent) needs FEAT_PMUv3p7");
    if (cfg->feat_spe_dpfzs && !cfg->feat_spev1p2)
        return why_fail(why, whylen, ARMPROF_ERR_CFG_FEATURE,
                        "feat_spe_dpfzs: needs FEAT_SPEv1p2 (PMCR_EL0.FZS)");
    if (cfg->sse_reserved > PMU_SSE01_ALLOWED)
        return why_fail(why, whylen, ARMPROF_ERR_CFG_RANGE, "sse_reserved: unknown choice");
    if (cfg->feat_pmuv3_ext32 && cfg->feat_pmuv3_ext64)
        return why_fail(why, whylen, ARMPROF_ERR_CFG_FEATURE,
                        "feat_pmuv3_ext32 and feat_pmuv3_ext64: the external views overlap (Tables "
                        "I5-1 / I5-2); choose one");
    if (cfg->feat_pcsr && !cfg->feat_pmuv3_ext32 && !cfg->feat_pmuv3_ext64)
        return why_fail(why, whylen, ARMPROF_ERR_CFG_FEATURE,
                        "feat_pcsr: needs an external view (feat_pmuv3_ext32 or feat_pmuv3_ext64)");
    if ((cfg->pcsr_en_imp || cfg->pcsr_first_capture_ones) && !cfg->feat_pcsr)
        return why_fail(why, whylen, ARMPROF_ERR_CFG_FEATURE,
                        "pcsr_en_imp / pcsr_first_capture_ones: need feat_pcsr");
    if (cfg->brbe_freeze_on_capture && !cfg->feat_pmuv3_ss)
        return why_fail(why, whylen, ARMPROF_ERR_CFG_FEATURE,
                        "brbe_freeze_on_capture: needs feat_pmuv3_ss (Capture events)");
    return ARMPROF_OK;
}

armprof_err pmu_open(const pmu_config *cfg, const armprof_host_ops *ops, pmu_t **out)
{
    if (!cfg || !out)
        return ARMPROF_ERR_INVAL;
    armprof_err e = pmu_config_validate(cfg, NULL, 0);
    if (e != ARMPROF_OK)
        return e;
    /* Cache-line aligned, so that the hot state at the start shares as few lines as it can. */
    size_t size = (sizeof(pmu_t) + 63) & ~(size_t)63;
    pmu_t *p = aligned_alloc(64, size);
    if (!p)
        return ARMPROF_ERR_NOMEM;
    memset(p, 0, size);
    p->cfg = *cfg;
    p->ev64 = cfg->feat_pmuv3p5;
    if (ops)
        p->ops = *ops;
    armprof_pe_ctx_default(&p->ctx);
    p->rf.defs = pmu_regdefs;
    p->rf.count = PMU_NREGS;
    p->rf.vals = p->vals;
    p->rf.unit = p;
    p->powered = true;
    p->auth.niden = true;
    do_reset(p, true);
    *out = p;
    return ARMPROF_OK;
}

void pmu_close(pmu_t *p) { free(p); }

void pmu_reset(pmu_t *p)
{
    if (p)
        do_reset(p, false);
}

const pmu_config *pmu_get_config(const pmu_t *p) { return &p->cfg; }

armprof_err pmu_set_pe_context(pmu_t *p, const armprof_pe_ctx *ctx)
{
    if (!p || !ctx || ctx->el > 3)
        return ARMPROF_ERR_INVAL;
    settle(p);
    p->ctx = *ctx;
    reconfigure(p);
    update_irq(p);
    return ARMPROF_OK;
}

const armprof_pe_ctx *pmu_get_pe_context(const pmu_t *p) { return &p->ctx; }

void pmu_set_core_powered(pmu_t *p, bool on) { p->powered = on; }

/* ----- Register access --------------------------------------------------------------------- */

/*
 * PMXEVTYPER_EL0 / PMXEVCNTR_EL0 reach the register PMSELR_EL0.SEL selects: SEL == 31 selects
 * PMCCFILTR_EL0 for PMXEVTYPER_EL0; PMXEVCNTR_EL0 with SEL == 31, and SEL >= N, are UNDEFINED
 * (CONSTRAINED UNPREDICTABLE choice).
 */
static armprof_err redirect(const pmu_t *p, uint32_t *enc)
{
    if (*enc != PMU_PMXEVTYPER_EL0 && *enc != PMU_PMXEVCNTR_EL0)
        return ARMPROF_OK;
    unsigned sel = (unsigned)ap_field_get(PMSELR_SEL, p->vals[S_SELR]);
    if (sel == 31 && *enc == PMU_PMXEVTYPER_EL0) {
        *enc = PMU_PMCCFILTR_EL0;
        return ARMPROF_OK;
    }
    if (sel >= counters_accessible(p))
        return ARMPROF_ERR_UNDEFINED;
    *enc = *enc == PMU_PMXEVTYPER_EL0 ? PMU_PMEVTYPER_EL0(sel) : PMU_PMEVCNTR_EL0(sel);
    return ARMPROF_OK;
}

armprof_err pmu_reg_read(pmu_t *p, uint32_t enc, uint64_t *val)
{
    if (!p || !val)
        return ARMPROF_ERR_INVAL;
    settle(p);
    const ap_regdef *r = ap_reg_find(&p->rf, enc);
    if (r && (enc == PMU_PMXEVTYPER_EL0 || enc == PMU_PMXEVCNTR_EL0)) {
        armprof_err e = pmu_check(p, r, false);
        if (e != ARMPROF_OK)
            return e;
        if ((e = redirect(p, &enc)) != ARMPROF_OK)
            return e;
    }
    return ap_reg_read(&p->rf, enc, val);
}

armprof_err pmu_reg_write(pmu_t *p, uint32_t enc, uint64_t val)
{
    if (!p)
        return ARMPROF_ERR_INVAL;
    settle(p);
    const ap_regdef *r = ap_reg_find(&p->rf, enc);
    if (r && (enc == PMU_PMXEVTYPER_EL0 || enc == PMU_PMXEVCNTR_EL0)) {
        armprof_err e = pmu_check(p, r, true);
        if (e != ARMPROF_OK)
            return e;
        if ((e = redirect(p, &enc)) != ARMPROF_OK)
            return e;
    }
    armprof_err e = ap_reg_write(&p->rf, enc, val);
    if (e == ARMPROF_OK) {
        reconfigure(p); /* PMCR_EL0, PMCNTEN*, PMEVTYPER*, filters, counter values */
        update_irq(p);
    }
    return e;
}

armprof_err pmu_reg_peek(const pmu_t *p, uint32_t enc, uint64_t *val)
{
    if (!p || !val)
        return ARMPROF_ERR_INVAL;
    /* Settling pending cycles changes no observable state: the counters read as if settled. */
    settle((pmu_t *)p);
    armprof_err e = redirect(p, &enc);
    if (e != ARMPROF_OK)
        return e;
    const ap_regdef *r = ap_reg_find(&p->rf, enc);
    if (!r || !slot_present(p, r->slot))
        return ARMPROF_ERR_NOREG;
    uint64_t v = p->vals[r->slot];
    *val = r->read ? r->read((void *)p, r, v) : v;
    return ARMPROF_OK;
}

static bool reg_listed(const pmu_t *p, const ap_regdef *r)
{
    int n = slot_counter(r->slot);
    return slot_present(p, r->slot) && (n < 0 || n < p->cfg.num_counters);
}

size_t pmu_reg_count(const pmu_t *p)
{
    size_t n = 0;
    for (size_t i = 0; i < PMU_NREGS; i++)
        n += reg_listed(p, &pmu_regdefs[i]);
    return n;
}

armprof_err pmu_reg_info_at(const pmu_t *p, size_t index, pmu_reg_info *info)
{
    if (!p || !info)
        return ARMPROF_ERR_INVAL;
    for (size_t i = 0; i < PMU_NREGS; i++) {
        const ap_regdef *r = &pmu_regdefs[i];
        if (!reg_listed(p, r))
            continue;
        if (index--)
            continue;
        memset(info, 0, sizeof(*info));
        info->name = r->name;
        info->enc = r->enc;
        info->reset = reset_value(p, r);
        info->res0 = ap_reg_res0(&p->rf, r);
        info->ro = r->ro;
        info->read_only = r->flags & AP_REG_RO;
        info->write_only = r->slot == S_SWINC;
        return ARMPROF_OK;
    }
    return ARMPROF_ERR_INVAL;
}

/* ----- Time, freeze, observation ----------------------------------------------------------- */

void pmu_advance(pmu_t *p, uint64_t cycles)
{
    if (!p)
        return;
    if (!p->capture_pending && !p->reference) {
        /* The common case: O(1) unless an overflow is due (PMUIRQ only changes then). */
        p->now += cycles;
        if (p->now - p->settled >= p->due) {
            settle(p);
            update_irq(p);
        }
        return;
    }
    while (cycles) {
        uint64_t step = cycles;
        if (p->capture_pending && p->capture_remaining < step)
            step = p->capture_remaining;
        p->now += step;
        cycles -= step;
        if (p->reference || p->now - p->settled >= p->due)
            settle(p); /* an overflow is due in this step */
        if (p->capture_pending) {
            p->capture_remaining -= step;
            if (p->capture_remaining == 0)
                capture_complete(p); /* counters as they are at the completing cycle */
        }
    }
    update_irq(p);
}

uint64_t pmu_cycles_to_next_event(const pmu_t *p)
{
    return p->capture_pending ? p->capture_remaining : UINT64_MAX;
}

uint64_t pmu_cycles_to_overflow(const pmu_t *p)
{
    uint64_t left = p->due - (p->now - p->settled);
    /* further than 2^62 cycles (a 64-bit counter's overflow): as none */
    return p->due == UINT64_MAX || left > (1ull << 62) ? UINT64_MAX : left;
}

void pmu_set_reference_mode(pmu_t *p, bool on)
{
    settle(p);
    p->reference = on;
    reconfigure(p);
}

uint64_t pmu_now(const pmu_t *p) { return p->now; }

/* ----- External view of the PC Sample-based Profiling registers ---------------------------- */

/* The 32-bit word at `off`: its 64-bit backing register and bit shift; NULL if the configured
 * view has no register there. Offsets: Arm ARM I5.2.1 Tables I5-1 / I5-2. */
static uint64_t *ext_word(pmu_t *p, uint32_t off, unsigned *shift)
{
    *shift = 0;
    if (off == PMU_EXT_PMPCSCTL || off == PMU_EXT_PMPCSCTL + 4) {
        *shift = off & 4 ? 32 : 0;
        return &p->pcsctl;
    }
    if (off >= 0x220 && off < 0x228)
        off -= 0x20; /* PMPCSR alias */
    if (off == PMU_EXT_PMPCSR || off == PMU_EXT_PMPCSR + 4) {
        *shift = off & 4 ? 32 : 0;
        return &p->pcsr;
    }
    if (p->cfg.feat_pmuv3_ext64) {
        if (off == PMU_EXT_PMVCIDSR || off == PMU_EXT_PMVCIDSR + 4) {
            *shift = off & 4 ? 32 : 0;
            return &p->vcidsr;
        }
        if (off == PMU_EXT_PMCCIDSR || off == PMU_EXT_PMCCIDSR + 4) {
            *shift = off & 4 ? 32 : 0;
            return &p->ccidsr;
        }
        return NULL;
    }
    switch (off) {
    case PMU_EXT_PMCID1SR:
    case PMU_EXT_PMCID1SR_ALIAS:
        return &p->cid1sr;
    case PMU_EXT_PMVIDSR:
        return &p->vidsr;
    case PMU_EXT_PMCID2SR:
        return &p->cid2sr;
    default:
        return NULL;
    }
}

static armprof_err ext_check(pmu_t *p, uint32_t off, unsigned size)
{
    if (size != 4 && size != 8)
        return ARMPROF_ERR_INVAL;
    if (off % size)
        return ARMPROF_ERR_INVAL;
    if (!p->cfg.feat_pcsr)
        return ARMPROF_ERR_NOREG;
    unsigned sh;
    for (unsigned w = 0; w < size; w += 4)
        if (!ext_word(p, off + w, &sh))
            return ARMPROF_ERR_NOREG;
    return ARMPROF_OK;
}

/* Read_PMPCSR(): sampling on reads (PMPCSCTL.SS == 0). A read while suspended activates PC
 * Sample-based Profiling (SetPCSRActive) and returns 0xFFFFFFFF in [31:0]. */
static void read_pmpcsr(pmu_t *p)
{
    if (pcs_ss(p))
        return; /* sampling on reads disabled: the value of the last sample, no side effect */
    bool valid = true;
    bool imp = p->pcsctl & PMU_PMPCSCTL_IMP;
    if ((imp && !(p->pcsctl & PMU_PMPCSCTL_EN)) || (!imp && p->pcs_suspended)) {
        valid = false;
        if (imp)
            p->pcsctl |= PMU_PMPCSCTL_EN;
        else
            p->pcs_suspended = false;
    }
    pcs_take(p, valid);
}

armprof_err pmu_ext_read(pmu_t *p, uint32_t off, unsigned size, uint64_t *val)
{
    if (!p || !val)
        return ARMPROF_ERR_INVAL;
    armprof_err e = ext_check(p, off, size);
    if (e != ARMPROF_OK)
        return e;
    if (off == PMU_EXT_PMPCSR || off == PMU_EXT_PMPCSR_ALIAS)
        read_pmpcsr(p); /* a read of PMPCSR[31:0] or PMPCSR[63:0] */
    uint64_t v = 0;
    for (unsigned w = 0; w < size; w += 4) {
        unsigned sh;
        uint64_t *r = ext_word(p, off + w, &sh);
        v |= ((*r >> sh) & 0xFFFFFFFFull) << (w * 8);
    }
    *val = v;
    return ARMPROF_OK;
}

armprof_err pmu_ext_write(pmu_t *p, uint32_t off, unsigned size, uint64_t val)
{
    if (!p)
        return ARMPROF_ERR_INVAL;
    armprof_err e = ext_check(p, off, size);
    if (e != ARMPROF_OK)
        return e;
    if (off != PMU_EXT_PMPCSCTL)
        return ARMPROF_OK; /* sample registers and PMPCSCTL[63:32]: writes ignored */
    uint64_t wmask = 0;
    if (p->cfg.feat_pmuv3_ss)
        wmask |= PMU_PMPCSCTL_SS;
    if (p->pcsctl & PMU_PMPCSCTL_IMP)
        wmask |= PMU_PMPCSCTL_EN;
    uint64_t old = p->pcsctl;
    p->pcsctl = (old & ~wmask) | (val & wmask);
    if (!(old & PMU_PMPCSCTL_SS) && (p->pcsctl & PMU_PMPCSCTL_SS))
        p->pcs_first = true;
    return ARMPROF_OK;
}

void pmu_set_pc_sample(pmu_t *p, const pmu_pc_sample *s)
{
    if (p && s)
        p->sample = *s;
}

void pmu_set_pc_sample_hook(pmu_t *p, pmu_pc_sample_fn fn, void *user)
{
    p->sample_fn = fn;
    p->sample_user = user;
}

void pmu_set_debug_auth(pmu_t *p, const pmu_debug_auth *a)
{
    if (p && a)
        p->auth = *a;
}

void pmu_set_brbe_freeze_hook(pmu_t *p, pmu_brbe_freeze_fn fn, void *user)
{
    p->brbe_fn = fn;
    p->brbe_user = user;
}

void pmu_event_sink(void *pmu, uint16_t event, uint64_t count)
{
    pmu_count_event(pmu, event, count);
}

void pmu_freeze_sink(void *pmu)
{
    pmu_t *p = pmu;
    if (!p)
        return;
    p->stats.freeze_events++;
    pmu_set_spe_freeze(p, true);
}

void pmu_set_spe_freeze(pmu_t *p, bool stopped)
{
    if (p->spe_stopped == stopped)
        return;
    settle(p);
    p->spe_stopped = stopped;
    reconfigure(p);
}

bool pmu_spe_frozen(const pmu_t *p)
{
    return spe_freeze_on_event(p, 0, false); /* the first range (PMCR_EL0.FZS) */
}

bool pmu_irq_level(const pmu_t *p) { return p->irq; }

void pmu_get_stats(const pmu_t *p, pmu_stats *st)
{
    *st = p->stats;
    st->events_in = p->events_in;
}

/* ----- Checkpoints ------------------------------------------------------------------------- */

static uint64_t cfg_hash(const pmu_config *c)
{
    uint64_t v[] = { c->num_counters, c->imp, c->idcode, c->pmceid0, c->pmceid1,
                     c->feat_pmuv3p5, c->feat_pmuv3p7, c->feat_pmuv3_ss, c->feat_pmuv3_icntr,
                     c->feat_spev1p2, c->feat_spe_dpfzs, c->capture_cycles, c->capture_in_debug,
                     c->snapshot_event_in_debug, (uint64_t)c->sse_reserved, c->feat_pcsr,
                     c->feat_pmuv3_ext32, c->feat_pmuv3_ext64, c->pcsr_en_imp,
                     c->pcsr_active_at_reset, c->pcsr_first_capture_ones,
                     c->brbe_freeze_on_capture };
    return ap_fnv1a64(v, sizeof(v), AP_FNV_INIT);
}

armprof_err pmu_save(const pmu_t *p, uint8_t *buf, size_t cap, size_t *len)
{
    if (!p || !len)
        return ARMPROF_ERR_INVAL;
    settle((pmu_t *)p); /* the state holds settled counters; no observable change */
    ap_state_writer w;
    ap_state_begin(&w, buf, cap, PMU_STATE_TAG, PMU_STATE_VERSION, cfg_hash(&p->cfg));
    for (unsigned i = 0; i < S__COUNT; i++)
        ap_state_put_u64(&w, p->vals[i]);
    ap_state_put_u64(&w, p->now);
    ap_state_put_u32(&w, p->capture_pending | (p->spe_stopped << 1) | (p->powered << 2) |
                             (p->irq << 3));
    ap_state_put_u64(&w, p->capture_remaining);
    pmu_stats stats;
    pmu_get_stats(p, &stats);
    const uint64_t *st = (const uint64_t *)&stats;
    for (size_t i = 0; i < sizeof(stats) / sizeof(uint64_t); i++)
        ap_state_put_u64(&w, st[i]);
    ap_state_put(&w, &p->ctx, sizeof(p->ctx));
    /* Version 2: FEAT_PCSRv8p9 registers, state, the host's sample and authentication inputs. */
    const uint64_t pcs[] = { p->pcsr, p->cid1sr, p->cid2sr, p->vidsr, p->ccidsr, p->vcidsr,
                             p->pcsctl };
    for (size_t i = 0; i < sizeof(pcs) / sizeof(pcs[0]); i++)
        ap_state_put_u64(&w, pcs[i]);
    const pmu_pc_sample *s = &p->sample;
    ap_state_put_u32(&w, p->pcs_first | (p->pcs_suspended << 1) | (s->valid << 2) |
                             (s->aarch32 << 3) | (s->el0h << 4) | (p->auth.niden << 5) |
                             (p->auth.spniden << 6) | (p->auth.rlpiden << 7) |
                             (p->auth.rtpiden << 8));
    ap_state_put_u64(&w, s->pc);
    ap_state_put_u32(&w, s->el | ((uint32_t)s->ss << 8) | ((uint32_t)s->vmid << 16));
    ap_state_put_u32(&w, s->contextidr_el1);
    ap_state_put_u32(&w, s->contextidr_el2);
    armprof_err e = ap_state_end(&w);
    *len = w.len;
    return e;
}

armprof_err pmu_restore(pmu_t *p, const uint8_t *buf, size_t len)
{
    if (!p)
        return ARMPROF_ERR_INVAL;
    ap_state_reader r;
    armprof_err e = ap_state_open(&r, buf, len, PMU_STATE_TAG, PMU_STATE_VERSION,
                                  cfg_hash(&p->cfg));
    if (e != ARMPROF_OK)
        return e;
    pmu_t tmp = *p;
    for (unsigned i = 0; i < S__COUNT; i++)
        tmp.vals[i] = ap_state_get_u64(&r);
    tmp.now = ap_state_get_u64(&r);
    uint32_t flags = ap_state_get_u32(&r);
    tmp.capture_pending = flags & 1;
    tmp.spe_stopped = flags & 2;
    tmp.powered = flags & 4;
    tmp.irq = flags & 8;
    tmp.capture_remaining = ap_state_get_u64(&r);
    uint64_t *st = (uint64_t *)&tmp.stats;
    for (size_t i = 0; i < sizeof(tmp.stats) / sizeof(uint64_t); i++)
        st[i] = ap_state_get_u64(&r);
    ap_state_get(&r, &tmp.ctx, sizeof(tmp.ctx));
    uint64_t *pcs[] = { &tmp.pcsr, &tmp.cid1sr, &tmp.cid2sr, &tmp.vidsr, &tmp.ccidsr,
                        &tmp.vcidsr, &tmp.pcsctl };
    for (size_t i = 0; i < sizeof(pcs) / sizeof(pcs[0]); i++)
        *pcs[i] = ap_state_get_u64(&r);
    uint32_t pf = ap_state_get_u32(&r);
    pmu_pc_sample *s = &tmp.sample;
    tmp.pcs_first = pf & 1;
    tmp.pcs_suspended = pf & 2;
    s->valid = pf & 4;
    s->aarch32 = pf & 8;
    s->el0h = pf & 16;
    tmp.auth.niden = pf & 32;
    tmp.auth.spniden = pf & 64;
    tmp.auth.rlpiden = pf & 128;
    tmp.auth.rtpiden = pf & 256;
    s->pc = ap_state_get_u64(&r);
    uint32_t es = ap_state_get_u32(&r);
    s->el = es & 3;
    s->ss = (armprof_security)((es >> 8) & 3);
    s->vmid = (uint16_t)(es >> 16);
    s->contextidr_el1 = ap_state_get_u32(&r);
    s->contextidr_el2 = ap_state_get_u32(&r);
    if ((e = ap_state_close(&r)) != ARMPROF_OK)
        return e;
    bool old_irq = p->irq;
    memcpy(p->vals, tmp.vals, sizeof(p->vals));
    p->now = tmp.now;
    p->capture_pending = tmp.capture_pending;
    p->capture_remaining = tmp.capture_remaining;
    p->spe_stopped = tmp.spe_stopped;
    p->powered = tmp.powered;
    p->stats = tmp.stats;
    p->events_in = tmp.stats.events_in;
    p->ctx = tmp.ctx;
    p->pcsr = tmp.pcsr;
    p->cid1sr = tmp.cid1sr;
    p->cid2sr = tmp.cid2sr;
    p->vidsr = tmp.vidsr;
    p->ccidsr = tmp.ccidsr;
    p->vcidsr = tmp.vcidsr;
    p->pcsctl = tmp.pcsctl;
    p->pcs_first = tmp.pcs_first;
    p->pcs_suspended = tmp.pcs_suspended;
    p->sample = tmp.sample;
    p->auth = tmp.auth;
    p->irq = old_irq;
    p->settled = p->now;
    reconfigure(p);
    update_irq(p); /* drive the output to the restored level */
    return ARMPROF_OK;
}
