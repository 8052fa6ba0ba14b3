/* SPDX-License-Identifier: Apache-2.0 */
/* test_spu_regs.c: the SPE register table walked: reset values, RES0 and read-only bits, access checks. */
#include "spu_fixture.h"

/* Reset values: PMBLIMITR_EL1.E resets to 0 (Table 8); armprof resets the other fields to 0;
 * ID registers read their configured values. */
static void test_reset_values(void **state)
{
    fx *f = *state;
    size_t n = spu_reg_count(f->spu);
    assert_int_equal(n, 15);
    for (size_t i = 0; i < n; i++) {
        spu_reg_info ri;
        assert_int_equal(spu_reg_info_at(f->spu, i, &ri), ARMPROF_OK);
        uint64_t v;
        assert_int_equal(spu_reg_peek(f->spu, ri.enc, &v), ARMPROF_OK);
        assert_int_equal(v, ri.reset);
        if (!ri.read_only)
            assert_int_equal(v, 0);
    }
    assert_int_equal(fx_rd(f, SPU_PMBLIMITR_EL1) & 1, 0);
    /* Default config: MaxSize 6, CountSize 2, Interval 0, LDS, ArchInst, FL, FT, FE. */
    assert_int_equal(fx_rd(f, SPU_PMSIDR_EL1), (2u << 16) | (6u << 12) | (1u << 4) | (1u << 3) | 7u);
    /* PMBIDR_EL1: Align 0, F=1, P=0 at Non-secure EL1 owning the buffer, EA=0. */
    assert_int_equal(fx_rd(f, SPU_PMBIDR_EL1), 1u << 5);
    /* Warm reset puts E back to 0. */
    fx_wr(f, SPU_PMBLIMITR_EL1, 0x40001001);
    spu_reset(f->spu);
    assert_int_equal(fx_rd(f, SPU_PMBLIMITR_EL1), 0);
}

/* Writing all ones: RES0 bits read as 0, every other bit of a read/write register sticks. */
static void test_res0_walk(void **state)
{
    fx *f = *state;
    f->ctx.el = 2; /* EL2 may access every register (PMSCR_EL2 too) */
    f->ctx.hcr_e2h = true; /* and PMSCR_EL12 */
    fx_ctx(f);
    size_t n = spu_reg_count(f->spu);
    for (size_t i = 0; i < n; i++) {
        spu_reg_info ri;
        spu_reg_info_at(f->spu, i, &ri);
        if (ri.read_only) {
            uint64_t before;
            spu_reg_peek(f->spu, ri.enc, &before);
            /* An MSR to an ID register is UNDEFINED: it has no MSR form. */
            assert_int_equal(spu_reg_write(f->spu, ri.enc, ~0ull), ARMPROF_ERR_UNDEFINED);
            uint64_t after;
            spu_reg_peek(f->spu, ri.enc, &after);
            assert_int_equal(before, after);
            assert_int_equal(after & ri.res0, 0);
            continue;
        }
        if (ri.enc == SPU_PMBSR_EL1 || ri.enc == SPU_PMSNEVFR_EL1 || ri.enc == SPU_PMBMAR_EL1)
            continue; /* PMBSR: EC has reserved values (below); others are feature-gated */
        uint32_t enc = ri.enc == SPU_PMSCR_EL1 ? SPU_PMSCR_EL12 : ri.enc; /* E2H redirects EL1 name */
        assert_int_equal(spu_reg_write(f->spu, enc, ~0ull), ARMPROF_OK);
        uint64_t v;
        assert_int_equal(spu_reg_peek(f->spu, ri.enc, &v), ARMPROF_OK);
        /* PMBLIMITR_EL1.FM = 0b11 is reserved: a direct read returns it (§4.3.2). */
        assert_int_equal(v, ~ri.res0);
        assert_int_equal(spu_reg_write(f->spu, enc, 0), ARMPROF_OK);
    }
    /* Specific RES0 layouts of REGISTERS.md with the default configuration. */
    spu_reg_info ri;
    for (size_t i = 0; i < n; i++) {
        spu_reg_info_at(f->spu, i, &ri);
        if (ri.enc == SPU_PMSICR_EL1)
            assert_int_equal(ri.res0, 0xFFFFFFFF00000000ull); /* ERnd=0: ECOUNT RES0 */
        if (ri.enc == SPU_PMSIRR_EL1)
            assert_int_equal(ri.res0, 0xFFFFFFFF000000FEull);
        if (ri.enc == SPU_PMSFCR_EL1)
            assert_int_equal(ri.res0, ~0x70007ull); /* ST LD B, FL FT FE (no FnE) */
        if (ri.enc == SPU_PMSLATFR_EL1)
            assert_int_equal(ri.res0, ~0xFFFull); /* 12-bit counters */
        if (ri.enc == SPU_PMBLIMITR_EL1)
            assert_int_equal(ri.res0, 0xFF8ull); /* no PMFZ, no nVM */
        if (ri.enc == SPU_PMBSR_EL1)
            assert_int_equal(ri.res0, 0xFFFFFFFF03F0FFC0ull);
        if (ri.enc == SPU_PMSCR_EL1)
            assert_int_equal(ri.res0, ~0x7Bull); /* PCT[6] TS PA CX E1SPE E0SPE */
    }
}

