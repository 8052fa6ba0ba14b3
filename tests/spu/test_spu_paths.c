/* SPDX-License-Identifier: Apache-2.0 */
/* test_spu_paths.c: the SPU's fast paths give the records the spec asks for: collection controls after PMSCR/context changes, completion order, restore. */
#include "spu_fixture.h"

#include "armprof/spe.h"

#define PMSCR_CX (1u << 3)
#define PMSCR_PA (1u << 4)
#define PMSCR_TS (1u << 5)
#define PMSCR_PCT (1u << 6)

/* What the record hook saw, in the order the records were captured (completion order). */
typedef struct hook_log {
    int n;
    uint32_t present[16];
    uint64_t pc[16];
    uint32_t context_el1[16];
} hook_log;

static void on_record(void *user, const spe_record *rec, const uint8_t *b, size_t len)
{
    (void)b;
    (void)len;
    hook_log *h = user;
    assert_true(h->n < 16);
    h->present[h->n] = rec->present;
    h->pc[h->n] = rec->pc;
    h->context_el1[h->n] = rec->context_el1;
    h->n++;
}

static spu_op load_op(uint64_t pc, uint32_t lat)
{
    spu_op op;
    memset(&op, 0, sizeof(op));
    op.pc = pc;
    op.op_class = SPE_CLASS_LDST;
    op.flags = SPU_OP_HAS_VA | SPU_OP_HAS_PA;
    op.data_va = 0x7000;
    op.data_pa = 0x9000;
    op.total_lat = lat;
    return op;
}

/* PMSCR_EL2 is written from EL2; the PE then goes back to EL1. */
static void wr_pmscr_el2(fx *f, uint64_t v)
{
    f->ctx.el = 2;
    fx_ctx(f);
    fx_wr(f, SPU_PMSCR_EL2, v);
    f->ctx.el = 1;
    fx_ctx(f);
}

/* Decodes the buffer from FX_MEM_BASE up to PMBPTR_EL1 into recs; returns the record count. */
static int decode_buffer(fx *f, spe_decoded *recs, int cap)
{
    size_t used = (size_t)(fx_rd(f, SPU_PMBPTR_EL1) - FX_MEM_BASE);
    spe_decoder d;
    spe_decoder_init(&d, f->mem, used, NULL);
    int n = 0;
    while (n < cap && spe_decoder_next(&d, &recs[n]) == SPE_DEC_RECORD)
        n++;
    assert_int_equal(d.n_errors, 0);
    return n;
}

/*
 * §3.3.1: CollectContext(), CollectPhysicalAddress() and CollectTimeStamp() follow PMSCR_EL1,
 * PMSCR_EL2 and the PE context as they are when each operation is sampled (the model works them
 * out when they change, not per sample: every change must show in the next record).
 */
static void test_controls_follow_pmscr(void **state)
{
    fx *f = *state;
    hook_log h = { 0 };
    spu_set_record_hook(f->spu, on_record, &h);
    fx_start(f, FX_MEM_BASE, 16384, 256, false, 0);
    spu_op op = load_op(0x1000, 3);

    assert_int_equal(fx_sample(f, &op), SPU_OP_SAMPLED);                  /* CX=PA=TS=0 */
    wr_pmscr_el2(f, PMSCR_PA | PMSCR_CX);                                  /* EL2 allows PA */
    fx_wr(f, SPU_PMSCR_EL1, PMSCR_CX | PMSCR_PA | PMSCR_TS | 3);
    f->ctx.contextidr_el1 = 0x1234;
    fx_ctx(f);
    assert_int_equal(fx_sample(f, &op), SPU_OP_SAMPLED);                  /* all three on */
    f->ctx.contextidr_el1 = 0x5678;
    fx_ctx(f);
    assert_int_equal(fx_sample(f, &op), SPU_OP_SAMPLED);                  /* new CONTEXTIDR */
    wr_pmscr_el2(f, PMSCR_CX);                                             /* EL2 denies PA */
    assert_int_equal(fx_sample(f, &op), SPU_OP_SAMPLED);
    fx_wr(f, SPU_PMSCR_EL1, 3);
    assert_int_equal(fx_sample(f, &op), SPU_OP_SAMPLED);                  /* all off again */

    assert_int_equal(h.n, 5);
    const uint32_t parts = SPE_R_CONTEXT_EL1 | SPE_R_DATA_PA | SPE_R_TIMESTAMP;
    assert_int_equal(h.present[0] & parts, 0);
    assert_int_equal(h.present[1] & parts, parts);
    assert_int_equal(h.context_el1[1], 0x1234);
    assert_int_equal(h.present[2] & parts, parts);
    assert_int_equal(h.context_el1[2], 0x5678);
    assert_int_equal(h.present[3] & parts, SPE_R_CONTEXT_EL1 | SPE_R_TIMESTAMP);
    assert_int_equal(h.present[4] & parts, 0);

    /* The bytes in memory say the same: a Context packet (0x64) with 0x5678 in record 2. */
    spe_decoded r[8];
    assert_int_equal(decode_buffer(f, r, 8), 5);
    assert_int_equal(r[2].rec.present & parts, parts);
    assert_int_equal(r[2].rec.context_el1, 0x5678);
    assert_int_equal(r[4].rec.present & parts, 0);
}

/* Samples one operation at the next sample point, retiring it in a cycle of its own. */
static void sample_in_cycle(fx *f, const spu_op *op)
{
    uint64_t k = spu_ops_until_sample(f->spu);
    assert_int_equal(spu_skip(f->spu, k), k);
    spu_op_result res;
    spu_cycle(f->spu, op, 1, &res);
    assert_int_equal(res, SPU_OP_SAMPLED);
}

