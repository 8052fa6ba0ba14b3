/* SPDX-License-Identifier: Apache-2.0 */
/* psb_csync.c: seed 001 §3.6 "Synchronization and Statistical Profiling": PSB CSYNC makes every
 * sample record of an operation before it complete and written to the Profiling Buffer (or
 * discarded), and a DSB after it does not complete before those writes have. §3.6.1's
 * UNPREDICTABLE cases (buffer disabled with records still buffered) are handled where the
 * records meet the buffer (buffer_writer.c). */
#include "spu_internal.h"

/* PSB CSYNC: the operations still in flight complete now, completed records enter the FIFO,
 * then everything in it is written. (With an external sampler, the sampler's own slots and FIFO
 * take those records at their own time later; the pacing of spu_ext.c lets its FIFO drain the
 * bytes the model has already written, as for the FIFO drained here.) Synchronous answers are known already: they take effect now
 * (time does not move); a write whose answer is ARMPROF_MEM_PENDING cannot be hurried, and what
 * waits behind it stays in the writer and the FIFO until the host answers (then spu_psb_csync()
 * again finishes the job). */
void spu_psb_csync(spu_t *spu)
{
    spu_complete_inflight(spu);
    spu->flush = true;
    for (;;) {
        if (spu->ext)
            spu_ext_accept(spu);
        else
            spu_accept_completed(spu);
        if (spu->wq_n) {
            for (uint32_t k = 0; k < spu->wq_n; k++) {
                spu_wr *w = wq_at(spu, k);
                if (w->done_at != UINT64_MAX && w->done_at > spu->now)
                    w->done_at = spu->now;
            }
            wq_next_done(spu);
        }
        spu_writer_run(spu, true);
        if (!spu->fifo_nrec || !writer_ready(spu))
            break;
        fifo_drain(spu, spu->fifo_level, true);
    }
    spu->flush = false;
}
