/* SPDX-License-Identifier: Apache-2.0 */
/* test_spu_tables.c: Table 3 (enabling), Tables 5 / D17-4 (owning regime), Table 4 (filtering), §3.3 controls. */
#include "spu_fixture.h"

/* ---------------------------------------------------------------------------------------------
 * Table 3: Enabling by Exception level and Security state. Columns S, E, NS, NSPB, E2PB, TGE;
 * result per EL3, EL2, EL1, EL0: 'D' disabled, 'n' n/a, or the enable bit that decides it.
 * Every row is checked with its enable bit at 1 (then enabled) and at 0 (then disabled).
 * --------------------------------------------------------------------------------------------- */
typedef enum { D, NA, E2SPE, E1SPE, E0SPE, E0HSPE } t3;
typedef struct t3row {
    int s, e, ns, nspb, e2pb, tge; /* -1: X (both values tried) */
    t3 el[4];                      /* EL0, EL1, EL2, EL3 */
} t3row;

static const t3row table3[] = {
    { 1, -1, -1, -1, -1, -1, { D, D, D, D } },
    { 0, 0, -1, -1, -1, -1, { D, D, D, D } },
    { 0, 1, 1, 2, 2, 0, { E0SPE, E1SPE, D, D } },   /* NSPB 0b1X, E2PB 0b1X, TGE 0 */
    { 0, 1, 1, 2, 2, 1, { D, NA, D, D } },          /* TGE 1 */
    { 0, 1, 1, 2, 0, 0, { E0SPE, E1SPE, E2SPE, D } }, /* E2PB 0b00 */
    { 0, 1, 1, 2, 0, 1, { E0HSPE, NA, E2SPE, D } },
    { 0, 1, 1, 0, -1, -1, { D, D, D, D } },         /* NS 1, NSPB 0b0X */
    { 0, 1, 0, 2, -1, -1, { D, D, NA, D } },        /* NS 0, NSPB 0b1X */
    { 0, 1, 0, 0, -1, -1, { E0SPE, E1SPE, NA, D } }, /* NS 0, NSPB 0b0X */
};

static void set_bit(fx *f, t3 which, bool v)
{
    uint64_t el1 = fx_rd(f, SPU_PMSCR_EL1), el2 = fx_rd(f, SPU_PMSCR_EL2);
    armprof_pe_ctx save = f->ctx;
    f->ctx.el = 3; /* program from EL3, which may write everything */
    fx_ctx(f);
    switch (which) {
    case E1SPE: el1 = v ? el1 | 2 : el1 & ~2ull; break;
    case E0SPE: el1 = v ? el1 | 1 : el1 & ~1ull; break;
    case E2SPE: el2 = v ? el2 | 2 : el2 & ~2ull; break;
    case E0HSPE: el2 = v ? el2 | 1 : el2 & ~1ull; break;
    default: break;
    }
    /* at EL3 (E2H=0) PMSCR_EL1 is PMSCR_EL1 */
    f->ctx.hcr_e2h = false;
    fx_ctx(f);
    fx_wr(f, SPU_PMSCR_EL1, el1);
    fx_wr(f, SPU_PMSCR_EL2, el2);
    f->ctx = save;
    fx_ctx(f);
}

