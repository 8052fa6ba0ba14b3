/* SPDX-License-Identifier: Apache-2.0 */
/* straight.c: AArch64 test program for armprof-qemu: a 600-instruction straight run, longer than some intervals, in a loop. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void armprof_straight(int n)
{
    for (int i = 0; i < n; i++)
        __asm__ volatile(".rept 600\n\tnop\n\t.endr" ::: "memory");
}

int main(int argc, char **argv)
{
    armprof_straight(argc > 1 ? atoi(argv[1]) : 1000);
    printf("done\n");
    return 0;
}
