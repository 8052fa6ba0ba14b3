/* SPDX-License-Identifier: Apache-2.0 */
/* spu.c: the Statistical Profiling Unit: enables, sample counter, filters, records, FIFO, buffer writer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/state.h"
#include "spu_internal.h"

#define SPU_STATE_TAG 0x53505531u /* "SPU1" */
#define SPU_STATE_VERSION 2u

/* =============================================================================================
 * Configuration
 * ============================================================================================= */

void spu_config_default(spu_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->max_size = 6;          /* 64-byte records */
    cfg->count_size = 2;        /* 12-bit saturating counters */
    cfg->interval = 0;          /* minimum interval 256 */
    cfg->format = 0;
    cfg->ernd = false;
    cfg->lds = true;
    cfg->arch_inst = true;
    cfg->fe = cfg->ft = cfg->fl = true;
    cfg->align = 0;
    cfg->flag_update = true;
    cfg->ea = SPU_EA_REPORT;
    cfg->nvm_bit = 3;
    cfg->envm_bit = 8;
    cfg->rng_seed = 0;
    cfg->ptr_policy = SPU_PTR_BUFFER_FULL;
    cfg->max_inflight = 4;
    cfg->fifo_bytes = 1024;
    cfg->drain_bytes_per_cycle = 16;
    cfg->write_granule = 4096;
    cfg->write_bytes = 0;             /* one write per record, as before memory timing */
    cfg->max_outstanding_writes = 1;
    cfg->cycles_per_tick = 1;
}

static armprof_err cfg_fail(char *why, size_t n, armprof_err e, const char *msg)
{
    if (why && n)
        snprintf(why, n, "%s", msg);
    return e;
}

armprof_err spu_config_validate(const spu_config *cfg, char *why, size_t n)
{
    if (!cfg)
        return cfg_fail(why, n, ARMPROF_ERR_INVAL, "config is NULL");
    if (cfg->max_size < 4 || cfg->max_size > 11)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_RESERVED,
                        "PMSIDR_EL1.MaxSize must be 0b0100 (16 B) .. 0b1011 (2 KiB)");
    if (cfg->count_size != 2 && cfg->count_size != 3)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_RESERVED,
                        "PMSIDR_EL1.CountSize must be 0b0010 (12-bit) or 0b0011 (16-bit)");
    if (cfg->interval == 1 || cfg->interval > 8)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_RESERVED,
                        "PMSIDR_EL1.Interval must be 0b0000 or 0b0010 .. 0b1000");
    if (cfg->format > 15)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_RANGE, "PMSIDR_EL1.FORMAT is 4 bits");
    if (cfg->align > 11)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_RESERVED,
                        "PMBIDR_EL1.Align must be 0b0000 .. 0b1011 (2 KiB)");
    if (cfg->align > cfg->max_size)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_ALIGN,
                        "PMBIDR_EL1.Align larger than PMSIDR_EL1.MaxSize: no record could be padded");
    if (cfg->ea > SPU_EA_SERROR)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_RESERVED, "PMBIDR_EL1.EA must be 0b0000..0b0010");
    if (cfg->fne && !cfg->feat_spev1p2)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_FEATURE, "PMSIDR_EL1.FnE needs FEAT_SPEv1p2");
    if (cfg->feat_spe_nvm && (cfg->nvm_bit < 3 || cfg->nvm_bit > 11 || cfg->nvm_bit == 5))
        return cfg_fail(why, n, ARMPROF_ERR_CFG_RANGE,
                        "nvm_bit must be a RES0 bit of PMBLIMITR_EL1 in [11:3] other than PMFZ (5)");
    if (cfg->feat_spe_nvm && (cfg->envm_bit < 8 || cfg->envm_bit > 63))
        return cfg_fail(why, n, ARMPROF_ERR_CFG_RANGE, "envm_bit must be a RES0 bit of PMSCR_EL2 in [63:8]");
    if (cfg->ptr_policy > SPU_PTR_WRITE)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_RANGE, "ptr_policy out of range");
    if (cfg->max_inflight == 0 || cfg->max_inflight > 4096)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_RANGE, "max_inflight must be 1 .. 4096");
    if (cfg->fifo_bytes == 0)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_FIFO, "record FIFO depth is zero");
    if (cfg->fifo_bytes < (1u << cfg->max_size))
        return cfg_fail(why, n, ARMPROF_ERR_CFG_FIFO,
                        "record FIFO smaller than one maximum-size record (2^MaxSize bytes)");
    if (cfg->fifo_bytes > (64u << 20))
        return cfg_fail(why, n, ARMPROF_ERR_CFG_FIFO, "record FIFO larger than 64 MiB");
    if (cfg->drain_bytes_per_cycle == 0)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_FIFO, "record FIFO drain rate is zero");
    if (cfg->write_granule < 16 || (cfg->write_granule & (cfg->write_granule - 1)))
        return cfg_fail(why, n, ARMPROF_ERR_CFG_RANGE, "write_granule must be a power of two >= 16");
    if (cfg->write_bytes && (cfg->write_bytes < 16 || (cfg->write_bytes & (cfg->write_bytes - 1)) ||
                             cfg->write_bytes > cfg->write_granule || cfg->write_bytes > 65536))
        return cfg_fail(why, n, ARMPROF_ERR_CFG_RANGE,
                        "write_bytes must be 0 (one write per record) or a power of two, "
                        "16 .. write_granule (and <= 64 KiB)");
    if (cfg->max_outstanding_writes == 0 || cfg->max_outstanding_writes > 256)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_RANGE, "max_outstanding_writes must be 1 .. 256");
    if (cfg->cycles_per_tick == 0)
        return cfg_fail(why, n, ARMPROF_ERR_CFG_RANGE, "cycles_per_tick is zero");
    return ARMPROF_OK;
}

/* A hash of everything that shapes the state layout and behaviour, for checkpoints. */
static uint64_t cfg_hash(const spu_config *c)
{
    uint64_t f[] = { spu_pmsidr_value(c), c->align, c->flag_update, c->ea, c->feat_spev1p2,
                     c->feat_spe_nvm, c->feat_ecv, c->nvm_bit, c->envm_bit, c->sample_next_op,
                     c->cu_fe_zero_discards, c->cu_ft_zero_discards, c->cu_fl_zero_discards,
                     c->ptr_policy, c->ts_when_timer_off, c->max_inflight, c->fifo_bytes,
                     c->drain_bytes_per_cycle, c->write_granule, c->cycles_per_tick,
                     c->write_bytes, c->max_outstanding_writes };
    return ap_fnv1a64(f, sizeof(f), AP_FNV_INIT);
}

/* =============================================================================================
 * Open / close / reset
 * ============================================================================================= */

static uint32_t fifo_ring_bytes(const spu_config *c) { return c->fifo_bytes + (1u << c->max_size); }

/* The writer's unissued bytes: a partial block (< write_bytes), the bytes that left the FIFO at
 * one edge whose drain began while the writer was ready (< fifo_bytes), and one record. */
static uint32_t wbuf_bytes(const spu_config *c)
{
    uint32_t need = (1u << c->max_size) + c->write_bytes + c->fifo_bytes, cap = 16;
    while (cap < need)
        cap <<= 1;
    return cap;
}

/* The largest single write: a record (write_bytes 0) or a block. */
static uint32_t wtmp_bytes(const spu_config *c)
{
    return c->write_bytes > (1u << c->max_size) ? c->write_bytes : (1u << c->max_size);
}

armprof_err spu_open(const spu_config *cfg, const armprof_host_ops *ops, spu_t **out)
{
    if (!out)
        return ARMPROF_ERR_INVAL;
    *out = NULL;
    char why[160];
    armprof_err e = spu_config_validate(cfg, why, sizeof(why));
    if (e != ARMPROF_OK) {
        if (ops)
            ap_log(ops, ARMPROF_LOG_ERROR, "spu_open: %s", why);
        return e;
    }
    spu_t *spu = calloc(1, sizeof(*spu));
    if (!spu)
        return ARMPROF_ERR_NOMEM;
    spu->cfg = *cfg;
    if (ops)
        spu->ops = *ops;
    spu->slots = calloc(cfg->max_inflight, sizeof(spu_slot));
    spu->slot_bytes = calloc(cfg->max_inflight, (size_t)1 << cfg->max_size);
    spu->ring_bytes = fifo_ring_bytes(cfg);
    spu->fifo_data = calloc(1, fifo_ring_bytes(cfg));
    /* The smallest record is an Events packet and an End packet: 3 bytes. */
    spu->fifo_nrec_cap = cfg->fifo_bytes / 3 + 2;
    spu->fifo_recs = calloc(spu->fifo_nrec_cap, sizeof(spu_fifo_rec));
    spu->wbuf = calloc(1, wbuf_bytes(cfg));
    spu->wbuf_mask = wbuf_bytes(cfg) - 1;
    spu->wtmp = calloc(1, wtmp_bytes(cfg));
    spu->wq = calloc(cfg->max_outstanding_writes, sizeof(spu_wr));
    spu->wr_cap = 4 * cfg->max_outstanding_writes + 4;
    spu->wr = calloc(spu->wr_cap, sizeof(spu_wrec));
    spu->next_done = UINT64_MAX;
    /* Bin width: fifo_bytes / SPU_FIFO_HIST_BINS rounded up to a power of two (a shift). */
    while (((uint32_t)SPU_FIFO_HIST_BINS << spu->hist_shift) < cfg->fifo_bytes)
        spu->hist_shift++;
    if (!spu->slots || !spu->slot_bytes || !spu->fifo_data || !spu->fifo_recs || !spu->wbuf ||
        !spu->wtmp || !spu->wq || !spu->wr) {
        spu_close(spu);
        return ARMPROF_ERR_NOMEM;
    }
    spu->rf.defs = spu_regdefs;
    spu->rf.count = spu_regdefs_count;
    spu->rf.vals = spu->regs;
    spu->rf.unit = spu;
    armprof_pe_ctx_default(&spu->ctx);
    ap_reg_reset(&spu->rf, true);
    ap_rng_seed(&spu->rng, cfg->rng_seed);
    spu->next_complete = UINT64_MAX;
    spu->slot_shift = cfg->max_size;
    spu->fmt = (spe_format_cfg){ .max_size = cfg->max_size, .align = cfg->align,
                                 .count_size = cfg->count_size };
    spu_reevaluate(spu);
    *out = spu;
    return ARMPROF_OK;
}

void spu_close(spu_t *spu)
{
    if (!spu)
        return;
    free(spu->slots);
    free(spu->slot_bytes);
    free(spu->fifo_data);
    free(spu->fifo_recs);
    free(spu->wbuf);
    free(spu->wtmp);
    free(spu->wq);
    free(spu->wr);
    free(spu->ext);
    free(spu);
}

const spu_config *spu_get_config(const spu_t *spu) { return &spu->cfg; }

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

static void fifo_clear(spu_t *spu)
{
    level_touch(spu);
    spu->fifo_head = spu->fifo_level = 0;
    spu->fifo_rhead = spu->fifo_nrec = 0;
    spu->head_drained = 0;
}

static inline void writer_blocked_update(spu_t *spu);

void spu_reset(spu_t *spu)
{
    ap_reg_reset(&spu->rf, false);
    memset(spu->slots, 0, spu->cfg.max_inflight * sizeof(spu_slot));
    spu->inflight = 0;
    spu->slot_head = 0;
    spu->next_complete = UINT64_MAX;
    spu->sample_pending = false;
    fifo_clear(spu);
    /* The writer forgets its writes: answers the host still owes are refused (ARMPROF_ERR_BUSY). */
    spu->wq_head = spu->wq_n = spu->wq_ignored = spu->wq_pending = 0;
    spu->next_done = UINT64_MAX;
    spu->wr_head = spu->wr_n = spu->wr_iss = 0;
    spu->wptr = spu->iaddr = 0;
    spu->deferred = spu->flush = false;
    writer_blocked_update(spu);
    ap_rng_seed(&spu->rng, spu->cfg.rng_seed);
    spu->ptr_checked = false;
    spu_set_irq(spu);
    spu_reevaluate(spu);
}

