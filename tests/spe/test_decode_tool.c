/* SPDX-License-Identifier: Apache-2.0 */
/* test_decode_tool.c: armprof-decode end to end: listing, --json, --csv, --summary, stdin, several CPUs, saturated counters, bad input, I/O errors and exit status. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "armprof/spe.h"
#include "tool_util.h"

#ifndef ARMPROF_DECODE
#error "ARMPROF_DECODE must name the armprof-decode binary"
#endif

static char dir[256];
static char path_good[300], path_empty[300], path_trunc[300], path_resv[300], path_garbage[300];
static char path_pad[300], path_sat[300], path_sat16[300];

/* Three records: a load (with data addresses), a branch (with target), an other (End). */
static size_t good_stream(uint8_t *b, size_t cap)
{
    spe_format_cfg cfg = { .max_size = 6, .align = 0, .count_size = 3 };
    spe_record r[3] = {
        { .present = SPE_R_PC | SPE_R_OPTYPE | SPE_R_TOTAL_LAT | SPE_R_DATA_VA | SPE_R_TIMESTAMP,
          .pc = 0x400000, .pc_el = 0, .pc_ns = true, .op_class = SPE_CLASS_LDST, .op_subclass = SPE_LDST_GP,
          .events = 0x16, .total_lat = 12, .data_va = 0x7fff0010, .timestamp = 1000 },
        { .present = SPE_R_PC | SPE_R_OPTYPE | SPE_R_TARGET | SPE_R_TIMESTAMP, .pc = 0x400004,
          .pc_ns = true, .op_class = SPE_CLASS_BRANCH, .op_subclass = SPE_BR_COND, .events = 0xC2,
          .target = 0x400100, .target_ns = true, .timestamp = 2000 },
        { .present = SPE_R_PC | SPE_R_OPTYPE, .pc = 0x400100, .pc_ns = true, .op_class = SPE_CLASS_OTHER,
          .events = 0x2 },
    };
    size_t n = 0;
    for (int i = 0; i < 3; i++)
        n += spe_encode(&r[i], &cfg, b + n, cap - n);
    return n;
}

static int setup(void **s)
{
    (void)s;
    uint8_t b[512];
    if (tool_tmpdir(dir, sizeof dir))
        return -1;
    snprintf(path_good, sizeof path_good, "%s/good.bin", dir);
    snprintf(path_empty, sizeof path_empty, "%s/empty.bin", dir);
    snprintf(path_trunc, sizeof path_trunc, "%s/trunc.bin", dir);
    snprintf(path_resv, sizeof path_resv, "%s/reserved.bin", dir);
    snprintf(path_garbage, sizeof path_garbage, "%s/garbage.bin", dir);
    snprintf(path_pad, sizeof path_pad, "%s/padded.bin", dir);
    snprintf(path_sat, sizeof path_sat, "%s/sat12.bin", dir);
    snprintf(path_sat16, sizeof path_sat16, "%s/sat16.bin", dir);
    size_t n = good_stream(b, sizeof b);
    int bad = tool_write(path_good, b, n);
    bad |= tool_write(path_empty, b, 0);
    bad |= tool_write(path_trunc, b, n - 10); /* the last record cut inside its PC packet */
    uint8_t rv[] = { 0x42, 0x02, 0x01, 0x20, 0x25, 0x42, 0x02, 0x01 };
    bad |= tool_write(path_resv, rv, sizeof rv);
    uint8_t g[4096];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof g; i++) {
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        g[i] = (uint8_t)(x >> 24);
    }
    bad |= tool_write(path_garbage, g, sizeof g);
    /* a record padded to 2^5 bytes, an Alignment command (8 bytes) and a record after it */
    spe_format_cfg c5 = { .max_size = 6, .align = 5, .count_size = 3 };
    spe_record one = { .present = SPE_R_PC | SPE_R_OPTYPE, .pc = 0x1000, .pc_ns = true };
    size_t m = spe_encode(&one, &c5, b, sizeof b);       /* 14 bytes + 18 padding = 32 */
    m += spe_pkt_alignment(b + m, 2);                    /* at 32, next byte at 40 */
    memset(b + m, 0xEE, 6);                              /* UNKNOWN bytes the command skips */
    m += 6;
    b[m++] = 0x01;                                       /* an End-only record at 40 */
    bad |= tool_write(path_pad, b, m);
    /* §5.3.4 saturating counters. 12-bit (CountSize 0b0010): a load whose total latency 5000 the
     * encoder clamps to 0xFFF, issue exactly 4095, translation 4094 (not saturated); then a record
     * with none saturated. 16-bit (0b0011): total 0xFFFF, issue 4095 (not saturated there). */
    spe_format_cfg c12 = { .max_size = 6, .align = 0, .count_size = 2 };
    spe_record sat = { .present = SPE_R_PC | SPE_R_OPTYPE | SPE_R_TOTAL_LAT | SPE_R_ISSUE_LAT | SPE_R_XLAT_LAT |
                                  SPE_R_TIMESTAMP,
                       .pc = 0x2000, .pc_ns = true, .op_class = SPE_CLASS_LDST, .events = 0x2, .total_lat = 5000,
                       .issue_lat = 4095, .xlat_lat = 4094, .timestamp = 77 };
    m = spe_encode(&sat, &c12, b, sizeof b);
    spe_record calm = sat;
    calm.total_lat = 100;
    calm.issue_lat = 10;
    calm.xlat_lat = 5;
    m += spe_encode(&calm, &c12, b + m, sizeof b - m);
    bad |= tool_write(path_sat, b, m);
    spe_format_cfg c16 = { .max_size = 6, .align = 0, .count_size = 3 };
    sat.total_lat = 0xFFFF;
    m = spe_encode(&sat, &c16, b, sizeof b);
    bad |= tool_write(path_sat16, b, m);
    return bad;
}

