/* SPDX-License-Identifier: Apache-2.0 */
/* test_spu_records.c: what seed 001 requires of records, filters and PSB CSYNC (§2.3.5, §3.2.2, §3.6, §4.3.2, §5.3.7) and the exact sample look-ahead. */
#include "spu_fixture.h"

#include "armprof/bits.h"
#include "armprof/rng.h"

#define PMBSR_S (1u << 17)

/* Every record the encoder hands on (the record hook). */
typedef struct rec_log {
    spe_record last;
    uint64_t calls;
} rec_log;

static void rec_hook(void *user, const spe_record *r, const uint8_t *b, size_t len)
{
    (void)b; (void)len;
    rec_log *l = user;
    l->last = *r;
    l->calls++;
}

static spu_op ldst_op(uint64_t pc, uint8_t subclass)
{
    spu_op op = fx_op_other(pc);
    op.op_class = SPE_CLASS_LDST;
    op.op_subclass = subclass;
    op.flags = SPU_OP_HAS_VA;
    op.data_va = 0x1000;
    return op;
}

/* Samples `op` and says whether its record passed CollectRecord(). */
static bool collected(fx *f, const spu_op *op)
{
    spu_stats a, z;
    spu_get_stats(f->spu, &a);
    assert_int_equal(fx_sample(f, op), SPU_OP_SAMPLED);
    spu_get_stats(f->spu, &z);
    assert_int_equal(z.filtrate - a.filtrate + z.filtered_out - a.filtered_out, 1);
    return z.filtrate != a.filtrate;
}

/* ---------------------------------------------------------------------------------------------
 * §3.2.2 / §4.3.9 PMSFCR_EL1: "ST enables collection of store sampled operations, including all
 * atomic operations. LD enables collection of load sampled operations, including atomic
 * operations that return a value to a register." Every atomic form (AT with or without EXCL and
 * AR; returning a value: ST bit clear) against every {LD, ST} with FT = 1.
 * --------------------------------------------------------------------------------------------- */
static void test_st_collects_every_atomic_3_2_2(void **state)
{
    fx *f = *state;
    fx_start(f, FX_MEM_BASE, 128 * 1024, 256, false, 0);
    const uint8_t forms[] = { 0, SPE_LDST_EXCL, SPE_LDST_AR, SPE_LDST_EXCL | SPE_LDST_AR };
    int checked = 0;
    for (int ld = 0; ld <= 1; ld++)
        for (int st = 0; st <= 1; st++) {
            fx_wr(f, SPU_PMSFCR_EL1, (1u << 1) | (uint64_t)ld << 17 | (uint64_t)st << 18);
            for (size_t i = 0; i < sizeof forms; i++)
                for (int ret = 0; ret <= 1; ret++) {
                    uint8_t sub = SPE_LDST_EXTENDED | SPE_LDST_AT | forms[i] | (ret ? 0 : SPE_LDST_ST);
                    spu_op op = ldst_op(0x4000, sub);
                    bool want = st || (ld && ret);
                    if (collected(f, &op) != want)
                        fail_msg("LD=%d ST=%d atomic subclass 0x%02x (%s a value): expected %s", ld, st,
                                 sub, ret ? "returns" : "returns no", want ? "collected" : "discarded");
                    checked++;
                }
        }
    assert_int_equal(checked, 4 * 4 * 2);
    /* Exclusives and acquire/release accesses that are not atomics follow their ST bit. */
    fx_wr(f, SPU_PMSFCR_EL1, (1u << 1) | (1u << 18)); /* ST only */
    spu_op ldxr = ldst_op(0x4000, SPE_LDST_EXTENDED | SPE_LDST_EXCL);
    assert_false(collected(f, &ldxr));
    spu_op stlr = ldst_op(0x4000, SPE_LDST_EXTENDED | SPE_LDST_AR | SPE_LDST_ST);
    assert_true(collected(f, &stlr));
}

