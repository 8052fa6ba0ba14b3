/* SPDX-License-Identifier: Apache-2.0 */
/* bench_explore.c: bench-explore: sweep points per second of armprof-explore on 1 and on 2 workers, in one run. */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include "explore.h"

/* 48 points of the worked example's kind (FIFO depth x drain, 24 operations per cycle). */
static const char *sweep_text =
    "name: bench\n"
    "ops: 12000000\n"
    "ops_per_cycle: 24\n"
    "interval: 256\n"
    "inflight: 4\n"
    "buffer_bytes: 256K\n"
    "irq_latency: 4000\n"
    "workload:\n"
    "  mix: compute\n"
    "sweep:\n"
    "  drain: [1, 2, 3, 4, 6, 8]\n"
    "  fifo_bytes: [64, 128, 256, 512, 1024, 2048, 4096, 8192]\n";

/* 64 platform points (buffer size x interrupt latency), each one armprof-vp run: 32 per worker
 * on 2 workers, so that a worker's one-time start of its fork server (about one spawned run)
 * weighs on its points as in a sweep of real size (with 16 points, 8 per worker, it was about a
 * fifth of a worker's time and the 2-worker ratio fell to ~1.7x). */
static const char *platform_text =
    "name: bench-platform\n"
    "ops: 1000000\n"
    "interval: 256\n"
    "sweep:\n"
    "  buffer_bytes: [4K, 8K, 16K, 64K]\n"
    "  irq_latency: [1000, 1500, 2000, 2500, 3000, 3500, 4000, 4500, 5000, 5500, 6000, 6500, 7000, 7500, 8000, 8500]\n";