static void check_row(fx *f, const t3row *r, int s, int e, int ns, int nspb, int e2pb, int tge)
{
    for (int el = 0; el < 4; el++) {
        t3 want = r->el[el];
        if (want == NA)
            continue;
        armprof_pe_ctx_default(&f->ctx);
        f->ctx.el = (uint8_t)el;
        f->ctx.scr_ns = ns;
        f->ctx.mdcr3_nspb = (uint8_t)nspb;
        f->ctx.mdcr2_e2pb = (uint8_t)e2pb;
        f->ctx.hcr_tge = tge;
        f->ctx.hcr_e2h = tge; /* TGE hosts run with E2H */
        fx_ctx(f);
        /* E and S through the unit's own registers (written at EL3). */
        armprof_pe_ctx save = f->ctx;
        f->ctx.el = 3;
        fx_ctx(f);
        fx_wr(f, SPU_PMBLIMITR_EL1, 0x40010000ull | (uint64_t)e);
        fx_wr(f, SPU_PMBSR_EL1, (uint64_t)s << 17);
        f->ctx = save;
        fx_ctx(f);
        for (int bit = 0; bit <= 1; bit++) {
            /* all four enable bits on, then the deciding one set to `bit` */
            set_bit(f, E1SPE, true);
            set_bit(f, E0SPE, true);
            set_bit(f, E2SPE, true);
            set_bit(f, E0HSPE, true);
            if (want != D)
                set_bit(f, want, bit);
            bool expect = want != D && bit;
            if (spu_profiling_enabled(f->spu) != expect)
                fail_msg("Table 3 row S=%d E=%d NS=%d NSPB=%d E2PB=%d TGE=%d EL%d bit=%d: "
                         "expected %s", s, e, ns, nspb, e2pb, tge, el, bit,
                         expect ? "enabled" : "disabled");
            /* The population is counted exactly when profiling is enabled (SAMPLE_POP). */
            spu_op op = fx_op_other(0x1000);
            spu_op_result res = spu_retire(f->spu, &op);
            assert_int_equal(res != SPU_OP_NOT_COUNTED, expect);
        }
    }
}

/* RTDHBH / RKRVDC: profiling disabled at EL3, at EL2 when the owning EL is EL1, and at EL0
 * with HCR_EL2.TGE == 1. */
static void test_table3(void **state)
{
    fx *f = *state;
    for (size_t i = 0; i < sizeof(table3) / sizeof(table3[0]); i++) {
        const t3row *r = &table3[i];
        for (int s = 0; s <= 1; s++)
            for (int e = 0; e <= 1; e++)
                for (int ns = 0; ns <= 1; ns++)
                    for (int nspb = 0; nspb <= 3; nspb++)
                        for (int e2pb = 0; e2pb <= 3; e2pb++)
                            for (int tge = 0; tge <= 1; tge++) {
                                if ((r->s >= 0 && s != r->s) || (r->e >= 0 && e != r->e) ||
                                    (r->ns >= 0 && ns != r->ns) || (r->tge >= 0 && tge != r->tge))
                                    continue;
                                /* 0b1X / 0b0X match on bit 1; 0b00 exact; E2PB 0b01 is not in the table */
                                if (r->nspb >= 0 && ((nspb & 2) != (r->nspb & 2)))
                                    continue;
                                if (r->e2pb == 0 && e2pb != 0)
                                    continue;
                                if (r->e2pb == 2 && !(e2pb & 2))
                                    continue;
                                if (r->e2pb < 0 && e2pb == 1)
                                    continue;
                                check_row(f, r, s, e, ns, nspb, e2pb, tge);
                            }
    }
}

/* Profiling is disabled in Debug state and in AArch32 (§2.1.1, §3.2.1). */
static void test_debug_and_aarch32_disable(void **state)
{
    fx *f = *state;
    fx_start(f, FX_MEM_BASE, 64 * 1024, 256, false, 0);
    assert_true(spu_profiling_enabled(f->spu));
    f->ctx.debug_state = true;
    fx_ctx(f);
    assert_false(spu_profiling_enabled(f->spu));
    f->ctx.debug_state = false;
    f->ctx.aarch32 = true;
    fx_ctx(f);
    assert_false(spu_profiling_enabled(f->spu));
}

/* ---------------------------------------------------------------------------------------------
 * Table D17-4: the owning translation regime, every row, with FEAT_RME (NSE, NSPBE) and
 * Secure EL2 (EEL2). The 2017 Table 5 is the subset with NSE = NSPBE = 0 and EEL2 = 0.
 * --------------------------------------------------------------------------------------------- */
typedef enum { DIS, S10, S2, S20, NS10, NS2, NS20, R10, R2, R20, RSV } own;
typedef struct d174 {
    int e, nse, ns, eel2, nspbe, nspb, e2pb, e2h; /* -1: x; nspb/e2pb: 0b0x = -2, 0b1x = -3 */
    own r;
} d174;

