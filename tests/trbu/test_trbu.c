/* SPDX-License-Identifier: Apache-2.0 */
/* test_trbu.c: TRBU registers, buffer modes, internal buffer, triggers, faults, External aborts, TSB CSYNC. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "armprof/trbu.h"
#include "armprof/bits.h"
#include "trbu_env.h"


/* ----- Registers ------------------------------------------------------------------------------ */

static void walk_table(const trbu_config *cfg)
{
    env *e = env_new(cfg);
    trbu_t *t = e->t;
    size_t n = trbu_reg_count(t);
    assert_int_equal(n, 10);
    for (size_t i = 0; i < n; i++) {
        trbu_reg_info ri;
        assert_int_equal(trbu_reg_info_at(t, i, &ri), ARMPROF_OK);
        if (ri.alias)
            continue;                                   /* TRBSR_EL12: test_trbu_rules */
        /* reset value after open (cold reset) */
        assert_int_equal(rd(t, ri.enc), ri.reset);
        if (!ri.present) {
            armprof_pe_ctx c = *trbu_get_pe_context(t);
            c.el = 3;
            trbu_set_pe_context(t, &c);
            uint64_t v;
            assert_int_equal(trbu_reg_read(t, ri.enc, &v), ARMPROF_ERR_UNDEFINED);
            continue;
        }
        armprof_pe_ctx c = *trbu_get_pe_context(t);
        c.el = 3;
        trbu_set_pe_context(t, &c);
        if (ri.read_only) {
            /* no MSR form: UNDEFINED */
            assert_int_equal(trbu_reg_write(t, ri.enc, ~0ull), ARMPROF_ERR_UNDEFINED);
            continue;
        }
        /* every RES0 bit reads 0 after writing ones; every other bit holds a one */
        assert_int_equal(trbu_reg_write(t, ri.enc, ~0ull), ARMPROF_OK);
        assert_int_equal(rd(t, ri.enc), ~ri.res0);
        assert_int_equal(trbu_reg_write(t, ri.enc, 0), ARMPROF_OK);
        assert_int_equal(rd(t, ri.enc), 0);
    }
    env_free(e);
}

static void test_regtable_walk(void **s)
{
    (void)s;
    trbu_config c;
    trbu_config_default(&c);
    walk_table(&c);
    c.feat_trbe_exc = true;
    c.feat_trbe_ext = true;
    c.feat_mss2 = true;
    walk_table(&c);
    /* the RES0 masks follow the features */
    env *e = env_new(&c);
    trbu_reg_info ri;
    trbu_reg_info_at(e->t, 0, &ri);
    assert_string_equal(ri.name, "TRBLIMITR_EL1");
    assert_int_equal(ri.res0, AP_GENMASK(11, 7));
    env_free(e);
    trbu_config_default(&c);
    e = env_new(&c);
    trbu_reg_info_at(e->t, 0, &ri);
    assert_int_equal(ri.res0, AP_GENMASK(11, 6));
    trbu_reg_info_at(e->t, 3, &ri);
    assert_string_equal(ri.name, "TRBSR_EL1");
    assert_int_equal(ri.res0, AP_GENMASK(63, 32) | AP_GENMASK(25, 24) | AP_BIT(19) | AP_BIT(16));
    env_free(e);
}

static void test_trbidr_from_config(void **s)
{
    (void)s;
    static const struct { trbu_ea_policy ea; uint64_t field; } rows[] = {
        { TRBU_EA_REPORT, 0x0 }, { TRBU_EA_IGNORE, 0x1 }, { TRBU_EA_SERROR, 0x2 },
    };
    for (unsigned i = 0; i < 3; i++)
        for (uint8_t align = 0; align <= 11; align += 11) {
            trbu_config c;
            trbu_config_default(&c);
            c.ea_write = rows[i].ea;
            c.align = align;
            c.flag_update = i == 1;
            env *e = env_new(&c);
            uint64_t v;
            assert_int_equal(trbu_reg_read(e->t, TRBU_TRBIDR_EL1, &v), ARMPROF_OK);
            assert_int_equal(ap_field_get(TRBIDR_EL1_EA, v), rows[i].field);
            assert_int_equal(ap_field_get(TRBIDR_EL1_Align, v), align);
            assert_int_equal(ap_field_get(TRBIDR_EL1_F, v), i == 1);
            assert_int_equal(ap_field_get(TRBIDR_EL1_P, v), 0);
            /* EL2 owns the buffer (MDCR_EL2.E2TB = 0b00): P reads 1 at EL1, 0 at EL2 */
            armprof_pe_ctx c2 = *trbu_get_pe_context(e->t);
            c2.mdcr2_e2tb = 0;
            trbu_set_pe_context(e->t, &c2);
            assert_int_equal(trbu_reg_read(e->t, TRBU_TRBIDR_EL1, &v), ARMPROF_OK);
            assert_int_equal(ap_field_get(TRBIDR_EL1_P, v), 1);
            c2.el = 2;
            trbu_set_pe_context(e->t, &c2);
            assert_int_equal(trbu_reg_read(e->t, TRBU_TRBIDR_EL1, &v), ARMPROF_OK);
            assert_int_equal(ap_field_get(TRBIDR_EL1_P, v), 0);
            env_free(e);
        }
}