/* =============================================================================================
 * PMU events
 * ============================================================================================= */

static inline void emit(spu_t *spu, uint16_t ev, uint64_t n)
{
    if (spu->ops.event && n)
        spu->ops.event(spu->ops.user, ev, n);
}

/* =============================================================================================
 * Ownership and enables (seed 001 §3.2.3, §3.4.6; seed 000 RBWRVP, RKFMHR, Table D17-4)
 * ============================================================================================= */

bool spu_buffer_owner(const spu_t *spu, armprof_security *ss, uint8_t *el)
{
    const armprof_pe_ctx *c = &spu->ctx;
    armprof_security s;
    if (!c->have_el3) {
        s = armprof_pe_security(c);
    } else if (c->have_rme) {
        bool ns_owned = (c->mdcr3_nspb & 2) != 0;
        if (c->mdcr3_nspbe)
            s = ns_owned ? ARMPROF_REALM : ARMPROF_ROOT; /* {1, 0b0x}: reserved */
        else
            s = ns_owned ? ARMPROF_NONSECURE : ARMPROF_SECURE;
        if (s == ARMPROF_ROOT)
            return false;
        if (s == ARMPROF_SECURE && !c->have_secure)
            return false;
    } else {
        s = (c->mdcr3_nspb & 2) ? ARMPROF_NONSECURE : ARMPROF_SECURE;
    }
    *ss = s;
    *el = (armprof_pe_el2_enabled(c, s) && c->mdcr2_e2pb == 0) ? 2 : 1;
    return true;
}

/* The Security state that SCR_EL3.{NSE,NS} selects for the lower Exception levels. */
static armprof_security lower_state(const armprof_pe_ctx *c)
{
    if (!c->have_el3)
        return armprof_pe_security(c);
    if (c->have_rme && c->scr_nse)
        return c->scr_ns ? ARMPROF_REALM : ARMPROF_SECURE;
    return c->scr_ns ? ARMPROF_NONSECURE : ARMPROF_SECURE;
}

/* ProfilingBufferEnabled(), filling the owning translation regime. */
static bool buffer_enabled(const spu_t *spu, armprof_regime *rg)
{
    const uint64_t lim = spu_reg(spu, R_PMBLIMITR_EL1);
    armprof_security ss;
    uint8_t el;
    if (!spu_buffer_owner(spu, &ss, &el))
        return false;
    if (ss != lower_state(&spu->ctx))
        return false;
    if (!ap_field_get(PMBLIMITR_E, lim) || ap_field_get(PMBSR_S, spu_reg(spu, R_PMBSR_EL1)))
        return false;
    if (rg) {
        const armprof_pe_ctx *c = &spu->ctx;
        memset(rg, 0, sizeof(*rg));
        rg->ss = ss;
        rg->el = el;
        rg->kind = el == 1 ? ARMPROF_REGIME_EL10 : (c->hcr_e2h ? ARMPROF_REGIME_EL20 : ARMPROF_REGIME_EL2);
        rg->stage2 = el == 1 && armprof_pe_el2_enabled(c, ss) && c->hcr_vm;
        /* RKLGPG: the Effective PMBLIMITR_EL1.nVM is 0 without FEAT_SPE_nVM, and when EL2 is
         * implemented and enabled in the owning Security state, the owning EL is EL1 and the
         * Effective PMSCR_EL2.EnVM is 0: a guest cannot bypass its stage 1 unless EL2 lets it. */
        bool envm = ap_field_get(AP_BIT(spu->cfg.envm_bit), spu_reg(spu, R_PMSCR_EL2)) != 0;
        rg->nvm = spu->cfg.feat_spe_nvm && (lim & AP_BIT(spu->cfg.nvm_bit)) &&
                  !(armprof_pe_el2_enabled(c, ss) && el == 1 && !envm);
        rg->hw_flag_update = spu->cfg.flag_update;
        rg->mar = (uint16_t)spu_reg(spu, R_PMBMAR_EL1);
        rg->unit = ARMPROF_UNIT_SPU;
        rg->pe = spu->cfg.pe_index;
    }
    return true;
}

/* StatisticalProfilingEnabled() */
static bool profiling_enabled(const spu_t *spu)
{
    const armprof_pe_ctx *c = &spu->ctx;
    if (c->aarch32 || c->debug_state || c->el == 3 || !spu->buf_enabled)
        return false;
    armprof_security cur = armprof_pe_security(c);
    armprof_security oss;
    uint8_t oel;
    if (!spu_buffer_owner(spu, &oss, &oel))
        return false;
    bool in_host = cur != ARMPROF_SECURE ? (c->have_el2 && c->hcr_tge)
                                         : (armprof_pe_el2_enabled(c, cur) && c->hcr_tge);
    if (oel < c->el || oss != cur || (in_host && oel == 1))
        return false;
    uint64_t el1 = spu_reg(spu, R_PMSCR_EL1), el2 = spu_reg(spu, R_PMSCR_EL2);
    switch (c->el) {
    case 2: return ap_field_get(PMSCR_E1SPE, el2);                  /* E2SPE */
    case 1: return ap_field_get(PMSCR_E1SPE, el1);                  /* E1SPE */
    default: return in_host ? ap_field_get(PMSCR_E0SPE, el2)        /* E0HSPE */
                            : ap_field_get(PMSCR_E0SPE, el1);       /* E0SPE */
    }
}

/* §3.1.1: on the move from disabled to enabled, a zero PMSICR_EL1 is loaded with an initial
 * value; a non-zero one resumes where it was. */
static void counter_on_enable(spu_t *spu)
{
    uint64_t icr = spu_reg(spu, R_PMSICR_EL1);
    if (icr != 0)
        return;
    uint64_t irr = spu_reg(spu, R_PMSIRR_EL1);
    uint64_t count = ap_field_get(PMSIRR_INTERVAL, irr) << 8;
    if (ap_field_get(PMSIRR_RND, irr) && !spu->cfg.ernd)
        count |= ap_rng_draw8(&spu->rng);
    spu->regs[R_PMSICR_EL1] = ap_field_set(icr, PMSICR_COUNT, count);
}

static void sample_attrs_update(spu_t *spu);

void spu_reevaluate(spu_t *spu)
{
    bool was = spu->prof_enabled;
    spu->buf_enabled = buffer_enabled(spu, &spu->regime);
    spu->prof_enabled = profiling_enabled(spu);
    sample_attrs_update(spu);
    if (spu->prof_enabled && !was && !spu->ext) /* an external sampler initialises its own */
        counter_on_enable(spu);
}

void spu_set_irq(spu_t *spu)
{
    bool level = ap_field_get(PMBSR_S, spu_reg(spu, R_PMBSR_EL1)) != 0;
    if (level != spu->irq) {
        spu->irq = level;
        if (spu->ops.irq)
            spu->ops.irq(spu->ops.user, level);
    }
}

armprof_err spu_set_pe_context(spu_t *spu, const armprof_pe_ctx *ctx)
{
    if (!spu || !ctx || ctx->el > 3)
        return ARMPROF_ERR_INVAL;
    spu->ctx = *ctx;
    spu_reevaluate(spu);
    return ARMPROF_OK;
}

const armprof_pe_ctx *spu_get_pe_context(const spu_t *spu) { return &spu->ctx; }
bool spu_irq_level(const spu_t *spu) { return spu->irq; }
bool spu_profiling_enabled(const spu_t *spu) { return spu->prof_enabled; }

bool spu_buffer_enabled(const spu_t *spu, armprof_regime *regime)
{
    if (spu->buf_enabled && regime)
        *regime = spu->regime;
    return spu->buf_enabled;
}

/* =============================================================================================
 * Register access
 * ============================================================================================= */

/* FEAT_VHE: at EL2 with HCR_EL2.E2H == 1, the PMSCR_EL1 encoding accesses PMSCR_EL2. */
static uint32_t redirect(const spu_t *spu, uint32_t enc)
{
    if (enc == SPU_PMSCR_EL1 && spu->ctx.el == 2 && spu->ctx.hcr_e2h && spu->ctx.have_el2)
        return SPU_PMSCR_EL2;
    return enc;
}

armprof_err spu_reg_read(spu_t *spu, uint32_t enc, uint64_t *val)
{
    if (!spu)
        return ARMPROF_ERR_INVAL;
    return ap_reg_read(&spu->rf, redirect(spu, enc), val);
}

armprof_err spu_reg_write(spu_t *spu, uint32_t enc, uint64_t val)
{
    if (!spu)
        return ARMPROF_ERR_INVAL;
    return ap_reg_write(&spu->rf, redirect(spu, enc), val);
}

armprof_err spu_reg_peek(const spu_t *spu, uint32_t enc, uint64_t *val)
{
    if (!spu || !val)
        return ARMPROF_ERR_INVAL;
    const ap_regdef *r = ap_reg_find(&spu->rf, enc);
    if (!r)
        return ARMPROF_ERR_NOREG;
    uint64_t v = spu->regs[r->slot];
    *val = r->read ? r->read((void *)spu, r, v) : v;
    return ARMPROF_OK;
}

size_t spu_reg_count(const spu_t *spu)
{
    (void)spu;
    return spu_regdefs_count;
}

armprof_err spu_reg_info_at(const spu_t *spu, size_t i, spu_reg_info *info)
{
    if (!spu || !info || i >= spu_regdefs_count)
        return ARMPROF_ERR_INVAL;
    const ap_regdef *r = &spu_regdefs[i];
    const ap_regdef *t = r;
    if (r->flags & AP_REG_ALIAS)
        for (size_t j = 0; j < spu_regdefs_count; j++)
            if (spu_regdefs[j].slot == r->slot && !(spu_regdefs[j].flags & AP_REG_ALIAS))
                t = &spu_regdefs[j];
    info->name = r->name;
    info->enc = r->enc;
    info->reset = t->read ? t->read((void *)spu, t, t->reset) : t->reset;
    info->res0 = ap_reg_res0(&spu->rf, t);
    info->ro = t->ro;
    info->read_only = (t->flags & AP_REG_RO) != 0;
    info->alias = (r->flags & AP_REG_ALIAS) != 0;
    info->unknown_at_reset = (t->flags & AP_REG_NORESET) != 0;
    return ARMPROF_OK;
}

/* =============================================================================================
 * Management events (§3.5)
 * ============================================================================================= */

static void discard(spu_t *spu, spu_discard_reason why, uint64_t n)
{
    spu->st.discarded[why] += n;
    spu->st.records_discarded += n;
}

static void fifo_discard_all(spu_t *spu, spu_discard_reason why)
{
    discard(spu, why, spu->fifo_nrec);
    fifo_clear(spu);
}

typedef enum { MGMT_FULL, MGMT_FAULT, MGMT_EXT_ABORT, MGMT_OTHER } mgmt_kind;

/* A Profiling Buffer management event: S=1, the syndrome, PMBPTR_EL1, PMBIRQ asserted; all
 * buffered records are discarded while S is 1. `dl` sets DL (it is otherwise unchanged). */
