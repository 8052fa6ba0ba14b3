/* SPDX-License-Identifier: Apache-2.0 */
/* test_trbu_tables.c: every row of Tables D6-5 .. D6-10 (RBNQRP routing, RMFMXQ exception, RVSCDV TRBIRQ). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "armprof/trbu.h"
#include "armprof/bits.h"
#include "trbu_fake.h"

#define BASE 0x10000ull
#define LIMIT 0x12000ull

/*
 * Cells are written as in the tables without the 0b prefix: "0X", "1X", "XX", "!00" (!=0b00).
 * The tests enumerate every combination of control values (MDCR_EL2.E2TB without its reserved
 * 0b01), find the one row that matches it (failing if none or two do, so the transcription is
 * checked too), and compare the model with that row. Every row must be matched at least once.
 */
static bool cell_match(const char *p, unsigned v, unsigned width)
{
    if (p[0] == '!')
        return !cell_match(p + 1, v, width);
    for (unsigned i = 0; i < width; i++) {
        char ch = p[i];
        unsigned bit = (v >> (width - 1 - i)) & 1;
        if (ch == 'X')
            continue;
        if ((unsigned)(ch - '0') != bit)
            return false;
    }
    return true;
}

static armprof_pe_ctx base_ctx(void)
{
    armprof_pe_ctx c;
    armprof_pe_ctx_default(&c); /* EL1 Non-secure, EL2 and EL3, NSTB = 0b11, E2TB = 0b11 */
    return c;
}

/* ----- RBNQRP: Tables D6-5, D6-6, D6-7 --------------------------------------------------------- */

typedef enum col_event {
    EV_S1_GPF, EV_S2_GPF, EV_GPC, EV_S1_EA, EV_S2_EA, EV_S1_OTHER, EV_S2_OTHER, EV_OTHER
} col_event;

/* Produce the event on a fresh unit and return which TRBSR_ELx recorded it (0 if none or more). */
static unsigned recorded_in(const armprof_pe_ctx *ctx, col_event ev)
{
    static fake f;
    memset(&f, 0, sizeof(f));
    trbu_config cfg;
    trbu_config_default(&cfg);
    cfg.feat_trbe_exc = true;
    cfg.ea_write = TRBU_EA_REPORT;        /* stage 1 External abort: reported, EC 0x24 */
    cfg.ea_walk = TRBU_EA_MMU_FAULT;      /* stage 2 walk External abort: MMU fault, EC 0x25 */
    armprof_host_ops ops = fake_ops(&f);
    trbu_t *t;
    assert_int_equal(trbu_open(&cfg, &ops, &t), ARMPROF_OK);
    armprof_pe_ctx c3 = *ctx;
    c3.el = 3;
    trbu_set_pe_context(t, &c3);
    bool full = ev == EV_OTHER;
    uint64_t start = full ? LIMIT - 64 : BASE;
    assert_int_equal(trbu_reg_write(t, TRBU_TRBBASER_EL1, BASE), ARMPROF_OK);
    assert_int_equal(trbu_reg_write(t, TRBU_TRBPTR_EL1, start), ARMPROF_OK);
    assert_int_equal(trbu_reg_write(t, TRBU_TRBLIMITR_EL1, LIMIT | TRBLIMITR_EL1_E |
                                    ap_field_prep(TRBLIMITR_EL1_TM, TRBU_TM_IGNORE)), ARMPROF_OK);
    trbu_set_pe_context(t, ctx);
    switch (ev) {
    case EV_S1_GPF: fake_inject(&f, BASE, ARMPROF_MEM_FAULT, 0x24, ARMPROF_FSC_GPF, false, 0); break;
    case EV_S2_GPF: fake_inject(&f, BASE, ARMPROF_MEM_FAULT, 0x25, ARMPROF_FSC_GPF, false, 0); break;
    case EV_GPC: fake_inject(&f, BASE, ARMPROF_MEM_FAULT, 0x1E, 0x04, false, 0); break;
    case EV_S1_EA: fake_inject(&f, BASE, ARMPROF_MEM_EXT_ABORT, 0, ARMPROF_FSC_SEA_WRITE, false, 0); break;
    case EV_S2_EA: fake_inject(&f, BASE, ARMPROF_MEM_EXT_ABORT, 0x25, 0x15, false, 0); break;
    case EV_S1_OTHER: fake_inject(&f, BASE, ARMPROF_MEM_FAULT, 0x24, 0x07, false, 0); break;
    case EV_S2_OTHER: fake_inject(&f, BASE, ARMPROF_MEM_FAULT, 0x25, 0x07, false, 0); break;
    case EV_OTHER: break; /* a buffer full event in Fill mode */
    }
    uint8_t buf[64] = {0};
    trbu_trace_bytes(t, buf, sizeof(buf));
    unsigned where = 0, n = 0;
    static const uint32_t sr[4] = { 0, TRBU_TRBSR_EL1, TRBU_TRBSR_EL2, TRBU_TRBSR_EL3 };
    for (unsigned el = 1; el <= 3; el++) {
        uint64_t v;
        assert_int_equal(trbu_reg_peek(t, sr[el], &v), ARMPROF_OK);
        if (v & TRBSR_S) {
            assert_true(v & TRBSR_IRQ);
            where = el;
            n++;
        } else {
            assert_int_equal(v, 0);
        }
    }
    /* the model's own routing query agrees with where the event landed */
    static const trbu_event_kind kinds[] = { TRBU_EVK_S1_GPF, TRBU_EVK_S2_GPF, TRBU_EVK_GPC,
        TRBU_EVK_S1_EA, TRBU_EVK_S2_EA, TRBU_EVK_S1_OTHER, TRBU_EVK_S2_OTHER, TRBU_EVK_OTHER };
    if (n == 1)
        assert_int_equal(trbu_event_route(t, kinds[ev]), where);
    trbu_close(t);
    return n == 1 ? where : 0;
}

