/* SPDX-License-Identifier: Apache-2.0 */
/* test_spu_buffer.c: records in memory byte for byte, every management event path, the writer's invariants. */
#include "spu_fixture.h"

#define PMBSR_S (1u << 17)
#define PMBSR_EA (1u << 18)
#define PMBSR_DL (1u << 19)
#define PMBSR_COLL (1u << 16)
#define EC(x) ((uint64_t)(x) << 26)

/* A load with every optional packet: PC, Context, type, events, three counters, VA, PA, source. */
static spu_op load_op(void)
{
    spu_op op;
    memset(&op, 0, sizeof(op));
    op.pc = 0xffff800000001000ull;
    op.op_class = SPE_CLASS_LDST;
    op.op_subclass = SPE_LDST_GP;
    op.flags = SPU_OP_HAS_VA | SPU_OP_HAS_PA | SPU_OP_HAS_XLAT | SPU_OP_HAS_DSRC;
    op.events = (1u << SPE_EV_L1D_ACCESS) | (1u << SPE_EV_TLB_ACCESS);
    op.total_lat = 0x123;
    op.issue_lat = 0x45;
    op.xlat_lat = 0x6;
    op.data_va = 0x5a0000ffff001238ull;
    op.data_pa = 0x0000000880001238ull;
    op.data_pa_ns = true;
    op.data_source = 8;
    return op;
}

/* The bytes armprof writes for load_op() at Non-secure EL1 with PMSCR_EL1.{CX,PA} and
 * PMSCR_EL2.PA set, CONTEXTIDR_EL1 = 0x42, no timestamp. */
static const uint8_t load_bytes[] = {
    0xB0, 0x00, 0x10, 0x00, 0x00, 0x00, 0x80, 0xFF, 0xA0, /* Address PC, EL1 (byte 7 [6:5]=01), NS */
    0x64, 0x42, 0x00, 0x00, 0x00,                         /* Context CONTEXTIDR_EL1, 32-bit */
    0x49, 0x00,                                           /* Operation Type LDST: GP load */
    0x42, 0x16,                                           /* Events, 1 byte: E[1] E[2] E[4] */
    0x98, 0x23, 0x01,                                     /* Counter total latency */
    0x99, 0x45, 0x00,                                     /* Counter issue latency */
    0x9A, 0x06, 0x00,                                     /* Counter translation latency */
    0xB2, 0x38, 0x12, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x5A, /* Address data VA with its tag */
    0xB3, 0x38, 0x12, 0x00, 0x80, 0x08, 0x00, 0x00, 0x80, /* Address data PA, NS */
    0x43, 0x08,                                           /* Data Source, 1 byte */
    0x01,                                                 /* End */
};

static void start_load_ctx(fx *f, uint64_t size)
{
    f->ctx.contextidr_el1 = 0x42;
    fx_ctx(f);
    f->ctx.el = 2;
    fx_ctx(f);
    fx_wr(f, SPU_PMSCR_EL2, 1u << 4);
    f->ctx.el = 1;
    fx_ctx(f);
    fx_start(f, FX_MEM_BASE, size, 256, false, (1u << 3) | (1u << 4));
}

static void test_record_bytes(void **state)
{
    fx *f = *state;
    start_load_ctx(f, 64 * 1024);
    spu_op op = load_op();
    fx_sample(f, &op);
    assert_memory_equal(f->mem, load_bytes, sizeof(load_bytes));
    assert_int_equal(fx_rd(f, SPU_PMBPTR_EL1), FX_MEM_BASE + sizeof(load_bytes));
    /* a branch: target address with its EL and NS, conditional indirect, not taken, mispredicted;
     * with timestamps (PMSCR_EL1.TS, virtual time, CNTVOFF 0) ending in a Timestamp packet */
    fx_wr(f, SPU_PMSCR_EL1, 3 | (1u << 5));
    spu_op br;
    memset(&br, 0, sizeof(br));
    br.pc = 0x400000;
    br.op_class = SPE_CLASS_BRANCH;
    br.op_subclass = SPE_BR_COND | SPE_BR_INDIRECT;
    br.events = (1u << SPE_EV_NOT_TAKEN) | (1u << SPE_EV_MISPREDICTED) | (1u << 9);
    br.flags = SPU_OP_HAS_TARGET;
    br.target = 0x400100;
    br.target_el = 2;
    br.target_ns = true;
    br.total_lat = 7;
    br.issue_lat = 1;
    uint64_t at = fx_rd(f, SPU_PMBPTR_EL1);
    fx_sample(f, &br);
    uint64_t ts = spu_now(f->spu) - 1;
    const uint8_t want[] = {
        0xB0, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0xA0,
        0x4A, 0x03,                                           /* Branch, COND + indirect */
        0x52, 0xC2, 0x02,                                     /* Events, 2 bytes: E[1] E[6] E[7] E[9] */
        0x98, 0x07, 0x00, 0x99, 0x01, 0x00,
        0xB1, 0x00, 0x01, 0x40, 0x00, 0x00, 0x00, 0x00, 0xC0, /* target: EL2, NS */
        0x71, (uint8_t)ts, (uint8_t)(ts >> 8), (uint8_t)(ts >> 16), (uint8_t)(ts >> 24), 0, 0, 0, 0,
    };
    assert_memory_equal(f->mem + (at - FX_MEM_BASE), want, sizeof(want));
}

/* PMBIDR_EL1.Align: records padded (Padding 0x00) to a multiple of 2^Align; never more than
 * 2^MaxSize bytes. */