static void test_access_checks(void **s)
{
    (void)s;
    trbu_config cfg;
    trbu_config_default(&cfg);
    cfg.feat_trbe_exc = true;
    env *e = env_new(&cfg);
    trbu_t *t = e->t;
    armprof_pe_ctx c;
    armprof_pe_ctx_default(&c);
    uint64_t v;
    static const uint32_t el1regs[] = { TRBU_TRBLIMITR_EL1, TRBU_TRBPTR_EL1, TRBU_TRBBASER_EL1,
                                        TRBU_TRBSR_EL1, TRBU_TRBMAR_EL1, TRBU_TRBTRG_EL1 };
    for (unsigned i = 0; i < 6; i++) {
        uint32_t r = el1regs[i];
        c.el = 0; trbu_set_pe_context(t, &c);
        assert_int_equal(trbu_reg_read(t, r, &v), ARMPROF_ERR_UNDEFINED);
        assert_int_equal(trbu_reg_write(t, r, 0), ARMPROF_ERR_UNDEFINED);
        c.el = 1; trbu_set_pe_context(t, &c);
        assert_int_equal(trbu_reg_read(t, r, &v), ARMPROF_OK);
        /* MDCR_EL2.E2TB 0bx0 traps EL1 accesses to EL2 */
        c.mdcr2_e2tb = 0x0; trbu_set_pe_context(t, &c);
        assert_int_equal(trbu_reg_write(t, r, 0), ARMPROF_ERR_TRAP_EL2);
        c.mdcr2_e2tb = 0x2; trbu_set_pe_context(t, &c);
        assert_int_equal(trbu_reg_read(t, r, &v), ARMPROF_ERR_TRAP_EL2);
        c.mdcr2_e2tb = 0x3;
        /* MDCR_EL3.NSTB[0] == 0, or not the owning Security state: trap to EL3 */
        c.mdcr3_nstb = 0x2; trbu_set_pe_context(t, &c);
        assert_int_equal(trbu_reg_read(t, r, &v), ARMPROF_ERR_TRAP_EL3);
        c.mdcr3_nstb = 0x1; trbu_set_pe_context(t, &c);
        assert_int_equal(trbu_reg_read(t, r, &v), ARMPROF_ERR_TRAP_EL3);
        c.el = 2; trbu_set_pe_context(t, &c);
        assert_int_equal(trbu_reg_read(t, r, &v), ARMPROF_ERR_TRAP_EL3);
        c.el = 3; trbu_set_pe_context(t, &c);
        assert_int_equal(trbu_reg_read(t, r, &v), ARMPROF_OK);
        c.mdcr3_nstb = 0x3; c.el = 2; trbu_set_pe_context(t, &c);
        assert_int_equal(trbu_reg_read(t, r, &v), ARMPROF_OK);
    }
    /* TRBSR_EL2: EL2 and EL3 only; TRBSR_EL3: EL3 only */
    armprof_pe_ctx_default(&c);
    trbu_set_pe_context(t, &c);
    assert_int_equal(trbu_reg_read(t, TRBU_TRBSR_EL2, &v), ARMPROF_ERR_UNDEFINED);
    assert_int_equal(trbu_reg_read(t, TRBU_TRBSR_EL3, &v), ARMPROF_ERR_UNDEFINED);
    c.el = 2; trbu_set_pe_context(t, &c);
    assert_int_equal(trbu_reg_read(t, TRBU_TRBSR_EL2, &v), ARMPROF_OK);
    assert_int_equal(trbu_reg_read(t, TRBU_TRBSR_EL3, &v), ARMPROF_ERR_UNDEFINED);
    c.el = 3; trbu_set_pe_context(t, &c);
    assert_int_equal(trbu_reg_read(t, TRBU_TRBSR_EL3, &v), ARMPROF_OK);
    /* TRBIDR_EL1: UNDEFINED at EL0, readable at EL1 even when EL1 accesses trap */
    c.el = 0; trbu_set_pe_context(t, &c);
    assert_int_equal(trbu_reg_read(t, TRBU_TRBIDR_EL1, &v), ARMPROF_ERR_UNDEFINED);
    c.el = 1; c.mdcr2_e2tb = 0; trbu_set_pe_context(t, &c);
    assert_int_equal(trbu_reg_read(t, TRBU_TRBIDR_EL1, &v), ARMPROF_OK);
    assert_int_equal(trbu_reg_write(t, TRBU_TRBIDR_EL1, 0), ARMPROF_ERR_UNDEFINED);
    assert_int_equal(trbu_reg_read(t, ARMPROF_SYSREG(3, 0, 9, 11, 5), &v), ARMPROF_ERR_NOREG);
    env_free(e);
    /* without FEAT_TRBE_EXC, TRBSR_EL2/EL3 are UNDEFINED even at EL3 */
    e = env_new(NULL);
    armprof_pe_ctx_default(&c);
    c.el = 3;
    trbu_set_pe_context(e->t, &c);
    assert_int_equal(trbu_reg_read(e->t, TRBU_TRBSR_EL2, &v), ARMPROF_ERR_UNDEFINED);
    assert_int_equal(trbu_reg_write(e->t, TRBU_TRBSR_EL3, 0), ARMPROF_ERR_UNDEFINED);
    env_free(e);
}

/* trbu_reg_check() is what trbu_reg_read() / trbu_reg_write() return, with no effect: every
 * register x contexts over EL0..EL3, MDCR_EL2.E2TB, MDCR_EL3.NSTB, every fine-grained trap bit
 * with and without SCR_EL3.FGTEn, HCR_EL2.{E2H,NV,NV1,NV2} and TRFCR_ELx.EE (the TRBSR_EL1 /
 * TRBSR_EL2 name and NV2 redirection), with and without FEAT_TRBE_EXC. */
static void test_reg_check_is_the_access_outcome(void **s)
{
    (void)s;
    int seen[ARMPROF_ERR__COUNT][2];
    memset(seen, 0, sizeof seen);
    for (int exc = 0; exc <= 1; exc++) {
        trbu_config cfg;
        trbu_config_default(&cfg);
        cfg.feat_trbe_exc = exc;
        env *e = env_new(&cfg);
        trbu_t *t = e->t;
        for (int k = 0; k < 20 * 16; k++) {
            armprof_pe_ctx c;
            armprof_pe_ctx_default(&c);
            int v = k / 16, el = k % 4, x = (k / 4) % 4;
            c.el = (uint8_t)el;
            switch (v) {
            case 0: break;
            case 1: c.mdcr2_e2tb = (uint8_t)x; break;
            case 2: c.mdcr3_nstb = (uint8_t)x; break;
            case 3: c.scr_ns = false; c.mdcr3_nstb = (uint8_t)x; break;
            case 4: c.scr_fgten = true; c.hdfgrtr_trb = (uint8_t)(1u << (x + (el & 1) * 3)); break;
            case 5: c.scr_fgten = true; c.hdfgwtr_trb = (uint8_t)(1u << (x + (el & 1) * 3)); break;
            case 6: c.scr_fgten = false; c.hdfgrtr_trb = c.hdfgwtr_trb = 0x7F; break;
            case 7: c.have_el3 = false; c.hdfgrtr_trb = c.hdfgwtr_trb = (uint8_t)(0x11u << x); break;
            case 8: c.hcr_e2h = true; c.trfcr_el2_ee = (uint8_t)x; break;
            case 9: c.hcr_e2h = c.hcr_tge = true; c.trfcr_el2_ee = (uint8_t)x; break;
            case 10: c.hcr_nv = true; c.hcr_nv1 = x & 1; c.hcr_nv2 = (x >> 1) & 1; break;
            case 11: c.hcr_nv = c.hcr_nv2 = c.hcr_nv1 = true; c.trfcr_el1_ee = c.trfcr_el2_ee = (uint8_t)x; break;
            case 12: c.hcr_nv = c.hcr_nv2 = true; c.trfcr_el1_ee = c.trfcr_el2_ee = (uint8_t)x; break;
            case 13: c.have_el2 = false; c.mdcr2_e2tb = 0; break;
            case 14: c.scr_ns = false; c.scr_eel2 = true; c.mdcr3_nstb = (uint8_t)x; c.mdcr2_e2tb = 0; break;
            case 15: c.have_rme = true; c.mdcr3_nstbe = x & 1; c.scr_nse = (x >> 1) & 1; break;
            case 16: c.mdcr2_e2tb = 0; c.scr_fgten = true; c.hdfgrtr_trb = 0x7F; break;
            case 17: c.hcr_e2h = true; c.trfcr_el2_ee = 1; c.mdcr3_nstb = (uint8_t)x; break;
            case 18: c.hcr_nv = c.hcr_nv2 = true; c.hcr_nv1 = false; c.hcr_e2h = x & 1; break;
            default: c.self_hosted_trace_off = true; c.mdcr2_e2tb = (uint8_t)x; break;
            }
            assert_int_equal(trbu_set_pe_context(t, &c), ARMPROF_OK);
            for (size_t i = 0; i <= trbu_reg_count(t); i++) {
                uint32_t enc = ARMPROF_SYSREG(3, 0, 9, 11, 5); /* no such register */
                if (i < trbu_reg_count(t)) {
                    trbu_reg_info ri;
                    assert_int_equal(trbu_reg_info_at(t, i, &ri), ARMPROF_OK);
                    enc = ri.enc;
                }
                size_t len, len2;
                assert_int_equal(trbu_save(t, NULL, 0, &len), ARMPROF_ERR_BUFSZ);
                uint8_t *before = malloc(len), *after = malloc(len);
                assert_int_equal(trbu_save(t, before, len, &len2), ARMPROF_OK);
                armprof_err cr = trbu_reg_check(t, enc, false), cw = trbu_reg_check(t, enc, true);
                assert_int_equal(trbu_save(t, after, len, &len2), ARMPROF_OK);
                assert_memory_equal(before, after, len);
                uint64_t val = 0, peek = 0;
                armprof_err r = trbu_reg_read(t, enc, &val);
                (void)trbu_reg_peek(t, enc, &peek);
                armprof_err w = trbu_reg_write(t, enc, peek);
                if (r != cr || w != cw)
                    fail_msg("exc %d context %d, 0x%04x: check %s/%s, access %s/%s", exc, k, enc,
                             armprof_strerror(cr), armprof_strerror(cw), armprof_strerror(r),
                             armprof_strerror(w));
                assert_int_equal(trbu_restore(t, before, len), ARMPROF_OK);
                free(before);
                free(after);
                seen[cr][0]++;
                seen[cw][1]++;
            }
        }
        env_free(e);
    }
    const armprof_err kinds[] = { ARMPROF_OK, ARMPROF_ERR_UNDEFINED, ARMPROF_ERR_TRAP_EL2,
                                  ARMPROF_ERR_TRAP_EL3, ARMPROF_ERR_NV2_MEM, ARMPROF_ERR_NOREG };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (int w = 0; w <= 1; w++)
            if (!seen[kinds[k]][w])
                fail_msg("no %s %s in the walk", w ? "write" : "read", armprof_strerror(kinds[k]));
    assert_int_equal(trbu_reg_check(NULL, TRBU_TRBLIMITR_EL1, false), ARMPROF_ERR_INVAL);
}

