/* SPDX-License-Identifier: Apache-2.0 */
/* test_spu_access.c: spu_reg_check() against spu_reg_read/write over every register and a table of PE contexts; MSR to ID registers; registers of absent features. */
#include "spu_fixture.h"

/* A PE context of the table: the reset-like default with the changes `set` makes. */
typedef struct ctx_row {
    const char *name;
    void (*set)(armprof_pe_ctx *c);
} ctx_row;

static void c_el1(armprof_pe_ctx *c) { (void)c; }
static void c_el0(armprof_pe_ctx *c) { c->el = 0; }
static void c_el0_host(armprof_pe_ctx *c) { c->el = 0; c->hcr_e2h = c->hcr_tge = true; }
static void c_el1_tpms(armprof_pe_ctx *c) { c->mdcr2_tpms = true; }
static void c_el1_e2pb0(armprof_pe_ctx *c) { c->mdcr2_e2pb = 0; }
static void c_el1_e2pb2(armprof_pe_ctx *c) { c->mdcr2_e2pb = 2; }
static void c_el1_e2pb1(armprof_pe_ctx *c) { c->mdcr2_e2pb = 1; }
static void c_el1_tpms_e2pb0_nspb1(armprof_pe_ctx *c) { c->mdcr2_tpms = true; c->mdcr2_e2pb = 0; c->mdcr3_nspb = 1; }
static void c_el1_nspb0(armprof_pe_ctx *c) { c->mdcr3_nspb = 0; }
static void c_el1_nspb1(armprof_pe_ctx *c) { c->mdcr3_nspb = 1; }
static void c_el1_nspb2(armprof_pe_ctx *c) { c->mdcr3_nspb = 2; }
static void c_sel1_nspb1(armprof_pe_ctx *c) { c->scr_ns = false; c->mdcr3_nspb = 1; }
static void c_sel1_nspb3(armprof_pe_ctx *c) { c->scr_ns = false; c->mdcr3_nspb = 3; }
static void c_sel1_eel2_e2pb0(armprof_pe_ctx *c) { c->scr_ns = false; c->scr_eel2 = true; c->mdcr3_nspb = 1; c->mdcr2_e2pb = 0; }
static void c_el2(armprof_pe_ctx *c) { c->el = 2; }
static void c_el2_e2h(armprof_pe_ctx *c) { c->el = 2; c->hcr_e2h = true; }
static void c_el2_e2h_tge(armprof_pe_ctx *c) { c->el = 2; c->hcr_e2h = c->hcr_tge = true; }
static void c_el2_nspb0(armprof_pe_ctx *c) { c->el = 2; c->mdcr3_nspb = 0; }
static void c_el2_e2h_nspb1(armprof_pe_ctx *c) { c->el = 2; c->hcr_e2h = true; c->mdcr3_nspb = 1; }
static void c_el3(armprof_pe_ctx *c) { c->el = 3; c->mdcr3_nspb = 0; c->mdcr2_e2pb = 0; }
static void c_el3_e2h(armprof_pe_ctx *c) { c->el = 3; c->hcr_e2h = true; }
static void c_el1_nv(armprof_pe_ctx *c) { c->hcr_nv = true; }
static void c_el1_nv_nv2(armprof_pe_ctx *c) { c->hcr_nv = c->hcr_nv2 = true; }
static void c_el1_nv_nv1_nv2(armprof_pe_ctx *c) { c->hcr_nv = c->hcr_nv1 = c->hcr_nv2 = true; }
static void c_el1_nv2_e2pb0(armprof_pe_ctx *c) { c->hcr_nv = c->hcr_nv2 = true; c->mdcr2_e2pb = 0; }
static void c_el1_fgt_r(armprof_pe_ctx *c) { c->scr_fgten = true; c->hdfgrtr_pmb = true; }
static void c_el1_fgt_w(armprof_pe_ctx *c) { c->scr_fgten = true; c->hdfgwtr_pmb = true; }
static void c_el1_fgt_off(armprof_pe_ctx *c) { c->scr_fgten = false; c->hdfgrtr_pmb = c->hdfgwtr_pmb = true; }
static void c_el1_fgt_no_el3(armprof_pe_ctx *c) { c->have_el3 = false; c->hdfgrtr_pmb = c->hdfgwtr_pmb = true; }
static void c_el1_fgt_nv2(armprof_pe_ctx *c) { c->scr_fgten = c->hdfgwtr_pmb = true; c->hcr_nv = c->hcr_nv2 = true; }
static void c_el1_no_el2(armprof_pe_ctx *c) { c->have_el2 = false; c->mdcr2_tpms = true; c->mdcr2_e2pb = 0; }
static void c_el1_no_el3(armprof_pe_ctx *c) { c->have_el3 = false; c->mdcr3_nspb = 0; }
static void c_el1_aarch32(armprof_pe_ctx *c) { c->aarch32 = true; }
static void c_el1_rme_nspbe(armprof_pe_ctx *c) { c->have_rme = true; c->mdcr3_nspbe = true; }
static void c_el1_realm(armprof_pe_ctx *c) { c->have_rme = c->scr_nse = c->mdcr3_nspbe = true; }

