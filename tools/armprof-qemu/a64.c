/* SPDX-License-Identifier: Apache-2.0 */
/* a64.c: A64 branch decoding for armprof-qemu (Arm ARM C4.1.65 "Branches, Exception Generating and System instructions"). */
#include "a64.h"

#include "armprof/spe.h"

static uint64_t sext(uint64_t v, unsigned bits)
{
    uint64_t m = 1ull << (bits - 1);
    return (v ^ m) - m;
}

a64_branch a64_decode_branch(uint32_t insn, uint64_t pc)
{
    a64_branch b = { .kind = A64_NOT_BRANCH };
    if ((insn & 0x7C000000u) == 0x14000000u) {                  /* B / BL: op 0b?00101 */
        b.kind = (insn & 0x80000000u) ? A64_BL : A64_B;
        b.target = pc + (sext(insn & 0x03FFFFFFu, 26) << 2);
    } else if ((insn & 0xFF000000u) == 0x54000000u) {           /* B.cond, BC.cond */
        b.kind = A64_BCOND;
        b.conditional = true;
        b.target = pc + (sext((insn >> 5) & 0x7FFFFu, 19) << 2);
    } else if ((insn & 0x7E000000u) == 0x34000000u) {           /* CBZ / CBNZ */
        b.kind = A64_CBZ;
        b.conditional = true;
        b.target = pc + (sext((insn >> 5) & 0x7FFFFu, 19) << 2);
    } else if ((insn & 0x7E000000u) == 0x36000000u) {           /* TBZ / TBNZ */
        b.kind = A64_TBZ;
        b.conditional = true;
        b.target = pc + (sext((insn >> 5) & 0x3FFFu, 14) << 2);
    } else if ((insn & 0xFFFFFC1Fu) == 0xD61F0000u) {
        b.kind = A64_BR;
        b.indirect = true;
    } else if ((insn & 0xFFFFFC1Fu) == 0xD63F0000u) {
        b.kind = A64_BLR;
        b.indirect = true;
    } else if ((insn & 0xFFFFFC1Fu) == 0xD65F0000u) {
        b.kind = A64_RET;
        b.indirect = true;
    }
    return b;
}

uint8_t a64_branch_subclass(const a64_branch *b)
{
    return (uint8_t)((b->conditional ? SPE_BR_COND : 0) | (b->indirect ? SPE_BR_INDIRECT : 0));
}

const char *a64_branch_name(a64_branch_kind k)
{
    switch (k) {
    case A64_B: return "B";
    case A64_BL: return "BL";
    case A64_BCOND: return "B.cond";
    case A64_CBZ: return "CBZ/CBNZ";
    case A64_TBZ: return "TBZ/TBNZ";
    case A64_BR: return "BR";
    case A64_BLR: return "BLR";
    case A64_RET: return "RET";
    default: return "none";
    }
}
