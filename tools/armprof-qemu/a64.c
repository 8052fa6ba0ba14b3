/* SPDX-License-Identifier: Apache-2.0 */
/* a64.c: A64 decoding for armprof-qemu: branches (Arm ARM C4.1.65), the registers of loads and stores (C4.1.66) and the register other instructions write (C4.1.64, C4.1.67). */
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

static uint8_t f_rt(uint32_t i) { return (uint8_t)(i & 31); }
static uint8_t f_rn(uint32_t i) { return (uint8_t)((i >> 5) & 31); }
static uint8_t f_rm(uint32_t i) { return (uint8_t)((i >> 16) & 31); }
static uint8_t f_rt2(uint32_t i) { return (uint8_t)((i >> 10) & 31); }

a64_mem a64_decode_mem(uint32_t i)
{
    a64_mem m = { .rn = A64_REG_NONE, .rm = A64_REG_NONE, .rt = A64_REG_NONE, .rt2 = A64_REG_NONE };
    if ((i & 0x0A000000u) != 0x08000000u)                        /* op0 x1x0: Loads and Stores */
        return m;
    bool v = (i >> 26) & 1, l = (i >> 22) & 1;
    m.is_mem = true;
    m.known = true;
    m.simd = v;
    m.rn = f_rn(i);
    if ((i & 0xBF000000u) == 0x0C000000u || (i & 0xBF000000u) == 0x0D000000u) {
        /* Advanced SIMD load/store multiple / single structures (LD1..LD4, ST1..ST4) */
        m.simd = true;
        m.load = l;
        m.store = !l;
        m.writeback = (i >> 23) & 1;
    } else if ((i & 0x3B000000u) == 0x18000000u) {
        /* load register (literal): PC-relative, no base register; PRFM makes no access */
        uint32_t opc = i >> 30;
        m.rn = A64_REG_NONE;
        m.is_mem = m.load = v || opc != 3;
        if (!v && opc != 3)
            m.rt = f_rt(i);
    } else if ((i & 0x3F000000u) == 0x08000000u) {
        /* load/store exclusive, load-acquire/store-release, compare and swap */
        bool o2 = (i >> 23) & 1, o1 = (i >> 21) & 1;
        m.exclusive = !o2 && !(o1 && !(i >> 31));
        bool o0 = (i >> 15) & 1;
        m.acqrel = o0 || (o2 && !o1) || (o2 && o1 && l);     /* LDAXR, STLXR, LDAR, STLR, CASA... */
        if (o2 && o1) {                                          /* CAS: Rs gets the old value */
            m.load = m.store = m.atomic = true;
            m.exclusive = false;
            m.rt = f_rm(i);
        } else if (!o2 && o1 && !(i >> 31)) {                    /* CASP: Rs, Rs+1 */
            m.load = m.store = m.atomic = true;
            m.rt = f_rm(i);
            m.rt2 = (uint8_t)(f_rm(i) + 1);
        } else {
            m.load = l;
            m.store = !l;
            if (l) {
                m.rt = f_rt(i);
                if (o1)                                          /* LDXP, LDAXP */
                    m.rt2 = f_rt2(i);
            }
        }
    } else if ((i & 0x3F200C00u) == 0x19000000u) {
        /* LDAPUR / STLUR (RCpc, unscaled immediate) */
        uint32_t opc = (i >> 22) & 3;
        m.load = opc != 0;
        m.store = opc == 0;
        m.acqrel = true;
        if (m.load)
            m.rt = f_rt(i);
    } else if ((i & 0x38000000u) == 0x28000000u) {
        /* load/store pair: offset, pre-index, post-index, no-allocate */
        uint32_t idx = (i >> 23) & 3;
        m.load = l;
        m.store = !l;
        m.writeback = idx == 1 || idx == 3;
        if (l && !v) {
            m.rt = f_rt(i);
            m.rt2 = f_rt2(i);
        }
    } else if ((i & 0x38000000u) == 0x38000000u) {
        /* load/store register: unsigned offset, register offset, immediate pre/post-index,
         * unscaled, unprivileged; atomic memory operations; LDRAA/LDRAB */
        uint32_t opc = (i >> 22) & 3, size = i >> 30, op4 = (i >> 10) & 3;
        bool unsigned_off = (i >> 24) & 1, bit21 = (i >> 21) & 1;
        if (!unsigned_off && bit21 && op4 == 0 && !v) {
            /* LDADD, SWP, ... (o3 = 0 or opc = 000); LDAPR (o3 = 1, opc = 100) only loads */
            bool ldapr = ((i >> 15) & 1) && ((i >> 12) & 7) == 4;
            m.load = true;
            m.store = m.atomic = !ldapr;
            m.acqrel = ldapr || ((i >> 22) & 3);
            m.rt = f_rt(i);
            return m;
        }
        if (!unsigned_off && bit21 && (op4 & 1)) {               /* LDRAA, LDRAB */
            m.load = true;
            m.rt = f_rt(i);
            m.writeback = (i >> 11) & 1;
            return m;
        }
        if (!unsigned_off && bit21 && op4 == 2)
            m.rm = f_rm(i);                                      /* register offset */
        if (!unsigned_off && !bit21)
            m.writeback = op4 == 1 || op4 == 3;
        if (v) {
            m.load = opc & 1;
            m.store = !(opc & 1);
        } else if (opc == 2 && size == 3) {
            m.is_mem = false;                                    /* PRFM / PRFUM: no access */
        } else {
            m.load = opc != 0;
            m.store = opc == 0;
            if (m.load)
                m.rt = f_rt(i);
        }
    } else {
        m.known = false;                                         /* e.g. memory tagging */
    }
    return m;
}

