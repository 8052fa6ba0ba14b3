/* SPDX-License-Identifier: Apache-2.0 */
/* bench_trbu.c: trace bytes per second through the TRBU into a flat memory, beside memcpy of the same bytes. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "armprof/trbu.h"

#define BUF_BASE 0x80000000ull
#define BUF_SIZE (4u << 20)          /* 4 MiB trace buffer, Circular mode: never stops */
#define TOTAL (512ull << 20)         /* bytes per measurement */

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
    static const struct { size_t piece; unsigned align; } cases[] = {
        { 4096, 6 }, { 256, 6 }, { 100, 6 }, { 4096, 0 }, { 64, 11 },
    };
    int status = 0;
    printf("%-28s %12s %12s %7s\n", "case (piece B, Align)", "trbu MB/s", "memcpy MB/s", "ratio");
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint64_t wraps = 0;
        double tm = run_memcpy(ring, src, cases[i].piece);
        double tt = run_trbu(&f, src, cases[i].piece, cases[i].align, &wraps);
        double mt = (double)TOTAL / tt / 1e6, mm = (double)TOTAL / tm / 1e6;
        char name[64];
        snprintf(name, sizeof(name), "piece %zu, Align %u", cases[i].piece, cases[i].align);
        printf("%-28s %12.0f %12.0f %7.2f   (%llu wraps)\n", name, mt, mm, mt / mm,
               (unsigned long long)wraps);
        if (i == 0 && mt < 0.5 * mm) {
            printf("bench-trbu: below the target of half of memcpy\n");
            status = 1;
        }
    }
    free(f.mem);
    free(src);
    free(ring);
    return status;
}
