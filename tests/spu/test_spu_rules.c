/* SPDX-License-Identifier: Apache-2.0 */
/* test_spu_rules.c: single rules of seed 000 D17.7 with no table of their own (RKLGPG: the Effective nVM and PMSCR_EL2.EnVM, its bit positions). */
#include "spu_fixture.h"
#include "armprof/bits.h"

#define LIMIT 0x40010000ull

/* RKLGPG: the Effective value of PMBLIMITR_EL1.nVM is 0 if FEAT_SPE_nVM is not implemented,
 * or if all of: EL2 is implemented and enabled in the owning Security state, the owning
 * Exception level is EL1, and the Effective PMSCR_EL2.EnVM is 0. Every combination of the
 * feature, EL2 implemented, the owning EL (MDCR_EL2.E2PB), EnVM and the nVM field. */
static void test_effective_nvm_RKLGPG(void **state)
{
    (void)state;
    int checked = 0;
    for (int feat = 0; feat <= 1; feat++)
    for (int have_el2 = 0; have_el2 <= 1; have_el2++)
    for (int owner_el2 = 0; owner_el2 <= have_el2; owner_el2++)
    for (int envm = 0; envm <= have_el2; envm++)     /* PMSCR_EL2 exists with EL2 */
    for (int nvm = 0; nvm <= 1; nvm++) {
        spu_config cfg;
        spu_config_default(&cfg);
        cfg.feat_spe_nvm = feat;
        fx *f = fx_new_cfg(&cfg);
        assert_non_null(f);
        f->ctx.have_el2 = have_el2;
        f->ctx.mdcr2_e2pb = owner_el2 ? 0x0 : 0x3;
        f->ctx.el = 3;                           /* program from EL3: no traps */
        fx_ctx(f);
        if (have_el2) {
            fx_wr(f, SPU_PMSCR_EL2, envm ? AP_BIT(cfg.envm_bit) : 0);
            /* EnVM is RES0 without FEAT_SPE_nVM */
            assert_int_equal(fx_rd(f, SPU_PMSCR_EL2), feat && envm ? AP_BIT(cfg.envm_bit) : 0);
        }
        fx_wr(f, SPU_PMBPTR_EL1, LIMIT - 0x1000);
        fx_wr(f, SPU_PMBSR_EL1, 0);
        fx_wr(f, SPU_PMBLIMITR_EL1, LIMIT | (feat && nvm ? AP_BIT(cfg.nvm_bit) : 0) | 1);
        f->ctx.el = 1;
        fx_ctx(f);
        armprof_regime rg;
        assert_true(spu_buffer_enabled(f->spu, &rg));
        assert_int_equal(rg.el, owner_el2 ? 2 : 1);
        bool el2_gate = have_el2 && !owner_el2 && !envm;  /* EL2 enabled (Non-secure), owner EL1 */
        bool want = feat && nvm && !el2_gate;
        if (rg.nvm != want)
            fail_msg("feat=%d el2=%d owner_el2=%d EnVM=%d nVM=%d: Effective nVM %d, want %d", feat,
                     have_el2, owner_el2, envm, nvm, rg.nvm, want);
        checked++;
        fx_free(f);
    }
    assert_int_equal(checked, 2 * (2 + 8));
}

/* A reserved envm_bit is refused with its reason. */
static void test_envm_bit_validated(void **state)
{
    (void)state;
    spu_config cfg;
    spu_config_default(&cfg);
    cfg.feat_spe_nvm = true;
    cfg.envm_bit = 6;                            /* PCT */
    char why[160] = "";
    assert_int_equal(spu_config_validate(&cfg, why, sizeof why), ARMPROF_ERR_CFG_RANGE);
    assert_non_null(strstr(why, "envm_bit"));
}

/* nvm_bit and envm_bit are checked whatever feat_spe_nvm says: the enables shift by them (a
 * shift past 63 is undefined behaviour), so a unit never opens with one out of range. */
static void test_nvm_bits_validated_without_feature(void **state)
{
    (void)state;
    const struct { uint8_t nvm, envm; bool ok; } rows[] = {
        { 3, 8, true }, { 11, 63, true }, { 4, 9, true },
        { 64, 8, false }, { 255, 8, false }, { 12, 8, false }, { 2, 8, false }, { 5, 8, false },
        { 3, 64, false }, { 3, 255, false }, { 3, 7, false }, { 3, 0, false },
    };
    for (int feat = 0; feat <= 1; feat++)
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
            spu_config cfg;
            spu_config_default(&cfg);
            cfg.feat_spe_nvm = feat;
            cfg.nvm_bit = rows[i].nvm;
            cfg.envm_bit = rows[i].envm;
            char why[160] = "";
            armprof_err e = spu_config_validate(&cfg, why, sizeof why);
            if ((e == ARMPROF_OK) != rows[i].ok)
                fail_msg("feat_spe_nvm %d nvm_bit %u envm_bit %u: %s", feat, rows[i].nvm, rows[i].envm,
                         armprof_strerror(e));
            if (!rows[i].ok) {
                assert_int_equal(e, ARMPROF_ERR_CFG_RANGE);
                assert_non_null(strstr(why, rows[i].nvm != 3 ? "nvm_bit" : "envm_bit"));
                spu_t *s = NULL;
                assert_int_equal(spu_open(&cfg, NULL, &s), ARMPROF_ERR_CFG_RANGE);
                assert_null(s);
            }
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_effective_nvm_RKLGPG),
        cmocka_unit_test(test_envm_bit_validated),
        cmocka_unit_test(test_nvm_bits_validated_without_feature),
    };
    return cmocka_run_group_tests_name("spu_rules", tests, NULL, NULL);
}
