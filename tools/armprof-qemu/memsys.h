/* SPDX-License-Identifier: Apache-2.0 */
/* memsys.h: the core and memory model behind armprof-qemu's latencies: caches, TLB, branch predictor, and the queueing of misses (MSHRs, bandwidth) that makes latency and stall cycles grow with load. */
/*
 * One `memsys` models what one PE sees: its private L1D, L2 and LLC (set-associative, LRU), its
 * TLB, its branch predictor, and how its loads and stores wait:
 *  - Time is the PE's cycle count. The caller gives each access the cycle its instruction reaches
 *    in program order when nothing stalls (e.g. instructions x CPI); the model adds the stall
 *    cycles it has accumulated (memsys_stall()), so the PE's clock is that plus the stalls.
 *  - An access issues when the registers its address is computed from are ready (a load writes
 *    its destination registers when it completes) and, if it misses L1D, when a miss status
 *    holding register (MSHR) is free: `mshrs` misses may be in flight, the memory-level
 *    parallelism. The PE stalls until then: in-order issue, non-blocking loads.
 *  - A miss is served by L2, the LLC or DRAM. Each of these delivers `*_bw` bytes per cycle: a
 *    line transfer occupies the level for line_bytes / bw cycles, and a miss that finds it busy
 *    queues. A hit to a line whose fill is still in flight waits for the fill.
 * So a dependent chain of misses (a pointer chase) issues one miss at a time and stalls for each,
 * while independent misses (a stream) overlap until the MSHRs or the bandwidth run out, and then
 * both the stalls and the latency of each access grow with the load.
 * Nothing here knows QEMU: the caller decodes instructions (register numbers) and supplies time.
 */
#ifndef ARMPROF_QEMU_MEMSYS_H
#define ARMPROF_QEMU_MEMSYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Data source of an access (where the line was found). */
typedef enum memsys_level { MS_L1D = 0, MS_L2, MS_LLC, MS_DRAM } memsys_level;

/* General-purpose registers X0..X30 by number. MEMSYS_REG_NONE: an address computed from no
 * register a load writes (also SP); MEMSYS_DST_NONE: a load writes no (further) register. */
#define MEMSYS_REG_NONE 31u
#define MEMSYS_DST_NONE 32u
#define MEMSYS_MAX_MSHRS 64u

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
    uint32_t mshrs;                      /* L1D misses in flight at once (1..MEMSYS_MAX_MSHRS) */
    uint32_t l2_bw, llc_bw, dram_bw;     /* bytes per cycle each level delivers (0: unlimited) */
} memsys_config;

/* One set-associative level with LRU replacement. Each set is one block of `ways` x 16 bytes
 * (one 64-byte host cache line at 4 ways): the tags (line number + 1, 0 = invalid) as 64-bit
 * words, then per way the low 32 bits of the cycle it was last used and of the cycle its fill
 * completes (L1D: a line whose fill is in flight is allocated already; a hit on it waits).
 * 32-bit cycles are compared by their difference, which is exact while a line's age and a
 * fill's remaining time stay below 2^31 cycles. */
typedef struct ms_cache {
    uint8_t *mem;
    uint64_t set_mask;                   /* sets - 1 */
    uint32_t ways, shift;                /* ways; log2 of the line (or page) bytes */
    uint32_t set_shift;                  /* log2 of a set's bytes (ways x 16) */
} ms_cache;

static inline uint64_t *ms_tags(const ms_cache *k, uint8_t *set) { (void)k; return (uint64_t *)set; }
static inline uint32_t *ms_used(const ms_cache *k, uint8_t *set) { return (uint32_t *)(set + 8u * k->ways); }
static inline uint32_t *ms_ready(const ms_cache *k, uint8_t *set) { return (uint32_t *)(set + 12u * k->ways); }

