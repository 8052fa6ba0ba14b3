/* SPDX-License-Identifier: Apache-2.0 */
/* test_perf_export.c: armprof-decode --to-perf-data, checked with Debian's own perf: same record count, PCs, CPUs, times, weights, data and physical addresses as ours; the event's attributes. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "armprof/spe.h"
#include "perf_export.h"
#include "spe_test_util.h"
#include "tool_util.h"

#ifndef ARMPROF_DECODE
#error "ARMPROF_DECODE must name the armprof-decode binary"
#endif

static char dir[256];

static int setup(void **s)
{
    (void)s;
    return tool_tmpdir(dir, sizeof dir);
}

static int teardown(void **s)
{
    (void)s;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static int have_perf(void)
{
    return tool_run("perf --version", NULL, 0) == 0;
}

/* The PCs of our decoding, as perf shows them: bits [55:0], with bits [63:56] set for a
 * Non-secure EL1/EL2 address (arm_spe_calc_ip() in tools/perf/util/arm-spe-decoder). */
static size_t our_pcs(const char *bin, uint64_t *pcs, size_t max)
{
    char cmd[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "'%s' --json '%s'", ARMPROF_DECODE, bin);
    assert_int_equal(tool_run(cmd, &out, 0), 0);
    size_t n = 0;
    for (char *line = out; line && *line && n < max;) {
        char *nl = strchr(line, '\n');
        char *p = strstr(line, "\"pc\":\"");
        assert_true(p && (!nl || p < nl)); /* every record in these streams has a PC */
        uint64_t a = strtoull(p + 6, NULL, 16);
        unsigned el = (unsigned)atoi(strstr(p, "\"el\":") + 5);
        int ns = atoi(strstr(p, "\"ns\":") + 5);
        if (ns && (el == 1 || el == 2))
            a |= 0xFFull << 56;
        pcs[n++] = a;
        line = nl ? nl + 1 : NULL;
    }
    free(out);
    return n;
}

/* Exports `bin`, then compares perf report -D's record count and perf script's IPs with ours. */
static void compare_with_perf(const char *bin)
{
    enum { MAXREC = 1 << 16 };
    static uint64_t ours[MAXREC];
    char data[400], cmd[1024], *out = NULL;
    size_t n = our_pcs(bin, ours, MAXREC);
    assert_true(n > 0);

    snprintf(data, sizeof data, "%s/out.data", dir);
    snprintf(cmd, sizeof cmd, "'%s' --to-perf-data '%s' '%s'", ARMPROF_DECODE, data, bin);
    assert_int_equal(tool_run(cmd, NULL, 0), 0);

    /* perf report -D: one packet per line; a record ends in "END" or "TS <n>". */
    snprintf(cmd, sizeof cmd, "perf report -f -D -i '%s'", data);
    assert_int_equal(tool_run(cmd, &out, 0), 0);
    assert_non_null(strstr(out, "PERF_RECORD_AUXTRACE_INFO type: 4"));
    assert_non_null(strstr(out, "ARM SPE data: size"));
    size_t ends = 0, bad = tool_count(out, "Bad packet");
    for (char *line = out; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (line[0] == '.' && strstr(line, ":  ")) {
            size_t l = strlen(line);
            char *ts = strstr(line, "  TS "); /* perf 6.1 prints the timestamp signed */
            if (ts)
                ts += 5 + (ts[5] == '-');
            if ((l >= 4 && strcmp(line + l - 4, " END") == 0) ||
                (ts && *ts && strspn(ts, "0123456789") == strlen(ts)))
                ends++;
        }
        line = nl ? nl + 1 : NULL;
    }
    free(out);
    print_message("%s: %zu records ours, %zu records perf report -D\n", bin, n, ends);
    assert_int_equal(bad, 0);
    assert_int_equal(ends, n);

    /* perf script: one instruction sample per record (--itrace=i1i), its IP the record's PC. */
    snprintf(cmd, sizeof cmd, "perf script -f -i '%s' --itrace=i1i -F ip", data);
    assert_int_equal(tool_run(cmd, &out, 0), 0);
    size_t k = 0;
    for (char *line = out; line && *line;) {
        char *nl = strchr(line, '\n');
        uint64_t ip = strtoull(line, NULL, 16);
        if (k < n && ip != ours[k])
            fail_msg("record %zu: perf script ip 0x%llx, ours 0x%llx", k, (unsigned long long)ip,
                     (unsigned long long)ours[k]);
        k++;
        line = nl ? nl + 1 : NULL;
    }
    free(out);
    assert_int_equal(k, n);
}