/* Configuration-dependent fields appear with their features. */
static void test_feature_fields(void **state)
{
    (void)state;
    spu_config c;
    spu_config_default(&c);
    c.ernd = true;
    c.count_size = 3;
    c.feat_spev1p2 = true;
    c.fne = true;
    c.feat_spe_nvm = true;
    c.feat_ecv = true;
    fx *f = fx_new_cfg(&c);
    assert_non_null(f);
    fx_wr(f, SPU_PMSICR_EL1, ~0ull);
    assert_int_equal(fx_rd(f, SPU_PMSICR_EL1), 0xFF000000FFFFFFFFull);
    fx_wr(f, SPU_PMSLATFR_EL1, ~0ull);
    assert_int_equal(fx_rd(f, SPU_PMSLATFR_EL1), 0xFFFF);
    fx_wr(f, SPU_PMSFCR_EL1, ~0ull);
    assert_int_equal(fx_rd(f, SPU_PMSFCR_EL1), 0x7000Full);
    fx_wr(f, SPU_PMBLIMITR_EL1, 0x1000ull | (1u << 5) | (1u << 3) | (2u << 1));
    assert_int_equal(fx_rd(f, SPU_PMBLIMITR_EL1), 0x1000ull | (1u << 5) | (1u << 3) | (2u << 1));
    fx_wr(f, SPU_PMSNEVFR_EL1, ~0ull);
    assert_int_equal(fx_rd(f, SPU_PMSNEVFR_EL1), 0xFFFF0000FF00F0AAull);
    fx_wr(f, SPU_PMBMAR_EL1, ~0ull);
    assert_int_equal(fx_rd(f, SPU_PMBMAR_EL1), 0x3FF);
    fx_wr(f, SPU_PMSCR_EL1, 0xC0);
    assert_int_equal(fx_rd(f, SPU_PMSCR_EL1), 0xC0); /* PCT is two bits with FEAT_ECV */
    assert_int_equal(fx_rd(f, SPU_PMSIDR_EL1) & ((1u << 6) | (1u << 5) | (0xFu << 16)),
                     (1u << 6) | (1u << 5) | (3u << 16));
    fx_free(f);

    /* Without the features those registers do not exist: UNDEFINED. */
    fx *g = fx_new_cfg(NULL);
    assert_int_equal(spu_reg_write(g->spu, SPU_PMSNEVFR_EL1, 1), ARMPROF_ERR_UNDEFINED);
    assert_int_equal(spu_reg_write(g->spu, SPU_PMBMAR_EL1, 1), ARMPROF_ERR_UNDEFINED);
    fx_free(g);
}

/* §3.3: without EL2, PMSCR_EL1.PCT is RES1: it reads as 1 from reset on, and a write of 0 keeps it. */
static void test_pct_res1_without_el2(void **state)
{
    fx *f = *state;
    f->ctx.have_el2 = false;
    fx_ctx(f);
    spu_reset(f->spu);
    assert_int_equal(fx_rd(f, SPU_PMSCR_EL1), 0x40);
    fx_wr(f, SPU_PMSCR_EL1, 0);
    assert_int_equal(fx_rd(f, SPU_PMSCR_EL1), 0x40);
    assert_int_equal(spu_reg_write(f->spu, SPU_PMSCR_EL2, 0), ARMPROF_ERR_UNDEFINED);
}

