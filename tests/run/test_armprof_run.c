/* SPDX-License-Identifier: Apache-2.0 */
/* test_armprof_run.c: armprof-run end to end: the JSON summary, the dumps, errors on bad options and outputs, SIGINT / SIGTERM. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

/* Runs the shell command `cmd`; returns its exit status and (if out) what it wrote to the pipe. */
static int run_cmd(const char *cmd, char **out)
{
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

/* Runs armprof-run with `args`; returns its exit status and (if out) its stdout and stderr. */
static int run(const char *args, char **out)
{
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "%s %s 2>&1", ARMPROF_RUN, args);
    return run_cmd(cmd, out);
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
        { "--frobnicate", "armprof-run: unknown option '--frobnicate'" },
        { "stray", "unexpected argument" },
        { "--ops", "armprof-run: --ops needs a value" },
        { "--ops 0", "--ops expects an integer in [1, 9223372036854775807], got '0'" },
        { "--ops -5", "--ops expects an integer in [1, 9223372036854775807], got '-5'" },
        { "--ops 1e3", "--ops expects an integer in [1, 9223372036854775807], got '1e3'" },
        { "--ops 18446744073709551616", "got '18446744073709551616'" },
        /* The interval rule of armprof-vp's spe.interval and armprof-explore's interval. */
        { "--interval 255", "--interval expects an integer in [256, 4294967040], got '255'" },
        { "--interval 4294967296", "--interval expects an integer in [256, 4294967040], got '4294967296'" },
        { "--interval 0", "--interval expects an integer in [256, 4294967040], got '0'" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *out;
        char a[256];
        snprintf(a, sizeof(a), "--out " TEST_OUT "/e %s", cases[i].args);
        int rc = run(a, &out);
        if (rc != 2 || !strstr(out, cases[i].msg))
            fail_msg("armprof-run %s: exit %d, output: %s", cases[i].args, rc, out);
        free(out);
    }
}

static int file_size(const char *path, off_t *size)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return -1;
    *size = sb.st_size;
    return 0;
}

/*
 * Outputs that cannot be written: standard output on a full device, a dump on a full device or
 * past the file-size limit (the run stops there), a summary that cannot be replaced. Each exits 1
 * naming the file and the reason; no summary.json stands beside a dump that failed (not even an
 * earlier run's).
 */
static void test_output_errors(void **state)
{
    (void)state;
    char *out;
    /* --json and the readable summary both go to standard output (its errors: stderr, the pipe). */
    assert_int_equal(run_cmd(ARMPROF_RUN " --ops 100000 --json --out " TEST_OUT "/w0 2>&1 >/dev/full", &out), 1);
    assert_string_equal(out, "armprof-run: error writing standard output: No space left on device\n");
    free(out);
    assert_int_equal(run_cmd(ARMPROF_RUN " --ops 100000 --out " TEST_OUT "/w0 2>&1 >/dev/full", &out), 1);
    assert_string_equal(out, "armprof-run: error writing standard output: No space left on device\n");
    free(out);
    assert_int_equal(run_cmd(ARMPROF_RUN " --help 2>&1 >/dev/full", &out), 1);
    assert_string_equal(out, "armprof-run: error writing standard output: No space left on device\n");
    free(out);

    /* spe.bin on a full device, with a summary of an earlier run in the folder. */
    assert_int_equal(system("mkdir -p " TEST_OUT "/w1 && echo '{}' > " TEST_OUT "/w1/summary.json && "
                            "ln -sf /dev/full " TEST_OUT "/w1/spe.bin"), 0);
    assert_int_equal(run("--ops 1000000 --out " TEST_OUT "/w1", &out), 1);
    assert_non_null(strstr(out, "armprof-run: error writing " TEST_OUT "/w1/spe.bin: No space left on device"));
    assert_null(strstr(out, "wrote"));
    free(out);
    off_t sz = 0;
    assert_int_equal(file_size(TEST_OUT "/w1/summary.json", &sz), -1);

    /* Past a file-size limit of 16 KiB (ulimit -f counts 512-byte blocks in sh, 1 KiB in bash:
     * 32 blocks is 16 or 32 KiB): EFBIG, not SIGXFSZ, and the run stops. */
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "sh -c 'ulimit -f 32 && exec %s --ops 5000000 --out %s/w3' 2>&1", ARMPROF_RUN,
             TEST_OUT);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char buf[4096];
    size_t n = fread(buf, 1, sizeof(buf) - 1, p);
    buf[n] = 0;
    int st = pclose(p);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 1);
    assert_non_null(strstr(buf, "armprof-run: error writing " TEST_OUT "/w3/spe.bin: File too large"));
    assert_int_equal(file_size(TEST_OUT "/w3/summary.json", &sz), -1);
    /* The SPE dump fits, the TRBE one does not. */
    snprintf(cmd, sizeof(cmd), "sh -c 'ulimit -f 32 && exec %s --ops 20000 --trbe --trbe-bytes 4000000 --out %s/w4' 2>&1",
             ARMPROF_RUN, TEST_OUT);
    p = popen(cmd, "r");
    assert_non_null(p);
    n = fread(buf, 1, sizeof(buf) - 1, p);
    buf[n] = 0;
    st = pclose(p);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 1);
    assert_non_null(strstr(buf, "armprof-run: error writing " TEST_OUT "/w4/trbe.bin: File too large"));
    assert_int_equal(file_size(TEST_OUT "/w4/summary.json", &sz), -1);

    /* summary.json that cannot be replaced (a folder of that name). */
    assert_int_equal(system("mkdir -p " TEST_OUT "/w5/summary.json"), 0);
    assert_int_equal(run("--ops 100000 --out " TEST_OUT "/w5", &out), 1);
    assert_non_null(strstr(out, "armprof-run: cannot replace " TEST_OUT "/w5/summary.json: Is a directory"));
    free(out);
}