/* A buffer from the encoder: random records, every optional packet on and off, several unit
 * configurations back to back (padding and 12/16-bit counters included). */
static void test_perf_decodes_encoder_buffer(void **s)
{
    (void)s;
    if (!have_perf())
        skip();
    static uint8_t buf[1 << 18];
    ap_prng64 g = { .state = 99 };
    size_t n = 0;
    for (unsigned i = 0; i < 3000; i++) {
        spe_format_cfg cfg = { .max_size = (uint8_t)(6 + i % 3), .align = (uint8_t)(i % 4),
                               .count_size = (uint8_t)(2 + i % 2) };
        spe_record r = spe_test_random_record(&g);
        r.present |= SPE_R_PC;
        n += spe_encode(&r, &cfg, buf + n, sizeof buf - n);
    }
    char bin[400];
    snprintf(bin, sizeof bin, "%s/enc.bin", dir);
    assert_int_equal(tool_write(bin, buf, n), 0);
    compare_with_perf(bin);
}

/* The buffer of an armprof-run (the SPU model with the synthetic workload). */
static void test_perf_decodes_armprof_run(void **s)
{
    (void)s;
#ifdef ARMPROF_RUN
    if (!have_perf())
        skip();
    char cmd[1024], bin[400];
    snprintf(cmd, sizeof cmd, "'%s' --ops 400000 --buffer-bytes 262144 --out '%s/run'", ARMPROF_RUN, dir);
    assert_int_equal(tool_run(cmd, NULL, 0), 0);
    snprintf(bin, sizeof bin, "%s/run/spe.bin", dir);
    compare_with_perf(bin);
#else
    skip();
#endif
}

static uint64_t le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* The file layout itself (no perf needed): header, attribute, AUXTRACE_INFO, the buffer inside
 * PERF_RECORD_AUXTRACE, the CPUID feature (tools/perf/util/header.c layouts). */
