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
/* One data access of the guest at virtual address va (allocates in every level on a miss). */
memsys_access memsys_access_data(memsys *m, uint64_t va);
/* A conditional branch at pc resolved `taken`: returns true when the predictor was wrong, then
 * trains it. An indirect branch: wrong when the last target seen at pc differs. */
bool memsys_branch_cond(memsys *m, uint64_t pc, bool taken);
bool memsys_branch_indirect(memsys *m, uint64_t pc, uint64_t target);

#endif
