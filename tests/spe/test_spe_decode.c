/* SPDX-License-Identifier: Apache-2.0 */
/* test_spe_decode.c: the decoder on hand-made streams: every header of Figure 5/6, unknown packets, framing, bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "armprof/spe.h"

/* Kind of the 8-bit header h, from the patterns of Figure 5 (§5.2.1), written independently. */
static int figure5_kind(unsigned h)
{
    if (h == 0x00) return SPE_PKT_PADDING;
    if (h == 0x01) return SPE_PKT_END;
    if (h == 0x71) return SPE_PKT_TIMESTAMP;            /* 0111 0001 */
    if ((h & 0xCF) == 0x42) return SPE_PKT_EVENTS;      /* 01xx 0010 */
    if ((h & 0xCF) == 0x43) return SPE_PKT_DATA_SOURCE; /* 01xx 0011 */
    if ((h & 0xFC) == 0x64) return SPE_PKT_CONTEXT;     /* 0110 01xx */
    if ((h & 0xFC) == 0x48) return SPE_PKT_OPTYPE;      /* 0100 10xx */
    if ((h & 0xF8) == 0xB0) return SPE_PKT_ADDRESS;     /* 1011 0xxx */
    if ((h & 0xF8) == 0x98) return SPE_PKT_COUNTER;     /* 1001 1xxx */
    return SPE_PKT_UNKNOWN;
}

/* Every 8-bit header byte: kind per Figure 5, size per §5.1.1 (bits [5:4] give the payload for
 * headers 0x40-0xFF, none below 0x20). */