typedef struct route_row {
    const char *trbee, *scr, *ee2, *e2tb, *hcr;   /* scr / hcr: SCR_EL3.GPF|EA, HCR_EL2.GPF|TEA */
    unsigned out[3];
} route_row;

static const route_row d6_5[] = {   /* MDCR_EL3.TRBEE SCR_EL3.GPF TRFCR_EL2.EE MDCR_EL2.E2TB HCR_EL2.GPF */
    { "00", "X", "XX", "XX", "X", { 1, 1, 1 } },
    { "01", "X", "0X", "XX", "X", { 1, 1, 1 } },
    { "01", "X", "10", "00", "X", { 2, 2, 2 } },
    { "01", "X", "10", "1X", "0", { 1, 2, 2 } },
    { "01", "X", "10", "1X", "1", { 2, 2, 2 } },
    { "01", "X", "11", "XX", "X", { 2, 2, 2 } },
    { "10", "0", "0X", "XX", "X", { 1, 1, 3 } },
    { "10", "0", "10", "00", "X", { 2, 2, 3 } },
    { "10", "0", "10", "1X", "0", { 1, 2, 3 } },
    { "10", "0", "10", "1X", "1", { 2, 2, 3 } },
    { "10", "0", "11", "XX", "X", { 2, 2, 3 } },
    { "10", "1", "XX", "XX", "X", { 3, 3, 3 } },
    { "11", "X", "XX", "XX", "X", { 3, 3, 3 } },
};
static const route_row d6_6[] = {   /* MDCR_EL3.TRBEE SCR_EL3.EA TRFCR_EL2.EE MDCR_EL2.E2TB HCR_EL2.TEA */
    { "00", "X", "XX", "XX", "X", { 1, 1 } },
    { "01", "X", "0X", "XX", "X", { 1, 1 } },
    { "01", "X", "10", "00", "X", { 2, 2 } },
    { "01", "X", "10", "1X", "0", { 1, 2 } },
    { "01", "X", "10", "1X", "1", { 2, 2 } },
    { "01", "X", "11", "XX", "X", { 2, 2 } },
    { "10", "0", "0X", "XX", "X", { 1, 1 } },
    { "10", "0", "10", "00", "X", { 2, 2 } },
    { "10", "0", "10", "1X", "0", { 1, 2 } },
    { "10", "0", "10", "1X", "1", { 2, 2 } },
    { "10", "0", "11", "XX", "X", { 2, 2 } },
    { "10", "1", "XX", "XX", "X", { 3, 3 } },
    { "11", "X", "XX", "XX", "X", { 3, 3 } },
};
static const route_row d6_7[] = {   /* MDCR_EL3.TRBEE TRFCR_EL2.EE MDCR_EL2.E2TB */
    { "00", "X", "XX", "XX", "X", { 1, 1, 1 } },
    { "01", "X", "0X", "XX", "X", { 1, 1, 1 } },
    { "01", "X", "10", "00", "X", { 2, 2, 1 } },
    { "01", "X", "10", "1X", "X", { 1, 2, 1 } },
    { "01", "X", "11", "XX", "X", { 2, 2, 2 } },
    { "10", "X", "0X", "XX", "X", { 1, 1, 1 } },
    { "10", "X", "10", "00", "X", { 2, 2, 1 } },
    { "10", "X", "10", "1X", "X", { 1, 2, 1 } },
    { "10", "X", "11", "XX", "X", { 2, 2, 2 } },
    { "11", "X", "XX", "XX", "X", { 3, 3, 3 } },
};

