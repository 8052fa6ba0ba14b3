/* SPDX-License-Identifier: Apache-2.0 */
/* memsys.c: set-associative LRU caches (L1D, L2, LLC), a TLB, a bimodal branch predictor and the miss queueing (MSHRs, per-level bandwidth) of armprof-qemu's core model. */
#include "memsys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void memsys_config_default(memsys_config *c)
{
    memset(c, 0, sizeof(*c));
    c->line_bytes = 64;
    c->l1d_bytes = 64 * 1024;  c->l1d_ways = 4;  c->l1d_lat = 4;
    c->l2_bytes = 1024 * 1024; c->l2_ways = 8;  c->l2_lat = 11;
    c->llc_bytes = 8 * 1024 * 1024; c->llc_ways = 16; c->llc_lat = 35;
    c->dram_lat = 150;
    c->tlb_entries = 1024; c->tlb_ways = 4;
    c->tlb_lat = 1; c->walk_lat = 30;
    c->bp_entries = 4096;
    c->mispredict_lat = 11;
    c->mshrs = 16;
    c->l2_bw = 64; c->llc_bw = 32; c->dram_bw = 4;
}

static bool pow2(uint64_t v) { return v && !(v & (v - 1)); }

static int check_level(const char *name, uint32_t bytes, uint32_t ways, uint32_t unit, char *why, size_t n)
{
    if (!pow2(bytes) || bytes < unit) {
        snprintf(why, n, "%s: size %u is not a power of two of at least %u bytes", name, bytes, unit);
        return -1;
    }
    if (!pow2(ways) || ways > 32 || (uint64_t)ways * unit > bytes) {
        snprintf(why, n, "%s_ways: %u is not a power of two from 1 to 32 and at most %u (the %s's %u-byte units)",
                 name, ways, bytes / unit, name, unit);
        return -1;
    }
    return 0;
}

int memsys_config_check(const memsys_config *c, char *why, size_t n)
{
    if (!pow2(c->line_bytes) || c->line_bytes < 8 || c->line_bytes > 4096) {
        snprintf(why, n, "line: %u is not a power of two from 8 to 4096", c->line_bytes);
        return -1;
    }
    if (check_level("l1d", c->l1d_bytes, c->l1d_ways, c->line_bytes, why, n) ||
        check_level("l2", c->l2_bytes, c->l2_ways, c->line_bytes, why, n) ||
        check_level("llc", c->llc_bytes, c->llc_ways, c->line_bytes, why, n))
        return -1;
    if (!pow2(c->tlb_entries)) {
        snprintf(why, n, "tlb: %u entries is not a power of two", c->tlb_entries);
        return -1;
    }
    if (!pow2(c->tlb_ways) || c->tlb_ways > 32 || c->tlb_ways > c->tlb_entries) {
        snprintf(why, n, "tlb_ways: %u is not a power of two from 1 to 32 and at most tlb (%u)", c->tlb_ways,
                 c->tlb_entries);
        return -1;
    }
    if (!pow2(c->bp_entries)) {
        snprintf(why, n, "bp_entries: %u is not a power of two", c->bp_entries);
        return -1;
    }
    if (c->mshrs == 0 || c->mshrs > MEMSYS_MAX_MSHRS) {
        snprintf(why, n, "mshrs: %u is not from 1 to %u", c->mshrs, MEMSYS_MAX_MSHRS);
        return -1;
    }
    /* latencies are added in 32 bits; a cycle count above 2^24 is no cache */
    const struct { const char *name; uint32_t v; } lat[] = {
        { "l1d_lat", c->l1d_lat }, { "l2_lat", c->l2_lat }, { "llc_lat", c->llc_lat },
        { "dram_lat", c->dram_lat }, { "tlb_lat", c->tlb_lat }, { "walk_lat", c->walk_lat },
        { "mispredict_lat", c->mispredict_lat },
    };
    for (size_t i = 0; i < sizeof lat / sizeof lat[0]; i++)
        if (lat[i].v > (1u << 24)) {
            snprintf(why, n, "%s: %u cycles is more than 2^24", lat[i].name, lat[i].v);
            return -1;
        }
    return 0;
}

static int cache_init(ms_cache *k, uint32_t bytes, uint32_t ways, uint32_t unit)
{
    uint64_t sets = bytes / unit / ways;
    k->ways = ways;
    k->set_mask = sets - 1;
    k->shift = (uint32_t)__builtin_ctz(unit);
    k->set_shift = (uint32_t)__builtin_ctz(ways * 16u);
    size_t n = (size_t)sets * ways * 16u;
    k->mem = aligned_alloc(64, n < 64 ? 64 : n);
    if (!k->mem)
        return -1;
    memset(k->mem, 0, n);
    return 0;
}

static void port_init(ms_port *p, uint32_t line, uint32_t bw)
{
    p->free_at = 0;
    p->occupancy = bw ? (line + bw - 1) / bw : 0;
}

int memsys_init(memsys *m, const memsys_config *c)
{
    memset(m, 0, sizeof(*m));
    m->cfg = *c;
    m->l1d_lat = c->l1d_lat;
    m->tlb_lat = c->tlb_lat;
    if (cache_init(&m->l1d, c->l1d_bytes, c->l1d_ways, c->line_bytes) ||
        cache_init(&m->l2, c->l2_bytes, c->l2_ways, c->line_bytes) ||
        cache_init(&m->llc, c->llc_bytes, c->llc_ways, c->line_bytes) ||
        cache_init(&m->tlb, c->tlb_entries * 4096u, c->tlb_ways, 4096)) {
        memsys_free(m);
        return -1;
    }
    m->bp_ctr = malloc(c->bp_entries);
    m->btb = calloc(c->bp_entries, sizeof(uint64_t));
    if (!m->bp_ctr || !m->btb) {
        memsys_free(m);
        return -1;
    }
    m->bp_mask = c->bp_entries - 1;
    memset(m->bp_ctr, 1, c->bp_entries); /* weakly not taken */
    port_init(&m->l2_port, c->line_bytes, c->l2_bw);
    port_init(&m->llc_port, c->line_bytes, c->llc_bw);
    port_init(&m->dram_port, c->line_bytes, c->dram_bw);
    return 0;
}

