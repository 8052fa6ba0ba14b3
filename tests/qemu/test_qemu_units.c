/* SPDX-License-Identifier: Apache-2.0 */
/* test_qemu_units.c: armprof-qemu's A64 decoder, its core model (caches, TLB, branch predictor, MSHRs, bandwidth, register dependences) and the spu_op description of a sampled instruction, on the host. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "a64.h"
#include "armprof/spe.h"
#include "insn_op.h"
#include "memsys.h"

/* A64 encodings (Arm ARM C6.2): one row per branch form, with the expected kind and target. */
static void test_a64_branch_table(void **state)
{
    (void)state;
    static const struct {
        uint32_t insn;
        a64_branch_kind kind;
        int64_t off;      /* target - pc for direct branches */
        uint8_t subclass;
    } rows[] = {
        { 0x14000004u, A64_B, 16, 0 },                      /* B .+16 */
        { 0x17FFFFFFu, A64_B, -4, 0 },                      /* B .-4 */
        { 0x94000002u, A64_BL, 8, 0 },                      /* BL .+8 */
        { 0x54000040u, A64_BCOND, 8, SPE_BR_COND },         /* B.EQ .+8 */
        { 0x54FFFFEBu, A64_BCOND, -4, SPE_BR_COND },        /* B.LT .-4 */
        { 0xB4000060u, A64_CBZ, 12, SPE_BR_COND },          /* CBZ X0, .+12 */
        { 0x35FFFFE1u, A64_CBZ, -4, SPE_BR_COND },          /* CBNZ W1, .-4 */
        { 0x36000080u, A64_TBZ, 16, SPE_BR_COND },          /* TBZ W0, #0, .+16 */
        { 0xB7F80080u, A64_TBZ, 16, SPE_BR_COND },          /* TBNZ X0, #63, .+16 */
        { 0xD61F0200u, A64_BR, 0, SPE_BR_INDIRECT },        /* BR X16 */
        { 0xD63F0100u, A64_BLR, 0, SPE_BR_INDIRECT },       /* BLR X8 */
        { 0xD65F03C0u, A64_RET, 0, SPE_BR_INDIRECT },       /* RET */
        { 0xD65F0020u, A64_RET, 0, SPE_BR_INDIRECT },       /* RET X1 */
        { 0xD503201Fu, A64_NOT_BRANCH, 0, 0 },              /* NOP */
        { 0x8B020020u, A64_NOT_BRANCH, 0, 0 },              /* ADD X0, X1, X2 */
        { 0xF9400020u, A64_NOT_BRANCH, 0, 0 },              /* LDR X0, [X1] */
        { 0xD4000001u, A64_NOT_BRANCH, 0, 0 },              /* SVC #0 */
    };
    const uint64_t pc = 0x400100;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        a64_branch b = a64_decode_branch(rows[i].insn, pc);
        assert_int_equal(b.kind, rows[i].kind);
        if (b.kind == A64_NOT_BRANCH)
            continue;
        assert_int_equal(a64_branch_subclass(&b), rows[i].subclass);
        if (!b.indirect)
            assert_int_equal(b.target, pc + (uint64_t)rows[i].off);
    }
}

/* A64 loads and stores (Arm ARM C4.1.66), encodings from GNU as: base, offset and loaded
 * registers, direction, writeback and the SPE subclass of each form. */