static void route_table(const char *name, const route_row *rows, size_t nrows, const col_event *evs,
                        unsigned nev, int which_scr /* 0 GPF, 1 EA */)
{
    unsigned *hits = calloc(nrows, sizeof(unsigned));
    static const unsigned e2tb_vals[] = { 0x0, 0x2, 0x3 };
    for (unsigned trbee = 0; trbee < 4; trbee++)
        for (unsigned scr = 0; scr < 2; scr++)
            for (unsigned ee2 = 0; ee2 < 4; ee2++)
                for (unsigned ei = 0; ei < 3; ei++)
                    for (unsigned hcr = 0; hcr < 2; hcr++) {
                        unsigned e2tb = e2tb_vals[ei];
                        const route_row *row = NULL;
                        for (size_t i = 0; i < nrows; i++) {
                            const route_row *r = &rows[i];
                            if (cell_match(r->trbee, trbee, 2) && cell_match(r->scr, scr, 1) &&
                                cell_match(r->ee2, ee2, 2) && cell_match(r->e2tb, e2tb, 2) &&
                                cell_match(r->hcr, hcr, 1)) {
                                if (row)
                                    fail_msg("%s: two rows match", name);
                                row = r;
                                hits[i]++;
                            }
                        }
                        if (!row)
                            fail_msg("%s: no row for TRBEE=%u EE=%u E2TB=%u", name, trbee, ee2, e2tb);
                        armprof_pe_ctx c = base_ctx();
                        c.mdcr3_trbee = (uint8_t)trbee;
                        c.trfcr_el2_ee = (uint8_t)ee2;
                        c.mdcr2_e2tb = (uint8_t)e2tb;
                        if (which_scr == 0) {
                            c.scr_gpf = scr;
                            c.hcr_gpf = hcr;
                        } else {
                            c.scr_ea = scr;
                            c.hcr_tea = hcr;
                        }
                        for (unsigned k = 0; k < nev; k++) {
                            unsigned got = recorded_in(&c, evs[k]);
                            if (got != row->out[k])
                                fail_msg("%s row %zu (TRBEE=%u SCR=%u EE=%u E2TB=%u HCR=%u) "
                                         "column %u: TRBSR_EL%u, expected TRBSR_EL%u",
                                         name, (size_t)(row - rows), trbee, scr, ee2, e2tb, hcr, k,
                                         got, row->out[k]);
                        }
                    }
    for (size_t i = 0; i < nrows; i++)
        if (!hits[i])
            fail_msg("%s: row %zu never exercised", name, i);
    free(hits);
}

static void test_table_D6_5_gpc_RBNQRP(void **s)
{
    (void)s;
    /* columns: GPF Stage 1, GPF Stage 2, GPC fault; both a GPF reported as a stage 1 and as a
     * stage 2 abort are produced for the single "GPF" columns */
    static const col_event ev[] = { EV_S1_GPF, EV_S2_GPF, EV_GPC };
    route_table("D6-5", d6_5, sizeof(d6_5) / sizeof(d6_5[0]), ev, 3, 0);
}

static void test_table_D6_6_ext_abort_RBNQRP(void **s)
{
    (void)s;
    static const col_event ev[] = { EV_S1_EA, EV_S2_EA };
    route_table("D6-6", d6_6, sizeof(d6_6) / sizeof(d6_6[0]), ev, 2, 1);
}

static void test_table_D6_7_other_RBNQRP(void **s)
{
    (void)s;
    static const col_event ev[] = { EV_S1_OTHER, EV_S2_OTHER, EV_OTHER };
    route_table("D6-7", d6_7, sizeof(d6_7) / sizeof(d6_7[0]), ev, 3, 0);
}

