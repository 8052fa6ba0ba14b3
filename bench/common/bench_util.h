/* SPDX-License-Identifier: Apache-2.0 */
/* bench_util.h: small helpers the benches share (header only: bench/common has no CMakeLists.txt of its own). */
#ifndef ARMPROF_BENCH_UTIL_H
#define ARMPROF_BENCH_UTIL_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#ifdef ARMPROF_BENCH_WANT_SPU_OP
#include "armprof/spu.h"

/* The one sampled operation bench-spu's raw record loop retires: a load/store with virtual and
 * physical addresses and latencies, so that a record carries every packet of a typical sample. */
static inline void bench_fixed_op(spu_op *op)
{
    memset(op, 0, sizeof *op);
    op->pc = 0xffff800000001000ull;
    op->op_class = SPE_CLASS_LDST;
    op->flags = SPU_OP_HAS_VA | SPU_OP_HAS_PA | SPU_OP_HAS_XLAT;
    op->data_va = 0x1000;
    op->data_pa = 0x2000;
    op->total_lat = 8;
    op->issue_lat = 2;
    op->events = 0x16;
}
#endif

/* True when both files open and hold the same bytes. */
static inline bool bench_same_file(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    bool same = fa && fb;
    while (same) {
        int x = getc(fa), y = getc(fb);
        if (x != y)
            same = false;
        if (x == EOF || y == EOF)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

#endif
