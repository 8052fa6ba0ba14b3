/* SPDX-License-Identifier: Apache-2.0 */
/* branchy.c: AArch64 test program for armprof-qemu: data-dependent conditional branches, indirect calls and returns. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long armprof_leaf(long x)
{
    return x * 3 + 1;
}

static long (*volatile leaf_ptr)(long) = armprof_leaf;

__attribute__((noinline)) long armprof_branchy(unsigned n)
{
    uint32_t x = 12345;
    long s = 0;
    for (unsigned i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;      /* a random bit decides the branch */
        if ((x >> 16) & 1)
            s += leaf_ptr((long)i);        /* BLR, then RET */
        else
            s -= (long)i;
    }
    return s;
}

__attribute__((noinline)) void armprof_branchy_end(void)
{
    __asm__ volatile("");
}

int main(int argc, char **argv)
{
    unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 200000;
    printf("leaf 0x%lx 0x%lx\n", (unsigned long)(uintptr_t)armprof_leaf, (unsigned long)(uintptr_t)armprof_branchy);
    printf("branchy 0x%lx 0x%lx\n", (unsigned long)(uintptr_t)armprof_branchy,
           (unsigned long)(uintptr_t)armprof_branchy_end);
    printf("sum %ld\n", armprof_branchy(n));
    return 0;
}