static void test_no_exc_all_in_el1(void **s)
{
    (void)s;
    /* Without FEAT_TRBE_EXC (or with self-hosted trace disabled) everything is in TRBSR_EL1. */
    fake f;
    memset(&f, 0, sizeof(f));
    trbu_config cfg;
    trbu_config_default(&cfg);
    trbu_t *t;
    armprof_host_ops ops = fake_ops(&f);
    assert_int_equal(trbu_open(&cfg, &ops, &t), ARMPROF_OK);
    armprof_pe_ctx c = base_ctx();
    c.mdcr3_trbee = 3;
    c.trfcr_el2_ee = 3;
    trbu_set_pe_context(t, &c);
    for (int k = 0; k < TRBU_EVK__COUNT; k++)
        assert_int_equal(trbu_event_route(t, (trbu_event_kind)k), 1);
    trbu_close(t);
    cfg.feat_trbe_exc = true;
    assert_int_equal(trbu_open(&cfg, &ops, &t), ARMPROF_OK);
    c.self_hosted_trace_off = true;
    trbu_set_pe_context(t, &c);
    for (int k = 0; k < TRBU_EVK__COUNT; k++)
        assert_int_equal(trbu_event_route(t, (trbu_event_kind)k), 1);
    trbu_close(t);
}

/* ----- RMFMXQ / RVSCDV: Tables D6-8, D6-9, D6-10 ---------------------------------------------- */

typedef struct exc_row {
    const char *trbee, *ee2, *tge, *ee1, *ke, *pm;   /* KE: TRFCR_EL1.KE (D6-8) or TRFCR_EL2.KE (D6-9) */
    const char *irq;                                  /* "HIGH" / "LOW" (D6-8 only) */
    const char *from[4];                              /* taken from EL0..EL3 */
} exc_row;

static const exc_row d6_8[] = {   /* TRBSR_EL1.IRQ == 1 */
    { "00", "XX", "0", "XX", "X", "X", "HIGH", { "None", "None", "None", "None" } },
    { "00", "XX", "1", "XX", "X", "X", "HIGH", { "None", "n/a", "None", "None" } },
    { "!00", "00", "0", "XX", "X", "X", "HIGH", { "None", "None", "None", "None" } },
    { "!00", "00", "1", "XX", "X", "X", "HIGH", { "None", "n/a", "None", "None" } },
    { "!00", "!00", "0", "0X", "X", "X", "HIGH", { "None", "None", "None", "None" } },
    { "!00", "!00", "0", "1X", "0", "X", "LOW", { "EL1", "C", "C", "C" } },
    { "!00", "!00", "0", "1X", "1", "0", "LOW", { "EL1", "EL1", "C", "C" } },
    { "!00", "!00", "0", "1X", "1", "1", "LOW", { "EL1", "B", "C", "C" } },
    { "!00", "!00", "1", "0X", "X", "X", "HIGH", { "None", "n/a", "None", "None" } },
    { "!00", "!00", "1", "1X", "X", "X", "LOW", { "EL2", "n/a", "C", "C" } },
};
static const exc_row d6_9[] = {   /* TRBSR_EL2.IRQ == 1; ee1 unused */
    { "00", "XX", "0", "XX", "X", "X", NULL, { "None", "None", "None", "None" } },
    { "00", "XX", "1", "XX", "X", "X", NULL, { "None", "n/a", "None", "None" } },
    { "!00", "0X", "0", "XX", "X", "X", NULL, { "None", "None", "None", "None" } },
    { "!00", "0X", "1", "XX", "X", "X", NULL, { "None", "n/a", "None", "None" } },
    { "!00", "10", "0", "XX", "X", "X", NULL, { "EL2", "EL2", "C", "C" } },
    { "!00", "10", "1", "XX", "X", "X", NULL, { "EL2", "n/a", "C", "C" } },
    { "!00", "11", "0", "XX", "0", "X", NULL, { "EL2", "EL2", "C", "C" } },
    { "!00", "11", "1", "XX", "0", "X", NULL, { "EL2", "n/a", "C", "C" } },
    { "!00", "11", "0", "XX", "1", "0", NULL, { "EL2", "EL2", "EL2", "C" } },
    { "!00", "11", "0", "XX", "1", "1", NULL, { "EL2", "EL2", "B", "C" } },
    { "!00", "11", "1", "XX", "1", "0", NULL, { "EL2", "n/a", "EL2", "C" } },
    { "!00", "11", "1", "XX", "1", "1", NULL, { "EL2", "n/a", "B", "C" } },
};
static const exc_row d6_10[] = {  /* TRBSR_EL3.IRQ == 1; only TRBEE and TGE matter */
    { "0X", "XX", "0", "XX", "X", "X", NULL, { "None", "None", "None", "None" } },
    { "0X", "XX", "1", "XX", "X", "X", NULL, { "None", "n/a", "None", "None" } },
    { "10", "XX", "0", "XX", "X", "X", NULL, { "EL3", "EL3", "EL3", "C" } },
    { "10", "XX", "1", "XX", "X", "X", NULL, { "EL3", "n/a", "EL3", "C" } },
    { "11", "XX", "0", "XX", "X", "X", NULL, { "EL3", "EL3", "EL3", "C" } },
    { "11", "XX", "1", "XX", "X", "X", NULL, { "EL3", "n/a", "EL3", "C" } },
};

