/* SPDX-License-Identifier: Apache-2.0 */
/* test_spu_sampling.c: the sample interval counter (§3.1), collisions (§3.1.4), PMU events, skip path. */
#include "spu_fixture.h"

#include "armprof/rng.h"

static spu_op op0;

/* Retires single operations and returns the gaps (in operations) between sampled ones. */
static void gaps(fx *f, uint64_t *out, int n)
{
    uint64_t i = 0, last = 0;
    int got = -1;
    while (got < n) {
        spu_op_result r = spu_retire(f->spu, &op0);
        i++;
        spu_psb_csync(f->spu);
        if (r == SPU_OP_SAMPLED) {
            if (got >= 0)
                out[got] = i - last;
            last = i;
            got++;
        }
    }
}

/* §3.1.2: RND=0: the interval is exactly INTERVAL x 256 + 1; COUNT[7:0] reloads with 0. */
static void test_interval_exact_rnd0(void **state)
{
    fx *f = *state;
    for (uint32_t interval = 256; interval <= 1024; interval += 768) {
        fx_start(f, FX_MEM_BASE, 128 * 1024, interval, false, 0);
        /* §3.1.1: PMSICR_EL1 zero at enable -> COUNT = INTERVAL:0x00 */
        assert_int_equal(fx_rd(f, SPU_PMSICR_EL1), interval);
        uint64_t g[20];
        gaps(f, g, 20);
        for (int i = 0; i < 20; i++)
            assert_int_equal(g[i], interval + 1);
        fx_wr(f, SPU_PMSCR_EL1, 0);
        fx_wr(f, SPU_PMSICR_EL1, 0);
    }
}

/* The first sample with RND=0 comes after COUNT+1 operations (COUNT decrements to 0, the next
 * operation finds it zero and is the sample point). */
static void test_first_sample_and_counts(void **state)
{
    fx *f = *state;
    fx_start(f, FX_MEM_BASE, 128 * 1024, 256, false, 0);
    assert_int_equal(spu_ops_until_sample(f->spu), 256);
    for (int i = 0; i < 256; i++)
        assert_int_equal(spu_retire(f->spu, &op0), SPU_OP_COUNTED);
    assert_int_equal(fx_rd(f, SPU_PMSICR_EL1), 0);
    assert_int_equal(spu_ops_until_sample(f->spu), 0);
    assert_int_equal(spu_retire(f->spu, &op0), SPU_OP_SAMPLED);
    assert_int_equal(fx_rd(f, SPU_PMSICR_EL1), 256);
    /* PMU events: SAMPLE_POP per member, SAMPLE_FEED per sample, SAMPLE_FILTRATE per record */
    spu_psb_csync(f->spu);
    assert_int_equal(f->events[0], 257);
    assert_int_equal(f->events[1], 1);
    assert_int_equal(f->events[2], 1);
    assert_int_equal(f->events[3], 0);
}

/* §3.1.1: a non-zero PMSICR_EL1 resumes where it was; §3.1.3: disabled counters hold. */
static void test_reload_rules_and_hold(void **state)
{
    fx *f = *state;
    fx_wr(f, SPU_PMSIRR_EL1, 0x400);
    fx_wr(f, SPU_PMSICR_EL1, 17);
    fx_wr(f, SPU_PMBPTR_EL1, FX_MEM_BASE);
    fx_wr(f, SPU_PMBLIMITR_EL1, (FX_MEM_BASE + 0x10000) | 1);
    fx_wr(f, SPU_PMSCR_EL1, 3);
    assert_int_equal(fx_rd(f, SPU_PMSICR_EL1), 17); /* resumes: not reloaded */
    for (int i = 0; i < 7; i++)
        spu_retire(f->spu, &op0);
    assert_int_equal(fx_rd(f, SPU_PMSICR_EL1), 10);
    /* disabled by PMSCR_EL1.E1SPE = 0: operations are not counted, COUNT holds */
    fx_wr(f, SPU_PMSCR_EL1, 0);
    for (int i = 0; i < 100; i++)
        assert_int_equal(spu_retire(f->spu, &op0), SPU_OP_NOT_COUNTED);
    assert_int_equal(spu_skip(f->spu, 100), 0);
    assert_int_equal(spu_ops_until_sample(f->spu), UINT64_MAX);
    assert_int_equal(fx_rd(f, SPU_PMSICR_EL1), 10);
    /* disabled by a change of Exception level (EL2 is not enabled for an EL1 owner) */
    fx_wr(f, SPU_PMSCR_EL1, 3);
    f->ctx.el = 2;
    fx_ctx(f);
    spu_retire(f->spu, &op0);
    assert_int_equal(fx_rd(f, SPU_PMSICR_EL1), 10);
    f->ctx.el = 1;
    fx_ctx(f);
    spu_retire(f->spu, &op0);
    assert_int_equal(fx_rd(f, SPU_PMSICR_EL1), 9);
    /* zero at re-enable: reloads */
    fx_wr(f, SPU_PMSCR_EL1, 0);
    fx_wr(f, SPU_PMSICR_EL1, 0);
    fx_wr(f, SPU_PMSCR_EL1, 3);
    assert_int_equal(fx_rd(f, SPU_PMSICR_EL1), 0x400);
    /* while PMBSR_EL1.S is 1, PMSICR_EL1 does not decrement */
    fx_wr(f, SPU_PMBSR_EL1, 1u << 17);
    spu_retire(f->spu, &op0);
    assert_int_equal(fx_rd(f, SPU_PMSICR_EL1), 0x400);
}