static const d174 tabd174[] = {
    { 0, -1, -1, -1, -1, -1, -1, -1, DIS },
    { 1, 0, 0, 0, 0, -2, -1, -1, S10 },
    { 1, 0, 0, 1, 0, -2, -3, -1, S10 },
    { 1, 0, 0, 1, 0, -2, 0, 0, S2 },
    { 1, 0, 0, 1, 0, -2, 0, 1, S20 },
    { 1, 0, 0, -1, 0, -3, -1, -1, DIS },   /* Disabled in Secure state */
    { 1, 0, 1, -1, 0, -3, -3, -1, NS10 },
    { 1, 0, 1, -1, 0, -3, 0, 0, NS2 },
    { 1, 0, 1, -1, 0, -3, 0, 1, NS20 },
    { 1, 0, 1, -1, 0, -2, -1, -1, DIS },   /* Disabled in Non-secure state */
    { 1, 1, 1, -1, 1, -3, -3, -1, R10 },
    { 1, 1, 1, -1, 1, -3, 0, 0, R2 },
    { 1, 1, 1, -1, 1, -3, 0, 1, R20 },
    { 1, 1, 1, -1, 1, -2, -1, -1, DIS },
    { -1, -1, -1, -1, 1, -2, -1, -1, RSV }, /* NSPBE 1, NSPB 0b0x: reserved */
};

static bool match2(int want, int v)
{
    if (want == -1)
        return true;
    if (want == -2)
        return !(v & 2);
    if (want == -3)
        return (v & 2) != 0;
    return want == v;
}

/* Table D17-4 with RWWFKZ (the owning regime from the owning Security state and EL), RBWRVP
 * (the owning Security state from MDCR_EL3.{NSPBE,NSPB}), RKFMHR (the owning EL from EL2 and
 * MDCR_EL2.E2PB), RTDHBH (owning EL1: regime EL1&0) and RKRVDC (owning EL2: EL2 or EL2&0 by
 * HCR_EL2.E2H). RTDHBH / RKRVDC's "profiling is disabled at" lists are Table 3 (test_table3). */
static void test_table_d17_4(void **state)
{
    fx *f = *state;
    int rows_hit[sizeof(tabd174) / sizeof(tabd174[0])] = { 0 };
    for (int e = 0; e <= 1; e++)
    for (int nse = 0; nse <= 1; nse++)
    for (int ns = 0; ns <= 1; ns++)
    for (int eel2 = 0; eel2 <= 1; eel2++)
    for (int nspbe = 0; nspbe <= 1; nspbe++)
    for (int nspb = 0; nspb <= 3; nspb++)
    for (int e2pb = 0; e2pb <= 3; e2pb++)
    for (int e2h = 0; e2h <= 1; e2h++) {
        if (e2pb == 1)
            continue; /* E2PB 0b01 is not a value the table lists */
        if (nse && !ns)
            continue; /* {NSE,NS} = {1,0} is Root / reserved below EL3 */
        const d174 *row = NULL;
        for (size_t i = 0; i < sizeof(tabd174) / sizeof(tabd174[0]) && !row; i++) {
            const d174 *t = &tabd174[i];
            if (match2(t->e, e) && match2(t->nse, nse) && match2(t->ns, ns) && match2(t->eel2, eel2) &&
                match2(t->nspbe, nspbe) && match2(t->nspb, nspb) && match2(t->e2pb, e2pb) &&
                match2(t->e2h, e2h)) {
                row = t;
                rows_hit[i]++;
            }
        }
        if (!row)
            continue; /* combinations the table does not list (e.g. NSE=1 with NSPBE=0) */
        armprof_pe_ctx_default(&f->ctx);
        f->ctx.have_rme = true;
        f->ctx.el = 3;
        f->ctx.scr_nse = nse;
        f->ctx.scr_ns = ns;
        f->ctx.scr_eel2 = eel2;
        f->ctx.mdcr3_nspbe = nspbe;
        f->ctx.mdcr3_nspb = (uint8_t)nspb;
        f->ctx.mdcr2_e2pb = (uint8_t)e2pb;
        f->ctx.hcr_e2h = e2h;
        fx_ctx(f);
        fx_wr(f, SPU_PMBSR_EL1, 0);
        fx_wr(f, SPU_PMBLIMITR_EL1, 0x40010000ull | (uint64_t)e);
        armprof_regime rg;
        bool en = spu_buffer_enabled(f->spu, &rg);
        own got = DIS;
        if (en) {
            int k = rg.kind == ARMPROF_REGIME_EL10 ? 0 : rg.kind == ARMPROF_REGIME_EL2 ? 1 : 2;
            if (rg.ss == ARMPROF_SECURE) got = (own)(S10 + k);
            else if (rg.ss == ARMPROF_NONSECURE) got = (own)(NS10 + k);
            else if (rg.ss == ARMPROF_REALM) got = (own)(R10 + k);
        }
        own want = row->r == RSV ? DIS : row->r;
        if (got != want)
            fail_msg("D17-4: E=%d NSE=%d NS=%d EEL2=%d NSPBE=%d NSPB=%d E2PB=%d E2H=%d: got %d want %d",
                     e, nse, ns, eel2, nspbe, nspb, e2pb, e2h, got, want);
        /* The owning EL and regime also decide stage 2: EL1&0 only with HCR_EL2.VM. */
        if (en)
            assert_false(rg.stage2);
    }
    for (size_t i = 0; i < sizeof(rows_hit) / sizeof(rows_hit[0]); i++)
        assert_true(rows_hit[i] > 0);
}

