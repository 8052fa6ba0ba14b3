// SPDX-License-Identifier: Apache-2.0
// test_vp_stream.c: armprof-vp streams its dumps (peak RSS of a run 100x longer stays within 1.5x) and a SIGINT / SIGTERM leaves decodable dumps and an interrupted summary.
//
// Usage: test_vp_stream ARMPROF_VP ARMPROF_DECODE WORKDIR
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

static const char *g_vp, *g_decode, *g_dir;

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = 0;
    fclose(f);
    return s;
}

static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

// The number after `key` found after `within` in the summary (cJSON_Print's layout), or -1.
static double json_number(const char *js, const char *within, const char *key)
{
    const char *p = within ? strstr(js, within) : js;
    if (!p || !(p = strstr(p, key)))
        return -1;
    p += strlen(key);
    while (*p == '"' || *p == ':' || *p == ' ' || *p == '\t')
        p++;
    return strtod(p, NULL);
}

// "interrupted": true / false in the summary; -1 when absent.
static int json_interrupted(const char *js)
{
    const char *p = strstr(js, "\"interrupted\"");
    if (!p)
        return -1;
    p += strlen("\"interrupted\"");
    while (*p == ':' || *p == ' ' || *p == '\t')
        p++;
    return strncmp(p, "true", 4) == 0 ? 1 : strncmp(p, "false", 5) == 0 ? 0 : -1;
}

static pid_t spawn(char *const argv[], int quiet_stdout)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (quiet_stdout) {
            int fd = open("/dev/null", O_WRONLY);
            dup2(fd, 1);
        }
        setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
        execv(argv[0], argv);
        _exit(127);
    }
    return pid;
}

// Runs argv to the end; returns the wait status, *maxrss_kb the child's peak RSS (ru_maxrss).
static int run(char *const argv[], long *maxrss_kb)
{
    pid_t pid = spawn(argv, 1);
    int status = 0;
    struct rusage ru;
    assert_int_equal(wait4(pid, &status, 0, &ru), pid);
    if (maxrss_kb)
        *maxrss_kb = ru.ru_maxrss;
    return status;
}

