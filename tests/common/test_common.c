/* SPDX-License-Identifier: Apache-2.0 */
/* test_common.c: the shared pieces: field helpers, register table write path, RNG, checkpoints. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "armprof/bits.h"
#include "common/regtable.h"
#include "armprof/rng.h"
#include "common/state.h"

uint8_t ap_rng_reference_first_draw(void);

static void test_fields(void **s)
{
    (void)s;
    assert_int_equal(AP_GENMASK(31, 26), 0xFC000000ull);
    assert_int_equal(AP_GENMASK(63, 0), ~0ull);
    assert_int_equal(ap_field_get(AP_GENMASK(31, 26), 0x90000000ull), 0x24);
    assert_int_equal(ap_field_prep(AP_GENMASK(31, 26), 0x25), 0x94000000ull);
    assert_int_equal(ap_field_set(0xFFFFFFFFull, AP_GENMASK(7, 4), 0x0), 0xFFFFFF0Full);
    /* bits that do not fit the field are dropped */
    assert_int_equal(ap_field_prep(AP_GENMASK(1, 0), 0x7), 0x3);
}

static int post_calls;
static uint64_t pre_adjust(void *u, const ap_regdef *r, uint64_t old, uint64_t v)
{
    (void)u; (void)r; (void)old;
    return v | 0x100; /* pretend a hook forces bit 8 */
}
static void post_count(void *u, const ap_regdef *r, uint64_t old, uint64_t v)
{
    (void)u; (void)r; (void)old; (void)v;
    post_calls++;
}
static uint64_t extra_res0(void *u, const ap_regdef *r)
{
    (void)r;
    return *(int *)u ? 0 : 0xF000;
}
static armprof_err deny_writes(void *u, const ap_regdef *r, bool write)
{
    (void)u; (void)r;
    return write ? ARMPROF_ERR_TRAP_EL2 : ARMPROF_OK;
}

static armprof_err absent(void *u, const ap_regdef *r, bool write)
{
    (void)u; (void)r; (void)write;
    return ARMPROF_ERR_NOREG;
}

static const ap_regdef defs[] = {
    { .name = "A", .enc = ARMPROF_SYSREG(3, 0, 9, 9, 0), .slot = 0, .reset = 0x5,
      .res0 = AP_GENMASK(63, 32), .res1 = 0x2, .ro = 0x1, .res0_extra = extra_res0 },
    { .name = "A_ALIAS", .enc = ARMPROF_SYSREG(3, 5, 9, 9, 0), .slot = 0, .flags = AP_REG_ALIAS },
    { .name = "B", .enc = ARMPROF_SYSREG(3, 0, 9, 9, 1), .slot = 1, .reset = 0,
      .prewrite = pre_adjust, .postwrite = post_count },
    { .name = "ID", .enc = ARMPROF_SYSREG(3, 0, 9, 9, 7), .slot = 2, .flags = AP_REG_RO, .reset = 0x77 },
    { .name = "T", .enc = ARMPROF_SYSREG(3, 0, 9, 9, 6), .slot = 3, .check = deny_writes },
    { .name = "ID_T", .enc = ARMPROF_SYSREG(3, 0, 9, 9, 5), .slot = 4, .flags = AP_REG_RO,
      .check = deny_writes, .reset = 0x66 },
    { .name = "ID_ABSENT", .enc = ARMPROF_SYSREG(3, 0, 9, 9, 4), .slot = 5, .flags = AP_REG_RO,
      .check = absent },
};

