/* SPDX-License-Identifier: Apache-2.0 */
/* test_armprof_run.c: armprof-run end to end: the JSON summary, the dumps, errors on bad options. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

/* Runs armprof-run with `args`; returns its exit status and (if out) its stdout. */
static int run(const char *args, char **out)
{
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "%s %s 2>&1", ARMPROF_RUN, args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += n;
        if (len + 1 == cap)
            buf = realloc(buf, cap *= 2);
    }
    buf[len] = 0;
    int st = pclose(p);
    if (out)
        *out = buf;
    else
        free(buf);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static double jnum(cJSON *j, const char *k)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(j, k);
    assert_non_null(v);
    return v->valuedouble;
}

static uint64_t jhex(cJSON *j, const char *k)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(j, k);
    assert_non_null(v);
    assert_true(cJSON_IsString(v));
    return strtoull(v->valuestring, NULL, 16);
}

/* The acceptance check: --no-service --buffer-bytes 8192 --json reports PMBSR_EL1 with
 * S=1, EC=0, BSC=1 (buffer full, §3.5.2), and PMBPTR_EL1 within one record of the limit. */
static void test_no_service_syndrome(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(run("--no-service --buffer-bytes 8192 --json --ops 2000000 --out " TEST_OUT "/a", &out), 0);
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    uint64_t sr = jhex(j, "pmbsr");
    assert_int_equal((sr >> 17) & 1, 1);       /* S */
    assert_int_equal((sr >> 26) & 0x3f, 0);    /* EC: other buffer management event */
    assert_int_equal(sr & 0x3f, 1);            /* BSC: buffer filled */
    uint64_t ptr = jhex(j, "pmbptr"), lim = jhex(j, "pmblimitr") & ~0xFFFull;
    assert_true(ptr <= lim && lim - ptr < 64);
    assert_int_equal(jnum(j, "management_events"), 1);
    /* the dump holds exactly the bytes up to PMBPTR_EL1 */
    struct stat sb;
    assert_int_equal(stat(TEST_OUT "/a/spe.bin", &sb), 0);
    assert_int_equal((uint64_t)sb.st_size, ptr - jhex(j, "buffer_base"));
    assert_int_equal((double)sb.st_size, jnum(j, "bytes_written"));
    cJSON_Delete(j);
    free(out);
}

/* Serviced run: every record written or discarded; the PMU's counts equal the SPU's own. */
static void test_serviced_counts(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(run("--json --ops 3000000 --buffer-bytes 16384 --seed 7 --out " TEST_OUT "/b", &out), 0);
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    double samples = jnum(j, "samples"), filt = jnum(j, "filtrate");
    assert_true(samples > 2000);
    assert_true(jnum(j, "management_events") > 1);
    assert_int_equal(filt, jnum(j, "records_written") + jnum(j, "records_discarded"));
    assert_int_equal(jnum(j, "population_ops") <= 3000000, 1);
    cJSON *pmu = cJSON_GetObjectItemCaseSensitive(j, "pmu");
    assert_non_null(pmu);
    assert_int_equal(jnum(pmu, "SAMPLE_POP"), jnum(j, "population_ops"));
    assert_int_equal(jnum(pmu, "SAMPLE_FEED"), samples);
    assert_int_equal(jnum(pmu, "SAMPLE_FILTRATE"), filt);
    assert_int_equal(jnum(pmu, "SAMPLE_COLLISION"), jnum(j, "collisions"));
    struct stat sb;
    assert_int_equal(stat(TEST_OUT "/b/spe.bin", &sb), 0);
    assert_int_equal((double)sb.st_size, jnum(j, "dumped_bytes"));
    /* the same seed gives the same summary */
    char *out2;
    assert_int_equal(run("--json --ops 3000000 --buffer-bytes 16384 --seed 7 --out " TEST_OUT "/c", &out2), 0);
    cJSON *k = cJSON_Parse(out2);
    assert_int_equal(jnum(k, "bytes_written"), jnum(j, "bytes_written"));
    assert_int_equal(jhex(k, "pmbptr"), jhex(j, "pmbptr"));
    cJSON_Delete(k);
    cJSON_Delete(j);
    free(out);
    free(out2);
}

