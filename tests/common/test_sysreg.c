/* SPDX-License-Identifier: Apache-2.0 */
/* test_sysreg.c: armprof/sysreg.h against the units' register tables (encodings, RES0, read-only fields) and the model's own field masks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "armprof/pmu.h"
#include "armprof/spu.h"
#include "armprof/sysreg.h"
#include "armprof/trbu.h"
#include "pmu/pmu_internal.h"
#include "spu/spu_internal.h"

/* ----- The generated table, expanded ------------------------------------------------------------ */

typedef struct table_reg {
    char name[32];
    uint32_t enc;
    uint64_t res0, res1;
    int fields_from;              /* index into fields[] of its first field, or -1 */
} table_reg;

typedef struct table_field {
    const char *reg, *name;
    uint64_t field, mask;
    unsigned shift, width;
} table_field;

#define MAX_REGS 256
static table_reg regs[MAX_REGS];
static size_t nregs;

#define F(r, f) { #r, #f, r##_##f, r##_##f##_MASK, r##_##f##_SHIFT, r##_##f##_WIDTH },
static const table_field fields[] = { ARMPROF_SYSREG_FIELD_LIST(F) };
#undef F
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

typedef struct table_value {
    const char *reg, *field, *name;
    uint64_t value, mask;
    unsigned shift;
} table_value;
#define E(r, f, v) { #r, #f, #v, r##_##f##_##v, r##_##f##_MASK, r##_##f##_SHIFT },
static const table_value values[] = { ARMPROF_SYSREG_ENUM_LIST(E) };
#undef E

/* The fields of the table's register `tname` (PMEVCNTRn_EL0 for PMEVCNTR3_EL0). */
static int first_field(const char *tname)
{
    for (size_t i = 0; i < NFIELDS; i++)
        if (strcmp(fields[i].reg, tname) == 0)
            return (int)i;
    return -1;
}

static void add_reg(const char *name, const char *tname, uint32_t enc, uint64_t res0, uint64_t res1)
{
    assert_true(nregs < MAX_REGS);
    table_reg *r = &regs[nregs++];
    snprintf(r->name, sizeof r->name, "%s", name);
    r->enc = enc;
    r->res0 = res0;
    r->res1 = res1;
    r->fields_from = first_field(tname);
}