/* A miss in flight needs its level's transfer slot: the cycle the level is next free. */
typedef struct ms_port {
    uint64_t free_at;
    uint32_t occupancy;                  /* cycles one line occupies the level (0: unlimited) */
} ms_port;

typedef struct memsys {
    /* what every access and block reads and writes, together */
    uint64_t stall;                      /* PE stall cycles so far */
    uint64_t last_line;                  /* line number + 1 of the previous access (0: none) */
    uint64_t last_page;                  /* page number + 1 of the previous access (0: none) */
    uint32_t *last_ready;                /* its L1D fill completion (low 32 bits) */
    uint64_t reg_live;                   /* GPRs whose reg_ready a load has set (bit 32: none) */
    uint32_t l1d_lat, tlb_lat;           /* = cfg's */
    uint64_t accesses;                   /* data accesses */
    uint8_t *bp_ctr;                     /* 2-bit saturating counters, >= 2 predicts taken */
    uint64_t *btb;                       /* last target of indirect branches */
    uint64_t branches, mispredicts;
    uint32_t bp_mask;
    ms_cache l1d;
    uint64_t reg_ready[33];              /* cycle each GPR's loaded value arrives ([31] stays 0,
                                            [32] absorbs writes to MEMSYS_DST_NONE) */
    /* the rest */
    memsys_config cfg;
    ms_cache l2, llc, tlb;
    ms_port l2_port, llc_port, dram_port;
    uint64_t mshr_done[MEMSYS_MAX_MSHRS];/* completion cycle of each MSHR's miss (free once past) */
    /* statistics */
    uint64_t l1_miss, l2_miss, llc_miss, tlb_miss;
    uint64_t mshr_stall;                 /* stall cycles waiting for an MSHR (the rest of `stall`
                                            waited for address registers) */
    uint64_t queue_cycles;               /* cycles misses waited for a level's bandwidth */
} memsys;

/* One access as the PE issues it. */
typedef struct memsys_req {
    uint64_t va;
    uint64_t now;                        /* the instruction's cycle in program order, stalls not
                                            included (memsys adds memsys_stall()) */
    uint8_t addr_reg[2];                 /* GPRs the address is computed from (MEMSYS_REG_NONE) */
    uint8_t dst_reg[2];                  /* GPRs a load writes (MEMSYS_DST_NONE; a store: none) */
} memsys_req;

/* The result of one data access. */
typedef struct memsys_access {
    memsys_level level;
    bool tlb_miss;
    uint32_t issue_lat;                  /* waiting to issue: address registers, a free MSHR
                                            (the PE stalls this long) */
    uint32_t xlat_lat;                   /* translation */
    uint32_t queue_lat;                  /* waiting for a level's bandwidth or an in-flight fill */
    uint32_t total_lat;                  /* issue_lat + xlat_lat + the level's latency + queue_lat */
} memsys_access;

void memsys_config_default(memsys_config *c);
/* Checks a configuration: 0, or -1 with the offending field named in why. */
int memsys_config_check(const memsys_config *c, char *why, size_t whylen);
int memsys_init(memsys *m, const memsys_config *c);
void memsys_free(memsys *m);

/* Stall cycles the PE has accumulated; its clock is program-order time plus this. */
static inline uint64_t memsys_stall(const memsys *m) { return m->stall; }

/* GPRs in `mask` were overwritten by instructions that are not loads: their values no longer
 * come from a load in flight. */
static inline void memsys_regs_written(memsys *m, uint32_t mask)
{
    uint32_t k = mask & (uint32_t)m->reg_live & 0x7FFFFFFFu;
    m->reg_live &= ~(uint64_t)k;
    while (k) {
        m->reg_ready[__builtin_ctz(k)] = 0;
        k &= k - 1;
    }
}

/* The way of `set` that holds `tag`, or -1. Every way is compared and the answer is built
 * arithmetically (no early exit, no branch per way): which way hits changes from access to
 * access in a walk over an array, and a branch on it would mispredict most of the time. The
 * common associativities are unrolled. */
