/* SPDX-License-Identifier: Apache-2.0 */
/* bench_stream.c: armprof-vp's peak RSS against the amount of output, and the RTL sampler's quiet-cycle steps against per-cycle clocking, in alternating rounds. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/bench_util.h"

#define ROUNDS 5

static char g_vp[PATH_MAX], g_dir[PATH_MAX];

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct run_result {
    bool ok;
    long maxrss_kb;
    double cpu_s;
} run_result;

/* Runs armprof-vp with `args` (NULL-terminated) and ENV (NAME=VALUE or NULL); its peak RSS and
 * CPU time (user + system) come from wait4(). */
static run_result run_vp(const char *env, const char *const *args)
{
    run_result r = { 0 };
    const char *argv[16];
    int n = 0;
    argv[n++] = g_vp;
    for (int i = 0; args[i] && n < 15; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid < 0)
        return r;
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        dup2(fd, 1);
        dup2(fd, 2);
        setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
        if (env)
            putenv((char *)env);
        execv(g_vp, (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) != pid)
        return r;
    r.ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
    r.maxrss_kb = ru.ru_maxrss;
    r.cpu_s = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
              1e-6 * (double)ru.ru_stime.tv_usec;
    return r;
}


static void path(char *buf, size_t n, const char *a, const char *b) { snprintf(buf, n, "%s/%s", a, b); }

static void print_mmm(const char *what, double *v, double target, bool at_most)
{
    qsort(v, ROUNDS, sizeof(double), cmp_double);
    double med = v[ROUNDS / 2];
    bool ok = at_most ? med <= target : med >= target;
    printf("%-58s %6.2f / %6.2f / %6.2f x   target %s %.1fx %s\n", what, v[0], med, v[ROUNDS - 1], at_most ? "<=" : ">=",
           target, ok ? "" : "BELOW");
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        fprintf(stderr, "usage: bench-stream   (no options, not '%s'; armprof-vp is taken from the same directory)\n",
                argv[1]);
        return 2;
    }
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return 1;
    self[len] = 0;
    snprintf(g_vp, sizeof g_vp, "%s/armprof-vp", dirname(self));
    if (access(g_vp, X_OK) != 0) {
        printf("bench-stream: no %s, skipped\n", g_vp);
        return 0;
    }
    snprintf(g_dir, sizeof g_dir, "/tmp/bench-stream.XXXXXX");
    if (!mkdtemp(g_dir)) {
        fprintf(stderr, "bench-stream: mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    int status = 0;
    char o1[PATH_MAX + 8], o100[PATH_MAX + 8], f[2 * PATH_MAX];
    path(o1, sizeof o1, g_dir, "x1");
    path(o100, sizeof o100, g_dir, "x100");
    mkdir(o1, 0777);
    mkdir(o100, 0777);
    /* The long run's dump goes to /dev/null: its memory is measured, not the disk. */
    path(f, sizeof f, o100, "spe.bin");
    if (symlink("/dev/null", f) != 0)
        return 1;

    /* 1. Peak RSS of the default scenario and of one with 100x its operations (and output). */
    double rss[ROUNDS];
    long rss1 = 0, rss100 = 0;
    const char *a1[] = { "--quiet", "--out", o1, "--ops", "20000000", NULL };
    const char *a100[] = { "--quiet", "--out", o100, "--ops", "2000000000", NULL };
    for (int r = 0; r < ROUNDS; r++) {
        run_result x1 = { 0 }, x100 = { 0 };
        if (r % 2 == 0)
            x1 = run_vp(NULL, a1);
        x100 = run_vp(NULL, a100);
        if (r % 2 == 1)
            x1 = run_vp(NULL, a1);
        if (!x1.ok || !x100.ok) {
            printf("bench-stream: armprof-vp failed\n");
            status = 1;
            break;
        }
        rss[r] = (double)x100.maxrss_kb / (double)x1.maxrss_kb;
        rss1 = x1.maxrss_kb;
        rss100 = x100.maxrss_kb;
    }
    if (!status) {
        printf("peak RSS (KiB): default scenario %ld, with --ops x100 %ld (last round)\n", rss1, rss100);
        print_mmm("peak RSS, x100 operations / default, min / median / max", rss, 1.5, true);
        qsort(rss, ROUNDS, sizeof(double), cmp_double);
        if (rss[ROUNDS / 2] > 1.5)
            status = 1;
    }

    /* 2. The RTL sampler on examples/rtl_sampler.yaml (x10 operations, so that process start-up
     * does not weigh): quiet cycles in steps against every cycle clocked by an sc_clock (the
     * clocking before the steps, ARMPROF_RTL_EVERY_CYCLE=1), CPU time per round. */
    char yaml[PATH_MAX + 32], oa[PATH_MAX + 8], ob[PATH_MAX + 8], fa[2 * PATH_MAX], fb[2 * PATH_MAX];
    path(yaml, sizeof yaml, ARMPROF_SOURCE_DIR, "examples/rtl_sampler.yaml");
    path(oa, sizeof oa, g_dir, "every");
    path(ob, sizeof ob, g_dir, "steps");
    const char *aa[] = { yaml, "--quiet", "--out", oa, "--ops", "4000000", NULL };
    const char *ab[] = { yaml, "--quiet", "--out", ob, "--ops", "4000000", NULL };
    double sp[ROUNDS], ta = 0, tb = 0;
    bool rtl_ok = true;
    for (int r = 0; r < ROUNDS && rtl_ok; r++) {
        run_result ea = { 0 }, eb = { 0 };
        if (r % 2 == 0)
            ea = run_vp("ARMPROF_RTL_EVERY_CYCLE=1", aa);
        eb = run_vp(NULL, ab);
        if (r % 2 == 1)
            ea = run_vp("ARMPROF_RTL_EVERY_CYCLE=1", aa);
        if (!ea.ok || !eb.ok) {
            printf("bench-stream: the RTL sampler runs failed (no SystemC RTL in this build?): skipped\n");
            rtl_ok = false;
            break;
        }
        sp[r] = ea.cpu_s / eb.cpu_s;
        ta = ea.cpu_s;
        tb = eb.cpu_s;
    }
    if (rtl_ok) {
        path(fa, sizeof fa, oa, "spe.bin");
        path(fb, sizeof fb, ob, "spe.bin");
        bool same = bench_same_file(fa, fb);
        printf("rtl sampler, examples/rtl_sampler.yaml --ops 4000000: %.3f s CPU clocked every cycle, %.3f s "
               "with quiet cycles in steps (last round); spe.bin %s\n",
               ta, tb, same ? "identical" : "DIFFERS");
        print_mmm("rtl sampler speed-up (every cycle / steps), min / median / max", sp, 5.0, false);
        if (!same)
            status = 1;
    }
    printf("%d alternating rounds each; ratios per round\n", ROUNDS);

    /* Clean up the outputs. */
    const char *dirs[] = { o1, o100, oa, ob };
    const char *files[] = { "spe.bin", "summary.json" };
    for (size_t d = 0; d < 4; d++) {
        for (size_t i = 0; i < 2; i++) {
            path(f, sizeof f, dirs[d], files[i]);
            unlink(f);
        }
        rmdir(dirs[d]);
    }
    rmdir(g_dir);
    return status;
}
