/* SPDX-License-Identifier: Apache-2.0 */
/* test_pmu_spu.c: the PMU counting the SPU's events during an SPU run (seed 001 §2.6, PMFZ). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "armprof/pmu.h"
#include "armprof/spu.h"

#define BUF_BASE 0x40000000ull

typedef struct host {
    pmu_t *pmu;
    spu_t *spu;
    uint64_t pop_at_freeze;   /* SPU population when it asked the PMU to freeze */
    uint64_t ops_at_freeze;   /* operations the host had reported as INST_RETIRED then */
    uint64_t ops_reported;
    uint64_t freezes;
} host;

/* Chained sinks: the host sees the SPU's calls, then hands them to the PMU. */
static void on_event(void *user, uint16_t ev, uint64_t n)
{
    host *h = user;
    pmu_event_sink(h->pmu, ev, n);
}

static void on_freeze(void *user)
{
    host *h = user;
    spu_stats st;
    spu_get_stats(h->spu, &st);
    h->pop_at_freeze = st.population;
    h->ops_at_freeze = h->ops_reported;
    h->freezes++;
    pmu_freeze_sink(h->pmu);
}

static void spu_wr(host *h, uint32_t enc, uint64_t v)
{
    assert_int_equal(spu_reg_write(h->spu, enc, v), ARMPROF_OK);
}

static uint64_t pmu_rd(host *h, uint32_t enc)
{
    uint64_t v = 0;
    assert_int_equal(pmu_reg_read(h->pmu, enc, &v), ARMPROF_OK);
    return v;
}

/* PMU counters 0..4 on SAMPLE_POP, SAMPLE_FEED, SAMPLE_FILTRATE, SAMPLE_COLLISION and
 * INST_RETIRED (reported by the host for every operation). */
static void open_units(host *h, uint64_t buf_bytes, bool pmfz)
{
    memset(h, 0, sizeof(*h));
    pmu_config pc;
    pmu_config_default(&pc);
    assert_int_equal(pmu_open(&pc, NULL, &h->pmu), ARMPROF_OK);
    spu_config sc;
    spu_config_default(&sc);
    sc.feat_spev1p2 = true;
    sc.max_inflight = 2;
    armprof_host_ops ops = { .event = on_event, .pmu_freeze = on_freeze, .user = h };
    assert_int_equal(spu_open(&sc, &ops, &h->spu), ARMPROF_OK);
    armprof_pe_ctx ctx;
    armprof_pe_ctx_default(&ctx);
    assert_int_equal(spu_set_pe_context(h->spu, &ctx), ARMPROF_OK);
    assert_int_equal(pmu_set_pe_context(h->pmu, &ctx), ARMPROF_OK);

    static const uint16_t ev[5] = { ARMPROF_EV_SAMPLE_POP, ARMPROF_EV_SAMPLE_FEED,
                                    ARMPROF_EV_SAMPLE_FILTRATE, ARMPROF_EV_SAMPLE_COLLISION,
                                    PMU_EV_INST_RETIRED };
    for (unsigned i = 0; i < 5; i++)
        assert_int_equal(pmu_reg_write(h->pmu, PMU_PMEVTYPER_EL0(i), ev[i]), ARMPROF_OK);
    assert_int_equal(pmu_reg_write(h->pmu, PMU_PMCNTENSET_EL0, 0x1F | (1ull << 31)), ARMPROF_OK);
    /* E, LP, LC, and FZS: freeze on the SPU's management event */
    assert_int_equal(pmu_reg_write(h->pmu, PMU_PMCR_EL0, 0x1 | 0xC0 | (1ull << 32)), ARMPROF_OK);

    /* Program the SPU as arm_spe_pmu does: filter branches only (FT, B), interval 256 */
    spu_wr(h, SPU_PMSFCR_EL1, (1u << 16) | (1u << 1));
    spu_wr(h, SPU_PMSIRR_EL1, 256);
    spu_wr(h, SPU_PMSICR_EL1, 256);
    spu_wr(h, SPU_PMBPTR_EL1, BUF_BASE);
    spu_wr(h, SPU_PMBLIMITR_EL1, (BUF_BASE + buf_bytes) | (pmfz ? 1u << 5 : 0) | 1);
    spu_wr(h, SPU_PMSCR_EL1, 0x3); /* E1SPE, E0SPE */
}

static void close_units(host *h)
{
    spu_close(h->spu);
    pmu_close(h->pmu);
}

