/* SPDX-License-Identifier: Apache-2.0 */
/* test_spe_roundtrip.c: property test: random records x every unit configuration, encoded then decoded to the same fields. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "spe_test_util.h"

#define RECS_PER_CFG 150

/*
 * Every MaxSize 4..11, every Align 0..MaxSize, CountSize 12 and 16 bits, Data Source fixed or
 * smallest: a stream of random records (every optional packet on and off) decodes back to the
 * same fields, minus the parts spe_encode_ex() reports dropped to fit MaxSize; every record is a
 * multiple of 2^Align and at most 2^MaxSize bytes (§5.1.2, PMBIDR_EL1.Align, PMSIDR_EL1.MaxSize).
 */
static void test_roundtrip_every_config(void **s)
{
    (void)s;
    ap_prng64 g = { .state = 0x5EED0001u };
    static spe_record in[RECS_PER_CFG];
    static uint32_t dropped[RECS_PER_CFG];
    static size_t sizes[RECS_PER_CFG];
    uint8_t *buf = malloc((size_t)RECS_PER_CFG * 2048);
    unsigned ncfg = 0;
    unsigned long nrec = 0, ndropped = 0;
    assert_non_null(buf);

    for (unsigned ms = 4; ms <= 11; ms++)
        for (unsigned al = 0; al <= ms; al++)
            for (unsigned cs = 2; cs <= 3; cs++)
                for (unsigned ds = 0; ds <= 1; ds++) {
                    spe_format_cfg cfg = { .max_size = (uint8_t)ms, .align = (uint8_t)al,
                                           .count_size = (uint8_t)cs, .ds_fixed16 = ds };
                    size_t n = 0;
                    for (unsigned i = 0; i < RECS_PER_CFG; i++) {
                        in[i] = spe_test_random_record(&g);
                        sizes[i] = spe_encode_ex(&in[i], &cfg, buf + n, 2048, &dropped[i]);
                        assert_true(sizes[i] > 0);
                        assert_true(sizes[i] <= (1u << ms));
                        assert_int_equal(sizes[i] % (1u << al), 0);
                        assert_int_equal(sizes[i], spe_encoded_size(&in[i], &cfg));
                        n += sizes[i];
                        ndropped += dropped[i] != 0;
                    }
                    spe_decode_opts o = { .max_size = (uint8_t)ms };
                    spe_decoder d;
                    spe_decoded out;
                    size_t off = 0;
                    spe_decoder_init(&d, buf, n, &o);
                    for (unsigned i = 0; i < RECS_PER_CFG; i++) {
                        assert_int_equal(spe_decoder_next(&d, &out), SPE_DEC_RECORD);
                        spe_record want = spe_test_expected(&in[i], &cfg, dropped[i]);
                        const char *diff = spe_test_diff(&out.rec, &want);
                        if (diff)
                            fail_msg("MaxSize %u Align %u CountSize %u ds16 %u record %u: field %s differs",
                                     ms, al, cs, ds, i, diff);
                        /* records are back to back; padding belongs to the record it ends */
                        assert_int_equal(out.offset, off);
                        assert_int_equal(out.size, sizes[i]);
                        assert_true(out.have & SPE_R_EVENTS); /* §2.3.5: in every record */
                        assert_int_equal(out.n_ignored, 0);
                        off += sizes[i];
                    }
                    assert_int_equal(spe_decoder_next(&d, &out), SPE_DEC_EOF);
                    assert_int_equal(d.n_errors, 0);
                    assert_int_equal(d.n_records, RECS_PER_CFG);
                    ncfg++;
                    nrec += RECS_PER_CFG;
                }
    assert_int_equal(ncfg, 68 * 2 * 2);
    assert_true(ndropped > 0); /* small MaxSize really dropped parts */
    print_message("%u configurations, %lu records, %lu with parts dropped to fit MaxSize\n", ncfg,
                  nrec, ndropped);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_every_config),
    };
    return cmocka_run_group_tests_name("spe_roundtrip", tests, NULL, NULL);
}