static void mgmt_event(spu_t *spu, mgmt_kind kind, uint8_t ec, uint8_t mss, bool dl, bool ea,
                       uint64_t ptr)
{
    uint64_t sr = spu_reg(spu, R_PMBSR_EL1);
    sr = ap_field_set(sr, PMBSR_S, 1);
    sr = ap_field_set(sr, PMBSR_EC, ec);
    sr = ap_field_set(sr, PMBSR_MSS, mss);
    if (dl)
        sr = ap_field_set(sr, PMBSR_DL, 1);
    if (ea)
        sr = ap_field_set(sr, PMBSR_EA, 1);
    spu->regs[R_PMBSR_EL1] = sr;
    spu->regs[R_PMBPTR_EL1] = ptr;
    spu->unit_ptr = ptr;
    spu->ptr_checked = false;
    spu->st.management_events++;
    if (kind == MGMT_FULL)
        spu->st.buffer_full_events++;
    else if (kind == MGMT_FAULT)
        spu->st.fault_events++;
    else if (kind == MGMT_EXT_ABORT)
        spu->st.ext_abort_events++;
    /* FEAT_SPEv1p2: PMBLIMITR_EL1.PMFZ freezes the PMU on a management event. */
    if (spu->cfg.feat_spev1p2 && ap_field_get(PMBLIMITR_PMFZ, spu_reg(spu, R_PMBLIMITR_EL1)) &&
        spu->ops.pmu_freeze)
        spu->ops.pmu_freeze(spu->ops.user);
    spu_set_irq(spu);
    fifo_discard_all(spu, SPU_DISCARD_SERVICE);
    /* A completed record waiting for room is taken (discarded) at the next edge: outside an
     * edge's drain (a write's answer at the end of an edge, spu_mem_complete) that edge must
     * not be skipped as quiet. */
    if (spu->next_complete > spu->now)
        spu->next_complete = spu->now;
    spu_reevaluate(spu);
}

/* =============================================================================================
 * The buffer writer (§3.4, §3.5, seed 000 D17.7.4)
 * ============================================================================================= */

static uint64_t limit_addr(const spu_t *spu)
{
    return spu_reg(spu, R_PMBLIMITR_EL1) & PMBLIMITR_LIMIT;
}

/* RHXSYK and RHLXGD, checked once for each value software gives PMBPTR_EL1. A pointer that
 * equals where the unit last left it is a restored saved pointer: RHLXGD's alignment rule does
 * not apply to it. */
static bool ptr_rules_hold(spu_t *spu, uint64_t ptr)
{
    uint64_t lim = limit_addr(spu);
    uint64_t rec = 1ull << spu->cfg.max_size;
    const char *broken = NULL;
    if ((ptr >> 56) != (lim >> 56))
        broken = "RHXSYK: PMBPTR_EL1.PTR[63:56] != PMBLIMITR_EL1.LIMIT[63:56]";
    else if (lim < rec || ptr > lim - rec)
        broken = "RHXSYK: PMBPTR_EL1 is not at least one maximum-size record below the limit";
    else if (ptr != spu->unit_ptr && (ptr & ((1ull << spu->cfg.align) - 1)))
        broken = "RHLXGD: PMBPTR_EL1 is not aligned to 2^PMBIDR_EL1.Align";
    if (!broken)
        return true;
    ap_log(&spu->ops, ARMPROF_LOG_WARN,
           "%s (PMBPTR_EL1=0x%016llx PMBLIMITR_EL1=0x%016llx): CONSTRAINED UNPREDICTABLE (RPGGHS), "
           "behaving as ptr_policy=%s",
           broken, (unsigned long long)ptr, (unsigned long long)spu_reg(spu, R_PMBLIMITR_EL1),
           spu->cfg.ptr_policy == SPU_PTR_BUFFER_FULL ? "buffer-full"
           : spu->cfg.ptr_policy == SPU_PTR_DISCARD   ? "discard"
                                                      : "write");
    return false;
}

/*
 * The writer with memory timing. A record that leaves the FIFO is placed at the writer's
 * pointer (PMBPTR_EL1 when nothing is placed, else after the last placed record) and cut into
 * writes: one per record split at write_granule (write_bytes 0), or aligned blocks of
 * write_bytes that may hold parts of several records. A write is issued while fewer than
 * max_outstanding_writes are outstanding; its answer takes effect `latency` cycles later (or at
 * spu_mem_complete()), in issue order. A record counts as written, and PMBPTR_EL1 moves past it,
 * when every write holding its bytes has been accepted. A buffer full event is raised only once
 * every earlier write has been accepted (software reading the buffer on PMBIRQ sees the data);
 * the first faulting answer wins and the answers of later writes are ignored
 * (docs/implementation-defined.md, "SPU buffer writes with memory timing").
 */

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

static void wq_next_done(spu_t *spu)
{
    spu->next_done = spu->wq_n ? spu->wq[spu->wq_head].done_at : UINT64_MAX;
}

static void wrec_pop(spu_t *spu)
{
    spu->wr_head = spu->wr_head + 1 == spu->wr_cap ? 0 : spu->wr_head + 1;
    spu->wr_n--;
    if (spu->wr_iss)
        spu->wr_iss--;
}

/* Retire the placed records whose bytes are all below `bound` (accepted): written, unless an
 * ignored External abort already counted them discarded; PMBPTR_EL1 moves past each. */
static void writer_retire_below(spu_t *spu, uint64_t bound)
{
    while (spu->wr_n) {
        spu_wrec *r = wrec_at(spu, 0);
        if (r->end > bound)
            break;
        if (!r->aborted)
            spu->st.records_written++;
        spu->regs[R_PMBPTR_EL1] = r->end;
        spu->unit_ptr = r->end;
        wrec_pop(spu);
    }
}

static void writer_retire(spu_t *spu)
{
    uint64_t bound = spu->wq_n > spu->wq_ignored ? wq_at(spu, spu->wq_ignored)->addr : spu->iaddr;
    writer_retire_below(spu, bound);
}

static armprof_err wrec_grow(spu_t *spu)
{
    uint32_t cap = spu->wr_cap * 2;
    spu_wrec *n = calloc(cap, sizeof(*n));
    if (!n)
        return ARMPROF_ERR_NOMEM;
    for (uint32_t k = 0; k < spu->wr_n; k++)
        n[k] = *wrec_at(spu, k);
    free(spu->wr);
    spu->wr = n;
    spu->wr_cap = cap;
    spu->wr_head = 0;
    return ARMPROF_OK;
}

/* Length of the next write from iaddr, or 0 when none may be issued now. `tail_ok`: a partial
 * block at the end of the placed bytes may go (no record is draining into it). */
static uint32_t writer_next_piece(spu_t *spu, bool tail_ok)
{
    while (spu->iaddr < spu->wptr && spu->wr_iss < spu->wr_n) {
        const spu_wrec *r = wrec_at(spu, spu->wr_iss);
        if (r->end <= spu->iaddr) {
            spu->wr_iss++;
            continue;
        }
        if (!r->aborted)
            break;
        spu->iaddr = r->end; /* bytes of a record lost to an ignored abort are not written */
        spu->wr_iss++;
    }
    if (spu->iaddr >= spu->wptr)
        return 0;
    uint64_t a = spu->iaddr;
    uint64_t blk = spu->cfg.write_bytes ? spu->cfg.write_bytes : spu->cfg.write_granule;
    uint64_t end = (a | (blk - 1)) + 1;
    if (!spu->cfg.write_bytes) {
        uint64_t rend = wrec_at(spu, spu->wr_iss)->end;
        if (end > rend)
            end = rend;
    } else if (end > spu->wptr) {
        if (!tail_ok && !spu->flush && !spu->deferred)
            return 0;
        end = spu->wptr;
    }
    return (uint32_t)(end - a);
}

/* A write with the port's answer joins the outstanding ones. */
static void wq_push(spu_t *spu, uint64_t a, uint32_t n, const armprof_mem_result *res)
{
    spu->st.writes_issued++;
    spu_wr *w = wq_at(spu, spu->wq_n);
    memset(w, 0, sizeof(*w));
    w->addr = a;
    w->len = n;
    w->issue_at = spu->now;
    w->res = *res;
    if (res->status == ARMPROF_MEM_PENDING) {
        w->done_at = UINT64_MAX;
        spu->wq_pending++;
    } else {
        w->done_at = spu->now + res->latency;
    }
    spu->wq_n++;
    writer_blocked_update(spu);
    if (spu->wq_n > spu->st.outstanding_writes_max)
        spu->st.outstanding_writes_max = spu->wq_n;
    if (spu->wq_n == 1)
        spu->next_done = w->done_at;
}

static void writer_issue(spu_t *spu, uint32_t n)
{
    uint64_t a = spu->iaddr;
    uint32_t off = (uint32_t)(a & spu->wbuf_mask);
    const uint8_t *p = spu->wbuf + off;
    if (off + n > spu->wbuf_mask + 1) {
        uint32_t first = spu->wbuf_mask + 1 - off;
        memcpy(spu->wtmp, p, first);
        memcpy(spu->wtmp + first, spu->wbuf, n - first);
        p = spu->wtmp;
    }
    armprof_mem_result res = { .status = ARMPROF_MEM_OK };
    if (spu->ops.mem_write)
        res = spu->ops.mem_write(spu->ops.user, a, p, n, &spu->regime);
    spu->iaddr = a + n;
    wq_push(spu, a, n, &res);
}

/* The oldest write's answer was a fault or an External abort (§3.5.3, §3.5.4). */
static void writer_failed(spu_t *spu, const spu_wr *e)
{
    const armprof_mem_result *res = &e->res;
    uint32_t w = res->written < e->len ? res->written : e->len;
    spu->st.bytes_written += w;
    uint64_t at = e->addr + w;
    /* Records wholly below the failing byte are in memory: earlier writes were accepted. */
    writer_retire_below(spu, at);
    if (res->status != ARMPROF_MEM_FAULT && (spu->cfg.ea == SPU_EA_IGNORE || spu->cfg.ea == SPU_EA_SERROR)) {
        if (spu->cfg.ea == SPU_EA_SERROR) {
            spu->st.serrors++;
            if (spu->ops.serror)
                spu->ops.serror(spu->ops.user);
        }
        /* The unit does not see the abort: it carries on as if the bytes were written; the
         * records with bytes in the lost part are discarded, their other bytes not written. */
        for (uint32_t k = 0; k < spu->wr_n; k++) {
            spu_wrec *r = wrec_at(spu, k);
            if (r->start >= e->addr + e->len)
                break;
            if (!r->aborted) {
                r->aborted = true;
                discard(spu, SPU_DISCARD_EXT_ABORT, 1);
            }
        }
        return;
    }
    /* A management event: the record holding the failing byte is lost to it; the records
     * placed after it are discarded as S is now 1; later writes' answers are ignored. */
    uint64_t rec_end = at;
    for (uint32_t k = 0; k < spu->wr_n; k++) {
        spu_wrec *r = wrec_at(spu, k);
        if (k == 0)
            rec_end = r->end;
        if (!r->aborted)
            discard(spu, k == 0 ? SPU_DISCARD_FAULT : SPU_DISCARD_SERVICE, 1);
    }
    uint64_t ptr = spu_reg(spu, R_PMBPTR_EL1);
    bool partial = at != ptr; /* not the first byte after the last complete record */
    spu->wr_n = spu->wr_iss = 0;
    spu->iaddr = spu->wptr;
    spu->wq_ignored = spu->wq_n;
    spu->deferred = false;
    writer_blocked_update(spu);
    if (res->status == ARMPROF_MEM_FAULT) {
        /* §3.5.3: EC for the stage, FSC, PMBPTR_EL1 = the faulting address; DL when it is not
         * the first byte after the last complete record. Faults outrank buffer full (§3.5.1). */
        uint8_t ec = res->ec ? res->ec : ARMPROF_EC_S1_ABORT;
        mgmt_event(spu, MGMT_FAULT, ec, res->fsc & 0x3f, partial, false, at);
        return;
    }
    uint8_t ec = res->ec == ARMPROF_EC_S2_ABORT ? ARMPROF_EC_S2_ABORT : ARMPROF_EC_S1_ABORT;
    uint8_t fsc = res->fsc ? res->fsc : (res->async ? ARMPROF_FSC_AEA_WRITE : ARMPROF_FSC_SEA_WRITE);
    /* Asynchronous: DL = 1 and PMBPTR_EL1 is not the aborted address (armprof leaves it past
     * the record, where the writer had got to). Synchronous: PMBPTR_EL1 = the aborted
     * address, DL when that is not the first byte after the last complete record. */
    if (res->async)
        mgmt_event(spu, MGMT_EXT_ABORT, ec, fsc, true, true, rec_end);
    else
        mgmt_event(spu, MGMT_EXT_ABORT, ec, fsc, partial, true, at);
}