static void test_perf_data_layout(void **s)
{
    (void)s;
    uint8_t spe[13] = { 0x42, 0x02, 0x01, 0xB0, 0, 0x10, 0, 0, 0, 0, 0, 0x80, 0x01 };
    char bin[400], data[400], cmd[1024];
    snprintf(bin, sizeof bin, "%s/tiny.bin", dir);
    snprintf(data, sizeof data, "%s/tiny.data", dir);
    assert_int_equal(tool_write(bin, spe, sizeof spe), 0);
    snprintf(cmd, sizeof cmd, "'%s' --to-perf-data '%s' --midr 0x410fd490 '%s'", ARMPROF_DECODE, data, bin);
    assert_int_equal(tool_run(cmd, NULL, 0), 0);
    FILE *f = fopen(data, "rb");
    assert_non_null(f);
    static uint8_t b[8192];
    size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    assert_true(n > 104);
    assert_memory_equal(b, "PERFILE2", 8);
    assert_int_equal(le(b + 8, 8), 104);                      /* sizeof(perf_file_header) */
    assert_int_equal(le(b + 16, 8), 128 + 16);                /* attr + ids section */
    uint64_t attrs = le(b + 24, 8), data_off = le(b + 40, 8), data_size = le(b + 48, 8);
    assert_int_equal(le(b + 32, 8), 144);
    assert_int_equal(le(b + attrs, 4), 8);                    /* attr.type: the arm_spe PMU */
    assert_int_equal(le(b + attrs + 4, 4), 128);              /* attr.size: PERF_ATTR_SIZE_VER7 */
    assert_true(le(b + attrs + 40, 8) & (1ull << 18));        /* sample_id_all */
    assert_int_equal(le(b + attrs + 24, 8) & 0x84, 0x84);     /* PERF_SAMPLE_TIME | PERF_SAMPLE_CPU */
    uint64_t ids = le(b + attrs + 128, 8);
    assert_int_equal(le(b + attrs + 136, 8), 8);
    assert_int_equal(le(b + ids, 8), 1);
    /* data: first PERF_RECORD_TIME_CONV (79), before AUXTRACE_INFO, which copies it: the
     * default --timer-hz 1e9 is time_shift 0, time_mult 1, time_zero 0 */
    const uint8_t *e = b + data_off;
    assert_int_equal(le(e, 4), 79);
    assert_int_equal(le(e + 6, 2), 56);
    assert_int_equal(le(e + 8, 8), 0);
    assert_int_equal(le(e + 16, 8), 1);
    assert_int_equal(le(e + 24, 8), 0);
    /* then PERF_RECORD_ID_INDEX (69): one entry {id 1, idx 0, cpu 0, tid -1} */
    e += le(e + 6, 2);
    assert_int_equal(le(e, 4), 69);
    assert_int_equal(le(e + 8, 8), 1);
    assert_int_equal(le(e + 16, 8), 1);
    assert_int_equal(le(e + 32, 8), 0);
    assert_int_equal(le(e + 40, 8), UINT64_MAX);
    /* AUXTRACE_INFO (70) of type PERF_AUXTRACE_ARM_SPE (4) with priv[0] = PMU type */
    e += le(e + 6, 2);
    data_size -= (uint64_t)(e - (b + data_off));
    assert_int_equal(le(e, 4), 70);
    assert_int_equal(le(e + 6, 2), 32);
    assert_int_equal(le(e + 8, 4), 4);
    assert_int_equal(le(e + 16, 8), 8);
    /* walk to PERF_RECORD_AUXTRACE (71): size padded to 8, then the buffer itself */
    size_t at = 0;
    while (at < data_size && le(e + at, 4) != 71)
        at += le(e + at + 6, 2);
    assert_true(at < data_size);
    assert_int_equal(le(e + at + 8, 8), 16);
    assert_memory_equal(e + at + 48, spe, sizeof spe);
    assert_int_equal(e[at + 48 + 13], 0);
    /* features: bit 9 (HEADER_CPUID) set; its string is the MIDR */
    uint64_t bits = le(b + 72, 8);
    assert_true(bits & (1ull << 9));
    assert_true(bits & (1ull << 6));
    size_t table = (size_t)(e - b) + data_size, k = 0;
    for (unsigned bit = 0; bit < 9; bit++)
        k += (bits >> bit) & 1;
    uint64_t cpuid = le(b + table + 16 * k, 8);
    assert_int_equal(le(b + cpuid, 4), 64);                   /* padded to NAME_ALIGN */
    assert_string_equal((const char *)b + cpuid + 4, "0x00000000410fd490");
}

/* Writes `n` records with PCs and ascending Timestamps (every 7th ends in End instead) to `path`. */
static void write_timed_buffer(const char *path, uint64_t seed, unsigned n, uint64_t ts0, uint64_t step)
{
    static uint8_t buf[1 << 16];
    ap_prng64 g = { .state = seed };
    spe_format_cfg cfg = { .max_size = 6, .align = 0, .count_size = 2 };
    size_t len = 0;
    for (unsigned i = 0; i < n; i++) {
        spe_record r = spe_test_random_record(&g);
        r.present |= SPE_R_PC | SPE_R_TIMESTAMP;
        r.present &= ~(uint32_t)SPE_R_CONTEXT_EL2;
        if (i % 7 == 6)
            r.present &= ~(uint32_t)SPE_R_TIMESTAMP;
        r.timestamp = ts0 + step * i + (uint64_t)(i * i);
        size_t w = spe_encode(&r, &cfg, buf + len, sizeof buf - len);
        assert_true(w > 0);
        len += w;
    }
    assert_int_equal(tool_write(path, buf, len), 0);
}

/* Our records of `bin`: the PC as perf shows it, and the timestamp (UINT64_MAX: End record). */
static size_t our_times(const char *bin, uint64_t *ts, size_t max)
{
    char cmd[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "'%s' --json '%s'", ARMPROF_DECODE, bin);
    assert_int_equal(tool_run(cmd, &out, 0), 0);
    size_t n = 0;
    for (char *line = out; line && *line && n < max;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        char *t = strstr(line, "\"ts\":");
        ts[n++] = t ? strtoull(t + 5, NULL, 10) : UINT64_MAX;
        line = nl ? nl + 1 : NULL;
    }
    free(out);
    return n;
}

/* Two CPUs' buffers in one file (`perf record -a` style: one AUX trace per CPU): perf script
 * attributes each sample to its CPU, with the same PCs in the same order per CPU as our decoding
 * of that CPU's buffer, and perf report --sort cpu splits the samples the same way. */
