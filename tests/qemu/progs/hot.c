/* SPDX-License-Identifier: Apache-2.0 */
/* hot.c: AArch64 test program for armprof-qemu: one hot function that walks an array a cache line at a time. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define LINE_LONGS 8 /* 64-byte stride: every access touches a new cache line */

__attribute__((noinline)) long armprof_hot_loop(const long *a, size_t n, int reps)
{
    long s = 0;
    for (int r = 0; r < reps; r++)
        for (size_t i = 0; i < n; i += LINE_LONGS)
            s += a[i];
    return s;
}

/* Emitted after armprof_hot_loop (-fno-toplevel-reorder): its address ends the hot function. */
__attribute__((noinline)) void armprof_hot_loop_end(void)
{
    __asm__ volatile("");
}

int main(int argc, char **argv)
{
    size_t bytes = argc > 1 ? strtoul(argv[1], NULL, 0) : 16384;
    int reps = argc > 2 ? atoi(argv[2]) : 100;
    long *a = aligned_alloc(4096, bytes);
    if (!a)
        return 1;
    size_t n = bytes / sizeof(long);
    for (size_t i = 0; i < n; i++)
        a[i] = (long)i;
    printf("array 0x%lx 0x%lx\n", (unsigned long)(uintptr_t)a, (unsigned long)bytes);
    printf("hot 0x%lx 0x%lx\n", (unsigned long)(uintptr_t)armprof_hot_loop,
           (unsigned long)(uintptr_t)armprof_hot_loop_end);
    printf("sum %ld\n", armprof_hot_loop(a, n, reps));
    return 0;
}
