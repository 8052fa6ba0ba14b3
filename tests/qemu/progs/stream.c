/* SPDX-License-Identifier: Apache-2.0 */
/* stream.c: AArch64 test program for armprof-qemu: a stream, independent loads one cache line apart, over an array (compare chase.c). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define LINE_LONGS 8 /* 64-byte stride: every load touches a new line */

/* `steps` loads walking the array a line at a time, round and round; no load's address depends
 * on another load. */
__attribute__((noinline)) long armprof_stream(const long *a, size_t n, long steps)
{
    long s = 0;
    size_t i = 0;
    for (long k = 0; k < steps; k++) {
        s += a[i];
        i += LINE_LONGS;
        if (i >= n)
            i = 0;
    }
    return s;
}

/* Emitted after armprof_stream (-fno-toplevel-reorder): its address ends the function. */
__attribute__((noinline)) void armprof_stream_end(void)
{
    __asm__ volatile("");
}

int main(int argc, char **argv)
{
    size_t bytes = argc > 1 ? strtoul(argv[1], NULL, 0) : (32u << 20);
    long steps = argc > 2 ? atol(argv[2]) : 4000000;
    size_t n = bytes / sizeof(long);
    long *a = aligned_alloc(4096, n * sizeof(long));
    if (!a || n < LINE_LONGS)
        return 1;
    for (size_t i = 0; i < n; i += LINE_LONGS)
        a[i] = (long)i;
    printf("array 0x%lx 0x%lx\n", (unsigned long)(uintptr_t)a, (unsigned long)(n * sizeof(long)));
    printf("loop 0x%lx 0x%lx\n", (unsigned long)(uintptr_t)armprof_stream, (unsigned long)(uintptr_t)armprof_stream_end);
    printf("sum %ld\n", armprof_stream(a, n, steps));
    return 0;
}
