/* SPDX-License-Identifier: Apache-2.0 */
/* bench_spu.c: SPU speed side by side with a memcpy yardstick: skip path, sampled records into flat memory. */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "armprof/spu.h"
#define ARMPROF_BENCH_WANT_SPU_OP
#include "../common/bench_util.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define BUF (64u << 20)
static uint8_t *mem;

static armprof_mem_result flat(void *u, uint64_t a, const uint8_t *d, uint32_t n, const armprof_regime *rg)
{
    (void)u; (void)rg;
    memcpy(mem + (a & (BUF - 1)), d, n);
    return (armprof_mem_result){ .status = ARMPROF_MEM_OK };
}

static spu_t *open_unit(uint32_t interval)
{
    spu_config c;
    spu_config_default(&c);
    c.max_inflight = 16;
    c.fifo_bytes = 64 * 1024;
    c.drain_bytes_per_cycle = 64;
    armprof_host_ops ops = { .mem_write = flat };
    spu_t *s;
    if (spu_open(&c, &ops, &s) != ARMPROF_OK)
        exit(1);
    armprof_pe_ctx ctx;
    armprof_pe_ctx_default(&ctx);
    spu_set_pe_context(s, &ctx);
    spu_reg_write(s, SPU_PMSIRR_EL1, interval);
    spu_reg_write(s, SPU_PMBPTR_EL1, 0x100000000ull);
    spu_reg_write(s, SPU_PMBLIMITR_EL1, (0x100000000ull + BUF) | 1);
    spu_reg_write(s, SPU_PMSCR_EL1, (1u << 5) | 3);
    return s;
}

/* With `-n N` every phase runs exactly N batches of 1000 operations instead of about 0.5 s, so
 * that valgrind --tool=callgrind counts the same instructions every run; the FNV-1a hash of the
 * buffer bytes then also shows that a change left the records bit-identical. */
static uint64_t fixed_batches;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static bool more(double t0, uint64_t batch)
{
    return fixed_batches ? batch < fixed_batches : now_s() - t0 < 0.5;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "-n") == 0) {
        fixed_batches = strtoull(argv[2], NULL, 0);
    } else if (argc != 1) {
        fprintf(stderr, "usage: bench-spu [-n BATCHES]\n");
        return 2;
    }
    mem = calloc(1, BUF);
    spu_op op;
    bench_fixed_op(&op);

    /* 1. The skip path: population operations counted per second at interval 4096. */
    spu_t *s = open_unit(4096);
    uint64_t pop = 0, samples = 0;
    double t0 = now_s();
    for (uint64_t batch = 0; more(t0, batch); batch++) {
        for (int i = 0; i < 1000; i++) {
            pop += spu_skip(s, UINT64_MAX);
            spu_retire(s, &op);
            pop++;
            samples++;
            spu_advance(s, 16);
        }
        spu_reg_write(s, SPU_PMBPTR_EL1, 0x100000000ull);
        spu_reg_write(s, SPU_PMBSR_EL1, 0);
    }
    double t_skip = now_s() - t0;
    spu_close(s);

    /* 2. Sampled records into flat memory (every operation sampled at the minimum interval is
     * not possible (256), so drive records: skip to each sample point and retire it), in
     * alternating rounds with 3., the yardstick: memcpy of the same bytes in record-sized pieces
     * into the same memory. The ratio is taken per round; min / median / max over the rounds. */
    enum { ROUNDS = 7 };
    double ratios[ROUNDS], rec_rates[ROUNDS], cpy_rates[ROUNDS];
    int rounds = fixed_batches ? 1 : ROUNDS;
    uint64_t bytes = 0, written = 0, hash = 0xcbf29ce484222325ull;
    size_t reclen = 40;
    for (int r = 0; r < rounds; r++) {
        double t_rec = 0, t_cpy = 0;
        uint64_t copied = 0;
        for (int half = 0; half < 2; half++) {
            if ((half == 0) == (r % 2 == 0)) {
                s = open_unit(256);
                spu_stats st0, st1;
                spu_get_stats(s, &st0);
                t0 = now_s();
                for (uint64_t batch = 0; fixed_batches ? batch < fixed_batches : now_s() - t0 < 0.1; batch++) {
                    for (int i = 0; i < 1000; i++) {
                        spu_skip(s, UINT64_MAX);
                        spu_retire(s, &op);
                        spu_advance(s, 1);
                    }
                    spu_psb_csync(s);
                    spu_reg_write(s, SPU_PMBPTR_EL1, 0x100000000ull);
                    spu_reg_write(s, SPU_PMBSR_EL1, 0);
                }
                t_rec = now_s() - t0;
                spu_get_stats(s, &st1);
                bytes = st1.bytes_written - st0.bytes_written;
                written = st1.records_written - st0.records_written;
                spu_close(s);
                if (fixed_batches)
                    for (uint64_t i = 0; i < bytes && i < (64u << 10); i++) /* each batch rewrites from the base */
                        hash = (hash ^ mem[i]) * 0x100000001b3ull;
                if (written)
                    reclen = (size_t)(bytes / written);
            } else {
                /* The bytes of the latest records phase (round 0 runs the records first). */
                uint64_t target = bytes;
                uint8_t rec[64];
                memset(rec, 0xA5, sizeof(rec));
                uint64_t off = 0;
                copied = 0;
                t0 = now_s();
                while (copied < target) {
                    memcpy(mem + off, rec, reclen);
                    off = (off + reclen) & (BUF / 2 - 1);
                    copied += reclen;
                }
                t_cpy = now_s() - t0;
                __asm__ volatile("" : : "r"(mem) : "memory");
            }
        }
        rec_rates[r] = (double)written / t_rec;
        cpy_rates[r] = (double)copied / t_cpy / (double)reclen;
        ratios[r] = rec_rates[r] / cpy_rates[r];
    }
    qsort(ratios, (size_t)rounds, sizeof(double), cmp_double);
    qsort(rec_rates, (size_t)rounds, sizeof(double), cmp_double);
    qsort(cpy_rates, (size_t)rounds, sizeof(double), cmp_double);

    double pop_rate = (double)pop / t_skip;
    printf("SPU skip path:        %8.1f M population ops/s (%llu samples; target >= 1000 M/s)\n",
           pop_rate / 1e6, (unsigned long long)samples);
    printf("SPU sampled records:  %8.2f M records/s median of %d rounds, %.0f MB/s into flat memory (target >= 10 M/s)\n",
           rec_rates[rounds / 2] / 1e6, rounds, rec_rates[rounds / 2] * (double)reclen / 1e6);
    printf("memcpy yardstick:     %8.2f M records/s of %zu bytes median, in rounds alternating with the above\n",
           cpy_rates[rounds / 2] / 1e6, reclen);
    printf("ratio records/memcpy: %8.3f median (min %.3f, max %.3f; per round; no target: the one above is the rate)\n",
           ratios[rounds / 2], ratios[0], ratios[rounds - 1]);
    if (fixed_batches)
        printf("fixed run: %llu records, %llu bytes, buffer FNV-1a %016llx\n", (unsigned long long)written,
               (unsigned long long)bytes, (unsigned long long)hash);
    free(mem);
    return 0;
}