/* Without EL3, the owner follows the current Security state; without EL2 it is EL1 (§3.4.6). */
static void test_owner_without_el2_el3(void **state)
{
    fx *f = *state;
    armprof_regime rg;
    f->ctx.have_el3 = false;
    f->ctx.scr_ns = false; /* "executes in Secure state" */
    fx_ctx(f);
    fx_wr(f, SPU_PMBLIMITR_EL1, 0x40010001ull);
    assert_true(spu_buffer_enabled(f->spu, &rg));
    assert_int_equal(rg.ss, ARMPROF_SECURE);
    assert_int_equal(rg.el, 1);
    f->ctx.scr_ns = true;
    f->ctx.have_el2 = false;
    fx_ctx(f);
    assert_true(spu_buffer_enabled(f->spu, &rg));
    assert_int_equal(rg.ss, ARMPROF_NONSECURE);
    assert_int_equal(rg.el, 1);
    f->ctx.have_el2 = true;
    f->ctx.hcr_vm = true;
    f->ctx.mdcr2_e2pb = 3;
    fx_ctx(f);
    assert_true(spu_buffer_enabled(f->spu, &rg));
    assert_true(rg.stage2); /* Non-secure EL1&0 with HCR_EL2.VM: two stages */
}

/* ---------------------------------------------------------------------------------------------
 * Table 4: filtering by operation type, every row x every operation type, with the atomics of
 * §3.2.2 as two more columns: "ST enables collection of store sampled operations, including all
 * atomic operations"; "LD ... including atomic operations that return a value to a register".
 * --------------------------------------------------------------------------------------------- */
