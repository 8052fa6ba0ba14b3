/* SPDX-License-Identifier: Apache-2.0 */
/* chase.c: AArch64 test program for armprof-qemu: a pointer chase, one load that depends on the previous one, over a random cycle of cache lines (compare stream.c). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* One node per 64-byte line. */
typedef struct node {
    struct node *next;
    long pad[7];
} node;

/* `steps` loads, each address the value the previous load returned. */
__attribute__((noinline)) const node *armprof_chase(const node *p, long steps)
{
    for (long i = 0; i < steps; i++)
        p = p->next;
    return p;
}

/* Emitted after armprof_chase (-fno-toplevel-reorder): its address ends the function. */
__attribute__((noinline)) void armprof_chase_end(void)
{
    __asm__ volatile("");
}

int main(int argc, char **argv)
{
    size_t bytes = argc > 1 ? strtoul(argv[1], NULL, 0) : (32u << 20);
    long steps = argc > 2 ? atol(argv[2]) : 4000000;
    size_t n = bytes / sizeof(node);
    node *a = aligned_alloc(4096, n * sizeof(node));
    size_t *perm = malloc(n * sizeof(size_t));
    if (!a || !perm || n < 2)
        return 1;
    /* Sattolo's shuffle: one cycle through every node, in a random order */
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    uint64_t x = 88172645463325252ull;
    for (size_t i = n - 1; i > 0; i--) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        size_t j = (size_t)(x % i);
        size_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (size_t i = 0; i < n; i++)
        a[perm[i]].next = &a[perm[(i + 1) % n]];
    free(perm);
    printf("array 0x%lx 0x%lx\n", (unsigned long)(uintptr_t)a, (unsigned long)(n * sizeof(node)));
    printf("loop 0x%lx 0x%lx\n", (unsigned long)(uintptr_t)armprof_chase, (unsigned long)(uintptr_t)armprof_chase_end);
    printf("end %p\n", (const void *)armprof_chase(&a[0], steps));
    return 0;
}
