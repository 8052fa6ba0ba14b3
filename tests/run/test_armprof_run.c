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
        cmocka_unit_test(test_bad_options),
    };
    return cmocka_run_group_tests_name("armprof_run", tests, NULL, NULL);
}
