/* SPDX-License-Identifier: Apache-2.0 */
/* test_spe_encode.c: byte-for-byte tests of every SPE packet spe_encode() writes (seed 001 §5). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "armprof/spe.h"

static const spe_format_cfg cfg16 = { .max_size = 7, .align = 0, .count_size = 3 };
static const spe_format_cfg cfg12 = { .max_size = 7, .align = 0, .count_size = 2 };

/* Encodes `r` and checks the bytes exactly. */
#define EXPECT_BYTES(r, cfg, ...)                                                     \
    do {                                                                              \
        static const uint8_t want_[] = { __VA_ARGS__ };                               \
        uint8_t got_[256];                                                            \
        memset(got_, 0xEE, sizeof got_);                                              \
        size_t n_ = spe_encode((r), (cfg), got_, sizeof got_);                        \
        assert_int_equal(n_, sizeof want_);                                           \
        assert_int_equal(spe_encoded_size((r), (cfg)), sizeof want_);                 \
        assert_memory_equal(got_, want_, sizeof want_);                               \
        assert_int_equal(got_[n_], 0xEE); /* nothing written past the record */       \
    } while (0)

/* §5.3.6: no optional part, Events byte 0 -> Events packet (SZ=byte) then End. */
static void test_minimal_record_events_and_end(void **s)
{
    (void)s;
    spe_record r = { 0 };
    EXPECT_BYTES(&r, &cfg16, 0x42, 0x00, 0x01);
}

/* §5.3.1 Address INDEX 0: ADDR[55:0], EL byte 7 bits [6:5], NS byte 7 bit [7]; short header 0xB0. */
static void test_address_pc_el_ns(void **s)
{
    (void)s;
    spe_record r = { .present = SPE_R_PC, .pc = 0x00FEDCBA98765432ull, .pc_el = 1, .pc_ns = true };
    EXPECT_BYTES(&r, &cfg16, 0xB0, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE, 0xA0,
                 0x42, 0x00, 0x01);
    r.pc_el = 2;
    r.pc_ns = false;
    r.pc = 0xFF00000000001000ull; /* bits [63:56] of the field are not written */
    EXPECT_BYTES(&r, &cfg16, 0xB0, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40,
                 0x42, 0x00, 0x01);
    r.pc_el = 3;
    r.pc_ns = true;
    r.pc = 0;
    EXPECT_BYTES(&r, &cfg16, 0xB0, 0, 0, 0, 0, 0, 0, 0, 0xE0, 0x42, 0x00, 0x01);
}

/* §5.3.1 INDEX 1 (branch target, EL/NS of the target), 2 (data VA with TAG), 3 (data PA with NS). */
static void test_address_target_va_pa(void **s)
{
    (void)s;
    spe_record r = { .present = SPE_R_TARGET, .target = 0x400123, .target_el = 0, .target_ns = true };
    EXPECT_BYTES(&r, &cfg16, 0x42, 0x00, 0xB1, 0x23, 0x01, 0x40, 0, 0, 0, 0, 0x80, 0x01);
    r = (spe_record){ .present = SPE_R_DATA_VA, .data_va = 0x0000FFFFDEADBEE0ull, .data_va_tag = 0x5A };
    EXPECT_BYTES(&r, &cfg16, 0x42, 0x00, 0xB2, 0xE0, 0xBE, 0xAD, 0xDE, 0xFF, 0xFF, 0x00, 0x5A, 0x01);
    r = (spe_record){ .present = SPE_R_DATA_PA, .data_pa = 0x80001040ull, .data_pa_ns = true };
    EXPECT_BYTES(&r, &cfg16, 0x42, 0x00, 0xB3, 0x40, 0x10, 0x00, 0x80, 0, 0, 0, 0x80, 0x01);
    r.data_pa_ns = false;
    EXPECT_BYTES(&r, &cfg16, 0x42, 0x00, 0xB3, 0x40, 0x10, 0x00, 0x80, 0, 0, 0, 0x00, 0x01);
}

