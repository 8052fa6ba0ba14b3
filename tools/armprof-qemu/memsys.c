/* SPDX-License-Identifier: Apache-2.0 */
/* memsys.c: set-associative LRU caches (L1D, L2, LLC), a TLB and a bimodal branch predictor for armprof-qemu. */
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
}

static bool pow2(uint64_t v) { return v && !(v & (v - 1)); }

static int check_level(const char *name, uint32_t bytes, uint32_t ways, uint32_t unit, char *why, size_t n)
{
    if (!pow2(bytes) || bytes < unit) {
        snprintf(why, n, "%s: size %u is not a power of two of at least %u bytes", name, bytes, unit);
        return -1;
    }
    if (ways == 0 || ways > 32 || (uint64_t)ways * unit > bytes || !pow2(bytes / unit / ways)) {
        snprintf(why, n, "%s: %u ways do not divide %u bytes into a power-of-two number of sets (1..32 ways)",
                 name, ways, bytes);
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
    if (!pow2(c->tlb_entries) || c->tlb_ways == 0 || c->tlb_ways > c->tlb_entries ||
        !pow2(c->tlb_entries / c->tlb_ways) || c->tlb_ways > 32) {
        snprintf(why, n, "tlb: %u entries in %u ways is not a power-of-two number of sets (1..32 ways)",
                 c->tlb_entries, c->tlb_ways);
        return -1;
    }
    if (!pow2(c->bp_entries)) {
        snprintf(why, n, "bp_entries: %u is not a power of two", c->bp_entries);
        return -1;
    }
    return 0;
}

static int cache_init(ms_cache *k, uint32_t bytes, uint32_t ways, uint32_t unit)
{
    k->ways = ways;
    k->sets = bytes / unit / ways;
    k->shift = (uint32_t)__builtin_ctz(unit);
    k->tags = calloc((size_t)k->sets * ways, sizeof(uint64_t));
    return k->tags ? 0 : -1;
}

int memsys_init(memsys *m, const memsys_config *c)
{
    memset(m, 0, sizeof(*m));
    m->cfg = *c;
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
    memset(m->bp_ctr, 1, c->bp_entries); /* weakly not taken */
    return 0;
}

void memsys_free(memsys *m)
{
    free(m->l1d.tags);
    free(m->l2.tags);
    free(m->llc.tags);
    free(m->tlb.tags);
    free(m->bp_ctr);
    free(m->btb);
    memset(m, 0, sizeof(*m));
}

