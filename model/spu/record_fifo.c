/* SPDX-License-Identifier: Apache-2.0 */
/* record_fifo.c: the record FIFO between record capture and the Profiling Buffer. The seed text
 * leaves the buffering inside the unit to the implementation ("sample records ... are written to
 * and stored in a memory buffer", seed 001 §1.1 step 4, §2.5; §3.6: records still buffered when
 * the buffer is disabled or a PSB CSYNC executes). Its depth, drain rate and stall input are
 * the model's microarchitecture (docs/implementation-defined.md). The drain step itself,
 * fifo_drain_(), is inline in spu_internal.h for the clock edge; the FIFO level statistics are
 * here and in spu_internal.h. */
#include <string.h>

#include "spu_internal.h"

/* =============================================================================================
 * The record FIFO
 * ============================================================================================= */

void spu_fifo_clear(spu_t *spu)
{
    level_touch(spu);
    spu->fifo_head = spu->fifo_level = 0;
    spu->fifo_rhead = spu->fifo_nrec = 0;
    spu->head_drained = 0;
}

/* FIFO level statistics for q edges after which the level is l0 - k * r, k = 1 .. q: in
 * O(SPU_FIFO_HIST_BINS), whatever q. */
void spu_level_run(spu_t *spu, uint64_t l0, uint64_t r, uint64_t q)
{
    spu->st.fifo_byte_cycles += q * l0 - r * (q * (q + 1) / 2);
    uint32_t b = hist_bin(spu, l0 - r);
    if (!r || b == hist_bin(spu, l0 - q * r)) {
        spu->st.fifo_hist[b] += q;
        return;
    }
    for (uint64_t k = 1; k <= q;) {
        uint64_t lvl = l0 - k * r;
        b = hist_bin(spu, lvl);
        uint64_t lo = (uint64_t)b << spu->hist_shift; /* the lowest level of bin b */
        uint64_t kmax = (l0 - lo) / r;           /* the last k whose level is still >= lo */
        if (kmax > q)
            kmax = q;
        spu->st.fifo_hist[b] += kmax - k + 1;
        k = kmax + 1;
    }
}