static void check_cell(const char *table, size_t row, unsigned el, const char *want,
                       const trbu_exc_state *st)
{
    bool ok;
    if (strcmp(want, "None") == 0)
        ok = !st->pending && st->outcome == TRBU_EXC_NONE;
    else if (strcmp(want, "B") == 0)
        ok = st->pending && st->outcome == TRBU_EXC_MASKED_PM;
    else if (strcmp(want, "C") == 0)
        ok = st->pending && st->outcome == TRBU_EXC_MASKED;
    else
        ok = st->pending && st->outcome == TRBU_EXC_TAKEN && st->target_el == (unsigned)(want[2] - '0');
    if (!ok)
        fail_msg("%s row %zu from EL%u: expected %s, got pending=%d target=EL%u outcome=%d",
                 table, row, el, want, st->pending, st->target_el, st->outcome);
}

static void exc_table(const char *name, const exc_row *rows, size_t nrows, unsigned sr_el)
{
    unsigned *hits = calloc(nrows, sizeof(unsigned));
    fake f;
    memset(&f, 0, sizeof(f));
    trbu_config cfg;
    trbu_config_default(&cfg);
    cfg.feat_trbe_exc = true;
    armprof_host_ops ops = fake_ops(&f);
    trbu_t *t;
    assert_int_equal(trbu_open(&cfg, &ops, &t), ARMPROF_OK);
    armprof_pe_ctx c = base_ctx();
    c.el = 3;
    trbu_set_pe_context(t, &c);
    static const uint32_t sr[4] = { 0, TRBU_TRBSR_EL1, TRBU_TRBSR_EL2, TRBU_TRBSR_EL3 };
    assert_int_equal(trbu_reg_write(t, sr[sr_el], TRBSR_IRQ), ARMPROF_OK);
    for (unsigned trbee = 0; trbee < 4; trbee++)
        for (unsigned ee2 = 0; ee2 < 4; ee2++)
            for (unsigned tge = 0; tge < 2; tge++)
                for (unsigned ee1 = 0; ee1 < 4; ee1++)
                    for (unsigned ke = 0; ke < 2; ke++)
                        for (unsigned pm = 0; pm < 2; pm++) {
                            const exc_row *row = NULL;
                            for (size_t i = 0; i < nrows; i++) {
                                const exc_row *r = &rows[i];
                                if (cell_match(r->trbee, trbee, 2) && cell_match(r->ee2, ee2, 2) &&
                                    cell_match(r->tge, tge, 1) && cell_match(r->ee1, ee1, 2) &&
                                    cell_match(r->ke, ke, 1) && cell_match(r->pm, pm, 1)) {
                                    if (row)
                                        fail_msg("%s: two rows match", name);
                                    row = r;
                                    hits[i]++;
                                }
                            }
                            if (!row)
                                fail_msg("%s: no row matches", name);
                            size_t ri = (size_t)(row - rows);
                            c = base_ctx();
                            c.mdcr3_trbee = (uint8_t)trbee;
                            c.trfcr_el2_ee = (uint8_t)ee2;
                            c.hcr_tge = tge;
                            c.hcr_e2h = tge;
                            c.trfcr_el1_ee = (uint8_t)ee1;
                            if (sr_el == 1)
                                c.trfcr_el1_ke = ke;
                            else
                                c.trfcr_el2_ke = ke;
                            c.pstate_pm = pm;
                            for (unsigned el = 0; el <= 3; el++) {
                                if (strcmp(row->from[el], "n/a") == 0)
                                    continue;
                                c.el = (uint8_t)el;
                                trbu_set_pe_context(t, &c);
                                trbu_exc_state st;
                                trbu_exception_state(t, &st);
                                check_cell(name, ri, el, row->from[el], &st);
                                if (row->irq) {
                                    bool high = strcmp(row->irq, "HIGH") == 0;
                                    if (trbu_irq_level(t) != high || f.irq != high)
                                        fail_msg("%s row %zu: TRBIRQ expected %s", name, ri, row->irq);
                                } else {
                                    /* only TRBSR_EL1.IRQ drives TRBIRQ */
                                    assert_false(trbu_irq_level(t));
                                }
                            }
                        }
    for (size_t i = 0; i < nrows; i++)
        if (!hits[i])
            fail_msg("%s: row %zu never exercised", name, i);
    trbu_close(t);
    free(hits);
}