/* ---------------------------------------------------------------------------------------------
 * §5.3.7 / §2.3.5: E[1] is "committed its results to the architectural state of the PE, or
 * completed with a synchronous architectural exception"; a misspeculated operation, or one
 * generating a non-architectural exception, has neither E[0] nor E[1]. The flags decide E[0]
 * and E[1] whatever the host put in bits 0 and 1 of spu_op.events; the other bits pass.
 * --------------------------------------------------------------------------------------------- */
static void test_e1_with_architectural_exception_5_3_7(void **state)
{
    fx *f = *state;
    rec_log log = { 0 };
    spu_set_record_hook(f->spu, rec_hook, &log);
    fx_start(f, FX_MEM_BASE, 128 * 1024, 256, false, 0);
    const struct { uint32_t flags; uint64_t host_ev; uint64_t want; } rows[] = {
        { 0, 0, 0x2 },
        { 0, 0x3, 0x2 },
        { SPU_OP_EXCEPTION, 0, 0x3 },
        { SPU_OP_EXCEPTION, 0x2, 0x3 },
        { SPU_OP_EXCEPTION, 0x1, 0x3 },
        { SPU_OP_NOT_RETIRED, 0, 0 },
        { SPU_OP_NOT_RETIRED, 0x3, 0 },
        { SPU_OP_NOT_RETIRED | SPU_OP_EXCEPTION, 0, 0 },
        { SPU_OP_NOT_RETIRED | SPU_OP_EXCEPTION, 0x3, 0 },
        { SPU_OP_EXCEPTION, 0x80, 0x83 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        spu_op op = ldst_op(0x5000, SPE_LDST_GP);
        op.flags |= rows[i].flags;
        op.events = rows[i].host_ev;
        uint64_t n = log.calls;
        fx_sample(f, &op);
        assert_int_equal(log.calls, n + 1);
        if (log.last.events != rows[i].want)
            fail_msg("row %zu flags 0x%x events 0x%llx: E = 0x%llx, want 0x%llx", i, rows[i].flags,
                     (unsigned long long)rows[i].host_ev, (unsigned long long)log.last.events,
                     (unsigned long long)rows[i].want);
        /* §2.3.5: an exception record holds no latencies or addresses (armprof's choice). */
        bool exc = (rows[i].flags & SPU_OP_EXCEPTION) != 0;
        assert_int_equal((log.last.present & (SPE_R_TOTAL_LAT | SPE_R_DATA_VA)) == 0, exc);
    }
    /* An event filter on E[1] keeps the exception samples and drops the non-architectural ones. */
    fx_wr(f, SPU_PMSEVFR_EL1, 1u << 1);
    fx_wr(f, SPU_PMSFCR_EL1, 1);
    spu_op exc = ldst_op(0x5000, SPE_LDST_GP);
    exc.flags |= SPU_OP_EXCEPTION;
    assert_true(collected(f, &exc));
    exc.flags |= SPU_OP_NOT_RETIRED;
    assert_false(collected(f, &exc));
}

/* ---------------------------------------------------------------------------------------------
 * §2.3.5: "All sample records written to the Profiling Buffer contain the Events packet and
 * either the End packet or the Timestamp packet." With MaxSize 16 bytes (the smallest) and
 * events at E[16] and above, every Align: the record in memory keeps PC, Operation Type and
 * an Events packet narrowed to E[15:0] (the IMPLEMENTATION DEFINED bits above are not output,
 * read as zero, §5.3.7), then End.
 * --------------------------------------------------------------------------------------------- */
static void test_events_packet_in_every_record_2_3_5(void **state)
{
    (void)state;
    const uint64_t hi[] = { 1ull << 16, 1ull << 24, 1ull << 31, 1ull << 48, 1ull << 63,
                            0xFF000000ull | (0xFFFFull << 48) };
    for (unsigned align = 0; align <= 4; align++)
        for (size_t h = 0; h < sizeof hi / sizeof hi[0]; h++) {
            spu_config c;
            spu_config_default(&c);
            c.max_size = 4;
            c.align = (uint8_t)align;
            c.fifo_bytes = 64;
            fx *f = fx_new_cfg(&c);
            assert_non_null(f);
            fx_start(f, FX_MEM_BASE, 64 * 1024, 256, false, (1u << 5)); /* TS: Timestamp too */
            spu_op op = ldst_op(0xffff800000006000ull, SPE_LDST_GP);
            op.flags |= SPU_OP_HAS_PA | SPU_OP_HAS_XLAT;
            op.total_lat = 7;
            op.events = hi[h] | (1u << SPE_EV_L1D_REFILL) | (1u << 12);
            fx_sample(f, &op);
            /* PC 9 + Operation Type 2 + Events 3 + End 1, padded to 2^Align */
            size_t size = (15u + (1u << align) - 1) & ~((1u << align) - 1);
            spu_stats st;
            spu_get_stats(f->spu, &st);
            assert_int_equal(st.records_written, 1);
            assert_int_equal(st.bytes_written, size);
            spe_decode_opts o = { .max_size = 4 };
            spe_decoder d;
            spe_decoded out;
            spe_decoder_init(&d, f->mem, size, &o);
            assert_int_equal(spe_decoder_next(&d, &out), SPE_DEC_RECORD);
            assert_true(out.have & SPE_R_EVENTS);
            assert_int_equal(out.rec.present & (SPE_R_PC | SPE_R_OPTYPE), SPE_R_PC | SPE_R_OPTYPE);
            assert_int_equal(out.rec.present & SPE_R_TIMESTAMP, 0); /* End, not Timestamp */
            assert_int_equal(out.rec.pc, 0xffff800000006000ull & AP_GENMASK(55, 0));
            assert_int_equal(out.rec.events, (1u << SPE_EV_RETIRED) | (1u << SPE_EV_L1D_REFILL) | (1u << 12));
            assert_int_equal(out.size, size);
            fx_free(f);
        }
}

/* ---------------------------------------------------------------------------------------------
 * §4.3.2 PMBLIMITR_EL1.FM: a reserved value behaves as a defined value "other than for a direct
 * read of the register". Every FM value with and without FEAT_SPEv1p2: what a read returns and
 * whether the records go to memory (fill) or are discarded (Discard mode).
 * --------------------------------------------------------------------------------------------- */
static void test_pmblimitr_fm_direct_read_4_3_2(void **state)
{
    (void)state;
    const struct { bool v1p2; unsigned fm; bool discard; bool warn; } rows[] = {
        { false, 0, false, false }, { false, 1, false, true }, { false, 2, false, true },
        { false, 3, false, true },  { true, 0, false, false }, { true, 1, false, true },
        { true, 2, true, false },   { true, 3, false, true },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        spu_config c;
        spu_config_default(&c);
        c.feat_spev1p2 = rows[i].v1p2;
        fx *f = fx_new_cfg(&c);
        fx_start(f, FX_MEM_BASE, 64 * 1024, 256, false, 0);
        uint64_t lim = (FX_MEM_BASE + 64 * 1024) | ((uint64_t)rows[i].fm << 1) | 1;
        fx_wr(f, SPU_PMBLIMITR_EL1, lim);
        uint64_t v;
        assert_int_equal(spu_reg_read(f->spu, SPU_PMBLIMITR_EL1, &v), ARMPROF_OK);
        assert_int_equal(v, lim);
        assert_int_equal(f->warnings > 0, rows[i].warn);
        spu_op op = ldst_op(0x7000, SPE_LDST_GP);
        for (int k = 0; k < 4; k++)
            fx_sample(f, &op);
        spu_stats st;
        spu_get_stats(f->spu, &st);
        assert_int_equal(st.discarded[SPU_DISCARD_MODE], rows[i].discard ? 4 : 0);
        assert_int_equal(st.records_written, rows[i].discard ? 0 : 4);
        fx_free(f);
    }
}

/* ---------------------------------------------------------------------------------------------
 * spu_ops_until_sample(): "operations that can be retired before the one that will be sampled",
 * exact in both sampling modes (sample_next_op) and with ERnd. A unit driven by skipping that
 * count (in random portions) samples exactly the operations a unit retiring every operation
 * one by one samples, and its counter, ECOUNT and generator agree at every sample; over random
 * intervals, RND 0/1, ERnd 0/1.
 * --------------------------------------------------------------------------------------------- */
static void test_ops_until_sample_exact(void **state)
{
    (void)state;
    ap_prng64 g = { .state = 0x22u };
    int runs = 0;
    for (int next = 0; next <= 1; next++)
        for (int ernd = 0; ernd <= 1; ernd++)
            for (int rnd = 0; rnd <= 1; rnd++)
                for (int rep = 0; rep < 3; rep++) {
                    spu_config c;
                    spu_config_default(&c);
                    c.sample_next_op = next;
                    c.ernd = ernd;
                    c.rng_seed = (uint32_t)ap_prng64_next(&g);
                    fx *a = fx_new_cfg(&c), *b = fx_new_cfg(&c);
                    uint32_t interval = 256u * (1 + (uint32_t)ap_prng64_below(&g, 4));
                    fx_start(a, FX_MEM_BASE, 128 * 1024, interval, rnd, 0);
                    fx_start(b, FX_MEM_BASE, 128 * 1024, interval, rnd, 0);
                    uint64_t ia = 0, ib = 0; /* operations retired so far by each */
                    for (int s = 0; s < 40; s++) {
                        /* a: skip the count in random portions, then the sampled operation */
                        uint64_t k = spu_ops_until_sample(a->spu);
                        assert_int_not_equal(k, UINT64_MAX);
                        uint64_t part = k ? ap_prng64_below(&g, k + 1) : 0;
                        assert_int_equal(spu_skip(a->spu, part), part);
                        assert_int_equal(spu_ops_until_sample(a->spu), k - part);
                        assert_int_equal(spu_skip(a->spu, k - part + 5), k - part);
                        assert_int_equal(spu_ops_until_sample(a->spu), 0);
                        ia += k;
                        spu_op op = fx_op_other(4 * ia);
                        if (spu_retire(a->spu, &op) != SPU_OP_SAMPLED)
                            fail_msg("next_op %d ERnd %d RND %d: operation %llu after a skip of %llu "
                                     "not sampled", next, ernd, rnd, (unsigned long long)ia,
                                     (unsigned long long)k);
                        ia++;
                        spu_psb_csync(a->spu);
                        /* b: one by one until its next sample */
                        spu_op_result r;
                        do {
                            spu_op o = fx_op_other(4 * ib);
                            r = spu_retire(b->spu, &o);
                            ib++;
                        } while (r != SPU_OP_SAMPLED);
                        spu_psb_csync(b->spu);
                        if (ia != ib)
                            fail_msg("next_op %d ERnd %d RND %d interval %u sample %d: skipping "
                                     "samples operation %llu, one by one %llu", next, ernd, rnd,
                                     interval, s, (unsigned long long)ia - 1,
                                     (unsigned long long)ib - 1);
                        spu_probe pa, pb;
                        spu_get_probe(a->spu, &pa);
                        spu_get_probe(b->spu, &pb);
                        assert_int_equal(pa.count, pb.count);
                        assert_int_equal(pa.ecount, pb.ecount);
                        assert_int_equal(pa.rng_state, pb.rng_state);
                    }
                    spu_stats sa, sb;
                    spu_get_stats(a->spu, &sa);
                    spu_get_stats(b->spu, &sb);
                    assert_int_equal(sa.population, sb.population);
                    assert_int_equal(a->events[0], b->events[0]); /* SAMPLE_POP */
                    fx_free(a);
                    fx_free(b);
                    runs++;
                }
    assert_int_equal(runs, 24);
}

/* With sample_next_op the count includes the operation at which the counter reaches zero: the
 * operation after it is the sampled one (the count used to be one short). */
static void test_ops_until_sample_next_op_count(void **state)
{
    (void)state;
    spu_config c;
    spu_config_default(&c);
    c.sample_next_op = true;
    fx *f = fx_new_cfg(&c);
    fx_start(f, FX_MEM_BASE, 128 * 1024, 256, false, 0);
    /* PMSICR_EL1.COUNT = 256 after the start: the counter reaches zero at operation 256 (from 0),
     * operation 257 is sampled. */
    assert_int_equal(spu_ops_until_sample(f->spu), 257);
    spu_op op = fx_op_other(0x100);
    for (int i = 0; i < 257; i++)
        assert_int_equal(spu_retire(f->spu, &op), SPU_OP_COUNTED);
    assert_int_equal(spu_ops_until_sample(f->spu), 0);
    assert_int_equal(spu_retire(f->spu, &op), SPU_OP_SAMPLED);
    /* The counter reloaded (256) at the sample point and decremented at the sampled operation:
     * it reaches zero 255 operations on, and the one after that is sampled (257 apart). */
    assert_int_equal(spu_ops_until_sample(f->spu), 256);
    assert_int_equal(spu_skip(f->spu, 1000), 256);
    assert_int_equal(spu_retire(f->spu, &op), SPU_OP_SAMPLED);
    fx_free(f);
}

/* ---------------------------------------------------------------------------------------------
 * §3.6: "Following a context synchronization event, a PSB CSYNC instruction is guaranteed to
 * synchronize the profiling operations for all instructions that are executed in program order
 * before the context synchronization event", and a DSB after it does not complete before their
 * records are written. arm_spe_pmu's stop: PMSCR_EL1 = 0, ISB, PSB CSYNC, DSB, read PMBPTR_EL1,
 * with sampled operations still in flight and no time passing.
 * --------------------------------------------------------------------------------------------- */
typedef enum { STOP_PMSCR, STOP_SERVICE, STOP_LIMIT } stop_kind;

static void stop_with_inflight(stop_kind kind)
{
    spu_config c;
    spu_config_default(&c);
    c.max_inflight = 8;
    fx *f = fx_new_cfg(&c);
    rec_log log = { 0 };
    spu_set_record_hook(f->spu, rec_hook, &log);
    fx_start(f, FX_MEM_BASE, 64 * 1024, 256, false, 0);
    /* Eight sampled loads, each completing 10000 cycles after it retires, one cycle apart:
     * none has completed when the driver stops. */
    for (int i = 0; i < 8; i++) {
        spu_op op = ldst_op(0x8000 + 4 * (uint64_t)i, SPE_LDST_GP);
        op.total_lat = 10000;
        spu_skip(f->spu, spu_ops_until_sample(f->spu));
        assert_int_equal(spu_retire(f->spu, &op), SPU_OP_SAMPLED);
        spu_advance(f->spu, 1);
    }
    spu_stats st;
    spu_get_stats(f->spu, &st);
    assert_int_equal(st.inflight_now, 8);
    assert_int_equal(log.calls, 0);
    if (kind == STOP_SERVICE)
        fx_wr(f, SPU_PMBSR_EL1, PMBSR_S); /* a management event is pending */
    fx_wr(f, SPU_PMSCR_EL1, 0);
    if (kind == STOP_LIMIT)
        fx_wr(f, SPU_PMBLIMITR_EL1, 0); /* buffer disabled before the PSB CSYNC */
    uint64_t t = spu_now(f->spu);
    spu_psb_csync(f->spu);
    assert_int_equal(spu_now(f->spu), t);
    spu_get_stats(f->spu, &st);
    assert_int_equal(st.inflight_now, 0);
    assert_int_equal(st.fifo_bytes_now, 0);
    assert_int_equal(spu_writes_outstanding(f->spu), 0);
    assert_int_equal(log.calls, 8);
    assert_int_equal(st.feed, st.filtered_out + st.records_written + st.records_discarded);
    uint64_t ptr = fx_rd(f, SPU_PMBPTR_EL1);
    switch (kind) {
    case STOP_PMSCR:
        assert_int_equal(st.records_written, 8);
        assert_int_equal(ptr, FX_MEM_BASE + st.bytes_written);
        /* the records are in memory, in sampling order, with their own latency */
        for (int i = 0; i < 8; i++) {
            spe_decoder d;
            spe_decoded out;
            spe_decode_opts o = { 0 };
            spe_decoder_init(&d, f->mem + (size_t)i * (st.bytes_written / 8), st.bytes_written / 8, &o);
            assert_int_equal(spe_decoder_next(&d, &out), SPE_DEC_RECORD);
            assert_int_equal(out.rec.pc, 0x8000 + 4 * (uint64_t)i);
            assert_int_equal(out.rec.total_lat, 0xFFF); /* 10000 saturates the 12-bit counter */
        }
        break;
    case STOP_SERVICE:
        assert_int_equal(st.discarded[SPU_DISCARD_SERVICE], 8);
        assert_int_equal(ptr, FX_MEM_BASE);
        break;
    case STOP_LIMIT:
        assert_int_equal(st.discarded[SPU_DISCARD_DISABLED], 8);
        assert_int_equal(ptr, FX_MEM_BASE);
        break;
    }
    /* Nothing is left to complete later. */
    spu_advance(f->spu, 20000);
    spu_stats z;
    spu_get_stats(f->spu, &z);
    assert_int_equal(z.records_written, st.records_written);
    assert_int_equal(z.records_discarded, st.records_discarded);
    assert_int_equal(log.calls, 8);
    fx_free(f);
}

static void test_psb_csync_completes_inflight_3_6(void **state)
{
    (void)state;
    stop_with_inflight(STOP_PMSCR);
    stop_with_inflight(STOP_SERVICE);
    stop_with_inflight(STOP_LIMIT);
}

/* §3.6 with memory timing: synchronous answers with a latency take effect at the PSB CSYNC;
 * a PENDING answer holds what waits behind it until the host answers and calls it again. */
typedef struct pend_port {
    fx *f;
    int pending;                /* writes answered ARMPROF_MEM_PENDING and not yet completed */
    bool use_pending;
} pend_port;

static pend_port *g_port;

static armprof_mem_result pend_write(void *user, uint64_t addr, const uint8_t *data, uint32_t len,
                                     const armprof_regime *rg)
{
    armprof_mem_result r = fx_write(user, addr, data, len, rg);
    if (g_port->use_pending) {
        r.status = ARMPROF_MEM_PENDING;
        g_port->pending++;
    } else {
        r.latency = 50;
    }
    return r;
}

static void test_psb_csync_inflight_with_memory_timing_3_6(void **state)
{
    (void)state;
    for (int pending = 0; pending <= 1; pending++) {
        spu_config c;
        spu_config_default(&c);
        c.max_inflight = 4;
        c.max_outstanding_writes = 2;
        fx *f = calloc(1, sizeof(*f));
        f->cfg = c;
        f->mem = calloc(1, FX_MEM_SIZE);
        pend_port port = { f, 0, pending != 0 };
        g_port = &port;
        armprof_host_ops ops = { .mem_write = pend_write, .irq = fx_irq, .event = fx_event,
                                 .log = fx_log, .user = f };
        assert_int_equal(spu_open(&c, &ops, &f->spu), ARMPROF_OK);
        armprof_pe_ctx_default(&f->ctx);
        fx_ctx(f);
        fx_start(f, FX_MEM_BASE, 64 * 1024, 256, false, 0);
        for (int i = 0; i < 4; i++) {
            spu_op op = ldst_op(0x9000 + 4 * (uint64_t)i, SPE_LDST_GP);
            op.total_lat = 5000;
            spu_skip(f->spu, spu_ops_until_sample(f->spu));
            assert_int_equal(spu_retire(f->spu, &op), SPU_OP_SAMPLED);
        }
        fx_wr(f, SPU_PMSCR_EL1, 0);
        spu_psb_csync(f->spu);
        spu_stats st;
        spu_get_stats(f->spu, &st);
        assert_int_equal(st.inflight_now, 0);
        if (!pending) {
            assert_int_equal(spu_writes_outstanding(f->spu), 0);
            assert_int_equal(st.records_written, 4);
        } else {
            /* the DSB waits: answer the writes, PSB CSYNC again, until nothing is outstanding */
            int rounds = 0;
            while (spu_writes_outstanding(f->spu)) {
                assert_true(port.pending > 0);
                armprof_mem_result ok = { .status = ARMPROF_MEM_OK };
                assert_int_equal(spu_mem_complete(f->spu, &ok), ARMPROF_OK);
                port.pending--;
                spu_psb_csync(f->spu);
                assert_true(++rounds < 100);
            }
            spu_get_stats(f->spu, &st);
            assert_int_equal(st.records_written, 4);
            assert_int_equal(st.fifo_bytes_now, 0);
        }
        assert_int_equal(fx_rd(f, SPU_PMBPTR_EL1), FX_MEM_BASE + st.bytes_written);
        fx_free(f);
    }
}

/* ---------------------------------------------------------------------------------------------
 * The record hook reports a record when it is captured; records discarded later still had
 * their call. Once nothing is held, calls = records_written + records_discarded, across buffer
 * full events, S = 1 discards, a disabled buffer and a warm reset (whose dropped records are
 * counted discarded, SPU_DISCARD_DISABLED).
 * --------------------------------------------------------------------------------------------- */
static void test_record_hook_matches_written_and_discarded(void **state)
{
    (void)state;
    spu_config c;
    spu_config_default(&c);
    c.drain_bytes_per_cycle = 1;  /* slow FIFO: records are held when the reset comes */
    fx *f = fx_new_cfg(&c);
    rec_log log = { 0 };
    spu_set_record_hook(f->spu, rec_hook, &log);
    fx_start(f, FX_MEM_BASE, 4096, 256, false, 0);
    spu_op op = ldst_op(0xA000, SPE_LDST_GP);
    op.total_lat = 30;
    int fulls = 0;
    for (int i = 0; i < 400; i++) {
        spu_skip(f->spu, spu_ops_until_sample(f->spu));
        spu_retire(f->spu, &op);
        spu_advance(f->spu, 20);
        if (f->irq && i % 7 == 0) { /* software restarts late: records discarded while S = 1 */
            fx_wr(f, SPU_PMBPTR_EL1, FX_MEM_BASE);
            fx_wr(f, SPU_PMBSR_EL1, 0);
            fulls++;
        }
        if (i == 300)
            fx_wr(f, SPU_PMBLIMITR_EL1, 0); /* disabled with records buffered */
        if (i == 320)
            fx_start(f, FX_MEM_BASE, 4096, 256, false, 0);
    }
    /* restart, then records the 1-byte-a-cycle FIFO still holds at the reset */
    fx_wr(f, SPU_PMBPTR_EL1, FX_MEM_BASE);
    fx_wr(f, SPU_PMBSR_EL1, 0);
    for (int i = 0; i < 10; i++) {
        spu_skip(f->spu, spu_ops_until_sample(f->spu));
        spu_retire(f->spu, &op);
        spu_advance(f->spu, 31);
    }
    spu_stats st;
    spu_get_stats(f->spu, &st);
    assert_true(fulls > 0);
    assert_true(st.fifo_bytes_now > 0); /* records held at the reset */
    spu_reset(f->spu);
    spu_get_stats(f->spu, &st);
    assert_true(st.discarded[SPU_DISCARD_SERVICE] > 0);
    assert_true(st.discarded[SPU_DISCARD_DISABLED] > 0);
    assert_true(st.records_written > 0);
    assert_int_equal(log.calls, st.filtrate);
    assert_int_equal(log.calls, st.records_written + st.records_discarded);
    fx_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_st_collects_every_atomic_3_2_2, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_e1_with_architectural_exception_5_3_7, fx_setup, fx_teardown),
        cmocka_unit_test(test_events_packet_in_every_record_2_3_5),
        cmocka_unit_test(test_pmblimitr_fm_direct_read_4_3_2),
        cmocka_unit_test(test_ops_until_sample_exact),
        cmocka_unit_test(test_ops_until_sample_next_op_count),
        cmocka_unit_test(test_psb_csync_completes_inflight_3_6),
        cmocka_unit_test(test_psb_csync_inflight_with_memory_timing_3_6),
        cmocka_unit_test(test_record_hook_matches_written_and_discarded),
    };
    return cmocka_run_group_tests_name("spu_records", tests, NULL, NULL);
}