static const ctx_row ctx_rows[] = {
    { "NS EL1", c_el1 },
    { "EL0", c_el0 },
    { "EL0 in host (E2H, TGE)", c_el0_host },
    { "EL1 MDCR_EL2.TPMS", c_el1_tpms },
    { "EL1 MDCR_EL2.E2PB 0b00", c_el1_e2pb0 },
    { "EL1 MDCR_EL2.E2PB 0b10", c_el1_e2pb2 },
    { "EL1 MDCR_EL2.E2PB 0b01", c_el1_e2pb1 },
    { "EL1 TPMS, E2PB 0b00, NSPB 0b01", c_el1_tpms_e2pb0_nspb1 },
    { "EL1 MDCR_EL3.NSPB 0b00", c_el1_nspb0 },
    { "EL1 MDCR_EL3.NSPB 0b01", c_el1_nspb1 },
    { "EL1 MDCR_EL3.NSPB 0b10", c_el1_nspb2 },
    { "Secure EL1 NSPB 0b01", c_sel1_nspb1 },
    { "Secure EL1 NSPB 0b11", c_sel1_nspb3 },
    { "Secure EL1 with Secure EL2, E2PB 0b00", c_sel1_eel2_e2pb0 },
    { "EL2", c_el2 },
    { "EL2 E2H", c_el2_e2h },
    { "EL2 E2H TGE", c_el2_e2h_tge },
    { "EL2 NSPB 0b00", c_el2_nspb0 },
    { "EL2 E2H NSPB 0b01", c_el2_e2h_nspb1 },
    { "EL3", c_el3 },
    { "EL3 E2H", c_el3_e2h },
    { "EL1 HCR_EL2.NV", c_el1_nv },
    { "EL1 HCR_EL2.{NV,NV2}", c_el1_nv_nv2 },
    { "EL1 HCR_EL2.{NV,NV1,NV2}", c_el1_nv_nv1_nv2 },
    { "EL1 NV2, E2PB 0b00", c_el1_nv2_e2pb0 },
    { "EL1 HDFGRTR_EL2.PMBSR_EL1", c_el1_fgt_r },
    { "EL1 HDFGWTR_EL2.PMBSR_EL1", c_el1_fgt_w },
    { "EL1 FGT bits, SCR_EL3.FGTEn 0", c_el1_fgt_off },
    { "EL1 FGT bits, no EL3", c_el1_fgt_no_el3 },
    { "EL1 FGT write trap and NV2", c_el1_fgt_nv2 },
    { "EL1 without EL2", c_el1_no_el2 },
    { "EL1 without EL3", c_el1_no_el3 },
    { "EL1 AArch32", c_el1_aarch32 },
    { "EL1 RME, NSPBE 1", c_el1_rme_nspbe },
    { "Realm EL1", c_el1_realm },
};
#define NCTX (sizeof ctx_rows / sizeof ctx_rows[0])

/* Which outcomes the walk saw (not vacuous). */
typedef struct seen {
    int n[ARMPROF_ERR__COUNT][2];
} seen;

static uint8_t *save(const spu_t *spu, size_t *len)
{
    assert_int_equal(spu_save(spu, NULL, 0, len), ARMPROF_ERR_BUFSZ);
    uint8_t *b = malloc(*len);
    assert_non_null(b);
    size_t n;
    assert_int_equal(spu_save(spu, b, *len, &n), ARMPROF_OK);
    assert_int_equal(n, *len);
    return b;
}

/* spu_reg_check() for `enc` from the current context is what the access returns, and has no
 * effect; the access itself is undone afterwards (restore). */
static void check_one(fx *f, const char *ctx, uint32_t enc, seen *s)
{
    size_t len, len2;
    uint8_t *before = save(f->spu, &len);
    armprof_err cr = spu_reg_check(f->spu, enc, false);
    armprof_err cw = spu_reg_check(f->spu, enc, true);
    uint8_t *after = save(f->spu, &len2);
    assert_int_equal(len, len2);
    if (memcmp(before, after, len) != 0)
        fail_msg("%s, 0x%04x: spu_reg_check() changed the unit", ctx, enc);
    free(after);
    uint64_t v = 0, peek = 0;
    armprof_err r = spu_reg_read(f->spu, enc, &v);
    if (r != cr)
        fail_msg("%s, 0x%04x read: spu_reg_check %s, spu_reg_read %s", ctx, enc, armprof_strerror(cr),
                 armprof_strerror(r));
    (void)spu_reg_peek(f->spu, enc, &peek);
    int warnings = f->warnings;
    armprof_err w = spu_reg_write(f->spu, enc, peek);
    f->warnings = warnings;
    if (w != cw)
        fail_msg("%s, 0x%04x write: spu_reg_check %s, spu_reg_write %s", ctx, enc,
                 armprof_strerror(cw), armprof_strerror(w));
    if (w != ARMPROF_OK) { /* an access refused has no effect either */
        after = save(f->spu, &len2);
        assert_memory_equal(before, after, len);
        free(after);
    }
    assert_int_equal(spu_restore(f->spu, before, len), ARMPROF_OK);
    free(before);
    s->n[cr][0]++;
    s->n[cw][1]++;
}