/* RND=1, ERnd=0: COUNT[7:0] is loaded with the generator's byte at enable and at each reload,
 * and the mean interval is INTERVAL x 256 + 128 (+ 0.5 for the uniform byte's mean 127.5 and the
 * +1 of counting down to zero), within 1% over 100k samples. */
static void mean_interval(fx *f, double want)
{
    const int n = 100000;
    uint64_t ops = 0;
    int samples = -1;
    uint64_t first = 0;
    while (samples < n) {
        uint64_t k = spu_ops_until_sample(f->spu);
        ops += spu_skip(f->spu, k);
        if (spu_retire(f->spu, &op0) == SPU_OP_SAMPLED) {
            samples++;
            if (samples == 0)
                first = ops;
            spu_psb_csync(f->spu);
            fx_wr(f, SPU_PMBPTR_EL1, FX_MEM_BASE); /* keep the buffer from filling */
        }
        ops++;
    }
    double mean = (double)(ops - 1 - first) / n;
    if (mean < want * 0.99 || mean > want * 1.01)
        fail_msg("mean interval %.2f, expected %.2f within 1%%", mean, want);
}

static void test_rnd_mean_ernd0(void **state)
{
    fx *f = *state;
    fx_start(f, FX_MEM_BASE, 128 * 1024, 1024, true, 0);
    /* the first load used the first draw of the configured generator */
    ap_rng r;
    ap_rng_seed(&r, f->cfg.rng_seed);
    assert_int_equal(fx_rd(f, SPU_PMSICR_EL1), 1024u | ap_rng_draw8(&r));
    mean_interval(f, 1024 + 128.5);
}

static void test_rnd_mean_ernd1(void **state)
{
    (void)state;
    spu_config c;
    spu_config_default(&c);
    c.ernd = true;
    fx *f = fx_new_cfg(&c);
    fx_start(f, FX_MEM_BASE, 128 * 1024, 1024, true, 0);
    /* ERnd=1: COUNT[7:0] = 0x00 at enable, ECOUNT idle */
    assert_int_equal(fx_rd(f, SPU_PMSICR_EL1), 1024);
    mean_interval(f, 1024 + 1);
    fx_free(f);
}

/* ERnd=1: when COUNT reaches zero it reloads and ECOUNT takes a random value; the operation at
 * which ECOUNT reaches zero is sampled, while COUNT keeps decrementing. */
static void test_ecount_sequence(void **state)
{
    (void)state;
    spu_config c;
    spu_config_default(&c);
    c.ernd = true;
    c.rng_seed = 12345;
    fx *f = fx_new_cfg(&c);
    fx_start(f, FX_MEM_BASE, 128 * 1024, 256, true, 0);
    ap_rng r;
    ap_rng_seed(&r, 12345);
    for (int i = 0; i < 256; i++)
        assert_int_equal(spu_retire(f->spu, &op0), SPU_OP_COUNTED);
    uint8_t e = ap_rng_draw8(&r);
    spu_op_result res = spu_retire(f->spu, &op0); /* COUNT was 0: reload, ECOUNT = e */
    uint64_t icr = fx_rd(f, SPU_PMSICR_EL1);
    assert_int_equal(icr & 0xFFFFFFFF, 256);
    assert_int_equal(icr >> 56, e);
    if (e == 0) {
        assert_int_equal(res, SPU_OP_SAMPLED);
    } else {
        assert_int_equal(res, SPU_OP_COUNTED);
        assert_int_equal(spu_ops_until_sample(f->spu), e - 1);
        for (int i = 0; i < e - 1; i++)
            assert_int_equal(spu_retire(f->spu, &op0), SPU_OP_COUNTED);
        assert_int_equal(spu_retire(f->spu, &op0), SPU_OP_SAMPLED);
        icr = fx_rd(f, SPU_PMSICR_EL1);
        assert_int_equal(icr >> 56, 0);
        assert_int_equal(icr & 0xFFFFFFFF, 256 - e);
    }
    fx_free(f);
}