static void load_table(void)
{
    nregs = 0;
#define X(r) add_reg(#r, #r, SYS_##r, r##_RES0, r##_RES1);
    ARMPROF_SYSREG_LIST(X)
#undef X
    char name[32];
#define X(r, fmt, first, last)                                                                     \
    for (unsigned n = (first); n <= (last); n++) {                                                 \
        snprintf(name, sizeof name, fmt, n);                                                       \
        add_reg(name, #r, SYS_##r(n), r##_RES0, r##_RES1);                                         \
    }
    ARMPROF_SYSREG_LIST_N(X)
#undef X
}

static const table_reg *table_find(const char *name)
{
    for (size_t i = 0; i < nregs; i++)
        if (strcmp(regs[i].name, name) == 0)
            return &regs[i];
    return NULL;
}

/* ----- The units, with every optional feature on (the table's configuration) and by default ----- */

typedef struct unit_reg {
    const char *unit, *name;
    uint32_t enc;
    uint64_t res0, ro;
} unit_reg;

#define MAX_UNIT_REGS 256
typedef struct units {
    spu_t *spu;
    trbu_t *trbu;
    pmu_t *pmu;
    unit_reg r[MAX_UNIT_REGS];
    size_t n;
} units;

static void full_spu(spu_config *c)
{
    spu_config_default(c);
    c->feat_ecv = true;       /* PMSCR_ELx.PCT[7] */
    c->ernd = true;           /* PMSICR_EL1.ECOUNT */
    c->fe = c->ft = c->fl = true;
    c->fne = c->feat_spev1p2 = true; /* PMSFCR_EL1.FnE, PMBLIMITR_EL1.PMFZ, PMSNEVFR_EL1 */
    c->feat_spe_nvm = true;   /* PMBLIMITR_EL1.nVM, PMSCR_EL2.EnVM, PMBMAR_EL1 */
    c->nvm_bit = 3;
    c->envm_bit = 8;
    c->count_size = 3;        /* 16-bit counters: PMSLATFR_EL1.MINLAT[15:0] */
}

static void full_trbu(trbu_config *c)
{
    trbu_config_default(c);
    c->feat_trbe_exc = true;  /* TRBSR_EL2, TRBSR_EL3, TRBSR_EL12 */
    c->feat_trbe_ext = true;  /* TRBLIMITR_EL1.XE */
    c->feat_mss2 = true;      /* TRBSR_ELx.MSS2 */
}

static void full_pmu(pmu_config *c)
{
    pmu_config_default(c);
    c->num_counters = 31;
    c->feat_pmuv3p5 = c->feat_pmuv3p7 = c->feat_pmuv3_ss = c->feat_pmuv3_icntr = true;
    c->feat_spev1p2 = true;
}

static void open_units(units *u, bool full)
{
    spu_config sc;
    trbu_config tc;
    pmu_config pc;
    if (full) {
        full_spu(&sc);
        full_trbu(&tc);
        full_pmu(&pc);
    } else {
        spu_config_default(&sc);
        trbu_config_default(&tc);
        pmu_config_default(&pc);
    }
    armprof_host_ops ops = { 0 };
    assert_int_equal(spu_open(&sc, &ops, &u->spu), ARMPROF_OK);
    assert_int_equal(trbu_open(&tc, &ops, &u->trbu), ARMPROF_OK);
    assert_int_equal(pmu_open(&pc, &ops, &u->pmu), ARMPROF_OK);
    u->n = 0;
    for (size_t i = 0; i < spu_reg_count(u->spu); i++) {
        spu_reg_info in;
        assert_int_equal(spu_reg_info_at(u->spu, i, &in), ARMPROF_OK);
        u->r[u->n++] = (unit_reg){ "spu", in.name, in.enc, in.res0, in.ro };
    }
    for (size_t i = 0; i < trbu_reg_count(u->trbu); i++) {
        trbu_reg_info in;
        assert_int_equal(trbu_reg_info_at(u->trbu, i, &in), ARMPROF_OK);
        u->r[u->n++] = (unit_reg){ "trbu", in.name, in.enc, in.res0, in.ro };
    }
    for (size_t i = 0; i < pmu_reg_count(u->pmu); i++) {
        pmu_reg_info in;
        assert_int_equal(pmu_reg_info_at(u->pmu, i, &in), ARMPROF_OK);
        assert_true(u->n < MAX_UNIT_REGS);
        u->r[u->n++] = (unit_reg){ "pmu", in.name, in.enc, in.res0, in.ro };
    }
}

static void close_units(units *u)
{
    spu_close(u->spu);
    trbu_close(u->trbu);
    pmu_close(u->pmu);
}

static int setup(void **state)
{
    load_table();
    static units u;
    open_units(&u, true);
    *state = &u;
    return 0;
}

static int teardown(void **state)
{
    close_units(*state);
    return 0;
}

/* ----- Tests ------------------------------------------------------------------------------------ */

/* Every register of the table is one of a unit's, with its encoding and its RES0 bits. */
static void test_table_registers_are_the_units(void **state)
{
    units *u = *state;
    for (size_t i = 0; i < nregs; i++) {
        const table_reg *t = &regs[i];
        int found = 0;
        for (size_t j = 0; j < u->n; j++) {
            if (strcmp(u->r[j].name, t->name) != 0)
                continue;
            found++;
            if (u->r[j].enc != t->enc || u->r[j].res0 != t->res0)
                fail_msg("%s: table enc 0x%x RES0 0x%016llx, %s unit enc 0x%x RES0 0x%016llx", t->name,
                         t->enc, (unsigned long long)t->res0, u->r[j].unit, u->r[j].enc,
                         (unsigned long long)u->r[j].res0);
        }
        if (found != 1)
            fail_msg("%s: in %d units' tables", t->name, found);
        /* no unit has RES1 bits in these registers */
        assert_int_equal(t->res1, 0);
    }
}

/* Every register a unit implements (every feature on) is in the table. */
static void test_units_registers_are_in_the_table(void **state)
{
    units *u = *state;
    for (size_t j = 0; j < u->n; j++)
        if (!table_find(u->r[j].name))
            fail_msg("%s register %s is not in sysreg.table", u->r[j].unit, u->r[j].name);
    assert_int_equal(u->n, nregs);
}

/* A feature off only ever makes more bits RES0: the default configurations' RES0 include the
 * table's, and each register of the defaults is in the table. */
static void test_default_configuration_res0(void **state)
{
    (void)state;
    units d;
    open_units(&d, false);
    for (size_t j = 0; j < d.n; j++) {
        const table_reg *t = table_find(d.r[j].name);
        if (!t)
            fail_msg("%s not in the table", d.r[j].name);
        if (t->res0 & ~d.r[j].res0)
            fail_msg("%s: table RES0 0x%016llx not RES0 by default (0x%016llx)", t->name,
                     (unsigned long long)t->res0, (unsigned long long)d.r[j].res0);
    }
    close_units(&d);
}

/* MASK, SHIFT and WIDTH agree; a field lies in the implemented bits of its register; a unit's
 * read-only bits are whole fields (PMCR_EL0.{N, IDCODE, IMP}, PMSSCR_EL1.NC, ...). */
static void test_fields_consistent(void **state)
{
    units *u = *state;
    for (size_t i = 0; i < NFIELDS; i++) {
        const table_field *f = &fields[i];
        assert_true(f->width >= 1 && f->shift + f->width <= 64);
        if (f->field != f->mask || f->mask != AP_GENMASK(f->shift + f->width - 1, f->shift))
            fail_msg("%s_%s: mask 0x%llx, shift %u, width %u", f->reg, f->name, (unsigned long long)f->mask,
                     f->shift, f->width);
    }
    for (size_t i = 0; i < nregs; i++) {
        const table_reg *t = &regs[i];
        assert_true(t->fields_from >= 0);
        uint64_t all = 0;
        for (size_t k = (size_t)t->fields_from; k < NFIELDS && strcmp(fields[k].reg, fields[t->fields_from].reg) == 0; k++) {
            if (!(fields[k].mask & ~t->res0))
                fail_msg("%s.%s lies in RES0 bits", t->name, fields[k].name);
            all |= fields[k].mask;
        }
        /* Fields and RES0 cover the register. */
        assert_int_equal(all | t->res0, ~0ull);
        for (size_t j = 0; j < u->n; j++) {
            if (strcmp(u->r[j].name, t->name) != 0)
                continue;
            uint64_t ro = u->r[j].ro & ~t->res0;
            for (size_t k = (size_t)t->fields_from; k < NFIELDS && strcmp(fields[k].reg, fields[t->fields_from].reg) == 0; k++) {
                uint64_t m = fields[k].mask & ~t->res0;
                if ((ro & m) && (ro & m) != m)
                    fail_msg("%s: read-only bits 0x%llx cut field %s", t->name, (unsigned long long)ro, fields[k].name);
            }
        }
    }
}

/* A named value fits its field. */
static void test_enum_values_fit(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
        if (values[i].value > (values[i].mask >> values[i].shift))
            fail_msg("%s_%s_%s = 0x%llx does not fit", values[i].reg, values[i].field, values[i].name,
                     (unsigned long long)values[i].value);
}

/* The model's own field masks (model/spu, model/pmu) and the public headers' encodings are the
 * table's: the same positions and widths. */
static void test_model_masks_are_the_tables(void **state)
{
    (void)state;
    static const struct { const char *what; uint64_t model, table; } same[] = {
#define SAME(m, t) { #m " / " #t, (uint64_t)(m), (uint64_t)(t) }
        SAME(PMSCR_PCT, PMSCR_EL1_PCT), SAME(PMSCR_TS, PMSCR_EL1_TS), SAME(PMSCR_PA, PMSCR_EL1_PA),
        SAME(PMSCR_CX, PMSCR_EL1_CX), SAME(PMSCR_E1SPE, PMSCR_EL1_E1SPE), SAME(PMSCR_E0SPE, PMSCR_EL1_E0SPE),
        SAME(PMSCR_E1SPE, PMSCR_EL2_E2SPE), SAME(PMSCR_E0SPE, PMSCR_EL2_E0HSPE),
        SAME(PMSICR_ECOUNT, PMSICR_EL1_ECOUNT), SAME(PMSICR_COUNT, PMSICR_EL1_COUNT),
        SAME(PMSIRR_INTERVAL, PMSIRR_EL1_INTERVAL), SAME(PMSIRR_RND, PMSIRR_EL1_RND),
        SAME(PMSFCR_ST, PMSFCR_EL1_ST), SAME(PMSFCR_LD, PMSFCR_EL1_LD), SAME(PMSFCR_B, PMSFCR_EL1_B),
        SAME(PMSFCR_FNE, PMSFCR_EL1_FnE), SAME(PMSFCR_FL, PMSFCR_EL1_FL), SAME(PMSFCR_FT, PMSFCR_EL1_FT),
        SAME(PMSFCR_FE, PMSFCR_EL1_FE), SAME(PMSEVFR_FILTERABLE, ~PMSEVFR_EL1_RES0),
        SAME(PMSEVFR_FILTERABLE, ~PMSNEVFR_EL1_RES0),
        SAME(PMSIDR_PBT, PMSIDR_EL1_PBT), SAME(PMSIDR_FORMAT, PMSIDR_EL1_FORMAT),
        SAME(PMSIDR_COUNTSIZE, PMSIDR_EL1_CountSize), SAME(PMSIDR_MAXSIZE, PMSIDR_EL1_MaxSize),
        SAME(PMSIDR_INTERVAL, PMSIDR_EL1_Interval), SAME(PMSIDR_FNE, PMSIDR_EL1_FnE),
        SAME(PMSIDR_ERND, PMSIDR_EL1_ERnd), SAME(PMSIDR_LDS, PMSIDR_EL1_LDS),
        SAME(PMSIDR_ARCHINST, PMSIDR_EL1_ArchInst), SAME(PMSIDR_FL, PMSIDR_EL1_FL),
        SAME(PMSIDR_FT, PMSIDR_EL1_FT), SAME(PMSIDR_FE, PMSIDR_EL1_FE),
        SAME(PMBLIMITR_LIMIT, PMBLIMITR_EL1_LIMIT), SAME(PMBLIMITR_PMFZ, PMBLIMITR_EL1_PMFZ),
        SAME(PMBLIMITR_FM, PMBLIMITR_EL1_FM), SAME(PMBLIMITR_E, PMBLIMITR_EL1_E),
        SAME(PMBLIMITR_FM_FILL, PMBLIMITR_EL1_FM_FILL), SAME(PMBLIMITR_FM_DISCARD, PMBLIMITR_EL1_FM_DISCARD),
        SAME(PMBSR_EC, PMBSR_EL1_EC), SAME(PMBSR_DL, PMBSR_EL1_DL), SAME(PMBSR_EA, PMBSR_EL1_EA),
        SAME(PMBSR_S, PMBSR_EL1_S), SAME(PMBSR_COLL, PMBSR_EL1_COLL), SAME(PMBSR_MSS, PMBSR_EL1_MSS),
        SAME(PMBSR_FSC, PMBSR_EL1_FSC), SAME(PMBSR_FSC, PMBSR_EL1_BSC),
        SAME(PMBSR_BSC_FILLED, PMBSR_EL1_BSC_FULL),
        SAME(PMBMAR_SH, PMBMAR_EL1_SH), SAME(PMBMAR_ATTR, PMBMAR_EL1_Attr),
        SAME(PMBIDR_EA, PMBIDR_EL1_EA), SAME(PMBIDR_F, PMBIDR_EL1_F), SAME(PMBIDR_P, PMBIDR_EL1_P),
        SAME(PMBIDR_ALIGN, PMBIDR_EL1_Align),
        SAME(SPU_EA_REPORT, PMBIDR_EL1_EA_NOT_DESCRIBED), SAME(SPU_EA_IGNORE, PMBIDR_EL1_EA_IGNORED),
        SAME(SPU_EA_SERROR, PMBIDR_EL1_EA_SERROR),
        SAME(ARMPROF_EC_OTHER, PMBSR_EL1_EC_BUF), SAME(ARMPROF_EC_S1_ABORT, PMBSR_EL1_EC_FAULT_S1),
        SAME(ARMPROF_EC_S2_ABORT, PMBSR_EL1_EC_FAULT_S2), SAME(ARMPROF_EC_GPC, PMBSR_EL1_EC_GPC_FAULT),
        SAME(ARMPROF_EC_IMPDEF, PMBSR_EL1_EC_IMP_DEF),
        SAME(ARMPROF_EC_OTHER, TRBSR_EL1_EC_OTHERS), SAME(ARMPROF_EC_S1_ABORT, TRBSR_EL1_EC_STAGE1_ABORT),
        SAME(ARMPROF_EC_S2_ABORT, TRBSR_EL1_EC_STAGE2_ABORT), SAME(ARMPROF_EC_GPC, TRBSR_EL1_EC_GPC_FAULT),
        SAME(ARMPROF_EC_IMPDEF, TRBSR_EL1_EC_IMP_DEF),
        SAME(TRBU_FM_FILL, TRBLIMITR_EL1_FM_FILL), SAME(TRBU_FM_WRAP, TRBLIMITR_EL1_FM_WRAP),
        SAME(TRBU_FM_CIRCULAR, TRBLIMITR_EL1_FM_CBUF), SAME(TRBU_TM_STOP, TRBLIMITR_EL1_TM_STOP),
        SAME(TRBU_TM_IRQ, TRBLIMITR_EL1_TM_IRQ), SAME(TRBU_TM_IGNORE, TRBLIMITR_EL1_TM_IGNR),
        SAME(TRBU_BSC_NOT_FILLED, TRBSR_EL1_BSC_NOT_FILLED), SAME(TRBU_BSC_FILLED, TRBSR_EL1_BSC_FILLED),
        SAME(TRBU_BSC_TRIGGER, TRBSR_EL1_BSC_TRIGGERED),
        SAME(PMCR_E, PMCR_EL0_E), SAME(PMCR_P, PMCR_EL0_P), SAME(PMCR_C, PMCR_EL0_C), SAME(PMCR_D, PMCR_EL0_D),
        SAME(PMCR_X, PMCR_EL0_X), SAME(PMCR_DP, PMCR_EL0_DP), SAME(PMCR_LC, PMCR_EL0_LC),
        SAME(PMCR_LP, PMCR_EL0_LP), SAME(PMCR_FZO, PMCR_EL0_FZO), SAME(PMCR_N, PMCR_EL0_N),
        SAME(PMCR_IDCODE, PMCR_EL0_IDCODE), SAME(PMCR_IMP, PMCR_EL0_IMP), SAME(PMCR_FZS, PMCR_EL0_FZS),
        SAME(EVT_P, PMEVTYPERn_EL0_P), SAME(EVT_U, PMEVTYPERn_EL0_U), SAME(EVT_NSK, PMEVTYPERn_EL0_NSK),
        SAME(EVT_NSU, PMEVTYPERn_EL0_NSU), SAME(EVT_NSH, PMEVTYPERn_EL0_NSH), SAME(EVT_M, PMEVTYPERn_EL0_M),
        SAME(EVT_SH, PMEVTYPERn_EL0_SH), SAME(EVT_RLK, PMEVTYPERn_EL0_RLK), SAME(EVT_RLU, PMEVTYPERn_EL0_RLU),
        SAME(EVT_RLH, PMEVTYPERn_EL0_RLH), SAME(EVT_EVTCOUNT, PMEVTYPERn_EL0_evtCount),
        SAME(EVT_EVTCOUNT, PMICFILTR_EL0_evtCount),
        SAME(USERENR_EN, PMUSERENR_EL0_EN), SAME(USERENR_SW, PMUSERENR_EL0_SW),
        SAME(USERENR_CR, PMUSERENR_EL0_CR), SAME(USERENR_ER, PMUSERENR_EL0_ER),
        SAME(PMSELR_SEL, PMSELR_EL0_SEL), SAME(PMSSCR_NC, PMSSCR_EL1_NC), SAME(PMSSCR_SS, PMSSCR_EL1_SS),
        SAME(PMECR_SSE, PMECR_EL1_SSE), SAME(CNT_C, PMCNTENSET_EL0_C), SAME(CNT_F0, PMCNTENSET_EL0_F0),
        SAME(AP_BIT(PMU_CYCLE_COUNTER_ID), PMOVSSET_EL0_C), SAME(AP_BIT(PMU_INSTRUCTION_COUNTER_ID), PMINTENSET_EL1_F0),
#undef SAME
    };
    for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++)
        if (same[i].model != same[i].table)
            fail_msg("%s: 0x%llx != 0x%llx", same[i].what, (unsigned long long)same[i].model,
                     (unsigned long long)same[i].table);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_registers_are_the_units),
        cmocka_unit_test(test_units_registers_are_in_the_table),
        cmocka_unit_test(test_default_configuration_res0),
        cmocka_unit_test(test_fields_consistent),
        cmocka_unit_test(test_enum_values_fit),
        cmocka_unit_test(test_model_masks_are_the_tables),
    };
    return cmocka_run_group_tests_name("sysreg", tests, setup, teardown);
}
