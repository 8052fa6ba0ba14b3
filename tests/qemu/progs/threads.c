/* SPDX-License-Identifier: Apache-2.0 */
/* threads.c: AArch64 test program for armprof-qemu: two threads, each walking its own array. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

__attribute__((noinline)) long armprof_thread_loop(const long *a, size_t n, int reps)
{
    long s = 0;
    for (int r = 0; r < reps; r++)
        for (size_t i = 0; i < n; i++)
            s += a[i];
    return s;
}

typedef struct job {
    long *a;
    size_t n;
    int reps;
    long sum;
    long tid;
} job;

static pthread_barrier_t start; /* both threads are alive together: two vCPUs at once */

static void *run(void *p)
{
    job *j = p;
    pthread_barrier_wait(&start);
    j->tid = syscall(SYS_gettid);
    j->sum = armprof_thread_loop(j->a, j->n, j->reps);
    return NULL;
}

int main(void)
{
    enum { N = 2048 };
    job jobs[2];
    pthread_t th[2];
    for (int t = 0; t < 2; t++) {
        jobs[t] = (job){ .a = calloc(N, sizeof(long)), .n = N, .reps = 100 + 50 * t };
        if (!jobs[t].a)
            return 1;
        for (size_t i = 0; i < N; i++)
            jobs[t].a[i] = (long)i;
    }
    pthread_barrier_init(&start, NULL, 2);
    for (int t = 0; t < 2; t++)
        if (pthread_create(&th[t], NULL, run, &jobs[t]))
            return 1;
    for (int t = 0; t < 2; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < 2; t++)
        printf("thread %ld array 0x%lx 0x%lx sum %ld\n", jobs[t].tid, (unsigned long)(uintptr_t)jobs[t].a,
               (unsigned long)(N * sizeof(long)), jobs[t].sum);
    return 0;
}