/* The oldest write's answer takes effect now. */
static void writer_complete_head(spu_t *spu)
{
    spu_wr e = spu->wq[spu->wq_head];
    spu->wq_head = spu->wq_head + 1 == spu->cfg.max_outstanding_writes ? 0 : spu->wq_head + 1;
    spu->wq_n--;
    writer_blocked_update(spu);
    wq_next_done(spu);
    uint64_t lat = spu->now - e.issue_at;
    if ((!spu->st.writes_answered && !spu->direct_writes) || lat < spu->st.write_latency_min)
        spu->st.write_latency_min = lat;
    if (lat > spu->st.write_latency_max)
        spu->st.write_latency_max = lat;
    spu->st.write_latency_sum += lat;
    spu->st.writes_answered++;
    if (spu->wq_ignored) {
        spu->wq_ignored--;
        return;
    }
    if (e.res.status == ARMPROF_MEM_OK) {
        spu->st.bytes_written += e.len;
        writer_retire(spu);
        return;
    }
    writer_failed(spu, &e);
}

/* Take the answers due by now, issue what may be issued, retire records, and raise a waiting
 * buffer full event once every earlier write has been accepted. */
static void writer_run(spu_t *spu, bool tail_ok)
{
    /* One answer at a time, each followed by the writes it lets go, as a host of the
     * asynchronous form gives them (spu_mem_complete() per answer): both forms agree. A write
     * answered at once (latency 0) is taken before the next is issued. */
    for (;;) {
        if (spu->next_done <= spu->now)
            writer_complete_head(spu);
        while (spu->wq_n < spu->cfg.max_outstanding_writes) {
            uint32_t n = writer_next_piece(spu, tail_ok);
            if (!n)
                break;
            writer_issue(spu, n);
            if (spu->next_done <= spu->now)
                break;
        }
        if (spu->next_done > spu->now)
            break;
    }
    writer_retire(spu);
    if (spu->deferred && !spu->wr_n) {
        spu->deferred = false;
        writer_blocked_update(spu);
        mgmt_event(spu, MGMT_FULL, ARMPROF_EC_OTHER, PMBSR_BSC_FILLED, false, false,
                   spu->deferred_ptr);
    }
}

/* A buffer full event at `ptr`, once every earlier write has been accepted. */
static void writer_full(spu_t *spu, uint64_t ptr)
{
    spu->deferred = true;
    spu->deferred_ptr = ptr;
    writer_blocked_update(spu);
    writer_run(spu, false);
}

/* Place a record at ptr (checked against the limit) in the writer's bytes. */
static void writer_place(spu_t *spu, const uint8_t *bytes, uint32_t len, uint64_t ptr, uint64_t lim)
{
    if (!spu->wr_n) {
        spu->iaddr = ptr;
        spu->wr_iss = 0;
    }
    spu_wrec *r = wrec_at(spu, spu->wr_n++);
    r->start = ptr;
    r->end = ptr + len;
    r->aborted = false;
    uint32_t off = (uint32_t)(ptr & spu->wbuf_mask);
    if (off + len <= spu->wbuf_mask + 1) {
        memcpy(spu->wbuf + off, bytes, len);
    } else {
        uint32_t first = spu->wbuf_mask + 1 - off;
        memcpy(spu->wbuf + off, bytes, first);
        memcpy(spu->wbuf, bytes + first, len - first);
    }
    spu->wptr = ptr + len;
    /* §3.5.2: not enough room left for a maximum-size record: buffer full, raised when the
     * record's writes (and every earlier one) have been accepted. */
    if (lim - spu->wptr < (1ull << spu->cfg.max_size)) {
        spu->deferred = true;
        spu->deferred_ptr = spu->wptr;
        writer_blocked_update(spu);
    }
}

/*
 * The functional path: nothing placed or outstanding, one write per record. The record's
 * writes go to the port at once; while every answer is at once (latency 0) this is all there
 * is. A later answer (latency, ARMPROF_MEM_PENDING) or a failure hands the record to the
 * writer's general path, which is the same behaviour with time in it.
 */
_Static_assert(ARMPROF_MEM_OK == 0, "write_direct() tests status and latency together");

static void write_direct(spu_t *spu, const uint8_t *bytes, uint32_t len, uint64_t ptr, uint64_t lim)
{
    uint32_t done = 0;
    while (done < len) {
        uint64_t a = ptr + done;
        uint32_t room = spu->cfg.write_granule - (uint32_t)(a & (spu->cfg.write_granule - 1));
        uint32_t n = len - done < room ? len - done : room;
        armprof_mem_result res = { .status = ARMPROF_MEM_OK };
        if (spu->ops.mem_write)
            res = spu->ops.mem_write(spu->ops.user, a, bytes + done, n, &spu->regime);
        if ((res.latency | (uint32_t)res.status) == 0) { /* ARMPROF_MEM_OK at once */
            spu->direct_writes++; /* issued and answered at once (spu_get_stats) */
            done += n;
            spu->st.bytes_written += n;
            continue;
        }
        if (res.status != ARMPROF_MEM_PENDING && res.latency == 0)
            spu->direct_writes++;
        /* The general path from here: the record placed, its bytes below a + n issued. */
        writer_place(spu, bytes, len, ptr, lim);
        spu->iaddr = a + n;
        if (res.status != ARMPROF_MEM_PENDING && res.latency == 0) {
            spu_wr e = { .addr = a, .len = n, .issue_at = spu->now, .done_at = spu->now, .res = res };
            writer_failed(spu, &e);
        } else {
            wq_push(spu, a, n, &res);
        }
        writer_run(spu, false);
        return;
    }
    spu->st.records_written++;
    spu->regs[R_PMBPTR_EL1] = ptr + len;
    spu->unit_ptr = ptr + len;
    /* §3.5.2: not enough room left for a maximum-size record: buffer full. */
    if (lim - (ptr + len) < (1ull << spu->cfg.max_size))
        mgmt_event(spu, MGMT_FULL, ARMPROF_EC_OTHER, PMBSR_BSC_FILLED, false, false, ptr + len);
}

/* Place one complete record at the writer's pointer. Exactly one outcome: written (once its
 * writes are accepted), or discarded with a reason (and possibly a management event). */
static void write_record(spu_t *spu, const uint8_t *bytes, uint32_t len)
{
    uint64_t sr = spu_reg(spu, R_PMBSR_EL1);
    if (ap_field_get(PMBSR_S, sr)) {
        discard(spu, SPU_DISCARD_SERVICE, 1);
        return;
    }
    if (!spu->buf_enabled) {
        /* §3.6.1: buffer disabled with records still buffered (no PSB CSYNC before the change):
         * armprof discards them silently, one of the permitted outcomes. */
        discard(spu, SPU_DISCARD_DISABLED, 1);
        return;
    }
    if (ap_field_get(PMBLIMITR_FM, spu_reg(spu, R_PMBLIMITR_EL1)) == PMBLIMITR_FM_DISCARD) {
        discard(spu, SPU_DISCARD_MODE, 1);
        return;
    }
    /* Nothing placed or outstanding and one write per record: the functional path. */
    bool direct = (spu->wr_n | spu->wq_n | spu->cfg.write_bytes) == 0;
    uint64_t ptr = spu->wr_n ? spu->wptr : spu_reg(spu, R_PMBPTR_EL1);
    uint64_t lim = limit_addr(spu);
    if (!spu->ptr_checked) {
        if (ptr_rules_hold(spu, ptr)) {
            spu->ptr_checked = true;
        } else if (spu->cfg.ptr_policy == SPU_PTR_BUFFER_FULL) {
            discard(spu, SPU_DISCARD_PTR, 1);
            writer_full(spu, ptr);
            return;
        } else if (spu->cfg.ptr_policy == SPU_PTR_DISCARD) {
            discard(spu, SPU_DISCARD_PTR, 1);
            return;
        }
    }
    /* Never at or past the limit, whatever software did. */
    if (ptr >= lim || lim - ptr < len) {
        discard(spu, SPU_DISCARD_PTR, 1);
        writer_full(spu, ptr);
        return;
    }
    if (direct) {
        write_direct(spu, bytes, len, ptr, lim);
        return;
    }
    if (spu->wr_n == spu->wr_cap && wrec_grow(spu) != ARMPROF_OK) {
        discard(spu, SPU_DISCARD_PTR, 1); /* out of host memory: cannot happen in practice */
        return;
    }
    writer_place(spu, bytes, len, ptr, lim);
    writer_run(spu, false);
}

/* =============================================================================================
 * The record FIFO
 * ============================================================================================= */

static inline uint32_t ring_size(const spu_t *spu) { return spu->ring_bytes; }

/* Bytes of the FIFO ring in use (undrained bytes plus the drained part of the head record). */
static uint32_t fifo_used(const spu_t *spu) { return spu->fifo_level + spu->head_drained; }

static bool fifo_push(spu_t *spu, const uint8_t *b, uint32_t len)
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

/* The head record has fully drained: hand it to the buffer writer. */
static void fifo_pop_write(spu_t *spu)
{
    const spu_fifo_rec *r = &spu->fifo_recs[spu->fifo_rhead];
    uint32_t rs = ring_size(spu);
    uint32_t len = r->len;
    const uint8_t *p = spu->fifo_data + r->off;
    if (r->off + len > rs) {
        uint32_t first = rs - r->off;
        memcpy(spu->scratch, p, first);
        memcpy(spu->scratch + first, spu->fifo_data, len - first);
        p = spu->scratch;
    }
    /* The bytes stay valid through write_record(): a management event only resets indices. */
    spu->fifo_head = r->off + len >= rs ? r->off + len - rs : r->off + len;
    spu->fifo_rhead = spu->fifo_rhead + 1 == spu->fifo_nrec_cap ? 0 : spu->fifo_rhead + 1;
    spu->fifo_nrec--;
    spu->head_drained = 0;
    write_record(spu, p, len);
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
            fifo_pop_write(spu);
    }
}

static void fifo_drain_edge(spu_t *spu, uint64_t bytes) { fifo_drain_(spu, bytes, false); }
static void fifo_drain_csync(spu_t *spu, uint64_t bytes) { fifo_drain_(spu, bytes, true); }
#define fifo_drain(spu, bytes, stop) ((stop) ? fifo_drain_csync(spu, bytes) : fifo_drain_edge(spu, bytes))

/* =============================================================================================
 * Records
 * ============================================================================================= */

static inline uint16_t saturate(const spu_t *spu, uint32_t v)
{
    uint32_t max = spu->samp.count_max;
    return (uint16_t)(v > max ? max : v);
}

enum { OPTYPE_OTHER, OPTYPE_LOAD, OPTYPE_STORE, OPTYPE_BRANCH };

/* §3.3.1 collection controls, evaluated when the operation is sampled. */
static bool collect_context1(const spu_t *spu)
{
    const armprof_pe_ctx *c = &spu->ctx;
    if (c->el == 2)
        return false;
    if (armprof_pe_security(c) != ARMPROF_SECURE && c->have_el2 && c->hcr_tge)
        return false;
    return ap_field_get(PMSCR_CX, spu_reg(spu, R_PMSCR_EL1));
}

static bool collect_context2(const spu_t *spu)
{
    const armprof_pe_ctx *c = &spu->ctx;
    if (!c->have_el2 || armprof_pe_security(c) == ARMPROF_SECURE)
        return false;
    return ap_field_get(PMSCR_CX, spu_reg(spu, R_PMSCR_EL2));
}

/* CollectTimeStamp(): 0 none, 1 virtual, 2 physical. */
static uint8_t collect_timestamp(const spu_t *spu)
{
    armprof_security ss = spu->regime.ss;
    uint8_t el = spu->regime.el;
    uint64_t s1 = spu_reg(spu, R_PMSCR_EL1), s2 = spu_reg(spu, R_PMSCR_EL2);
    if (!ap_field_get(PMSCR_TS, el == 2 ? s2 : s1))
        return 0;
    bool pct;
    if (ss != ARMPROF_SECURE && spu->ctx.have_el2)
        pct = ap_field_get(PMSCR_PCT_BIT0, s2) && (el == 2 || ap_field_get(PMSCR_PCT_BIT0, s1));
    else
        pct = ap_field_get(PMSCR_PCT_BIT0, s1);
    return pct ? 2 : 1;
}