static int teardown(void **s)
{
    (void)s;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static char *run(const char *args, const char *file, int with_stderr, int *status)
{
    char cmd[1024];
    char *out = NULL;
    snprintf(cmd, sizeof cmd, "'%s' %s %s", ARMPROF_DECODE, args, file);
    *status = tool_run(cmd, &out, with_stderr);
    assert_non_null(out);
    return out;
}

static void test_listing(void **s)
{
    (void)s;
    int st;
    char *o = run("", path_good, 0, &st);
    assert_int_equal(st, 0);
    assert_non_null(strstr(o, "record 0 at 0x0, 34 bytes\n"));
    assert_non_null(strstr(o, "  00000000:  b0 00 00 40 00 00 00 00 80    PC 0x400000 el0 ns=1\n"));
    assert_non_null(strstr(o, "OP ldst: load gp"));
    assert_non_null(strstr(o, "EV retired l1d_access tlb_access"));
    assert_non_null(strstr(o, "VA 0x7fff0010 tag 0x00"));
    assert_non_null(strstr(o, "TGT 0x400100 el0 ns=1"));
    assert_non_null(strstr(o, "EV retired not_taken mispredicted"));
    assert_non_null(strstr(o, "OP branch: direct cond"));
    assert_non_null(strstr(o, "TS 2000"));
    assert_int_equal(tool_count(o, " END\n"), 1);
    assert_non_null(strstr(o, "3 records, "));
    assert_non_null(strstr(o, " 0 errors"));
    free(o);
}

/* §5.3.9 Padding runs and §5.3.2 Alignment commands in the listing. */
static void test_listing_padding_alignment(void **s)
{
    (void)s;
    int st;
    char *o = run("", path_pad, 0, &st);
    assert_int_equal(st, 0);
    assert_non_null(strstr(o, "record 0 at 0x0, 32 bytes\n"));
    assert_non_null(strstr(o, "  0000000d:  00 x 18                       PAD x18\n"));
    assert_non_null(strstr(o, "  0000001f:  01                            END\n"));
    assert_non_null(strstr(o, "(8 bytes of padding / alignment at 0x20)\n"));
    assert_non_null(strstr(o, "record 1 at 0x28, 1 bytes\n"));
    assert_non_null(strstr(o, "2 records, 41 bytes, 0 errors"));
    free(o);
}

static void test_json_csv_stdin(void **s)
{
    (void)s;
    int st;
    char *o = run("--json", path_good, 0, &st);
    assert_int_equal(st, 0);
    assert_int_equal(tool_count(o, "\n"), 3);
    assert_non_null(strstr(o, "{\"offset\":0,\"size\":34,\"pc\":\"0x400000\",\"el\":0,\"ns\":1,\"op\":\"ldst\","
                              "\"subclass\":0,\"op_desc\":\"load gp\",\"events\":[\"retired\",\"l1d_access\","
                              "\"tlb_access\"],\"events_raw\":\"0x16\",\"lat_total\":12,\"va\":\"0x7fff0010\","
                              "\"va_tag\":0,\"ts\":1000}\n"));
    assert_non_null(strstr(o, "\"pc\":\"0x400100\",\"el\":0,\"ns\":1,\"op\":\"other\",\"subclass\":0,"
                              "\"op_desc\":\"other\",\"events\":[\"retired\"],\"events_raw\":\"0x2\",\"end\":true}"));
    free(o);
    o = run("--csv", path_good, 0, &st);
    assert_int_equal(st, 0);
    assert_int_equal(tool_count(o, "\n"), 4);
    assert_true(strncmp(o, "offset,size,pc,el,ns,op,", 24) == 0);
    assert_non_null(strstr(o, "\n34,"));
    free(o);
    char in[400];
    snprintf(in, sizeof in, "- < '%s'", path_good);
    o = run("--json", in, 0, &st);
    assert_int_equal(st, 0);
    assert_int_equal(tool_count(o, "\"pc\":"), 3);
    free(o);
}

static void test_summary(void **s)
{
    (void)s;
    int st;
    char *o = run("--summary", path_good, 0, &st);
    assert_int_equal(st, 0);
    assert_non_null(strstr(o, "records: 3 (79 bytes, 2 ending in Timestamp, 1 in End)"));
    assert_non_null(strstr(o, "  load/store                      1   33.33%"));
    assert_non_null(strstr(o, "  branch                          1   33.33%"));
    assert_non_null(strstr(o, "    loads 1, stores 0; branches conditional 1, indirect 0"));
    assert_non_null(strstr(o, "  retired                         3  100.00%"));
    assert_non_null(strstr(o, "  mispredicted                    1   33.33%"));
    assert_non_null(strstr(o, "total latency (cycles): 1 samples, mean 12.0, max 12"));
    assert_non_null(strstr(o, "      8-15               1 100.00% ####"));
    free(o);
}

/* Bad input: each reported with its byte offset, exit status 1, never a crash. */
static void test_bad_inputs_exit_status(void **s)
{
    (void)s;
    int st;
    char *o = run("--quiet", path_empty, 1, &st);
    assert_int_equal(st, 1);
    assert_non_null(strstr(o, "offset 0x0: empty input"));
    free(o);
    o = run("--quiet", path_trunc, 1, &st);
    assert_int_equal(st, 1);
    assert_non_null(strstr(o, "offset 0x41: truncated packet: header 0xb0 needs 8 payload bytes, the input has 3 more"));
    free(o);
    o = run("--quiet", path_resv, 1, &st);
    assert_int_equal(st, 1);
    assert_non_null(strstr(o, "offset 0x3: reserved header: 0x20 0x25"));
    free(o);
    /* reserved header, --lenient: the record after it is still decoded; status still 1 */
    o = run("--lenient --json", path_resv, 1, &st);
    assert_int_equal(st, 1);
    assert_int_equal(tool_count(o, "\"offset\":"), 2);
    assert_non_null(strstr(o, "1 errors, 2 records decoded"));
    free(o);
    o = run("--quiet", path_garbage, 1, &st);
    assert_int_equal(st, 1);
    assert_non_null(strstr(o, "offset 0x"));
    free(o);
    o = run("--lenient --summary", path_garbage, 1, &st);
    assert_int_equal(st, 1);
    assert_non_null(strstr(o, " errors, "));
    free(o);
    /* the listing shows the error in place */
    o = run("", path_trunc, 0, &st);
    assert_int_equal(st, 1);
    assert_non_null(strstr(o, "ERROR offset 0x"));
    free(o);
}

static void test_usage_errors(void **s)
{
    (void)s;
    int st;
    char *o = run("--max-size 3", path_good, 1, &st);
    assert_int_equal(st, 2);
    free(o);
    o = run("", "/nonexistent/spe.bin", 1, &st);
    assert_int_equal(st, 2);
    assert_non_null(strstr(o, "cannot open /nonexistent/spe.bin"));
    free(o);
    o = run("--max-size 4", path_good, 1, &st); /* 34-byte record > 16 */
    assert_int_equal(st, 1);
    assert_non_null(strstr(o, "record longer than MaxSize: 34 bytes, MaxSize allows 16"));
    free(o);
}

/*
 * I/O errors are exit status 2 with the reason (strerror), never success: a folder for an input,
 * standard output on a full device (the listing, --json, --csv, --summary and --help), a perf.data
 * that cannot be written.
 */
static void test_io_errors(void **s)
{
    (void)s;
    int st;
    char *o = run("", dir, 1, &st);
    assert_int_equal(st, 2);
    char want[512];
    snprintf(want, sizeof want, "armprof-decode: cannot read %s: Is a directory\n", dir);
    assert_string_equal(o, want);
    free(o);
    const char *const modes[] = { "", "--json", "--csv", "--summary" };
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "{ '%s' %s %s 2>&1 >/dev/full; }", ARMPROF_DECODE, modes[i], path_good);
        st = tool_run(cmd, &o, 0);
        if (st != 2 || strcmp(o, "armprof-decode: error writing standard output: No space left on device\n"))
            fail_msg("armprof-decode %s >/dev/full: exit %d: %s", modes[i], st, o);
        free(o);
    }
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "{ '%s' --help 2>&1 >/dev/full; }", ARMPROF_DECODE);
    st = tool_run(cmd, &o, 0);
    assert_int_equal(st, 2);
    assert_non_null(strstr(o, "error writing standard output: No space left on device"));
    free(o);
    o = run("--to-perf-data /dev/full", path_good, 1, &st);
    assert_int_equal(st, 2);
    assert_string_equal(o, "armprof-decode: cannot write /dev/full: No space left on device\n");
    free(o);
}