static void test_record_align(void **state)
{
    (void)state;
    spu_config c;
    spu_config_default(&c);
    c.align = 6;
    fx *f = fx_new_cfg(&c);
    start_load_ctx(f, 64 * 1024);
    spu_op op = load_op();
    fx_sample(f, &op);
    fx_sample(f, &op);
    assert_int_equal(fx_rd(f, SPU_PMBPTR_EL1), FX_MEM_BASE + 128);
    /* the same packets, then Padding up to the final End packet at byte 63 */
    assert_memory_equal(f->mem, load_bytes, sizeof(load_bytes) - 1);
    for (size_t i = sizeof(load_bytes) - 1; i < 63; i++)
        assert_int_equal(f->mem[i], 0x00);
    assert_int_equal(f->mem[63], 0x01);
    assert_memory_equal(f->mem + 64, f->mem, 64);
    fx_free(f);
}

/* §3.5.2 buffer full: S=1, EC=0, BSC=1, PMBPTR_EL1 after the last complete record, DL
 * unchanged, PMBIRQ high; then records are discarded and the counter holds until serviced. */
static void test_buffer_full(void **state)
{
    fx *f = *state;
    start_load_ctx(f, 4096);
    spu_op op = load_op();
    const uint64_t L = sizeof(load_bytes);
    uint64_t k = 0;
    while (!spu_irq_level(f->spu)) {
        fx_sample(f, &op);
        k++;
    }
    /* the first record after which fewer than 2^MaxSize (64) bytes remain */
    uint64_t want_k = (4096 - 64) / L + 1;
    assert_int_equal(k, want_k);
    assert_int_equal(fx_rd(f, SPU_PMBSR_EL1), PMBSR_S | EC(0) | 1);
    assert_int_equal(fx_rd(f, SPU_PMBPTR_EL1), FX_MEM_BASE + k * L);
    assert_true(f->max_written <= FX_MEM_BASE + 4096);
    assert_true(f->irq);
    assert_false(spu_profiling_enabled(f->spu));
    uint64_t icr = fx_rd(f, SPU_PMSICR_EL1);
    assert_int_equal(spu_retire(f->spu, &op), SPU_OP_NOT_COUNTED);
    assert_int_equal(fx_rd(f, SPU_PMSICR_EL1), icr);
    spu_stats st;
    spu_get_stats(f->spu, &st);
    assert_int_equal(st.buffer_full_events, 1);
    assert_int_equal(st.records_written, k);
    /* restart without moving the pointer breaks RHXSYK: another buffer full, nothing written */
    uint64_t w = f->writes;
    fx_wr(f, SPU_PMBSR_EL1, 0);
    assert_false(f->irq);
    fx_sample(f, &op);
    assert_int_equal(f->writes, w);
    assert_int_equal(fx_rd(f, SPU_PMBSR_EL1), PMBSR_S | 1);
    /* extend the buffer (seed 000: restart from the saved pointer is then allowed) */
    fx_wr(f, SPU_PMBLIMITR_EL1, (FX_MEM_BASE + 8192) | 1);
    fx_wr(f, SPU_PMBSR_EL1, 0);
    fx_sample(f, &op);
    assert_int_equal(fx_rd(f, SPU_PMBPTR_EL1), FX_MEM_BASE + (k + 1) * L);
    assert_int_equal(fx_rd(f, SPU_PMBSR_EL1), 0);
}

static void arm_fault(fx *f, uint64_t addr, armprof_mem_status st, uint8_t ec, uint8_t fsc, bool async)
{
    f->fault = (fx_fault){ .armed = true, .addr = addr, .status = st, .ec = ec, .fsc = fsc,
                           .async = async, .count = -1 };
}

/* §3.5.3 MMU faults: EC for the stage, FSC, PMBPTR_EL1 = the faulting address, DL only when
 * part of the record was written; both stages, several levels, and the GPC fault. */
static void test_faults(void **state)
{
    (void)state;
    const struct { uint8_t ec, fsc; } kinds[] = {
        { ARMPROF_EC_S1_ABORT, ARMPROF_FSC_TRANSLATION | 3 },
        { ARMPROF_EC_S1_ABORT, ARMPROF_FSC_PERMISSION | 2 },
        { ARMPROF_EC_S1_ABORT, ARMPROF_FSC_ACCESS_FLAG | 1 },
        { ARMPROF_EC_S1_ABORT, ARMPROF_FSC_ADDR_SIZE | 0 },
        { ARMPROF_EC_S2_ABORT, ARMPROF_FSC_TRANSLATION | 2 },
        { ARMPROF_EC_S2_ABORT, ARMPROF_FSC_PERMISSION | 3 },
        { ARMPROF_EC_S1_ABORT, ARMPROF_FSC_ALIGNMENT },
        { ARMPROF_EC_S1_ABORT, ARMPROF_FSC_TLB_CONFLICT },
        { ARMPROF_EC_GPC, ARMPROF_FSC_GPF },
    };
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        for (int partial = 0; partial <= 1; partial++) {
            fx *f = fx_new_cfg(NULL);
            /* the buffer starts 50 bytes before a page boundary: the first 39-byte record fits
             * in the first page and the second crosses into the next */
            uint64_t base = FX_MEM_BASE + 4096 - 50;
            f->ctx.contextidr_el1 = 0x42;
            fx_ctx(f);
            fx_start(f, base, 16384 - 4096 + 50, 256, false, 1u << 3);
            spu_op op = load_op();
            op.flags &= ~SPU_OP_HAS_PA;
            const uint64_t L = sizeof(load_bytes) - 9;
            uint64_t fault_at = partial ? FX_MEM_BASE + 4096 : base;
            if (partial)
                fx_sample(f, &op); /* first record: base .. base+L-1, within the first page */
            uint64_t rec_start = fx_rd(f, SPU_PMBPTR_EL1);
            arm_fault(f, partial ? fault_at : rec_start, ARMPROF_MEM_FAULT, kinds[i].ec, kinds[i].fsc, false);
            fx_sample(f, &op);
            uint64_t sr = fx_rd(f, SPU_PMBSR_EL1);
            uint64_t want = PMBSR_S | EC(kinds[i].ec) | kinds[i].fsc;
            /* partial: the record started at base+L < boundary and faulted at the boundary */
            bool dl = partial && rec_start + L > FX_MEM_BASE + 4096 && rec_start < FX_MEM_BASE + 4096;
            if (partial)
                assert_true(dl);
            if (dl)
                want |= PMBSR_DL;
            assert_int_equal(sr, want);
            assert_int_equal(fx_rd(f, SPU_PMBPTR_EL1), partial ? fault_at : rec_start);
            assert_true(f->irq);
            spu_stats st;
            spu_get_stats(f->spu, &st);
            assert_int_equal(st.fault_events, 1);
            assert_int_equal(st.discarded[SPU_DISCARD_FAULT], 1);
            fx_free(f);
        }
    }
}

