/* SPDX-License-Identifier: Apache-2.0 */
/* rng.h: the sampling random number generator, public and defined exactly so RTL can match it bit for bit. */
#ifndef ARMPROF_RNG_H
#define ARMPROF_RNG_H

#include <stdint.h>

/*
 * 2.2.2 leaves the generator IMPLEMENTATION DEFINED. armprof's is Marsaglia's xorshift32
 * (shifts 13, 17, 5), stepped exactly once per draw:
 *     x ^= x << 13;  x ^= x >> 17;  x ^= x << 5;   (all 32-bit)
 *     draw = x[31:24]            (the 8-bit value loaded into COUNT[7:0] or ECOUNT)
 * The state never becomes zero; a zero seed is replaced by AP_RNG_DEFAULT_SEED so the generator
 * "is reset into a usable state". In Verilog the step is three XORs of shifted copies.
 */
#define AP_RNG_DEFAULT_SEED 0x2F6B9A35u

typedef struct ap_rng {
    uint32_t state;
} ap_rng;

static inline void ap_rng_seed(ap_rng *r, uint32_t seed)
{
    r->state = seed ? seed : AP_RNG_DEFAULT_SEED;
}

static inline uint32_t ap_rng_step(uint32_t x)
{
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return x;
}

/* One draw: advance the state once and return its top byte. */
static inline uint8_t ap_rng_draw8(ap_rng *r)
{
    r->state = ap_rng_step(r->state);
    return (uint8_t)(r->state >> 24);
}

/* A general-purpose 64-bit generator (splitmix64) for workload generation, not for sampling. */
typedef struct ap_prng64 {
    uint64_t state;
} ap_prng64;

static inline uint64_t ap_prng64_next(ap_prng64 *p)
{
    uint64_t z = (p->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/* Uniform in [0, n) (n > 0), by 128-bit multiply. */
static inline uint64_t ap_prng64_below(ap_prng64 *p, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)ap_prng64_next(p) * n) >> 64);
}
/* Uniform double in [0, 1). */
static inline double ap_prng64_unit(ap_prng64 *p)
{
    return (double)(ap_prng64_next(p) >> 11) * (1.0 / 9007199254740992.0);
}

#endif
