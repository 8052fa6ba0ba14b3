/* SPDX-License-Identifier: Apache-2.0 */
/* workload.h: the seeded synthetic operation generator shared by armprof-run, the platform and armprof-explore. */
#ifndef ARMPROF_WORKLOAD_H
#define ARMPROF_WORKLOAD_H

#include <stdint.h>

#include "armprof/spu.h"
#define AP_BIT_EV(n) (1ull << (n))

#ifdef __cplusplus
extern "C" {
#endif

/* The mix and the distributions of a synthetic workload. Probabilities are in [0, 1]. */
typedef struct wl_config {
    uint64_t seed;
    double p_load, p_store, p_branch;   /* the rest are "other" operations */
    double p_atomic;                    /* of loads/stores: atomic (extended subclass) */
    double p_simd;                      /* of loads/stores: SIMD&FP registers */
    double p_cond;                      /* of branches and others: conditional */
    double p_indirect;                  /* of branches: indirect */
    double p_not_taken;                 /* of conditional branches */
    double p_mispredict;                /* of branches */
    double p_l1_miss, p_tlb_miss, p_llc_miss; /* of loads/stores */
    double p_exception;                 /* any operation generates an exception */
    uint32_t lat_other;                 /* total latency (cycles) of other operations */
    uint32_t lat_branch;
    uint32_t lat_l1_hit, lat_l1_miss, lat_llc_miss; /* loads/stores */
    uint32_t lat_tlb_walk;              /* added to translation latency on a TLB miss */
    uint32_t lat_jitter;                /* uniform extra 0..lat_jitter on every latency */
    uint64_t code_base, code_bytes;     /* PCs: a loop over code_bytes from code_base */
    uint64_t data_base, data_bytes;     /* data addresses within [data_base, +data_bytes) */
    uint64_t pa_offset;                 /* data PA = data VA + pa_offset */
    uint32_t stride;                    /* sequential stream stride; random access otherwise */
    double p_sequential;                /* of loads/stores: from the sequential stream */
    uint8_t va_tag;                     /* top-byte tag on data VAs (TBI) */
} wl_config;

void wl_config_default(wl_config *c);

/* splitmix64: the generator's own random numbers (not the SPU's sampling RNG). */
typedef struct wl_prng {
    uint64_t state;
} wl_prng;

typedef struct wl_gen {
    wl_config cfg;
    wl_prng rng;
    uint64_t pc;
    uint64_t seq_addr;
    uint64_t generated;
} wl_gen;

void wl_init(wl_gen *g, const wl_config *c);

/* A host retiring `rate` operations a cycle (`done` so far) and the unit's next event `cyc`
 * cycles away (UINT64_MAX: none): how many operations it may report before that event, those
 * of the cycles up to the event's cycle boundary (none of the current cycle's when the event
 * is due now). UINT64_MAX: no limit. Shared by armprof-run's loop and the platform's PE. */
static inline uint64_t wl_ops_before_event(uint64_t rate, uint64_t done, uint64_t cyc)
{
    if (cyc == UINT64_MAX)
        return UINT64_MAX;
    uint64_t in_cycle = rate - done % rate; /* operations left in this cycle */
    if (cyc == 0)
        return in_cycle - 1;
    return cyc > (UINT64_MAX - in_cycle) / rate ? UINT64_MAX : in_cycle + (cyc - 1) * rate;
}
/* The next operation of the population. */
void wl_next(wl_gen *g, spu_op *op);

#ifdef __cplusplus
}
#endif
#endif