static void cleanup(const char *dir)
{
    static const char *const files[] = { "points.jsonl", "results.csv", "results.json", "recommendation.txt" };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char p[256];
        snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
        remove(p);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* CPU seconds of this process and every descendant waited for (the servers reap their children,
 * and the servers are reaped when their worker ends). */
static double cpu_s(void)
{
    struct rusage a, b;
    getrusage(RUSAGE_SELF, &a);
    getrusage(RUSAGE_CHILDREN, &b);
    return (double)(a.ru_utime.tv_sec + a.ru_stime.tv_sec + b.ru_utime.tv_sec + b.ru_stime.tv_sec) +
           1e-6 * (double)(a.ru_utime.tv_usec + a.ru_stime.tv_usec + b.ru_utime.tv_usec + b.ru_stime.tv_usec);
}

/* Points per second of one platform sweep on `jobs` workers (and host CPU seconds per point);
 * fork: through armprof-vp --serve. */
static int platform_round(const ex_sweep *sw, const char *dir, const char *vp, unsigned jobs, bool fork, double *rate,
                          double *cpu)
{
    char err[1024];
    double c0 = cpu_s();
    ex_platform_fork_server(fork);
    ex_run_opts ro = { .outdir = dir, .jobs = jobs, .fresh = true, .plots = false, .vp_path = vp };
    ex_run_stats st;
    if (ex_sweep_run(sw, &ro, &st, err, sizeof(err))) {
        fprintf(stderr, "bench-explore: %s\n", err);
        return 1;
    }
    *rate = (double)st.ran / st.wall_seconds;
    *cpu = (cpu_s() - c0) / (double)st.ran;
    return 0;
}

/* The platform model: points per second with a fork server (armprof-vp loaded once per worker, a
 * child forked per point before elaboration) against one armprof-vp process spawned per point
 * (the way before it), in alternating rounds on the same sweep; the ratio per round pair, with
 * min / median / max beside the target. Skipped without armprof-vp. */
static int bench_platform(const char *dir, double c_rate1)
{
    const char *vp = ex_default_vp_path();
    if (!vp) {
        printf("armprof-explore platform model: no armprof-vp next to bench-explore, skipped\n");
        return 0;
    }
    static ex_sweep sw;
    char err[1024];
    if (ex_sweep_load_string("bench-platform.yaml", platform_text, &sw, err, sizeof(err)) ||
        ex_sweep_set_model(&sw, EX_MODEL_PLATFORM, err, sizeof(err))) {
        fprintf(stderr, "bench-explore: %s\n", err);
        return 1;
    }
    enum { ROUNDS = 9 };
    printf("armprof-explore sweep throughput (platform model, %zu points of 1 M operations; fork server vs a "
           "process spawned per point, %d alternating rounds)\n", sw.npoints, ROUNDS);
    for (unsigned jobs = 1; jobs <= 2; jobs++) {
        double ratio[ROUNDS], fk[ROUNDS], sp[ROUNDS], cfk[ROUNDS], csp[ROUNDS], cratio[ROUNDS];
        double warm, wc;
        if (platform_round(&sw, dir, vp, jobs, true, &warm, &wc)) /* warm the page cache */
            return 1;
        for (int r = 0; r < ROUNDS; r++) {
            /* A B, then B A: neither side always runs first. */
            bool fork_first = (r & 1) == 0;
            if (platform_round(&sw, dir, vp, jobs, fork_first, fork_first ? &fk[r] : &sp[r],
                               fork_first ? &cfk[r] : &csp[r]) ||
                platform_round(&sw, dir, vp, jobs, !fork_first, fork_first ? &sp[r] : &fk[r],
                               fork_first ? &csp[r] : &cfk[r]))
                return 1;
            ratio[r] = fk[r] / sp[r];
            cratio[r] = csp[r] / cfk[r];
        }
        qsort(ratio, ROUNDS, sizeof(double), cmp_double);
        qsort(cratio, ROUNDS, sizeof(double), cmp_double);
        qsort(cfk, ROUNDS, sizeof(double), cmp_double);
        qsort(csp, ROUNDS, sizeof(double), cmp_double);
        qsort(fk, ROUNDS, sizeof(double), cmp_double);
        qsort(sp, ROUNDS, sizeof(double), cmp_double);
        printf("  %u worker%s  fork server %6.1f points/s, spawned %6.1f points/s (medians)\n", jobs,
               jobs > 1 ? "s" : " ", fk[ROUNDS / 2], sp[ROUNDS / 2]);
        printf("  %u worker%s  fork server / spawned: min %.2fx  median %.2fx  max %.2fx   (target >= 2x)\n", jobs,
               jobs > 1 ? "s" : " ", ratio[0], ratio[ROUNDS / 2], ratio[ROUNDS - 1]);
        printf("  %u worker%s  host CPU per point: fork server %.2f ms, spawned %.2f ms (medians); spawned / fork "
               "server: min %.2fx  median %.2fx  max %.2fx\n", jobs, jobs > 1 ? "s" : " ", 1e3 * cfk[ROUNDS / 2],
               1e3 * csp[ROUNDS / 2], cratio[0], cratio[ROUNDS / 2], cratio[ROUNDS - 1]);
        if (jobs == 1 && c_rate1 > 0)
            printf("  platform point (1 M ops, fork server) vs C-level point (12 M ops), 1 worker: %.2fx the "
                   "points/s\n", fk[ROUNDS / 2] / c_rate1);
    }
    ex_platform_fork_server(true);
    cleanup(dir);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        fprintf(stderr, "usage: bench-explore   (no options; unknown argument '%s')\n", argv[1]);
        return 2;
    }
    static ex_sweep sw;
    char err[1024];
    if (ex_sweep_load_string("bench.yaml", sweep_text, &sw, err, sizeof(err))) {
        fprintf(stderr, "bench-explore: %s\n", err);
        return 1;
    }
    char dir[] = "/tmp/bench-explore-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("bench-explore: mkdtemp");
        return 1;
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    printf("armprof-explore sweep throughput (C-level model, %zu points of %s operations, %ld cores here)\n",
           sw.npoints, "12 M", cores);
    double rate[3] = { 0 };
    int status = 0;
    for (unsigned jobs = 1; jobs <= 2; jobs++) {
        ex_run_opts ro = { .outdir = dir, .jobs = jobs, .fresh = true, .plots = false };
        ex_run_stats st;
        if (ex_sweep_run(&sw, &ro, &st, err, sizeof(err))) {
            fprintf(stderr, "bench-explore: %s\n", err);
            status = 1;
            break;
        }
        rate[jobs] = (double)st.ran / st.wall_seconds;
        printf("  %u worker%s  %6.1f points/s  (%zu points in %.2f s)\n", jobs, jobs > 1 ? "s" : " ", rate[jobs],
               st.ran, st.wall_seconds);
    }
    if (!status && rate[1] > 0)
        printf("  speed-up on 2 workers: %.2fx\n", rate[2] / rate[1]);
    cleanup(dir);
    if (!status)
        status = bench_platform(dir, rate[1]);
    rmdir(dir);
    return status;
}
