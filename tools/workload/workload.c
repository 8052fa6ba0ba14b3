/* SPDX-License-Identifier: Apache-2.0 */
/* workload.c: the seeded synthetic operation generator (mix, latencies, addresses, events). */
#include "workload.h"

#include <string.h>

static uint64_t prng_next(wl_prng *p)
{
    uint64_t z = (p->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0. */
static uint64_t prng_below(wl_prng *p, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)prng_next(p) * n) >> 64);
}

/* Uniform in [0, 1). */
static double prng_unit(wl_prng *p)
{
    return (double)(prng_next(p) >> 11) * (1.0 / 9007199254740992.0);
}

void wl_config_default(wl_config *c)
{
    memset(c, 0, sizeof(*c));
    c->seed = 1;
    c->p_load = 0.25;
    c->p_store = 0.10;
    c->p_branch = 0.15;
    c->p_atomic = 0.02;
    c->p_simd = 0.10;
    c->p_cond = 0.6;
    c->p_indirect = 0.1;
    c->p_not_taken = 0.4;
    c->p_mispredict = 0.05;
    c->p_l1_miss = 0.08;
    c->p_tlb_miss = 0.02;
    c->p_llc_miss = 0.3;
    c->p_exception = 0.0005;
    c->lat_other = 4;
    c->lat_branch = 6;
    c->lat_l1_hit = 8;
    c->lat_l1_miss = 40;
    c->lat_llc_miss = 200;
    c->lat_tlb_walk = 30;
    c->lat_jitter = 8;
    c->code_base = 0xffff800010000000ull;
    c->code_bytes = 1u << 20;
    c->data_base = 0x0000ffff80000000ull;
    c->data_bytes = 64u << 20;
    c->pa_offset = 0x0000000880000000ull - 0x0000ffff80000000ull;
    c->stride = 64;
    c->p_sequential = 0.7;
    c->va_tag = 0;
}

void wl_init(wl_gen *g, const wl_config *c)
{
    memset(g, 0, sizeof(*g));
    g->cfg = *c;
    g->rng.state = c->seed;
    g->pc = c->code_base;
    g->seq_addr = c->data_base;
}

static int chance(wl_gen *g, double p)
{
    return prng_unit(&g->rng) < p;
}

static uint32_t jitter(wl_gen *g, uint32_t base)
{
    return base + (g->cfg.lat_jitter ? (uint32_t)prng_below(&g->rng, g->cfg.lat_jitter + 1) : 0);
}

void wl_next(wl_gen *g, spu_op *op)
{
    const wl_config *c = &g->cfg;
    memset(op, 0, sizeof(*op));
    op->pc = g->pc;
    double u = prng_unit(&g->rng);
    uint64_t next_pc = g->pc + 4;
    if (u < c->p_load + c->p_store) {
        bool store = u >= c->p_load;
        op->op_class = SPE_CLASS_LDST;
        if (chance(g, c->p_atomic))
            op->op_subclass = SPE_LDST_EXTENDED | SPE_LDST_AT | (chance(g, 0.5) ? SPE_LDST_AR : 0);
        else
            op->op_subclass = chance(g, c->p_simd) ? SPE_LDST_SIMD_FP : SPE_LDST_GP;
        if (store)
            op->op_subclass |= SPE_LDST_ST;
        uint64_t va;
        if (chance(g, c->p_sequential)) {
            va = g->seq_addr;
            g->seq_addr += c->stride;
            if (g->seq_addr >= c->data_base + c->data_bytes)
                g->seq_addr = c->data_base;
        } else {
            va = c->data_base + (prng_below(&g->rng, c->data_bytes) & ~7ull);
        }
        op->data_va = va | ((uint64_t)c->va_tag << 56);
        op->data_pa = va + c->pa_offset;
        op->data_pa_ns = true;
        op->flags |= SPU_OP_HAS_VA | SPU_OP_HAS_PA | SPU_OP_HAS_XLAT;
        op->events |= AP_BIT_EV(SPE_EV_L1D_ACCESS) | AP_BIT_EV(SPE_EV_TLB_ACCESS);
        uint32_t lat = c->lat_l1_hit;
        op->xlat_lat = jitter(g, 1);
        if (chance(g, c->p_tlb_miss)) {
            op->events |= AP_BIT_EV(SPE_EV_TLB_WALK);
            op->xlat_lat += c->lat_tlb_walk;
            lat += c->lat_tlb_walk;
        }
        uint16_t dsrc = 0; /* L1 */
        if (chance(g, c->p_l1_miss)) {
            op->events |= AP_BIT_EV(SPE_EV_L1D_REFILL) | AP_BIT_EV(SPE_EV_LLC_ACCESS);
            lat = c->lat_l1_miss;
            dsrc = 8; /* L2 */
            if (chance(g, c->p_llc_miss)) {
                op->events |= AP_BIT_EV(SPE_EV_LLC_MISS);
                lat = c->lat_llc_miss;
                dsrc = 14; /* DRAM */
            }
        }
        if (!store) {
            op->flags |= SPU_OP_HAS_DSRC;
            op->data_source = dsrc;
        }
        op->total_lat = jitter(g, lat);
        op->issue_lat = jitter(g, 1) + (op->total_lat > 4 ? op->total_lat / 4 : 0);
    } else if (u < c->p_load + c->p_store + c->p_branch) {
        op->op_class = SPE_CLASS_BRANCH;
        bool cond = chance(g, c->p_cond);
        bool indirect = chance(g, c->p_indirect);
        op->op_subclass = (uint8_t)((cond ? SPE_BR_COND : 0) | (indirect ? SPE_BR_INDIRECT : 0));
        bool taken = !(cond && chance(g, c->p_not_taken));
        if (!taken)
            op->events |= AP_BIT_EV(SPE_EV_NOT_TAKEN);
        if (chance(g, c->p_mispredict))
            op->events |= AP_BIT_EV(SPE_EV_MISPREDICTED);
        uint64_t tgt = c->code_base + (prng_below(&g->rng, c->code_bytes) & ~3ull);
        op->target = tgt;
        op->target_el = 1;
        op->target_ns = true;
        op->flags |= SPU_OP_HAS_TARGET;
        if (taken)
            next_pc = tgt;
        op->total_lat = jitter(g, c->lat_branch);
        op->issue_lat = jitter(g, 1);
    } else {
        op->op_class = SPE_CLASS_OTHER;
        op->op_subclass = chance(g, c->p_cond * 0.1) ? SPE_OTHER_COND : SPE_OTHER_UNCOND;
        op->total_lat = jitter(g, c->lat_other);
        op->issue_lat = jitter(g, 1);
    }
    if (c->p_exception > 0 && chance(g, c->p_exception))
        op->flags |= SPU_OP_EXCEPTION;
    if (next_pc >= c->code_base + c->code_bytes)
        next_pc = c->code_base;
    g->pc = next_pc;
    g->generated++;
}