static void test_a64_mem_table(void **state)
{
    (void)state;
    enum { N = A64_REG_NONE };
    static const struct {
        uint32_t insn;
        const char *text;
        bool is_mem, load, store, wb;
        uint8_t rn, rm, rt, rt2;
        uint8_t subclass;                                       /* of a load access */
    } rows[] = {
        { 0xf9400841u, "ldr x1, [x2, #16]", true, true, false, false, 2, N, 1, N, SPE_LDST_GP },
        { 0xf8637841u, "ldr x1, [x2, x3, lsl #3]", true, true, false, false, 2, 3, 1, N, SPE_LDST_GP },
        { 0xb8408441u, "ldr w1, [x2], #8", true, true, false, true, 2, N, 1, N, SPE_LDST_GP },
        { 0xf85f8c41u, "ldr x1, [x2, #-8]!", true, true, false, true, 2, N, 1, N, SPE_LDST_GP },
        { 0xf85fd041u, "ldur x1, [x2, #-3]", true, true, false, false, 2, N, 1, N, SPE_LDST_GP },
        { 0xa9411041u, "ldp x1, x4, [x2, #16]", true, true, false, false, 2, N, 1, 4, SPE_LDST_GP },
        { 0xa8c11041u, "ldp x1, x4, [x2], #16", true, true, false, true, 2, N, 1, 4, SPE_LDST_GP },
        { 0xa9be13e1u, "stp x1, x4, [sp, #-32]!", true, false, true, true, 31, N, N, N, SPE_LDST_GP },
        { 0xf8236841u, "str x1, [x2, x3]", true, false, true, false, 2, 3, N, N, SPE_LDST_GP },
        { 0x39000441u, "strb w1, [x2, #1]", true, false, true, false, 2, N, N, N, SPE_LDST_GP },
        { 0xb9800441u, "ldrsw x1, [x2, #4]", true, true, false, false, 2, N, 1, N, SPE_LDST_GP },
        { 0x3dc00841u, "ldr q1, [x2, #32]", true, true, false, false, 2, N, N, N, SPE_LDST_SIMD_FP },
        { 0xfd000041u, "str d1, [x2]", true, false, true, false, 2, N, N, N, SPE_LDST_SIMD_FP },
        { 0x4c407040u, "ld1 {v0.16b}, [x2]", true, true, false, false, 2, N, N, N, SPE_LDST_SIMD_FP },
        { 0x4cc37040u, "ld1 {v0.16b}, [x2], x3", true, true, false, true, 2, N, N, N, SPE_LDST_SIMD_FP },
        { 0x58000041u, "ldr x1, <literal>", true, true, false, false, N, N, 1, N, SPE_LDST_GP },
        { 0xc85f7c41u, "ldxr x1, [x2]", true, true, false, false, 2, N, 1, N, SPE_LDST_EXTENDED | SPE_LDST_EXCL },
        { 0xc87f9041u, "ldaxp x1, x4, [x2]", true, true, false, false, 2, N, 1, 4,
          SPE_LDST_EXTENDED | SPE_LDST_EXCL | SPE_LDST_AR },
        { 0xc805fc41u, "stlxr w5, x1, [x2]", true, false, true, false, 2, N, N, N,
          SPE_LDST_EXTENDED | SPE_LDST_EXCL | SPE_LDST_AR },
        { 0xc8dffc41u, "ldar x1, [x2]", true, true, false, false, 2, N, 1, N, SPE_LDST_EXTENDED | SPE_LDST_AR },
        { 0xc89ffc41u, "stlr x1, [x2]", true, false, true, false, 2, N, N, N, SPE_LDST_EXTENDED | SPE_LDST_AR },
        { 0xc8a57c41u, "cas x5, x1, [x2]", true, true, true, false, 2, N, 5, N, SPE_LDST_EXTENDED | SPE_LDST_AT },
        { 0x48247c46u, "casp x4, x5, x6, x7, [x2]", true, true, true, false, 2, N, 4, 5,
          SPE_LDST_EXTENDED | SPE_LDST_AT },
        { 0xf8250041u, "ldadd x5, x1, [x2]", true, true, true, false, 2, N, 1, N, SPE_LDST_EXTENDED | SPE_LDST_AT },
        { 0xf8e58041u, "swpal x5, x1, [x2]", true, true, true, false, 2, N, 1, N,
          SPE_LDST_EXTENDED | SPE_LDST_AT | SPE_LDST_AR },
        { 0xf8bfc041u, "ldapr x1, [x2]", true, true, false, false, 2, N, 1, N, SPE_LDST_EXTENDED | SPE_LDST_AR },
        { 0xd9408041u, "ldapur x1, [x2, #8]", true, true, false, false, 2, N, 1, N, SPE_LDST_EXTENDED | SPE_LDST_AR },
        { 0xd9008041u, "stlur x1, [x2, #8]", true, false, true, false, 2, N, N, N, SPE_LDST_EXTENDED | SPE_LDST_AR },
        { 0xf8201441u, "ldraa x1, [x2, #8]", true, true, false, false, 2, N, 1, N, SPE_LDST_GP },
        { 0xf9800040u, "prfm pldl1keep, [x2] (no access)", false, false, false, false, 2, N, N, N, 0 },
        { 0x91002000u, "add x0, x0, #8 (not a load/store)", false, false, false, false, N, N, N, N, 0 },
        { 0xd50b7421u, "dc zva, x1 (system)", false, false, false, false, N, N, N, N, 0 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        a64_mem m = a64_decode_mem(rows[i].insn);
        print_message("%-36s is_mem %d load %d store %d rn %u rm %u rt %u rt2 %u\n", rows[i].text, m.is_mem, m.load,
                      m.store, m.rn, m.rm, m.rt, m.rt2);
        assert_int_equal(m.is_mem, rows[i].is_mem);
        if (!rows[i].is_mem)
            continue;
        assert_true(m.known);
        assert_int_equal(m.load, rows[i].load);
        assert_int_equal(m.store, rows[i].store);
        assert_int_equal(m.writeback, rows[i].wb);
        assert_int_equal(m.rn, rows[i].rn);
        assert_int_equal(m.rm, rows[i].rm);
        assert_int_equal(m.rt, rows[i].rt);
        assert_int_equal(m.rt2, rows[i].rt2);
        assert_int_equal(a64_mem_subclass(&m, false), rows[i].subclass);
        assert_int_equal(a64_mem_subclass(&m, true), rows[i].subclass | SPE_LDST_ST);
    }
}

/* The register other instructions write, and whether its old value is also a source. */
static void test_a64_write_table(void **state)
{
    (void)state;
    enum { N = A64_REG_NONE };
    static const struct {
        uint32_t insn;
        const char *text;
        uint8_t rd;
        bool reads_rd;
    } rows[] = {
        { 0x91002000u, "add x0, x0, #8", 0, true },
        { 0x91002001u, "add x1, x0, #8", 1, false },
        { 0xcb050083u, "sub x3, x4, x5", 3, false },
        { 0xaa0203e1u, "mov x1, x2", 1, false },
        { 0xd28000a1u, "movz x1, #5", 1, false },
        { 0xf2a000a1u, "movk x1, #5, lsl #16", 1, true },
        { 0x90000001u, "adrp x1, .", 1, false },
        { 0xeb02003fu, "cmp x1, x2", N, false },
        { 0xfa420020u, "ccmp x1, x2, #0, eq", N, false },
        { 0x9a830041u, "csel x1, x2, x3, eq", 1, false },
        { 0x9b030441u, "madd x1, x2, x3, x1", 1, true },
        { 0x9b031041u, "madd x1, x2, x3, x4", 1, false },
        { 0xb37c1c41u, "bfi x1, x2, #4, #8", 1, true },
        { 0xd3442c41u, "ubfx x1, x2, #4, #8", 1, false },
        { 0x94000000u, "bl .", 30, false },
        { 0xd63f0060u, "blr x3", 30, false },
        { 0xd53bd041u, "mrs x1, tpidr_el0", 1, false },
        { 0xd503201fu, "nop", N, false },
        { 0x910043ffu, "add sp, sp, #16", N, false },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        a64_write w = a64_decode_write(rows[i].insn);
        print_message("%-24s rd %u reads %d\n", rows[i].text, w.rd, w.reads_rd);
        assert_int_equal(w.rd, rows[i].rd);
        if (w.rd != N)
            assert_int_equal(w.reads_rd, rows[i].reads_rd);
    }
}

static memsys_config small(void)
{
    memsys_config c;
    memsys_config_default(&c);
    c.l1d_bytes = 1024; c.l1d_ways = 2;
    c.l2_bytes = 8192; c.l2_ways = 4;
    c.llc_bytes = 65536; c.llc_ways = 8;
    return c;
}

/* One access at program-order cycle `now`: address from register `base` (MEMSYS_REG_NONE:
 * none), loading into `dst` (MEMSYS_DST_NONE: a store). */
static memsys_access acc(memsys *m, uint64_t va, uint64_t now, uint8_t base, uint8_t dst)
{
    memsys_req q = { .va = va, .now = now, .addr_reg = { base, MEMSYS_REG_NONE }, .dst_reg = { dst, MEMSYS_DST_NONE } };
    return memsys_access_data(m, &q);
}

static void test_memsys_config_errors(void **state)
{
    (void)state;
    char why[200];
    static const struct {
        size_t off;
        uint32_t v;
        const char *named;
    } rows[] = {
        { offsetof(memsys_config, l1d_bytes), 3000, "l1d" },
        { offsetof(memsys_config, l2_ways), 3, "l2" },
        { offsetof(memsys_config, llc_bytes), 32, "llc" },
        { offsetof(memsys_config, tlb_ways), 3, "tlb" },
        { offsetof(memsys_config, bp_entries), 1000, "bp_entries" },
        { offsetof(memsys_config, line_bytes), 48, "line" },
        { offsetof(memsys_config, mshrs), 0, "mshrs" },
        { offsetof(memsys_config, mshrs), MEMSYS_MAX_MSHRS + 1, "mshrs" },
        { offsetof(memsys_config, dram_lat), (1u << 24) + 1, "dram_lat" },
    };
    memsys_config c;
    memsys_config_default(&c);
    assert_int_equal(memsys_config_check(&c, why, sizeof why), 0);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        memsys_config_default(&c);
        memcpy((char *)&c + rows[i].off, &rows[i].v, sizeof(uint32_t));
        assert_int_equal(memsys_config_check(&c, why, sizeof why), -1);
        assert_non_null(strstr(why, rows[i].named));
    }
}

