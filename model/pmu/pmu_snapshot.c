/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pmu_snapshot.c: PMU snapshots (FEAT_PMUv3_SS, Arm ARM D13.9): Capture events disabled,
 * prohibited or allowed (RYWLFL, RTSYTY, Table D13-10: RVPZHN, RDBRSV), a Capture request by
 * PMSSCR_EL1.SS or the host (RSCLCQ; ignored when disabled, RMFJWS), its completion writing
 * PMEVCNTSVR<n>_EL1 (RVLKCZ), PMCCNTSVR_EL1, PMICNTSVR_EL1 and the PC sample (RTYNSW), then
 * PMSSCR_EL1.{NC,SS} (RWSVYM), the PMU_SNAPSHOT event and the BRBE freeze (RLBQZR).
 */
#include "armprof/pmu.h"
#include "pmu/pmu_internal.h"

#include "common/log.h"

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

/* PMUCaptureEvent(), run when the Capture event completes. */
void pmu_capture_complete(pmu_t *p)
{
    pmu_settle(p); /* the counters as they are at the completing cycle */
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
    if (p->cfg.feat_pcsr && pmu_pcs_ss(p)) {
        pmu_pcs_take(p, !(p->cfg.pcsr_first_capture_ones && p->pcs_first));
        p->pcs_first = false;
    }
    /* After these writes, {NC,SS} = {0,0}; then PMU_SNAPSHOT, so that a counter counting it
     * was captured before it counts (D13.9). In Debug state whether the event is generated is
     * CONSTRAINED UNPREDICTABLE. */
    p->vals[S_SSCR] = 0;
    p->stats.captures_ok++;
    if (!p->ctx.debug_state || p->cfg.snapshot_event_in_debug) {
        p->stats.snapshot_events++;
        pmu_add_event(p, ARMPROF_EV_PMU_SNAPSHOT, 1);
    }
    /* RLBQZR: "On a successful Capture event, a BRBE freeze event might occur". */
    if (p->cfg.brbe_freeze_on_capture) {
        p->stats.brbe_freezes++;
        if (p->brbe_fn)
            p->brbe_fn(p->brbe_user);
    }
    pmu_update_irq(p);
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
            pmu_capture_complete(p);
    }
    return r;
}

bool pmu_capture_in_progress(const pmu_t *p) { return p->capture_pending; }

/*
 * PMSSCR_EL1: NC is read-only; writing 1 to SS is a Capture request (RSCLCQ) when Capture
 * events are enabled, and is ignored when they are disabled (RMFJWS). Writing 0 to SS does not
 * cancel a Capture event in progress.
 */
uint64_t pmu_prewrite_sscr(void *unit, const ap_regdef *r, uint64_t old, uint64_t v)
{
    pmu_t *p = unit;
    (void)r;
    if ((v & PMSSCR_SS) && capture_start(p) == PMU_REQ_STARTED)
        return old | PMSSCR_SS;
    return old;
}

void pmu_postwrite_sscr(void *unit, const ap_regdef *r, uint64_t old, uint64_t v)
{
    pmu_t *p = unit;
    (void)r; (void)old; (void)v;
    if (p->capture_pending && p->capture_remaining == 0)
        pmu_capture_complete(p);
}

void pmu_set_brbe_freeze_hook(pmu_t *p, pmu_brbe_freeze_fn fn, void *user)
{
    p->brbe_fn = fn;
    p->brbe_user = user;
}
