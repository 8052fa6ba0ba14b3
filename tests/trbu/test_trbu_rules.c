/* SPDX-License-Identifier: Apache-2.0 */
/* test_trbu_rules.c: prioritization of trace buffer management events (seed 004 D6.5.1: RMKCHT, RGTMJD), TRBSR_EL12 and the EL2 view of TRBSR_EL1 (FEAT_TRBE_EXC), fine-grained traps of the TRB registers. */
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

/* Fill mode, Ignore trigger, the write pointer at ptr. */
static void program_fill(env *e, uint64_t ptr)
{
    program(e, ptr, TRBU_FM_FILL, TRBU_TM_IGNORE, 0);
}

/* RMKCHT: of the synchronous events one write can cause, the fault is reported: the write that
 * would have reached the Limit pointer (a Fill mode buffer full, RMBSHC) faults instead, so
 * TRBSR_EL1 holds the MMU fault, TRBPTR_EL1 the faulting address, WRAP stays 0 and no TRB_WRAP. */
static void test_fault_outranks_wrap_RMKCHT(void **s)
{
    (void)s;
    env *e = env_new(NULL);                             /* Align 6: 64-byte writes */
    program_fill(e, LIMIT - 64);
    fake_inject(&e->f, LIMIT - 64, ARMPROF_MEM_FAULT, ARMPROF_EC_S1_ABORT,
                ARMPROF_FSC_PERMISSION | 3, false, 0);
    push(e, 64);
    uint64_t sr = rd(e->t, TRBU_TRBSR_EL1);
    assert_int_equal(sr, TRBSR_IRQ | TRBSR_S | ap_field_prep(TRBSR_EC, ARMPROF_EC_S1_ABORT) |
                         (ARMPROF_FSC_PERMISSION | 3));
    assert_int_equal(sr & TRBSR_WRAP, 0);
    assert_int_equal(rd(e->t, TRBU_TRBPTR_EL1), LIMIT - 64);
    assert_int_equal(e->f.ev_wrap, 0);
    trbu_stats st;
    trbu_get_stats(e->t, &st);
    assert_int_equal(st.fault_events, 1);
    assert_int_equal(st.buffer_full_events, 0);
    /* without the fault the same write is the buffer full event */
    env_free(e);
    e = env_new(NULL);
    program_fill(e, LIMIT - 64);
    push(e, 64);
    assert_int_equal(rd(e->t, TRBU_TRBSR_EL1), TRBSR_IRQ | TRBSR_WRAP | TRBSR_S | TRBU_BSC_FILLED);
    assert_int_equal(e->f.ev_wrap, 1);
    env_free(e);
}

/* RGTMJD: an asynchronous External abort is not prioritized against synchronous events: a
 * synchronous fault on a later write is reported at once, while the abort is still on its way,
 * and the abort does not displace its syndrome when it arrives (TRBSR_EL1.S is already 1). */
static void test_async_not_prioritized_RGTMJD(void **s)
{
    (void)s;
    trbu_config c;
    trbu_config_default(&c);
    c.ea_async = true;
    c.ea_async_cycles = 50;
    env *e = env_new(&c);
    program_fill(e, BASE);
    fake_inject(&e->f, BASE + 64, ARMPROF_MEM_EXT_ABORT, 0, ARMPROF_FSC_AEA_WRITE, true, 0);
    push(e, 128);
    assert_int_equal(rd(e->t, TRBU_TRBSR_EL1), 0);         /* the abort is on its way */
    fake_inject(&e->f, BASE + 128, ARMPROF_MEM_FAULT, ARMPROF_EC_S1_ABORT,
                ARMPROF_FSC_TRANSLATION | 3, false, 0);
    push(e, 64);
    uint64_t want = TRBSR_IRQ | TRBSR_S | ap_field_prep(TRBSR_EC, ARMPROF_EC_S1_ABORT) |
                    (ARMPROF_FSC_TRANSLATION | 3);
    assert_int_equal(rd(e->t, TRBU_TRBSR_EL1), want);      /* reported now, EA clear */
    assert_int_equal(rd(e->t, TRBU_TRBPTR_EL1), BASE + 128);
    trbu_advance(e->t, 50);
    /* The abort arrives with S already 1: it is recorded (EA = 1, counted) but EC, FSC and
     * TRBPTR_EL1 stay those of the synchronous fault that came first. */
    assert_int_equal(rd(e->t, TRBU_TRBSR_EL1), want | TRBSR_EA);
    assert_int_equal(rd(e->t, TRBU_TRBPTR_EL1), BASE + 128);
    trbu_stats st;
    trbu_get_stats(e->t, &st);
    assert_int_equal(st.fault_events, 1);
    assert_int_equal(st.ext_abort_events, 1);
    env_free(e);
}

/* A context that owns the buffer at Non-secure EL1 (MDCR_EL2.E2TB = 0b11: no E2TB trap). */
static armprof_pe_ctx ctx_at(uint8_t el)
{
    armprof_pe_ctx c;
    armprof_pe_ctx_default(&c);
    c.mdcr3_nstb = 0x3;
    c.mdcr2_e2tb = 0x3;
    c.el = el;
    return c;
}