static void walk(const spu_config *cfg, seen *s)
{
    fx *f = fx_new_cfg(cfg);
    assert_non_null(f);
    fx_start(f, FX_MEM_BASE, 64 * 1024, 256, false, 0);
    /* records in flight and in the FIFO: a stray effect would show in the saved state */
    spu_op op = fx_op_other(0x1000);
    op.total_lat = 100;
    spu_skip(f->spu, spu_ops_until_sample(f->spu));
    assert_int_equal(spu_retire(f->spu, &op), SPU_OP_SAMPLED);
    size_t nreg = spu_reg_count(f->spu);
    for (size_t i = 0; i < NCTX; i++) {
        armprof_pe_ctx_default(&f->ctx);
        ctx_rows[i].set(&f->ctx);
        fx_ctx(f);
        for (size_t k = 0; k < nreg; k++) {
            spu_reg_info ri;
            assert_int_equal(spu_reg_info_at(f->spu, k, &ri), ARMPROF_OK);
            check_one(f, ctx_rows[i].name, ri.enc, s);
        }
        check_one(f, ctx_rows[i].name, ARMPROF_SYSREG(3, 0, 9, 10, 2), s); /* no such register */
    }
    fx_free(f);
}

/* The QEMU full-system bridge asks spu_reg_check() in its accessfn before the access. Every
 * register x every context of the table (EL0..EL3, E2H / TGE, MDCR_EL2.{E2PB,TPMS},
 * MDCR_EL3.{NSPB,NSPBE}, HCR_EL2.{NV,NV1,NV2}, FGT with and without SCR_EL3.FGTEn, no EL2 / EL3,
 * AArch32, Realm) x two configurations: the same outcome as the access, and no effect. */
static void test_reg_check_is_the_access_outcome(void **state)
{
    (void)state;
    seen s;
    memset(&s, 0, sizeof s);
    spu_config c;
    spu_config_default(&c);
    walk(&c, &s);
    c.feat_spev1p2 = c.fne = c.feat_spe_nvm = c.feat_ecv = true;
    walk(&c, &s);
    const armprof_err kinds[] = { ARMPROF_OK, ARMPROF_ERR_UNDEFINED, ARMPROF_ERR_TRAP_EL2,
                                  ARMPROF_ERR_TRAP_EL3, ARMPROF_ERR_NV2_MEM, ARMPROF_ERR_NOREG };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (int w = 0; w <= 1; w++)
            if (!s.n[kinds[k]][w])
                fail_msg("no %s %s in the walk", w ? "write" : "read", armprof_strerror(kinds[k]));
    assert_int_equal(spu_reg_check(NULL, SPU_PMSCR_EL1, false), ARMPROF_ERR_INVAL);
}

/* Anchors of the walk above, from the access pseudocode: the outcome of the check for a few
 * (context, register, direction) triples. */