/* A cyclic walk one line at a time: after the first pass every access is served by the
 * smallest level the array fits in (LRU misses every time in the smaller ones). */
static memsys_level steady_level(uint32_t bytes)
{
    memsys_config c = small();
    memsys m;
    assert_int_equal(memsys_init(&m, &c), 0);
    memsys_level lv = MS_DRAM;
    uint64_t now = 0;
    for (int pass = 0; pass < 3; pass++)
        for (uint64_t a = 0; a < bytes; a += 64) {
            memsys_access r = acc(&m, 0x10000000 + a, now += 1000, MEMSYS_REG_NONE, MEMSYS_DST_NONE);
            if (pass == 2) {
                if (a == 0)
                    lv = r.level;
                assert_int_equal(r.level, lv);
            }
        }
    memsys_free(&m);
    return lv;
}

static void test_memsys_levels(void **state)
{
    (void)state;
    assert_int_equal(steady_level(512), MS_L1D);
    assert_int_equal(steady_level(4096), MS_L2);
    assert_int_equal(steady_level(32768), MS_LLC);
    assert_int_equal(steady_level(262144), MS_DRAM);
}

/* Unloaded latencies: translation + the level's latency; an access to a line whose fill is in
 * flight waits for the fill; one after it completes is an L1D hit. */