uint8_t a64_mem_subclass(const a64_mem *m, bool store)
{
    uint8_t st = store ? SPE_LDST_ST : 0;
    if (m->atomic || m->exclusive || m->acqrel)
        return (uint8_t)(SPE_LDST_EXTENDED | (m->atomic ? SPE_LDST_AT : 0) | (m->exclusive ? SPE_LDST_EXCL : 0) |
                         (m->acqrel ? SPE_LDST_AR : 0) | st);
    return (uint8_t)((m->simd ? SPE_LDST_SIMD_FP : SPE_LDST_GP) | st);
}

a64_write a64_decode_write(uint32_t i)
{
    a64_write w = { .rd = A64_REG_NONE };
    uint8_t rd = f_rt(i), rn = f_rn(i), rm = f_rm(i);
    if ((i & 0x1C000000u) == 0x10000000u) {                      /* op0 100x: DP (immediate) */
        uint32_t op = (i >> 23) & 7, opc = (i >> 29) & 3;
        w.rd = rd;
        if (op <= 1)
            w.reads_rd = false;                                  /* ADR, ADRP */
        else if (op == 5)
            w.reads_rd = opc == 3;                               /* MOVK keeps the other bits */
        else if (op == 6)
            w.reads_rd = rd == rn || opc == 1;                   /* BFM keeps bits of Rd */
        else if (op == 7)
            w.reads_rd = rd == rn || rd == rm;                   /* EXTR */
        else
            w.reads_rd = rd == rn;                               /* ADD/SUB, logical */
    } else if ((i & 0x0E000000u) == 0x0A000000u) {               /* op0 x101: DP (register) */
        if ((i & 0x1FE00000u) == 0x1A400000u)
            return w;                                            /* CCMP, CCMN: flags only */
        w.rd = rd;
        w.reads_rd = rd == rn || rd == rm;
        if ((i & 0x1F000000u) == 0x1B000000u)                    /* MADD, MSUB, ...: Ra */
            w.reads_rd = w.reads_rd || rd == f_rt2(i);
    } else if ((i & 0xFC000000u) == 0x94000000u || (i & 0xFEFFF000u) == 0xD63F0000u) {
        w.rd = 30;                                               /* BL, BLR (and BLRAA...): X30 */
    } else if ((i & 0xFFF00000u) == 0xD5300000u || (i & 0xFFF80000u) == 0xD5280000u) {
        w.rd = rd;                                               /* MRS, SYSL */
    }
    if (w.rd == 31)
        w.rd = A64_REG_NONE;                                     /* XZR or SP */
    return w;
}