/* §3.5.4 External aborts: synchronous (PMBPTR_EL1 = the aborted address, DL when not the first
 * byte of the record) and asynchronous (DL = 1), EA = 1; and the IMPLEMENTATION DEFINED
 * alternatives: ignored, or an SError with PMBSR_EL1 unchanged. */
static void test_external_aborts(void **state)
{
    (void)state;
    for (int mode = 0; mode < 3; mode++) {
        fx *f = fx_new_cfg(NULL);
        fx_start(f, FX_MEM_BASE, 16384, 256, false, 0);
        spu_op op = load_op();
        fx_sample(f, &op);
        uint64_t p = fx_rd(f, SPU_PMBPTR_EL1);
        uint64_t at = mode == 1 ? p + 5 : p;
        arm_fault(f, at, ARMPROF_MEM_EXT_ABORT, ARMPROF_EC_S1_ABORT, 0, mode == 2);
        fx_sample(f, &op);
        uint64_t sr = fx_rd(f, SPU_PMBSR_EL1);
        if (mode == 0) /* sync, at the first byte: DL unchanged */
            assert_int_equal(sr, PMBSR_S | PMBSR_EA | EC(0x24) | ARMPROF_FSC_SEA_WRITE);
        if (mode == 1) /* sync, mid-record: DL */
            assert_int_equal(sr, PMBSR_S | PMBSR_EA | PMBSR_DL | EC(0x24) | ARMPROF_FSC_SEA_WRITE);
        if (mode == 2) /* async: DL, FSC asynchronous */
            assert_int_equal(sr, PMBSR_S | PMBSR_EA | PMBSR_DL | EC(0x24) | ARMPROF_FSC_AEA_WRITE);
        if (mode < 2)
            assert_int_equal(fx_rd(f, SPU_PMBPTR_EL1), at);
        spu_stats st;
        spu_get_stats(f->spu, &st);
        assert_int_equal(st.ext_abort_events, 1);
        fx_free(f);
    }
    for (int pol = SPU_EA_IGNORE; pol <= SPU_EA_SERROR; pol++) {
        spu_config c;
        spu_config_default(&c);
        c.ea = (spu_ea_policy)pol;
        fx *f = fx_new_cfg(&c);
        assert_int_equal((fx_rd(f, SPU_PMBIDR_EL1) >> 8) & 0xF, (uint64_t)pol);
        fx_start(f, FX_MEM_BASE, 16384, 256, false, 0);
        spu_op op = load_op();
        arm_fault(f, FX_MEM_BASE, ARMPROF_MEM_EXT_ABORT, ARMPROF_EC_S1_ABORT, 0, false);
        f->fault.count = 1;
        fx_sample(f, &op);
        assert_int_equal(fx_rd(f, SPU_PMBSR_EL1), 0);
        assert_false(f->irq);
        assert_int_equal(f->serrors, pol == SPU_EA_SERROR ? 1 : 0);
        spu_stats st;
        spu_get_stats(f->spu, &st);
        assert_int_equal(st.discarded[SPU_DISCARD_EXT_ABORT], 1);
        fx_sample(f, &op); /* the next record is written after it */
        spu_get_stats(f->spu, &st);
        assert_int_equal(st.records_written, 1);
        fx_free(f);
    }
}

/*
 * A memory port that follows capi/armprof/armprof.h: armprof_mem_result.ec says where the
 * failure happened. ARMPROF_MEM_EXT_ABORT with ec 0 or 0x24 (on the write or a stage 1 walk),
 * 0x25 (stage 2 walk), 0x1E (GPT fetch); ARMPROF_MEM_FAULT with 0x24, 0x25, 0x1E. PMBSR_EL1
 * (seed 002; EC 0b011110 GPC from REGISTERS.md): EC from the port (0 becomes 0x24), S = 1,
 * EA for an abort (§3.5.4), MSS.FSC the port's FSC (for an abort without one: SEA / AEA on a
 * write), DL and PMBPTR_EL1 as §3.5.3 / §3.5.4 say for synchronous (the failing address, DL
 * when it is not the record's first byte) and asynchronous aborts (DL = 1; PMBPTR_EL1 past the
 * record). The record is not written out: no CTI trigger (§2.7) for it.
 */
