/* SPDX-License-Identifier: Apache-2.0 */
/* memsys.h: the small cache, TLB and branch predictor model behind armprof-qemu's latencies, data sources and events. */
#ifndef ARMPROF_QEMU_MEMSYS_H
#define ARMPROF_QEMU_MEMSYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Data source of an access (where the line was found). */
typedef enum memsys_level { MS_L1D = 0, MS_L2, MS_LLC, MS_DRAM } memsys_level;

typedef struct memsys_config {
    uint32_t line_bytes;                 /* cache line, power of two (64) */
    uint32_t l1d_bytes, l1d_ways, l1d_lat;
    uint32_t l2_bytes, l2_ways, l2_lat;
    uint32_t llc_bytes, llc_ways, llc_lat;
    uint32_t dram_lat;
    uint32_t tlb_entries, tlb_ways;      /* 4 KiB pages */
    uint32_t tlb_lat, walk_lat;          /* translation latency on a TLB hit / miss */
    uint32_t bp_entries;                 /* 2-bit counters and indirect targets, power of two */
    uint32_t mispredict_lat;             /* extra cycles of a mispredicted branch */
} memsys_config;

/* One set-associative level with LRU replacement (tags kept most recent first in each set). */
typedef struct ms_cache {
    uint64_t *tags;                      /* line number + 1; 0 = invalid */
    uint32_t sets, ways, shift;
} ms_cache;

typedef struct memsys {
    memsys_config cfg;
    ms_cache l1d, l2, llc, tlb;
    uint8_t *bp_ctr;                     /* 2-bit saturating counters, >= 2 predicts taken */
    uint64_t *btb;                       /* last target of indirect branches */
    uint64_t last_line;                  /* line number + 1 of the previous access (0: none) */
    uint64_t accesses, l1_miss, l2_miss, llc_miss, tlb_miss, branches, mispredicts;
} memsys;

/* The result of one data access. */
typedef struct memsys_access {
    memsys_level level;
    bool tlb_miss;
    uint32_t total_lat;                  /* translation + cache/memory latency */
    uint32_t xlat_lat;
} memsys_access;

void memsys_config_default(memsys_config *c);
/* Checks a configuration: 0, or -1 with the offending field named in why. */
int memsys_config_check(const memsys_config *c, char *why, size_t whylen);
int memsys_init(memsys *m, const memsys_config *c);
void memsys_free(memsys *m);
/* Looks `addr` up in one level; true on a hit. Either way the line ends most recently used. */
static inline bool ms_cache_touch(ms_cache *k, uint64_t addr)
{
    uint64_t tag = (addr >> k->shift) + 1;
    uint64_t *set = k->tags + (size_t)((tag - 1) & (k->sets - 1)) * k->ways;
    if (set[0] == tag)
        return true;
    uint32_t w = 1;
    while (w < k->ways && set[w] != tag)
        w++;
    bool hit = w < k->ways;
    if (!hit)
        w = k->ways - 1;                /* evict the least recently used */
    for (; w > 0; w--)
        set[w] = set[w - 1];
    set[0] = tag;
    return hit;
}

/* One data access of the guest at virtual address va (allocates in every level on a miss). */
static inline memsys_access memsys_access_data(memsys *m, uint64_t va)
{
    memsys_access r = { .level = MS_L1D };
    const memsys_config *c = &m->cfg;
    m->accesses++;
    uint64_t line = (va >> m->l1d.shift) + 1;
    if (line == m->last_line) {
        /* The previous access's line: most recently used in L1D and its page in the TLB, so
         * the lookups would change nothing. */
        r.xlat_lat = c->tlb_lat;
        r.total_lat = c->tlb_lat + c->l1d_lat;
        return r;
    }
    m->last_line = line;
    r.tlb_miss = !ms_cache_touch(&m->tlb, va);
    r.xlat_lat = r.tlb_miss ? c->walk_lat : c->tlb_lat;
    m->tlb_miss += r.tlb_miss;
    uint32_t lat = c->l1d_lat;
    if (!ms_cache_touch(&m->l1d, va)) {
        m->l1_miss++;
        r.level = MS_L2;
        lat = c->l2_lat;
        if (!ms_cache_touch(&m->l2, va)) {
            m->l2_miss++;
            r.level = MS_LLC;
            lat = c->llc_lat;
            if (!ms_cache_touch(&m->llc, va)) {
                m->llc_miss++;
                r.level = MS_DRAM;
                lat = c->dram_lat;
            }
        }
    }
    r.total_lat = r.xlat_lat + lat;
    return r;
}

/* A conditional branch at pc resolved `taken`: returns true when the predictor was wrong, then
 * trains it (2-bit saturating counters indexed by PC). */
static inline bool memsys_branch_cond(memsys *m, uint64_t pc, bool taken)
{
    uint8_t *ctr = &m->bp_ctr[(pc >> 2) & (m->cfg.bp_entries - 1)];
    uint8_t v = *ctr;
    bool wrong = (v >= 2) != taken;
    *ctr = taken ? (uint8_t)(v + (v < 3)) : (uint8_t)(v - (v > 0));
    m->branches++;
    m->mispredicts += wrong;
    return wrong;
}

/* An indirect branch: wrong when the last target seen at pc (a direct-mapped table) differs. */
static inline bool memsys_branch_indirect(memsys *m, uint64_t pc, uint64_t target)
{
    uint64_t *e = &m->btb[(pc >> 2) & (m->cfg.bp_entries - 1)];
    bool wrong = *e != target;
    *e = target;
    m->branches++;
    m->mispredicts += wrong;
    return wrong;
}

#endif