static void test_regtable(void **s)
{
    (void)s;
    uint64_t vals[6] = {0};
    int feature = 0;
    ap_regfile rf = { defs, sizeof(defs) / sizeof(defs[0]), vals, &feature };
    ap_reg_reset(&rf, true);
    uint64_t v;
    assert_int_equal(ap_reg_read(&rf, ARMPROF_SYSREG(3, 0, 9, 9, 0), &v), ARMPROF_OK);
    assert_int_equal(v, 0x5);
    /* RES0 (static and config-dependent) dropped, RES1 forced, read-only bit kept */
    assert_int_equal(ap_reg_write(&rf, ARMPROF_SYSREG(3, 0, 9, 9, 0), ~0ull), ARMPROF_OK);
    assert_int_equal(vals[0], 0xFFFF0FFFull);
    feature = 1;
    assert_int_equal(ap_reg_write(&rf, ARMPROF_SYSREG(3, 5, 9, 9, 0), 0xF000), ARMPROF_OK);
    assert_int_equal(vals[0], 0xF003ull); /* through the alias, same slot */
    assert_int_equal(ap_reg_write(&rf, ARMPROF_SYSREG(3, 0, 9, 9, 1), 1), ARMPROF_OK);
    assert_int_equal(vals[1], 0x101);
    assert_int_equal(post_calls, 1);
    /* An MSR to a read-only register is UNDEFINED (no MSR form), before the traps of its MRS
     * form; a register the check says is absent stays NOREG. ap_reg_check() gives the same. */
    assert_int_equal(ap_reg_write(&rf, ARMPROF_SYSREG(3, 0, 9, 9, 7), 1), ARMPROF_ERR_UNDEFINED);
    assert_int_equal(ap_reg_check(&rf, ARMPROF_SYSREG(3, 0, 9, 9, 7), true), ARMPROF_ERR_UNDEFINED);
    assert_int_equal(ap_reg_check(&rf, ARMPROF_SYSREG(3, 0, 9, 9, 7), false), ARMPROF_OK);
    assert_int_equal(vals[2], 0x77);
    assert_int_equal(ap_reg_write(&rf, ARMPROF_SYSREG(3, 0, 9, 9, 5), 1), ARMPROF_ERR_UNDEFINED);
    assert_int_equal(vals[4], 0x66);
    assert_int_equal(ap_reg_write(&rf, ARMPROF_SYSREG(3, 0, 9, 9, 4), 1), ARMPROF_ERR_NOREG);
    assert_int_equal(ap_reg_check(&rf, ARMPROF_SYSREG(3, 0, 9, 9, 4), true), ARMPROF_ERR_NOREG);
    assert_int_equal(ap_reg_write(&rf, ARMPROF_SYSREG(3, 0, 9, 9, 6), 1), ARMPROF_ERR_TRAP_EL2);
    assert_int_equal(ap_reg_check(&rf, ARMPROF_SYSREG(3, 0, 9, 9, 6), true), ARMPROF_ERR_TRAP_EL2);
    assert_int_equal(ap_reg_check(&rf, ARMPROF_SYSREG(3, 0, 9, 9, 6), false), ARMPROF_OK);
    assert_int_equal(ap_reg_check(&rf, ARMPROF_SYSREG(3, 0, 9, 15, 6), false), ARMPROF_ERR_NOREG);
    assert_int_equal(vals[3], 0);
    assert_int_equal(ap_reg_read(&rf, ARMPROF_SYSREG(3, 0, 9, 15, 6), &v), ARMPROF_ERR_NOREG);
    assert_non_null(ap_reg_find_name(&rf, "ID"));
}

static void test_rng_definition(void **s)
{
    (void)s;
    /* xorshift32(13,17,5) from 0x2F6B9A35, top byte: pinned so RTL and C stay equal. */
    uint32_t x = AP_RNG_DEFAULT_SEED;
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    assert_int_equal(ap_rng_reference_first_draw(), x >> 24);
    ap_rng r;
    ap_rng_seed(&r, 1);
    /* known xorshift32 sequence from seed 1: 270369, 67634689, 2647435461 */
    ap_rng_draw8(&r);
    assert_int_equal(r.state, 270369u);
    ap_rng_draw8(&r);
    assert_int_equal(r.state, 67634689u);
    assert_int_equal(ap_rng_draw8(&r), 2647435461u >> 24);
}

static void test_state_blob(void **s)
{
    (void)s;
    uint8_t buf[128];
    ap_state_writer w;
    ap_state_begin(&w, NULL, 0, 7, 1, 99);
    ap_state_put_u64(&w, 0x1122334455667788ull);
    ap_state_put_u32(&w, 42);
    assert_int_equal(ap_state_end(&w), ARMPROF_ERR_BUFSZ);
    size_t need = w.len;
    ap_state_begin(&w, buf, sizeof(buf), 7, 1, 99);
    ap_state_put_u64(&w, 0x1122334455667788ull);
    ap_state_put_u32(&w, 42);
    assert_int_equal(ap_state_end(&w), ARMPROF_OK);
    assert_int_equal(w.len, need);
    ap_state_reader r;
    assert_int_equal(ap_state_open(&r, buf, w.len, 7, 1, 99), ARMPROF_OK);
    assert_int_equal(ap_state_get_u64(&r), 0x1122334455667788ull);
    assert_int_equal(ap_state_get_u32(&r), 42);
    assert_int_equal(ap_state_close(&r), ARMPROF_OK);
    assert_int_equal(ap_state_open(&r, buf, w.len, 7, 1, 98), ARMPROF_ERR_STATE_MISMATCH);
    buf[30] ^= 1;
    assert_int_equal(ap_state_open(&r, buf, w.len, 7, 1, 99), ARMPROF_ERR_STATE_CORRUPT);
    assert_int_equal(ap_state_open(&r, buf, w.len - 1, 7, 1, 99), ARMPROF_ERR_STATE_CORRUPT);
}

static void test_strerror(void **s)
{
    (void)s;
    for (int e = 0; e < ARMPROF_ERR__COUNT; e++)
        assert_string_not_equal(armprof_strerror((armprof_err)e), "unknown error");
    assert_string_equal(armprof_strerror(ARMPROF_ERR__COUNT), "unknown error");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields),
        cmocka_unit_test(test_regtable),
        cmocka_unit_test(test_rng_definition),
        cmocka_unit_test(test_state_blob),
        cmocka_unit_test(test_strerror),
    };
    return cmocka_run_group_tests_name("common", tests, NULL, NULL);
}