typedef struct access_row {
    uint8_t el;
    bool ns;
    bool tpms;
    uint8_t e2pb, nspb;
    armprof_err pms, pmb;
} access_row;

/* CheckStatisticalProfilingAccess() and CheckProfilingBufferAccess() over EL, Security state,
 * MDCR_EL2.{TPMS,E2PB} and MDCR_EL3.NSPB. */
static void test_access_checks(void **state)
{
    fx *f = *state;
    const access_row rows[] = {
        { 0, true, false, 3, 3, ARMPROF_ERR_UNDEFINED, ARMPROF_ERR_UNDEFINED },
        { 0, false, false, 3, 1, ARMPROF_ERR_UNDEFINED, ARMPROF_ERR_UNDEFINED },
        { 1, true, false, 3, 3, ARMPROF_OK, ARMPROF_OK },
        { 1, true, true, 3, 3, ARMPROF_ERR_TRAP_EL2, ARMPROF_OK },
        { 1, true, false, 2, 3, ARMPROF_OK, ARMPROF_ERR_TRAP_EL2 },   /* E2PB<0> == 0 */
        { 1, true, false, 0, 3, ARMPROF_OK, ARMPROF_ERR_TRAP_EL2 },
        { 1, true, true, 0, 1, ARMPROF_ERR_TRAP_EL2, ARMPROF_ERR_TRAP_EL2 }, /* EL2 before EL3 */
        { 1, true, false, 3, 1, ARMPROF_ERR_TRAP_EL3, ARMPROF_ERR_TRAP_EL3 }, /* NSPB != NS:1 */
        { 1, true, false, 3, 2, ARMPROF_ERR_TRAP_EL3, ARMPROF_ERR_TRAP_EL3 },
        { 1, true, false, 3, 0, ARMPROF_ERR_TRAP_EL3, ARMPROF_ERR_TRAP_EL3 },
        { 1, false, false, 3, 1, ARMPROF_OK, ARMPROF_OK },            /* Secure EL1, NSPB 0b01 */
        { 1, false, true, 0, 1, ARMPROF_OK, ARMPROF_OK },             /* no EL2 traps in Secure */
        { 1, false, false, 3, 3, ARMPROF_ERR_TRAP_EL3, ARMPROF_ERR_TRAP_EL3 },
        { 1, false, false, 3, 0, ARMPROF_ERR_TRAP_EL3, ARMPROF_ERR_TRAP_EL3 },
        { 2, true, true, 0, 3, ARMPROF_OK, ARMPROF_OK },              /* EL2: no EL2 traps */
        { 2, true, false, 3, 1, ARMPROF_ERR_TRAP_EL3, ARMPROF_ERR_TRAP_EL3 },
        { 3, true, true, 0, 0, ARMPROF_OK, ARMPROF_OK },              /* EL3: never traps */
        { 3, false, true, 0, 2, ARMPROF_OK, ARMPROF_OK },
    };
    const uint32_t pms[] = { SPU_PMSICR_EL1, SPU_PMSIRR_EL1, SPU_PMSFCR_EL1, SPU_PMSEVFR_EL1,
                             SPU_PMSLATFR_EL1, SPU_PMSIDR_EL1, SPU_PMSCR_EL1 };
    const uint32_t pmb[] = { SPU_PMBLIMITR_EL1, SPU_PMBPTR_EL1, SPU_PMBSR_EL1 };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        const access_row *r = &rows[i];
        armprof_pe_ctx_default(&f->ctx);
        f->ctx.el = r->el;
        f->ctx.scr_ns = r->ns;
        f->ctx.mdcr2_tpms = r->tpms;
        f->ctx.mdcr2_e2pb = r->e2pb;
        f->ctx.mdcr3_nspb = r->nspb;
        fx_ctx(f);
        uint64_t v;
        for (size_t j = 0; j < sizeof(pms) / sizeof(pms[0]); j++) {
            if (pms[j] == SPU_PMSCR_EL1 && r->el == 2)
                continue; /* at EL2 the name may redirect; covered below */
            assert_int_equal(spu_reg_read(f->spu, pms[j], &v), r->pms);
        }
        for (size_t j = 0; j < sizeof(pmb) / sizeof(pmb[0]); j++)
            assert_int_equal(spu_reg_read(f->spu, pmb[j], &v), r->pmb);
        /* PMBIDR_EL1 has no traps (§4.3.1): only UNDEFINED at EL0. */
        assert_int_equal(spu_reg_read(f->spu, SPU_PMBIDR_EL1, &v),
                         r->el == 0 ? ARMPROF_ERR_UNDEFINED : ARMPROF_OK);
    }
}

