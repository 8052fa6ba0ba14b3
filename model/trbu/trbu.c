/* SPDX-License-Identifier: Apache-2.0 */
/*
 * trbu.c: the Trace Buffer Unit (seed 004, Arm ARM D6.5): configuration, life cycle, PE context,
 * and time: the unit's clock, what is due at a cycle (outstanding writes accepted, a trace unit
 * flush completing for a Trigger Event, RXRRWP, an asynchronous External abort reported,
 * D6.5.5.4) and TSB CSYNC. The writer is in trbu_writer.c, management events in trbu_mgmt.c,
 * routing and TRBIRQ in trbu_route.c, registers in trbu_regs.c, checkpoints in trbu_state.c.
 */
#include <stdlib.h>
#include <string.h>

#include "trbu_internal.h"

/* ----- Configuration --------------------------------------------------------------------------- */

void trbu_config_default(trbu_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->align = 6;
    cfg->ea_write = TRBU_EA_REPORT;
    cfg->ea_walk = TRBU_EA_MMU_FAULT;
    cfg->bad_ptr = TRBU_BADPTR_IMPDEF_EVENT;
    cfg->pad_byte = 0x70;
    cfg->flush_cycles = 16;
    cfg->ea_async_cycles = 64;
    cfg->write_granule = 4096;
    cfg->max_burst = 4096;
    cfg->max_outstanding_writes = 1;
}

static armprof_err why_fail(char *why, size_t len, armprof_err e, const char *msg)
{
    if (why && len) {
        strncpy(why, msg, len - 1);
        why[len - 1] = '\0';
    }
    return e;
}

armprof_err trbu_config_validate(const trbu_config *cfg, char *why, size_t len)
{
    if (!cfg)
        return why_fail(why, len, ARMPROF_ERR_INVAL, "cfg is NULL");
    if (cfg->align > 11)
        return why_fail(why, len, ARMPROF_ERR_CFG_ALIGN, "align: TRBIDR_EL1.Align above 0b1011 (2 KiB)");
    if (cfg->ea_write > TRBU_EA_REPORT || cfg->ea_walk > TRBU_EA_REPORT)
        return why_fail(why, len, ARMPROF_ERR_CFG_RANGE, "ea_write / ea_walk: not a trbu_ea_policy");
    if (cfg->ea_write == TRBU_EA_MMU_FAULT)
        return why_fail(why, len, ARMPROF_ERR_CFG_RANGE,
                        "ea_write: a synchronous MMU fault applies to walk aborts only (D6.5.5.3)");
    if (cfg->armv9p3 && (cfg->ea_write == TRBU_EA_REPORT || cfg->ea_walk == TRBU_EA_REPORT))
        return why_fail(why, len, ARMPROF_ERR_CFG_FEATURE,
                        "armv9p3: External aborts are not reported to the unit from Armv9.3 (IFRNZK)");
    if (cfg->bad_ptr > TRBU_BADPTR_DISCARD)
        return why_fail(why, len, ARMPROF_ERR_CFG_RANGE, "bad_ptr: not a trbu_bad_ptr_policy");
    uint32_t unit = 1u << cfg->align;
    if (cfg->write_granule &&
        ((cfg->write_granule & (cfg->write_granule - 1)) || cfg->write_granule < unit))
        return why_fail(why, len, ARMPROF_ERR_CFG_RANGE,
                        "write_granule: 0 or a power of two no smaller than 2^Align");
    if (cfg->max_burst < unit)
        return why_fail(why, len, ARMPROF_ERR_CFG_RANGE, "max_burst: smaller than 2^Align");
    if (cfg->max_outstanding_writes < 1 || cfg->max_outstanding_writes > TRBU_MAX_OUTSTANDING)
        return why_fail(why, len, ARMPROF_ERR_CFG_RANGE, "max_outstanding_writes: 1 .. 1024");
    return ARMPROF_OK;
}

/* ----- Outputs --------------------------------------------------------------------------------- */

/* TRBIRQ changed level (trbu_update_outputs() in trbu_internal.h). */
void trbu_irq_changed(trbu_t *t, bool lvl)
{
    t->irq_level = lvl;
    if (lvl)
        t->st.irq_rises++;
    if (t->ops.irq)
        t->ops.irq(t->ops.user, lvl);
}

/* ----- Time ----------------------------------------------------------------------------------- */

static uint64_t wq_due(const trbu_t *t)
{
    if (!t->wq_n || trbu_wq_at(t, 0)->pending)
        return TRBU_NO_TIME;
    return trbu_wq_at(t, 0)->due;
}

void trbu_process_due_slow(trbu_t *t)
{
    for (;;) {
        uint64_t w = wq_due(t);
        uint64_t f = t->flush_pending ? t->flush_at : TRBU_NO_TIME;
        uint64_t e = t->ea_pending ? t->ea_at : TRBU_NO_TIME;
        if (w <= t->now) {
            trbu_process_writes(t);
        } else if (f <= t->now && f <= e) {
            trbu_flush_done(t);
        } else if (e <= t->now) {
            t->ea_pending = false;
            trbu_ea_report(t, t->ea_ec, t->ea_fsc);
        } else {
            break;
        }
    }
}

uint64_t trbu_cycles_to_next_event(const trbu_t *t)
{
    uint64_t f = t->flush_pending ? t->flush_at : TRBU_NO_TIME;
    uint64_t e = t->ea_pending ? t->ea_at : TRBU_NO_TIME;
    uint64_t w = wq_due(t);
    uint64_t m = f < e ? f : e;
    if (w < m)
        m = w;
    if (m == TRBU_NO_TIME)
        return UINT64_MAX;
    return m > t->now ? m - t->now : 0;
}

