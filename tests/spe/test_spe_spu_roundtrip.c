/* SPDX-License-Identifier: Apache-2.0 */
/* test_spe_spu_roundtrip.c: property test through the SPU model: random operations x unit configurations, records decoded back to the same fields. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "armprof/spu.h"
#include "spe_test_util.h"

#define SAMPLES_PER_CFG 40

typedef struct capture {
    uint8_t *buf;
    size_t len, cap;
    spe_record recs[SAMPLES_PER_CFG * 2];
    size_t sizes[SAMPLES_PER_CFG * 2];
    unsigned n;
    spe_format_cfg fmt;
    unsigned mismatches;          /* hook bytes differing from spe_encode() of the hook record */
    uint8_t *mem;                 /* the Profiling Buffer as the SPU wrote it through the memory port */
    size_t mem_cap;
} capture;

#define BUF_BASE 0x10000000ull

static armprof_mem_result flat_write(void *user, uint64_t addr, const uint8_t *data, uint32_t len,
                                     const armprof_regime *regime)
{
    capture *c = user;
    armprof_mem_result r = { .status = ARMPROF_MEM_OK, .written = len };
    (void)regime;
    if (addr >= BUF_BASE && addr - BUF_BASE + len <= c->mem_cap)
        memcpy(c->mem + (addr - BUF_BASE), data, len);
    return r;
}

static void on_record(void *user, const spe_record *rec, const uint8_t *bytes, size_t len)
{
    capture *c = user;
    uint8_t again[2048];
    if (c->n >= SAMPLES_PER_CFG * 2 || c->len + len > c->cap)
        return;
    size_t n2 = spe_encode(rec, &c->fmt, again, sizeof again);
    if (n2 != len || memcmp(again, bytes, len) != 0)
        c->mismatches++;
    memcpy(c->buf + c->len, bytes, len);
    c->len += len;
    c->recs[c->n] = *rec;
    c->sizes[c->n] = len;
    c->n++;
}

static void wr(spu_t *spu, uint32_t enc, uint64_t v)
{
    assert_int_equal(spu_reg_write(spu, enc, v), ARMPROF_OK);
}

static spu_op random_op(ap_prng64 *g, uint64_t *pc)
{
    static const uint8_t ldst_sub[] = { 0x00, 0x01, 0x04, 0x05, 0x06, 0x07, 0x0A, 0x12, 0x13, 0x1F };
    spu_op op;
    memset(&op, 0, sizeof op);
    *pc += 4 * (1 + ap_prng64_below(g, 64));
    op.pc = *pc;
    op.op_class = (uint8_t)ap_prng64_below(g, 3);
    if (op.op_class == SPE_CLASS_LDST)
        op.op_subclass = ldst_sub[ap_prng64_below(g, sizeof ldst_sub)];
    else
        op.op_subclass = (uint8_t)ap_prng64_below(g, op.op_class == SPE_CLASS_BRANCH ? 4 : 2);
    op.flags = (uint32_t)ap_prng64_next(g) & (SPU_OP_NOT_RETIRED | SPU_OP_HAS_VA | SPU_OP_HAS_PA |
                                               SPU_OP_HAS_TARGET | SPU_OP_HAS_XLAT | SPU_OP_HAS_DSRC);
    if (ap_prng64_below(g, 16) == 0)
        op.flags |= SPU_OP_EXCEPTION;
    unsigned w = 8u << ap_prng64_below(g, 4);
    op.events = ap_prng64_next(g) & (w == 64 ? ~0ull : ((1ull << w) - 1));
    op.total_lat = (uint32_t)(1 + ap_prng64_below(g, ap_prng64_below(g, 4) ? 200 : 70000));
    op.issue_lat = (uint32_t)ap_prng64_below(g, op.total_lat);
    op.xlat_lat = (uint32_t)ap_prng64_below(g, 5000);
    op.data_va = ap_prng64_next(g);
    op.data_pa = ap_prng64_next(g) & 0x0000FFFFFFFFFFFFull;
    op.data_pa_ns = ap_prng64_next(g) & 1;
    op.target = ap_prng64_next(g) & 0x00FFFFFFFFFFFFFCull;
    op.target_el = (uint8_t)ap_prng64_below(g, 4);
    op.target_ns = ap_prng64_next(g) & 1;
    op.data_source = (uint16_t)ap_prng64_next(g);
    return op;
}

/*
 * Every MaxSize 4..11, Align 0..MaxSize, CountSize 12/16 bits, LDS on and off: an SPU samples
 * random operations; the buffer it writes through its memory port decodes back to the fields of
 * each record the SPU built (record hook), the bytes are exactly spe_encode()'s, and the records
 * are back to back up to PMBPTR_EL1.
 */