static inline int ms_find(const ms_cache *k, uint8_t *set, uint64_t tag)
{
    const uint64_t *tags = ms_tags(k, set);
    uint32_t h = 0;                       /* way + 1 of the (only) match, 0: none */
#define MS_FIND(n)                                                                                 \
    for (uint32_t w = 0; w < (n); w++)                                                             \
        h |= (uint32_t)(tags[w] == tag) * (w + 1);
    switch (k->ways) {
    case 4: MS_FIND(4) break;
    case 8: MS_FIND(8) break;
    case 16: MS_FIND(16) break;
    default: MS_FIND(k->ways) break;
    }
#undef MS_FIND
    return (int)h - 1;
}

/* The set of line (or page) `tag` (its number + 1). */
static inline uint8_t *ms_set(const ms_cache *k, uint64_t tag)
{
    return k->mem + (((tag - 1) & k->set_mask) << k->set_shift);
}

/* Puts `tag` in `set` at cycle `now`, in place of an invalid way or else the least recently used
 * one; returns the way. */
static inline uint32_t ms_fill(const ms_cache *k, uint8_t *set, uint64_t tag, uint64_t now)
{
    uint64_t *tags = ms_tags(k, set);
    uint32_t *used = ms_used(k, set);
    uint32_t victim = 0;
    uint64_t best = 0;
    for (uint32_t w = 0; w < k->ways; w++) {
        uint64_t key = (uint64_t)(uint32_t)((uint32_t)now - used[w]) | (uint64_t)(tags[w] == 0) << 32;
        victim = key >= best ? w : victim;
        best = key >= best ? key : best;
    }
    tags[victim] = tag;
    used[victim] = (uint32_t)now;
    ms_ready(k, set)[victim] = (uint32_t)now;
    return victim;
}

/* Looks `addr` up in one level at cycle `now`; true on a hit. Either way the line ends most
 * recently used. */
static inline bool ms_touch(const ms_cache *k, uint64_t addr, uint64_t now)
{
    uint64_t tag = (addr >> k->shift) + 1;
    uint8_t *set = ms_set(k, tag);
    int w = ms_find(k, set, tag);
    if (w >= 0) {
        ms_used(k, set)[w] = (uint32_t)now;
        return true;
    }
    ms_fill(k, set, tag, now);
    return false;
}