static void test_config_validate(void **s)
{
    (void)s;
    trbu_config c;
    char why[128];
    trbu_config_default(&c);
    assert_int_equal(trbu_config_validate(&c, why, sizeof(why)), ARMPROF_OK);
    c.align = 12;
    assert_int_equal(trbu_config_validate(&c, why, sizeof(why)), ARMPROF_ERR_CFG_ALIGN);
    trbu_config_default(&c);
    c.armv9p3 = true; /* default reports External aborts on the write to the unit */
    assert_int_equal(trbu_config_validate(&c, why, sizeof(why)), ARMPROF_ERR_CFG_FEATURE);
    c.ea_write = TRBU_EA_IGNORE;
    assert_int_equal(trbu_config_validate(&c, why, sizeof(why)), ARMPROF_OK);
    c.ea_walk = TRBU_EA_REPORT;
    assert_int_equal(trbu_config_validate(&c, why, sizeof(why)), ARMPROF_ERR_CFG_FEATURE);
    trbu_config_default(&c);
    c.ea_write = TRBU_EA_MMU_FAULT;
    assert_int_equal(trbu_config_validate(&c, why, sizeof(why)), ARMPROF_ERR_CFG_RANGE);
    trbu_config_default(&c);
    c.write_granule = 100;
    assert_int_equal(trbu_config_validate(&c, why, sizeof(why)), ARMPROF_ERR_CFG_RANGE);
    trbu_config_default(&c);
    c.max_burst = 8;
    assert_int_equal(trbu_config_validate(&c, why, sizeof(why)), ARMPROF_ERR_CFG_RANGE);
    trbu_t *t;
    assert_int_equal(trbu_open(&c, NULL, &t), ARMPROF_ERR_CFG_RANGE);
}

/* ----- Buffer modes around the wrap point (RMBSHC and neighbours) ----------------------------- */

static void test_fill_mode_wrap_RMBSHC(void **s)
{
    (void)s;
    env *e = env_new(NULL);
    program(e, LIMIT - 128, TRBU_FM_FILL, TRBU_TM_IGNORE, 0);
    assert_int_equal(push(e, 64), 64);
    assert_int_equal(rd(e->t, TRBU_TRBSR_EL1), 0);
    assert_int_equal(rd(e->t, TRBU_TRBPTR_EL1), LIMIT - 64);
    assert_false(e->f.irq);
    /* the last 64 bytes reach the Limit pointer; 64 more arrive in the same call */
    assert_int_equal(push(e, 128), 64);
    uint64_t sr = rd(e->t, TRBU_TRBSR_EL1);
    assert_int_equal(sr, TRBSR_IRQ | TRBSR_WRAP | TRBSR_S | TRBU_BSC_FILLED);
    assert_int_equal(SR_EC(sr), 0);
    assert_int_equal(rd(e->t, TRBU_TRBPTR_EL1), BASE);
    assert_true(e->f.irq);
    assert_true(trbu_irq_level(e->t));
    assert_int_equal(e->f.ev_wrap, 1);
    assert_pattern(e, LIMIT - 128, 0, 128);
    assert_int_equal(fake_at(&e->f, BASE)[0], 0);        /* nothing written after the stop */
    trbu_stats st;
    trbu_get_stats(e->t, &st);
    assert_int_equal(st.discarded[TRBU_DISCARD_STOPPED], 64);
    assert_int_equal(st.buffer_full_events, 1);
    assert_true(trbu_collection_stopped(e->t));
    assert_int_equal(push(e, 64), 0);
    assert_false(e->f.unaligned_write);
    assert_accounting(e);
    env_free(e);
}

/* RVBDJZ: a wrap in Wrap mode sets IRQ and WRAP and generates TRB_WRAP; S stays 0 and
 * collection goes on (RHLKSG: the mode is TRBLIMITR_EL1.FM). */
static void test_wrap_mode_wrap(void **s)
{
    (void)s;
    env *e = env_new(NULL);
    program(e, LIMIT - 128, TRBU_FM_WRAP, TRBU_TM_IGNORE, 0);
    assert_int_equal(push(e, 192), 192);
    uint64_t sr = rd(e->t, TRBU_TRBSR_EL1);
    assert_int_equal(sr, TRBSR_IRQ | TRBSR_WRAP);        /* S unchanged: collection continues */
    assert_int_equal(rd(e->t, TRBU_TRBPTR_EL1), BASE + 64);
    assert_true(e->f.irq);
    assert_int_equal(e->f.ev_wrap, 1);
    assert_pattern(e, LIMIT - 128, 0, 128);
    assert_pattern(e, BASE, 128, 64);
    /* software clears IRQ: the interrupt drops, trace carries on */
    wr(e->t, TRBU_TRBSR_EL1, TRBSR_WRAP);
    assert_false(e->f.irq);
    assert_int_equal(push(e, 64), 64);
    assert_int_equal(rd(e->t, TRBU_TRBPTR_EL1), BASE + 128);
    trbu_stats st;
    trbu_get_stats(e->t, &st);
    assert_int_equal(st.wrap_irq_events, 1);
    assert_int_equal(st.bytes_discarded, 0);
    env_free(e);
}

/* RGDSTS: a wrap in Circular Buffer mode sets WRAP and generates TRB_WRAP with no interrupt
 * request; the oldest trace is overwritten (RHLKSG). */