static void test_port_ec_values(void **state)
{
    (void)state;
    const struct { armprof_mem_status st; uint8_t ec, want_ec; } kinds[] = {
        { ARMPROF_MEM_EXT_ABORT, 0, ARMPROF_EC_S1_ABORT },
        { ARMPROF_MEM_EXT_ABORT, ARMPROF_EC_S1_ABORT, ARMPROF_EC_S1_ABORT },
        { ARMPROF_MEM_EXT_ABORT, ARMPROF_EC_S2_ABORT, ARMPROF_EC_S2_ABORT },
        { ARMPROF_MEM_EXT_ABORT, ARMPROF_EC_GPC, ARMPROF_EC_GPC },
        { ARMPROF_MEM_FAULT, ARMPROF_EC_S1_ABORT, ARMPROF_EC_S1_ABORT },
        { ARMPROF_MEM_FAULT, ARMPROF_EC_S2_ABORT, ARMPROF_EC_S2_ABORT },
        { ARMPROF_MEM_FAULT, ARMPROF_EC_GPC, ARMPROF_EC_GPC },
    };
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        bool ea = kinds[i].st == ARMPROF_MEM_EXT_ABORT;
        /* where: 0 the record's first byte, 1 mid-record, 2 asynchronous (aborts only) */
        for (int where = 0; where < (ea ? 3 : 2); where++) {
            for (int with_fsc = 0; with_fsc <= 1; with_fsc++) {
                if (!ea && !with_fsc)
                    continue; /* a fault always carries its FSC */
                fx *f = fx_new_cfg(NULL);
                fx_start(f, FX_MEM_BASE, 16384, 256, false, 0);
                spu_op op = load_op();
                fx_sample(f, &op); /* one record written first */
                uint64_t p = fx_rd(f, SPU_PMBPTR_EL1);
                uint64_t len = p - FX_MEM_BASE;
                assert_int_equal(f->cti[2], 1);
                uint64_t at = where == 1 ? p + 5 : p;
                uint8_t fsc = !with_fsc ? 0
                              : ea ? (kinds[i].ec == ARMPROF_EC_GPC ? ARMPROF_FSC_SEA_WALK
                                      : kinds[i].ec == ARMPROF_EC_S2_ABORT ? ARMPROF_FSC_SEA_WALK | 2
                                                                           : ARMPROF_FSC_SEA_WRITE)
                              : (kinds[i].ec == ARMPROF_EC_GPC ? ARMPROF_FSC_GPF
                                                                : ARMPROF_FSC_TRANSLATION | 3);
                arm_fault(f, at, kinds[i].st, kinds[i].ec, fsc, where == 2);
                fx_sample(f, &op);
                uint64_t want = PMBSR_S | EC(kinds[i].want_ec);
                if (ea)
                    want |= PMBSR_EA;
                if (where >= 1)
                    want |= PMBSR_DL;
                if (fsc)
                    want |= fsc;
                else
                    want |= where == 2 ? ARMPROF_FSC_AEA_WRITE : ARMPROF_FSC_SEA_WRITE;
                uint64_t sr = fx_rd(f, SPU_PMBSR_EL1);
                if (sr != want)
                    fail_msg("kind %zu where %d fsc %d: PMBSR_EL1 0x%llx, want 0x%llx", i, where,
                             with_fsc, (unsigned long long)sr, (unsigned long long)want);
                assert_int_equal(fx_rd(f, SPU_PMBPTR_EL1), where == 2 ? p + len : at);
                assert_true(f->irq);
                assert_int_equal(f->cti[2], 1);
                spu_stats st;
                spu_get_stats(f->spu, &st);
                assert_int_equal(ea ? st.ext_abort_events : st.fault_events, 1);
                assert_int_equal(st.records_written, 1);
                fx_free(f);
            }
        }
    }
}

/* §3.5.1: a fault outranks buffer full on the same record. */
static void test_priority_fault_over_full(void **state)
{
    fx *f = *state;
    start_load_ctx(f, 4096);
    spu_op op = load_op();
    const uint64_t L = sizeof(load_bytes);
    uint64_t last = (4096 - 64) / L; /* index of the record that fills the buffer */
    for (uint64_t i = 0; i < last; i++)
        fx_sample(f, &op);
    arm_fault(f, FX_MEM_BASE + last * L + L - 1, ARMPROF_MEM_FAULT, ARMPROF_EC_S1_ABORT,
              ARMPROF_FSC_PERMISSION | 3, false);
    fx_sample(f, &op);
    assert_int_equal(fx_rd(f, SPU_PMBSR_EL1), PMBSR_S | PMBSR_DL | EC(0x24) | 0x0F);
}

/* While S is 1, buffered and in-flight records are discarded (and counted). */
static void test_discard_while_service(void **state)
{
    fx *f = *state;
    fx_start(f, FX_MEM_BASE, 16384, 256, false, 0);
    spu_op op = load_op();
    op.total_lat = 1000;
    spu_skip(f->spu, spu_ops_until_sample(f->spu));
    assert_int_equal(spu_retire(f->spu, &op), SPU_OP_SAMPLED);
    fx_wr(f, SPU_PMBSR_EL1, PMBSR_S); /* software sets S directly */
    spu_advance(f->spu, 2000);
    spu_stats st;
    spu_get_stats(f->spu, &st);
    assert_int_equal(st.discarded[SPU_DISCARD_SERVICE], 1);
    assert_int_equal(st.records_written, 0);
    assert_int_equal(st.filtrate, 1); /* still counted by SAMPLE_FILTRATE (§2.6) */
}

/* §3.6.1: records still buffered when software disables the buffer without PSB CSYNC: armprof
 * discards them (reason "disabled"). */
static void test_disabled_with_buffered_records(void **state)
{
    fx *f = *state;
    fx_start(f, FX_MEM_BASE, 16384, 256, false, 0);
    spu_op op = load_op();
    spu_skip(f->spu, spu_ops_until_sample(f->spu));
    spu_retire(f->spu, &op);
    spu_advance(f->spu, 1); /* in the FIFO, not yet drained (16 B/cycle) */
    fx_wr(f, SPU_PMBLIMITR_EL1, 0);
    spu_advance(f->spu, 1000); /* the operation completes (291 cycles) and its record drains */
    spu_stats st;
    spu_get_stats(f->spu, &st);
    assert_int_equal(st.discarded[SPU_DISCARD_DISABLED], 1);
    assert_int_equal(f->writes, 0);
}