static armprof_err acc(env *e, const armprof_pe_ctx *c, uint32_t enc, bool write, uint64_t v)
{
    trbu_set_pe_context(e->t, c);
    uint64_t r = 0;
    return write ? trbu_reg_write(e->t, enc, v) : trbu_reg_read(e->t, enc, &r);
}

/* Arm ARM accessor of TRBSR_EL1 at EL2: with FEAT_TRBE_EXC, TRFCR_EL2.EE != 0b00 and
 * ELIsInHost(EL2) (HCR_EL2.E2H == 1) it names TRBSR_EL2; TRBSR_EL12 then names TRBSR_EL1. */
static void test_trbsr_el1_at_el2_in_host(void **s)
{
    (void)s;
    static const struct { bool exc; uint8_t ee; bool e2h; bool to_el2; } rows[] = {
        { true, 1, true, true }, { true, 3, true, true }, { true, 0, true, false },
        { true, 1, false, false }, { false, 0, true, false }, { false, 1, true, false },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        trbu_config cfg;
        trbu_config_default(&cfg);
        cfg.feat_trbe_exc = rows[i].exc;
        env *e = env_new(&cfg);
        armprof_pe_ctx c = ctx_at(2);
        c.hcr_e2h = rows[i].e2h;
        c.trfcr_el2_ee = rows[i].ee;
        assert_int_equal(acc(e, &c, TRBU_TRBSR_EL1, true, TRBSR_IRQ), ARMPROF_OK);
        uint64_t sr1 = rd(e->t, TRBU_TRBSR_EL1), sr2 = 0;
        if (rows[i].exc)
            sr2 = rd(e->t, TRBU_TRBSR_EL2);
        assert_int_equal(sr1, rows[i].to_el2 ? 0 : TRBSR_IRQ);
        assert_int_equal(sr2, rows[i].to_el2 ? TRBSR_IRQ : 0);
        uint64_t v = 0;
        assert_int_equal(trbu_reg_read(e->t, TRBU_TRBSR_EL1, &v), ARMPROF_OK);
        assert_int_equal(v, TRBSR_IRQ);                 /* the same name reads it back */
        env_free(e);
    }
}

/* TRBSR_EL12 at every EL, with and without E2H, and HCR_EL2.{NV2,NV1,NV} at EL1. */
static void test_trbsr_el12(void **s)
{
    (void)s;
    static const struct { bool exc; uint8_t el; bool e2h, nv2, nv1, nv; armprof_err want; } rows[] = {
        { true, 2, true, 0, 0, 0, ARMPROF_OK },
        { true, 3, true, 0, 0, 0, ARMPROF_OK },
        { true, 2, false, 0, 0, 0, ARMPROF_ERR_UNDEFINED },
        { true, 3, false, 0, 0, 0, ARMPROF_ERR_UNDEFINED },
        { true, 0, true, 0, 0, 0, ARMPROF_ERR_UNDEFINED },
        { true, 1, false, 0, 0, 0, ARMPROF_ERR_UNDEFINED },
        { true, 1, false, 0, 0, 1, ARMPROF_ERR_TRAP_EL2 },
        { true, 1, false, 0, 1, 1, ARMPROF_ERR_TRAP_EL2 },
        { true, 1, false, 1, 1, 1, ARMPROF_ERR_TRAP_EL2 },
        { true, 1, false, 1, 0, 1, ARMPROF_ERR_NV2_MEM },
        { false, 2, true, 0, 0, 0, ARMPROF_ERR_UNDEFINED },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        trbu_config cfg;
        trbu_config_default(&cfg);
        cfg.feat_trbe_exc = rows[i].exc;
        env *e = env_new(&cfg);
        armprof_pe_ctx c = ctx_at(rows[i].el);
        c.hcr_e2h = rows[i].e2h;
        c.hcr_nv2 = rows[i].nv2;
        c.hcr_nv1 = rows[i].nv1;
        c.hcr_nv = rows[i].nv;
        c.trfcr_el2_ee = 1;
        for (int w = 0; w <= 1; w++) {
            armprof_err got = acc(e, &c, TRBU_TRBSR_EL12, w, TRBSR_IRQ);
            if (got != rows[i].want)
                fail_msg("row %zu %s: %s, want %s", i, w ? "MSR" : "MRS", armprof_strerror(got),
                         armprof_strerror(rows[i].want));
        }
        /* a successful write reached TRBSR_EL1, nothing else */
        assert_int_equal(rd(e->t, TRBU_TRBSR_EL1), rows[i].want == ARMPROF_OK ? TRBSR_IRQ : 0);
        if (rows[i].exc)
            assert_int_equal(rd(e->t, TRBU_TRBSR_EL2), 0);
        env_free(e);
    }
}

/* FEAT_NV2: TRBSR_EL1 at EL1 with HCR_EL2.{NV2,NV1,NV} = {1,1,1} goes to NVMem[0x860] only when
 * both TRFCR_EL2.EE and TRFCR_EL1.EE are nonzero. */