/*
 * Records are captured at the edge of their operation's completion (the timestamp is that
 * cycle) but enter the FIFO, and memory, in sampling order. Latencies 40, 10, 30, 5 complete
 * out of order; then four with equal latencies complete in order.
 */
static void test_completion_order(void **state)
{
    (void)state;
    spu_config c;
    spu_config_default(&c);
    c.max_inflight = 8;
    c.fifo_bytes = 4096;
    c.drain_bytes_per_cycle = 64;
    fx *f = fx_new_cfg(&c);
    hook_log h = { 0 };
    spu_set_record_hook(f->spu, on_record, &h);
    wr_pmscr_el2(f, PMSCR_PCT);
    fx_start(f, FX_MEM_BASE, 16384, 256, false, PMSCR_TS | PMSCR_PCT);

    const uint32_t lat[8] = { 40, 10, 30, 5, 7, 7, 7, 7 };
    uint64_t sampled_at[8];
    for (int k = 0; k < 8; k++) {
        if (k == 4) { /* the first four all done before the in-order group */
            for (int i = 0; i < 50; i++)
                spu_cycle(f->spu, NULL, 0, NULL);
        }
        spu_op op = load_op(0x1000 + 4u * (unsigned)k, lat[k]);
        sampled_at[k] = spu_now(f->spu);
        sample_in_cycle(f, &op);
    }
    for (int i = 0; i < 50; i++)
        spu_cycle(f->spu, NULL, 0, NULL);
    spu_psb_csync(f->spu);

    /* Capture (hook) order: by completion cycle. */
    const int captured[8] = { 3, 1, 2, 0, 4, 5, 6, 7 };
    assert_int_equal(h.n, 8);
    for (int i = 0; i < 8; i++)
        assert_int_equal(h.pc[i], 0x1000 + 4u * (unsigned)captured[i]);

    /* Memory order: by sampling; each timestamp is the completion cycle (physical count). */
    spe_decoded r[8];
    assert_int_equal(decode_buffer(f, r, 8), 8);
    for (int k = 0; k < 8; k++) {
        assert_int_equal(r[k].rec.pc, 0x1000 + 4u * (unsigned)k);
        assert_true(r[k].rec.present & SPE_R_TIMESTAMP);
        assert_int_equal(r[k].rec.timestamp, sampled_at[k] + lat[k]);
    }
    fx_free(f);
}

/* One cycle of the stimulus shared by the two units of the restore test. */
static void drive(fx *f, int cyc)
{
    spu_op op = load_op(0x4000 + 4u * (unsigned)cyc, (uint32_t)((cyc * 37) % 401));
    spu_op ops[3] = { op, op, op };
    ops[1].total_lat = (uint32_t)((cyc * 11) % 13);
    ops[2].total_lat = 900;
    spu_cycle(f->spu, ops, 1 + (unsigned)(cyc % 3), NULL);
}

/*
 * A checkpoint taken with operations in flight, completing out of order, restored into a unit
 * opened with the reset PMSCR values: both go on to write the same bytes and counts.
 */
static void test_restore_mid_flight(void **state)
{
    (void)state;
    spu_config c;
    spu_config_default(&c);
    c.max_inflight = 6;
    c.fifo_bytes = 256;
    c.drain_bytes_per_cycle = 4;
    fx *a = fx_new_cfg(&c), *b = fx_new_cfg(&c);
    wr_pmscr_el2(a, PMSCR_PA | PMSCR_CX);
    fx_start(a, FX_MEM_BASE, 65536, 256, true, PMSCR_CX | PMSCR_PA | PMSCR_TS);
    int cyc = 0;
    for (; cyc < 20000; cyc++)
        drive(a, cyc);
    /* Then two samples completing out of order (500 cycles, then 10) are in flight. */
    for (int i = 0; i < 1000; i++)
        spu_cycle(a->spu, NULL, 0, NULL);
    spu_op slow = load_op(0x8000, 500), fast = load_op(0x8004, 10);
    sample_in_cycle(a, &slow);
    sample_in_cycle(a, &fast);
    spu_stats st;
    spu_get_stats(a->spu, &st);
    assert_int_equal(st.inflight_now, 2);
    size_t len = 0;
    assert_int_equal(spu_save(a->spu, NULL, 0, &len), ARMPROF_ERR_BUFSZ);
    uint8_t *blob = malloc(len);
    assert_non_null(blob);
    assert_int_equal(spu_save(a->spu, blob, len, &len), ARMPROF_OK);
    assert_int_equal(spu_restore(b->spu, blob, len), ARMPROF_OK);
    free(blob);
    memcpy(b->mem, a->mem, FX_MEM_SIZE);

    for (; cyc < 40000; cyc++) {
        drive(a, cyc);
        drive(b, cyc);
    }
    spu_psb_csync(a->spu);
    spu_psb_csync(b->spu);
    spu_stats sa, sb;
    spu_get_stats(a->spu, &sa);
    spu_get_stats(b->spu, &sb);
    assert_memory_equal(&sa, &sb, sizeof(sa));
    assert_true(sa.records_written > 100);
    assert_int_equal(fx_rd(a, SPU_PMBPTR_EL1), fx_rd(b, SPU_PMBPTR_EL1));
    assert_memory_equal(a->mem, b->mem, FX_MEM_SIZE);
    fx_free(a);
    fx_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_controls_follow_pmscr, fx_setup, fx_teardown),
        cmocka_unit_test(test_completion_order),
        cmocka_unit_test(test_restore_mid_flight),
    };
    return cmocka_run_group_tests_name("spu_paths", tests, NULL, NULL);
}