/* FEAT_SPEv1p2: Discard mode (FM = 0b10) writes nothing and raises no event; PMFZ freezes the
 * PMU on a management event. */
static void test_discard_mode_and_pmfz(void **state)
{
    (void)state;
    spu_config c;
    spu_config_default(&c);
    c.feat_spev1p2 = true;
    fx *f = fx_new_cfg(&c);
    fx_start(f, FX_MEM_BASE, 4096, 256, false, 0);
    fx_wr(f, SPU_PMBLIMITR_EL1, (FX_MEM_BASE + 4096) | (2u << 1) | 1);
    spu_op op = load_op();
    for (int i = 0; i < 200; i++)
        fx_sample(f, &op);
    assert_int_equal(f->writes, 0);
    assert_int_equal(fx_rd(f, SPU_PMBSR_EL1), 0);
    spu_stats st;
    spu_get_stats(f->spu, &st);
    assert_int_equal(st.discarded[SPU_DISCARD_MODE], 200);
    /* PMFZ: the buffer-full event asks the PMU to freeze */
    fx_wr(f, SPU_PMBLIMITR_EL1, (FX_MEM_BASE + 4096) | (1u << 5) | 1);
    while (!f->irq)
        fx_sample(f, &op);
    assert_int_equal(f->freezes, 1);
    fx_free(f);
    /* Without FEAT_SPEv1p2, FM=0b10 is reserved (§4.3.2): a direct read returns 0b10, the unit
     * behaves as for 0b00 (fill: records written), logged. */
    fx *g = fx_new_cfg(NULL);
    fx_start(g, FX_MEM_BASE, 4096, 256, false, 0);
    fx_wr(g, SPU_PMBLIMITR_EL1, (FX_MEM_BASE + 4096) | (2u << 1) | 1);
    assert_int_equal(fx_rd(g, SPU_PMBLIMITR_EL1), (FX_MEM_BASE + 4096) | (2u << 1) | 1);
    assert_true(g->warnings > 0);
    for (int i = 0; i < 3; i++)
        fx_sample(g, &op);
    spu_get_stats(g->spu, &st);
    assert_int_equal(st.records_written, 3);
    assert_int_equal(st.discarded[SPU_DISCARD_MODE], 0);
    fx_free(g);
}

/* Retires `op` as the next sample point; returns spu_now() at that moment. */
static uint64_t sample_stepwise(fx *f, const spu_op *op)
{
    uint64_t k = spu_ops_until_sample(f->spu);
    assert_int_equal(spu_skip(f->spu, k), k);
    uint64_t t0 = spu_now(f->spu);
    assert_int_equal(spu_retire(f->spu, op), SPU_OP_SAMPLED);
    return t0;
}

/*
 * §2.7 "Interaction with the Embedded Cross Trigger": when a sample completes and is written out,
 * CTI input trigger 2 is asserted. Once per record written, in the cycle of the write (sampled
 * at t0 with total latency T, the record enters the FIFO at the edge of cycle t0 + T and its
 * len bytes leave at 16 per edge: it is written at the edge of cycle t0 + T + ceil(len / 16)),
 * no other trigger; none for a record removed by the filters, discarded while PMBSR_EL1.S is 1,
 * lost to a fault on its write, or discarded in Discard mode (FEAT_SPEv1p2).
 */
static void test_cti_trigger_per_record_written(void **state)
{
    fx *f = *state;
    fx_start(f, FX_MEM_BASE, 16384, 256, false, 0);
    spu_op op = load_op();
    const uint64_t T = op.total_lat;
    for (uint64_t i = 1; i <= 3; i++) {
        uint64_t ptr0 = fx_rd(f, SPU_PMBPTR_EL1);
        uint64_t t0 = sample_stepwise(f, &op);
        uint64_t guard = 0;
        while (fx_rd(f, SPU_PMBPTR_EL1) == ptr0) {
            assert_int_equal(f->cti[2], i - 1); /* not before the record is written */
            spu_advance(f->spu, 1);
            assert_true(++guard < 1000);
        }
        uint64_t len = fx_rd(f, SPU_PMBPTR_EL1) - ptr0;
        assert_int_equal(f->cti[2], i);
        assert_int_equal(f->cti_at, t0 + T + (len + 15) / 16);
        assert_int_equal(spu_now(f->spu), f->cti_at + 1); /* it was the edge just run */
        spu_advance(f->spu, 100);
        assert_int_equal(f->cti[2], i); /* once */
    }
    spu_stats st;
    spu_get_stats(f->spu, &st);
    assert_int_equal(st.records_written, 3);
    for (int t = 0; t < 8; t++)
        if (t != 2)
            assert_int_equal(f->cti[t], 0);

    /* Removed by the event filter (PMSFCR_EL1.FE, an event the operation lacks). */
    fx_wr(f, SPU_PMSEVFR_EL1, 1u << 7);
    fx_wr(f, SPU_PMSFCR_EL1, 1u << 0);
    fx_sample(f, &op);
    spu_get_stats(f->spu, &st);
    assert_int_equal(st.filtered_out, 1);
    assert_int_equal(f->cti[2], 3);
    fx_wr(f, SPU_PMSFCR_EL1, 0);

    /* Discarded while PMBSR_EL1.S is 1. */
    sample_stepwise(f, &op);
    fx_wr(f, SPU_PMBSR_EL1, PMBSR_S);
    spu_advance(f->spu, T + 100);
    spu_get_stats(f->spu, &st);
    assert_int_equal(st.discarded[SPU_DISCARD_SERVICE], 1);
    assert_int_equal(f->cti[2], 3);
    fx_wr(f, SPU_PMBSR_EL1, 0);

    /* Lost to a translation fault on its write. */
    arm_fault(f, fx_rd(f, SPU_PMBPTR_EL1), ARMPROF_MEM_FAULT, ARMPROF_EC_S1_ABORT,
              ARMPROF_FSC_TRANSLATION | 3, false);
    fx_sample(f, &op);
    spu_get_stats(f->spu, &st);
    assert_int_equal(st.fault_events, 1);
    assert_int_equal(f->cti[2], 3);
    f->fault.armed = false;

    /* Discard mode (FEAT_SPEv1p2): nothing written, no trigger. */
    spu_config c;
    spu_config_default(&c);
    c.feat_spev1p2 = true;
    fx *g = fx_new_cfg(&c);
    fx_start(g, FX_MEM_BASE, 4096, 256, false, 0);
    fx_wr(g, SPU_PMBLIMITR_EL1, (FX_MEM_BASE + 4096) | (2u << 1) | 1);
    for (int i = 0; i < 5; i++)
        fx_sample(g, &op);
    spu_get_stats(g->spu, &st);
    assert_int_equal(st.discarded[SPU_DISCARD_MODE], 5);
    assert_int_equal(g->cti[2], 0);
    fx_free(g);
}