static void test_perf_two_cpus(void **s)
{
    (void)s;
    if (!have_perf())
        skip();
    enum { NA = 300, NB = 170, MAXREC = 512 };
    static uint64_t a[MAXREC], b[MAXREC];
    char pa[400], pb[400], data[400], cmd[1600], *out = NULL;
    snprintf(pa, sizeof pa, "%s/cpu0.bin", dir);
    snprintf(pb, sizeof pb, "%s/cpu2.bin", dir);
    snprintf(data, sizeof data, "%s/two.data", dir);
    write_timed_buffer(pa, 5, NA, 1000, 900);
    write_timed_buffer(pb, 6, NB, 1500, 1700);
    assert_int_equal(our_pcs(pa, a, MAXREC), NA);
    assert_int_equal(our_pcs(pb, b, MAXREC), NB);
    /* the first FILE is CPU 0 by position, the second CPU 2 by CPU=FILE */
    snprintf(cmd, sizeof cmd, "'%s' --to-perf-data '%s' '%s' '2=%s'", ARMPROF_DECODE, data, pa, pb);
    assert_int_equal(tool_run(cmd, NULL, 0), 0);

    snprintf(cmd, sizeof cmd, "perf script -f -i '%s' --itrace=i1i -F cpu,ip", data);
    assert_int_equal(tool_run(cmd, &out, 0), 0);
    size_t ka = 0, kb = 0, other = 0;
    for (char *line = out; line && *line;) {
        char *nl = strchr(line, '\n');
        char *lb = strchr(line, '[');
        unsigned cpu = lb ? (unsigned)strtoul(lb + 1, NULL, 10) : 999;
        char *rb = lb ? strchr(lb, ']') : NULL;
        uint64_t ip = rb ? strtoull(rb + 1, NULL, 16) : 0;
        if (cpu == 0) {
            if (ka < NA && ip != a[ka])
                fail_msg("cpu 0 record %zu: perf ip 0x%llx, ours 0x%llx", ka, (unsigned long long)ip,
                         (unsigned long long)a[ka]);
            ka++;
        } else if (cpu == 2) {
            if (kb < NB && ip != b[kb])
                fail_msg("cpu 2 record %zu: perf ip 0x%llx, ours 0x%llx", kb, (unsigned long long)ip,
                         (unsigned long long)b[kb]);
            kb++;
        } else {
            other++;
        }
        line = nl ? nl + 1 : NULL;
    }
    free(out);
    print_message("perf script: %zu samples on cpu 0 (ours %d), %zu on cpu 2 (ours %d), %zu elsewhere\n", ka, NA,
                  kb, NB, other);
    assert_int_equal(ka, NA);
    assert_int_equal(kb, NB);
    assert_int_equal(other, 0);

    /* perf report --sort cpu: 300 / 470 = 63.83%, 170 / 470 = 36.17% */
    snprintf(cmd, sizeof cmd, "perf report -f -i '%s' --itrace=i1i --sort cpu --stdio", data);
    assert_int_equal(tool_run(cmd, &out, 0), 0);
    assert_non_null(strstr(out, "63.83%  000"));
    assert_non_null(strstr(out, "36.17%  002"));
    free(out);
}

/* Sample times: perf script's time of each record is its Timestamp packet converted with the
 * PERF_RECORD_TIME_CONV we write: ns = ticks at 1 GHz, 10 * ticks at 100 MHz, and otherwise
 * ticks * 1e9 / hz within perf's precision (a 32-bit mult: 2^-31 relative); an End record (no
 * Timestamp) has time 0. */