/* CollectPhysicalAddress() */
static bool collect_pa(const spu_t *spu)
{
    uint64_t s1 = spu_reg(spu, R_PMSCR_EL1), s2 = spu_reg(spu, R_PMSCR_EL2);
    if (spu->regime.ss != ARMPROF_SECURE && spu->ctx.have_el2)
        return ap_field_get(PMSCR_PA, s2) && (spu->regime.el == 2 || ap_field_get(PMSCR_PA, s1));
    return ap_field_get(PMSCR_PA, s1);
}

/* CollectRecord(): the filters of §3.2.2, evaluated when the record is complete. */
static bool collect_record(const spu_t *spu, uint64_t events, uint32_t total_lat, int optype)
{
    uint64_t fcr = spu_reg(spu, R_PMSFCR_EL1);
    if (ap_field_get(PMSFCR_FE, fcr)) {
        uint64_t m = spu_reg(spu, R_PMSEVFR_EL1) & PMSEVFR_FILTERABLE;
        if (spu_reg(spu, R_PMSEVFR_EL1) == 0 && spu->cfg.cu_fe_zero_discards)
            return false;
        if (~events & m)
            return false;
    }
    if (ap_field_get(PMSFCR_FNE, fcr) && spu->cfg.feat_spev1p2) {
        /* FEAT_SPEv1p2 inverted filter: discard a record with any event in PMSNEVFR_EL1. */
        if (events & spu_reg(spu, R_PMSNEVFR_EL1) & PMSEVFR_FILTERABLE)
            return false;
    }
    if (ap_field_get(PMSFCR_FT, fcr)) {
        bool b = ap_field_get(PMSFCR_B, fcr), ld = ap_field_get(PMSFCR_LD, fcr),
             st = ap_field_get(PMSFCR_ST, fcr);
        if (!b && !ld && !st && spu->cfg.cu_ft_zero_discards)
            return false;
        switch (optype) {
        case OPTYPE_BRANCH: if (!b) return false; break;
        case OPTYPE_LOAD: if (!ld) return false; break;
        case OPTYPE_STORE: if (!st) return false; break;
        default: return false;
        }
    }
    if (ap_field_get(PMSFCR_FL, fcr)) {
        uint64_t minlat = spu_reg(spu, R_PMSLATFR_EL1) & AP_GENMASK(15, 0);
        if (minlat == 0 && spu->cfg.cu_fl_zero_discards)
            return false;
        if (total_lat < minlat)
            return false;
    }
    return true;
}

/* The collection controls as they stand now; every input of them (the PE context, PMSCR_EL1,
 * PMSCR_EL2 and the owning regime) changes only through spu_reevaluate() or spu_restore(). */
static void sample_attrs_update(spu_t *spu)
{
    spu->samp.context1 = collect_context1(spu);
    spu->samp.context2 = collect_context2(spu);
    spu->samp.pa = collect_pa(spu);
    spu->samp.pc_ns = armprof_pe_security(&spu->ctx) != ARMPROF_SECURE;
    spu->samp.ts_kind = collect_timestamp(spu);
    spu->samp.count_max = spu->cfg.count_size == 2 ? 0xFFFu : 0xFFFFu;
}

static int op_type_of(const spu_op *op)
{
    switch (op->op_class) {
    case SPE_CLASS_BRANCH: return OPTYPE_BRANCH;
    case SPE_CLASS_LDST: return (op->op_subclass & SPE_LDST_ST) ? OPTYPE_STORE : OPTYPE_LOAD;
    default: return OPTYPE_OTHER;
    }
}

/* Build the record of a sampled operation (everything but the timestamp). */
static void build_record(const spu_t *spu, const spu_op *op, spu_slot *s)
{
    spe_record *r = &s->rec;
    const armprof_pe_ctx *c = &spu->ctx;
    /* Every field set explicitly (a memset of the record is a measurable cost per sample). */
    r->target = r->data_va = r->data_pa = r->timestamp = 0;
    r->target_el = r->data_va_tag = 0;
    r->target_ns = r->data_pa_ns = false;
    r->context_el1 = r->context_el2 = 0;
    r->total_lat = r->issue_lat = r->xlat_lat = r->data_source = 0;
    bool exc = (op->flags & SPU_OP_EXCEPTION) != 0;
    uint64_t ev = op->events & ~(AP_BIT(SPE_EV_EXCEPTION) | AP_BIT(SPE_EV_RETIRED));
    if (exc)
        ev |= AP_BIT(SPE_EV_EXCEPTION);
    else if (!(op->flags & SPU_OP_NOT_RETIRED))
        ev |= AP_BIT(SPE_EV_RETIRED);
    /* 2.3.5: a misspeculated operation has neither E[0] nor E[1]. */
    if (op->flags & SPU_OP_NOT_RETIRED)
        ev &= ~(AP_BIT(SPE_EV_EXCEPTION) | AP_BIT(SPE_EV_RETIRED));
    r->events = ev;
    s->events = ev;
    s->total_lat = op->total_lat;
    s->optype = (uint8_t)op_type_of(op);

    r->present = SPE_R_PC | SPE_R_OPTYPE;
    r->pc = op->pc & AP_GENMASK(55, 0);
    r->pc_el = c->el;
    r->pc_ns = spu->samp.pc_ns;
    r->op_class = op->op_class;
    r->op_subclass = op->op_subclass;
    if (spu->samp.context1) {
        r->present |= SPE_R_CONTEXT_EL1;
        r->context_el1 = (uint32_t)c->contextidr_el1;
    }
    if (spu->samp.context2) {
        r->present |= SPE_R_CONTEXT_EL2;
        r->context_el2 = (uint32_t)c->contextidr_el2;
    }
    s->ts_kind = spu->samp.ts_kind;
    if (exc)
        return; /* 2.3.5: armprof records only PC, type, events and time for an exception */
    r->present |= SPE_R_TOTAL_LAT | SPE_R_ISSUE_LAT;
    r->total_lat = saturate(spu, op->total_lat);
    r->issue_lat = saturate(spu, op->issue_lat);
    if (op->op_class == SPE_CLASS_BRANCH && (op->flags & SPU_OP_HAS_TARGET)) {
        r->present |= SPE_R_TARGET;
        r->target = op->target & AP_GENMASK(55, 0);
        r->target_el = op->target_el;
        r->target_ns = op->target_ns;
    }
    if (op->op_class == SPE_CLASS_LDST) {
        if (op->flags & SPU_OP_HAS_XLAT) {
            r->present |= SPE_R_XLAT_LAT;
            r->xlat_lat = saturate(spu, op->xlat_lat);
        }
        if (op->flags & SPU_OP_HAS_VA) {
            r->present |= SPE_R_DATA_VA;
            r->data_va = op->data_va & AP_GENMASK(55, 0);
            r->data_va_tag = (uint8_t)(op->data_va >> 56);
        }
        if ((op->flags & SPU_OP_HAS_PA) && spu->samp.pa) {
            r->present |= SPE_R_DATA_PA;
            r->data_pa = op->data_pa & AP_GENMASK(55, 0);
            r->data_pa_ns = op->data_pa_ns;
        }
        if ((op->flags & SPU_OP_HAS_DSRC) && spu->cfg.lds && !(op->op_subclass & SPE_LDST_ST)) {
            r->present |= SPE_R_DATA_SOURCE;
            r->data_source = op->data_source;
        }
    }
}

static uint64_t timestamp_now(const spu_t *spu, uint8_t kind)
{
    uint64_t phys = spu->now / spu->cfg.cycles_per_tick;
    if (kind == 2 || spu->ctx.cntvoff_zero)
        return phys;
    return phys - spu->ctx.cntvoff;
}

static inline uint8_t *slot_bytes(spu_t *spu, const spu_slot *s)
{
    return spu->slot_bytes + ((size_t)(s - spu->slots) << spu->slot_shift);
}

/* The sampled operation in slot s completes: capture, filter, encode. */
/* The record ends in a Timestamp packet: CollectTimeStamp() chose a counter at sampling and
 * the timer is on (or the model is configured to keep the packet with the timer off). */
static inline bool record_has_timestamp(const spu_t *spu, const spu_slot *s)
{
    return s->ts_kind && (spu->ctx.timer_enabled || spu->cfg.ts_when_timer_off);
}

static void complete_slot(spu_t *spu, spu_slot *s)
{
    s->completed = true;
    s->collect = collect_record(spu, s->events, s->total_lat, s->optype);
    if (!s->collect) {
        spu->st.filtered_out++;
        return;
    }
    spu->st.filtrate++;
    emit(spu, ARMPROF_EV_SAMPLE_FILTRATE, 1);
    spe_record *r = &s->rec;
    if (record_has_timestamp(spu, s)) {
        r->present |= SPE_R_TIMESTAMP;
        r->timestamp = spu->ctx.timer_enabled ? timestamp_now(spu, s->ts_kind) : 0;
    }
    uint8_t *b = slot_bytes(spu, s);
    size_t n = spe_encode(r, &spu->fmt, b, (size_t)1 << spu->slot_shift);
    s->len = (uint16_t)n;
    if (spu->rec_hook)
        spu->rec_hook(spu->rec_hook_user, r, b, n);
}

/* Only the oldest slot is ever freed: records leave in sampling order. */
static void free_slot(spu_t *spu, spu_slot *s)
{
    s->used = false;
    spu->slot_head = spu->slot_head + 1 == spu->cfg.max_inflight ? 0 : spu->slot_head + 1;
    spu->inflight--;
}

static inline spu_slot *slot_at(spu_t *spu, uint32_t k)
{
    uint32_t i = spu->slot_head + k;
    if (i >= spu->cfg.max_inflight)
        i -= spu->cfg.max_inflight;
    return &spu->slots[i];
}

static void recompute_next_complete(spu_t *spu)
{
    uint64_t m = UINT64_MAX;
    for (uint32_t k = 0; k < spu->inflight; k++) {
        const spu_slot *s = slot_at(spu, k);
        if (!s->completed && s->complete_at < m)
            m = s->complete_at;
    }
    spu->next_complete = m;
}

/* The oldest slot when its operation has completed (records enter the FIFO in the order they
 * were sampled, so a younger completed record waits behind an older incomplete one). */
static spu_slot *oldest_waiting(spu_t *spu, bool *blocked_by_incomplete)
{
    *blocked_by_incomplete = false;
    if (!spu->inflight)
        return NULL;
    spu_slot *s = slot_at(spu, 0);
    if (!s->completed) {
        *blocked_by_incomplete = true;
        return NULL;
    }
    return s;
}

/* Clock edge, part 2: completions at or before `now` are captured; completed records enter the
 * FIFO in sampling order while it has room. A slot is freed when its record is accepted (or
 * when the record is not going to the FIFO at all). */
static void accept_completed(spu_t *spu)
{
    if (spu->next_complete <= spu->now) {
        /* One pass in sampling order: capture what is due, and find the next completion among
         * the rest (the ring index wraps by compare, not by a modulo per slot). */
        uint64_t m = UINT64_MAX;
        const uint64_t now = spu->now;
        uint32_t i = spu->slot_head;
        const uint32_t cap = spu->cfg.max_inflight;
        if (spu->complete_in_order) {
            /* Completed slots are a prefix and the rest complete in ring order: stop at the
             * first one not yet due, which is also the next completion. */
            for (uint32_t k = spu->inflight; k; k--) {
                spu_slot *s = &spu->slots[i];
                if (!s->completed) {
                    if (s->complete_at > now) {
                        m = s->complete_at;
                        break;
                    }
                    complete_slot(spu, s);
                }
                if (++i == cap)
                    i = 0;
            }
        } else {
            for (uint32_t k = spu->inflight; k; k--) {
                spu_slot *s = &spu->slots[i];
                if (!s->completed) {
                    if (s->complete_at <= now)
                        complete_slot(spu, s);
                    else if (s->complete_at < m)
                        m = s->complete_at;
                }
                if (++i == cap)
                    i = 0;
            }
        }
        spu->next_complete = m;
    }
    if (!spu->inflight || !spu->slots[spu->slot_head].completed)
        return; /* nothing waits for the FIFO */
    for (;;) {
        bool blocked;
        spu_slot *s = oldest_waiting(spu, &blocked);
        if (!s)
            break;
        if (!s->collect) {
            free_slot(spu, s);
            continue;
        }
        if (ap_field_get(PMBSR_S, spu_reg(spu, R_PMBSR_EL1))) {
            /* While S is 1 all buffered records are discarded. */
            discard(spu, SPU_DISCARD_SERVICE, 1);
            free_slot(spu, s);
            continue;
        }
        if (!fifo_push(spu, slot_bytes(spu, s), s->len)) {
            spu->st.fifo_full_cycles++;
            break;
        }
        free_slot(spu, s);
    }
}