/* RHXSYK / RHLXGD broken: each CONSTRAINED UNPREDICTABLE choice of RPGGHS, with a diagnostic. */
static void test_write_pointer_rules(void **state)
{
    (void)state;
    for (int pol = SPU_PTR_BUFFER_FULL; pol <= SPU_PTR_WRITE; pol++) {
        for (int rule = 0; rule < 3; rule++) {
            spu_config c;
            spu_config_default(&c);
            c.ptr_policy = (spu_ptr_policy)pol;
            c.align = 3;
            fx *f = fx_new_cfg(&c);
            uint64_t base = FX_MEM_BASE, lim = FX_MEM_BASE + 8192, ptr = base;
            if (rule == 0)
                ptr = lim - 32;                   /* less than one 64-byte record below the limit */
            if (rule == 1)
                ptr = base | (0x12ull << 56);     /* PTR[63:56] != LIMIT[63:56] */
            if (rule == 2)
                ptr = base + 4;                   /* not aligned to 2^Align = 8 */
            fx_start(f, base, 8192, 256, false, 0);
            fx_wr(f, SPU_PMBPTR_EL1, ptr);
            spu_op op = load_op();
            if (pol == SPU_PTR_WRITE && rule == 1) {
                /* writing at a tagged address outside the fake memory: fault it instead */
                arm_fault(f, ptr, ARMPROF_MEM_FAULT, ARMPROF_EC_S1_ABORT, ARMPROF_FSC_TRANSLATION | 0, false);
            }
            fx_sample(f, &op);
            assert_true(f->warnings > 0);
            spu_stats st;
            spu_get_stats(f->spu, &st);
            if (pol == SPU_PTR_BUFFER_FULL) {
                assert_int_equal(fx_rd(f, SPU_PMBSR_EL1), PMBSR_S | 1);
                assert_int_equal(st.discarded[SPU_DISCARD_PTR], 1);
                assert_int_equal(f->writes, 0);
            } else if (pol == SPU_PTR_DISCARD) {
                assert_int_equal(fx_rd(f, SPU_PMBSR_EL1), 0);
                assert_int_equal(st.discarded[SPU_DISCARD_PTR], 1);
                assert_int_equal(f->writes, 0);
            } else if (rule == 0) {
                /* would cross the limit: still never written past it */
                assert_int_equal(f->writes, 0);
                assert_int_equal(fx_rd(f, SPU_PMBSR_EL1), PMBSR_S | 1);
            } else if (rule == 2) {
                assert_int_equal(st.records_written, 1);
            }
            fx_free(f);
        }
    }
}

/* A randomized property: whatever the configuration, faults and servicing, the writer never
 * writes at or past the limit, and every sampled, collected record is written or discarded
 * with a reason. */
