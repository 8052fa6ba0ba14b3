/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pmu_count.c: event counting (Arm ARM D13, PMUEvent / CountPMUEvents), counter overflow at bit
 * 31 or 63 (PMCR_EL0.{LC,LP}, MDCR_EL2.HLP for the counters MDCR_EL2.HPMN reserves for EL2; the
 * HPMN ranges are in pmu_internal.h), the PMU overflow interrupt (CheckForPMUOverflow: PMINTEN,
 * PMCR_EL0.E or MDCR_EL2.HPME), PMSWINC_EL0, and the speed of it all: enables cached per event,
 * cycles applied lazily. The hot paths, pmu_count_event() and pmu_advance(), stay in this file
 * so that they inline.
 */
#include <string.h>

#include "armprof/pmu.h"
#include "pmu/pmu_internal.h"

/* CheckForPMUOverflow(): an overflow flag with its interrupt enabled, of a counter whose main
 * enable is on (MDCR_EL2.HPME for the counters reserved for EL2, PMCR_EL0.E for the others). */
static void update_irq(pmu_t *p)
{
    uint64_t pend = p->vals[S_OVSSET] & p->vals[S_INTENSET] & pmu_counter_mask(p);
    uint64_t hyp = pmu_hyp_mask(p);
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
        uint64_t hyp = pmu_hyp_mask(p), all = AP_GENMASK(p->cfg.num_counters - 1, 0);
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
    return p->reference ? pmu_count_mask_now(p) : p->count_mask;
}

static uint64_t counting_cycles(const pmu_t *p)
{
    return p->reference ? pmu_count_mask_now(p) & compute_cycle_mask(p)
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
    p->count_mask = pmu_count_mask_now(p);
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
        uint64_t on = pmu_count_mask_now(p), m = 0;
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

void pmu_postwrite_swinc(void *unit, const ap_regdef *r, uint64_t old, uint64_t v)
{
    pmu_t *p = unit;
    (void)r; (void)old;
    /* PMUSwIncrement(): SW_INCR on each counter whose bit is 1 and that counts SW_INCR; bits of
     * counters the current context cannot access are WI. */
    v &= pmu_access_mask(p);
    for (unsigned i = 0; i < p->cfg.num_counters; i++)
        if ((v & AP_BIT(i)) &&
            ap_field_get(EVT_EVTCOUNT, p->vals[S_EVTYPER0 + i]) == PMU_EV_SW_INCR &&
            (counting(p) & AP_BIT(i)))
            counter_add(p, i, 1);
    p->vals[S_SWINC] = 0;
}

/* ----- Time, observation -------------------------------------------------------------------- */

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
                pmu_capture_complete(p); /* counters as they are at the completing cycle */
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

void pmu_event_sink(void *pmu, uint16_t event, uint64_t count)
{
    pmu_count_event(pmu, event, count);
}

bool pmu_irq_level(const pmu_t *p) { return p->irq; }

/* ----- For the other source files ----------------------------------------------------------- */

void pmu_settle(pmu_t *p) { settle(p); }
void pmu_update_irq(pmu_t *p) { update_irq(p); }
void pmu_reconfigure(pmu_t *p) { reconfigure(p); }
bool pmu_add_event(pmu_t *p, uint16_t event, uint64_t n) { return count_event(p, event, n); }