/* Starts armprof-run on a run far too long to finish, sends `sig` once its dump exists (so its
 * handler is in place) and a while later, and returns its wait status. */
static int run_and_signal(const char *dir, const char *extra, int sig)
{
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    char dump[512];
    snprintf(dump, sizeof(dump), "%s/spe.bin", dir);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout))
            _exit(126);
        char *argv[16] = { (char *)ARMPROF_RUN, (char *)"--ops", (char *)"4000000000000000000", (char *)"--json",
                           (char *)"--out", (char *)dir };
        int k = 6;
        if (extra)
            argv[k++] = (char *)extra;
        argv[k] = NULL;
        execv(ARMPROF_RUN, argv);
        _exit(127);
    }
    struct timespec ts = { 0, 20 * 1000 * 1000 };
    off_t sz = 0;
    for (int i = 0; i < 1500 && file_size(dump, &sz) != 0; i++)
        nanosleep(&ts, NULL);
    ts.tv_nsec = 300 * 1000 * 1000; /* some buffers serviced and dumped */
    nanosleep(&ts, NULL);
    kill(pid, sig);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    return st;
}

static cJSON *read_json(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char b[1 << 16];
    size_t n = fread(b, 1, sizeof(b) - 1, f);
    fclose(f);
    b[n] = 0;
    cJSON *j = cJSON_Parse(b);
    assert_non_null(j);
    return j;
}

/*
 * SIGINT / SIGTERM end the run as a complete one ends: exit 130 / 143, summary.json marked
 * interrupted with the signal, its counts those of the dump, and the dump whole records
 * (armprof-decode, strict, exit 0). With --trbe the TRBE run that did not start is not in it.
 */
static void test_signals(void **state)
{
    (void)state;
    const struct { int sig; const char *extra; } cases[] = { { SIGINT, NULL }, { SIGTERM, NULL }, { SIGINT, "--trbe" } };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char dir[256];
        snprintf(dir, sizeof(dir), "%s/sig%zu", TEST_OUT, i);
        int st = run_and_signal(dir, cases[i].extra, cases[i].sig);
        if (!WIFEXITED(st))
            fail_msg("armprof-run ended by signal %d instead of exiting", WTERMSIG(st));
        assert_int_equal(WEXITSTATUS(st), 128 + cases[i].sig);
        char path[512];
        snprintf(path, sizeof(path), "%s/summary.json", dir);
        cJSON *j = read_json(path);
        assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "interrupted")));
        assert_int_equal(jnum(j, "signal"), cases[i].sig);
        assert_true(jnum(j, "population_ops") < 4e18);
        assert_true(jnum(j, "dumped_bytes") > 0);
        /* every record the unit made is in memory or counted as discarded */
        assert_int_equal(jnum(j, "filtrate"), jnum(j, "records_written") + jnum(j, "records_discarded"));
        assert_null(cJSON_GetObjectItemCaseSensitive(j, "trbu"));
        snprintf(path, sizeof(path), "%s/spe.bin", dir);
        off_t sz = 0;
        assert_int_equal(file_size(path, &sz), 0);
        assert_int_equal((double)sz, jnum(j, "dumped_bytes"));
        char cmd[1024];
        snprintf(cmd, sizeof(cmd), "%s --summary %s", ARMPROF_DECODE, path);
        char *out;
        FILE *p = popen(cmd, "r");
        assert_non_null(p);
        static char buf[1 << 16];
        size_t n = fread(buf, 1, sizeof(buf) - 1, p);
        buf[n] = 0;
        out = buf;
        int dst = pclose(p);
        assert_true(WIFEXITED(dst));
        if (WEXITSTATUS(dst) != 0)
            fail_msg("armprof-decode %s: exit %d: %s", path, WEXITSTATUS(dst), out);
        cJSON_Delete(j);
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
        cmocka_unit_test(test_output_errors),
        cmocka_unit_test(test_signals),
    };
    return cmocka_run_group_tests_name("armprof_run", tests, NULL, NULL);
}