static void test_perf_sample_times(void **s)
{
    (void)s;
    if (!have_perf())
        skip();
    enum { N = 60 };
    static const uint64_t hzs[] = { 1000000000ull, 100000000ull, 24000000ull, 19200000ull, 3ull };
    uint64_t ts[N];
    char bin[400], data[400], cmd[1200], *out = NULL;
    snprintf(bin, sizeof bin, "%s/timed.bin", dir);
    snprintf(data, sizeof data, "%s/timed.data", dir);
    /* timestamps from about 2^40 ticks up, so mult/shift rounding would show */
    write_timed_buffer(bin, 11, N, 0x123456789Aull, 987654321ull);
    assert_int_equal(our_times(bin, ts, N), N);
    for (size_t h = 0; h < sizeof hzs / sizeof hzs[0]; h++) {
        uint64_t hz = hzs[h];
        perf_time_conv tc = perf_export_time_conv(hz);
        snprintf(cmd, sizeof cmd, "'%s' --timer-hz %llu --to-perf-data '%s' '%s'", ARMPROF_DECODE,
                 (unsigned long long)hz, data, bin);
        assert_int_equal(tool_run(cmd, NULL, 0), 0);
        snprintf(cmd, sizeof cmd, "perf script -f -i '%s' --itrace=i1i -F time --ns", data);
        assert_int_equal(tool_run(cmd, &out, 0), 0);
        size_t k = 0;
        for (char *line = out; line && *line; k++) {
            char *nl = strchr(line, '\n');
            char *dot;
            uint64_t sec = strtoull(line, &dot, 10);
            assert_int_equal(*dot, '.');
            uint64_t ns = sec * 1000000000ull + strtoull(dot + 1, NULL, 10);
            assert_true(k < N);
            if (ts[k] == UINT64_MAX) {
                assert_int_equal(ns, 0);
            } else {
                assert_int_equal(ns, perf_export_ticks_to_ns(ts[k], &tc));
                unsigned __int128 exact = (unsigned __int128)ts[k] * 1000000000u / hz;
                if (hz == 1000000000ull)
                    assert_int_equal(ns, ts[k]);
                else if (hz == 100000000ull)
                    assert_int_equal(ns, 10 * ts[k]);
                else /* perf's 32-bit mult: relative error at most 2^-32 / (mult / 2^shift >= 2^31) */
                    assert_true(ns + 1 + (uint64_t)(exact >> 31) >= (uint64_t)exact &&
                                ns <= (uint64_t)exact + 1 + (uint64_t)(exact >> 31));
            }
            line = nl ? nl + 1 : NULL;
        }
        free(out);
        assert_int_equal(k, N);
    }
    /* --timer-hz 0: no TIME_CONV, perf 6.1 shows time 0 */
    snprintf(cmd, sizeof cmd, "'%s' --timer-hz 0 --to-perf-data '%s' '%s'", ARMPROF_DECODE, data, bin);
    assert_int_equal(tool_run(cmd, NULL, 0), 0);
    snprintf(cmd, sizeof cmd, "perf script -f -i '%s' --itrace=i1i -F time --ns", data);
    assert_int_equal(tool_run(cmd, &out, 0), 0);
    assert_int_equal(tool_count(out, "0.000000000:"), N);
    free(out);
}

/* The arm_spe event's perf_event_attr in a file: sample_type, config, the flags word. */
typedef struct attr_view {
    uint64_t config, sample_type, flags, config1, config2;
} attr_view;

static attr_view read_attr(const char *data)
{
    FILE *f = fopen(data, "rb");
    assert_non_null(f);
    static uint8_t b[4096];
    size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    assert_true(n > 104 + 128);
    uint64_t at = le(b + 24, 8);
    attr_view a = { .config = le(b + at + 8, 8), .sample_type = le(b + at + 24, 8), .flags = le(b + at + 40, 8),
                    .config1 = le(b + at + 56, 8), .config2 = le(b + at + 64, 8) };
    return a;
}

enum {
    S_ADDR = 1 << 3, S_WEIGHT = 1 << 14, S_DATA_SRC = 1 << 15, S_PHYS_ADDR = 1 << 19,
    F_EXCLUDE_KERNEL = 1 << 5,
};

/* Loads at EL0 with a total latency, data VA and (when `pa`) PA, Neoverse data sources, a
 * timestamp each; `el1`: one record at EL1. Returns the records written. */
