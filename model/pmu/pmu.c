/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pmu.c: the PMU model (PMU event counters and PMU snapshot Capture events, Arm ARM D13.9,
 * FEAT_PMUv3_SS): configuration, life cycle, PE context, statistics and checkpoints. The rest,
 * by spec section: pmu_count.c, pmu_filter.c, pmu_snapshot.c, pmu_pcsample.c, pmu_regs.c (see
 * pmu_internal.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "armprof/pmu.h"
#include "pmu/pmu_internal.h"
#include "common/state.h"

#define PMU_STATE_TAG 0x504D5530u /* "PMU0" */
#define PMU_STATE_VERSION 3u /* 2: FEAT_PCSRv8p9 state; 3: armprof_pe_ctx MDCR_EL2.{HPME,HPMD,HLP,HPMFZS} */

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
    pmu_regs_init(p);
    p->powered = true;
    p->auth.niden = true;
    pmu_do_reset(p, true);
    *out = p;
    return ARMPROF_OK;
}

void pmu_close(pmu_t *p) { free(p); }

void pmu_reset(pmu_t *p)
{
    if (p)
        pmu_do_reset(p, false);
}

const pmu_config *pmu_get_config(const pmu_t *p) { return &p->cfg; }

armprof_err pmu_set_pe_context(pmu_t *p, const armprof_pe_ctx *ctx)
{
    if (!p || !ctx || ctx->el > 3)
        return ARMPROF_ERR_INVAL;
    pmu_settle(p);
    p->ctx = *ctx;
    pmu_reconfigure(p);
    pmu_update_irq(p);
    return ARMPROF_OK;
}

const armprof_pe_ctx *pmu_get_pe_context(const pmu_t *p) { return &p->ctx; }

void pmu_set_core_powered(pmu_t *p, bool on) { p->powered = on; }

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
    pmu_settle((pmu_t *)p); /* the state holds settled counters; no observable change */
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
    pmu_reconfigure(p);
    pmu_update_irq(p); /* drive the output to the restored level */
    return ARMPROF_OK;
}
