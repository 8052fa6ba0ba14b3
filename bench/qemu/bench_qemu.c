/* SPDX-License-Identifier: Apache-2.0 */
/* bench_qemu.c: bench-qemu, the CPU time of a program under armprof-qemu against the same program under bare instruction-counting plugins, in alternating rounds. */
/*
 * Per workload and round, three runs in rotating order, each timed by the CPU time (user + sys)
 * wait4() reports for the qemu-aarch64 child:
 *   A  armprof-qemu (SPU, PMU, cache/TLB/branch model, perf.data written at exit)
 *   B  libarmprof-qemu-count.so mode=cb: a callback before every instruction (the shape of
 *      QEMU's own tests/plugin/insn.c): the yardstick of the 2x target
 *   C  libarmprof-qemu-count.so mode=tb: one inline add per block, the cheapest counter there is
 * and prints A/B and A/C as min / median / max over the rounds.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static double run(char *const argv[])
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ)) {
        fprintf(stderr, "bench-qemu: cannot run %s\n", argv[0]);
        exit(1);
    }
    posix_spawn_file_actions_destroy(&fa);
    int st;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
        fprintf(stderr, "bench-qemu: %s %s failed\n", argv[0], argv[2]);
        exit(1);
    }
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
           1e-6 * (double)ru.ru_stime.tv_usec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void stats(const char *what, double *r, int n)
{
    qsort(r, (size_t)n, sizeof *r, cmp);
    printf("  %-44s min %.2f  median %.2f  max %.2f\n", what, r[0], r[n / 2], r[n - 1]);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    if (rounds < 1 || rounds > 100) {
        fprintf(stderr, "bench-qemu: rounds must be 1..100\n");
        return 2;
    }
    mkdir(BENCH_OUT, 0777);
    static const struct {
        const char *name, *prog, *a1, *a2;
    } wl[] = {
        { "hot loop, 64 KiB array, 154 M instructions", "hot", "65536", "30000" },
        { "branchy, BLR/RET, 190 M instructions", "branchy", "20000000", NULL },
    };
    char pa[4096], pb[4096], pc[4096], prog[4096];
    snprintf(pa, sizeof pa, "%s,out=%s,stats=off", PLUGIN, BENCH_OUT);
    snprintf(pb, sizeof pb, "%s,mode=cb,out=%s/count", COUNT_PLUGIN, BENCH_OUT);
    snprintf(pc, sizeof pc, "%s,mode=tb,out=%s/count", COUNT_PLUGIN, BENCH_OUT);
    printf("armprof-qemu (A) against bare instruction-counting plugins: per-instruction callback (B), "
           "inline add per block (C); CPU seconds of qemu-aarch64, %d alternating rounds\n", rounds);
    for (size_t w = 0; w < sizeof wl / sizeof wl[0]; w++) {
        snprintf(prog, sizeof prog, "%s/%s", PROGS, wl[w].prog);
        char *args[3][8] = {
            { QEMU, "-plugin", pa, prog, (char *)wl[w].a1, (char *)wl[w].a2, NULL },
            { QEMU, "-plugin", pb, prog, (char *)wl[w].a1, (char *)wl[w].a2, NULL },
            { QEMU, "-plugin", pc, prog, (char *)wl[w].a1, (char *)wl[w].a2, NULL },
        };
        double t[3][100], ab[100], ac[100];
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < 3; k++) {
                int which = (k + r) % 3;   /* rotate the order: A B C, B C A, C A B, ... */
                t[which][r] = run(args[which]);
            }
            ab[r] = t[0][r] / t[1][r];
            ac[r] = t[0][r] / t[2][r];
        }
        printf("%s\n", wl[w].name);
        stats("A armprof-qemu (s)", t[0], rounds);
        stats("B per-instruction callback counter (s)", t[1], rounds);
        stats("C inline per-block counter (s)", t[2], rounds);
        stats("A/B (target <= 2)", ab, rounds);
        stats("A/C", ac, rounds);
    }
    return 0;
}