void memsys_free(memsys *m)
{
    free(m->l1d.mem);
    free(m->l2.mem);
    free(m->llc.mem);
    free(m->tlb.mem);
    free(m->bp_ctr);
    free(m->btb);
    memset(m, 0, sizeof(*m));
}

/* A miss of L1D requested at cycle `at` (after translation), allocated in L2 and the LLC: waits
 * for a free MSHR (*wait cycles, which delay the issue), then for the serving level's bandwidth;
 * sets r->level and r->queue_lat and returns the completion cycle. */
static uint64_t miss(memsys *m, uint64_t va, uint64_t at, memsys_access *r, uint64_t *wait)
{
    const memsys_config *c = &m->cfg;
    m->l1_miss++;
    /* A free MSHR: the one whose miss completes first (every one is free once past). */
    uint32_t slot = 0;
    for (uint32_t i = 1; i < c->mshrs; i++)
        slot = m->mshr_done[i] < m->mshr_done[slot] ? i : slot;
    uint64_t start = ms_max(at, m->mshr_done[slot]);
    *wait = start - at;
    m->mshr_stall += start - at;
    /* The level that holds the line, and its transfer slot. */
    ms_port *port = &m->l2_port;
    uint32_t lat = c->l2_lat;
    r->level = MS_L2;
    if (!ms_touch(&m->l2, va, at)) {
        m->l2_miss++;
        port = &m->llc_port;
        lat = c->llc_lat;
        r->level = MS_LLC;
        if (!ms_touch(&m->llc, va, at)) {
            m->llc_miss++;
            port = &m->dram_port;
            lat = c->dram_lat;
            r->level = MS_DRAM;
        }
    }
    uint64_t xfer = start;
    if (port->occupancy) {
        xfer = ms_max(start, port->free_at);
        port->free_at = xfer + port->occupancy;
    }
    r->queue_lat = (uint32_t)(xfer - start);
    m->queue_cycles += xfer - start;
    uint64_t done = xfer + lat;
    m->mshr_done[slot] = done;
    return done;
}

/* The TLB and L1D lookups of an access issued at t (address registers ready), and the miss if
 * any; returns the completion cycle and fills r (issue_lat: the wait for an MSHR). */
static uint64_t lookup(memsys *m, uint64_t va, uint64_t line, uint64_t t, memsys_access *r)
{
    const memsys_config *c = &m->cfg;
    uint64_t page = (va >> 12) + 1;
    if (page != m->last_page) {
        m->last_page = page;
        r->tlb_miss = !ms_touch(&m->tlb, va, t);
        m->tlb_miss += r->tlb_miss;
    }
    r->xlat_lat = r->tlb_miss ? c->walk_lat : c->tlb_lat;
    uint8_t *set = ms_set(&m->l1d, line);
    int w = line == m->last_line ? -2 : ms_find(&m->l1d, set, line);
    m->last_line = line;
    if (w != -1) {
        if (w >= 0) {
            ms_used(&m->l1d, set)[w] = (uint32_t)t;
            m->last_ready = &ms_ready(&m->l1d, set)[w];
        }
        uint64_t at = t + r->xlat_lat + c->l1d_lat;
        uint64_t done = ms_after_fill(at, *m->last_ready);
        r->queue_lat = (uint32_t)(done - at);   /* the line's fill is still in flight */
        return done;
    }
    uint64_t wait;
    uint64_t done = miss(m, va, t + r->xlat_lat, r, &wait);
    r->issue_lat = (uint32_t)wait;
    uint32_t f = ms_fill(&m->l1d, set, line, t);
    m->last_ready = &ms_ready(&m->l1d, set)[f];
    *m->last_ready = (uint32_t)done;
    return done;
}

uint64_t memsys_access_rest(memsys *m, uint64_t va, uint32_t dst, uint64_t t0, uint64_t t, memsys_access *r)
{
    memsys_access local;
    if (!r)
        r = &local;
    *r = (memsys_access){ .level = MS_L1D };
    uint64_t done = lookup(m, va, (va >> m->l1d.shift) + 1, t, r);
    t += r->issue_lat;                          /* no free MSHR: the issue waits */
    m->stall += t - t0;
    r->issue_lat = (uint32_t)(t - t0);
    r->total_lat = (uint32_t)(done - t0);
    unsigned d0 = dst & 0xFF, d1 = dst >> 8;
    m->reg_ready[d0] = done;
    m->reg_ready[d1] = done;
    m->reg_live |= 1ull << d0 | 1ull << d1;
    return done;
}

memsys_access memsys_access_data(memsys *m, const memsys_req *q)
{
    memsys_access r;
    m->accesses++;
    uint64_t t0 = q->now + m->stall;
    uint64_t t = ms_max(t0, ms_max(m->reg_ready[q->addr_reg[0]], m->reg_ready[q->addr_reg[1]]));
    memsys_access_rest(m, q->va, (uint32_t)q->dst_reg[0] | (uint32_t)q->dst_reg[1] << 8, t0, t, &r);
    return r;
}