static void test_table4(void **state)
{
    fx *f = *state;
    /* rows: FT LD ST B -> Load Store Branch Other, atomic returning a value, atomic returning
     * none: collected? */
    enum { NT = 6 };
    const struct { int ft, ld, st, b; int c[NT]; } rows[] = {
        { 0, -1, -1, -1, { 1, 1, 1, 1, 1, 1 } },
        { 1, 0, 0, 0, { 0, 0, 0, 0, 0, 0 } },
        { 1, 0, 0, 1, { 0, 0, 1, 0, 0, 0 } },
        { 1, 0, 1, 0, { 0, 1, 0, 0, 1, 1 } },
        { 1, 0, 1, 1, { 0, 1, 1, 0, 1, 1 } },
        { 1, 1, 0, 0, { 1, 0, 0, 0, 1, 0 } },
        { 1, 1, 0, 1, { 1, 0, 1, 0, 1, 0 } },
        { 1, 1, 1, 0, { 1, 1, 0, 0, 1, 1 } },
        { 1, 1, 1, 1, { 1, 1, 1, 0, 1, 1 } },
    };
    fx_start(f, FX_MEM_BASE, 128 * 1024, 256, false, 0);
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        for (int x = 0; x < 8; x++) { /* X columns: all values */
            int ld = rows[i].ld >= 0 ? rows[i].ld : (x & 1);
            int st = rows[i].st >= 0 ? rows[i].st : (x >> 1) & 1;
            int b = rows[i].b >= 0 ? rows[i].b : (x >> 2) & 1;
            if (rows[i].ld >= 0 && x)
                break;
            fx_wr(f, SPU_PMSFCR_EL1, (uint64_t)rows[i].ft << 1 | (uint64_t)ld << 17 |
                                         (uint64_t)st << 18 | (uint64_t)b << 16);
            for (int t = 0; t < NT; t++) {
                spu_op op = fx_op_other(0x2000);
                if (t == 0) { op.op_class = SPE_CLASS_LDST; op.op_subclass = SPE_LDST_GP; }
                if (t == 1) { op.op_class = SPE_CLASS_LDST; op.op_subclass = SPE_LDST_GP | SPE_LDST_ST; }
                if (t == 2) { op.op_class = SPE_CLASS_BRANCH; }
                if (t == 4) { op.op_class = SPE_CLASS_LDST; op.op_subclass = SPE_LDST_EXTENDED | SPE_LDST_AT; }
                if (t == 5) {
                    op.op_class = SPE_CLASS_LDST;
                    op.op_subclass = SPE_LDST_EXTENDED | SPE_LDST_AT | SPE_LDST_ST;
                }
                spu_stats a, z;
                spu_get_stats(f->spu, &a);
                assert_int_equal(fx_sample(f, &op), SPU_OP_SAMPLED);
                spu_get_stats(f->spu, &z);
                if ((int)(z.filtrate - a.filtrate) != rows[i].c[t])
                    fail_msg("Table 4 FT=%d LD=%d ST=%d B=%d type %d: expected %s", rows[i].ft, ld, st,
                             b, t, rows[i].c[t] ? "collected" : "discarded");
                assert_int_equal(z.filtered_out - a.filtered_out, 1 - rows[i].c[t]);
            }
        }
    }
}

/* FE (events, all in the set), FL (latency >= MINLAT), combined as a logical AND, and the
 * CONSTRAINED UNPREDICTABLE zero-filter cases with each choice. */
static void test_event_latency_filters(void **state)
{
    fx *f = *state;
    fx_start(f, FX_MEM_BASE, 128 * 1024, 256, false, 0);
    spu_stats a, z;
    spu_op op = fx_op_other(0x3000);
    op.op_class = SPE_CLASS_BRANCH;
    op.total_lat = 100;
    /* FE: mispredicted (E[7]) and retired (E[1]) required */
    fx_wr(f, SPU_PMSEVFR_EL1, (1u << 7) | (1u << 1));
    fx_wr(f, SPU_PMSFCR_EL1, 1);
    spu_get_stats(f->spu, &a);
    op.events = 0;
    fx_sample(f, &op);                    /* retired but not mispredicted: discarded */
    op.events = 1u << 7;
    fx_sample(f, &op);                    /* both: collected */
    op.flags = SPU_OP_NOT_RETIRED;
    fx_sample(f, &op);                    /* E[1] clear: discarded */
    op.flags = 0;
    spu_get_stats(f->spu, &z);
    assert_int_equal(z.filtrate - a.filtrate, 1);
    assert_int_equal(z.filtered_out - a.filtered_out, 2);
    /* FL: MINLAT 100: 99 discarded, 100 collected; AND with FE */
    fx_wr(f, SPU_PMSLATFR_EL1, 100);
    fx_wr(f, SPU_PMSFCR_EL1, 1 | 4);
    spu_get_stats(f->spu, &a);
    op.total_lat = 99;
    fx_sample(f, &op);
    op.total_lat = 100;
    fx_sample(f, &op);
    op.events = 0;
    fx_sample(f, &op);                    /* latency ok, events not: discarded */
    spu_get_stats(f->spu, &z);
    assert_int_equal(z.filtrate - a.filtrate, 1);
    /* Zero filters (CONSTRAINED UNPREDICTABLE): default choice lets records pass. */
    fx_wr(f, SPU_PMSEVFR_EL1, 0);
    fx_wr(f, SPU_PMSLATFR_EL1, 0);
    spu_get_stats(f->spu, &a);
    fx_sample(f, &op);
    spu_get_stats(f->spu, &z);
    assert_int_equal(z.filtrate - a.filtrate, 1);
}

