/* SPDX-License-Identifier: Apache-2.0 */
/* test_spu_ext.c: the external-sampler hook obeys the sampler's decisions (samples, collisions, PMSICR_EL1, drained bytes). */
#include "spu_fixture.h"

#define PMBSR_COLL (1ull << 16)

static spu_op op_lat(uint64_t pc, uint32_t lat)
{
    spu_op op = fx_op_other(pc);
    op.total_lat = lat;
    return op;
}

/* Three lanes, the sampler selects lane 1: it is sampled, the others only counted; a
 * collision is taken where the sampler says so (§3.1.4: SAMPLE_COLLISION, PMBSR_EL1.COLL). */
static void test_ext_decisions(void **state)
{
    (void)state;
    spu_config c;
    spu_config_default(&c);
    c.max_inflight = 1;
    fx *f = fx_new_cfg(&c);
    assert_int_equal(spu_set_external_sampler(f->spu, true), ARMPROF_OK);
    assert_true(spu_external_sampler(f->spu));
    fx_start(f, FX_MEM_BASE, 4096, 256, false, 0);
    /* §3.1.1 is the sampler's: the model leaves a zero PMSICR_EL1 alone on enable. */
    assert_int_equal(fx_rd(f, SPU_PMSICR_EL1), 0);
    spu_op ops[3] = { op_lat(0x1000, 50), op_lat(0x1004, 50), op_lat(0x1008, 50) };
    uint16_t len[3] = { 0, (uint16_t)spu_predict_record_len(f->spu, &ops[1]), 0 };
    spu_ext_cycle ec = { .fire = 2, .len = len, .count = 0x1234 };
    spu_op_result res[3];
    spu_cycle_ext(f->spu, ops, 3, &ec, res);
    assert_int_equal(res[0], SPU_OP_COUNTED);
    assert_int_equal(res[1], SPU_OP_SAMPLED);
    assert_int_equal(res[2], SPU_OP_COUNTED);
    assert_int_equal(fx_rd(f, SPU_PMSICR_EL1), 0x1234); /* mirrored from the sampler */
    spu_stats st;
    spu_get_stats(f->spu, &st);
    assert_int_equal(st.population, 3);
    assert_int_equal(st.feed, 1);
    assert_int_equal(fx_rd(f, SPU_PMBSR_EL1) & PMBSR_COLL, 0);
    /* The sampler says lane 0 collides. */
    spu_ext_cycle ec2 = { .fire = 1, .coll = 1, .count = 0x1233 };
    spu_cycle_ext(f->spu, ops, 1, &ec2, res);
    assert_int_equal(res[0], SPU_OP_COLLIDED);
    spu_get_stats(f->spu, &st);
    assert_int_equal(st.collisions, 1);
    assert_int_equal(fx_rd(f, SPU_PMBSR_EL1) & PMBSR_COLL, PMBSR_COLL);
    /* A sample the model has no slot for (the sampler disagrees): a collision, reported. */
    spu_ext_cycle ec3 = { .fire = 1, .count = 0x1232 };
    spu_cycle_ext(f->spu, ops, 1, &ec3, res);
    assert_int_equal(res[0], SPU_OP_COLLIDED);
    spu_ext_stats xs;
    spu_get_ext_stats(f->spu, &xs);
    assert_int_equal(xs.slot_mismatches, 1);
    assert_int_equal(xs.cycles, 3);
    /* While the model has operations in flight the sampler cannot be switched on again. */
    assert_int_equal(spu_set_external_sampler(f->spu, true), ARMPROF_ERR_BUSY);
    fx_free(f);
}

/* The buffer writer is paced by the sampler's drained bytes: nothing is written until the
 * sampler has drained the whole record, then exactly its bytes are (§3.4). */
static void test_ext_drain_paces_writes(void **state)
{
    (void)state;
    fx *f = fx_new_cfg(NULL);
    assert_int_equal(spu_set_external_sampler(f->spu, true), ARMPROF_OK);
    fx_start(f, FX_MEM_BASE, 4096, 256, false, 0);
    spu_op op = op_lat(0x2000, 0);
    uint16_t len = (uint16_t)spu_predict_record_len(f->spu, &op);
    assert_true(len >= 3);
    spu_ext_cycle ec = { .fire = 1, .len = &len, .fifo_level = len };
    spu_cycle_ext(f->spu, &op, 1, &ec, NULL); /* completes (latency 0), enters the FIFO */
    spu_stats st;
    spu_get_stats(f->spu, &st);
    assert_int_equal(st.fifo_bytes_now, len); /* the predicted length was the real one */
    spu_ext_cycle idle = { .drained = 0, .fifo_level = len };
    for (int i = 0; i < 10; i++)
        spu_cycle_ext(f->spu, NULL, 0, &idle, NULL);
    spu_get_stats(f->spu, &st);
    assert_int_equal(st.records_written, 0);
    assert_int_equal(fx_rd(f, SPU_PMBPTR_EL1), FX_MEM_BASE);
    spu_ext_cycle part = { .drained = (uint32_t)len - 1, .fifo_level = 1 };
    spu_cycle_ext(f->spu, NULL, 0, &part, NULL);
    spu_get_stats(f->spu, &st);
    assert_int_equal(st.records_written, 0);
    spu_ext_cycle last = { .drained = 1, .fifo_level = 0 };
    spu_cycle_ext(f->spu, NULL, 0, &last, NULL);
    spu_get_stats(f->spu, &st);
    assert_int_equal(st.records_written, 1);
    assert_int_equal(st.bytes_written, len);
    assert_int_equal(fx_rd(f, SPU_PMBPTR_EL1), FX_MEM_BASE + len);
    assert_int_equal(f->mem[len - 1], 0x01); /* the record ends with its End packet */
    spu_ext_stats xs;
    spu_get_ext_stats(f->spu, &xs);
    assert_int_equal(xs.len_mismatches + xs.level_mismatches + xs.owed_edges + xs.slot_mismatches, 0);
    fx_free(f);
}