/* =============================================================================================
 * The sample interval counter (§3.1)
 * ============================================================================================= */

/*
 * One member of the sample population while profiling is enabled. Returns true when this
 * operation is the one selected for sampling.
 *   COUNT != 0: COUNT decrements. COUNT == 0: this operation is the sample point and COUNT
 *   reloads (INTERVAL:0x00, or INTERVAL:random with RND=1, ERnd=0), which makes the interval
 *   INTERVAL x 256 + 1 (§3.1.2 note). With RND=1 and ERnd=1 the sample point instead loads
 *   ECOUNT with a random value, and the operation at which ECOUNT (decrementing while non-zero)
 *   reaches zero is selected (immediately when the random value is 0).
 */
static bool counter_tick(spu_t *spu)
{
    uint64_t icr = spu->regs[R_PMSICR_EL1];
    uint32_t count = (uint32_t)ap_field_get(PMSICR_COUNT, icr);
    uint8_t ecount = spu->cfg.ernd ? (uint8_t)ap_field_get(PMSICR_ECOUNT, icr) : 0;
    bool fire = false;
    if (spu->sample_pending) {
        spu->sample_pending = false;
        fire = true;
    }
    bool point = false;
    if (ecount) {
        ecount--;
        if (!ecount)
            point = true;
    }
    if (count) {
        count--;
    } else {
        uint64_t irr = spu->regs[R_PMSIRR_EL1];
        bool rnd = ap_field_get(PMSIRR_RND, irr);
        count = (uint32_t)(ap_field_get(PMSIRR_INTERVAL, irr) << 8);
        if (rnd && spu->cfg.ernd) {
            ecount = ap_rng_draw8(&spu->rng);
            if (!ecount)
                point = true;
        } else {
            if (rnd)
                count |= ap_rng_draw8(&spu->rng);
            point = true;
        }
    }
    icr = ap_field_set(icr, PMSICR_COUNT, count);
    if (spu->cfg.ernd)
        icr = ap_field_set(icr, PMSICR_ECOUNT, ecount);
    spu->regs[R_PMSICR_EL1] = icr;
    if (point) {
        if (spu->cfg.sample_next_op)
            spu->sample_pending = true;
        else
            fire = true;
    }
    return fire;
}

uint64_t spu_ops_until_sample(const spu_t *spu)
{
    if (!spu->prof_enabled)
        return UINT64_MAX;
    if (spu->sample_pending)
        return 0;
    uint64_t icr = spu->regs[R_PMSICR_EL1];
    uint64_t n = ap_field_get(PMSICR_COUNT, icr);
    if (spu->cfg.ernd) {
        uint64_t e = ap_field_get(PMSICR_ECOUNT, icr);
        if (e && e - 1 < n)
            n = e - 1;
    }
    return n;
}

uint64_t spu_skip(spu_t *spu, uint64_t n)
{
    uint64_t k = spu_ops_until_sample(spu);
    if (k == UINT64_MAX)
        return 0; /* profiling disabled: operations are not in the population */
    if (n < k)
        k = n;
    if (!k)
        return 0;
    uint64_t icr = spu->regs[R_PMSICR_EL1];
    icr = ap_field_set(icr, PMSICR_COUNT, ap_field_get(PMSICR_COUNT, icr) - k);
    if (spu->cfg.ernd && ap_field_get(PMSICR_ECOUNT, icr))
        icr = ap_field_set(icr, PMSICR_ECOUNT, ap_field_get(PMSICR_ECOUNT, icr) - k);
    spu->regs[R_PMSICR_EL1] = icr;
    spu->st.population += k;
    emit(spu, ARMPROF_EV_SAMPLE_POP, k);
    return k;
}

/* The counter step of most operations: COUNT != 0, no ECOUNT running and no sample pending, so
 * counter_tick() would only decrement COUNT. False (nothing changed) otherwise. */
static inline bool counter_step_plain(spu_t *spu)
{
    uint64_t icr = spu->regs[R_PMSICR_EL1];
    if (spu->sample_pending || !ap_field_get(PMSICR_COUNT, icr) ||
        (spu->cfg.ernd && ap_field_get(PMSICR_ECOUNT, icr)))
        return false;
    spu->regs[R_PMSICR_EL1] = icr - 1; /* COUNT is bits [31:0] and not zero: no borrow */
    return true;
}

/* The counter step that may select the operation, then slot admission (§3.1.4). */
/* §3.1.4: the sample point fell on an operation but no slot was free: SAMPLE_COLLISION and
 * PMBSR_EL1.COLL. */
static spu_op_result collide(spu_t *spu)
{
    spu->st.collisions++;
    spu->regs[R_PMBSR_EL1] = ap_field_set(spu->regs[R_PMBSR_EL1], PMBSR_COLL, 1);
    emit(spu, ARMPROF_EV_SAMPLE_COLLISION, 1);
    return SPU_OP_COLLIDED;
}

/* The sampled operation takes the next free slot (SAMPLE_FEED); returns that slot. */
static spu_slot *admit(spu_t *spu, const spu_op *op)
{
    spu->st.feed++;
    emit(spu, ARMPROF_EV_SAMPLE_FEED, 1);
    spu_slot *s = slot_at(spu, spu->inflight);
    s->used = true;
    s->completed = false;
    s->collect = false;
    s->len = 0;
    s->seq = spu->next_seq++;
    s->complete_at = spu->now + op->total_lat;
    if (!spu->inflight)
        spu->complete_in_order = true;
    else if (s->complete_at < spu->last_complete_at)
        spu->complete_in_order = false;
    spu->last_complete_at = s->complete_at;
    spu->inflight++;
    build_record(spu, op, s);
    if (s->complete_at < spu->next_complete)
        spu->next_complete = s->complete_at;
    return s;
}

static spu_op_result retire_tick(spu_t *spu, const spu_op *op)
{
    if (!counter_tick(spu))
        return SPU_OP_COUNTED;
    if (spu->inflight >= spu->cfg.max_inflight)
        return collide(spu);
    admit(spu, op);
    return SPU_OP_SAMPLED;
}

static inline spu_op_result retire_one(spu_t *spu, const spu_op *op)
{
    if (!spu->prof_enabled)
        return SPU_OP_NOT_COUNTED;
    spu->st.population++;
    emit(spu, ARMPROF_EV_SAMPLE_POP, 1);
    if (counter_step_plain(spu))
        return SPU_OP_COUNTED;
    return retire_tick(spu, op);
}

spu_op_result spu_retire(spu_t *spu, const spu_op *op)
{
    /* The record is captured at the clock edge that ends the cycle of its completion
     * (spu_advance / spu_cycle / spu_psb_csync), exactly as in the cycle-level step. */
    return retire_one(spu, op);
}

/* =============================================================================================
 * Time
 * ============================================================================================= */

/* One clock edge: drain, then accept completed records; time moves on by one cycle. An edge with
 * nothing draining, nothing completing and nothing waiting for FIFO room only counts time. */

/* FIFO level statistics for q edges after which the level is l0 - k * r, k = 1 .. q: in
 * O(SPU_FIFO_HIST_BINS), whatever q. */
static __attribute__((noinline)) void level_run(spu_t *spu, uint64_t l0, uint64_t r, uint64_t q)
{
    spu->st.fifo_byte_cycles += q * l0 - r * (q * (q + 1) / 2);
    uint32_t b = hist_bin(spu, l0 - r);
    if (!r || b == hist_bin(spu, l0 - q * r)) {
        spu->st.fifo_hist[b] += q;
        return;
    }
    for (uint64_t k = 1; k <= q;) {
        uint64_t lvl = l0 - k * r;
        b = hist_bin(spu, lvl);
        uint64_t lo = (uint64_t)b << spu->hist_shift; /* the lowest level of bin b */
        uint64_t kmax = (l0 - lo) / r;           /* the last k whose level is still >= lo */
        if (kmax > q)
            kmax = q;
        spu->st.fifo_hist[b] += kmax - k + 1;
        k = kmax + 1;
    }
}

/* One clock edge: answers due were taken at the end of the previous one; drain, then accept
 * completed records; time moves on by one cycle and the answers due then take effect. An edge
 * with nothing draining, nothing completing and nothing waiting for FIFO room only counts time. */
static inline void edge(spu_t *spu)
{
    if (spu->fifo_nrec) {
        if (!spu->nodrain) {
            fifo_drain(spu, spu->cfg.drain_bytes_per_cycle, false);
            if (spu->cfg.write_bytes && spu->iaddr != spu->wptr)
                writer_run(spu, spu->head_drained == 0); /* a partial block nobody fills */
        } else {
            spu->st.writer_stall_cycles++;
        }
    }
    if (spu->next_complete <= spu->now || (spu->inflight && spu->slots[spu->slot_head].completed))
        accept_completed(spu);
    if (ap_field_get(PMBSR_S, spu->regs[R_PMBSR_EL1]))
        spu->st.service_cycles++;
    spu->now++;
    if (spu->next_done <= spu->now)
        writer_run(spu, spu->head_drained == 0);
}

/* Edges before the next one at which something other than steady draining happens. */
static uint64_t quiet_edges(const spu_t *spu)
{
    uint64_t q = UINT64_MAX;
    if (spu->next_complete != UINT64_MAX)
        q = spu->next_complete > spu->now ? spu->next_complete - spu->now : 0;
    /* A write's answer takes effect at the end of the edge that reaches its time. */
    if (spu->next_done != UINT64_MAX) {
        uint64_t d = spu->next_done > spu->now ? spu->next_done - spu->now - 1 : 0;
        if (d < q)
            q = d;
    }
    /* (A management event outside an edge's drain sets next_complete to now: the next edge
     * takes the completed record that waited for FIFO room, see mgmt_event().) */
    bool draining = spu->fifo_nrec && !spu->nodrain;
    if (draining) {
        uint32_t left = spu->fifo_recs[spu->fifo_rhead].len - spu->head_drained;
        uint64_t r = spu->cfg.drain_bytes_per_cycle;
        uint64_t e = (left + r - 1) / r; /* the edge that finishes the head record */
        if (e - 1 < q)
            q = e - 1;
    }
    /* The oldest completed record waiting for FIFO room enters at the edge whose drain leaves
     * it room (bytes free up with every drained byte, not only when the head is written); for
     * a free record descriptor it waits for the head record, as above. */
    const spu_slot *w = &spu->slots[spu->slot_head];
    if (spu->inflight && draining && w->completed && w->collect &&
        spu->fifo_level + w->len > spu->cfg.fifo_bytes) {
        uint64_t need = spu->fifo_level + w->len - spu->cfg.fifo_bytes;
        uint64_t r = spu->cfg.drain_bytes_per_cycle;
        uint64_t e = (need + r - 1) / r;
        if (e - 1 < q)
            q = e - 1;
    }
    return q;
}