static void test_circular_mode_wrap(void **s)
{
    (void)s;
    env *e = env_new(NULL);
    program(e, LIMIT - 128, TRBU_FM_CIRCULAR, TRBU_TM_IGNORE, 0);
    assert_int_equal(push(e, 192), 192);
    assert_int_equal(rd(e->t, TRBU_TRBSR_EL1), TRBSR_WRAP); /* no interrupt request */
    assert_int_equal(rd(e->t, TRBU_TRBPTR_EL1), BASE + 64);
    assert_false(e->f.irq);
    assert_int_equal(e->f.ev_wrap, 1);
    assert_pattern(e, BASE, 128, 64);
    /* a whole lap more: a second TRB_WRAP, the oldest data overwritten */
    size_t lap = LIMIT - BASE;
    for (size_t i = 0; i < lap / 4096; i++)
        assert_int_equal(push(e, 4096), 4096);
    assert_int_equal(e->f.ev_wrap, 2);
    assert_int_equal(rd(e->t, TRBU_TRBPTR_EL1), BASE + 64);
    assert_false(e->f.irq);
    assert_int_equal(e->f.mem[(BASE - FAKE_MEM_BASE)], (uint8_t)(192 + lap - 64));
    env_free(e);
}

static void test_internal_buffer_aligned_writes(void **s)
{
    (void)s;
    env *e = env_new(NULL);                             /* Align 6: 64-byte unit */
    program(e, BASE, TRBU_FM_FILL, TRBU_TM_IGNORE, 0);
    assert_int_equal(push(e, 10), 10);
    assert_int_equal(e->f.writes, 0);
    assert_int_equal(rd(e->t, TRBU_TRBPTR_EL1), BASE);
    assert_int_equal(push(e, 54), 54);
    assert_int_equal(e->f.writes, 1);
    assert_int_equal(rd(e->t, TRBU_TRBPTR_EL1), BASE + 64);
    for (int i = 0; i < 20; i++)
        push(e, 37);
    assert_false(e->f.unaligned_write);
    assert_int_equal(rd(e->t, TRBU_TRBPTR_EL1), BASE + 64 + (20 * 37 / 64) * 64);
    assert_pattern(e, BASE, 0, 64 + (20 * 37 / 64) * 64);
    /* the regime: EL1&0, Non-secure, stage 2 off, the TRBU */
    assert_int_equal(e->f.last_regime.kind, ARMPROF_REGIME_EL10);
    assert_int_equal(e->f.last_regime.ss, ARMPROF_NONSECURE);
    assert_int_equal(e->f.last_regime.unit, ARMPROF_UNIT_TRBU);
    assert_accounting(e);
    env_free(e);
}

static void test_tsb_csync_drains(void **s)
{
    (void)s;
    env *e = env_new(NULL);
    program(e, BASE, TRBU_FM_FILL, TRBU_TM_IGNORE, 0);
    push(e, 10);
    trbu_tsb_csync(e->t);
    assert_int_equal(rd(e->t, TRBU_TRBPTR_EL1), BASE + 10);
    assert_pattern(e, BASE, 0, 10);
    env_free(e);
    trbu_config c;
    trbu_config_default(&c);
    c.drain_pad = true;
    e = env_new(&c);
    program(e, BASE, TRBU_FM_FILL, TRBU_TM_IGNORE, 0);
    push(e, 10);
    trbu_tsb_csync(e->t);
    assert_int_equal(rd(e->t, TRBU_TRBPTR_EL1), BASE + 64);
    assert_pattern(e, BASE, 0, 10);
    assert_int_equal(fake_at(&e->f, BASE)[10], 0x70);
    assert_int_equal(fake_at(&e->f, BASE)[63], 0x70);
    assert_false(e->f.unaligned_write);
    assert_accounting(e);
    env_free(e);
}

static void test_disable_loses_or_drains(void **s)
{
    (void)s;
    for (int drains = 0; drains < 2; drains++) {
        trbu_config c;
        trbu_config_default(&c);
        c.disable_drains = drains;
        env *e = env_new(&c);
        program(e, BASE, TRBU_FM_FILL, TRBU_TM_IGNORE, 0);
        push(e, 10);
        wr(e->t, TRBU_TRBLIMITR_EL1, limitr(LIMIT, TRBU_FM_FILL, TRBU_TM_IGNORE, false));
        trbu_stats st;
        trbu_get_stats(e->t, &st);
        assert_int_equal(rd(e->t, TRBU_TRBPTR_EL1), drains ? BASE + 10 : BASE);
        assert_int_equal(st.discarded[TRBU_DISCARD_DISABLE], drains ? 0 : 10);
        /* disabled: bytes are discarded, triggers ignored (ZGFSK) */
        assert_int_equal(push(e, 64), 0);
        trbu_trigger(e->t);
        assert_int_equal(rd(e->t, TRBU_TRBSR_EL1), 0);
        assert_int_equal(e->f.ev_trig, 0);
        assert_false(trbu_buffer_enabled(e->t, NULL));
        assert_accounting(e);
        env_free(e);
    }
}

/* ----- Triggers ------------------------------------------------------------------------------- */

/* RLMQHK: with Ignore trigger the Trigger Event leaves TRBSR_ELx unchanged and generates
 * TRB_TRIG. RXYPYF / RMLZZW: the Trigger Event comes with the write whose trace data decremented
 * the Trigger Counter to zero (TRB_TRIG rises on that push, not before). */
static void test_trigger_counter_RBQTGW_RQFGNQ(void **s)
{
    (void)s;
    for (int over = 0; over < 2; over++) {
        trbu_config c;
        trbu_config_default(&c);
        c.trig_over_decrement = over;
        env *e = env_new(&c);
        program(e, BASE, TRBU_FM_CIRCULAR, TRBU_TM_IGNORE, 100);
        push(e, 64);                                    /* before the trigger: no decrement */
        assert_int_equal(rd(e->t, TRBU_TRBTRG_EL1), 100);
        push(e, 10);                                    /* 10 bytes in the internal buffer */
        trbu_trigger(e->t);
        assert_int_equal(rd(e->t, TRBU_TRBSR_EL1), TRBSR_TRG);  /* RKSQJW */
        assert_int_equal(e->f.ev_trig, 0);
        push(e, 54);                                    /* one unit: 10 old + 54 new bytes */
        /* RQFGNQ: the over-decrementing choice counts the 10 bytes from before the trigger */
        assert_int_equal(rd(e->t, TRBU_TRBTRG_EL1), over ? 36 : 46);
        push(e, 64);
        assert_int_equal(rd(e->t, TRBU_TRBTRG_EL1), 0);  /* RDHLQG: decremented to zero */
        assert_int_equal(e->f.ev_trig, 1);
        push(e, 64);
        assert_int_equal(e->f.ev_trig, 1);
        assert_int_equal(rd(e->t, TRBU_TRBSR_EL1), TRBSR_TRG);  /* Ignore trigger: unchanged */
        env_free(e);
    }
}

/* RRWJNN / RXYPYF: a Detected Trigger from the trace unit (trbu_trigger) with the counter at
 * zero generates the Trigger Event with that operation. */
static void test_trigger_counter_zero_ZGFSK(void **s)
{
    (void)s;
    env *e = env_new(NULL);
    program(e, BASE, TRBU_FM_FILL, TRBU_TM_IGNORE, 0);
    trbu_trigger(e->t);
    assert_int_equal(e->f.ev_trig, 1);                  /* RDHLQG: counter zero, TRG was 0 */
    trbu_trigger(e->t);
    assert_int_equal(e->f.ev_trig, 1);                  /* TRG already 1: no Trigger Event */
    trbu_stats st;
    trbu_get_stats(e->t, &st);
    assert_int_equal(st.detected_triggers, 2);
    assert_int_equal(st.trigger_events, 1);
    env_free(e);
}