static void test_zero_filter_choices(void **state)
{
    (void)state;
    spu_config c;
    spu_config_default(&c);
    c.cu_fe_zero_discards = true;
    c.cu_fl_zero_discards = true;
    fx *f = fx_new_cfg(&c);
    fx_start(f, FX_MEM_BASE, 128 * 1024, 256, false, 0);
    spu_op op = fx_op_other(0x3000);
    op.total_lat = 50;
    spu_stats a, z;
    fx_wr(f, SPU_PMSFCR_EL1, 1); /* FE with PMSEVFR_EL1 == 0 */
    spu_get_stats(f->spu, &a);
    fx_sample(f, &op);
    fx_wr(f, SPU_PMSFCR_EL1, 4); /* FL with MINLAT == 0 */
    fx_sample(f, &op);
    spu_get_stats(f->spu, &z);
    assert_int_equal(z.filtered_out - a.filtered_out, 2);
    fx_free(f);
}

/* FEAT_SPEv1p2 FnE: records with any event of PMSNEVFR_EL1 are discarded. */
static void test_inverted_event_filter(void **state)
{
    (void)state;
    spu_config c;
    spu_config_default(&c);
    c.feat_spev1p2 = c.fne = true;
    fx *f = fx_new_cfg(&c);
    fx_start(f, FX_MEM_BASE, 128 * 1024, 256, false, 0);
    fx_wr(f, SPU_PMSNEVFR_EL1, 1u << 7);
    fx_wr(f, SPU_PMSFCR_EL1, 1u << 3);
    spu_op op = fx_op_other(0x3000);
    spu_stats a, z;
    spu_get_stats(f->spu, &a);
    op.events = 1u << 7;
    fx_sample(f, &op);
    op.events = 1u << 5;
    fx_sample(f, &op);
    spu_get_stats(f->spu, &z);
    assert_int_equal(z.filtered_out - a.filtered_out, 1);
    assert_int_equal(z.filtrate - a.filtrate, 1);
    fx_free(f);
}

/* ---------------------------------------------------------------------------------------------
 * §3.3 collection controls: CONTEXTIDR_EL1/EL2, timestamps (physical / virtual), PA.
 * --------------------------------------------------------------------------------------------- */
typedef struct cap {
    spe_record rec;
    int n;
} cap;

static void hook(void *user, const spe_record *r, const uint8_t *b, size_t len)
{
    (void)b; (void)len;
    cap *c = user;
    c->rec = *r;
    c->n++;
}