static uint64_t xs(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* RPSLVX: the buffer runs from PMBPTR_EL1 to the limit minus one: no byte at or past the limit. */
static void test_property_limit_and_accounting(void **state)
{
    (void)state;
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    for (int iter = 0; iter < 60; iter++) {
        spu_config c;
        spu_config_default(&c);
        c.max_size = (uint8_t)(6 + xs(&seed) % 6);
        c.align = (uint8_t)(xs(&seed) % (c.max_size + 1));
        c.count_size = (uint8_t)(2 + xs(&seed) % 2);
        c.max_inflight = (uint32_t)(1 + xs(&seed) % 4);
        c.fifo_bytes = (1u << c.max_size) * (uint32_t)(1 + xs(&seed) % 4);
        c.drain_bytes_per_cycle = (uint32_t)(1 + xs(&seed) % 32);
        c.ea = (spu_ea_policy)(xs(&seed) % 3);
        c.rng_seed = (uint32_t)xs(&seed);
        fx *f = fx_new_cfg(&c);
        assert_non_null(f);
        uint64_t size = 4096 * (1 + xs(&seed) % 3);
        fx_start(f, FX_MEM_BASE, size, 256, true, (1u << 5) | (1u << 3));
        uint64_t lim = FX_MEM_BASE + size;
        spu_op op = load_op();
        for (int n = 0; n < 3000; n++) {
            op.total_lat = (uint32_t)(xs(&seed) % 600);
            op.pc = 0x1000 + 4 * (xs(&seed) % 1000);
            op.events = xs(&seed) & 0x3FC;
            if (xs(&seed) % 50 == 0) {
                uint64_t a = FX_MEM_BASE + xs(&seed) % size;
                armprof_mem_status stt = xs(&seed) % 2 ? ARMPROF_MEM_FAULT : ARMPROF_MEM_EXT_ABORT;
                f->fault = (fx_fault){ true, a, stt, ARMPROF_EC_S1_ABORT, 0x07, (xs(&seed) & 1) != 0, 1 };
            }
            spu_skip(f->spu, xs(&seed) % 700);
            spu_retire(f->spu, &op);
            spu_advance(f->spu, xs(&seed) % 200);
            if (f->irq && xs(&seed) % 3 == 0) { /* service: restart at the base */
                spu_psb_csync(f->spu);
                fx_wr(f, SPU_PMBPTR_EL1, FX_MEM_BASE);
                fx_wr(f, SPU_PMBSR_EL1, 0);
            }
            assert_true(f->max_written <= lim);
        }
        spu_advance(f->spu, 100000);
        spu_psb_csync(f->spu);
        spu_stats st;
        spu_get_stats(f->spu, &st);
        assert_int_equal(st.inflight_now, 0);
        assert_int_equal(st.feed, st.filtered_out + st.filtrate);
        uint64_t sum = 0;
        for (int r = 0; r < SPU_DISCARD__COUNT; r++)
            sum += st.discarded[r];
        assert_int_equal(sum, st.records_discarded);
        assert_int_equal(st.filtrate, st.records_written + st.records_discarded);
        assert_int_equal(f->events[1], st.feed);
        assert_int_equal(f->events[3], st.collisions);
        assert_true(f->max_written <= lim);
        fx_free(f);
    }
}

/* The Linux arm_spe_pmu driver's sequence: probe the ID registers, reset, start with a
 * non-zero PMSICR_EL1, take the buffer-full interrupt, restart, stop with PSB CSYNC. */
static void test_linux_driver_sequence(void **state)
{
    fx *f = *state;
    uint64_t v;
    /* probe (arm_spe_pmu_dev_init): PMBIDR_EL1.P must be 0, Align, PMSIDR_EL1 fields */
    assert_int_equal(spu_reg_read(f->spu, SPU_PMBIDR_EL1, &v), ARMPROF_OK);
    assert_int_equal((v >> 4) & 1, 0);
    uint64_t align = 1ull << (v & 0xF);
    assert_int_equal(spu_reg_read(f->spu, SPU_PMSIDR_EL1, &v), ARMPROF_OK);
    uint32_t min_interval = 256;
    uint32_t max_record = 1u << ((v >> 12) & 0xF);
    assert_int_equal(max_record, 64);
    /* reset (__arm_spe_pmu_reset_local): PMSCR_EL1 = 0, PMBLIMITR_EL1 = 0, PMBSR_EL1 = 0 */
    fx_wr(f, SPU_PMSCR_EL1, 0);
    fx_wr(f, SPU_PMBLIMITR_EL1, 0);
    fx_wr(f, SPU_PMBSR_EL1, 0);
    /* start: filters, PMSIRR_EL1, PMSICR_EL1 = PMSIRR_EL1 (non-zero), buffer, PMSCR_EL1 */
    fx_wr(f, SPU_PMSFCR_EL1, 0);
    fx_wr(f, SPU_PMSEVFR_EL1, 0);
    fx_wr(f, SPU_PMSLATFR_EL1, 0);
    fx_wr(f, SPU_PMSIRR_EL1, min_interval << 2);
    assert_int_equal(spu_reg_read(f->spu, SPU_PMSIRR_EL1, &v), ARMPROF_OK);
    fx_wr(f, SPU_PMSICR_EL1, v);
    uint64_t base = FX_MEM_BASE, size = 8192;
    assert_int_equal(base % align, 0);
    fx_wr(f, SPU_PMBPTR_EL1, base);
    fx_wr(f, SPU_PMBLIMITR_EL1, (base + size) | 1);
    fx_wr(f, SPU_PMSCR_EL1, (1u << 5) | (1u << 3) | 3);
    assert_int_equal(fx_rd(f, SPU_PMSICR_EL1), 1024); /* resumed from the non-zero value */
    spu_op op = load_op();
    uint64_t consumed = 0;
    int irqs = 0;
    for (int n = 0; n < 2000; n++) {
        spu_skip(f->spu, spu_ops_until_sample(f->spu));
        spu_retire(f->spu, &op);
        spu_advance(f->spu, 400);
        if (f->irq) {
            /* arm_spe_pmu_irq_handler: PSB CSYNC, read PMBSR_EL1, buffer full -> consume,
             * move the pointer, clear PMBSR_EL1 */
            irqs++;
            spu_psb_csync(f->spu);
            assert_int_equal(spu_reg_read(f->spu, SPU_PMBSR_EL1, &v), ARMPROF_OK);
            assert_int_equal(v, PMBSR_S | 1);
            uint64_t ptr;
            spu_reg_read(f->spu, SPU_PMBPTR_EL1, &ptr);
            assert_true(ptr <= base + size && base + size - ptr < max_record);
            consumed += ptr - base;
            fx_wr(f, SPU_PMBPTR_EL1, base);
            fx_wr(f, SPU_PMBSR_EL1, 0);
            assert_false(f->irq);
        }
    }
    /* stop: PMSCR_EL1 = 0, PSB CSYNC, then read the pointer */
    fx_wr(f, SPU_PMSCR_EL1, 0);
    spu_psb_csync(f->spu);
    uint64_t ptr;
    spu_reg_read(f->spu, SPU_PMBPTR_EL1, &ptr);
    consumed += ptr - base;
    spu_stats st;
    spu_get_stats(f->spu, &st);
    assert_true(irqs > 0);
    assert_int_equal(st.records_discarded, 0);
    assert_int_equal(st.records_written, 2000);
    assert_int_equal(consumed, st.bytes_written);
}

/* A checkpoint taken mid-run restores into a fresh unit that continues bit-identically. */
static void test_checkpoint_restore(void **state)
{
    (void)state;
    spu_config c;
    spu_config_default(&c);
    c.max_inflight = 3;
    fx *a = fx_new_cfg(&c);
    fx_start(a, FX_MEM_BASE, 8192, 256, true, 1u << 5);
    spu_op op = load_op();
    uint64_t s = 7;
    for (int n = 0; n < 500; n++) {
        op.total_lat = (uint32_t)(xs(&s) % 300);
        spu_skip(a->spu, xs(&s) % 400);
        spu_retire(a->spu, &op);
        spu_advance(a->spu, xs(&s) % 50);
    }
    size_t len = 0;
    assert_int_equal(spu_save(a->spu, NULL, 0, &len), ARMPROF_ERR_BUFSZ);
    uint8_t *blob = malloc(len);
    assert_int_equal(spu_save(a->spu, blob, len, &len), ARMPROF_OK);
    fx *b = fx_new_cfg(&c);
    memcpy(b->mem, a->mem, FX_MEM_SIZE);
    assert_int_equal(spu_restore(b->spu, blob, len), ARMPROF_OK);
    uint64_t s2 = s;
    for (int n = 0; n < 500; n++) {
        uint32_t lat = (uint32_t)(xs(&s) % 300);
        uint64_t sk = xs(&s) % 400, adv = xs(&s) % 50;
        (void)s2;
        op.total_lat = lat;
        spu_skip(a->spu, sk);
        spu_retire(a->spu, &op);
        spu_advance(a->spu, adv);
        spu_skip(b->spu, sk);
        spu_retire(b->spu, &op);
        spu_advance(b->spu, adv);
        if (a->irq) {
            fx_wr(a, SPU_PMBPTR_EL1, FX_MEM_BASE);
            fx_wr(a, SPU_PMBSR_EL1, 0);
        }
        if (b->irq) {
            fx_wr(b, SPU_PMBPTR_EL1, FX_MEM_BASE);
            fx_wr(b, SPU_PMBSR_EL1, 0);
        }
    }
    size_t la, lb;
    spu_save(a->spu, NULL, 0, &la);
    spu_save(b->spu, NULL, 0, &lb);
    assert_int_equal(la, lb);
    uint8_t *ba = malloc(la), *bb = malloc(lb);
    spu_save(a->spu, ba, la, &la);
    spu_save(b->spu, bb, lb, &lb);
    assert_memory_equal(ba, bb, la);
    assert_memory_equal(a->mem, b->mem, FX_MEM_SIZE);
    /* corrupt and mismatched blobs are refused and leave the unit untouched */
    blob[len / 2] ^= 0x40;
    assert_int_equal(spu_restore(b->spu, blob, len), ARMPROF_ERR_STATE_CORRUPT);
    assert_int_equal(spu_restore(b->spu, blob, 10), ARMPROF_ERR_STATE_CORRUPT);
    spu_config c2 = c;
    c2.fifo_bytes = 2048;
    fx *d = fx_new_cfg(&c2);
    blob[len / 2] ^= 0x40;
    assert_int_equal(spu_restore(d->spu, blob, len), ARMPROF_ERR_STATE_MISMATCH);
    free(blob); free(ba); free(bb);
    fx_free(a);
    fx_free(b);
    fx_free(d);
}

/* Units are independent: two instances with interleaved calls give what each gives alone. */
static void test_instances_independent(void **state)
{
    (void)state;
    fx *a = fx_new_cfg(NULL), *b = fx_new_cfg(NULL), *solo = fx_new_cfg(NULL);
    fx_start(a, FX_MEM_BASE, 8192, 256, true, 0);
    fx_start(b, FX_MEM_BASE, 4096, 512, false, 0);
    fx_start(solo, FX_MEM_BASE, 8192, 256, true, 0);
    spu_op op = load_op();
    for (int n = 0; n < 300; n++) {
        fx *all[3] = { a, b, solo };
        for (int i = 0; i < 3; i++) {
            fx_sample(all[i], &op);
            if (all[i]->irq) { /* service: restart at the base */
                fx_wr(all[i], SPU_PMBPTR_EL1, FX_MEM_BASE);
                fx_wr(all[i], SPU_PMBSR_EL1, 0);
            }
        }
    }
    assert_memory_equal(a->mem, solo->mem, 8192);
    assert_int_equal(fx_rd(a, SPU_PMBSR_EL1), fx_rd(solo, SPU_PMBSR_EL1));
    fx_free(a);
    fx_free(b);
    fx_free(solo);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_record_bytes, fx_setup, fx_teardown),
        cmocka_unit_test(test_record_align),
        cmocka_unit_test_setup_teardown(test_buffer_full, fx_setup, fx_teardown),
        cmocka_unit_test(test_faults),
        cmocka_unit_test(test_external_aborts),
        cmocka_unit_test(test_port_ec_values),
        cmocka_unit_test_setup_teardown(test_priority_fault_over_full, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_discard_while_service, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_disabled_with_buffered_records, fx_setup, fx_teardown),
        cmocka_unit_test(test_discard_mode_and_pmfz),
        cmocka_unit_test_setup_teardown(test_cti_trigger_per_record_written, fx_setup, fx_teardown),
        cmocka_unit_test(test_write_pointer_rules),
        cmocka_unit_test(test_property_limit_and_accounting),
        cmocka_unit_test_setup_teardown(test_linux_driver_sequence, fx_setup, fx_teardown),
        cmocka_unit_test(test_checkpoint_restore),
        cmocka_unit_test(test_instances_independent),
    };
    return cmocka_run_group_tests_name("spu_buffer", tests, NULL, NULL);
}