static void test_stop_on_trigger_flush_RXRRWP(void **s)
{
    (void)s;
    trbu_config c;
    trbu_config_default(&c);
    c.flush_cycles = 10;
    env *e = env_new(&c);
    program(e, BASE, TRBU_FM_FILL, TRBU_TM_STOP, 0);
    push(e, 64);
    trbu_trigger(e->t);
    assert_int_equal(e->f.ev_trig, 1);
    assert_true(trbu_flush_pending(e->t));
    assert_int_equal(trbu_cycles_to_next_event(e->t), 10);
    assert_int_equal(rd(e->t, TRBU_TRBSR_EL1), TRBSR_TRG);
    /* trace the flush pushes out is still collected */
    assert_int_equal(push(e, 64 + 10), 74);
    trbu_advance(e->t, 9);
    assert_int_equal(rd(e->t, TRBU_TRBSR_EL1), TRBSR_TRG);
    assert_false(e->f.irq);
    trbu_advance(e->t, 1);
    assert_false(trbu_flush_pending(e->t));
    uint64_t sr = rd(e->t, TRBU_TRBSR_EL1);
    assert_int_equal(sr, TRBSR_TRG | TRBSR_IRQ | TRBSR_S | TRBU_BSC_TRIGGER);
    assert_int_equal(SR_EC(sr), 0);
    /* the pointer is just after the last byte written (the drained partial unit included) */
    assert_int_equal(rd(e->t, TRBU_TRBPTR_EL1), BASE + 138);
    assert_pattern(e, BASE, 0, 138);
    assert_true(e->f.irq);
    assert_int_equal(push(e, 64), 0);
    assert_int_equal(trbu_cycles_to_next_event(e->t), UINT64_MAX);
    env_free(e);
}

static void flush_hook(void *user)
{
    ((fake *)user)->flush_calls++;
}

static void test_stop_on_trigger_flush_hook(void **s)
{
    (void)s;
    env *e = env_new(NULL);
    trbu_set_flush_hook(e->t, flush_hook, &e->f);
    program(e, BASE, TRBU_FM_WRAP, TRBU_TM_STOP, 128);
    trbu_trigger(e->t);
    push(e, 128);                                       /* counter reaches zero */
    assert_int_equal(e->f.ev_trig, 1);
    assert_int_equal(e->f.flush_calls, 1);
    trbu_advance(e->t, 1000);                           /* the host owns completion */
    assert_true(trbu_flush_pending(e->t));
    push(e, 64);                                        /* the trace unit's flushed bytes */
    trbu_flush_complete(e->t);
    assert_int_equal(rd(e->t, TRBU_TRBSR_EL1), TRBSR_TRG | TRBSR_IRQ | TRBSR_S | TRBU_BSC_TRIGGER);
    assert_int_equal(rd(e->t, TRBU_TRBPTR_EL1), BASE + 192);
    env_free(e);
}

static void test_irq_on_trigger(void **s)
{
    (void)s;
    trbu_config c;
    trbu_config_default(&c);
    c.flush_cycles = 0;
    env *e = env_new(&c);
    program(e, BASE, TRBU_FM_FILL, TRBU_TM_IRQ, 0);
    push(e, 10);
    trbu_trigger(e->t);                                 /* flush completes at once */
    assert_int_equal(rd(e->t, TRBU_TRBSR_EL1), TRBSR_TRG | TRBSR_IRQ);  /* S unchanged */
    assert_true(e->f.irq);
    assert_int_equal(e->f.ev_trig, 1);
    assert_int_equal(push(e, 118), 118);                /* collection continues */
    assert_int_equal(rd(e->t, TRBU_TRBPTR_EL1), BASE + 128);
    env_free(e);
}

static void test_trigger_while_stopped_RMWWHM(void **s)
{
    (void)s;
    env *e = env_new(NULL);
    program(e, LIMIT - 64, TRBU_FM_FILL, TRBU_TM_STOP, 0);
    push(e, 64);                                        /* buffer full: stopped */
    uint64_t before = rd(e->t, TRBU_TRBSR_EL1);
    trbu_trigger(e->t);
    assert_int_equal(e->f.ev_trig, 1);                  /* TRB_TRIG still generated */
    assert_false(trbu_flush_pending(e->t));
    assert_int_equal(rd(e->t, TRBU_TRBSR_EL1), before | TRBSR_TRG);
    env_free(e);
}

static void test_trigger_flush_then_full_IVPLRF(void **s)
{
    (void)s;
    trbu_config c;
    trbu_config_default(&c);
    c.flush_cycles = 5;
    env *e = env_new(&c);
    program(e, LIMIT - 64, TRBU_FM_FILL, TRBU_TM_STOP, 0);
    trbu_trigger(e->t);
    push(e, 64);                                        /* the flush fills the buffer first */
    trbu_advance(e->t, 5);
    /* the buffer full event owns S/EC/BSC; the Trigger Event only sets IRQ (already 1) */
    assert_int_equal(rd(e->t, TRBU_TRBSR_EL1),
                     TRBSR_TRG | TRBSR_IRQ | TRBSR_WRAP | TRBSR_S | TRBU_BSC_FILLED);
    trbu_stats st;
    trbu_get_stats(e->t, &st);
    assert_int_equal(st.trigger_mgmt_events, 1);
    env_free(e);
}

/* ----- Faults (RFSPBK) and External aborts (D6.5.5) ------------------------------------------- */

typedef struct fault_row {
    const char *name;
    armprof_mem_status st;
    uint8_t ec, fsc;
    uint32_t mss2;
    bool async;
    trbu_ea_policy ea_write, ea_walk;
    bool ea_async, walk_sets_ea, mss2_feat;
    /* expected */
    bool event;             /* a management event in TRBSR_EL1 */
    uint8_t x_ec, x_fsc;
    bool x_ea;
    bool x_ptr_is_fault;    /* TRBPTR_EL1 == faulting address */
    uint64_t x_mss2;        /* TRBSR_EL1.MSS2 bits */
    unsigned x_serror;
} fault_row;