/* §5.3.4: COUNT 0xFFF of a 12-bit counter means saturated; shown in every output form. */
static void test_saturated_counters(void **s)
{
    (void)s;
    int st;
    char *o = run("", path_sat, 0, &st);
    assert_int_equal(st, 0);
    assert_non_null(strstr(o, " LAT 4095 TOT (saturated)\n"));
    assert_non_null(strstr(o, " LAT 4095 ISSUE (saturated)\n"));
    assert_non_null(strstr(o, " LAT 4094 XLAT\n"));
    assert_non_null(strstr(o, " LAT 100 TOT\n"));
    assert_int_equal(tool_count(o, "(saturated)"), 2);
    free(o);
    o = run("--json", path_sat, 0, &st);
    assert_int_equal(st, 0);
    assert_non_null(strstr(o, "\"lat_total\":4095,\"lat_issue\":4095,\"lat_xlat\":4094,"
                              "\"saturated\":[\"total\",\"issue\"],"));
    assert_int_equal(tool_count(o, "\"saturated\""), 1);
    free(o);
    o = run("--csv", path_sat, 0, &st);
    assert_int_equal(st, 0);
    assert_non_null(strstr(o, ",ts,saturated\n"));
    assert_non_null(strstr(o, ",77,total|issue\n"));
    assert_non_null(strstr(o, ",77,\n"));
    free(o);
    o = run("--summary", path_sat, 0, &st);
    assert_int_equal(st, 0);
    assert_non_null(strstr(o, "saturated counters (12-bit): 1 records (total 1, issue 1, translation 0)\n"));
    free(o);
    /* 16-bit counters: 0xFFFF is saturated, 4095 is an ordinary count */
    o = run("--count-size 16", path_sat16, 0, &st);
    assert_int_equal(st, 0);
    assert_non_null(strstr(o, " LAT 65535 TOT (saturated)\n"));
    assert_non_null(strstr(o, " LAT 4095 ISSUE\n"));
    free(o);
    o = run("--count-size 16 --summary", path_sat16, 0, &st);
    assert_non_null(strstr(o, "saturated counters (16-bit): 1 records (total 1, issue 0, translation 0)\n"));
    free(o);
    o = run("--count-size 14", path_sat16, 1, &st);
    assert_int_equal(st, 2);
    assert_non_null(strstr(o, "--count-size expects 12 or 16"));
    free(o);
}