static void test_memsys_latency(void **state)
{
    (void)state;
    memsys_config c = small();
    memsys m;
    assert_int_equal(memsys_init(&m, &c), 0);
    memsys_access r = acc(&m, 0x5000, 100, MEMSYS_REG_NONE, MEMSYS_DST_NONE);
    assert_int_equal(r.level, MS_DRAM);
    assert_true(r.tlb_miss);
    assert_int_equal(r.xlat_lat, c.walk_lat);
    assert_int_equal(r.issue_lat, 0);
    assert_int_equal(r.queue_lat, 0);
    assert_int_equal(r.total_lat, c.walk_lat + c.dram_lat);
    /* same line 10 cycles later: the fill completes at 100 + walk + dram */
    r = acc(&m, 0x5008, 110, MEMSYS_REG_NONE, MEMSYS_DST_NONE);
    assert_int_equal(r.level, MS_L1D);
    assert_false(r.tlb_miss);
    assert_int_equal(r.total_lat, 100 + c.walk_lat + c.dram_lat - 110);
    assert_int_equal(r.queue_lat, r.total_lat - c.tlb_lat - c.l1d_lat);
    /* long after: a plain L1D hit, in another line of the same (cached) page too */
    r = acc(&m, 0x5010, 10000, MEMSYS_REG_NONE, MEMSYS_DST_NONE);
    assert_int_equal(r.total_lat, c.tlb_lat + c.l1d_lat);
    assert_int_equal(r.queue_lat, 0);
    r = acc(&m, 0x5040, 10010, MEMSYS_REG_NONE, MEMSYS_DST_NONE);
    assert_int_equal(r.level, MS_DRAM);                         /* another line: a miss, TLB hit */
    assert_false(r.tlb_miss);
    assert_int_equal(r.total_lat, c.tlb_lat + c.dram_lat);
    memsys_free(&m);
}

