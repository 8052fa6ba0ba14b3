/* SPDX-License-Identifier: Apache-2.0 */
/* rng.c: the generators are inline (rng.h); this file keeps a reference sequence for tests. */
#include "armprof/rng.h"

/* First draw after seeding with AP_RNG_DEFAULT_SEED, checked by tests/common to pin the
 * definition: a change to the generator breaks RTL equivalence and must be deliberate. */
uint8_t ap_rng_reference_first_draw(void)
{
    ap_rng r;
    ap_rng_seed(&r, 0);
    return ap_rng_draw8(&r);
}