void spu_advance(spu_t *spu, uint64_t cycles)
{
    while (cycles) {
        uint64_t q = quiet_edges(spu);
        if (q > cycles)
            q = cycles;
        if (q) {
            /* q edges of plain draining: no record finishes, no operation completes, no write
             * is answered. */
            if (spu->fifo_nrec && !spu->nodrain) {
                level_touch(spu);
                uint64_t l0 = spu->fifo_level;
                uint64_t b = q * spu->cfg.drain_bytes_per_cycle;
                spu->head_drained += (uint32_t)b;
                spu->fifo_level -= (uint32_t)b;
                spu->drained_total += b;
                level_run(spu, l0, spu->cfg.drain_bytes_per_cycle, q);
                spu->lvl_t = spu->now + q;
            } else if (spu->fifo_nrec) {
                spu->st.writer_stall_cycles += q;
            }
            if (ap_field_get(PMBSR_S, spu->regs[R_PMBSR_EL1]))
                spu->st.service_cycles += q;
            /* Waiting completed records retry at every edge; count those cycles. */
            if (spu->inflight) {
                const spu_slot *w = &spu->slots[spu->slot_head];
                if (w->completed && w->collect)
                    spu->st.fifo_full_cycles += q;
            }
            spu->now += q;
            cycles -= q;
            continue;
        }
        edge(spu);
        cycles--;
    }
}

uint64_t spu_cycles_to_next_event(const spu_t *spu)
{
    uint64_t q = quiet_edges(spu);
    return q == UINT64_MAX ? UINT64_MAX : q + 1;
}

uint64_t spu_now(const spu_t *spu) { return spu->now; }

void spu_cycle(spu_t *spu, const spu_op *ops, uint32_t n, spu_op_result *result)
{
    for (uint32_t i = 0; i < n; i++) {
        spu_op_result r = retire_one(spu, &ops[i]);
        if (result)
            result[i] = r;
    }
    edge(spu);
}

void spu_set_drain_stall(spu_t *spu, bool stall)
{
    spu->drain_stall = stall;
    spu->nodrain = spu->wblocked || stall;
}

static void ext_accept(spu_t *spu);

/* PSB CSYNC: completed records enter the FIFO, then everything in it is written. Synchronous
 * answers are known already: they take effect now (time does not move); a write whose answer
 * is ARMPROF_MEM_PENDING cannot be hurried, and what waits behind it stays in the writer and
 * the FIFO until the host answers (then spu_psb_csync() again finishes the job). */
void spu_psb_csync(spu_t *spu)
{
    spu->flush = true;
    for (;;) {
        if (spu->ext)
            ext_accept(spu);
        else
            accept_completed(spu);
        if (spu->wq_n) {
            for (uint32_t k = 0; k < spu->wq_n; k++) {
                spu_wr *w = wq_at(spu, k);
                if (w->done_at != UINT64_MAX && w->done_at > spu->now)
                    w->done_at = spu->now;
            }
            wq_next_done(spu);
        }
        writer_run(spu, true);
        if (!spu->fifo_nrec || !writer_ready(spu))
            break;
        fifo_drain(spu, spu->fifo_level, true);
    }
    spu->flush = false;
}

armprof_err spu_mem_complete(spu_t *spu, const armprof_mem_result *res)
{
    if (!spu || !res || res->status == ARMPROF_MEM_PENDING || (unsigned)res->status > ARMPROF_MEM_PENDING)
        return ARMPROF_ERR_INVAL;
    if (!spu->wq_pending)
        return ARMPROF_ERR_BUSY;
    for (uint32_t k = 0; k < spu->wq_n; k++) {
        spu_wr *w = wq_at(spu, k);
        if (w->done_at == UINT64_MAX) {
            w->res = *res;
            w->done_at = spu->now;
            spu->wq_pending--;
            break;
        }
    }
    wq_next_done(spu);
    writer_run(spu, spu->head_drained == 0);
    return ARMPROF_OK;
}

uint32_t spu_writes_outstanding(const spu_t *spu) { return spu->wq_n; }

bool spu_drain_ready(const spu_t *spu) { return writer_ready(spu); }

/* =============================================================================================
 * Observation
 * ============================================================================================= */

const char *spu_discard_reason_name(spu_discard_reason r)
{
    switch (r) {
    case SPU_DISCARD_SERVICE: return "service";
    case SPU_DISCARD_DISABLED: return "disabled";
    case SPU_DISCARD_MODE: return "discard_mode";
    case SPU_DISCARD_FAULT: return "fault";
    case SPU_DISCARD_PTR: return "write_pointer";
    case SPU_DISCARD_EXT_ABORT: return "external_abort";
    case SPU_DISCARD__COUNT: break;
    }
    return "unknown";
}

/* Writes of the functional path: issued and answered at once, latency 0, one outstanding. */
static void direct_writes_account(const spu_t *spu, spu_stats *st)
{
    if (!spu->direct_writes)
        return;
    st->writes_issued += spu->direct_writes;
    st->writes_answered += spu->direct_writes;
    st->write_latency_min = 0;
    if (!st->outstanding_writes_max)
        st->outstanding_writes_max = 1;
}

void spu_get_stats(const spu_t *spu, spu_stats *st)
{
    *st = spu->st;
    if (spu->fifo_level)
        level_account(spu, st);
    uint64_t counted = 0;
    for (int i = 0; i < SPU_FIFO_HIST_BINS; i++)
        counted += st->fifo_hist[i];
    st->fifo_hist[0] += spu->now - counted; /* the cycles with an empty FIFO */
    direct_writes_account(spu, st);
    st->fifo_bytes_now = spu->fifo_level;
    st->inflight_now = spu->inflight;
}

void spu_get_probe(const spu_t *spu, spu_probe *p)
{
    uint64_t icr = spu->regs[R_PMSICR_EL1];
    p->count = (uint32_t)ap_field_get(PMSICR_COUNT, icr);
    p->ecount = (uint8_t)ap_field_get(PMSICR_ECOUNT, icr);
    p->ecount_active = p->ecount != 0;
    p->fifo_level = spu->fifo_level;
    p->inflight = spu->inflight;
    p->drained = spu->drained_total;
    p->rng_state = spu->rng.state;
}

void spu_set_record_hook(spu_t *spu, spu_record_fn fn, void *user)
{
    spu->rec_hook = fn;
    spu->rec_hook_user = user;
}

/* =============================================================================================
 * Checkpoints
 * ============================================================================================= */

armprof_err spu_save(const spu_t *spu, uint8_t *buf, size_t cap, size_t *len)
{
    if (!spu || !len)
        return ARMPROF_ERR_INVAL;
    ap_state_writer w;
    ap_state_begin(&w, buf, cap, SPU_STATE_TAG, SPU_STATE_VERSION, cfg_hash(&spu->cfg));
    ap_state_put(&w, &spu->ctx, sizeof(spu->ctx));
    ap_state_put(&w, spu->regs, sizeof(spu->regs));
    ap_state_put_u32(&w, spu->rng.state);
    ap_state_put_u32(&w, spu->sample_pending);
    ap_state_put_u32(&w, spu->irq);
    ap_state_put_u64(&w, spu->now);
    ap_state_put_u64(&w, spu->next_seq);
    ap_state_put_u32(&w, spu->inflight);
    ap_state_put_u32(&w, spu->slot_head);
    ap_state_put(&w, spu->slots, spu->cfg.max_inflight * sizeof(spu_slot));
    ap_state_put(&w, spu->slot_bytes, (size_t)spu->cfg.max_inflight << spu->cfg.max_size);
    ap_state_put(&w, spu->fifo_data, ring_size(spu));
    ap_state_put_u32(&w, spu->fifo_head);
    ap_state_put_u32(&w, spu->fifo_level);
    ap_state_put(&w, spu->fifo_recs, spu->fifo_nrec_cap * sizeof(spu_fifo_rec));
    ap_state_put_u32(&w, spu->fifo_rhead);
    ap_state_put_u32(&w, spu->fifo_nrec);
    ap_state_put_u32(&w, spu->head_drained);
    ap_state_put_u64(&w, spu->drained_total);
    ap_state_put_u64(&w, spu->unit_ptr);
    ap_state_put_u32(&w, spu->ptr_checked);
    ap_state_put(&w, &spu->st, sizeof(spu->st));
    /* The buffer writer: placed records, unissued bytes, outstanding writes and their answers. */
    ap_state_put_u64(&w, spu->wptr);
    ap_state_put_u64(&w, spu->iaddr);
    ap_state_put(&w, spu->wbuf, spu->wbuf_mask + 1);
    ap_state_put_u32(&w, spu->wq_n);
    ap_state_put_u32(&w, spu->wq_ignored);
    ap_state_put_u32(&w, spu->wq_pending);
    for (uint32_t k = 0; k < spu->wq_n; k++) {
        const spu_wr *q = &spu->wq[(spu->wq_head + k) % spu->cfg.max_outstanding_writes];
        ap_state_put_u64(&w, q->addr);
        ap_state_put_u64(&w, q->issue_at);
        ap_state_put_u64(&w, q->done_at);
        ap_state_put_u32(&w, q->len);
        ap_state_put_u32(&w, q->res.status);
        ap_state_put_u32(&w, q->res.ec);
        ap_state_put_u32(&w, q->res.fsc);
        ap_state_put_u32(&w, q->res.async);
        ap_state_put_u32(&w, q->res.written);
        ap_state_put_u32(&w, q->res.mss2);
        ap_state_put_u32(&w, q->res.latency);
    }
    ap_state_put_u32(&w, spu->wr_n);
    ap_state_put_u32(&w, spu->wr_iss);
    for (uint32_t k = 0; k < spu->wr_n; k++) {
        const spu_wrec *q = &spu->wr[(spu->wr_head + k) % spu->wr_cap];
        ap_state_put_u64(&w, q->start);
        ap_state_put_u64(&w, q->end);
        ap_state_put_u32(&w, q->aborted);
    }
    ap_state_put_u32(&w, spu->deferred);
    ap_state_put_u64(&w, spu->deferred_ptr);
    ap_state_put_u64(&w, spu->lvl_t);
    ap_state_put_u64(&w, spu->direct_writes);
    armprof_err e = ap_state_end(&w);
    *len = w.len;
    return e;
}