static inline uint64_t ms_max(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* The completion of an L1D hit whose data would be there at `at` without a fill in flight:
 * `at`, or the fill's completion (32-bit cycle `ready`) when that is later. */
static inline uint64_t ms_after_fill(uint64_t at, uint32_t ready)
{
    int32_t d = (int32_t)(ready - (uint32_t)at);
    return d > 0 ? at + (uint64_t)d : at;
}

/* The rest of an access that is not an L1D hit in the previous access's page (a TLB lookup, an
 * L1D miss), reached at t0 and issued at t as far as its address registers go: completes it as
 * memsys_access_data() does and returns its completion cycle; fills r when not NULL. `dst`:
 * dst_reg[0] | dst_reg[1] << 8. */
uint64_t memsys_access_rest(memsys *m, uint64_t va, uint32_t dst, uint64_t t0, uint64_t t, memsys_access *r);

/* One data access of the PE at cycle q->now + memsys_stall(), with the detail a sample
 * reports. */
memsys_access memsys_access_data(memsys *m, const memsys_req *q);

/* The same access when nobody reads its detail: the common case, an L1D hit in the page of the
 * previous access with a 4-way L1D, is inline; anything else goes to memsys_access_rest(). */
static inline void memsys_access_quiet(memsys *m, const memsys_req *q)
{
    m->accesses++;
    uint64_t t0 = q->now + m->stall;
    /* issue: when the address registers are ready */
    uint64_t t = ms_max(t0, ms_max(m->reg_ready[q->addr_reg[0]], m->reg_ready[q->addr_reg[1]]));
    uint64_t line = (q->va >> m->l1d.shift) + 1;
    if (line != m->last_line) {
        if ((q->va >> 12) + 1 != m->last_page || m->l1d.ways != 4) {
            memsys_access_rest(m, q->va, (uint32_t)q->dst_reg[0] | (uint32_t)q->dst_reg[1] << 8, t0, t, NULL);
            return;
        }
        /* 4 ways: tags at +0, used at +32, ready at +48 of the 64-byte set */
        uint8_t *set = m->l1d.mem + (((line - 1) & m->l1d.set_mask) << 6);
        const uint64_t *tags = (const uint64_t *)set;
        unsigned w = 0;
        while (w < 4 && tags[w] != line)
            w++;
        if (w == 4) {
            memsys_access_rest(m, q->va, (uint32_t)q->dst_reg[0] | (uint32_t)q->dst_reg[1] << 8, t0, t, NULL);
            return;
        }
        /* an L1D hit in the previous access's page (a TLB hit, most recently used already) */
        ((uint32_t *)(set + 32))[w] = (uint32_t)t;
        m->last_line = line;
        m->last_ready = (uint32_t *)(set + 48) + w;
    }
    /* else the previous access's line: most recently used in L1D and its page in the TLB, so
     * the lookups would change nothing */
    uint64_t done = ms_after_fill(t + m->tlb_lat + m->l1d_lat, *m->last_ready);
    m->stall += t - t0;
    m->reg_ready[q->dst_reg[0]] = done;
    m->reg_ready[q->dst_reg[1]] = done;
    m->reg_live |= 1ull << q->dst_reg[0] | 1ull << q->dst_reg[1];
}

/* Warming only (a full-system bridge between its sample windows): the access's TLB entry and L1D
 * line become most recently used at cycle `now` (filled on a miss, evicting the least recently
 * used, ready at once), with no lower level, queueing, stall or counting. The next full access
 * looks its line and page up again. */
static inline void memsys_warm_l1(memsys *m, uint64_t va, uint64_t now)
{
    ms_touch(&m->tlb, va, now);
    ms_touch(&m->l1d, va, now);
    m->last_line = 0;
    m->last_page = 0;
}

/* Branch predictor: index of the counter / target entry of the branch at pc. */
static inline uint32_t memsys_bp_index(const memsys *m, uint64_t pc) { return (uint32_t)(pc >> 2) & m->bp_mask; }

/* A conditional branch (predictor entry `i`) resolved `taken`: returns true when the predictor
 * was wrong, then trains it (2-bit saturating counters). */
static inline bool memsys_branch_cond_at(memsys *m, uint32_t i, bool taken)
{
    static const uint8_t next[2][4] = { { 0, 0, 1, 2 }, { 1, 2, 3, 3 } };   /* [taken][counter] */
    uint8_t *ctr = &m->bp_ctr[i];
    uint8_t v = *ctr;
    bool wrong = (v >> 1) != taken;
    *ctr = next[taken][v];
    m->branches++;
    m->mispredicts += wrong;
    return wrong;
}

/* An indirect branch (entry `i`) went to `target`: wrong when the last target seen there
 * (a direct-mapped table) differs. */
static inline bool memsys_branch_indirect_at(memsys *m, uint32_t i, uint64_t target)
{
    uint64_t *e = &m->btb[i];
    bool wrong = *e != target;
    *e = target;
    m->branches++;
    m->mispredicts += wrong;
    return wrong;
}

static inline bool memsys_branch_cond(memsys *m, uint64_t pc, bool taken)
{
    return memsys_branch_cond_at(m, memsys_bp_index(m, pc), taken);
}

static inline bool memsys_branch_indirect(memsys *m, uint64_t pc, uint64_t target)
{
    return memsys_branch_indirect_at(m, memsys_bp_index(m, pc), target);
}

#endif