static size_t write_load_buffer(const char *path, bool pa, bool el1, spe_record *out, size_t n)
{
    static uint8_t buf[1 << 16];
    static const uint16_t ds[] = { 0x0, 0x8, 0xb, 0xe };
    spe_format_cfg cfg = { .max_size = 6, .align = 0, .count_size = 2 };
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        spe_record r;
        memset(&r, 0, sizeof r);
        r.present = SPE_R_PC | SPE_R_DATA_VA | SPE_R_TOTAL_LAT | SPE_R_ISSUE_LAT | SPE_R_OPTYPE | SPE_R_DATA_SOURCE |
                    SPE_R_TIMESTAMP | SPE_R_EVENTS | (pa ? SPE_R_DATA_PA : 0);
        r.pc = 0x400000 + 4 * i;
        r.pc_el = el1 && i == n / 2 ? 1 : 0;
        r.pc_ns = true;
        r.data_va = 0x5500000000ull + 64 * i * i;
        r.data_pa = 0x80000000ull + 4096 * i + 8;
        r.data_pa_ns = true;
        r.total_lat = (uint16_t)(5 + 37 * i % 900);
        r.issue_lat = (uint16_t)(i % 5);
        r.op_class = SPE_CLASS_LDST;
        r.op_subclass = SPE_LDST_GP;                             /* a load */
        r.data_source = ds[i % 4];
        r.events = 1ull << SPE_EV_RETIRED | 1ull << SPE_EV_L1D_ACCESS | 1ull << SPE_EV_TLB_ACCESS;
        r.timestamp = 1000 + 100 * i;
        size_t w = spe_encode(&r, &cfg, buf + len, sizeof buf - len);
        assert_true(w > 0);
        len += w;
        out[i] = r;
    }
    assert_int_equal(tool_write(path, buf, len), 0);
    return n;
}

/* The event's attributes, as perf record leaves an arm_spe event: DATA_SRC (perf report
 * --mem-mode needs it), WEIGHT and ADDR (the synthesized samples' fields, which perf script -F
 * checks against the event), PHYS_ADDR and pa_enable only when a record has a physical address,
 * ts_enable with Timestamp packets, exclude_kernel when no record has an EL1 or EL2 PC. */
static void test_perf_attr_from_records(void **s)
{
    (void)s;
    enum { N = 40 };
    spe_record r[N];
    char bin[400], data[400], cmd[1200];
    snprintf(bin, sizeof bin, "%s/attr.bin", dir);
    snprintf(data, sizeof data, "%s/attr.data", dir);
    static const struct {
        bool pa, el1;
    } rows[] = { { false, false }, { true, false }, { false, true }, { true, true } };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        write_load_buffer(bin, rows[k].pa, rows[k].el1, r, N);
        snprintf(cmd, sizeof cmd, "'%s' --to-perf-data '%s' '%s'", ARMPROF_DECODE, data, bin);
        assert_int_equal(tool_run(cmd, NULL, 0), 0);
        attr_view a = read_attr(data);
        assert_int_equal(a.sample_type & (S_ADDR | S_WEIGHT | S_DATA_SRC), S_ADDR | S_WEIGHT | S_DATA_SRC);
        assert_int_equal(!!(a.sample_type & S_PHYS_ADDR), rows[k].pa);
        assert_int_equal(a.config & PERF_EXPORT_SPE_PA_ENABLE, rows[k].pa ? PERF_EXPORT_SPE_PA_ENABLE : 0);
        assert_true(a.config & PERF_EXPORT_SPE_TS_ENABLE);
        assert_int_equal(!!(a.flags & F_EXCLUDE_KERNEL), !rows[k].el1);
        assert_int_equal(a.config1, 0);
        assert_int_equal(a.config2, 0);
    }
    /* the caller's format bits and filters (armprof-qemu: jitter, filters, min_latency) */
    perf_export_buf pb = { .data = (const uint8_t *)"\x00\x00\x00\x00\x00\x00\x00\x00", .len = 8, .cpu = 0 };
    perf_export_opts o = { .config = PERF_EXPORT_SPE_JITTER | PERF_EXPORT_SPE_LOAD_FILTER, .config1 = 0x22,
                           .config2 = 300, .user_only = 1 };
    char err[200];
    assert_int_equal(perf_export_write_cpus(data, &pb, 1, &o, err, sizeof err), 0);
    attr_view a = read_attr(data);
    assert_int_equal(a.config, PERF_EXPORT_SPE_JITTER | PERF_EXPORT_SPE_LOAD_FILTER);
    assert_int_equal(a.config1, 0x22);
    assert_int_equal(a.config2, 300);
    assert_true(a.flags & F_EXCLUDE_KERNEL);
    o.user_only = -1;
    assert_int_equal(perf_export_write_cpus(data, &pb, 1, &o, err, sizeof err), 0);
    assert_false(read_attr(data).flags & F_EXCLUDE_KERNEL);
}

/* Per record, what Debian's perf script reads back: weight = the total latency, addr = the data
 * VA, phys_addr = the data PA, data_src = the level of the Neoverse data source; and the plain
 * `perf script -F ip,sym,weight` and `-F ...,phys_addr` run without an attribute error. */
