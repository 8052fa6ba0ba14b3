/* SPDX-License-Identifier: Apache-2.0 */
/* test_qemu_units.c: armprof-qemu's A64 branch decoder and its cache / TLB / branch predictor model, on the host. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "a64.h"
#include "armprof/spe.h"
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

static memsys_config small(void)
{
    memsys_config c;
    memsys_config_default(&c);
    c.l1d_bytes = 1024; c.l1d_ways = 2;
    c.l2_bytes = 8192; c.l2_ways = 4;
    c.llc_bytes = 65536; c.llc_ways = 8;
    return c;
}

static void test_memsys_config_errors(void **state)
{
    (void)state;
    char why[200];
    memsys_config c;
    memsys_config_default(&c);
    assert_int_equal(memsys_config_check(&c, why, sizeof why), 0);
    c.l1d_bytes = 3000;
    assert_int_equal(memsys_config_check(&c, why, sizeof why), -1);
    assert_non_null(strstr(why, "l1d"));
    memsys_config_default(&c);
    c.tlb_ways = 3;
    assert_int_equal(memsys_config_check(&c, why, sizeof why), -1);
    assert_non_null(strstr(why, "tlb"));
    memsys_config_default(&c);
    c.bp_entries = 1000;
    assert_int_equal(memsys_config_check(&c, why, sizeof why), -1);
    assert_non_null(strstr(why, "bp_entries"));
}

/* A cyclic walk one line at a time: after the first pass every access is served by the
 * smallest level the array fits in (LRU misses every time in the smaller ones). */
static memsys_level steady_level(uint32_t bytes)
{
    memsys_config c = small();
    memsys m;
    assert_int_equal(memsys_init(&m, &c), 0);
    memsys_level lv = MS_DRAM;
    for (int pass = 0; pass < 3; pass++)
        for (uint64_t a = 0; a < bytes; a += 64) {
            memsys_access r = memsys_access_data(&m, 0x10000000 + a);
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

static void test_memsys_latency(void **state)
{
    (void)state;
    memsys_config c = small();
    memsys m;
    assert_int_equal(memsys_init(&m, &c), 0);
    memsys_access r = memsys_access_data(&m, 0x5000);
    assert_int_equal(r.level, MS_DRAM);
    assert_true(r.tlb_miss);
    assert_int_equal(r.xlat_lat, c.walk_lat);
    assert_int_equal(r.total_lat, c.walk_lat + c.dram_lat);
    r = memsys_access_data(&m, 0x5008);                 /* same line, same page */
    assert_int_equal(r.level, MS_L1D);
    assert_false(r.tlb_miss);
    assert_int_equal(r.total_lat, c.tlb_lat + c.l1d_lat);
    memsys_free(&m);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a64_branch_table),
        cmocka_unit_test(test_memsys_config_errors),
        cmocka_unit_test(test_memsys_levels),
        cmocka_unit_test(test_memsys_latency),
        cmocka_unit_test(test_branch_predictor),
    };
    return cmocka_run_group_tests_name("qemu_units", tests, NULL, NULL);
}
