/* SPDX-License-Identifier: Apache-2.0 */
/* a64.h: the A64 encodings armprof-qemu decodes: branches (B, BL, BR, BLR, RET, B.cond, CBZ/CBNZ, TBZ/TBNZ), the registers of loads and stores, and the register other instructions write. */
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

/* A general-purpose register number X0..X30; A64_REG_NONE for none (also SP and XZR, which the
 * core model never waits for). */
#define A64_REG_NONE 31u

/* The registers of a load, store or atomic (Arm ARM C4.1.66 "Loads and Stores"). */
typedef struct a64_mem {
    bool is_mem;        /* an encoding of the Loads and Stores group that accesses memory */
    bool known;         /* load and store below are decoded (else: ask the access itself) */
    bool load, store;   /* reads memory into registers / writes memory (atomics: both) */
    bool simd;          /* the data registers are SIMD&FP registers (no GPR is loaded) */
    uint8_t rn, rm;     /* base and offset register the address is computed from */
    uint8_t rt, rt2;    /* GPRs a load writes */
    bool writeback;     /* Rn is updated (pre/post-index): Rn = Rn + offset */
    bool atomic, exclusive, acqrel; /* atomic (incl. CAS, SWP), exclusive, acquire/release */
} a64_mem;

/* The general-purpose register an instruction outside the Loads and Stores group writes. */
typedef struct a64_write {
    uint8_t rd;         /* A64_REG_NONE: none (or SP/XZR, or SIMD&FP registers only) */
    bool reads_rd;      /* the new value depends on the old one (Rd is also a source) */
} a64_write;

a64_mem a64_decode_mem(uint32_t insn);
/* SPE Operation Type SUBCLASS of a load/store (§5.3.8): general-purpose, SIMD&FP, or extended
 * (AT, EXCL, AR), with the ST bit from `store` (the direction of the access). */
uint8_t a64_mem_subclass(const a64_mem *m, bool store);
a64_write a64_decode_write(uint32_t insn);

#endif
