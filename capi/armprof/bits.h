/* SPDX-License-Identifier: Apache-2.0 */
/* bits.h: the one pair of field helpers (get / place a field by its mask) used everywhere. */
#ifndef ARMPROF_BITS_H
#define ARMPROF_BITS_H

#include <stdint.h>

/* Mask of bits hi..lo inclusive, as Linux's GENMASK_ULL. */
#define AP_GENMASK(hi, lo) ((~0ULL >> (63 - (hi))) & (~0ULL << (lo)))
#define AP_BIT(n) (1ULL << (n))

static inline unsigned ap_mask_shift(uint64_t mask) { return (unsigned)__builtin_ctzll(mask); }

/* Value of the field `mask` in `reg`, shifted down. */
static inline uint64_t ap_field_get(uint64_t mask, uint64_t reg)
{
    return (reg & mask) >> ap_mask_shift(mask);
}
/* `val` placed in the field `mask` (bits of val that do not fit are dropped). */
static inline uint64_t ap_field_prep(uint64_t mask, uint64_t val)
{
    return (val << ap_mask_shift(mask)) & mask;
}
/* `reg` with the field `mask` replaced by `val`. */
static inline uint64_t ap_field_set(uint64_t reg, uint64_t mask, uint64_t val)
{
    return (reg & ~mask) | ap_field_prep(mask, val);
}

#define AP_FIELD_GET(mask, reg) ap_field_get((mask), (reg))
#define AP_FIELD_PREP(mask, val) ap_field_prep((mask), (val))

#endif