static void test_spu_records_roundtrip_every_config(void **s)
{
    (void)s;
    ap_prng64 g = { .state = 0xC0FFEE };
    static capture cap;
    cap.cap = (size_t)SAMPLES_PER_CFG * 2 * 2048;
    cap.buf = malloc(cap.cap);
    cap.mem_cap = cap.cap;
    cap.mem = malloc(cap.mem_cap);
    assert_non_null(cap.buf);
    assert_non_null(cap.mem);
    unsigned ncfg = 0;
    unsigned long nrec = 0;

    for (unsigned ms = 4; ms <= 11; ms++)
        for (unsigned al = 0; al <= ms; al++)
            for (unsigned cs = 2; cs <= 3; cs++) {
                spu_config c;
                char why[160];
                spu_t *spu = NULL;
                spu_config_default(&c);
                c.max_size = (uint8_t)ms;
                c.align = (uint8_t)al;
                c.count_size = (uint8_t)cs;
                c.lds = (ncfg & 1) != 0;
                if (c.fifo_bytes < (2u << ms))
                    c.fifo_bytes = 2u << ms;
                if (spu_config_validate(&c, why, sizeof why) != ARMPROF_OK)
                    fail_msg("MaxSize %u Align %u CountSize %u: %s", ms, al, cs, why);
                armprof_host_ops ops = { .mem_write = flat_write, .user = &cap };
                assert_int_equal(spu_open(&c, &ops, &spu), ARMPROF_OK);
                cap.len = 0;
                cap.n = 0;
                cap.mismatches = 0;
                cap.fmt = (spe_format_cfg){ .max_size = (uint8_t)ms, .align = (uint8_t)al,
                                            .count_size = (uint8_t)cs };
                spu_set_record_hook(spu, on_record, &cap);

                armprof_pe_ctx ctx;
                armprof_pe_ctx_default(&ctx);
                ctx.el = 1; /* the registers are programmed from EL1 */
                ctx.contextidr_el1 = ap_prng64_next(&g) & 0xFFFFFFFFu;
                ctx.timer_enabled = true;
                assert_int_equal(spu_set_pe_context(spu, &ctx), ARMPROF_OK);
                /* as Linux's arm_spe_pmu: PMSIRR, PMSICR, the buffer, then PMSCR_EL1 last;
                 * TS, PA and CX each on or off */
                wr(spu, SPU_PMSIRR_EL1, 256);
                wr(spu, SPU_PMSICR_EL1, 256);
                wr(spu, SPU_PMBPTR_EL1, BUF_BASE);
                wr(spu, SPU_PMBLIMITR_EL1, (BUF_BASE + (64u << 20)) | 1);
                uint64_t scr = 3 | (ap_prng64_next(&g) & ((1u << 5) | (1u << 4) | (1u << 3)));
                wr(spu, SPU_PMSCR_EL1, scr);
                ctx.el = (uint8_t)ap_prng64_below(&g, 2); /* then sample at EL0 or EL1 */
                assert_int_equal(spu_set_pe_context(spu, &ctx), ARMPROF_OK);

                uint64_t pc = 0x400000;
                for (unsigned i = 0; i < SAMPLES_PER_CFG; i++) {
                    uint64_t k = spu_ops_until_sample(spu);
                    assert_true(k != UINT64_MAX);
                    spu_skip(spu, k);
                    spu_op op = random_op(&g, &pc);
                    spu_retire(spu, &op);
                    spu_advance(spu, op.total_lat + 64);
                }
                spu_advance(spu, 200000);
                spu_psb_csync(spu);
                uint64_t ptr = 0;
                assert_int_equal(spu_reg_peek(spu, SPU_PMBPTR_EL1, &ptr), ARMPROF_OK);
                spu_close(spu);

                /* what the SPU wrote to memory is exactly what it encoded, in order */
                assert_int_equal(cap.mismatches, 0);
                assert_int_equal(ptr - BUF_BASE, cap.len);
                assert_memory_equal(cap.mem, cap.buf, cap.len);
                assert_true(cap.n >= SAMPLES_PER_CFG / 2);
                spe_decoder d;
                spe_decoded out;
                spe_decode_opts o = { .max_size = (uint8_t)ms };
                size_t off = 0;
                spe_decoder_init(&d, cap.mem, cap.len, &o);
                for (unsigned i = 0; i < cap.n; i++) {
                    uint8_t tmp[2048];
                    uint32_t dropped;
                    spe_encode_ex(&cap.recs[i], &cap.fmt, tmp, sizeof tmp, &dropped);
                    assert_int_equal(spe_decoder_next(&d, &out), SPE_DEC_RECORD);
                    spe_record want = spe_test_expected(&cap.recs[i], &cap.fmt, dropped);
                    const char *diff = spe_test_diff(&out.rec, &want);
                    if (diff)
                        fail_msg("MaxSize %u Align %u CountSize %u record %u: field %s differs", ms, al,
                                 cs, i, diff);
                    assert_int_equal(out.offset, off);
                    assert_int_equal(out.size, cap.sizes[i]);
                    assert_int_equal(out.size % (1u << al), 0);
                    off += cap.sizes[i];
                }
                assert_int_equal(spe_decoder_next(&d, &out), SPE_DEC_EOF);
                assert_int_equal(d.n_errors, 0);
                ncfg++;
                nrec += cap.n;
            }
    print_message("%u SPU configurations, %lu records through the SPU, encoder and decoder\n", ncfg, nrec);
    free(cap.buf);
    free(cap.mem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spu_records_roundtrip_every_config),
    };
    return cmocka_run_group_tests_name("spe_spu_roundtrip", tests, NULL, NULL);
}