/* MSHRs (memory-level parallelism): `mshrs` independent misses issued back to back are in flight
 * together; the next one waits for the first to complete, and the PE stalls that long. */
static void test_memsys_mshr_limit(void **state)
{
    (void)state;
    memsys_config c = small();
    c.mshrs = 4;
    c.l2_bw = c.llc_bw = c.dram_bw = 0;                         /* bandwidth out of the way */
    c.walk_lat = c.tlb_lat;                                     /* and TLB walks */
    memsys m;
    assert_int_equal(memsys_init(&m, &c), 0);
    uint64_t first_done = 0;
    for (uint32_t i = 0; i < 4; i++) {
        memsys_access r = acc(&m, 0x100000 + 64 * i, i, MEMSYS_REG_NONE, MEMSYS_DST_NONE);
        assert_int_equal(r.level, MS_DRAM);
        assert_int_equal(r.issue_lat, 0);
        if (i == 0)
            first_done = r.total_lat;
    }
    assert_int_equal(memsys_stall(&m), 0);
    memsys_access r = acc(&m, 0x100000 + 64 * 4, 4, MEMSYS_REG_NONE, MEMSYS_DST_NONE);
    assert_int_equal(r.issue_lat, first_done - 4 - c.tlb_lat); /* the MSHR frees at first_done */
    assert_int_equal(memsys_stall(&m), r.issue_lat);
    assert_int_equal(m.mshr_stall, r.issue_lat);
    assert_int_equal(r.total_lat, r.issue_lat + c.tlb_lat + c.dram_lat);
    memsys_free(&m);
}

/* Bandwidth: a level delivers dram_bw bytes per cycle, so back-to-back misses queue behind each
 * other's transfers, one line every line_bytes / dram_bw cycles: the k-th waits k of them. */
static void test_memsys_bandwidth_queue(void **state)
{
    (void)state;
    memsys_config c = small();
    c.mshrs = MEMSYS_MAX_MSHRS;
    c.dram_bw = 4;                                              /* 16 cycles per 64-byte line */
    c.walk_lat = c.tlb_lat;
    memsys m;
    assert_int_equal(memsys_init(&m, &c), 0);
    uint32_t prev = 0;
    for (uint32_t k = 0; k < 32; k++) {
        memsys_access r = acc(&m, 0x200000 + 64 * k, k, MEMSYS_REG_NONE, MEMSYS_DST_NONE);
        assert_int_equal(r.level, MS_DRAM);
        assert_int_equal(r.queue_lat, k * 16 - k);              /* issued one cycle apart */
        assert_int_equal(r.total_lat, c.tlb_lat + r.queue_lat + c.dram_lat);
        assert_true(k == 0 || r.total_lat > prev);              /* latency grows with load */
        prev = r.total_lat;
    }
    assert_int_equal(memsys_stall(&m), 0);                      /* none waited to issue */
    assert_int_equal(m.queue_cycles, 15u * (31 * 32 / 2));
    memsys_free(&m);
}

/* Mean load latency and stall cycles per load of a walk over `lines` lines of an array bigger
 * than every cache: `chase`: each address comes from the previous load's register (a linked
 * list), else independent (a stream); `gap`: instructions between loads. */
static void walk(const memsys_config *c, bool chase, uint32_t lines, uint32_t gap, double *lat, double *stall)
{
    memsys m;
    assert_int_equal(memsys_init(&m, c), 0);
    uint64_t sum = 0;
    uint64_t now = 0;
    for (uint32_t i = 0; i < lines; i++) {
        /* a permutation of lines with a stride of 4097 lines: a new page each time */
        uint64_t va = 0x40000000ull + (uint64_t)((i * 4097u) % lines) * 64;
        memsys_access r = acc(&m, va, now, chase ? 1 : MEMSYS_REG_NONE, 1);
        sum += r.total_lat - r.issue_lat;
        now += gap;
    }
    *lat = (double)sum / lines;
    *stall = (double)memsys_stall(&m) / lines;
    memsys_free(&m);
}

/* A pointer chase issues one miss at a time: unloaded latency, and the PE stalls for each. A
 * stream of independent misses fills the MSHRs and the bandwidth: far fewer stall cycles per
 * load, but each load's latency grows with the queue. */