static void test_trbe(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(run("--json --ops 100000 --trbe --trbe-bytes 1000000 --trbe-buffer 16384 --out " TEST_OUT "/d", &out), 0);
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "trbu");
    assert_non_null(t);
    assert_true(jnum(t, "wraps") >= 1);
    assert_int_equal(jnum(t, "bytes_in"), 1000000);
    struct stat sb;
    assert_int_equal(stat(TEST_OUT "/d/trbe.bin", &sb), 0);
    assert_int_equal((double)sb.st_size, jnum(t, "dumped_bytes"));
    cJSON_Delete(j);
    free(out);
}

static cJSON *run_json(const char *args)
{
    char *out;
    char a[512];
    snprintf(a, sizeof(a), "--json --ops 1000000 --interval 256 --drain 4 --fifo-bytes 256 --seed 3 %s", args);
    int rc = run(a, &out);
    if (rc != 0)
        fail_msg("armprof-run %s: exit %d: %s", a, rc, out);
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    free(out);
    return j;
}

/*
 * The flat memory's latency model: --write-latency 0 is the default run number for number; a
 * slow memory (300 cycles, one write outstanding) holds bytes in the FIFO longer, stalls the
 * writer and reports its latencies; a seeded distribution gives the same run for the same seed
 * and stays within its bounds; more writes outstanding take back the stalls.
 */
static void test_write_latency(void **state)
{
    (void)state;
    cJSON *a = run_json("--out " TEST_OUT "/l0");
    cJSON *b = run_json("--write-latency 0 --out " TEST_OUT "/l1");
    const char *same[] = { "bytes_written", "records_written", "collisions", "fifo_bytes_max",
                           "fifo_bytes_mean", "writes_issued", "cycles", "management_events" };
    for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++)
        assert_int_equal(jnum(a, same[i]) * 1000, jnum(b, same[i]) * 1000);
    assert_int_equal(jhex(a, "pmbptr"), jhex(b, "pmbptr"));
    assert_int_equal(jnum(a, "writer_stall_cycles"), 0);
    assert_int_equal(jnum(a, "outstanding_writes_max"), 1);
    cJSON *al = cJSON_GetObjectItemCaseSensitive(a, "write_latency");
    assert_non_null(al);
    assert_int_equal(jnum(al, "max"), 0);
    /* The FIFO histogram covers every cycle. */
    cJSON *h = cJSON_GetObjectItemCaseSensitive(a, "fifo_hist");
    assert_true(cJSON_IsArray(h) && cJSON_GetArraySize(h) == 16);
    double sum = 0;
    for (int i = 0; i < 16; i++)
        sum += cJSON_GetArrayItem(h, i)->valuedouble;
    assert_int_equal(sum, jnum(a, "cycles"));

    cJSON *slow = run_json("--write-latency 300 --out " TEST_OUT "/l2");
    assert_true(jnum(slow, "fifo_bytes_max") > jnum(a, "fifo_bytes_max"));
    assert_true(jnum(slow, "fifo_bytes_mean") > jnum(a, "fifo_bytes_mean"));
    assert_true(jnum(slow, "writer_stall_cycles") > 0);
    cJSON *sl = cJSON_GetObjectItemCaseSensitive(slow, "write_latency");
    assert_int_equal(jnum(sl, "max"), 300);
    assert_true(jnum(sl, "mean") > 290 && jnum(sl, "mean") <= 300);
    cJSON *cfg = cJSON_GetObjectItemCaseSensitive(slow, "config");
    assert_int_equal(jnum(cfg, "write_latency"), 300);

    cJSON *u1 = run_json("--write-latency-dist uniform:100:400 --max-outstanding-writes 2 --out " TEST_OUT "/l3");
    cJSON *u2 = run_json("--write-latency-dist uniform:100:400 --max-outstanding-writes 2 --out " TEST_OUT "/l4");
    cJSON *ul = cJSON_GetObjectItemCaseSensitive(u1, "write_latency");
    assert_int_equal(jnum(ul, "min"), 100);
    assert_int_equal(jnum(ul, "max"), 400);
    assert_true(jnum(ul, "mean") > 200 && jnum(ul, "mean") < 300);
    assert_int_equal(jnum(cJSON_GetObjectItemCaseSensitive(u2, "write_latency"), "mean") * 1e6,
                     jnum(ul, "mean") * 1e6);
    assert_int_equal(jnum(u1, "writer_stall_cycles"), jnum(u2, "writer_stall_cycles"));
    assert_int_equal(jnum(u1, "outstanding_writes_max"), 2);
    assert_true(jnum(u1, "writer_stall_cycles") < jnum(slow, "writer_stall_cycles"));

    cJSON *e = run_json("--write-latency-dist exp:50 --write-bytes 64 --max-outstanding-writes 4 --out " TEST_OUT "/l5");
    cJSON *el = cJSON_GetObjectItemCaseSensitive(e, "write_latency");
    assert_true(jnum(el, "mean") > 35 && jnum(el, "mean") < 65);
    assert_true(jnum(el, "max") <= 64 * 50);
    assert_true(jnum(e, "writes_issued") > jnum(e, "records_written")); /* 64-byte lines */
    cJSON *ec = cJSON_GetObjectItemCaseSensitive(e, "config");
    assert_int_equal(jnum(ec, "write_bytes"), 64);
    assert_int_equal(jnum(ec, "max_outstanding_writes"), 4);
    cJSON *objs[] = { a, b, slow, u1, u2, e };
    for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); i++)
        cJSON_Delete(objs[i]);
}