/* §5.3.3 Context INDEX 0 (CONTEXTIDR_EL1) header 0x64, INDEX 1 (CONTEXTIDR_EL2) 0x65, 32-bit payload. */
static void test_context_el1_el2(void **s)
{
    (void)s;
    spe_record r = { .present = SPE_R_CONTEXT_EL1 | SPE_R_CONTEXT_EL2,
                     .context_el1 = 0x11223344u, .context_el2 = 0xA1B2C3D4u };
    EXPECT_BYTES(&r, &cfg16, 0x64, 0x44, 0x33, 0x22, 0x11, 0x65, 0xD4, 0xC3, 0xB2, 0xA1,
                 0x42, 0x00, 0x01);
}

/* §5.3.8 Operation Type: header 0x48 | CLASS, payload SUBCLASS. Every defined encoding. */
static void test_optype_table(void **s)
{
    (void)s;
    static const struct { uint8_t cls, sub, hdr; } rows[] = {
        { SPE_CLASS_OTHER, SPE_OTHER_UNCOND, 0x48 },
        { SPE_CLASS_OTHER, SPE_OTHER_COND, 0x48 },
        { SPE_CLASS_LDST, SPE_LDST_GP, 0x49 },                                  /* LD GP */
        { SPE_CLASS_LDST, SPE_LDST_GP | SPE_LDST_ST, 0x49 },                    /* ST GP */
        { SPE_CLASS_LDST, SPE_LDST_SIMD_FP, 0x49 },                             /* LD SIMD&FP */
        { SPE_CLASS_LDST, SPE_LDST_SIMD_FP | SPE_LDST_ST, 0x49 },
        { SPE_CLASS_LDST, SPE_LDST_EXTENDED | SPE_LDST_AT, 0x49 },              /* atomic load */
        { SPE_CLASS_LDST, SPE_LDST_EXTENDED | SPE_LDST_AT | SPE_LDST_ST, 0x49 },
        { SPE_CLASS_LDST, SPE_LDST_EXTENDED | SPE_LDST_EXCL, 0x49 },            /* exclusive */
        { SPE_CLASS_LDST, SPE_LDST_EXTENDED | SPE_LDST_AR | SPE_LDST_ST, 0x49 },/* store-release */
        { SPE_CLASS_BRANCH, 0x00, 0x4A },                                       /* direct */
        { SPE_CLASS_BRANCH, SPE_BR_COND, 0x4A },                                /* direct cond */
        { SPE_CLASS_BRANCH, SPE_BR_INDIRECT, 0x4A },                            /* indirect */
        { SPE_CLASS_BRANCH, SPE_BR_INDIRECT | SPE_BR_COND, 0x4A },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        spe_record r = { .present = SPE_R_OPTYPE, .op_class = rows[i].cls, .op_subclass = rows[i].sub };
        uint8_t b[16];
        assert_int_equal(spe_encode(&r, &cfg16, b, sizeof b), 5);
        assert_int_equal(b[0], rows[i].hdr);
        assert_int_equal(b[1], rows[i].sub);
    }
}

/* The subclass constants equal Linux perf's SPE_OP_PKT_* decodings (arm-spe-pkt-decoder.h). */
static void test_ldst_enum_values(void **s)
{
    (void)s;
    assert_int_equal(SPE_LDST_ST, 0x01);        /* SPE_OP_PKT_ST BIT(0) */
    assert_int_equal(SPE_LDST_GP, 0x00);        /* GP_REG: [7:1] == 0 */
    assert_int_equal(SPE_LDST_SIMD_FP, 0x04);   /* SIMD_FP: [7:1] == 0x4 */
    assert_int_equal(SPE_LDST_EXTENDED, 0x02);  /* IS_LDST_ATOMIC: [7:5] == 0, bit 1 */
    assert_int_equal(SPE_LDST_AT, 0x04);        /* BIT(2) */
    assert_int_equal(SPE_LDST_EXCL, 0x08);      /* BIT(3) */
    assert_int_equal(SPE_LDST_AR, 0x10);        /* BIT(4) */
    assert_int_equal(SPE_BR_COND, 0x01);
    assert_int_equal(SPE_BR_INDIRECT, 0x02);
}