static void test_memsys_chase_against_stream(void **state)
{
    (void)state;
    memsys_config c;
    memsys_config_default(&c);
    c.llc_bytes = 1024 * 1024;
    double chase_lat, chase_stall, stream_lat, stream_stall;
    walk(&c, true, 1u << 16, 3, &chase_lat, &chase_stall);
    walk(&c, false, 1u << 16, 3, &stream_lat, &stream_stall);
    print_message("chase: latency %.1f, stall %.1f per load; stream: latency %.1f, stall %.1f per load\n",
                  chase_lat, chase_stall, stream_lat, stream_stall);
    /* 64 loads per page: translation is mostly a TLB hit */
    uint32_t unloaded = c.tlb_lat + c.dram_lat;
    assert_true(chase_lat >= unloaded && chase_lat <= unloaded + 1);
    assert_true(chase_stall > unloaded - 3 - 1);                /* all but the 3-instruction gap */
    /* the stream is bandwidth-bound: one line per line_bytes / dram_bw cycles */
    uint32_t per_line = (c.line_bytes + c.dram_bw - 1) / c.dram_bw;
    assert_true(stream_stall > per_line - 3 - 1 && stream_stall < per_line - 3 + 1);
    assert_true(stream_lat > 1.5 * unloaded);                   /* queueing */
    assert_true(chase_stall > 5 * stream_stall);
}

/* A register a load writes holds up the next access whose address uses it, until the load
 * completes; once an instruction other than a load overwrites the register, it no longer does. */
static void test_memsys_register_dependence(void **state)
{
    (void)state;
    memsys_config c = small();
    memsys m;
    assert_int_equal(memsys_init(&m, &c), 0);
    memsys_access r = acc(&m, 0x300000, 0, MEMSYS_REG_NONE, 7);  /* miss into X7 */
    uint64_t done = r.total_lat;
    r = acc(&m, 0x400000, 1, 7, MEMSYS_DST_NONE);                /* [X7]: waits */
    assert_int_equal(r.issue_lat, done - 1);
    assert_int_equal(memsys_stall(&m), done - 1);
    r = acc(&m, 0x500000, 2, MEMSYS_REG_NONE, 8);                /* miss into X8 */
    uint64_t done8 = 2 + memsys_stall(&m) + r.total_lat;
    memsys_regs_written(&m, 1u << 8);                            /* MOV X8, ... */
    uint64_t before = memsys_stall(&m);
    r = acc(&m, 0x600000, 3, 8, MEMSYS_DST_NONE);
    assert_int_equal(r.issue_lat, 0);
    assert_int_equal(memsys_stall(&m), before);
    assert_true(done8 > 3 + before);                             /* it would have waited */
    /* a store writes no register: an address from X9 does not wait for it */
    r = acc(&m, 0x700000, 4, MEMSYS_REG_NONE, MEMSYS_DST_NONE);
    r = acc(&m, 0x700008, 5, 9, MEMSYS_DST_NONE);
    assert_int_equal(r.issue_lat, 0);
    memsys_free(&m);
}

/* memsys_access_quiet() (the plugin's fast path) and memsys_access_data() (a sample's) are the
 * same model: a random mix of accesses, dependences and strides leaves both in the same state. */