/* A trapped or UNDEFINED write has no effect. */
static void test_trapped_write_no_effect(void **state)
{
    fx *f = *state;
    f->ctx.mdcr2_tpms = true;
    fx_ctx(f);
    assert_int_equal(spu_reg_write(f->spu, SPU_PMSIRR_EL1, 0x100), ARMPROF_ERR_TRAP_EL2);
    assert_int_equal(fx_rd(f, SPU_PMSIRR_EL1), 0);
    f->ctx.el = 0;
    fx_ctx(f);
    assert_int_equal(spu_reg_write(f->spu, SPU_PMBPTR_EL1, 0x100), ARMPROF_ERR_UNDEFINED);
    assert_int_equal(fx_rd(f, SPU_PMBPTR_EL1), 0);
}

/* PMSCR_EL2, PMSCR_EL12 and the E2H redirection of PMSCR_EL1 at EL2. */
static void test_pmscr_names(void **state)
{
    fx *f = *state;
    uint64_t v;
    /* EL1: PMSCR_EL2 and PMSCR_EL12 UNDEFINED; with HCR_EL2.NV they trap to EL2. */
    assert_int_equal(spu_reg_read(f->spu, SPU_PMSCR_EL2, &v), ARMPROF_ERR_UNDEFINED);
    assert_int_equal(spu_reg_read(f->spu, SPU_PMSCR_EL12, &v), ARMPROF_ERR_UNDEFINED);
    f->ctx.hcr_nv = true;
    fx_ctx(f);
    assert_int_equal(spu_reg_read(f->spu, SPU_PMSCR_EL2, &v), ARMPROF_ERR_TRAP_EL2);
    assert_int_equal(spu_reg_read(f->spu, SPU_PMSCR_EL12, &v), ARMPROF_ERR_TRAP_EL2);
    /* EL2, E2H=0: PMSCR_EL1 is PMSCR_EL1, PMSCR_EL12 UNDEFINED. */
    f->ctx.hcr_nv = false;
    f->ctx.el = 2;
    fx_ctx(f);
    assert_int_equal(spu_reg_write(f->spu, SPU_PMSCR_EL1, 0x8), ARMPROF_OK);
    assert_int_equal(spu_reg_write(f->spu, SPU_PMSCR_EL2, 0x10), ARMPROF_OK);
    assert_int_equal(spu_reg_read(f->spu, SPU_PMSCR_EL12, &v), ARMPROF_ERR_UNDEFINED);
    assert_int_equal(fx_rd(f, SPU_PMSCR_EL1), 0x8);
    /* EL2, E2H=1: PMSCR_EL1 accesses PMSCR_EL2; PMSCR_EL12 accesses PMSCR_EL1. */
    f->ctx.hcr_e2h = true;
    fx_ctx(f);
    assert_int_equal(spu_reg_read(f->spu, SPU_PMSCR_EL1, &v), ARMPROF_OK);
    assert_int_equal(v, 0x10);
    assert_int_equal(spu_reg_read(f->spu, SPU_PMSCR_EL12, &v), ARMPROF_OK);
    assert_int_equal(v, 0x8);
    assert_int_equal(spu_reg_write(f->spu, SPU_PMSCR_EL12, 0x20), ARMPROF_OK);
    assert_int_equal(fx_rd(f, SPU_PMSCR_EL1), 0x20);
    assert_int_equal(fx_rd(f, SPU_PMSCR_EL2), 0x10);
}

/* Seed 002: PMBSR_EL1 fine-grained traps (HDFGRTR/HDFGWTR_EL2, with SCR_EL3.FGTEn) come before
 * the E2PB trap, and FEAT_NV2 redirects EL1 accesses to memory. */
