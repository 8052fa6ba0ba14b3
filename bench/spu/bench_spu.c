/* SPDX-License-Identifier: Apache-2.0 */
/* bench_spu.c: SPU speed side by side with a memcpy yardstick: skip path, sampled records into flat memory. */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "armprof/spu.h"

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
    memset(&op, 0, sizeof(op));
    op.pc = 0xffff800000001000ull;
    op.op_class = SPE_CLASS_LDST;
    op.flags = SPU_OP_HAS_VA | SPU_OP_HAS_PA | SPU_OP_HAS_XLAT;
    op.data_va = 0x1000;
    op.data_pa = 0x2000;
    op.total_lat = 8;
    op.issue_lat = 2;
    op.events = 0x16;

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

    /* 2. Sampled records into flat memory: every operation sampled at the minimum interval is
     * not possible (256), so drive records: skip to each sample point and retire it. */
    s = open_unit(256);
    uint64_t recs = 0;
    spu_stats st0, st1;
    spu_get_stats(s, &st0);
    t0 = now_s();
    for (uint64_t batch = 0; more(t0, batch); batch++) {
        for (int i = 0; i < 1000; i++) {
            spu_skip(s, UINT64_MAX);
            spu_retire(s, &op);
            spu_advance(s, 1);
            recs++;
        }
        spu_psb_csync(s);
        spu_reg_write(s, SPU_PMBPTR_EL1, 0x100000000ull);
        spu_reg_write(s, SPU_PMBSR_EL1, 0);
    }
    double t_rec = now_s() - t0;
    spu_get_stats(s, &st1);
    uint64_t bytes = st1.bytes_written - st0.bytes_written;
    uint64_t written = st1.records_written - st0.records_written;
    spu_close(s);
    uint64_t hash = 0xcbf29ce484222325ull;
    if (fixed_batches)
        for (uint64_t i = 0; i < bytes && i < (64u << 10); i++) /* each batch rewrites from the base */
            hash = (hash ^ mem[i]) * 0x100000001b3ull;

    /* 3. Yardstick: memcpy of the same bytes in record-sized pieces into the same memory. */
    uint8_t rec[64];
    memset(rec, 0xA5, sizeof(rec));
    size_t reclen = written ? (size_t)(bytes / written) : 40;
    uint64_t off = 0, copied = 0;
    t0 = now_s();
    while (copied < bytes) {
        memcpy(mem + off, rec, reclen);
        off = (off + reclen) & (BUF / 2 - 1);
        copied += reclen;
    }
    double t_cpy = now_s() - t0;
    __asm__ volatile("" : : "r"(mem) : "memory");

    double pop_rate = (double)pop / t_skip, rec_rate = (double)written / t_rec;
    double cpy_rate = (double)copied / t_cpy / (double)reclen;
    printf("SPU skip path:        %8.1f M population ops/s (%llu samples; target >= 1000 M/s)\n",
           pop_rate / 1e6, (unsigned long long)samples);
    printf("SPU sampled records:  %8.2f M records/s, %.0f MB/s into flat memory (target >= 10 M/s)\n",
           rec_rate / 1e6, (double)bytes / t_rec / 1e6);
    printf("memcpy yardstick:     %8.2f M records/s of %zu bytes, %.0f MB/s\n", cpy_rate / 1e6, reclen,
           (double)copied / t_cpy / 1e6);
    printf("ratio records/memcpy: %8.3f\n", rec_rate / cpy_rate);
    if (fixed_batches)
        printf("fixed run: %llu records, %llu bytes, buffer FNV-1a %016llx\n", (unsigned long long)written,
               (unsigned long long)bytes, (unsigned long long)hash);
    free(mem);
    return 0;
}