/* Several files: CPU k by position or CPU=FILE; JSON/CSV carry the CPU; errors name the file. */
static void test_several_cpus(void **s)
{
    (void)s;
    int st;
    char args[1024];
    snprintf(args, sizeof args, "'%s' '5=%s'", path_good, path_sat);
    char *o = run("--json", args, 0, &st);
    assert_int_equal(st, 0);
    assert_int_equal(tool_count(o, "{\"cpu\":0,\"offset\":"), 3);
    assert_int_equal(tool_count(o, "{\"cpu\":5,\"offset\":"), 2);
    free(o);
    o = run("--csv", args, 0, &st);
    assert_true(strncmp(o, "cpu,offset,size,", 16) == 0);
    assert_int_equal(tool_count(o, "\n5,"), 2);
    free(o);
    o = run("", args, 0, &st);
    assert_non_null(strstr(o, "(cpu 5) ==\n"));
    assert_non_null(strstr(o, "3 records, 79 bytes"));
    free(o);
    o = run("--summary", args, 0, &st);
    assert_non_null(strstr(o, "records: 5 "));
    free(o);
    snprintf(args, sizeof args, "'%s' '0=%s'", path_good, path_sat);
    o = run("--quiet", args, 1, &st);
    assert_int_equal(st, 2);
    assert_non_null(strstr(o, "are both CPU 0"));
    free(o);
    snprintf(args, sizeof args, "'%s' '%s'", path_good, path_trunc);
    o = run("--quiet", args, 1, &st);
    assert_int_equal(st, 1);
    assert_non_null(strstr(o, "trunc.bin: offset 0x41"));
    free(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_listing),
        cmocka_unit_test(test_listing_padding_alignment),
        cmocka_unit_test(test_json_csv_stdin),
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_bad_inputs_exit_status),
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_io_errors),
        cmocka_unit_test(test_saturated_counters),
        cmocka_unit_test(test_several_cpus),
    };
    return cmocka_run_group_tests_name("armprof_decode_tool", tests, setup, teardown);
}