static void test_every_8bit_header(void **s)
{
    (void)s;
    for (unsigned h = 0; h < 256; h++) {
        if (h >= 0x20 && h < 0x40)
            continue; /* 16-bit headers, below */
        uint8_t p[10] = { (uint8_t)h, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
        spe_packet k;
        int n = spe_packet_parse(p, sizeof p, &k);
        unsigned want = h < 0x20 ? 1 : 1 + (1u << ((h >> 4) & 3));
        assert_int_equal(n, (int)want);
        assert_int_equal(k.kind, figure5_kind(h));
        assert_false(k.ext);
        /* one byte short of the payload is a truncated packet */
        if (want > 1)
            assert_int_equal(spe_packet_parse(p, want - 1, &k), -SPE_DEC_ERR_TRUNCATED_PKT);
    }
}

/* Every 16-bit header (Figures 2 and 6): alignment, extended address/counter, reserved, unknown. */
static void test_every_16bit_header(void **s)
{
    (void)s;
    for (unsigned h0 = 0x20; h0 < 0x40; h0++)
        for (unsigned h1 = 0; h1 < 256; h1++) {
            uint8_t p[12] = { (uint8_t)h0, (uint8_t)h1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
            spe_packet k;
            int n = spe_packet_parse(p, sizeof p, &k);
            assert_true(k.ext);
            if (h1 < 0x20) {
                assert_int_equal(n, 2);
                if (h1 == 0) {
                    assert_int_equal(k.kind, SPE_PKT_ALIGNMENT);
                    bool ok = (h0 & 0x10) == 0 && (h0 & 0xF) != 0;
                    assert_int_equal(k.note, ok ? SPE_NOTE_NONE : SPE_NOTE_RESERVED);
                } else {
                    assert_int_equal(k.kind, SPE_PKT_UNKNOWN);
                }
            } else if (h1 < 0x40) {
                assert_int_equal(n, -SPE_DEC_ERR_RESERVED_HDR);
            } else {
                assert_int_equal(n, 2 + (1 << ((h1 >> 4) & 3)));
                int want = SPE_PKT_UNKNOWN;
                if ((h1 & 0xF8) == 0xB0) want = SPE_PKT_ADDRESS;
                if ((h1 & 0xF8) == 0x98) want = SPE_PKT_COUNTER;
                assert_int_equal(k.kind, want);
                if (want != SPE_PKT_UNKNOWN) {
                    assert_int_equal(k.index, ((h0 & 3) << 3) | (h1 & 7));
                    if (h0 & 0x1C)
                        assert_int_equal(k.note, SPE_NOTE_RESERVED);
                }
            }
        }
}

/* §5.3.1 INDEX table: 0-3 defined, 0b0011x and 0b1xxxx IMPLEMENTATION DEFINED, others reserved. */
static void test_address_counter_index_table(void **s)
{
    (void)s;
    for (unsigned i = 0; i < 32; i++) {
        uint8_t b[16];
        spe_packet k;
        spe_pkt_address(b, i, 0);
        assert_int_equal(spe_packet_parse(b, sizeof b, &k), i < 8 ? 9 : 10);
        assert_int_equal(k.kind, SPE_PKT_ADDRESS);
        assert_int_equal(k.index, i);
        int want = i < 4 ? SPE_NOTE_NONE : (i == 6 || i == 7 || i >= 16) ? SPE_NOTE_IMPDEF : SPE_NOTE_RESERVED;
        assert_int_equal(k.note, want);
        spe_pkt_counter(b, i, 0);
        assert_int_equal(spe_packet_parse(b, sizeof b, &k), i < 8 ? 3 : 4);
        assert_int_equal(k.kind, SPE_PKT_COUNTER);
        want = i < 3 ? SPE_NOTE_NONE : (i == 6 || i == 7 || i >= 16) ? SPE_NOTE_IMPDEF : SPE_NOTE_RESERVED;
        assert_int_equal(k.note, want);
    }
}

static int decode_all(const uint8_t *b, size_t n, spe_decoded *out, int max, spe_decoder *d,
                      const spe_decode_opts *o)
{
    int i = 0, rc;
    spe_decoder_init(d, b, n, o);
    while (i < max && (rc = spe_decoder_next(d, &out[i])) == SPE_DEC_RECORD)
        i++;
    return i;
}

/* §5.1.4: Padding and Alignment commands between records; Alignment skips to 2^(SIZE+1). */
static void test_padding_and_alignment_between_records(void **s)
{
    (void)s;
    uint8_t b[64];
    memset(b, 0xCC, sizeof b); /* UNKNOWN bytes after an Alignment command */
    size_t n = 0;
    b[n++] = 0x00; b[n++] = 0x00;                       /* padding */
    b[n++] = 0x42; b[n++] = 0x02; b[n++] = 0x01;        /* record 1 at 2: EV retired, END */
    b[n++] = 0x22; b[n++] = 0x00;                       /* ALIGN 8 at 5: next byte at 8 */
    n = 8;
    b[n++] = 0x49; b[n++] = 0x01;                       /* record 2 at 8: OP store */
    b[n++] = 0x01;
    b[n++] = 0x23; b[n++] = 0x00;                       /* ALIGN 16 at 11 -> 16 */
    n = 16;
    b[n++] = 0x01;                                      /* record 3: END alone */
    spe_decoded r[4];
    spe_decoder d;
    assert_int_equal(decode_all(b, n, r, 4, &d, NULL), 3);
    assert_int_equal(r[0].offset, 2);
    assert_int_equal(r[0].size, 3);
    assert_int_equal(r[0].rec.events, 0x2);
    assert_int_equal(r[1].offset, 8);
    assert_int_equal(r[1].rec.op_class, SPE_CLASS_LDST);
    assert_int_equal(r[1].rec.op_subclass, SPE_LDST_ST);
    assert_int_equal(r[2].offset, 16);
    assert_int_equal(r[2].have, 0);
    assert_int_equal(d.n_errors, 0);
    /* The buffer at address 4: ALIGN 8 at offset 0 ends at address 6, the next byte is at
     * address 8, offset 4 (alignment is to addresses, not offsets). */
    spe_decode_opts o = { .base = 4 };
    uint8_t c[32];
    memset(c, 0xCC, sizeof c);
    c[0] = 0x22; c[1] = 0x00;      /* at address 4; after it address 6 -> 8 = offset 4 */
    c[4] = 0x01;
    assert_int_equal(decode_all(c, 5, r, 4, &d, &o), 1);
    assert_int_equal(r[0].offset, 4);
}

/* §5.1.4: unknown packets and packets with reserved field values are skipped by their size. */
static void test_unknown_and_reserved_packets_skipped(void **s)
{
    (void)s;
    static const uint8_t b[] = {
        0xB0, 0x00, 0x10, 0, 0, 0, 0, 0, 0x80,          /* PC 0x1000 el0 ns=1 */
        0x02,                                           /* unknown 8-bit, no payload */
        0x40, 0xAA,                                     /* unknown, 1 byte */
        0xB8, 1, 2, 3, 4, 5, 6, 7, 8,                   /* 10 11 1 000: not an address (bit 3), 8 bytes */
        0x66, 1, 2, 3, 4,                               /* Context INDEX 2: reserved */
        0x4B, 0x00,                                     /* Operation Type CLASS 3: reserved */
        0xB4, 1, 2, 3, 4, 5, 6, 7, 8,                   /* Address INDEX 4: reserved */
        0xB6, 1, 2, 3, 4, 5, 6, 7, 8,                   /* Address INDEX 6: IMP DEF */
        0x9E, 1, 2,                                     /* Counter INDEX 6: IMP DEF */
        0x22, 0xB0, 1, 2, 3, 4, 5, 6, 7, 8,             /* Address INDEX 16 (extended): IMP DEF */
        0x20, 0x05,                                     /* extended, no payload, undefined */
        0x20, 0x60, 1, 2, 3, 4,                         /* extended, 32-bit payload, undefined */
        0x20, 0x98, 0x2A, 0x00,                         /* Counter INDEX 0 in the extended form */
        0x30, 0x00,                                     /* Alignment with bit 4 set: reserved */
        0x63, 1, 2, 3, 4,                               /* Data Source SZ 0b10: reserved */
        0x73, 1, 2, 3, 4, 5, 6, 7, 8,                   /* Data Source SZ 0b11: reserved */
        0x01,
    };
    spe_decoded r[2];
    spe_decoder d;
    assert_int_equal(decode_all(b, sizeof b, r, 2, &d, NULL), 1);
    assert_int_equal(r[0].offset, 0);
    assert_int_equal(r[0].size, sizeof b);
    assert_int_equal(r[0].rec.present, SPE_R_PC | SPE_R_TOTAL_LAT);
    assert_int_equal(r[0].rec.pc, 0x1000);
    assert_int_equal(r[0].rec.total_lat, 42);
    assert_int_equal(r[0].n_ignored, 14);
    assert_int_equal(d.n_errors, 0);
}

/* §5.3.1 RAZ bits: PC byte 7 bits [4:0], PA byte 7 bits [6:0] set are noted, the packet used. */
static void test_raz_bits_noted(void **s)
{
    (void)s;
    static const uint8_t b[] = {
        0xB0, 0x00, 0x10, 0, 0, 0, 0, 0, 0x81,
        0xB3, 0x00, 0x20, 0, 0, 0, 0, 0, 0x01,
        0x48, 0x07,                                     /* Other, SUBCLASS 7: not in the v8.2 text */
        0x01,
    };
    spe_decoded r[1];
    spe_decoder d;
    assert_int_equal(decode_all(b, sizeof b, r, 1, &d, NULL), 1);
    assert_int_equal(r[0].n_notes, 3);
    assert_int_equal(r[0].rec.pc, 0x1000);
    assert_true(r[0].rec.pc_ns);
    assert_int_equal(r[0].rec.data_pa, 0x2000);
    assert_false(r[0].rec.data_pa_ns);
    assert_int_equal(r[0].rec.op_subclass, 7);
}

static void expect_error(const uint8_t *b, size_t n, spe_dec_err err, size_t at, int records_before,
                         const char *text)
{
    spe_decoder d;
    spe_decoded r;
    int rc, got = 0;
    char msg[256];
    spe_decoder_init(&d, b, n, NULL);
    while ((rc = spe_decoder_next(&d, &r)) == SPE_DEC_RECORD)
        got++;
    assert_int_equal(rc, SPE_DEC_ERROR);
    assert_int_equal(got, records_before);
    assert_int_equal(d.err, err);
    assert_int_equal(d.err_offset, at);
    spe_dec_error_text(&d, msg, sizeof msg);
    assert_non_null(strstr(msg, text));
    /* strict: nothing after the first error */
    assert_int_equal(spe_decoder_next(&d, &r), SPE_DEC_EOF);
}

static void test_bad_inputs(void **s)
{
    (void)s;
    uint8_t ok[] = { 0x42, 0x02, 0x01 };
    expect_error(ok, 0, SPE_DEC_ERR_EMPTY, 0, 0, "offset 0x0: empty input");
    /* truncated last record: a PC packet cut in its payload */
    uint8_t t1[] = { 0x42, 0x02, 0x01, 0xB0, 0x00, 0x10 };
    expect_error(t1, sizeof t1, SPE_DEC_ERR_TRUNCATED_PKT, 3, 1,
                 "offset 0x3: truncated packet: header 0xb0 needs 8 payload bytes, the input has 2 more");
    /* truncated record: whole packets, no End */
    uint8_t t2[] = { 0x42, 0x02, 0x01, 0x49, 0x00, 0x42, 0x02 };
    expect_error(t2, sizeof t2, SPE_DEC_ERR_TRUNCATED_REC, 3, 1, "offset 0x3: truncated record");
    /* reserved 16-bit header */
    uint8_t t3[] = { 0x42, 0x02, 0x01, 0x20, 0x25, 0x01 };
    expect_error(t3, sizeof t3, SPE_DEC_ERR_RESERVED_HDR, 3, 1, "offset 0x3: reserved header: 0x20 0x25");
    /* garbage: a repeated Events packet in one record */
    uint8_t t4[] = { 0x42, 0x02, 0x42, 0x03, 0x01 };
    expect_error(t4, sizeof t4, SPE_DEC_ERR_DUPLICATE, 2, 0, "repeats a packet of the record at 0x0");
    /* extended header cut after its first byte */
    uint8_t t5[] = { 0x01, 0x21 };
    expect_error(t5, sizeof t5, SPE_DEC_ERR_TRUNCATED_PKT, 1, 1, "truncated packet");
}

/* A record longer than 2^MaxSize when the decoder is told MaxSize. */
static void test_too_long(void **s)
{
    (void)s;
    spe_record rec = { .present = SPE_R_PC | SPE_R_DATA_VA | SPE_R_TIMESTAMP };
    spe_format_cfg cfg = { .max_size = 6, .count_size = 3 };
    uint8_t b[128];
    size_t n = spe_encode(&rec, &cfg, b, sizeof b); /* 9 + 2 + 9 + 9 = 29 bytes */
    spe_decode_opts o = { .max_size = 4 };
    spe_decoder d;
    spe_decoded r;
    char msg[128];
    spe_decoder_init(&d, b, n, &o);
    assert_int_equal(spe_decoder_next(&d, &r), SPE_DEC_ERROR);
    assert_int_equal(d.err, SPE_DEC_ERR_TOO_LONG);
    assert_int_equal(r.size, 29);
    spe_dec_error_text(&d, msg, sizeof msg);
    assert_string_equal(msg, "offset 0x0: record longer than MaxSize: 29 bytes, MaxSize allows 16");
}

/* --lenient: after each error the decoder resynchronises and counts. */
static void test_lenient_resync(void **s)
{
    (void)s;
    static const uint8_t b[] = {
        0x42, 0x02, 0x01,                               /* good */
        0x49, 0x00, 0x42, 0x02,                         /* lost its END ... */
        0x49, 0x01, 0x42, 0x06, 0x01,                   /* ... duplicate OP starts this record */
        0x20, 0x3F,                                     /* reserved header, skipped */
        0x42, 0x04, 0x01,                               /* good */
        0xB0, 0x01,                                     /* truncated */
    };
    spe_decode_opts o = { .lenient = true };
    spe_decoder d;
    spe_decoded r;
    int rc, recs = 0, errs = 0;
    spe_dec_err seen[4] = { 0 };
    spe_decoder_init(&d, b, sizeof b, &o);
    while ((rc = spe_decoder_next(&d, &r)) != SPE_DEC_EOF) {
        if (rc == SPE_DEC_RECORD)
            recs++;
        else
            seen[errs++ & 3] = d.err;
    }
    assert_int_equal(recs, 3);
    assert_int_equal(errs, 3);
    assert_int_equal(d.n_errors, 3);
    assert_int_equal(seen[0], SPE_DEC_ERR_DUPLICATE);
    assert_int_equal(seen[1], SPE_DEC_ERR_RESERVED_HDR);
    assert_int_equal(seen[2], SPE_DEC_ERR_TRUNCATED_PKT);
}

/* Descriptions in the style of perf report -D. */
static void test_describe(void **s)
{
    (void)s;
    static const struct { uint8_t b[10]; size_t n; const char *want; } rows[] = {
        { { 0xB0, 0x18, 0xF5, 0x0F, 0x90, 0xFF, 0x00, 0x00, 0xA0 }, 9, "PC 0xff900ff518 el1 ns=1" },
        { { 0xB1, 0x00, 0x10, 0, 0, 0, 0, 0, 0x00 }, 9, "TGT 0x1000 el0 ns=0" },
        { { 0xB2, 0xC0, 0x3B, 0x29, 0x0F, 0, 0, 0, 0x12 }, 9, "VA 0xf293bc0 tag 0x12" },
        { { 0xB3, 0xC0, 0xEB, 0x24, 0xFB, 0, 0, 0, 0x80 }, 9, "PA 0xfb24ebc0 ns=1" },
        { { 0x98, 0x11, 0x00 }, 3, "LAT 17 TOT" },
        { { 0x99, 0x0C, 0x00 }, 3, "LAT 12 ISSUE" },
        { { 0x9A, 0x01, 0x00 }, 3, "LAT 1 XLAT" },
        { { 0x52, 0x16, 0x02 }, 3, "EV retired l1d_access tlb_access llc_miss" },
        { { 0x62, 0x00, 0x00, 0x00, 0x01 }, 5, "EV e24" },
        { { 0x49, 0x00 }, 2, "OP ldst: load gp" },
        { { 0x49, 0x05 }, 2, "OP ldst: store simd_fp" },
        { { 0x49, 0x17 }, 2, "OP ldst: store atomic acq_rel" },
        { { 0x4A, 0x03 }, 2, "OP branch: indirect cond" },
        { { 0x48, 0x01 }, 2, "OP other: cond" },
        { { 0x64, 0x78, 0x56, 0x34, 0x12 }, 5, "CONTEXT 0x12345678 el1" },
        { { 0x65, 0x01, 0, 0, 0 }, 5, "CONTEXT 0x1 el2" },
        { { 0x43, 0x05 }, 2, "DATA-SOURCE 5" },
        { { 0x71, 0x36, 0x6C, 0x21, 0x2C, 0x09, 0, 0, 0 }, 9, "TS 39395093558" },
        { { 0x01 }, 1, "END" },
        { { 0x00 }, 1, "PAD" },
        { { 0x2F, 0x00 }, 2, "ALIGN 65536" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        spe_packet k;
        char buf[128];
        assert_int_equal(spe_packet_parse(rows[i].b, rows[i].n, &k), (int)rows[i].n);
        spe_packet_describe(&k, buf, sizeof buf);
        assert_string_equal(buf, rows[i].want);
    }
}

/* spe_op_describe() for every CLASS and SUBCLASS: the §5.3.8 meaning, snprintf() semantics. */
static void test_op_describe_every_value(void **s)
{
    (void)s;
    static const struct { unsigned cls, sub; const char *want; } rows[] = {
        { 0, 0x00, "other" }, { 0, 0x01, "cond" }, { 0, 0x02, "other 0x02" },
        { 1, 0x00, "load gp" }, { 1, 0x01, "store gp" }, { 1, 0x04, "load simd_fp" },
        { 1, 0x05, "store simd_fp" }, { 1, 0x02, "load" }, { 1, 0x06, "load atomic" },
        { 1, 0x0B, "store exclusive" }, { 1, 0x13, "store acq_rel" },
        { 1, 0x1F, "store atomic exclusive acq_rel" }, { 1, 0x20, "load 0x20" },
        { 2, 0x00, "direct" }, { 2, 0x01, "direct cond" }, { 2, 0x02, "indirect" },
        { 2, 0x03, "indirect cond" }, { 2, 0x08, "direct +undefined bits" }, { 3, 0x07, "reserved 0x07" },
    };
    char buf[64];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        int n = spe_op_describe(rows[i].cls, rows[i].sub, buf, sizeof buf);
        assert_string_equal(buf, rows[i].want);
        assert_int_equal(n, (int)strlen(rows[i].want));
    }
    /* every value: NUL-terminated, truncated like snprintf */
    for (unsigned c = 0; c < 4; c++)
        for (unsigned v = 0; v < 256; v++) {
            char small[6];
            int n = spe_op_describe(c, v, buf, sizeof buf);
            assert_true(n > 0 && (size_t)n < sizeof buf && strlen(buf) == (size_t)n);
            assert_int_equal(spe_op_describe(c, v, small, sizeof small), n);
            assert_int_equal(strlen(small), (size_t)n < sizeof small ? (size_t)n : sizeof small - 1);
            assert_memory_equal(small, buf, strlen(small));
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_8bit_header),
        cmocka_unit_test(test_every_16bit_header),
        cmocka_unit_test(test_address_counter_index_table),
        cmocka_unit_test(test_padding_and_alignment_between_records),
        cmocka_unit_test(test_unknown_and_reserved_packets_skipped),
        cmocka_unit_test(test_raz_bits_noted),
        cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_too_long),
        cmocka_unit_test(test_lenient_resync),
        cmocka_unit_test(test_describe),
        cmocka_unit_test(test_op_describe_every_value),
    };
    return cmocka_run_group_tests_name("spe_decode", tests, NULL, NULL);
}