static void test_perf_script_weight_phys_addr(void **s)
{
    (void)s;
    if (!have_perf())
        skip();
    enum { N = 120 };
    spe_record r[N];
    char bin[400], data[400], cmd[1200], *out = NULL;
    snprintf(bin, sizeof bin, "%s/loads.bin", dir);
    snprintf(data, sizeof data, "%s/loads.data", dir);
    write_load_buffer(bin, true, false, r, N);
    snprintf(cmd, sizeof cmd, "'%s' --to-perf-data '%s' '%s'", ARMPROF_DECODE, data, bin);
    assert_int_equal(tool_run(cmd, NULL, 0), 0);
    snprintf(cmd, sizeof cmd, "perf script -f -i '%s' -F ip,sym,weight,phys_addr 2>&1", data);
    assert_int_equal(tool_run(cmd, &out, 0), 0);
    assert_null(strstr(out, "attribute set"));
    free(out);
    snprintf(cmd, sizeof cmd, "perf script -f -i '%s' --itrace=i1i -F weight,addr,phys_addr,data_src", data);
    assert_int_equal(tool_run(cmd, &out, 0), 0);
    static const char *lvl[] = { "LVL L1", "LVL L2", "LVL L3", "RAM" };
    size_t k = 0;
    for (char *line = out; line && *line; k++) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        assert_true(k < N);
        /* perf's order: addr, data_src (value |OP ...|...|BLK ...), weight, phys_addr */
        char *p = line;
        unsigned long long addr = strtoull(p, &p, 16);
        char *end = line + strlen(line), *ph, *w;
        for (ph = end; ph > line && ph[-1] != ' '; ph--)
            ;
        for (w = ph; w > line && w[-1] == ' '; w--)
            ;
        for (; w > line && w[-1] != ' '; w--)
            ;
        unsigned long long phys = strtoull(ph, NULL, 16), weight = strtoull(w, NULL, 10);
        if (addr != r[k].data_va || phys != r[k].data_pa || weight != r[k].total_lat || !strstr(p, lvl[k % 4]) ||
            !strstr(p, "OP LOAD"))
            fail_msg("record %zu: ours va 0x%llx pa 0x%llx latency %u source 0x%x; perf script: %s", k,
                     (unsigned long long)r[k].data_va, (unsigned long long)r[k].data_pa, r[k].total_lat,
                     r[k].data_source, line);
        line = nl ? nl + 1 : NULL;
    }
    free(out);
    assert_int_equal(k, N);
}

/* The mult/shift pairs themselves (no perf needed). */
static void test_time_conv_pairs(void **s)
{
    (void)s;
    perf_time_conv c = perf_export_time_conv(1000000000ull);
    assert_int_equal(c.shift, 0);
    assert_int_equal(c.mult, 1);
    c = perf_export_time_conv(100000000ull);
    assert_int_equal(c.shift, 0);
    assert_int_equal(c.mult, 10);
    c = perf_export_time_conv(2000000000ull); /* 0.5 ns per tick */
    assert_int_equal(c.shift, 1);
    assert_int_equal(c.mult, 1);
    assert_int_equal(perf_export_ticks_to_ns(7, &c), 3);
    c = perf_export_time_conv(24000000ull);   /* 41.666.. ns per tick */
    assert_int_equal(perf_export_ticks_to_ns(24000000ull, &c), 1000000000ull);
    assert_true(c.mult >= 0x80000000u);      /* the most precise pair perf can hold */
    uint64_t hour = perf_export_ticks_to_ns(24000000ull * 3600, &c);
    assert_true(hour >= 3600000000000ull - 3600000000000ull / 0x80000000u &&
                hour <= 3600000000000ull + 3600000000000ull / 0x80000000u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_perf_data_layout),
        cmocka_unit_test(test_perf_decodes_encoder_buffer),
        cmocka_unit_test(test_perf_decodes_armprof_run),
        cmocka_unit_test(test_perf_two_cpus),
        cmocka_unit_test(test_perf_sample_times),
        cmocka_unit_test(test_time_conv_pairs),
        cmocka_unit_test(test_perf_attr_from_records),
        cmocka_unit_test(test_perf_script_weight_phys_addr),
    };
    return cmocka_run_group_tests_name("perf_export", tests, setup, teardown);
}