static void test_memsys_quiet_equals_data(void **state)
{
    (void)state;
    memsys_config c;
    memsys_config_default(&c);
    c.l1d_bytes = 4096;
    c.mshrs = 6;
    memsys a, b;
    assert_int_equal(memsys_init(&a, &c), 0);
    assert_int_equal(memsys_init(&b, &c), 0);
    uint64_t x = 12345, now = 0, va = 0x10000;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        switch (x % 4) {
        case 0: va += 8; break;                                  /* same line */
        case 1: va += 64; break;                                 /* next line */
        case 2: va = 0x10000 + (x >> 8) % (1u << 22); break;    /* anywhere in 4 MiB */
        default: va = 0x10000 + (x >> 8) % 8192; break;          /* a hot 8 KiB */
        }
        memsys_req q = { .va = va, .now = now, .addr_reg = { (uint8_t)(x >> 40) % 32, (uint8_t)(x >> 48) % 32 },
                         .dst_reg = { (uint8_t)((x >> 56) % 3 ? (x >> 32) % 31 : MEMSYS_DST_NONE), MEMSYS_DST_NONE } };
        if (q.addr_reg[1] != MEMSYS_REG_NONE && (x >> 20) % 2)
            q.addr_reg[1] = MEMSYS_REG_NONE;
        memsys_access_quiet(&a, &q);
        (void)memsys_access_data(&b, &q);
        if ((x >> 24) % 16 == 0) {
            memsys_regs_written(&a, (uint32_t)(x >> 3) & 0x7FFFFFFFu);
            memsys_regs_written(&b, (uint32_t)(x >> 3) & 0x7FFFFFFFu);
        }
        now += 1 + (x >> 60);
    }
    assert_true(a.stall > 0 && a.l1_miss > 0 && a.mshr_stall > 0);
    assert_int_equal(a.stall, b.stall);
    assert_int_equal(a.mshr_stall, b.mshr_stall);
    assert_int_equal(a.queue_cycles, b.queue_cycles);
    assert_int_equal(a.accesses, b.accesses);
    assert_int_equal(a.l1_miss, b.l1_miss);
    assert_int_equal(a.l2_miss, b.l2_miss);
    assert_int_equal(a.llc_miss, b.llc_miss);
    assert_int_equal(a.tlb_miss, b.tlb_miss);
    assert_memory_equal(a.reg_ready, b.reg_ready, sizeof a.reg_ready);
    memsys_free(&a);
    memsys_free(&b);
}

static void test_branch_predictor(void **state)
{
    (void)state;
    memsys_config c = small();
    memsys m;
    assert_int_equal(memsys_init(&m, &c), 0);
    /* counters start weakly not-taken: an always-taken branch is wrong once, then right */
    assert_true(memsys_branch_cond(&m, 0x1000, true));
    for (int i = 0; i < 10; i++)
        assert_false(memsys_branch_cond(&m, 0x1000, true));
    /* one not-taken after a run of taken ones is mispredicted, the counter stays taken */
    assert_true(memsys_branch_cond(&m, 0x1000, false));
    assert_false(memsys_branch_cond(&m, 0x1000, true));
    /* indirect: wrong on a new target, right on a repeat */
    assert_true(memsys_branch_indirect(&m, 0x2000, 0x3000));
    assert_false(memsys_branch_indirect(&m, 0x2000, 0x3000));
    assert_true(memsys_branch_indirect(&m, 0x2000, 0x4000));
    assert_int_equal(m.branches, 16);
    assert_int_equal(m.mispredicts, 4);
    memsys_free(&m);
}

/* A sampled load/store as an spu_op, for every level of the data source table: class, subclass
 * (with the direction of the access), VA, latencies, the Neoverse data source and events. */
static void test_insn_op_loads_table(void **state)
{
    (void)state;
    static const struct {
        memsys_level level;
        bool tlb_miss;
        uint16_t dsrc;
        uint64_t events;                                         /* besides E[1], E[2], E[4] */
    } rows[] = {
        { MS_L1D, false, 0x0, 0 },
        { MS_L2, false, 0x8, 1ull << SPE_EV_L1D_REFILL },
        { MS_LLC, false, 0xb, 1ull << SPE_EV_L1D_REFILL | 1ull << SPE_EV_LLC_ACCESS },
        { MS_DRAM, false, 0xe, 1ull << SPE_EV_L1D_REFILL | 1ull << SPE_EV_LLC_ACCESS | 1ull << SPE_EV_LLC_MISS },
        { MS_DRAM, true, 0xe, 1ull << SPE_EV_L1D_REFILL | 1ull << SPE_EV_LLC_ACCESS | 1ull << SPE_EV_LLC_MISS |
                                  1ull << SPE_EV_TLB_WALK },
    };
    insn_op_ctx ctx = { .cpi = 1, .mispredict_lat = 11, .target_el = 0, .target_ns = true };
    insn_static s = { .pc = 0x400800, .mem = a64_decode_mem(0xf8637841u) };     /* ldr x1, [x2, x3, lsl #3] */
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        for (int store = 0; store < 2; store++) {
            insn_access m = { .valid = true, .store = store, .size = 8, .va = 0x499040,
                              .acc = { .level = rows[i].level, .tlb_miss = rows[i].tlb_miss, .issue_lat = 7,
                                       .xlat_lat = 30, .queue_lat = 5, .total_lat = 200 } };
            spu_op op;
            insn_op_describe(&s, &m, 0, false, false, &ctx, &op);
            assert_int_equal(op.pc, 0x400800);
            assert_int_equal(op.op_class, SPE_CLASS_LDST);
            assert_int_equal(op.op_subclass, SPE_LDST_GP | (store ? SPE_LDST_ST : 0));
            assert_int_equal(op.flags, SPU_OP_HAS_VA | SPU_OP_HAS_XLAT | SPU_OP_HAS_DSRC);
            assert_int_equal(op.data_va, 0x499040);
            assert_int_equal(op.issue_lat, 7);
            assert_int_equal(op.xlat_lat, 30);
            assert_int_equal(op.total_lat, 200);
            assert_int_equal(op.data_source, rows[i].dsrc);
            assert_int_equal(op.events, 1ull << SPE_EV_RETIRED | 1ull << SPE_EV_L1D_ACCESS | 1ull << SPE_EV_TLB_ACCESS |
                                            rows[i].events);
        }
    /* a physical address, where the bridge knows one */
    insn_access m = { .valid = true, .va = 0x499040, .has_pa = true, .pa = 0x8123040, .pa_ns = true };
    spu_op op;
    insn_op_describe(&s, &m, 0, false, false, &ctx, &op);
    assert_true(op.flags & SPU_OP_HAS_PA);
    assert_int_equal(op.data_pa, 0x8123040);
    assert_true(op.data_pa_ns);
}