armprof_err spu_restore(spu_t *spu, const uint8_t *buf, size_t len)
{
    if (!spu)
        return ARMPROF_ERR_INVAL;
    ap_state_reader r;
    armprof_err e = ap_state_open(&r, buf, len, SPU_STATE_TAG, SPU_STATE_VERSION, cfg_hash(&spu->cfg));
    if (e != ARMPROF_OK)
        return e;
    /* Read into a scratch copy first so a corrupt payload leaves the unit untouched. */
    spu_t *t = malloc(sizeof(*t));
    spu_slot *slots = malloc(spu->cfg.max_inflight * sizeof(spu_slot));
    uint8_t *fd = malloc(ring_size(spu));
    size_t sb_len = (size_t)spu->cfg.max_inflight << spu->cfg.max_size;
    uint8_t *sb = malloc(sb_len);
    spu_fifo_rec *fr = malloc(spu->fifo_nrec_cap * sizeof(spu_fifo_rec));
    if (!t || !slots || !fd || !fr || !sb) {
        free(t); free(slots); free(fd); free(fr); free(sb);
        return ARMPROF_ERR_NOMEM;
    }
    *t = *spu;
    ap_state_get(&r, &t->ctx, sizeof(t->ctx));
    ap_state_get(&r, t->regs, sizeof(t->regs));
    t->rng.state = ap_state_get_u32(&r);
    t->sample_pending = ap_state_get_u32(&r) != 0;
    t->irq = ap_state_get_u32(&r) != 0;
    t->now = ap_state_get_u64(&r);
    t->next_seq = ap_state_get_u64(&r);
    t->inflight = ap_state_get_u32(&r);
    t->slot_head = ap_state_get_u32(&r);
    ap_state_get(&r, slots, spu->cfg.max_inflight * sizeof(spu_slot));
    ap_state_get(&r, sb, sb_len);
    ap_state_get(&r, fd, ring_size(spu));
    t->fifo_head = ap_state_get_u32(&r);
    t->fifo_level = ap_state_get_u32(&r);
    ap_state_get(&r, fr, spu->fifo_nrec_cap * sizeof(spu_fifo_rec));
    t->fifo_rhead = ap_state_get_u32(&r);
    t->fifo_nrec = ap_state_get_u32(&r);
    t->head_drained = ap_state_get_u32(&r);
    t->drained_total = ap_state_get_u64(&r);
    t->unit_ptr = ap_state_get_u64(&r);
    t->ptr_checked = ap_state_get_u32(&r) != 0;
    ap_state_get(&r, &t->st, sizeof(t->st));
    uint32_t M = spu->cfg.max_outstanding_writes;
    uint8_t *wb = malloc(spu->wbuf_mask + 1);
    spu_wr *wq = calloc(M, sizeof(spu_wr));
    spu_wrec *wr = NULL;
    uint32_t wr_cap = spu->wr_cap;
    if (!wb || !wq) {
        e = ARMPROF_ERR_NOMEM;
        goto out;
    }
    t->wptr = ap_state_get_u64(&r);
    t->iaddr = ap_state_get_u64(&r);
    ap_state_get(&r, wb, spu->wbuf_mask + 1);
    t->wq_n = ap_state_get_u32(&r);
    t->wq_ignored = ap_state_get_u32(&r);
    t->wq_pending = ap_state_get_u32(&r);
    if (t->wq_n > M || t->wq_ignored > t->wq_n || t->wq_pending > t->wq_n) {
        e = ARMPROF_ERR_STATE_CORRUPT;
        goto out;
    }
    for (uint32_t k = 0; k < t->wq_n; k++) {
        spu_wr *q = &wq[k];
        q->addr = ap_state_get_u64(&r);
        q->issue_at = ap_state_get_u64(&r);
        q->done_at = ap_state_get_u64(&r);
        q->len = ap_state_get_u32(&r);
        q->res.status = (armprof_mem_status)ap_state_get_u32(&r);
        q->res.ec = (uint8_t)ap_state_get_u32(&r);
        q->res.fsc = (uint8_t)ap_state_get_u32(&r);
        q->res.async = ap_state_get_u32(&r) != 0;
        q->res.written = ap_state_get_u32(&r);
        q->res.mss2 = ap_state_get_u32(&r);
        q->res.latency = ap_state_get_u32(&r);
    }
    t->wq_head = 0;
    t->wr_n = ap_state_get_u32(&r);
    t->wr_iss = ap_state_get_u32(&r);
    if (t->wr_n > (1u << 26) || t->wr_iss > t->wr_n) {
        e = ARMPROF_ERR_STATE_CORRUPT;
        goto out;
    }
    while (wr_cap < t->wr_n)
        wr_cap *= 2;
    wr = calloc(wr_cap, sizeof(spu_wrec));
    if (!wr) {
        e = ARMPROF_ERR_NOMEM;
        goto out;
    }
    for (uint32_t k = 0; k < t->wr_n; k++) {
        wr[k].start = ap_state_get_u64(&r);
        wr[k].end = ap_state_get_u64(&r);
        wr[k].aborted = ap_state_get_u32(&r) != 0;
    }
    t->wr_head = 0;
    /* The writer's invariants, so that a corrupt state cannot make it read past its buffers. */
    bool bad = t->iaddr > t->wptr || t->wptr - t->iaddr > spu->wbuf_mask + 1;
    for (uint32_t k = 0; k < t->wr_n && !bad; k++)
        bad = wr[k].end <= wr[k].start || wr[k].end - wr[k].start > (1u << spu->cfg.max_size) ||
              (k && wr[k].start != wr[k - 1].end) || wr[k].end > t->wptr;
    for (uint32_t k = 0; k < t->wq_n && !bad; k++)
        bad = wq[k].len == 0 || wq[k].len > wtmp_bytes(&spu->cfg);
    if (bad) {
        e = ARMPROF_ERR_STATE_CORRUPT;
        goto out;
    }
    t->deferred = ap_state_get_u32(&r) != 0;
    t->deferred_ptr = ap_state_get_u64(&r);
    t->lvl_t = ap_state_get_u64(&r);
    t->direct_writes = ap_state_get_u64(&r);
    e = ap_state_close(&r);
    if (e == ARMPROF_OK && (t->inflight > spu->cfg.max_inflight || t->slot_head >= spu->cfg.max_inflight || t->fifo_nrec > spu->fifo_nrec_cap ||
                            t->fifo_rhead >= spu->fifo_nrec_cap || t->fifo_head >= ring_size(spu) ||
                            t->fifo_level > spu->cfg.fifo_bytes || t->ctx.el > 3))
        e = ARMPROF_ERR_STATE_CORRUPT;
    if (e == ARMPROF_OK) {
        memcpy(spu->slots, slots, spu->cfg.max_inflight * sizeof(spu_slot));
        memcpy(spu->slot_bytes, sb, sb_len);
        memcpy(spu->fifo_data, fd, ring_size(spu));
        memcpy(spu->fifo_recs, fr, spu->fifo_nrec_cap * sizeof(spu_fifo_rec));
        t->slots = spu->slots;
        t->slot_bytes = spu->slot_bytes;
        t->fifo_data = spu->fifo_data;
        t->fifo_recs = spu->fifo_recs;
        memcpy(spu->wbuf, wb, spu->wbuf_mask + 1);
        memcpy(spu->wq, wq, M * sizeof(spu_wr));
        t->wbuf = spu->wbuf;
        t->wq = spu->wq;
        free(spu->wr);
        t->wr = wr;
        t->wr_cap = wr_cap;
        wr = NULL;
        t->flush = false;
        *spu = *t;
        wq_next_done(spu);
        writer_blocked_update(spu);
        spu->buf_enabled = buffer_enabled(spu, &spu->regime);
        spu->prof_enabled = profiling_enabled(spu);
        sample_attrs_update(spu);
        spu->complete_in_order = false; /* not known: the full scan */
        recompute_next_complete(spu);
    }
out:
    free(wb); free(wq); free(wr);
    free(t); free(slots); free(fd); free(fr); free(sb);
    return e;
}

/* =============================================================================================
 * External sampler (the Verilated RTL counter and record FIFO in the platform, rtl-cosim/)
 * =============================================================================================
 * The external sampler takes the decisions of the sample interval counter (which operation is
 * sampled, which collides) and of the record FIFO (how many bytes reach the buffer writer at
 * each edge); the model keeps the records, filters, encoder, buffer writer, management events
 * and registers. Pacing: `stream` counts the bytes of every record that left a slot for the
 * FIFO (pushed, or discarded on the way while PMBSR_EL1.S == 1), `drained` the bytes the
 * external FIFO drained; the model's own FIFO has given away stream - fifo_level bytes and
 * drains until that equals `drained`. */

struct spu_ext {
    uint64_t stream;
    uint64_t drained;
    spu_ext_stats st;
    uint16_t pred[];          /* per slot: the record length the external FIFO was given */
};

armprof_err spu_set_external_sampler(spu_t *spu, bool on)
{
    if (!spu)
        return ARMPROF_ERR_INVAL;
    if (!on) {
        free(spu->ext);
        spu->ext = NULL;
        return ARMPROF_OK;
    }
    if (spu->inflight || spu->fifo_nrec)
        return ARMPROF_ERR_BUSY;
    struct spu_ext *x = calloc(1, sizeof(*x) + spu->cfg.max_inflight * sizeof(uint16_t));
    if (!x)
        return ARMPROF_ERR_NOMEM;
    free(spu->ext);
    spu->ext = x;
    return ARMPROF_OK;
}

bool spu_external_sampler(const spu_t *spu) { return spu->ext != NULL; }

uint32_t spu_predict_record_len(const spu_t *spu, const spu_op *op)
{
    spu_slot s;
    build_record(spu, op, &s);
    if (!collect_record(spu, s.events, s.total_lat, s.optype))
        return 0;
    if (record_has_timestamp(spu, &s))
        s.rec.present |= SPE_R_TIMESTAMP; /* 9 bytes whatever its value */
    return (uint32_t)spe_encoded_size(&s.rec, &spu->fmt);
}

/* retire_one() with the external sampler's decision for this operation. */
static spu_op_result ext_retire(spu_t *spu, const spu_op *op, bool fire, bool coll, uint16_t len)
{
    struct spu_ext *x = spu->ext;
    if (!spu->prof_enabled) {
        if (fire)
            x->st.enable_mismatches++;
        return SPU_OP_NOT_COUNTED;
    }
    spu->st.population++;
    emit(spu, ARMPROF_EV_SAMPLE_POP, 1);
    if (!fire)
        return SPU_OP_COUNTED;
    if (coll || spu->inflight >= spu->cfg.max_inflight) {
        if (!coll)
            x->st.slot_mismatches++;
        return collide(spu);
    }
    spu_slot *s = admit(spu, op);
    x->pred[s - spu->slots] = len;
    return SPU_OP_SAMPLED;
}

/* accept_completed(), counting the bytes of the records that left their slots. */
static void ext_accept(spu_t *spu)
{
    struct spu_ext *x = spu->ext;
    uint32_t head = spu->slot_head, before = spu->inflight;
    accept_completed(spu);
    for (uint32_t k = 0; k < before - spu->inflight; k++) {
        uint32_t i = head + k < spu->cfg.max_inflight ? head + k : head + k - spu->cfg.max_inflight;
        const spu_slot *s = &spu->slots[i];
        uint32_t len = s->collect ? s->len : 0;
        x->stream += len;
        if (len != x->pred[i])
            x->st.len_mismatches++;
    }
}

void spu_cycle_ext(spu_t *spu, const spu_op *ops, uint32_t n, const spu_ext_cycle *ec,
                   spu_op_result *result)
{
    struct spu_ext *x = spu->ext;
    if (!x) {
        spu_cycle(spu, ops, n, result);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        bool fire = i < 32 && (ec->fire >> i) & 1, coll = i < 32 && (ec->coll >> i) & 1;
        spu_op_result r = ext_retire(spu, &ops[i], fire, coll, ec->len && fire ? ec->len[i] : 0);
        if (result)
            result[i] = r;
    }
    /* PMSICR_EL1 as the external counter holds it. */
    uint64_t icr = ap_field_set(spu->regs[R_PMSICR_EL1], PMSICR_COUNT, ec->count);
    if (spu->cfg.ernd)
        icr = ap_field_set(icr, PMSICR_ECOUNT, ec->ecount);
    spu->regs[R_PMSICR_EL1] = icr;
    /* The edge: drain what the external FIFO drained, then accept completed records. */
    bool ready = writer_ready(spu);
    if (ec->drained && !ready)
        x->st.drain_not_ready++;
    if (spu->fifo_level && !ready)
        spu->st.writer_stall_cycles++;
    x->drained += ec->drained;
    uint64_t given = x->stream - spu->fifo_level;
    if (x->drained > given && ready) {
        uint64_t owe = x->drained - given;
        if (owe > spu->fifo_level)
            x->st.owed_edges++;
        if (spu->fifo_nrec)
            fifo_drain(spu, owe < spu->fifo_level ? owe : spu->fifo_level, false);
        if (spu->iaddr != spu->wptr)
            writer_run(spu, spu->head_drained == 0);
    }
    ext_accept(spu);
    if (ap_field_get(PMBSR_S, spu->regs[R_PMBSR_EL1]))
        spu->st.service_cycles++;
    spu->now++;
    if (spu->next_done <= spu->now)
        writer_run(spu, spu->head_drained == 0);
    x->st.cycles++;
    if (spu->fifo_level && spu->fifo_level != ec->fifo_level)
        x->st.level_mismatches++;
    if (!spu->fifo_level && !ec->fifo_level)
        x->drained = x->stream; /* both empty: in step again */
}

void spu_get_ext_stats(const spu_t *spu, spu_ext_stats *st)
{
    if (spu->ext)
        *st = spu->ext->st;
    else
        memset(st, 0, sizeof(*st));
}

uint32_t spu_fifo_hist_width(const spu_t *spu) { return 1u << spu->hist_shift; }