/* The writer is stalled: bytes wait in the internal buffer to be issued behind outstanding
 * writes (a full unit, or a drain). */
static bool writer_stalled(const trbu_t *t)
{
    return t->wq_n && t->ibuf_len && (t->ibuf_len == t->unit || t->drain_wanted) &&
           !trbu_collection_stopped(t);
}

void trbu_advance(trbu_t *t, uint64_t cycles)
{
    uint64_t target = t->now + cycles;
    for (;;) {
        uint64_t d = trbu_cycles_to_next_event(t);
        if (d == UINT64_MAX || t->now + d > target)
            break;
        if (writer_stalled(t))
            t->st.writer_stall_cycles += d;
        t->now += d;
        trbu_process_due(t);
        trbu_update_outputs(t);         /* TRBIRQ changes at the event's cycle */
    }
    if (writer_stalled(t))
        t->st.writer_stall_cycles += target - t->now;
    t->now = target;
    trbu_update_outputs(t);
}

uint64_t trbu_now(const trbu_t *t)
{
    return t->now;
}

size_t trbu_cycle(trbu_t *t, const uint8_t *data, size_t len, bool trigger)
{
    size_t n = len ? trbu_trace_bytes(t, data, len) : 0;
    if (trigger)
        trbu_trigger(t);
    trbu_advance(t, 1);
    return n;
}

void trbu_tsb_csync(trbu_t *t)
{
    t->st.tsb_csyncs++;
    /* Outstanding writes with a synchronous answer are accepted now (the model does not stall
     * the PE: a host that does advances the unit until trbu_writes_outstanding() is 0 first);
     * the drained bytes follow them. Writes with a pending answer stay outstanding. */
    trbu_settle_writes(t);
    trbu_drain(t);
    trbu_settle_writes(t);
    if (t->ea_pending) {
        t->ea_pending = false;
        trbu_ea_report(t, t->ea_ec, t->ea_fsc);
    }
    trbu_process_due(t);
    trbu_update_outputs(t);
}

/* ----- Life cycle, context ------------------------------------------------------------------------ */

armprof_err trbu_open(const trbu_config *cfg, const armprof_host_ops *ops, trbu_t **out)
{
    if (!out)
        return ARMPROF_ERR_INVAL;
    *out = NULL;
    armprof_err e = trbu_config_validate(cfg, NULL, 0);
    if (e != ARMPROF_OK)
        return e;
    trbu_t *t = calloc(1, sizeof(*t));
    if (!t)
        return ARMPROF_ERR_NOMEM;
    t->cfg = *cfg;
    t->unit = 1u << cfg->align;
    t->ibuf = calloc(1, t->unit);
    t->wq = calloc(cfg->max_outstanding_writes, sizeof(*t->wq));
    if (!t->ibuf || !t->wq) {
        free(t->ibuf);
        free(t->wq);
        free(t);
        return ARMPROF_ERR_NOMEM;
    }
    if (ops)
        t->ops = *ops;
    armprof_pe_ctx_default(&t->ctx);
    trbu_regs_init(t);
    ap_reg_reset(&t->rf, true);
    *out = t;
    return ARMPROF_OK;
}

void trbu_close(trbu_t *t)
{
    if (!t)
        return;
    free(t->ibuf);
    free(t->wq);
    free(t);
}

void trbu_reset(trbu_t *t)
{
    ap_reg_reset(&t->rf, false);
    t->regime_valid = false;
    t->ibuf_len = 0;
    t->pre_trig = 0;
    t->flush_pending = false;
    t->ea_pending = false;
    /* Outstanding writes are forgotten (a pending answer given later is refused). */
    t->wq_head = t->wq_n = t->wq_live = 0;
    t->inflight_bytes = 0;
    t->drain_wanted = false;
    t->trg_wait = false;
    trbu_update_outputs(t);
}

const trbu_config *trbu_get_config(const trbu_t *t)
{
    return &t->cfg;
}

armprof_err trbu_set_pe_context(trbu_t *t, const armprof_pe_ctx *ctx)
{
    if (!t || !ctx || ctx->el > 3)
        return ARMPROF_ERR_INVAL;
    t->ctx = *ctx;
    t->regime_valid = false;
    trbu_update_outputs(t);
    return ARMPROF_OK;
}

const armprof_pe_ctx *trbu_get_pe_context(const trbu_t *t)
{
    return &t->ctx;
}

/* ELIsInHost(EL2): EL2 implemented (AArch64) with HCR_EL2.E2H == 1, whatever the current EL. */
bool trbu_el2_in_host(const trbu_t *t)
{
    return t->ctx.have_el2 && t->ctx.hcr_e2h;
}

const char *trbu_discard_reason_name(trbu_discard_reason r)
{
    switch (r) {
    case TRBU_DISCARD_DISABLED: return "disabled";
    case TRBU_DISCARD_STOPPED: return "stopped";
    case TRBU_DISCARD_FAULT: return "fault";
    case TRBU_DISCARD_BAD_PTR: return "bad_pointers";
    case TRBU_DISCARD_DISABLE: return "lost_on_disable";
    case TRBU_DISCARD__COUNT: break;
    }
    return "unknown";
}

void trbu_get_stats(const trbu_t *t, trbu_stats *st)
{
    *st = t->st;
}