/* IMPLEMENTATION DEFINED: the sampled operation may be the one after the counter reached 0. */
static void test_sample_next_op(void **state)
{
    (void)state;
    spu_config c;
    spu_config_default(&c);
    c.sample_next_op = true;
    fx *f = fx_new_cfg(&c);
    fx_start(f, FX_MEM_BASE, 128 * 1024, 256, false, 0);
    for (int i = 0; i < 257; i++)
        assert_int_equal(spu_retire(f->spu, &op0), SPU_OP_COUNTED);
    assert_int_equal(spu_ops_until_sample(f->spu), 0);
    assert_int_equal(spu_retire(f->spu, &op0), SPU_OP_SAMPLED);
    uint64_t g[5];
    gaps(f, g, 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(g[i], 257);
    fx_free(f);
}

/* The skip path reports exactly the operations before the sample point and is O(1). */
static void test_skip_path(void **state)
{
    fx *f = *state;
    fx_start(f, FX_MEM_BASE, 128 * 1024, 4096, false, 0);
    assert_int_equal(spu_skip(f->spu, 1000), 1000);
    assert_int_equal(fx_rd(f, SPU_PMSICR_EL1), 4096 - 1000);
    assert_int_equal(spu_skip(f->spu, 1u << 30), 4096 - 1000); /* stops before the sample point */
    assert_int_equal(spu_skip(f->spu, 5), 0);
    assert_int_equal(spu_retire(f->spu, &op0), SPU_OP_SAMPLED);
    spu_psb_csync(f->spu);
    assert_int_equal(f->events[0], 4097);
    spu_stats st;
    spu_get_stats(f->spu, &st);
    assert_int_equal(st.population, 4097);
}

/* §2.2.4 / §3.1.4: with every in-flight slot busy, a new sample collides: SAMPLE_COLLISION,
 * PMBSR_EL1.COLL, not SAMPLE_FEED. A slot is free again once its record is in the FIFO. */
static void test_collisions(void **state)
{
    (void)state;
    spu_config c;
    spu_config_default(&c);
    c.max_inflight = 2;
    fx *f = fx_new_cfg(&c);
    fx_start(f, FX_MEM_BASE, 128 * 1024, 256, false, 0);
    spu_op slow = op0;
    slow.total_lat = 10000; /* completes long after the next sample points */
    spu_skip(f->spu, 256);
    assert_int_equal(spu_retire(f->spu, &slow), SPU_OP_SAMPLED);
    spu_skip(f->spu, 256);
    assert_int_equal(spu_retire(f->spu, &slow), SPU_OP_SAMPLED);
    spu_skip(f->spu, 256);
    assert_int_equal(fx_rd(f, SPU_PMBSR_EL1) & (1u << 16), 0);
    assert_int_equal(spu_retire(f->spu, &slow), SPU_OP_COLLIDED);
    assert_int_equal(fx_rd(f, SPU_PMBSR_EL1), 1u << 16); /* COLL, nothing else */
    assert_false(spu_irq_level(f->spu));                  /* a collision is not a management event */
    assert_int_equal(f->events[3], 1);
    assert_int_equal(f->events[1], 2);
    spu_probe p;
    spu_get_probe(f->spu, &p);
    assert_int_equal(p.inflight, 2);
    spu_advance(f->spu, 10001);
    spu_get_probe(f->spu, &p);
    assert_int_equal(p.inflight, 0);
    spu_skip(f->spu, 256);
    assert_int_equal(spu_retire(f->spu, &slow), SPU_OP_SAMPLED);
    fx_free(f);
}

/* A full record FIFO holds completed records in their slots (backpressure), which makes new
 * samples collide; the FIFO drains drain_bytes_per_cycle bytes per cycle. */
static void test_fifo_backpressure(void **state)
{
    (void)state;
    spu_config c;
    spu_config_default(&c);
    c.max_inflight = 1;
    c.fifo_bytes = 64;
    c.drain_bytes_per_cycle = 1;
    fx *f = fx_new_cfg(&c);
    fx_start(f, FX_MEM_BASE, 128 * 1024, 256, false, 0);
    uint32_t len = 0;
    int collided = 0, sampled = 0;
    for (int i = 0; i < 40; i++) {
        spu_skip(f->spu, spu_ops_until_sample(f->spu));
        spu_op_result r = spu_retire(f->spu, &op0);
        sampled += r == SPU_OP_SAMPLED;
        collided += r == SPU_OP_COLLIDED;
        spu_probe p;
        spu_get_probe(f->spu, &p);
        assert_true(p.fifo_level <= 64);
        if (!len && p.fifo_level)
            len = p.fifo_level;
        spu_advance(f->spu, 1); /* one byte drains per cycle: the FIFO fills */
    }
    assert_true(len > 0);
    assert_true(collided > 0);
    spu_stats st;
    spu_get_stats(f->spu, &st);
    assert_true(st.fifo_full_cycles > 0);
    assert_int_equal(st.collisions, (uint64_t)collided);
    /* drain at one byte per cycle: exactly one byte leaves the FIFO per cycle */
    spu_probe a, b;
    spu_get_probe(f->spu, &a);
    spu_advance(f->spu, 3);
    spu_get_probe(f->spu, &b);
    assert_true(a.fifo_level >= 3);
    assert_int_equal(b.drained - a.drained, 3);
    /* everything completes and drains: every sample is written (buffer is large) */
    spu_advance(f->spu, 100000);
    spu_get_stats(f->spu, &st);
    assert_int_equal(st.records_written, (uint64_t)sampled);
    fx_free(f);
}

/* The cycle-level step and the transaction-level calls give identical results. */
static void test_cycle_equals_transaction(void **state)
{
    (void)state;
    spu_config c;
    spu_config_default(&c);
    c.max_inflight = 2;
    c.fifo_bytes = 128;
    c.drain_bytes_per_cycle = 3;
    fx *a = fx_new_cfg(&c), *b = fx_new_cfg(&c);
    fx_start(a, FX_MEM_BASE, 4096, 256, true, 1u << 5);
    fx_start(b, FX_MEM_BASE, 4096, 256, true, 1u << 5);
    spu_op op = op0;
    for (int cyc = 0; cyc < 200000; cyc++) {
        op.total_lat = (uint32_t)(cyc % 97) * 7;
        op.pc = 0x1000 + (uint64_t)cyc * 4;
        spu_cycle(a->spu, &op, 1, NULL);
        spu_retire(b->spu, &op);
        spu_advance(b->spu, 1);
        if (cyc % 50000 == 49999) { /* service the buffer in both */
            fx_wr(a, SPU_PMBPTR_EL1, FX_MEM_BASE);
            fx_wr(a, SPU_PMBSR_EL1, 0);
            fx_wr(b, SPU_PMBPTR_EL1, FX_MEM_BASE);
            fx_wr(b, SPU_PMBSR_EL1, 0);
        }
    }
    spu_advance(a->spu, 5000);
    spu_advance(b->spu, 5000);
    spu_stats sa, sb;
    spu_get_stats(a->spu, &sa);
    spu_get_stats(b->spu, &sb);
    assert_memory_equal(&sa, &sb, sizeof(sa));
    assert_int_equal(fx_rd(a, SPU_PMBSR_EL1), fx_rd(b, SPU_PMBSR_EL1));
    assert_int_equal(fx_rd(a, SPU_PMBPTR_EL1), fx_rd(b, SPU_PMBPTR_EL1));
    assert_memory_equal(a->mem, b->mem, 4096);
    assert_true(sa.records_written > 0);
    fx_free(a);
    fx_free(b);
}

int main(void)
{
    memset(&op0, 0, sizeof(op0));
    op0.pc = 0xffff000000001000ull;
    op0.op_class = SPE_CLASS_OTHER;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_interval_exact_rnd0, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_first_sample_and_counts, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_reload_rules_and_hold, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_rnd_mean_ernd0, fx_setup, fx_teardown),
        cmocka_unit_test(test_rnd_mean_ernd1),
        cmocka_unit_test(test_ecount_sequence),
        cmocka_unit_test(test_sample_next_op),
        cmocka_unit_test_setup_teardown(test_skip_path, fx_setup, fx_teardown),
        cmocka_unit_test(test_collisions),
        cmocka_unit_test(test_fifo_backpressure),
        cmocka_unit_test(test_cycle_equals_transaction),
    };
    return cmocka_run_group_tests_name("spu_sampling", tests, NULL, NULL);
}
