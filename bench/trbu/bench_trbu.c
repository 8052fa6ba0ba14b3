/* SPDX-License-Identifier: Apache-2.0 */
/* bench_trbu.c: trace bytes per second through the TRBU into a flat memory, beside memcpy of the same bytes. */
#define _POSIX_C_SOURCE 199309L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "armprof/trbu.h"

#define BUF_BASE 0x80000000ull
#define BUF_SIZE (4u << 20)          /* 4 MiB trace buffer, Circular mode: never stops */
#define TOTAL (128ull << 20)         /* bytes per measurement */
#define ROUNDS 5                     /* alternating rounds per case */

typedef struct flat {
    uint8_t *mem;
} flat;

static armprof_mem_result flat_write(void *user, uint64_t addr, const uint8_t *data, uint32_t len,
                                     const armprof_regime *g)
{
    (void)g;
    flat *f = user;
    memcpy(f->mem + (addr - BUF_BASE), data, len);
    armprof_mem_result r = { .status = ARMPROF_MEM_OK, .written = len };
    return r;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The yardstick: the same bytes, in the same pieces, copied into a ring of the same size. */
static double run_memcpy(uint8_t *dst, const uint8_t *src, size_t piece)
{
    double t0 = now_s();
    size_t pos = 0;
    for (uint64_t done = 0; done < TOTAL; done += piece) {
        size_t len = TOTAL - done < piece ? (size_t)(TOTAL - done) : piece, n = len;
        while (n) {
            size_t k = BUF_SIZE - pos < n ? BUF_SIZE - pos : n;
            memcpy(dst + pos, src + (len - n), k);
            pos = (pos + k) % BUF_SIZE;
            n -= k;
        }
    }
    return now_s() - t0;
}

static double run_trbu(flat *f, const uint8_t *src, size_t piece, unsigned align, uint64_t *wraps)
{
    trbu_config cfg;
    trbu_config_default(&cfg);
    cfg.align = (uint8_t)align;
    armprof_host_ops ops = { .mem_write = flat_write, .user = f };
    trbu_t *t;
    if (trbu_open(&cfg, &ops, &t) != ARMPROF_OK)
        return -1;
    armprof_pe_ctx c;
    armprof_pe_ctx_default(&c);
    trbu_set_pe_context(t, &c);
    trbu_reg_write(t, TRBU_TRBBASER_EL1, BUF_BASE);
    trbu_reg_write(t, TRBU_TRBPTR_EL1, BUF_BASE);
    trbu_reg_write(t, TRBU_TRBLIMITR_EL1, (BUF_BASE + BUF_SIZE) | (TRBU_FM_CIRCULAR << 1) |
                                              (TRBU_TM_IGNORE << 3) | 1);
    double t0 = now_s();
    for (uint64_t done = 0; done < TOTAL; done += piece)
        trbu_trace_bytes(t, src, TOTAL - done < piece ? (size_t)(TOTAL - done) : piece);
    trbu_tsb_csync(t);
    double dt = now_s() - t0;
    trbu_stats st;
    trbu_get_stats(t, &st);
    *wraps = st.wraps;
    if (st.bytes_written != TOTAL || st.bytes_discarded)
        fprintf(stderr, "bench-trbu: written %llu of %llu\n", (unsigned long long)st.bytes_written,
                (unsigned long long)TOTAL);
    trbu_close(t);
    return dt;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        fprintf(stderr, "usage: bench-trbu   (no options; unknown argument '%s')\n", argv[1]);
        return 2;
    }
    flat f = { .mem = malloc(BUF_SIZE) };
    uint8_t *src = malloc(65536);
    uint8_t *ring = malloc(BUF_SIZE);
    if (!f.mem || !src || !ring)
        return 1;
    memset(f.mem, 0, BUF_SIZE);
    memset(ring, 0, BUF_SIZE);
    for (size_t i = 0; i < 65536; i++)
        src[i] = (uint8_t)(i * 131 + 7);
    /* Each piece size is a ratio against memcpy of the same bytes in the same pieces, measured
     * in alternating rounds (the order swapping every round), with its own target: half of
     * memcpy for page-sized pieces, lower floors where the per-call cost dominates. */
    static const struct { size_t piece; unsigned align; double target; } cases[] = {
        { 4096, 6, 0.5 }, { 1024, 6, 0.4 }, { 256, 6, 0.3 }, { 100, 6, 0.07 }, { 4096, 0, 0.5 }, { 64, 11, 0.15 },
    };
    int status = 0;
    printf("%-22s %10s %10s   %-20s %-8s\n", "case (piece B, Align)", "trbu MB/s", "memcpy MB/s", "ratio min/med/max",
           "target");
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint64_t wraps = 0;
        double ratio[ROUNDS], mt[ROUNDS], mm[ROUNDS];
        for (int r = 0; r < ROUNDS; r++) {
            double tm = 0, tt = 0;
            if (r % 2 == 0)
                tm = run_memcpy(ring, src, cases[i].piece);
            tt = run_trbu(&f, src, cases[i].piece, cases[i].align, &wraps);
            if (r % 2 == 1)
                tm = run_memcpy(ring, src, cases[i].piece);
            mt[r] = (double)TOTAL / tt / 1e6;
            mm[r] = (double)TOTAL / tm / 1e6;
            ratio[r] = mt[r] / mm[r];
        }
        qsort(ratio, ROUNDS, sizeof(double), cmp_double);
        qsort(mt, ROUNDS, sizeof(double), cmp_double);
        qsort(mm, ROUNDS, sizeof(double), cmp_double);
        char name[64], rs[64];
        snprintf(name, sizeof(name), "piece %zu, Align %u", cases[i].piece, cases[i].align);
        snprintf(rs, sizeof(rs), "%.2f/%.2f/%.2f", ratio[0], ratio[ROUNDS / 2], ratio[ROUNDS - 1]);
        bool ok = ratio[ROUNDS / 2] >= cases[i].target;
        printf("%-22s %10.0f %10.0f   %-20s >= %.2f %s (%llu wraps)\n", name, mt[ROUNDS / 2], mm[ROUNDS / 2], rs,
               cases[i].target, ok ? "" : "BELOW", (unsigned long long)wraps);
        if (!ok)
            status = 1;
    }
    printf("MB/s medians of %d alternating rounds of %llu MiB; ratio = trbu / memcpy per round, target at the median\n",
           ROUNDS, (unsigned long long)(TOTAL >> 20));
    free(f.mem);
    free(src);
    free(ring);
    return status;
}