static void test_pmbsr_fgt_nv2(void **state)
{
    fx *f = *state;
    uint64_t v;
    f->ctx.hdfgrtr_pmb = true;
    f->ctx.scr_fgten = false;
    fx_ctx(f);
    assert_int_equal(spu_reg_read(f->spu, SPU_PMBSR_EL1, &v), ARMPROF_OK); /* FGTEn=0: no trap */
    f->ctx.scr_fgten = true;
    fx_ctx(f);
    assert_int_equal(spu_reg_read(f->spu, SPU_PMBSR_EL1, &v), ARMPROF_ERR_TRAP_EL2);
    assert_int_equal(spu_reg_write(f->spu, SPU_PMBSR_EL1, 0), ARMPROF_OK); /* write trap bit clear */
    f->ctx.hdfgwtr_pmb = true;
    fx_ctx(f);
    assert_int_equal(spu_reg_write(f->spu, SPU_PMBSR_EL1, 0), ARMPROF_ERR_TRAP_EL2);
    f->ctx.hdfgrtr_pmb = f->ctx.hdfgwtr_pmb = false;
    f->ctx.hcr_nv = f->ctx.hcr_nv2 = true; /* <NV2,NV1,NV> == '1x1' */
    fx_ctx(f);
    assert_int_equal(spu_reg_write(f->spu, SPU_PMBSR_EL1, 1u << 17), ARMPROF_ERR_NV2_MEM);
    assert_int_equal(fx_rd(f, SPU_PMBSR_EL1), 0);
    f->ctx.hcr_nv1 = true;
    fx_ctx(f);
    assert_int_equal(spu_reg_read(f->spu, SPU_PMBSR_EL1, &v), ARMPROF_ERR_NV2_MEM);
    f->ctx.el = 2;
    fx_ctx(f);
    assert_int_equal(spu_reg_read(f->spu, SPU_PMBSR_EL1, &v), ARMPROF_OK);
}

/* PMBIDR_EL1.P for every case §4.3.1 lists. */
static void test_pmbidr_p(void **state)
{
    fx *f = *state;
    struct { uint8_t el; bool ns; uint8_t nspb, e2pb; bool p; } rows[] = {
        { 1, false, 2, 3, true },   /* NSPB 0b1x: reads one from Secure EL1 */
        { 1, false, 3, 3, true },
        { 1, true, 3, 0, true },    /* E2PB 0b00: reads one from Non-secure EL1 */
        { 2, true, 0, 3, true },    /* NSPB 0b0x: reads one from EL2 and Non-secure EL1 */
        { 1, true, 1, 3, true },
        { 1, true, 3, 3, false },   /* otherwise zero */
        { 2, true, 3, 0, false },
        { 2, true, 3, 3, false },
        { 1, false, 1, 3, false },
        { 3, true, 0, 0, false },
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        armprof_pe_ctx_default(&f->ctx);
        f->ctx.el = rows[i].el;
        f->ctx.scr_ns = rows[i].ns;
        f->ctx.mdcr3_nspb = rows[i].nspb;
        f->ctx.mdcr2_e2pb = rows[i].e2pb;
        fx_ctx(f);
        uint64_t v;
        assert_int_equal(spu_reg_read(f->spu, SPU_PMBIDR_EL1, &v), ARMPROF_OK);
        assert_int_equal((v >> 4) & 1, rows[i].p);
    }
}

/* PMBSR_EL1.EC: a reserved value written leaves EC unchanged (UNKNOWN: armprof's choice). */
static void test_pmbsr_reserved_ec(void **state)
{
    fx *f = *state;
    fx_wr(f, SPU_PMBSR_EL1, 0x24ull << 26);
    fx_wr(f, SPU_PMBSR_EL1, 0x15ull << 26);
    assert_int_equal(fx_rd(f, SPU_PMBSR_EL1) >> 26, 0x24);
    assert_true(f->warnings > 0);
}

/* A direct write of PMBSR_EL1.S drives PMBIRQ both ways. */
static void test_pmbirq_follows_s(void **state)
{
    fx *f = *state;
    assert_false(spu_irq_level(f->spu));
    fx_wr(f, SPU_PMBSR_EL1, 1u << 17);
    assert_true(spu_irq_level(f->spu));
    assert_true(f->irq);
    fx_wr(f, SPU_PMBSR_EL1, 0);
    assert_false(spu_irq_level(f->spu));
    assert_false(f->irq);
    assert_int_equal(f->irq_edges, 2);
}

