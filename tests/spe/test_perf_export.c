/* SPDX-License-Identifier: Apache-2.0 */
/* test_perf_export.c: armprof-decode --to-perf-data, checked with Debian's own perf: same record count and PCs as ours. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "armprof/spe.h"
#include "spe_test_util.h"
#include "tool_util.h"

#ifndef ARMPROF_DECODE
#error "ARMPROF_DECODE must name the armprof-decode binary"
#endif

static char dir[256];

static int setup(void **s)
{
    (void)s;
    return tool_tmpdir(dir, sizeof dir);
}

static int teardown(void **s)
{
    (void)s;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static int have_perf(void)
{
    return tool_run("perf --version", NULL, 0) == 0;
}

/* The PCs of our decoding, as perf shows them: bits [55:0], with bits [63:56] set for a
 * Non-secure EL1/EL2 address (arm_spe_calc_ip() in tools/perf/util/arm-spe-decoder). */
static size_t our_pcs(const char *bin, uint64_t *pcs, size_t max)
{
    char cmd[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "'%s' --json '%s'", ARMPROF_DECODE, bin);
    assert_int_equal(tool_run(cmd, &out, 0), 0);
    size_t n = 0;
    for (char *line = out; line && *line && n < max;) {
        char *nl = strchr(line, '\n');
        char *p = strstr(line, "\"pc\":\"");
        assert_true(p && (!nl || p < nl)); /* every record in these streams has a PC */
        uint64_t a = strtoull(p + 6, NULL, 16);
        unsigned el = (unsigned)atoi(strstr(p, "\"el\":") + 5);
        int ns = atoi(strstr(p, "\"ns\":") + 5);
        if (ns && (el == 1 || el == 2))
            a |= 0xFFull << 56;
        pcs[n++] = a;
        line = nl ? nl + 1 : NULL;
    }
    free(out);
    return n;
}

/* Exports `bin`, then compares perf report -D's record count and perf script's IPs with ours. */
static void compare_with_perf(const char *bin)
{
    enum { MAXREC = 1 << 16 };
    static uint64_t ours[MAXREC];
    char data[400], cmd[1024], *out = NULL;
    size_t n = our_pcs(bin, ours, MAXREC);
    assert_true(n > 0);

    snprintf(data, sizeof data, "%s/out.data", dir);
    snprintf(cmd, sizeof cmd, "'%s' --to-perf-data '%s' '%s'", ARMPROF_DECODE, data, bin);
    assert_int_equal(tool_run(cmd, NULL, 0), 0);

    /* perf report -D: one packet per line; a record ends in "END" or "TS <n>". */
    snprintf(cmd, sizeof cmd, "perf report -f -D -i '%s'", data);
    assert_int_equal(tool_run(cmd, &out, 0), 0);
    assert_non_null(strstr(out, "PERF_RECORD_AUXTRACE_INFO type: 4"));
    assert_non_null(strstr(out, "ARM SPE data: size"));
    size_t ends = 0, bad = tool_count(out, "Bad packet");
    for (char *line = out; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (line[0] == '.' && strstr(line, ":  ")) {
            size_t l = strlen(line);
            char *ts = strstr(line, "  TS "); /* perf 6.1 prints the timestamp signed */
            if (ts)
                ts += 5 + (ts[5] == '-');
            if ((l >= 4 && strcmp(line + l - 4, " END") == 0) ||
                (ts && *ts && strspn(ts, "0123456789") == strlen(ts)))
                ends++;
        }
        line = nl ? nl + 1 : NULL;
    }
    free(out);
    print_message("%s: %zu records ours, %zu records perf report -D\n", bin, n, ends);
    assert_int_equal(bad, 0);
    assert_int_equal(ends, n);

    /* perf script: one instruction sample per record (--itrace=i1i), its IP the record's PC. */
    snprintf(cmd, sizeof cmd, "perf script -f -i '%s' --itrace=i1i -F ip", data);
    assert_int_equal(tool_run(cmd, &out, 0), 0);
    size_t k = 0;
    for (char *line = out; line && *line;) {
        char *nl = strchr(line, '\n');
        uint64_t ip = strtoull(line, NULL, 16);
        if (k < n && ip != ours[k])
            fail_msg("record %zu: perf script ip 0x%llx, ours 0x%llx", k, (unsigned long long)ip,
                     (unsigned long long)ours[k]);
        k++;
        line = nl ? nl + 1 : NULL;
    }
    free(out);
    assert_int_equal(k, n);
}

/* A buffer from the encoder: random records, every optional packet on and off, several unit
 * configurations back to back (padding and 12/16-bit counters included). */
static void test_perf_decodes_encoder_buffer(void **s)
{
    (void)s;
    if (!have_perf())
        skip();
    static uint8_t buf[1 << 18];
    ap_prng64 g = { .state = 99 };
    size_t n = 0;
    for (unsigned i = 0; i < 3000; i++) {
        spe_format_cfg cfg = { .max_size = (uint8_t)(6 + i % 3), .align = (uint8_t)(i % 4),
                               .count_size = (uint8_t)(2 + i % 2) };
        spe_record r = spe_test_random_record(&g);
        r.present |= SPE_R_PC;
        n += spe_encode(&r, &cfg, buf + n, sizeof buf - n);
    }
    char bin[400];
    snprintf(bin, sizeof bin, "%s/enc.bin", dir);
    assert_int_equal(tool_write(bin, buf, n), 0);
    compare_with_perf(bin);
}

/* The buffer of an armprof-run (the SPU model with the synthetic workload). */
static void test_perf_decodes_armprof_run(void **s)
{
    (void)s;
#ifdef ARMPROF_RUN
    if (!have_perf())
        skip();
    char cmd[1024], bin[400];
    snprintf(cmd, sizeof cmd, "'%s' --ops 400000 --buffer-bytes 262144 --out '%s/run'", ARMPROF_RUN, dir);
    assert_int_equal(tool_run(cmd, NULL, 0), 0);
    snprintf(bin, sizeof bin, "%s/run/spe.bin", dir);
    compare_with_perf(bin);
#else
    skip();
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_perf_decodes_encoder_buffer),
        cmocka_unit_test(test_perf_decodes_armprof_run),
    };
    return cmocka_run_group_tests_name("perf_export", tests, setup, teardown);
}