static int decode_ok(const char *bin)
{
    char *argv[] = {(char *)g_decode, "--quiet", (char *)bin, NULL};
    int st = run(argv, NULL);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

// The SPE and TRBE scenario both runs use; `scale` multiplies operations and trace bytes.
static void run_scaled(const char *name, unsigned scale, long *maxrss_kb, char *summary_path, size_t n)
{
    char yaml[512], out[512], ops[32], text[256];
    snprintf(yaml, sizeof yaml, "%s/%s.yaml", g_dir, name);
    snprintf(out, sizeof out, "%s/%s", g_dir, name);
    snprintf(text, sizeof text, "name: %s\ntrbe:\n  enabled: true\n  bytes: %llu\n", name,
             (unsigned long long)scale << 20);
    write_text(yaml, text);
    snprintf(ops, sizeof ops, "%llu", 20000000ull * scale);
    mkdir(out, 0777);
    // The dumps go to /dev/null: the run's memory is what is measured, not the disk.
    char spe[600], trbe[600];
    snprintf(spe, sizeof spe, "%s/spe.bin", out);
    snprintf(trbe, sizeof trbe, "%s/trbe.bin", out);
    if (scale > 1) {
        unlink(spe);
        unlink(trbe);
        assert_int_equal(symlink("/dev/null", spe), 0);
        assert_int_equal(symlink("/dev/null", trbe), 0);
    }
    char *argv[] = {(char *)g_vp, yaml, "--quiet", "--out", out, "--ops", ops, NULL};
    int st = run(argv, maxrss_kb);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    snprintf(summary_path, n, "%s/summary.json", out);
}

// Issue 13: the dumps stream to their files as the drivers consume the buffers, so a run with
// 100x the operations (and trace bytes) needs no more memory than the short one: peak RSS
// within 1.5x.
static void test_rss_independent_of_output(void **state)
{
    (void)state;
    char s1[600], s100[600];
    long rss1 = 0, rss100 = 0;
    run_scaled("stream_x1", 1, &rss1, s1, sizeof s1);
    run_scaled("stream_x100", 100, &rss100, s100, sizeof s100);
    char *j1 = read_text(s1), *j100 = read_text(s100);
    assert_non_null(j1);
    assert_non_null(j100);
    double spe1 = json_number(j1, "\"pe0.spu\"", "\"bytes_dumped\"");
    double spe100 = json_number(j100, "\"pe0.spu\"", "\"bytes_dumped\"");
    double trbe1 = json_number(j1, "\"pe0.trbu\"", "\"bytes_dumped\"");
    double trbe100 = json_number(j100, "\"pe0.trbu\"", "\"bytes_dumped\"");
    print_message("peak RSS: x1 %ld KiB (SPE %.0f B, TRBE %.0f B dumped), x100 %ld KiB (SPE %.0f B, TRBE %.0f B): "
                  "%.2fx\n", rss1, spe1, trbe1, rss100, spe100, trbe100, (double)rss100 / (double)rss1);
    // The long run did produce ~100x the output ...
    assert_true(spe1 > 0 && trbe1 > 0);
    assert_true(spe100 >= 90 * spe1);
    assert_true(trbe100 >= 90 * trbe1);
    // ... without the memory to hold it (73 MB of SPE records + 100 MiB of trace at x100).
    assert_true((double)rss100 <= 1.5 * (double)rss1);
    // The short run's files are what the summary says was dumped, and decode.
    char bin[700];
    snprintf(bin, sizeof bin, "%s/stream_x1/spe.bin", g_dir);
    assert_int_equal(file_size(bin), (long long)spe1);
    assert_true(decode_ok(bin));
    snprintf(bin, sizeof bin, "%s/stream_x1/trbe.bin", g_dir);
    assert_int_equal(file_size(bin), (long long)trbe1);
    assert_int_equal(json_interrupted(j1), 0);
    free(j1);
    free(j100);
}

// A run far too long to finish, stopped by `sig` once its first buffer is in the dump: it ends
// with status 128 + sig, a summary marked interrupted whose bytes_dumped are the files' sizes,
// and an SPE dump armprof-decode reads without error.
static void interrupt_run(int sig, const char *name)
{
    char yaml[512], out[512], text[256];
    snprintf(yaml, sizeof yaml, "%s/%s.yaml", g_dir, name);
    snprintf(out, sizeof out, "%s/%s", g_dir, name);
    snprintf(text, sizeof text, "name: %s\nops: 1000000000000\nspe:\n  interval: 256\ntrbe:\n  enabled: true\n"
             "  bytes: 1000000000000\n", name);
    write_text(yaml, text);
    char spe[600], trbe[600], summary[600];
    snprintf(spe, sizeof spe, "%s/spe.bin", out);
    snprintf(trbe, sizeof trbe, "%s/trbe.bin", out);
    snprintf(summary, sizeof summary, "%s/summary.json", out);
    unlink(spe);
    unlink(trbe);
    unlink(summary);
    char *argv[] = {(char *)g_vp, yaml, "--quiet", "--out", out, NULL};
    pid_t pid = spawn(argv, 1);
    // Wait until both drivers have consumed buffers (the dumps grow), at most 60 s.
    struct timespec ts = {0, 20 * 1000 * 1000};
    int waited = 0;
    while ((file_size(spe) < 65536 || file_size(trbe) < 65536) && waited++ < 3000)
        nanosleep(&ts, NULL);
    assert_true(file_size(spe) >= 65536);
    assert_int_equal(kill(pid, sig), 0);
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 128 + sig);
    char *js = read_text(summary);
    assert_non_null(js);
    assert_int_equal(json_interrupted(js), 1);
    double spe_bytes = json_number(js, "\"pe0.spu\"", "\"bytes_dumped\"");
    double trbe_bytes = json_number(js, "\"pe0.trbu\"", "\"bytes_dumped\"");
    print_message("%s: signal %d after %lld B of SPE and %lld B of TRBE dump\n", name, sig, file_size(spe),
                  file_size(trbe));
    assert_int_equal(file_size(spe), (long long)spe_bytes);
    assert_int_equal(file_size(trbe), (long long)trbe_bytes);
    assert_true(decode_ok(spe));
    free(js);
}

static void test_sigint_leaves_decodable_dumps(void **state)
{
    (void)state;
    interrupt_run(SIGINT, "stream_sigint");
}

static void test_sigterm_leaves_decodable_dumps(void **state)
{
    (void)state;
    interrupt_run(SIGTERM, "stream_sigterm");
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s ARMPROF_VP ARMPROF_DECODE WORKDIR\n", argv[0]);
        return 2;
    }
    g_vp = argv[1];
    g_decode = argv[2];
    g_dir = argv[3];
    mkdir(g_dir, 0777);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rss_independent_of_output),
        cmocka_unit_test(test_sigint_leaves_decodable_dumps),
        cmocka_unit_test(test_sigterm_leaves_decodable_dumps),
    };
    return cmocka_run_group_tests_name("vp_stream", tests, NULL, NULL);
}