/* Configuration validation: each refusal has its named error. */
static void test_config_validation(void **state)
{
    (void)state;
    spu_config c;
    char why[160];
    spu_config_default(&c);
    assert_int_equal(spu_config_validate(&c, why, sizeof(why)), ARMPROF_OK);
    c.max_size = 3;
    assert_int_equal(spu_config_validate(&c, why, sizeof(why)), ARMPROF_ERR_CFG_RESERVED);
    assert_non_null(strstr(why, "MaxSize"));
    spu_config_default(&c);
    c.max_size = 12;
    assert_int_equal(spu_config_validate(&c, NULL, 0), ARMPROF_ERR_CFG_RESERVED);
    spu_config_default(&c);
    c.count_size = 1;
    assert_int_equal(spu_config_validate(&c, NULL, 0), ARMPROF_ERR_CFG_RESERVED);
    spu_config_default(&c);
    c.interval = 1;
    assert_int_equal(spu_config_validate(&c, NULL, 0), ARMPROF_ERR_CFG_RESERVED);
    spu_config_default(&c);
    c.align = 7; /* > MaxSize 6 */
    assert_int_equal(spu_config_validate(&c, why, sizeof(why)), ARMPROF_ERR_CFG_ALIGN);
    assert_non_null(strstr(why, "Align"));
    spu_config_default(&c);
    c.fifo_bytes = 0;
    assert_int_equal(spu_config_validate(&c, why, sizeof(why)), ARMPROF_ERR_CFG_FIFO);
    spu_config_default(&c);
    c.fifo_bytes = 32; /* smaller than a 64-byte record */
    assert_int_equal(spu_config_validate(&c, NULL, 0), ARMPROF_ERR_CFG_FIFO);
    spu_config_default(&c);
    c.drain_bytes_per_cycle = 0;
    assert_int_equal(spu_config_validate(&c, NULL, 0), ARMPROF_ERR_CFG_FIFO);
    spu_config_default(&c);
    c.max_inflight = 0;
    assert_int_equal(spu_config_validate(&c, NULL, 0), ARMPROF_ERR_CFG_RANGE);
    spu_config_default(&c);
    c.fne = true; /* without FEAT_SPEv1p2 */
    assert_int_equal(spu_config_validate(&c, NULL, 0), ARMPROF_ERR_CFG_FEATURE);
    spu_config_default(&c);
    c.ea = (spu_ea_policy)3;
    assert_int_equal(spu_config_validate(&c, NULL, 0), ARMPROF_ERR_CFG_RESERVED);
    spu_config_default(&c);
    c.align = 12;
    spu_t *s = (spu_t *)0x1;
    assert_int_equal(spu_open(&c, NULL, &s), ARMPROF_ERR_CFG_RESERVED);
    assert_null(s);
    assert_int_equal(spu_open(NULL, NULL, &s), ARMPROF_ERR_INVAL);
}

/* Unknown encodings are refused. */
static void test_noreg(void **state)
{
    fx *f = *state;
    uint64_t v;
    assert_int_equal(spu_reg_read(f->spu, ARMPROF_SYSREG(3, 0, 9, 10, 2), &v), ARMPROF_ERR_NOREG);
    assert_int_equal(spu_reg_write(f->spu, ARMPROF_SYSREG(3, 0, 9, 11, 0), 0), ARMPROF_ERR_NOREG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_reset_values, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_res0_walk, fx_setup, fx_teardown),
        cmocka_unit_test(test_feature_fields),
        cmocka_unit_test_setup_teardown(test_pct_res1_without_el2, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_access_checks, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_trapped_write_no_effect, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_pmscr_names, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_pmbsr_fgt_nv2, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_pmbidr_p, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_pmbsr_reserved_ec, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_pmbirq_follows_s, fx_setup, fx_teardown),
        cmocka_unit_test(test_config_validation),
        cmocka_unit_test_setup_teardown(test_noreg, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests_name("spu_regs", tests, NULL, NULL);
}