static void test_collection_controls(void **state)
{
    fx *f = *state;
    cap c = { 0 };
    spu_set_record_hook(f->spu, hook, &c);
    f->ctx.contextidr_el1 = 0x11;
    f->ctx.contextidr_el2 = 0x22;
    f->ctx.cntvoff = 5;
    fx_ctx(f);
    fx_start(f, FX_MEM_BASE, 128 * 1024, 256, false, 0);
    spu_op op = fx_op_other(0x4000);
    op.op_class = SPE_CLASS_LDST;
    op.flags = SPU_OP_HAS_VA | SPU_OP_HAS_PA;
    op.data_va = 0x5500000000001234ull;
    op.data_pa = 0x80001234ull;
    /* nothing collected: no context, no timestamp, no PA */
    fx_sample(f, &op);
    assert_int_equal(c.rec.present & (SPE_R_CONTEXT_EL1 | SPE_R_CONTEXT_EL2 | SPE_R_TIMESTAMP | SPE_R_DATA_PA), 0);
    assert_int_equal(c.rec.data_va_tag, 0x55);
    /* PMSCR_EL1.CX at Non-secure EL1 with TGE 0: CONTEXTIDR_EL1; PMSCR_EL2.CX: CONTEXTIDR_EL2 */
    f->ctx.el = 2;
    fx_ctx(f);
    fx_wr(f, SPU_PMSCR_EL2, (1u << 3) | (1u << 5) | (1u << 4) | (1u << 6));
    f->ctx.el = 1;
    fx_ctx(f);
    fx_wr(f, SPU_PMSCR_EL1, 3 | (1u << 3) | (1u << 5));
    spu_advance(f->spu, 1000);
    fx_sample(f, &op);
    assert_true(c.rec.present & SPE_R_CONTEXT_EL1);
    assert_true(c.rec.present & SPE_R_CONTEXT_EL2);
    assert_int_equal(c.rec.context_el1, 0x11);
    assert_int_equal(c.rec.context_el2, 0x22);
    /* TS with PMSCR_EL1.PCT=0: virtual time = physical - CNTVOFF_EL2 */
    assert_true(c.rec.present & SPE_R_TIMESTAMP);
    assert_int_equal(c.rec.timestamp, spu_now(f->spu) - 1 - 5); /* taken at completion, one edge ago */
    /* PA needs both PMSCR_EL1.PA and PMSCR_EL2.PA for a Non-secure EL1 owner */
    assert_false(c.rec.present & SPE_R_DATA_PA);
    fx_wr(f, SPU_PMSCR_EL1, 3 | (1u << 5) | (1u << 4) | (1u << 6));
    fx_sample(f, &op);
    assert_true(c.rec.present & SPE_R_DATA_PA);
    assert_int_equal(c.rec.timestamp, spu_now(f->spu) - 1); /* both PCT: physical */
    assert_false(c.rec.present & SPE_R_CONTEXT_EL1);
    /* EL0 with HCR_EL2.TGE=1 (host): no CONTEXTIDR_EL1; owner must be EL2 for EL0 sampling */
    f->ctx.el = 0;
    f->ctx.hcr_tge = true;
    f->ctx.hcr_e2h = true;
    f->ctx.mdcr2_e2pb = 0;
    fx_ctx(f);
    f->ctx.el = 2;
    fx_ctx(f);
    fx_wr(f, SPU_PMSCR_EL12, 3 | (1u << 3));
    fx_wr(f, SPU_PMSCR_EL1, 3 | (1u << 3)); /* = PMSCR_EL2 with E2H: E0HSPE, E2SPE, CX, no TS */
    f->ctx.el = 0;
    fx_ctx(f);
    assert_true(spu_profiling_enabled(f->spu));
    fx_sample(f, &op);
    assert_false(c.rec.present & SPE_R_CONTEXT_EL1);
    assert_true(c.rec.present & SPE_R_CONTEXT_EL2);
    assert_false(c.rec.present & SPE_R_TIMESTAMP); /* owner EL2 uses PMSCR_EL2.TS */
    assert_int_equal(c.rec.pc_el, 0);
    assert_true(c.rec.pc_ns);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_table3, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_debug_and_aarch32_disable, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_table_d17_4, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_owner_without_el2_el3, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_table4, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_event_latency_filters, fx_setup, fx_teardown),
        cmocka_unit_test(test_zero_filter_choices),
        cmocka_unit_test(test_inverted_event_filter),
        cmocka_unit_test_setup_teardown(test_collection_controls, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests_name("spu_tables", tests, NULL, NULL);
}
