/* SPDX-License-Identifier: Apache-2.0 */
/* a64.h: the A64 branch encodings armprof-qemu recognises (B, BL, BR, BLR, RET, B.cond, CBZ/CBNZ, TBZ/TBNZ). */
#ifndef ARMPROF_QEMU_A64_H
#define ARMPROF_QEMU_A64_H

#include <stdbool.h>
#include <stdint.h>

typedef enum a64_branch_kind {
    A64_NOT_BRANCH = 0,
    A64_B,          /* B imm26: direct, unconditional */
    A64_BL,         /* BL imm26: direct call */
    A64_BCOND,      /* B.cond / BC.cond imm19: direct, conditional */
    A64_CBZ,        /* CBZ / CBNZ imm19: direct, conditional */
    A64_TBZ,        /* TBZ / TBNZ imm14: direct, conditional */
    A64_BR,         /* BR Xn: indirect */
    A64_BLR,        /* BLR Xn: indirect call */
    A64_RET         /* RET {Xn}: indirect return */
} a64_branch_kind;

typedef struct a64_branch {
    a64_branch_kind kind;
    bool conditional;   /* B.cond, CB(N)Z, TB(N)Z */
    bool indirect;      /* BR, BLR, RET */
    uint64_t target;    /* direct branches: the taken target */
} a64_branch;

/* Decodes the 32-bit instruction `insn` at `pc`; kind A64_NOT_BRANCH for anything else. */
a64_branch a64_decode_branch(uint32_t insn, uint64_t pc);
/* SPE Operation Type SUBCLASS of a branch (§5.3.8: COND bit 0, INDIRECT bit 1). */
uint8_t a64_branch_subclass(const a64_branch *b);
const char *a64_branch_name(a64_branch_kind k);

#endif
