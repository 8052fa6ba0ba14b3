/* SPDX-License-Identifier: Apache-2.0 */
/* insn_op.c: describes an executed A64 instruction as an spu_op (class, subclass, addresses, latencies, data source, events) for the QEMU bridges. */
#include "insn_op.h"

#include <string.h>

#include "armprof/spe.h"

uint16_t insn_op_data_source(memsys_level l)
{
    static const uint16_t enc[] = { 0x0, 0x8, 0xb, 0xe };
    return enc[l];
}

uint64_t insn_op_mem_events(const memsys_access *a)
{
    uint64_t e = 1ull << SPE_EV_L1D_ACCESS | 1ull << SPE_EV_TLB_ACCESS;
    if (a->level != MS_L1D)
        e |= 1ull << SPE_EV_L1D_REFILL;
    if (a->tlb_miss)
        e |= 1ull << SPE_EV_TLB_WALK;
    if (a->level >= MS_LLC)
        e |= 1ull << SPE_EV_LLC_ACCESS;
    if (a->level == MS_DRAM)
        e |= 1ull << SPE_EV_LLC_MISS;
    return e;
}

void insn_op_describe(const insn_static *s, const insn_access *m, uint64_t next_pc, bool next_known, bool mispred,
                      const insn_op_ctx *c, spu_op *op)
{
    memset(op, 0, sizeof *op);
    op->pc = s->pc;
    op->issue_lat = 1;
    op->total_lat = c->cpi;
    op->events = 1ull << SPE_EV_RETIRED;
    const a64_branch *br = &s->br;
    if (m && m->valid) {
        /* Issue latency: dispatch to issue, the wait for the address registers and an MSHR
         * (seed 001 §2.3); total latency: dispatch to completion. */
        const memsys_access *a = &m->acc;
        op->op_class = SPE_CLASS_LDST;
        op->op_subclass = s->mem.is_mem ? a64_mem_subclass(&s->mem, m->store)
                                        : (uint8_t)(SPE_LDST_GP | (m->store ? SPE_LDST_ST : 0));
        op->flags |= SPU_OP_HAS_VA | SPU_OP_HAS_XLAT | SPU_OP_HAS_DSRC;
        op->data_va = m->va;
        if (m->has_pa) {
            op->flags |= SPU_OP_HAS_PA;
            op->data_pa = m->pa;
            op->data_pa_ns = m->pa_ns;
        }
        op->issue_lat = a->issue_lat;
        op->xlat_lat = a->xlat_lat;
        op->total_lat = a->total_lat;
        op->data_source = insn_op_data_source(a->level);
        op->events |= insn_op_mem_events(a);
    } else if (br->kind != A64_NOT_BRANCH) {
        op->op_class = SPE_CLASS_BRANCH;
        op->op_subclass = a64_branch_subclass(br);
        uint64_t fall = s->pc + 4;
        bool taken = true;
        if (next_known && br->conditional)
            taken = next_pc != fall || br->target == fall;
        if (br->conditional && !taken)
            op->events |= 1ull << SPE_EV_NOT_TAKEN;
        if (!br->indirect || next_known) {
            op->flags |= SPU_OP_HAS_TARGET;
            op->target = br->indirect ? next_pc : br->target;
            op->target_el = c->target_el;
            op->target_ns = c->target_ns;
        }
        if (mispred) {
            op->events |= 1ull << SPE_EV_MISPREDICTED;
            op->total_lat += c->mispredict_lat;
        }
    } else {
        op->op_class = SPE_CLASS_OTHER;
    }
}