static const fault_row fault_rows[] = {
    { "S1 translation", ARMPROF_MEM_FAULT, 0x24, 0x07, 0, false, TRBU_EA_REPORT, TRBU_EA_MMU_FAULT,
      false, false, false, true, 0x24, 0x07, false, true, 0, 0 },
    { "S1 permission", ARMPROF_MEM_FAULT, 0x24, 0x0F, 0, false, TRBU_EA_REPORT, TRBU_EA_MMU_FAULT,
      false, false, false, true, 0x24, 0x0F, false, true, 0, 0 },
    { "S2 access flag", ARMPROF_MEM_FAULT, 0x25, 0x0B, 0, false, TRBU_EA_REPORT, TRBU_EA_MMU_FAULT,
      false, false, true, true, 0x25, 0x0B, false, true, 0, 0 },
    { "S2 permission TopLevel RLYHGV", ARMPROF_MEM_FAULT, 0x25, 0x0F, 1u << 13, false,
      TRBU_EA_REPORT, TRBU_EA_MMU_FAULT, false, false, true, true, 0x25, 0x0F, false, true,
      TRBSR_TopLevel, 0 },
    { "S2 permission AssuredOnly RLYHGV", ARMPROF_MEM_FAULT, 0x25, 0x0F, 1u << 12, false,
      TRBU_EA_REPORT, TRBU_EA_MMU_FAULT, false, false, true, true, 0x25, 0x0F, false, true,
      TRBSR_AssuredOnly, 0 },
    { "GPF as S1", ARMPROF_MEM_FAULT, 0x24, 0x28, 0, false, TRBU_EA_REPORT, TRBU_EA_MMU_FAULT,
      false, false, false, true, 0x24, 0x28, false, true, 0, 0 },
    { "GPC fault", ARMPROF_MEM_FAULT, 0x1E, 0x04, 0, false, TRBU_EA_REPORT, TRBU_EA_MMU_FAULT,
      false, false, false, true, 0x1E, 0x04, false, true, 0, 0 },
    { "EA write ignored", ARMPROF_MEM_EXT_ABORT, 0, 0x10, 0, false, TRBU_EA_IGNORE,
      TRBU_EA_MMU_FAULT, false, false, false, false, 0, 0, false, false, 0, 0 },
    { "EA write SError", ARMPROF_MEM_EXT_ABORT, 0, 0x10, 0, false, TRBU_EA_SERROR,
      TRBU_EA_MMU_FAULT, false, false, false, false, 0, 0, false, false, 0, 1 },
    { "EA write reported sync", ARMPROF_MEM_EXT_ABORT, 0, 0x10, 0, false, TRBU_EA_REPORT,
      TRBU_EA_MMU_FAULT, false, false, false, true, 0x24, 0x10, true, true, 0, 0 },
    { "EA walk as MMU fault, EA unchanged", ARMPROF_MEM_EXT_ABORT, 0x25, 0x15, 0, false,
      TRBU_EA_REPORT, TRBU_EA_MMU_FAULT, false, false, false, true, 0x25, 0x15, false, true, 0, 0 },
    { "EA walk as MMU fault, EA set", ARMPROF_MEM_EXT_ABORT, 0x24, 0x16, 0, false,
      TRBU_EA_REPORT, TRBU_EA_MMU_FAULT, false, true, false, true, 0x24, 0x16, true, true, 0, 0 },
    { "EA walk ignored", ARMPROF_MEM_EXT_ABORT, 0x24, 0x15, 0, false, TRBU_EA_REPORT,
      TRBU_EA_IGNORE, false, false, false, false, 0, 0, false, false, 0, 0 },
    { "EA walk SError", ARMPROF_MEM_EXT_ABORT, 0x24, 0x15, 0, false, TRBU_EA_REPORT,
      TRBU_EA_SERROR, false, false, false, false, 0, 0, false, false, 0, 1 },
    { "EA GPT walk reported", ARMPROF_MEM_EXT_ABORT, 0x1E, 0x14, 0, false, TRBU_EA_REPORT,
      TRBU_EA_REPORT, false, false, false, true, 0x1E, 0x14, true, true, 0, 0 },
    { "EA S2 walk reported", ARMPROF_MEM_EXT_ABORT, 0x25, 0x15, 0, false, TRBU_EA_REPORT,
      TRBU_EA_REPORT, false, false, false, true, 0x25, 0x15, true, true, 0, 0 },
};

/* RQKLXR: each fault a trace write can generate (Translation, Permission, Access flag, GPF,
 * GPC) is a management event with its EC and FSC. RYQMQK: External aborts on walks and GPT walks
 * as synchronous MMU faults (EA set or unchanged per the knob). RYCPZX: a stage 2 fault is EC
 * 0x25 whether it hit the access or a stage 1 walk. RGQWBF: each IMPLEMENTATION DEFINED handling
 * of an External abort (ignored, SError, MMU fault, reported). */
static void test_faults_and_external_aborts_RFSPBK(void **s)
{
    (void)s;
    for (size_t i = 0; i < sizeof(fault_rows) / sizeof(fault_rows[0]); i++) {
        const fault_row *r = &fault_rows[i];
        trbu_config c;
        trbu_config_default(&c);
        c.ea_write = r->ea_write;
        c.ea_walk = r->ea_walk;
        c.ea_async = r->ea_async;
        c.walk_ea_sets_ea = r->walk_sets_ea;
        c.feat_mss2 = r->mss2_feat;
        env *e = env_new(&c);
        program(e, BASE, TRBU_FM_FILL, TRBU_TM_IGNORE, 0);
        uint64_t fault_addr = BASE + 64;
        fake_inject(&e->f, fault_addr, r->st, r->ec, r->fsc, r->async, r->mss2);
        push(e, 128);
        uint64_t sr = rd(e->t, TRBU_TRBSR_EL1);
        if (r->event) {
            uint64_t x = TRBSR_IRQ | TRBSR_S | ap_field_prep(TRBSR_EC, r->x_ec) | r->x_fsc |
                         (r->x_ea ? TRBSR_EA : 0) | r->x_mss2;
            if (sr != x)
                fail_msg("%s: TRBSR_EL1 0x%llx, expected 0x%llx", r->name,
                         (unsigned long long)sr, (unsigned long long)x);
            assert_true(e->f.irq);
            assert_int_equal(rd(e->t, TRBU_TRBPTR_EL1), fault_addr);   /* GVGPB */
            assert_pattern(e, BASE, 0, 64);
            assert_int_equal(push(e, 64), 0);
        } else {
            if (sr != 0)
                fail_msg("%s: TRBSR_EL1 0x%llx, expected 0", r->name, (unsigned long long)sr);
            assert_false(e->f.irq);
            assert_int_equal(rd(e->t, TRBU_TRBPTR_EL1), BASE + 128);
        }
        assert_int_equal(e->f.serrors, r->x_serror);
        assert_accounting(e);
        env_free(e);
    }
}

/* RMGZWR: a misaligned TRBPTR_EL1 gives an Alignment fault (one choice) or is written at. */
static void test_alignment_fault(void **s)
{
    (void)s;
    trbu_config c;
    trbu_config_default(&c);
    c.misaligned_ptr_fault = true;
    env *e = env_new(&c);
    program(e, BASE + 3, TRBU_FM_FILL, TRBU_TM_IGNORE, 0);
    push(e, 64);
    assert_int_equal(rd(e->t, TRBU_TRBSR_EL1), TRBSR_IRQ | TRBSR_S |
                     ap_field_prep(TRBSR_EC, 0x24) | ARMPROF_FSC_ALIGNMENT);
    assert_int_equal(rd(e->t, TRBU_TRBPTR_EL1), BASE + 3);
    env_free(e);
    /* the other choice writes at the misaligned pointer */
    e = env_new(NULL);
    e->f.align_unit = 0;
    program(e, BASE + 3, TRBU_FM_FILL, TRBU_TM_IGNORE, 0);
    push(e, 64);
    assert_int_equal(rd(e->t, TRBU_TRBSR_EL1), 0);
    assert_int_equal(rd(e->t, TRBU_TRBPTR_EL1), BASE + 67);
    assert_pattern(e, BASE + 3, 0, 64);
    env_free(e);
}

/* RVKWPM / RNZTKV / RXRLSC: an asynchronous External abort is reported later (IRQ, S, EA, EC,
 * FSC) with TRBPTR_EL1 past the aborted address: trace went on being written meanwhile. */
