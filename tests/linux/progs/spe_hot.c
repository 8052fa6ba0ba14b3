/* SPDX-License-Identifier: Apache-2.0 */
/* spe_hot.c: guest program for the linux tests: one hot function of loads that miss L1, whose loop is not a divisor of the sampling interval. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Two loads a cache line apart per iteration over a 1 MiB array: every load misses a 64 KiB L1D.
 * The loop body is seven instructions. With PMSIRR_EL1.RND == 0 the SPU selects one operation in
 * INTERVAL x 256 + 1 (seed 001 §3.1.2 note: 1025 for perf's -c 1024); a body whose length divides
 * that (5 does) would put every sample on the same instruction. */
__attribute__((noinline)) long armprof_hot_loop(const long *a, size_t n, int reps)
{
    long s = 0, t = 0;
    for (int r = 0; r < reps; r++)
        for (size_t i = 0; i + 8 < n; i += 16) {
            s += a[i];
            t ^= a[i + 8];
        }
    return s + t;
}

int main(int argc, char **argv)
{
    size_t bytes = argc > 1 ? strtoul(argv[1], NULL, 0) : (1u << 20);
    int reps = argc > 2 ? atoi(argv[2]) : 40;
    long *a = aligned_alloc(4096, bytes);
    if (!a)
        return 1;
    size_t n = bytes / sizeof(long);
    for (size_t i = 0; i < n; i++)
        a[i] = (long)i;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long sum = armprof_hot_loop(a, n, reps);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    /* the hot function's own time, for bench-linux (without perf's start and end) */
    printf("sum %ld\nhot_loop_ns %lld\n", sum,
           (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec));
    return 0;
}