/* A record CollectRecord() drops is predicted as length 0 (PMSFCR_EL1.FL, PMSLATFR_EL1). */
static void test_ext_predict_filtered(void **state)
{
    (void)state;
    fx *f = fx_new_cfg(NULL);
    fx_wr(f, SPU_PMSLATFR_EL1, 100);
    fx_wr(f, SPU_PMSFCR_EL1, 1u << 2);
    fx_start(f, FX_MEM_BASE, 4096, 256, false, 0);
    spu_op fast = op_lat(0x3000, 10), slow = op_lat(0x3004, 200);
    assert_int_equal(spu_predict_record_len(f->spu, &fast), 0);
    assert_true(spu_predict_record_len(f->spu, &slow) > 0);
    fx_free(f);
}

/* §3.6 with an external sampler: PSB CSYNC completes the operations in flight in the model and
 * writes their records at once; the sampler's slots complete them at their own time and its
 * FIFO drains the same bytes later, which the model's pacing takes as the records it already
 * wrote (nothing owed, nothing written twice). With S = 1 at the PSB CSYNC the records are
 * discarded, and the sampler may drop them (fifo_discard) or, S cleared meanwhile, drain them. */
static void ext_csync_case(bool service, bool sampler_drains)
{
    fx *f = fx_new_cfg(NULL);
    assert_int_equal(spu_set_external_sampler(f->spu, true), ARMPROF_OK);
    fx_start(f, FX_MEM_BASE, 4096, 256, false, 0);
    spu_op op = op_lat(0x4000, 1000);
    uint16_t len = (uint16_t)spu_predict_record_len(f->spu, &op);
    spu_ext_cycle ec = { .fire = 1, .len = &len };
    spu_cycle_ext(f->spu, &op, 1, &ec, NULL);
    spu_stats st;
    spu_get_stats(f->spu, &st);
    assert_int_equal(st.inflight_now, 1);
    if (service)
        fx_wr(f, SPU_PMBSR_EL1, 1u << 17);
    uint64_t t = spu_now(f->spu);
    spu_psb_csync(f->spu);
    assert_int_equal(spu_now(f->spu), t);
    spu_get_stats(f->spu, &st);
    assert_int_equal(st.inflight_now, 0);
    assert_int_equal(st.records_written, service ? 0 : 1);
    assert_int_equal(st.discarded[SPU_DISCARD_SERVICE], service ? 1 : 0);
    assert_int_equal(fx_rd(f, SPU_PMBPTR_EL1), FX_MEM_BASE + (service ? 0 : len));
    if (service)
        fx_wr(f, SPU_PMBSR_EL1, 0);
    /* The sampler's slot completes at the operation's own time (the edge of the cycle 1000 on);
     * its FIFO then holds and drains the record, or drops it. */
    spu_ext_cycle idle = { 0 };
    for (int i = 0; i < 999; i++)
        spu_cycle_ext(f->spu, NULL, 0, &idle, NULL);
    if (sampler_drains) {
        spu_ext_cycle held = { .fifo_level = len };
        spu_cycle_ext(f->spu, NULL, 0, &held, NULL);
        spu_cycle_ext(f->spu, NULL, 0, &held, NULL);
        spu_ext_cycle drain = { .drained = len, .fifo_level = 0 };
        spu_cycle_ext(f->spu, NULL, 0, &drain, NULL);
    }
    for (int i = 0; i < 8; i++)
        spu_cycle_ext(f->spu, NULL, 0, &idle, NULL);
    /* A later sample paces as usual: written once the sampler has drained it. */
    spu_op op2 = op_lat(0x4004, 0);
    uint16_t len2 = (uint16_t)spu_predict_record_len(f->spu, &op2);
    spu_ext_cycle ec2 = { .fire = 1, .len = &len2, .fifo_level = len2 };
    spu_cycle_ext(f->spu, &op2, 1, &ec2, NULL);
    spu_get_stats(f->spu, &st);
    assert_int_equal(st.fifo_bytes_now, len2);
    spu_ext_cycle drain2 = { .drained = len2, .fifo_level = 0 };
    spu_cycle_ext(f->spu, NULL, 0, &drain2, NULL);
    spu_get_stats(f->spu, &st);
    assert_int_equal(st.records_written, service ? 1 : 2);
    assert_int_equal(st.bytes_written, (service ? 0 : len) + len2);
    assert_int_equal(st.fifo_bytes_now, 0);
    spu_ext_stats xs;
    spu_get_ext_stats(f->spu, &xs);
    if (xs.len_mismatches + xs.level_mismatches + xs.owed_edges + xs.slot_mismatches)
        fail_msg("service %d sampler drains %d: len %llu level %llu owed %llu slot %llu", service,
                 sampler_drains, (unsigned long long)xs.len_mismatches,
                 (unsigned long long)xs.level_mismatches, (unsigned long long)xs.owed_edges,
                 (unsigned long long)xs.slot_mismatches);
    fx_free(f);
}

static void test_ext_psb_csync_completes_inflight_3_6(void **state)
{
    (void)state;
    ext_csync_case(false, true);
    ext_csync_case(true, true);
    ext_csync_case(true, false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ext_decisions),
        cmocka_unit_test(test_ext_drain_paces_writes),
        cmocka_unit_test(test_ext_predict_filtered),
        cmocka_unit_test(test_ext_psb_csync_completes_inflight_3_6),
    };
    return cmocka_run_group_tests_name("spu_ext", tests, NULL, NULL);
}