static void test_trbsr_el1_nv2(void **s)
{
    (void)s;
    for (int ee2 = 0; ee2 <= 1; ee2++)
        for (int ee1 = 0; ee1 <= 1; ee1++) {
            trbu_config cfg;
            trbu_config_default(&cfg);
            cfg.feat_trbe_exc = true;
            env *e = env_new(&cfg);
            armprof_pe_ctx c = ctx_at(1);
            c.hcr_nv2 = c.hcr_nv1 = c.hcr_nv = true;
            c.trfcr_el2_ee = (uint8_t)ee2;
            c.trfcr_el1_ee = (uint8_t)ee1;
            armprof_err want = ee2 && ee1 ? ARMPROF_ERR_NV2_MEM : ARMPROF_OK;
            assert_int_equal(acc(e, &c, TRBU_TRBSR_EL1, false, 0), want);
            assert_int_equal(acc(e, &c, TRBU_TRBPTR_EL1, false, 0), ARMPROF_OK); /* TRBSR only */
            env_free(e);
        }
}

/* HDFGRTR_EL2 / HDFGWTR_EL2: each TRB register's own bit traps its reads / writes at EL1 to EL2
 * (EL2 enabled, SCR_EL3.FGTEn == 1), before MDCR_EL2.E2TB; no other bit does, nor at EL2, nor
 * with FGTEn == 0. TRBIDR_EL1 has a read trap only. */
static void test_fgt_trb_registers(void **s)
{
    (void)s;
    static const struct { uint32_t enc; uint8_t bit; bool writable; } regs[] = {
        { TRBU_TRBLIMITR_EL1, ARMPROF_FGT_TRBLIMITR, true }, { TRBU_TRBPTR_EL1, ARMPROF_FGT_TRBPTR, true },
        { TRBU_TRBBASER_EL1, ARMPROF_FGT_TRBBASER, true }, { TRBU_TRBSR_EL1, ARMPROF_FGT_TRBSR, true },
        { TRBU_TRBMAR_EL1, ARMPROF_FGT_TRBMAR, true }, { TRBU_TRBTRG_EL1, ARMPROF_FGT_TRBTRG, true },
        { TRBU_TRBIDR_EL1, ARMPROF_FGT_TRBIDR, false },
    };
    env *e = env_new(NULL);
    for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++)
        for (int w = 0; w <= (int)regs[i].writable; w++)
            for (unsigned b = 0; b < 7; b++)
                for (int el = 1; el <= 2; el++)
                    for (int fgten = 0; fgten <= 1; fgten++) {
                        armprof_pe_ctx c = ctx_at((uint8_t)el);
                        c.scr_fgten = fgten;
                        if (w)
                            c.hdfgwtr_trb = (uint8_t)(1u << b);
                        else
                            c.hdfgrtr_trb = (uint8_t)(1u << b);
                        bool trap = el == 1 && fgten && (1u << b) == regs[i].bit;
                        armprof_err got = acc(e, &c, regs[i].enc, w, 0);
                        armprof_err want = trap ? ARMPROF_ERR_TRAP_EL2 : ARMPROF_OK;
                        if (got != want)
                            fail_msg("reg %zu %s bit %u EL%d FGTEn %d: %s, want %s", i, w ? "MSR" : "MRS",
                                     b, el, fgten, armprof_strerror(got), armprof_strerror(want));
                    }
    /* the read trap does not trap writes, nor the write trap reads */
    armprof_pe_ctx c = ctx_at(1);
    c.scr_fgten = true;
    c.hdfgrtr_trb = ARMPROF_FGT_TRBPTR;
    assert_int_equal(acc(e, &c, TRBU_TRBPTR_EL1, true, 0), ARMPROF_OK);
    c.hdfgrtr_trb = 0;
    c.hdfgwtr_trb = ARMPROF_FGT_TRBPTR;
    assert_int_equal(acc(e, &c, TRBU_TRBPTR_EL1, false, 0), ARMPROF_OK);
    /* the fine-grained trap comes before the MDCR_EL2.E2TB trap, both to EL2; EL2 disabled: none */
    c.mdcr2_e2tb = 0;
    assert_int_equal(acc(e, &c, TRBU_TRBPTR_EL1, true, 0), ARMPROF_ERR_TRAP_EL2);
    c.mdcr2_e2tb = 0x3;
    c.have_el2 = false;
    assert_int_equal(acc(e, &c, TRBU_TRBPTR_EL1, true, 0), ARMPROF_OK);
    env_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fault_outranks_wrap_RMKCHT),
        cmocka_unit_test(test_async_not_prioritized_RGTMJD),
        cmocka_unit_test(test_trbsr_el1_at_el2_in_host),
        cmocka_unit_test(test_trbsr_el12),
        cmocka_unit_test(test_trbsr_el1_nv2),
        cmocka_unit_test(test_fgt_trb_registers),
    };
    return cmocka_run_group_tests_name("trbu_rules", tests, NULL, NULL);
}
