/* SPDX-License-Identifier: Apache-2.0 */
/* bench_decode.c: SPE decode throughput (parse only, and with JSON output) beside a read of the same file, in one run. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "armprof/spe.h"
#include "armprof/rng.h"
#include "spe_fmt.h"

#define FILE_MB 64
#define REPS 5

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Records shaped like the SPU model's: PC, CONTEXTIDR_EL1, op type, events, latencies, data
 * addresses for loads/stores, a branch target for branches, a timestamp. */
static size_t fill(uint8_t *buf, size_t cap, uint64_t *nrec)
{
    ap_prng64 g = { .state = 42 };
    spe_format_cfg cfg = { .max_size = 6, .align = 0, .count_size = 3 };
    size_t n = 0;
    uint64_t pc = 0xffff800010000000ull, ts = 1000;
    *nrec = 0;
    while (n + 128 < cap) {
        spe_record r;
        memset(&r, 0, sizeof r);
        unsigned cls = (unsigned)ap_prng64_below(&g, 10);
        r.present = SPE_R_PC | SPE_R_CONTEXT_EL1 | SPE_R_OPTYPE | SPE_R_TOTAL_LAT | SPE_R_ISSUE_LAT |
                    SPE_R_TIMESTAMP;
        r.pc = pc & 0x00FFFFFFFFFFFFFFull;
        r.pc_el = 1;
        r.pc_ns = true;
        r.context_el1 = 0x1234;
        r.events = 0x2;
        r.total_lat = (uint16_t)(4 + ap_prng64_below(&g, 40));
        r.issue_lat = (uint16_t)(1 + ap_prng64_below(&g, 10));
        r.timestamp = ts += 1000 + ap_prng64_below(&g, 100);
        if (cls < 4) {
            r.op_class = SPE_CLASS_LDST;
            r.op_subclass = (uint8_t)(cls & 1);
            r.present |= SPE_R_DATA_VA | SPE_R_DATA_PA | SPE_R_XLAT_LAT | SPE_R_DATA_SOURCE;
            r.data_va = 0xffff00004d000000ull + ap_prng64_below(&g, 1 << 20);
            r.data_pa = 0x80000000ull + ap_prng64_below(&g, 1 << 20);
            r.data_pa_ns = true;
            r.xlat_lat = 2;
            r.data_source = 0;
            r.events |= 0x14 | (ap_prng64_below(&g, 8) == 0 ? 0x8 : 0);
        } else if (cls < 6) {
            r.op_class = SPE_CLASS_BRANCH;
            r.op_subclass = SPE_BR_COND;
            r.present |= SPE_R_TARGET;
            r.target = (pc + 0x40) & 0x00FFFFFFFFFFFFFFull;
            r.target_el = 1;
            r.target_ns = true;
        }
        n += spe_encode(&r, &cfg, buf + n, cap - n);
        pc += 4 * (1 + ap_prng64_below(&g, 300));
        (*nrec)++;
    }
    return n;
}

static void report(const char *what, double secs, size_t bytes, uint64_t recs, double read_mbs)
{
    double mbs = (double)bytes / secs / 1e6;
    printf("  %-24s %9.1f MB/s  %8.2f M records/s  %5.2fx read\n", what, mbs,
           (double)recs / secs / 1e6, mbs / read_mbs);
}

int main(int argc, char **argv)
{
    /* `-m MB` sets the file size (a small one for valgrind --tool=callgrind). */
    size_t mb = FILE_MB;
    if (argc == 3 && strcmp(argv[1], "-m") == 0 && atoi(argv[2]) > 0) {
        mb = (size_t)atoi(argv[2]);
    } else if (argc != 1) {
        fprintf(stderr, "usage: bench-decode [-m MB]\n");
        return 2;
    }
    size_t cap = mb << 20;
    uint8_t *src = malloc(cap), *buf = malloc(cap);
    char *out = malloc(1 << 20);
    uint64_t nrec;
    if (!src || !buf || !out)
        return 1;
    size_t len = fill(src, cap, &nrec);

    char path[] = "/tmp/bench-decode-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, src, len) != (ssize_t)len) {
        perror("bench-decode: temp file");
        return 1;
    }
    close(fd);

    double t_read = 1e9, t_parse = 1e9, t_json = 1e9;
    uint64_t check = 0, got = 0;
    size_t json_bytes = 0;
    for (int rep = 0; rep < REPS; rep++) {
        /* yardstick: read the same file (page cache) into memory */
        double t0 = now();
        fd = open(path, O_RDONLY);
        size_t n = 0;
        ssize_t k;
        while (n < len && (k = read(fd, buf + n, len - n)) > 0)
            n += (size_t)k;
        close(fd);
        double t1 = now();
        if (n != len || memcmp(buf, src, 64) != 0) {
            fprintf(stderr, "bench-decode: short read\n");
            return 1;
        }
        if (t1 - t0 < t_read)
            t_read = t1 - t0;

        /* parse only: every record into a spe_decoded */
        spe_decoder d;
        spe_decoded r;
        spe_decoder_init(&d, buf, len, NULL);
        t0 = now();
        while (spe_decoder_next(&d, &r) == SPE_DEC_RECORD)
            check += r.rec.pc ^ r.rec.total_lat;
        t1 = now();
        got = d.n_records;
        if (t1 - t0 < t_parse)
            t_parse = t1 - t0;

        /* parse + JSON lines, written to /dev/null in 1 MiB chunks */
        int nul = open("/dev/null", O_WRONLY);
        size_t o = 0;
        json_bytes = 0;
        spe_decoder_init(&d, buf, len, NULL);
        t0 = now();
        while (spe_decoder_next(&d, &r) == SPE_DEC_RECORD) {
            o += spe_fmt_json(&r, out + o);
            if (o > (1 << 20) - SPE_FMT_LINE_MAX) {
                if (write(nul, out, o) < 0)
                    return 1;
                json_bytes += o;
                o = 0;
            }
        }
        if (write(nul, out, o) < 0)
            return 1;
        json_bytes += o;
        t1 = now();
        close(nul);
        if (t1 - t0 < t_json)
            t_json = t1 - t0;
    }
    unlink(path);
    if (got != nrec) {
        fprintf(stderr, "bench-decode: decoded %llu of %llu records\n", (unsigned long long)got,
                (unsigned long long)nrec);
        return 1;
    }
    double read_mbs = (double)len / t_read / 1e6;
    printf("SPE decode, %.1f MB file, %llu records (%.1f bytes/record), best of %d (checksum %llx)\n",
           (double)len / 1e6, (unsigned long long)nrec, (double)len / (double)nrec, REPS,
           (unsigned long long)(check & 0xFFFF));
    report("read(2) of the file", t_read, len, nrec, read_mbs);
    report("parse only", t_parse, len, nrec, read_mbs);
    report("parse + JSON", t_json, len, nrec, read_mbs);
    printf("  JSON output: %.1f MB (%.1f MB/s written)\n", (double)json_bytes / 1e6,
           (double)json_bytes / t_json / 1e6);
    printf("  target: parse only >= 1000 MB/s (Linux perf's packet decoder: ~570 MB/s here): %s\n",
           (double)len / t_parse / 1e6 >= 1000 ? "met" : "NOT met");
    free(src);
    free(buf);
    free(out);
    return 0;
}