/* n operations, one per cycle: every third a branch, latencies long enough to collide. */
static void run_ops(host *h, uint64_t n)
{
    uint64_t i = 0;
    while (i < n) {
        uint64_t k = spu_ops_until_sample(h->spu);
        if (k == 0) {
            spu_op op;
            memset(&op, 0, sizeof(op));
            op.pc = 0x400000 + 4 * i;
            op.op_class = (i % 3 == 0) ? SPE_CLASS_BRANCH : SPE_CLASS_LDST;
            op.total_lat = 300 + (uint32_t)(i % 7) * 100;
            op.issue_lat = 10;
            spu_retire(h->spu, &op);
            h->ops_reported++;
            pmu_count_event(h->pmu, PMU_EV_INST_RETIRED, 1);
            spu_advance(h->spu, 1);
            pmu_advance(h->pmu, 1);
            i++;
            continue;
        }
        uint64_t step = n - i < k ? n - i : k;
        uint64_t ev = spu_cycles_to_next_event(h->spu);
        if (ev && ev < step)
            step = ev;
        step = spu_skip(h->spu, step);
        if (!step)
            step = 1;
        h->ops_reported += step;
        pmu_count_event(h->pmu, PMU_EV_INST_RETIRED, step);
        spu_advance(h->spu, step);
        pmu_advance(h->pmu, step);
        i += step;
    }
}

/* SAMPLE_FEED counted by the PMU equals the SPU's own sample count, SAMPLE_POP its population,
 * and likewise FILTRATE and COLLISION. */
static void test_pmu_counts_spu_events(void **s)
{
    (void)s;
    host h;
    open_units(&h, 1u << 20, false);
    run_ops(&h, 200000);
    spu_psb_csync(h.spu);
    spu_stats st;
    spu_get_stats(h.spu, &st);
    assert_true(st.population > 0);
    assert_true(st.feed > 100);
    assert_true(st.filtrate > 0 && st.filtrate < st.feed); /* the filter removed some */
    assert_true(st.collisions > 0);                       /* two slots, long latencies */
    assert_int_equal(pmu_rd(&h, PMU_PMEVCNTR_EL0(0)), st.population);
    assert_int_equal(pmu_rd(&h, PMU_PMEVCNTR_EL0(1)), st.feed);
    assert_int_equal(pmu_rd(&h, PMU_PMEVCNTR_EL0(2)), st.filtrate);
    assert_int_equal(pmu_rd(&h, PMU_PMEVCNTR_EL0(3)), st.collisions);
    assert_int_equal(pmu_rd(&h, PMU_PMCCNTR_EL0), spu_now(h.spu));
    assert_int_equal(h.freezes, 0);
    /* a snapshot taken now holds the same numbers */
    assert_int_equal(pmu_snapshot_request(h.pmu), PMU_REQ_STARTED);
    pmu_advance(h.pmu, pmu_cycles_to_next_event(h.pmu));
    assert_int_equal(pmu_rd(&h, PMU_PMSSCR_EL1), 0);
    assert_int_equal(pmu_rd(&h, PMU_PMEVCNTSVR_EL1(1)), st.feed);
    close_units(&h);
}

/* PMBLIMITR_EL1.PMFZ with PMCR_EL0.FZS: a buffer-full management event freezes the PMU's event
 * counters (INST_RETIRED stops at the operations of that moment) until software services the
 * buffer; the SPU itself stops counting while PMBSR_EL1.S == 1, so SAMPLE_POP still matches. */
static void test_pmfz_freezes_at_management_event(void **s)
{
    (void)s;
    host h;
    open_units(&h, 4096, true); /* about 150 records of 20 bytes per 200000 operations */
    run_ops(&h, 600000);
    spu_stats st;
    spu_get_stats(h.spu, &st);
    assert_true(st.buffer_full_events >= 1);
    assert_int_equal(h.freezes, 1);
    assert_true(pmu_spe_frozen(h.pmu));
    assert_true(h.ops_at_freeze > 0 && h.ops_at_freeze < 600000);
    assert_int_equal(pmu_rd(&h, PMU_PMEVCNTR_EL0(4)), h.ops_at_freeze);
    assert_int_equal(pmu_rd(&h, PMU_PMEVCNTR_EL0(0)), h.pop_at_freeze);
    assert_int_equal(pmu_rd(&h, PMU_PMEVCNTR_EL0(0)), st.population);
    /* the cycle counter is not frozen without FEAT_SPE_DPFZS */
    assert_int_equal(pmu_rd(&h, PMU_PMCCNTR_EL0), spu_now(h.spu));
    /* the handler restarts the buffer and clears PMBSR_EL1.S; the host lowers the freeze */
    spu_wr(&h, SPU_PMBPTR_EL1, BUF_BASE);
    spu_wr(&h, SPU_PMBSR_EL1, 0);
    pmu_set_spe_freeze(h.pmu, false);
    uint64_t before = h.ops_reported;
    run_ops(&h, 1000);
    assert_int_equal(pmu_rd(&h, PMU_PMEVCNTR_EL0(4)), h.ops_at_freeze + (h.ops_reported - before));
    spu_get_stats(h.spu, &st);
    assert_true(st.population > h.pop_at_freeze);
    assert_int_equal(pmu_rd(&h, PMU_PMEVCNTR_EL0(0)), st.population);
    close_units(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pmu_counts_spu_events),
        cmocka_unit_test(test_pmfz_freezes_at_management_event),
    };
    return cmocka_run_group_tests_name("pmu_spu", tests, NULL, NULL);
}