/* Branches: direction from the next PC, targets, misprediction's latency; other operations. */
static void test_insn_op_branches(void **state)
{
    (void)state;
    insn_op_ctx ctx = { .cpi = 2, .mispredict_lat = 11, .target_el = 0, .target_ns = true };
    insn_static bcond = { .pc = 0x400810, .br = a64_decode_branch(0x54ffff88u, 0x400810) };  /* b.hi .-16 */
    spu_op op;
    insn_op_describe(&bcond, NULL, 0x400800, true, false, &ctx, &op);
    assert_int_equal(op.op_class, SPE_CLASS_BRANCH);
    assert_int_equal(op.op_subclass, SPE_BR_COND);
    assert_int_equal(op.target, 0x400800);
    assert_int_equal(op.events, 1ull << SPE_EV_RETIRED);
    assert_int_equal(op.total_lat, 2);
    insn_op_describe(&bcond, NULL, 0x400814, true, true, &ctx, &op);       /* fell through, mispredicted */
    assert_int_equal(op.events, 1ull << SPE_EV_RETIRED | 1ull << SPE_EV_NOT_TAKEN | 1ull << SPE_EV_MISPREDICTED);
    assert_int_equal(op.total_lat, 2 + 11);
    insn_static ret = { .pc = 0x400820, .br = a64_decode_branch(0xd65f03c0u, 0x400820) };
    insn_op_describe(&ret, NULL, 0x400900, true, false, &ctx, &op);
    assert_int_equal(op.op_subclass, SPE_BR_INDIRECT);
    assert_true(op.flags & SPU_OP_HAS_TARGET);
    assert_int_equal(op.target, 0x400900);
    insn_op_describe(&ret, NULL, 0, false, false, &ctx, &op);              /* target unknown */
    assert_false(op.flags & SPU_OP_HAS_TARGET);
    insn_static nop = { .pc = 0x400830 };
    insn_op_describe(&nop, NULL, 0, false, false, &ctx, &op);
    assert_int_equal(op.op_class, SPE_CLASS_OTHER);
    assert_int_equal(op.total_lat, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a64_branch_table),
        cmocka_unit_test(test_a64_mem_table),
        cmocka_unit_test(test_a64_write_table),
        cmocka_unit_test(test_memsys_config_errors),
        cmocka_unit_test(test_memsys_levels),
        cmocka_unit_test(test_memsys_latency),
        cmocka_unit_test(test_memsys_mshr_limit),
        cmocka_unit_test(test_memsys_bandwidth_queue),
        cmocka_unit_test(test_memsys_chase_against_stream),
        cmocka_unit_test(test_memsys_register_dependence),
        cmocka_unit_test(test_memsys_quiet_equals_data),
        cmocka_unit_test(test_branch_predictor),
        cmocka_unit_test(test_insn_op_loads_table),
        cmocka_unit_test(test_insn_op_branches),
    };
    return cmocka_run_group_tests_name("qemu_units", tests, NULL, NULL);
}