static void test_ext_abort_async(void **s)
{
    (void)s;
    for (int csync = 0; csync < 2; csync++) {
        trbu_config c;
        trbu_config_default(&c);
        c.ea_async = true;
        c.ea_async_cycles = 50;
        env *e = env_new(&c);
        program(e, BASE, TRBU_FM_FILL, TRBU_TM_IGNORE, 0);
        fake_inject(&e->f, BASE + 64, ARMPROF_MEM_EXT_ABORT, 0, ARMPROF_FSC_AEA_WRITE, false, 0);
        push(e, 128);
        /* not yet reported: trace continues past the faulting address */
        assert_int_equal(rd(e->t, TRBU_TRBSR_EL1), 0);
        assert_int_equal(rd(e->t, TRBU_TRBPTR_EL1), BASE + 128);
        assert_int_equal(trbu_cycles_to_next_event(e->t), 50);
        push(e, 64);
        if (csync)
            trbu_tsb_csync(e->t);                       /* TSB CSYNC resolves it now */
        else
            trbu_advance(e->t, 50);
        assert_int_equal(rd(e->t, TRBU_TRBSR_EL1), TRBSR_IRQ | TRBSR_S | TRBSR_EA |
                         ap_field_prep(TRBSR_EC, 0x24) | ARMPROF_FSC_AEA_WRITE);
        assert_int_equal(rd(e->t, TRBU_TRBPTR_EL1), BASE + 192);
        assert_true(e->f.irq);
        assert_int_equal(push(e, 64), 0);
        env_free(e);
    }
}

static void test_impdef_events_RCHNSL(void **s)
{
    (void)s;
    env *e = env_new(NULL);
    program(e, BASE, TRBU_FM_FILL, TRBU_TM_IGNORE, 0);
    trbu_impdef_event(e->t, 0x1234);
    assert_int_equal(rd(e->t, TRBU_TRBSR_EL1), TRBSR_IRQ | TRBSR_S |
                     ap_field_prep(TRBSR_EC, 0x1F) | 0x1234);
    assert_true(e->f.irq);
    env_free(e);
    /* pointers outside [BASE, LIMIT): the configured UNPREDICTABLE choice */
    for (int pol = 0; pol < 2; pol++) {
        trbu_config c;
        trbu_config_default(&c);
        c.bad_ptr = pol ? TRBU_BADPTR_DISCARD : TRBU_BADPTR_IMPDEF_EVENT;
        e = env_new(&c);
        program(e, LIMIT + 64, TRBU_FM_FILL, TRBU_TM_IGNORE, 0);
        push(e, 64);
        assert_int_equal(e->f.writes, 0);
        trbu_stats st;
        trbu_get_stats(e->t, &st);
        assert_int_equal(st.discarded[TRBU_DISCARD_BAD_PTR], 64);
        assert_int_equal(rd(e->t, TRBU_TRBSR_EL1),
                         pol ? 0 : (TRBSR_IRQ | TRBSR_S | ap_field_prep(TRBSR_EC, 0x1F) |
                                    TRBU_IMPDEF_MSS_BAD_POINTERS));
        env_free(e);
    }
}

/* ----- The Linux coresight-trbe driver sequence ----------------------------------------------- */

typedef struct linux_drv {
    env *e;
    uint64_t base, limit, head;
    unsigned wraps_handled;
} linux_drv;

static void linux_enable_hw(linux_drv *d, uint64_t write)
{
    trbu_t *t = d->e->t;
    armprof_pe_ctx c = *trbu_get_pe_context(t);
    assert_int_equal(c.el, 1);
    uint64_t v;
    /* set_trbe_disabled, clr_trbe_status, base, write pointer, limit + Fill + Ignore + E */
    assert_int_equal(trbu_reg_read(t, TRBU_TRBLIMITR_EL1, &v), ARMPROF_OK);
    assert_int_equal(trbu_reg_write(t, TRBU_TRBLIMITR_EL1, v & ~TRBLIMITR_EL1_E), ARMPROF_OK);
    assert_int_equal(trbu_reg_read(t, TRBU_TRBSR_EL1, &v), ARMPROF_OK);
    v &= ~(TRBSR_IRQ | TRBSR_TRG | TRBSR_WRAP | TRBSR_EC | TRBSR_BSC | TRBSR_S);
    assert_int_equal(trbu_reg_write(t, TRBU_TRBSR_EL1, v), ARMPROF_OK);
    assert_int_equal(trbu_reg_write(t, TRBU_TRBBASER_EL1, d->base), ARMPROF_OK);
    assert_int_equal(trbu_reg_write(t, TRBU_TRBPTR_EL1, write), ARMPROF_OK);
    assert_int_equal(trbu_reg_write(t, TRBU_TRBLIMITR_EL1,
                                    limitr(d->limit, TRBU_FM_FILL, TRBU_TM_IGNORE, true)),
                     ARMPROF_OK);
}

static void linux_drain_and_disable(linux_drv *d)
{
    trbu_t *t = d->e->t;
    uint64_t v;
    trbu_tsb_csync(t);
    assert_int_equal(trbu_reg_read(t, TRBU_TRBLIMITR_EL1, &v), ARMPROF_OK);
    assert_int_equal(trbu_reg_write(t, TRBU_TRBLIMITR_EL1, v & ~TRBLIMITR_EL1_E), ARMPROF_OK);
}

/* arm_trbe_irq_handler: returns true when it was a WRAP (buffer full) and it restarted. */
static bool linux_irq(linux_drv *d)
{
    trbu_t *t = d->e->t;
    uint64_t sr, ptr, base;
    linux_drain_and_disable(d);
    assert_int_equal(trbu_reg_read(t, TRBU_TRBSR_EL1, &sr), ARMPROF_OK);
    if (!(sr & TRBSR_IRQ))
        return false;
    assert_int_equal(trbu_reg_write(t, TRBU_TRBSR_EL1, sr & ~TRBSR_IRQ), ARMPROF_OK);
    assert_false(d->e->f.irq);                          /* the level drops with the bit */
    assert_int_equal(trbu_reg_read(t, TRBU_TRBPTR_EL1, &ptr), ARMPROF_OK);
    assert_int_equal(trbu_reg_read(t, TRBU_TRBBASER_EL1, &base), ARMPROF_OK);
    /* trbe_get_fault_act: WRAP, EC 0, BSC filled, write pointer back at the Base pointer */
    assert_true(sr & TRBSR_WRAP);
    assert_false(sr & (TRBSR_TRG | TRBSR_EA));
    assert_int_equal(SR_EC(sr), 0);
    assert_int_equal(ap_field_get(TRBSR_BSC, sr), TRBU_BSC_FILLED);
    assert_int_equal(ptr, base);
    d->wraps_handled++;
    linux_enable_hw(d, d->base);                        /* the next AUX buffer, same pages */
    return true;
}

