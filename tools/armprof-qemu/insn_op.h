/* SPDX-License-Identifier: Apache-2.0 */
/* insn_op.h: an executed A64 instruction described as the SPU operation (spu_op) its sample reports, from its decoded encoding, its memory access and the core model's answer; shared by the QEMU bridges. */
#ifndef ARMPROF_QEMU_INSN_OP_H
#define ARMPROF_QEMU_INSN_OP_H

#include <stdbool.h>
#include <stdint.h>

#include "a64.h"
#include "armprof/spu.h"
#include "memsys.h"

/* What the translator knows of one instruction. */
typedef struct insn_static {
    uint64_t pc;
    a64_branch br;
    a64_mem mem;
} insn_static;

/* The first memory access of one execution of the instruction. */
typedef struct insn_access {
    bool valid;                 /* false: no access seen (not a load/store, or not observed) */
    bool store;                 /* its direction */
    uint8_t size;               /* bytes */
    uint64_t va;
    bool has_pa;                /* pa is known (a full-system bridge); pa_ns its security state */
    bool pa_ns;
    uint64_t pa;
    memsys_access acc;          /* the core model's answer for it */
} insn_access;

/* How the bridge runs its PE. */
typedef struct insn_op_ctx {
    uint32_t cpi;               /* cycles of an operation other than a load/store */
    uint32_t mispredict_lat;    /* extra cycles of a mispredicted branch */
    uint8_t target_el;          /* Exception level of branch targets (the code's own) */
    bool target_ns;
} insn_op_ctx;

/* The operation for instruction `s`. `m`: its access (NULL or !valid: none). `next_pc`, when
 * `next_known`, is where execution went after it: it gives a conditional branch's direction
 * and an indirect branch's target. `mispred`: the predictor was wrong about it. */
void insn_op_describe(const insn_static *s, const insn_access *m, uint64_t next_pc, bool next_known, bool mispred,
                      const insn_op_ctx *c, spu_op *op);

/* Data Source packet value of a level: the Neoverse encodings Linux perf decodes for a Neoverse
 * MIDR (tools/perf/util/arm-spe.c): L1D 0x0, L2 0x8, system-level cache 0xb, DRAM 0xe. */
uint16_t insn_op_data_source(memsys_level l);

/* Events packet bits of a load/store served as `a` says (seed 001 §5.3.7): E[2] L1D access and
 * E[4] TLB access always, E[3] L1D refill, E[5] TLB walk, E[8] LLC access, E[9] LLC miss. */
uint64_t insn_op_mem_events(const memsys_access *a);

#endif