static void test_table_D6_8_trbsr_el1_RMFMXQ_RVSCDV(void **s)
{
    (void)s;
    exc_table("D6-8", d6_8, sizeof(d6_8) / sizeof(d6_8[0]), 1);
}
static void test_table_D6_9_trbsr_el2_RMFMXQ(void **s)
{
    (void)s;
    exc_table("D6-9", d6_9, sizeof(d6_9) / sizeof(d6_9[0]), 2);
}
static void test_table_D6_10_trbsr_el3_RMFMXQ(void **s)
{
    (void)s;
    exc_table("D6-10", d6_10, sizeof(d6_10) / sizeof(d6_10[0]), 3);
}

/* RYXTTY: an enabled and unmasked TRBE Profiling exception is taken (TRBU_EXC_TAKEN) at once;
 * masked ones stay pending. */
static void test_exception_debug_and_security_RMFMXQ(void **s)
{
    (void)s;
    fake f;
    memset(&f, 0, sizeof(f));
    trbu_config cfg;
    trbu_config_default(&cfg);
    cfg.feat_trbe_exc = true;
    armprof_host_ops ops = fake_ops(&f);
    trbu_t *t;
    assert_int_equal(trbu_open(&cfg, &ops, &t), ARMPROF_OK);
    armprof_pe_ctx c = base_ctx();
    c.el = 3;
    trbu_set_pe_context(t, &c);
    assert_int_equal(trbu_reg_write(t, TRBU_TRBSR_EL1, TRBSR_IRQ), ARMPROF_OK);
    c = base_ctx();
    c.mdcr3_trbee = 1;
    c.trfcr_el2_ee = 1;
    c.trfcr_el1_ee = 3;
    c.el = 0;
    trbu_exc_state st;
    trbu_set_pe_context(t, &c);
    trbu_exception_state(t, &st);
    assert_int_equal(st.outcome, TRBU_EXC_TAKEN);
    c.debug_state = true;                               /* Debug state: masked */
    trbu_set_pe_context(t, &c);
    trbu_exception_state(t, &st);
    assert_int_equal(st.outcome, TRBU_EXC_MASKED);
    c.debug_state = false;
    c.mdcr3_nstb = 0x1;                                 /* Secure owns the buffer: masked in NS */
    trbu_set_pe_context(t, &c);
    trbu_exception_state(t, &st);
    assert_true(st.pending);
    assert_int_equal(st.outcome, TRBU_EXC_MASKED);
    c.mdcr3_nstb = 0x3;
    c.self_hosted_trace_off = true;                     /* IWKGWP: never with self-hosted off */
    trbu_set_pe_context(t, &c);
    trbu_exception_state(t, &st);
    assert_false(st.pending);
    assert_true(trbu_irq_level(t));
    trbu_close(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_D6_5_gpc_RBNQRP),
        cmocka_unit_test(test_table_D6_6_ext_abort_RBNQRP),
        cmocka_unit_test(test_table_D6_7_other_RBNQRP),
        cmocka_unit_test(test_no_exc_all_in_el1),
        cmocka_unit_test(test_table_D6_8_trbsr_el1_RMFMXQ_RVSCDV),
        cmocka_unit_test(test_table_D6_9_trbsr_el2_RMFMXQ),
        cmocka_unit_test(test_table_D6_10_trbsr_el3_RMFMXQ),
        cmocka_unit_test(test_exception_debug_and_security_RMFMXQ),
    };
    return cmocka_run_group_tests_name("trbu_tables", tests, NULL, NULL);
}