static void test_linux_coresight_trbe_sequence(void **s)
{
    (void)s;
    env *e = env_new(NULL);
    linux_drv d = { .e = e, .base = BASE, .limit = BASE + 0x2000 };
    linux_enable_hw(&d, d.base);
    assert_true(trbu_buffer_enabled(e->t, NULL));
    uint8_t lap0 = e->seq;
    /* a full buffer in odd-sized pieces: interrupt on fill */
    size_t fed = 0;
    while (!e->f.irq) {
        fed += push(e, 1000);
        assert_true(fed <= 0x2000);
    }
    assert_int_equal(fed, 0x2000);
    assert_pattern(e, BASE, lap0, 0x2000);
    assert_true(linux_irq(&d));
    /* second lap: some trace, then perf stops the event: update_buffer */
    uint8_t lap1 = e->seq;
    push(e, 1000);
    linux_drain_and_disable(&d);
    uint64_t sr, ptr;
    assert_int_equal(trbu_reg_read(e->t, TRBU_TRBSR_EL1, &sr), ARMPROF_OK);
    assert_false(sr & TRBSR_IRQ);
    assert_int_equal(trbu_reg_read(e->t, TRBU_TRBPTR_EL1, &ptr), ARMPROF_OK);
    assert_int_equal(ptr - d.base, 1000);                /* TSB CSYNC wrote the partial unit */
    assert_pattern(e, BASE, lap1, 1000);
    /* re-enable at the next aligned head (the driver pads the gap) and carry on */
    uint64_t head = (ptr + 63) & ~63ull;
    linux_enable_hw(&d, head);
    uint8_t lap2 = e->seq;
    push(e, 0x2000 - (size_t)(head - d.base));
    assert_true(e->f.irq);
    assert_pattern(e, head, lap2, (size_t)(d.limit - head));
    assert_true(linux_irq(&d));
    assert_int_equal(d.wraps_handled, 2);
    assert_int_equal(e->f.ev_wrap, 2);
    trbu_stats st;
    trbu_get_stats(e->t, &st);
    /* only the overflow of the push that filled the first lap was lost (collection stopped) */
    assert_int_equal(st.bytes_discarded, 9 * 1000 - 0x2000);
    assert_int_equal(st.discarded[TRBU_DISCARD_STOPPED], 9 * 1000 - 0x2000);
    assert_int_equal(st.buffer_full_events, 2);
    env_free(e);
}

/* ----- Time, cycle-level step, checkpoints ---------------------------------------------------- */

static void drive(env *e, bool cycle_level, unsigned steps)
{
    uint8_t buf[200];
    for (unsigned i = 0; i < steps; i++) {
        size_t n = (i * 37) % 150;
        for (size_t k = 0; k < n; k++)
            buf[k] = e->seq++;
        bool trig = i % 97 == 13;
        if (cycle_level) {
            trbu_cycle(e->t, buf, n, trig);
        } else {
            trbu_trace_bytes(e->t, buf, n);
            if (trig)
                trbu_trigger(e->t);
            trbu_advance(e->t, 1);
        }
        if (e->f.irq) {
            /* service like a driver: clear IRQ / S / TRG, re-arm the counter */
            wr(e->t, TRBU_TRBSR_EL1, 0);
            wr(e->t, TRBU_TRBTRG_EL1, 300);
        }
    }
}

static void test_cycle_equals_transaction(void **s)
{
    (void)s;
    trbu_config c;
    trbu_config_default(&c);
    c.flush_cycles = 7;
    env *a = env_new(&c), *b = env_new(&c);
    program(a, BASE, TRBU_FM_WRAP, TRBU_TM_STOP, 300);
    program(b, BASE, TRBU_FM_WRAP, TRBU_TM_STOP, 300);
    drive(a, false, 600);
    drive(b, true, 600);
    assert_memory_equal(a->f.mem, b->f.mem, FAKE_MEM_SIZE);
    for (uint32_t enc = TRBU_TRBLIMITR_EL1; enc <= TRBU_TRBIDR_EL1; enc++) {
        uint64_t va, vb;
        if (trbu_reg_peek(a->t, enc, &va) == ARMPROF_OK) {
            trbu_reg_peek(b->t, enc, &vb);
            assert_int_equal(va, vb);
        }
    }
    trbu_stats sa, sb;
    trbu_get_stats(a->t, &sa);
    trbu_get_stats(b->t, &sb);
    assert_memory_equal(&sa, &sb, sizeof(sa));
    assert_true(sa.trigger_events > 0);
    assert_true(sa.wraps > 0);
    assert_accounting(a);
    env_free(a);
    env_free(b);
}

static void test_checkpoint_roundtrip(void **s)
{
    (void)s;
    trbu_config c;
    trbu_config_default(&c);
    c.flush_cycles = 7;
    env *a = env_new(&c), *b = env_new(&c);
    program(a, BASE, TRBU_FM_WRAP, TRBU_TM_STOP, 300);
    drive(a, false, 300);
    push(a, 10);                                        /* a partial unit in the buffer */
    size_t len;
    assert_int_equal(trbu_save(a->t, NULL, 0, &len), ARMPROF_ERR_BUFSZ);
    uint8_t *blob = malloc(len);
    assert_int_equal(trbu_save(a->t, blob, len, &len), ARMPROF_OK);
    assert_int_equal(trbu_restore(b->t, blob, len), ARMPROF_OK);
    memcpy(b->f.mem, a->f.mem, FAKE_MEM_SIZE);
    b->seq = a->seq;
    drive(a, false, 300);
    drive(b, false, 300);
    assert_memory_equal(a->f.mem, b->f.mem, FAKE_MEM_SIZE);
    trbu_stats sa, sb;
    trbu_get_stats(a->t, &sa);
    trbu_get_stats(b->t, &sb);
    assert_memory_equal(&sa, &sb, sizeof(sa));
    /* a blob from another configuration is refused; a damaged one too */
    trbu_config c2 = c;
    c2.align = 4;
    env *d = env_new(&c2);
    assert_int_equal(trbu_restore(d->t, blob, len), ARMPROF_ERR_STATE_MISMATCH);
    blob[30] ^= 1;
    assert_int_equal(trbu_restore(b->t, blob, len), ARMPROF_ERR_STATE_CORRUPT);
    free(blob);
    env_free(a);
    env_free(b);
    env_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_regtable_walk),
        cmocka_unit_test(test_trbidr_from_config),
        cmocka_unit_test(test_access_checks),
        cmocka_unit_test(test_reg_check_is_the_access_outcome),
        cmocka_unit_test(test_config_validate),
        cmocka_unit_test(test_fill_mode_wrap_RMBSHC),
        cmocka_unit_test(test_wrap_mode_wrap),
        cmocka_unit_test(test_circular_mode_wrap),
        cmocka_unit_test(test_internal_buffer_aligned_writes),
        cmocka_unit_test(test_tsb_csync_drains),
        cmocka_unit_test(test_disable_loses_or_drains),
        cmocka_unit_test(test_trigger_counter_RBQTGW_RQFGNQ),
        cmocka_unit_test(test_trigger_counter_zero_ZGFSK),
        cmocka_unit_test(test_stop_on_trigger_flush_RXRRWP),
        cmocka_unit_test(test_stop_on_trigger_flush_hook),
        cmocka_unit_test(test_irq_on_trigger),
        cmocka_unit_test(test_trigger_while_stopped_RMWWHM),
        cmocka_unit_test(test_trigger_flush_then_full_IVPLRF),
        cmocka_unit_test(test_faults_and_external_aborts_RFSPBK),
        cmocka_unit_test(test_alignment_fault),
        cmocka_unit_test(test_ext_abort_async),
        cmocka_unit_test(test_impdef_events_RCHNSL),
        cmocka_unit_test(test_linux_coresight_trbe_sequence),
        cmocka_unit_test(test_cycle_equals_transaction),
        cmocka_unit_test(test_checkpoint_roundtrip),
    };
    return cmocka_run_group_tests_name("trbu", tests, NULL, NULL);
}