/* §5.3.7: the smallest Events payload that holds the set bits; header 0x42 | SZ << 4. */
static void test_events_payload_sizes(void **s)
{
    (void)s;
    static const struct { uint64_t ev; uint8_t hdr; unsigned bytes; } rows[] = {
        { 0x0ull, 0x42, 1 }, { 0x2ull, 0x42, 1 }, { 0xFFull, 0x42, 1 },
        { 0x100ull, 0x52, 2 }, { 0x0406ull, 0x52, 2 }, { 0xF7FFull, 0x52, 2 },
        { 0x10000ull, 0x62, 4 }, { 0xFF000002ull, 0x62, 4 },
        { 0x100000000ull, 0x72, 8 }, { 0xFFFF000000000001ull, 0x72, 8 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        spe_record r = { .events = rows[i].ev };
        uint8_t b[16];
        size_t n = spe_encode(&r, &cfg16, b, sizeof b);
        assert_int_equal(n, 1 + rows[i].bytes + 1);
        assert_int_equal(b[0], rows[i].hdr);
        uint64_t v = 0;
        for (unsigned k = 0; k < rows[i].bytes; k++)
            v |= (uint64_t)b[1 + k] << (8 * k);
        assert_int_equal(v, rows[i].ev);
        assert_int_equal(b[n - 1], 0x01);
    }
}

/* §5.3.4 Counter: short headers 0x98 total, 0x99 issue, 0x9A translation; 16-bit LE payload. */
static void test_counters_16bit(void **s)
{
    (void)s;
    spe_record r = { .present = SPE_R_TOTAL_LAT | SPE_R_ISSUE_LAT | SPE_R_XLAT_LAT,
                     .total_lat = 0xFFFF, .issue_lat = 0x1234, .xlat_lat = 7 };
    EXPECT_BYTES(&r, &cfg16, 0x42, 0x00, 0x98, 0xFF, 0xFF, 0x99, 0x34, 0x12, 0x9A, 0x07, 0x00, 0x01);
}

/* §5.3.4: 12-bit counters saturate at 0xFFF; COUNT in byte 1 bits [3:0] and byte 0, rest zero. */
static void test_counters_12bit_saturate(void **s)
{
    (void)s;
    spe_record r = { .present = SPE_R_TOTAL_LAT | SPE_R_ISSUE_LAT | SPE_R_XLAT_LAT,
                     .total_lat = 0x1234, .issue_lat = 0xFFF, .xlat_lat = 0xABC };
    EXPECT_BYTES(&r, &cfg12, 0x42, 0x00, 0x98, 0xFF, 0x0F, 0x99, 0xFF, 0x0F, 0x9A, 0xBC, 0x0A, 0x01);
}

/* §5.3.5 Data Source: header 0x43 (byte) or 0x53 (halfword). */
static void test_data_source_sizes(void **s)
{
    (void)s;
    spe_record r = { .present = SPE_R_DATA_SOURCE, .data_source = 0x0A };
    EXPECT_BYTES(&r, &cfg16, 0x42, 0x00, 0x43, 0x0A, 0x01);
    r.data_source = 0x1234;
    EXPECT_BYTES(&r, &cfg16, 0x42, 0x00, 0x53, 0x34, 0x12, 0x01);
    spe_format_cfg c = cfg16;
    c.ds_fixed16 = true;
    r.data_source = 0x0A;
    EXPECT_BYTES(&r, &c, 0x42, 0x00, 0x53, 0x0A, 0x00, 0x01);
}

/* §5.3.10: the Timestamp packet 0x71 + 64-bit LE ends the record instead of End. */
static void test_timestamp_ends_record(void **s)
{
    (void)s;
    spe_record r = { .present = SPE_R_TIMESTAMP, .timestamp = 0x0102030405060708ull };
    EXPECT_BYTES(&r, &cfg16, 0x42, 0x00, 0x71, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01);
}

/* Every packet at once, in armprof's fixed order (docs/decode.md). */
static void test_full_record_order(void **s)
{
    (void)s;
    spe_record r = {
        .present = SPE_R_PC | SPE_R_TARGET | SPE_R_DATA_VA | SPE_R_DATA_PA | SPE_R_CONTEXT_EL1 |
                   SPE_R_CONTEXT_EL2 | SPE_R_TOTAL_LAT | SPE_R_ISSUE_LAT | SPE_R_XLAT_LAT |
                   SPE_R_DATA_SOURCE | SPE_R_TIMESTAMP | SPE_R_OPTYPE,
        .pc = 0x1000, .pc_el = 0, .pc_ns = true, .target = 0x2000, .target_el = 0, .target_ns = true,
        .data_va = 0x3000, .data_va_tag = 0, .data_pa = 0x4000, .data_pa_ns = true,
        .context_el1 = 5, .context_el2 = 6, .total_lat = 10, .issue_lat = 2, .xlat_lat = 1,
        .events = 0x16, .op_class = SPE_CLASS_LDST, .op_subclass = SPE_LDST_ST,
        .data_source = 3, .timestamp = 99,
    };
    EXPECT_BYTES(&r, &cfg16,
                 0xB0, 0x00, 0x10, 0, 0, 0, 0, 0, 0x80,
                 0x64, 5, 0, 0, 0,
                 0x65, 6, 0, 0, 0,
                 0x49, 0x01,
                 0x42, 0x16,
                 0x98, 10, 0, 0x99, 2, 0, 0x9A, 1, 0,
                 0xB1, 0x00, 0x20, 0, 0, 0, 0, 0, 0x80,
                 0xB2, 0x00, 0x30, 0, 0, 0, 0, 0, 0x00,
                 0xB3, 0x00, 0x40, 0, 0, 0, 0, 0, 0x80,
                 0x43, 3,
                 0x71, 99, 0, 0, 0, 0, 0, 0, 0);
    assert_int_equal(spe_encoded_size(&r, &cfg16), SPE_RECORD_MAX_RAW - 7 - 1); /* 1-byte Events, 1-byte DS */
}

/* §5.3.9 Padding (0x00) before the final packet: every Align 0..MaxSize gives a multiple of 2^Align. */
static void test_padding_every_align(void **s)
{
    (void)s;
    spe_record r = { .present = SPE_R_PC | SPE_R_OPTYPE, .pc = 0x1234, .op_class = SPE_CLASS_OTHER };
    /* unpadded: PC 9 + OpType 2 + Events 2 + End 1 = 14 */
    for (unsigned align = 0; align <= 11; align++) {
        spe_format_cfg c = { .max_size = 11, .align = (uint8_t)align, .count_size = 3 };
        uint8_t b[2048];
        size_t want = ((14 + (1u << align) - 1) >> align) << align;
        size_t n = spe_encode(&r, &c, b, sizeof b);
        assert_int_equal(n, want);
        for (size_t k = 13; k < n - 1; k++)
            assert_int_equal(b[k], 0x00);
        assert_int_equal(b[n - 1], 0x01);
        assert_int_equal(b[11], 0x42);
    }
}

/* MaxSize 4 (16 bytes): a full record loses parts in the documented order until it fits. */
static void test_maxsize_drop_order(void **s)
{
    (void)s;
    spe_record r = {
        .present = SPE_R__ENCODED, .pc = 0x1000, .events = 0x2, .op_class = SPE_CLASS_LDST,
        .timestamp = 1,
    };
    uint32_t dropped = 0;
    uint8_t b[256];
    for (unsigned ms = 4; ms <= 7; ms++) {
        spe_format_cfg c = { .max_size = (uint8_t)ms, .align = 0, .count_size = 3 };
        size_t n = spe_encode_ex(&r, &c, b, sizeof b, &dropped);
        assert_true(n > 0 && n <= (1u << ms));
        if (ms == 4) {
            /* PC 9 + OpType 2 + Events 2 + End 1 = 14: everything else went. */
            assert_int_equal(n, 14);
            assert_int_equal(dropped, SPE_R__ENCODED & ~(SPE_R_PC | SPE_R_OPTYPE));
            static const uint8_t want[] = { 0xB0, 0x00, 0x10, 0, 0, 0, 0, 0, 0x00,
                                            0x49, 0x00, 0x42, 0x02, 0x01 };
            assert_memory_equal(b, want, sizeof want);
        }
        if (ms == 7)
            assert_int_equal(dropped, 0);
    }
    /* MaxSize 6 (64 bytes): 70 bytes unpadded; CONTEXT_EL2 (5) and CONTEXT_EL1 (5) go first. */
    spe_format_cfg c6 = { .max_size = 6, .align = 0, .count_size = 3 };
    assert_int_equal(spe_encode_ex(&r, &c6, b, sizeof b, &dropped), 60);
    assert_int_equal(dropped, SPE_R_CONTEXT_EL2 | SPE_R_CONTEXT_EL1);
    /* §2.3.5: 8-byte Events and MaxSize 4: the Events packet stays, narrowed to E[15:0] (E[40]
     * is not output; E[1] is); PC and Operation Type stay. */
    r.events = (1ull << 40) | 0x2;
    spe_format_cfg c4 = { .max_size = 4, .align = 4, .count_size = 3 };
    assert_int_equal(spe_encode_ex(&r, &c4, b, sizeof b, &dropped), 16);
    assert_int_equal(dropped, SPE_R_EVENTS | (SPE_R__ENCODED & ~(SPE_R_PC | SPE_R_OPTYPE)));
    static const uint8_t want4[] = { 0xB0, 0x00, 0x10, 0, 0, 0, 0, 0, 0x00, 0x49, 0x00,
                                     0x42, 0x02, 0x00, 0x00, 0x01 };
    assert_memory_equal(b, want4, sizeof want4);
}

/* §2.3.5: "All sample records written to the Profiling Buffer contain the Events packet and
 * either the End packet or the Timestamp packet": every MaxSize and Align, with every optional
 * part and events in each payload size, the record holds an Events packet carrying every set
 * bit of E[15:0], and all of E[63:0] unless spe_encode_ex() says it narrowed the packet. */
static void test_events_packet_in_every_record_2_3_5(void **s)
{
    (void)s;
    const uint64_t evs[] = { 0x2, 0x8002, 0x1000000Aull, 0x8000000000000002ull, ~0ull };
    static uint8_t b[2048]; /* 2^MaxSize */
    int narrowed = 0;
    for (unsigned ms = 4; ms <= 11; ms++)
        for (unsigned al = 0; al <= ms; al++)
            for (size_t e = 0; e < sizeof evs / sizeof evs[0]; e++) {
                spe_record r = { .present = SPE_R__ENCODED, .pc = 0x1000, .events = evs[e],
                                 .op_class = SPE_CLASS_LDST, .timestamp = 1, .data_source = 0x1234 };
                spe_format_cfg c = { .max_size = (uint8_t)ms, .align = (uint8_t)al, .count_size = 3 };
                uint32_t dropped;
                size_t n = spe_encode_ex(&r, &c, b, sizeof b, &dropped);
                assert_true(n > 0 && n <= (1u << ms));
                spe_decode_opts o = { .max_size = (uint8_t)ms };
                spe_decoder d;
                spe_decoded out;
                spe_decoder_init(&d, b, n, &o);
                assert_int_equal(spe_decoder_next(&d, &out), SPE_DEC_RECORD);
                assert_true(out.have & SPE_R_EVENTS);
                assert_int_equal(out.rec.present & (SPE_R_PC | SPE_R_OPTYPE), SPE_R_PC | SPE_R_OPTYPE);
                uint64_t want = (dropped & SPE_R_EVENTS) ? evs[e] & 0xFFFF : evs[e];
                assert_int_equal(out.rec.events, want);
                assert_int_equal((dropped & SPE_R_EVENTS) != 0, want != evs[e]);
                narrowed += want != evs[e];
            }
    assert_true(narrowed > 0);
}

/* Bad configurations and a too small buffer give 0 and write nothing. */
static void test_invalid_cfg_and_cap(void **s)
{
    (void)s;
    spe_record r = { .present = SPE_R_PC };
    uint8_t b[64] = { 0 };
    spe_format_cfg bad[] = {
        { .max_size = 3, .align = 0, .count_size = 3 },
        { .max_size = 12, .align = 0, .count_size = 3 },
        { .max_size = 6, .align = 7, .count_size = 3 },
        { .max_size = 6, .align = 0, .count_size = 1 },
        { .max_size = 6, .align = 0, .count_size = 4 },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_false(spe_format_cfg_valid(&bad[i]));
        assert_int_equal(spe_encode(&r, &bad[i], b, sizeof b), 0);
        assert_int_equal(spe_encoded_size(&r, &bad[i]), 0);
    }
    assert_int_equal(spe_encode(&r, &cfg16, b, 11), 0); /* needs 12 */
    assert_int_equal(b[0], 0);
    assert_int_equal(spe_encode(&r, &cfg16, b, 12), 12);
    assert_int_equal(spe_encode(NULL, &cfg16, b, 12), 0);
}

/* §5.2.2: Address/Counter extended headers for INDEX >= 8; Alignment command 0x2S 0x00. */
static void test_extended_headers_and_alignment(void **s)
{
    (void)s;
    uint8_t b[16];
    assert_int_equal(spe_pkt_address(b, 7, 0x8877665544332211ull), 9);
    assert_int_equal(b[0], 0xB7);
    assert_int_equal(b[1], 0x11);
    assert_int_equal(b[8], 0x88);
    assert_int_equal(spe_pkt_address(b, 9, 0), 10);
    assert_int_equal(b[0], 0x21);
    assert_int_equal(b[1], 0xB1);
    assert_int_equal(spe_pkt_address(b, 31, 0), 10);
    assert_int_equal(b[0], 0x23);
    assert_int_equal(b[1], 0xB7);
    assert_int_equal(spe_pkt_address(b, 32, 0), 0);
    assert_int_equal(spe_pkt_counter(b, 2, 0xABCD), 3);
    assert_int_equal(b[0], 0x9A);
    assert_int_equal(b[1], 0xCD);
    assert_int_equal(b[2], 0xAB);
    assert_int_equal(spe_pkt_counter(b, 18, 5), 4);
    assert_int_equal(b[0], 0x22);
    assert_int_equal(b[1], 0x9A);
    assert_int_equal(b[2], 5);
    assert_int_equal(spe_pkt_alignment(b, 1), 2);
    assert_int_equal(b[0], 0x21);
    assert_int_equal(b[1], 0x00);
    assert_int_equal(spe_pkt_alignment(b, 15), 2);
    assert_int_equal(b[0], 0x2F);
    assert_int_equal(spe_pkt_alignment(b, 0), 0);
    assert_int_equal(spe_pkt_alignment(b, 16), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_minimal_record_events_and_end),
        cmocka_unit_test(test_address_pc_el_ns),
        cmocka_unit_test(test_address_target_va_pa),
        cmocka_unit_test(test_context_el1_el2),
        cmocka_unit_test(test_optype_table),
        cmocka_unit_test(test_ldst_enum_values),
        cmocka_unit_test(test_events_payload_sizes),
        cmocka_unit_test(test_counters_16bit),
        cmocka_unit_test(test_counters_12bit_saturate),
        cmocka_unit_test(test_data_source_sizes),
        cmocka_unit_test(test_timestamp_ends_record),
        cmocka_unit_test(test_full_record_order),
        cmocka_unit_test(test_padding_every_align),
        cmocka_unit_test(test_maxsize_drop_order),
        cmocka_unit_test(test_events_packet_in_every_record_2_3_5),
        cmocka_unit_test(test_invalid_cfg_and_cap),
        cmocka_unit_test(test_extended_headers_and_alignment),
    };
    return cmocka_run_group_tests_name("spe_encode", tests, NULL, NULL);
}