static void test_reg_check_values(void **state)
{
    fx *f = *state;
    const struct { void (*set)(armprof_pe_ctx *); uint32_t enc; bool w; armprof_err want; } rows[] = {
        { c_el1, SPU_PMSICR_EL1, true, ARMPROF_OK },
        { c_el0, SPU_PMBIDR_EL1, false, ARMPROF_ERR_UNDEFINED },
        { c_el1_tpms, SPU_PMSICR_EL1, false, ARMPROF_ERR_TRAP_EL2 },
        { c_el1_tpms, SPU_PMBPTR_EL1, false, ARMPROF_OK },
        { c_el1_e2pb2, SPU_PMBLIMITR_EL1, true, ARMPROF_ERR_TRAP_EL2 },
        { c_el1_e2pb1, SPU_PMBLIMITR_EL1, true, ARMPROF_OK },
        { c_el1_nspb2, SPU_PMSCR_EL1, false, ARMPROF_ERR_TRAP_EL3 },
        { c_el2_e2h, SPU_PMSCR_EL12, true, ARMPROF_OK },
        { c_el2, SPU_PMSCR_EL12, true, ARMPROF_ERR_UNDEFINED },
        { c_el1_nv, SPU_PMSCR_EL2, false, ARMPROF_ERR_TRAP_EL2 },
        { c_el1_nv_nv2, SPU_PMBSR_EL1, true, ARMPROF_ERR_NV2_MEM },
        { c_el1_nv2_e2pb0, SPU_PMBSR_EL1, false, ARMPROF_ERR_TRAP_EL2 },
        { c_el1_fgt_r, SPU_PMBSR_EL1, false, ARMPROF_ERR_TRAP_EL2 },
        { c_el1_fgt_r, SPU_PMBSR_EL1, true, ARMPROF_OK },
        { c_el1_fgt_off, SPU_PMBSR_EL1, false, ARMPROF_OK },
        { c_el1_fgt_nv2, SPU_PMBSR_EL1, true, ARMPROF_ERR_TRAP_EL2 },
        { c_el3, SPU_PMBLIMITR_EL1, true, ARMPROF_OK },
        { c_el1, SPU_PMSNEVFR_EL1, false, ARMPROF_ERR_UNDEFINED }, /* no FEAT_SPEv1p2 */
        { c_el1, ARMPROF_SYSREG(3, 0, 9, 10, 2), false, ARMPROF_ERR_NOREG },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        armprof_pe_ctx_default(&f->ctx);
        rows[i].set(&f->ctx);
        fx_ctx(f);
        armprof_err e = spu_reg_check(f->spu, rows[i].enc, rows[i].w);
        if (e != rows[i].want)
            fail_msg("row %zu: 0x%04x %s: %s, want %s", i, rows[i].enc, rows[i].w ? "write" : "read",
                     armprof_strerror(e), armprof_strerror(rows[i].want));
    }
}

/* An MSR to PMSIDR_EL1 or PMBIDR_EL1 is UNDEFINED (the MSR encoding is unallocated) in every
 * context of the table, also where the MRS form traps, and changes nothing. */
static void test_msr_to_id_register_undefined(void **state)
{
    fx *f = *state;
    const uint32_t ids[] = { SPU_PMSIDR_EL1, SPU_PMBIDR_EL1 };
    for (size_t i = 0; i < NCTX; i++) {
        armprof_pe_ctx_default(&f->ctx);
        ctx_rows[i].set(&f->ctx);
        fx_ctx(f);
        for (size_t k = 0; k < 2; k++) {
            uint64_t before, after;
            assert_int_equal(spu_reg_peek(f->spu, ids[k], &before), ARMPROF_OK);
            armprof_err e = spu_reg_write(f->spu, ids[k], ~0ull);
            if (e != ARMPROF_ERR_UNDEFINED)
                fail_msg("%s: MSR 0x%04x gave %s", ctx_rows[i].name, ids[k], armprof_strerror(e));
            assert_int_equal(spu_reg_peek(f->spu, ids[k], &after), ARMPROF_OK);
            assert_int_equal(before, after);
        }
    }
}

/* spu_reg_info.present: PMSNEVFR_EL1 with FEAT_SPEv1p2, PMBMAR_EL1 with FEAT_SPE_nVM, every
 * other register always; a register not present is UNDEFINED even at EL3. */
static void test_reg_info_present(void **state)
{
    (void)state;
    for (int v1p2 = 0; v1p2 <= 1; v1p2++)
        for (int nvm = 0; nvm <= 1; nvm++) {
            spu_config c;
            spu_config_default(&c);
            c.feat_spev1p2 = v1p2;
            c.feat_spe_nvm = nvm;
            fx *f = fx_new_cfg(&c);
            f->ctx.el = 3;
            fx_ctx(f);
            int listed = 0;
            for (size_t k = 0; k < spu_reg_count(f->spu); k++) {
                spu_reg_info ri;
                assert_int_equal(spu_reg_info_at(f->spu, k, &ri), ARMPROF_OK);
                bool want = ri.enc == SPU_PMSNEVFR_EL1 ? v1p2 : ri.enc == SPU_PMBMAR_EL1 ? nvm : true;
                if (ri.present != want)
                    fail_msg("%s: present %d with FEAT_SPEv1p2 %d FEAT_SPE_nVM %d", ri.name, ri.present,
                             v1p2, nvm);
                if (!ri.present)
                    assert_int_equal(spu_reg_check(f->spu, ri.enc, false), ARMPROF_ERR_UNDEFINED);
                listed++;
            }
            assert_int_equal(listed, 15);
            fx_free(f);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reg_check_is_the_access_outcome),
        cmocka_unit_test_setup_teardown(test_reg_check_values, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_msr_to_id_register_undefined, fx_setup, fx_teardown),
        cmocka_unit_test(test_reg_info_present),
    };
    return cmocka_run_group_tests_name("spu_access", tests, NULL, NULL);
}