/* Bad options: exit status 2 and a message that names the option. */
static void test_bad_options(void **state)
{
    (void)state;
    const struct { const char *args, *msg; } cases[] = {
        { "--interval 12", "--interval" },
        { "--ops abc", "--ops" },
        { "--buffer-bytes -5", "--buffer-bytes" },
        { "--max-size 3", "--max-size" },
        { "--align 9 --max-size 6", "Align" },
        { "--fifo-bytes 16", "FIFO" },
        { "--write-latency -1", "--write-latency" },
        { "--write-latency 99999999999", "--write-latency" },
        { "--write-latency-dist normal:5", "--write-latency-dist" },
        { "--write-latency-dist uniform:9:3", "--write-latency-dist" },
        { "--write-latency-dist exp:0", "--write-latency-dist" },
        { "--write-bytes 48", "--write-bytes" },
        { "--write-bytes 8192", "--write-bytes" },
        { "--max-outstanding-writes 0", "--max-outstanding-writes" },
        { "--max-outstanding-writes 1000", "--max-outstanding-writes" },
        { "--frobnicate", "usage" },
        { "stray", "unexpected argument" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *out;
        char a[256];
        snprintf(a, sizeof(a), "%s --out " TEST_OUT "/e", cases[i].args);
        int rc = run(a, &out);
        if (rc != 2 || !strstr(out, cases[i].msg))
            fail_msg("armprof-run %s: exit %d, output: %s", cases[i].args, rc, out);
        free(out);
    }
}

int main(void)
{
    mkdir(TEST_OUT, 0777);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_service_syndrome),
        cmocka_unit_test(test_serviced_counts),
        cmocka_unit_test(test_trbe),
        cmocka_unit_test(test_write_latency),
        cmocka_unit_test(test_bad_options),
    };
    return cmocka_run_group_tests_name("armprof_run", tests, NULL, NULL);
}
