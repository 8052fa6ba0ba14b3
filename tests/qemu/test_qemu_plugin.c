/* SPDX-License-Identifier: Apache-2.0 */
/* test_qemu_plugin.c: armprof-qemu on cross-compiled AArch64 programs under qemu-aarch64: sample counts, perf report and perf script fields, data addresses and sources, latency under load, branches, threads, options. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "armprof/spe.h"
#include "trace_file.h"

/* Neoverse data source encodings the plugin writes (docs/implementation-defined.md). */
enum { DS_L1D = 0x0, DS_L2 = 0x8, DS_LLC = 0xb, DS_DRAM = 0xe };

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0, r;
    char *p = malloc(cap + 1);
    while (p && (r = fread(p + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            cap *= 2;
            p = realloc(p, cap + 1);
        }
    }
    fclose(f);
    if (p)
        p[n] = 0;
    if (len)
        *len = n;
    return p;
}

/* Runs a shell command; returns its exit status (or -1). */
static int sh(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int st = system(cmd);
    if (st == -1 || !WIFEXITED(st)) {
        print_error("command did not finish: %s\n", cmd);
        return -1;
    }
    return WEXITSTATUS(st);
}

static void outdir(char *dir, size_t n, const char *name)
{
    snprintf(dir, n, "%s/%s", TEST_OUT, name);
    assert_int_equal(sh("rm -rf '%s' && mkdir -p '%s'", dir, dir), 0);
}

/* qemu-aarch64 with the plugin, and the counting plugin beside it in the same run (writes
 * DIR/count): stdout to DIR/stdout, stderr to DIR/stderr. */
static int run_plugin(const char *dir, const char *prog, const char *args, const char *popts)
{
    return sh("%s -L %s -plugin %s,out=%s%s%s -plugin %s,out=%s/count %s/%s %s >%s/stdout 2>%s/stderr", QEMU,
              SYSROOT, PLUGIN, dir, *popts ? "," : "", popts, COUNT_PLUGIN, dir, PROGS, prog, args, dir, dir);
}

/* QEMU's own instruction count of the last run_plugin() in dir (the counting plugin: an inline
 * add per instruction). */
static uint64_t reference_insns(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/count", dir);
    char *s = slurp(path, NULL);
    assert_non_null(s);
    unsigned long long n = 0;
    assert_int_equal(sscanf(s, "insns %llu", &n), 1);
    free(s);
    return n;
}

static cJSON *summary(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/armprof-qemu.json", dir);
    char *s = slurp(path, NULL);
    assert_non_null(s);
    cJSON *j = cJSON_Parse(s);
    free(s);
    assert_non_null(j);
    return j;
}

static uint64_t num(const cJSON *o, const char *k)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
    assert_non_null(x);
    return (uint64_t)x->valuedouble;
}

/* Two hex numbers after `key` in the program's stdout ("array 0x... 0x..."). */
static void prog_pair(const char *dir, const char *key, uint64_t *a, uint64_t *b)
{
    char path[1024], fmt[64];
    snprintf(path, sizeof path, "%s/stdout", dir);
    char *s = slurp(path, NULL);
    assert_non_null(s);
    char *p = strstr(s, key);
    assert_non_null(p);
    snprintf(fmt, sizeof fmt, "%s 0x%%lx 0x%%lx", key);
    unsigned long x, y;
    assert_int_equal(sscanf(p, fmt, &x, &y), 2);
    *a = x;
    *b = y;
    free(s);
}

typedef struct recs {
    spe_record *r;
    size_t n;
} recs;

/* Every record of an spe.bin; the stream must decode without error. */
static recs decode(const char *path)
{
    size_t len = 0;
    char *buf = slurp(path, &len);
    assert_non_null(buf);
    recs out = { calloc(len / 8 + 1, sizeof(spe_record)), 0 };
    spe_decoder d;
    spe_decoder_init(&d, buf, len, NULL);
    spe_decoded rec;
    int r;
    while ((r = spe_decoder_next(&d, &rec)) == SPE_DEC_RECORD)
        out.r[out.n++] = rec.rec;
    if (r == SPE_DEC_ERROR) {
        char t[200];
        spe_dec_error_text(&d, t, sizeof t);
        print_error("%s: %s\n", path, t);
    }
    assert_int_equal(r, SPE_DEC_EOF);
    free(buf);
    return out;
}

static bool has_ev(const spe_record *r, unsigned bit) { return (r->events >> bit) & 1; }

/* With RND = 0 the SPU samples every (interval + 1)-th operation (the counter reloads INTERVAL x
 * 256 and the operation at which it is zero is sampled, docs/implementation-defined.md); the
 * population is every instruction QEMU executed, and every sample is a record in spe.bin. */
static void test_samples_exact_rnd0(void **state)
{
    (void)state;
    char dir[512];
    outdir(dir, sizeof dir, "exact");
    assert_int_equal(run_plugin(dir, "hot", "16384 200", "interval=1024,rnd=off"), 0);
    uint64_t ref = reference_insns(dir);
    cJSON *j = summary(dir);
    const cJSON *v0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "vcpus"), 0);
    assert_int_equal(num(j, "insns"), ref);
    assert_int_equal(num(v0, "population"), ref);
    assert_int_equal(num(v0, "samples"), ref / 1025);
    assert_int_equal(num(v0, "records_written"), ref / 1025);
    assert_int_equal(num(v0, "records_discarded"), 0);
    const cJSON *pmu = cJSON_GetObjectItem(v0, "pmu");
    assert_int_equal(num(pmu, "SAMPLE_POP"), ref);
    assert_int_equal(num(pmu, "SAMPLE_FEED"), ref / 1025);
    assert_int_equal(num(pmu, "INST_RETIRED"), ref);
    /* CPU_CYCLES: instructions x cpi (1) plus the core model's stall cycles */
    const cJSON *ms = cJSON_GetObjectItem(v0, "memsys");
    assert_true(num(ms, "stall_cycles") > 0);
    assert_int_equal(num(pmu, "CPU_CYCLES"), ref + num(ms, "stall_cycles"));
    char path[1024];
    snprintf(path, sizeof path, "%s/spe.bin", dir);
    recs rs = decode(path);
    assert_int_equal(rs.n, ref / 1025);
    /* every record: EL0 PC, CONTEXTIDR_EL1 = the guest thread, retired, a timestamp */
    for (size_t i = 0; i < rs.n; i++) {
        assert_int_equal(rs.r[i].pc_el, 0);
        assert_true(rs.r[i].present & SPE_R_CONTEXT_EL1);
        assert_int_equal(rs.r[i].context_el1, num(v0, "tid"));
        assert_true(has_ev(&rs.r[i], SPE_EV_RETIRED));
        assert_true(rs.r[i].present & SPE_R_TIMESTAMP);
    }
    free(rs.r);
    cJSON_Delete(j);
}

/* A small buffer fills many times: PMBIRQ is serviced as arm_spe_pmu does and no record is lost. */
static void test_buffer_service(void **state)
{
    (void)state;
    char dir[512];
    outdir(dir, sizeof dir, "service");
    assert_int_equal(run_plugin(dir, "hot", "16384 400", "interval=256,buffer=4096"), 0);
    cJSON *j = summary(dir);
    const cJSON *v0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "vcpus"), 0);
    uint64_t irqs = num(v0, "pmbirq");
    assert_true(irqs >= 10);
    assert_int_equal(num(v0, "serviced"), irqs);
    assert_int_equal(num(v0, "fatal"), 0);
    assert_int_equal(num(v0, "records_discarded"), 0);
    assert_int_equal(num(v0, "records_written"), num(v0, "samples"));
    assert_int_equal(num(v0, "bytes_dumped"), num(v0, "bytes_written"));
    char path[1024];
    snprintf(path, sizeof path, "%s/spe.bin", dir);
    recs rs = decode(path);
    assert_int_equal(rs.n, num(v0, "samples"));
    free(rs.r);
    cJSON_Delete(j);
}

/* The first data line of a perf report --stdio output, and its percentage. */
static char *first_line(const char *path, double *pct)
{
    char *s = slurp(path, NULL);
    assert_non_null(s);
    char *line = NULL;
    for (char *save = NULL, *t = strtok_r(s, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) {
        while (*t == ' ')
            t++;
        if (*t && *t != '#' && strchr(t, '%')) {
            line = strdup(t);
            break;
        }
    }
    free(s);
    assert_non_null(line);
    *pct = strtod(line, NULL);
    return line;
}

/* Debian's perf resolves the samples to symbols through the MMAP2 events: the hot function is
 * first, with most of the samples, in the instructions view and in the memory view. */
static void test_perf_report_hot_function(void **state)
{
    (void)state;
    char dir[512];
    outdir(dir, sizeof dir, "report");
    assert_int_equal(run_plugin(dir, "hot", "16384 2000", "interval=512"), 0);
    assert_int_equal(sh("%s report --stdio --itrace=i1i --sort sym -i %s/perf.data >%s/report.txt 2>%s/report.err",
                        PERF, dir, dir, dir), 0);
    char path[1024];
    snprintf(path, sizeof path, "%s/report.txt", dir);
    double pct = 0;
    char *l = first_line(path, &pct);
    print_message("perf report: %s\n", l);
    assert_non_null(strstr(l, "armprof_hot_loop"));
    assert_true(pct > 80.0);
    free(l);
    /* perf report --mem-mode: the data symbols' view of the same loads */
    assert_int_equal(sh("%s report --stdio --mem-mode --sort sym -i %s/perf.data 2>/dev/null "
                        "| sed -n \"/of event 'memory'/,\\$p\" >%s/mem.txt", PERF, dir, dir), 0);
    snprintf(path, sizeof path, "%s/mem.txt", dir);
    l = first_line(path, &pct);
    print_message("perf report --mem-mode: %s\n", l);
    assert_non_null(strstr(l, "armprof_hot_loop"));
    free(l);
    /* perf script: one line per sample of the instructions view */
    assert_int_equal(sh("%s script --itrace=i1i -F ip,sym -i %s/perf.data 2>/dev/null | grep -c armprof_hot_loop >%s/n",
                        PERF, dir, dir), 0);
    snprintf(path, sizeof path, "%s/n", dir);
    char *n = slurp(path, NULL);
    cJSON *j = summary(dir);
    assert_true((uint64_t)atoll(n) * 10 > num(j, "samples") * 8);
    free(n);
    cJSON_Delete(j);
}

/* Loads sampled in the hot function carry their data VA: inside the array the program walks. */
static void test_data_addresses_in_array(void **state)
{
    (void)state;
    char dir[512];
    outdir(dir, sizeof dir, "va");
    assert_int_equal(run_plugin(dir, "hot", "65536 100", "interval=256"), 0);
    uint64_t a, alen, h, hend;
    prog_pair(dir, "array", &a, &alen);
    prog_pair(dir, "hot", &h, &hend);
    assert_true(hend > h && hend - h < 4096);
    char path[1024];
    snprintf(path, sizeof path, "%s/spe.bin", dir);
    recs rs = decode(path);
    size_t loads = 0;
    for (size_t i = 0; i < rs.n; i++) {
        const spe_record *r = &rs.r[i];
        if (r->pc < h || r->pc >= hend || r->op_class != SPE_CLASS_LDST)
            continue;
        assert_true(r->present & SPE_R_DATA_VA);
        assert_int_equal(r->op_subclass & SPE_LDST_ST, 0);      /* the loop only loads */
        assert_true(r->data_va >= a && r->data_va < a + alen);
        assert_int_equal(r->data_va % 64, 0);                    /* one long per 64-byte line */
        loads++;
    }
    assert_true(loads >= 100);
    free(rs.r);
}

/* Share of the hot function's loads served by the dominant data source, and which one it is. */
static uint16_t dominant_source(const char *name, const char *args, double *share, uint64_t *llc_miss)
{
    char dir[512];
    outdir(dir, sizeof dir, name);
    assert_int_equal(run_plugin(dir, "hot", args, "interval=256,l1d=16K,l2=128K,llc=1M"), 0);
    uint64_t h, hend;
    prog_pair(dir, "hot", &h, &hend);
    char path[1024];
    snprintf(path, sizeof path, "%s/spe.bin", dir);
    recs rs = decode(path);
    size_t count[16] = { 0 }, total = 0;
    *llc_miss = 0;
    for (size_t i = 0; i < rs.n; i++) {
        const spe_record *r = &rs.r[i];
        if (r->pc < h || r->pc >= hend || r->op_class != SPE_CLASS_LDST)
            continue;
        assert_true(r->present & SPE_R_DATA_SOURCE);
        /* L1D refill exactly when the line was not in L1D (Events E[3]) */
        assert_int_equal(has_ev(r, SPE_EV_L1D_REFILL), r->data_source != DS_L1D);
        assert_true(has_ev(r, SPE_EV_L1D_ACCESS));
        *llc_miss += has_ev(r, SPE_EV_LLC_MISS);
        count[r->data_source & 15]++;
        total++;
    }
    assert_true(total >= 50);
    uint16_t best = 0;
    for (uint16_t k = 0; k < 16; k++)
        if (count[k] > count[best])
            best = k;
    *share = (double)count[best] / (double)total;
    free(rs.r);
    return best;
}

/* L1D 16 KiB, L2 128 KiB, LLC 1 MiB: an array walked a line at a time comes from L1D, L2, the LLC
 * and DRAM as it grows past each (LRU: a cyclic walk larger than a level misses it every time). */
static void test_data_source_follows_array_size(void **state)
{
    (void)state;
    double share;
    uint64_t miss;
    assert_int_equal(dominant_source("ds_l1", "8192 2000", &share, &miss), DS_L1D);
    assert_true(share > 0.9);
    assert_int_equal(miss, 0);
    assert_int_equal(dominant_source("ds_l2", "65536 250", &share, &miss), DS_L2);
    assert_true(share > 0.9);
    assert_int_equal(dominant_source("ds_llc", "524288 32", &share, &miss), DS_LLC);
    assert_true(share > 0.8);
    assert_int_equal(dominant_source("ds_dram", "4194304 4", &share, &miss), DS_DRAM);
    assert_true(share > 0.9);
    assert_true(miss > 0);                                       /* E[9] LLC miss */
}

/* Branches: class, COND/INDIRECT subclasses, taken and not taken from the next PC, BLR targets,
 * and mispredictions of a data-dependent branch. */
static void test_branches(void **state)
{
    (void)state;
    char dir[512];
    outdir(dir, sizeof dir, "branch");
    assert_int_equal(run_plugin(dir, "branchy", "200000", "interval=256"), 0);
    uint64_t leaf, dummy, b, bend;
    prog_pair(dir, "leaf", &leaf, &dummy);
    (void)dummy;
    prog_pair(dir, "branchy", &b, &bend);
    char path[1024];
    snprintf(path, sizeof path, "%s/spe.bin", dir);
    recs rs = decode(path);
    size_t cond = 0, cond_nt = 0, mispred = 0, blr = 0, ret = 0;
    for (size_t i = 0; i < rs.n; i++) {
        const spe_record *r = &rs.r[i];
        if (r->op_class != SPE_CLASS_BRANCH)
            continue;
        assert_true(r->present & SPE_R_TARGET);
        bool in_b = r->pc >= b && r->pc < bend, in_leaf = r->pc >= leaf && r->pc < b;
        if (in_b && (r->op_subclass & SPE_BR_COND)) {
            cond++;
            cond_nt += has_ev(r, SPE_EV_NOT_TAKEN);
            mispred += has_ev(r, SPE_EV_MISPREDICTED);
        }
        if (in_b && r->op_subclass == SPE_BR_INDIRECT) {
            assert_int_equal(r->target, leaf);                  /* BLR through leaf_ptr */
            blr++;
        }
        if (in_leaf && r->op_subclass == SPE_BR_INDIRECT) {
            assert_true(r->target >= b && r->target < bend);    /* RET back into armprof_branchy */
            ret++;
        }
    }
    print_message("cond %zu (not taken %zu, mispredicted %zu), blr %zu, ret %zu\n", cond, cond_nt, mispred, blr, ret);
    assert_true(cond >= 100);
    assert_true(cond_nt > 0 && cond_nt < cond);
    assert_true(mispred > 0 && mispred < cond);
    assert_true(blr > 0);
    assert_true(ret > 0);
    free(rs.r);
}

/* Two guest threads: each runs on its own vCPU with its own SPU, buffer and spe file, its records
 * carry its tid in CONTEXTIDR_EL1, and perf attributes the samples to both threads. */
static void test_two_threads(void **state)
{
    (void)state;
    char dir[512];
    outdir(dir, sizeof dir, "threads");
    assert_int_equal(run_plugin(dir, "threads", "", "interval=1024,rnd=off"), 0);
    char path[1024];
    snprintf(path, sizeof path, "%s/stdout", dir);
    char *out = slurp(path, NULL);
    assert_non_null(out);
    long tid[2];
    unsigned long arr[2], alen[2];
    char *p = out;
    for (int t = 0; t < 2; t++) {
        p = strstr(p, "thread ");
        assert_non_null(p);
        assert_int_equal(sscanf(p, "thread %ld array 0x%lx 0x%lx", &tid[t], &arr[t], &alen[t]), 3);
        p++;
    }
    free(out);
    cJSON *j = summary(dir);
    const cJSON *vs = cJSON_GetObjectItem(j, "vcpus");
    int found = 0;
    const char *files[2] = { NULL, NULL };
    for (int i = 0; i < cJSON_GetArraySize(vs); i++) {
        const cJSON *v = cJSON_GetArrayItem(vs, i);
        uint64_t insns = num(v, "insns");
        assert_int_equal(num(v, "samples"), insns / 1025);
        for (int t = 0; t < 2; t++) {
            if ((long)num(v, "tid") != tid[t])
                continue;
            found++;
            files[t] = cJSON_GetObjectItem(v, "file")->valuestring;
            assert_true(num(v, "samples") > 100);
            recs rs = decode(files[t]);
            assert_int_equal(rs.n, num(v, "samples"));
            for (size_t k = 0; k < rs.n; k++) {
                assert_int_equal(rs.r[k].context_el1, (uint32_t)tid[t]);
                uint64_t va = rs.r[k].data_va;
                if (!(rs.r[k].present & SPE_R_DATA_VA))
                    continue;
                /* a load from either array is from this thread's own array */
                int o = 1 - t;
                assert_false(va >= arr[o] && va < arr[o] + alen[o]);
            }
            free(rs.r);
        }
    }
    assert_int_equal(found, 2);
    assert_string_not_equal(files[0], files[1]);
    assert_int_equal(sh("%s script --itrace=i1i -F tid,ip,sym -i %s/perf.data 2>/dev/null | grep armprof_thread_loop "
                        "| awk '{print $1}' | sort -u | wc -l >%s/ntid", PERF, dir, dir), 0);
    snprintf(path, sizeof path, "%s/ntid", dir);
    char *n = slurp(path, NULL);
    assert_int_equal(atoi(n), 2);
    free(n);
    cJSON_Delete(j);
}

/* A dynamically linked program: the executable, ld.so and libc come from MMAP2 events; perf
 * still names the hot function first and attributes samples to the C library. */
static void test_dynamic_program_libraries(void **state)
{
    (void)state;
    char dir[512];
    outdir(dir, sizeof dir, "dynamic");
    assert_int_equal(run_plugin(dir, "hot-dyn", "16384 200", "interval=256"), 0);
    assert_int_equal(sh("%s report --stdio --itrace=i1i --sort dso,sym -i %s/perf.data >%s/report.txt 2>/dev/null",
                        PERF, dir, dir), 0);
    char path[1024];
    snprintf(path, sizeof path, "%s/report.txt", dir);
    double pct;
    char *l = first_line(path, &pct);
    print_message("perf report: %s\n", l);
    assert_non_null(strstr(l, "hot-dyn"));
    assert_non_null(strstr(l, "armprof_hot_loop"));
    free(l);
    char *all = slurp(path, NULL);
    assert_true(strstr(all, "libc.so.6") || strstr(all, "ld-linux-aarch64.so.1"));
    free(all);
}

/* Straight-line code in long blocks (QEMU 7.2 ends an A64 block at 200 instructions here): the
 * sample count stays exact, with the sample point anywhere inside a block. A second sample point
 * in one block execution would need a block longer than the period (257 at least), so every
 * sample here has its dynamic description (sampled_without_data == 0). */
static void test_long_blocks_exact(void **state)
{
    (void)state;
    char dir[512];
    outdir(dir, sizeof dir, "straight");
    assert_int_equal(run_plugin(dir, "straight", "1000", "interval=256,rnd=off"), 0);
    uint64_t ref = reference_insns(dir);
    cJSON *j = summary(dir);
    const cJSON *v0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "vcpus"), 0);
    assert_int_equal(num(v0, "insns"), ref);
    assert_int_equal(num(v0, "samples"), ref / 257);
    assert_int_equal(num(v0, "records_written"), ref / 257);
    assert_int_equal(num(v0, "sampled_without_data"), 0);
    cJSON_Delete(j);
}

/* PMSFCR_EL1.FT with B (filter=branch): every record is a branch, the others are filtered out;
 * with LD (filter=load) every record is a load. */
static void test_type_filters(void **state)
{
    (void)state;
    static const struct {
        const char *filter;
        uint8_t cls;
    } rows[] = { { "filter=branch", SPE_CLASS_BRANCH }, { "filter=load", SPE_CLASS_LDST } };
    for (size_t k = 0; k < 2; k++) {
        char dir[512], popts[64];
        outdir(dir, sizeof dir, k ? "filter_load" : "filter_branch");
        snprintf(popts, sizeof popts, "interval=256,%s", rows[k].filter);
        assert_int_equal(run_plugin(dir, "branchy", "100000", popts), 0);
        cJSON *j = summary(dir);
        const cJSON *v0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "vcpus"), 0);
        assert_true(num(v0, "filtered_out") > 0);
        assert_int_equal(num(v0, "records_written") + num(v0, "filtered_out"), num(v0, "samples"));
        char path[1024];
        snprintf(path, sizeof path, "%s/spe.bin", dir);
        recs rs = decode(path);
        assert_int_equal(rs.n, num(v0, "records_written"));
        assert_true(rs.n > 50);
        for (size_t i = 0; i < rs.n; i++) {
            assert_int_equal(rs.r[i].op_class, rows[k].cls);
            if (rows[k].cls == SPE_CLASS_LDST)
                assert_int_equal(rs.r[i].op_subclass & SPE_LDST_ST, 0);
        }
        free(rs.r);
        cJSON_Delete(j);
    }
}

/* trace=on: every executed instruction, in order, as an operation-trace line that the trace
 * reader (armprof-run --trace, armprof-vp) loads; trace_ops caps the count. */
static void test_operation_trace(void **state)
{
    (void)state;
    char dir[512];
    outdir(dir, sizeof dir, "trace");
    assert_int_equal(run_plugin(dir, "hot", "16384 50", "interval=256,trace=on,trace_ops=10000000"), 0);
    uint64_t ref = reference_insns(dir);
    uint64_t a, alen, h, hend;
    prog_pair(dir, "array", &a, &alen);
    prog_pair(dir, "hot", &h, &hend);
    char path[1024], err[256];
    snprintf(path, sizeof path, "%s/ops_vcpu0.trc", dir);
    wl_trace t;
    if (wl_trace_load(path, &t, err, sizeof err))
        print_error("%s\n", err);
    assert_int_equal(t.count, ref);
    size_t loads = 0, branches = 0;
    for (size_t i = 0; i + 1 < t.count; i++) {
        const spu_op *op = &t.ops[i];
        if (op->pc < h || op->pc >= hend)
            continue;
        if (op->op_class == SPE_CLASS_LDST) {
            assert_true(op->flags & SPU_OP_HAS_VA);
            assert_true(op->data_va >= a && op->data_va < a + alen);
            loads++;
        }
        if (op->op_class == SPE_CLASS_BRANCH && (op->op_subclass & SPE_BR_COND)) {
            /* taken exactly when the next operation is not the fall-through */
            bool not_taken = (op->events >> SPE_EV_NOT_TAKEN) & 1;
            assert_int_equal(not_taken, t.ops[i + 1].pc == op->pc + 4);
            branches++;
        }
    }
    assert_true(loads >= 10000);
    assert_true(branches >= 10000);
    wl_trace_free(&t);
    /* the cap */
    assert_int_equal(run_plugin(dir, "hot", "16384 50", "trace=on,trace_ops=1000"), 0);
    assert_int_equal(wl_trace_load(path, &t, err, sizeof err), 0);
    assert_int_equal(t.count, 1000);
    wl_trace_free(&t);
}

/* Mean latencies of the sampled loads of the function in [lo, hi): total, issue, and total minus
 * issue (the memory's own latency, queueing included); and the share from DRAM. */
typedef struct lat_stats {
    double total, issue, memory, dram_share;
    size_t loads;
} lat_stats;

static lat_stats loop_latencies(const char *dir)
{
    uint64_t lo, hi;
    prog_pair(dir, "loop", &lo, &hi);
    char path[1024];
    snprintf(path, sizeof path, "%s/spe.bin", dir);
    recs rs = decode(path);
    lat_stats st = { 0 };
    double tot = 0, iss = 0;
    size_t dram = 0;
    for (size_t i = 0; i < rs.n; i++) {
        const spe_record *r = &rs.r[i];
        if (r->pc < lo || r->pc >= hi || r->op_class != SPE_CLASS_LDST || (r->op_subclass & SPE_LDST_ST))
            continue;
        assert_true(r->present & SPE_R_TOTAL_LAT);
        assert_true(r->present & SPE_R_ISSUE_LAT);
        assert_true(r->issue_lat <= r->total_lat);
        tot += r->total_lat;
        iss += r->issue_lat;
        dram += r->data_source == DS_DRAM;
        st.loads++;
    }
    free(rs.r);
    assert_true(st.loads >= 100);
    st.total = tot / (double)st.loads;
    st.issue = iss / (double)st.loads;
    st.memory = st.total - st.issue;
    st.dram_share = (double)dram / (double)st.loads;
    return st;
}

/* Cycles per instruction of a run (CPU_CYCLES / INST_RETIRED of vCPU 0). */
static double run_cpi(const char *dir)
{
    cJSON *j = summary(dir);
    const cJSON *v0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "vcpus"), 0);
    const cJSON *pmu = cJSON_GetObjectItem(v0, "pmu");
    double cpi = (double)num(pmu, "CPU_CYCLES") / (double)num(pmu, "INST_RETIRED");
    assert_int_equal(num(pmu, "CPU_CYCLES"), num(pmu, "INST_RETIRED") + num(cJSON_GetObjectItem(v0, "memsys"),
                                                                           "stall_cycles"));
    cJSON_Delete(j);
    return cpi;
}

/* The queueing model on real programs, 4 MiB arrays past a 1 MiB LLC: a pointer chase (each load's
 * address is the previous load's value) waits for every load before it issues (issue latency of
 * about a DRAM access) but finds the memory unloaded; a stream of independent loads overlaps its
 * misses until the bandwidth runs out, so each load's memory latency grows with the queue while
 * the program stalls far less per instruction. */
static void test_latency_grows_with_load(void **state)
{
    (void)state;
    static const char *opts = "interval=256,l1d=16K,l2=128K,llc=1M";
    char chase[512], stream[512];
    outdir(chase, sizeof chase, "chase");
    outdir(stream, sizeof stream, "stream");
    assert_int_equal(run_plugin(chase, "chase", "4194304 300000", opts), 0);
    assert_int_equal(run_plugin(stream, "stream", "4194304 300000", opts), 0);
    lat_stats c = loop_latencies(chase), s = loop_latencies(stream);
    double cpi_c = run_cpi(chase), cpi_s = run_cpi(stream);
    print_message("chase:  %zu loads, total %.1f, issue %.1f, memory %.1f, DRAM %.0f%%, CPI %.2f\n", c.loads, c.total,
                  c.issue, c.memory, 100 * c.dram_share, cpi_c);
    print_message("stream: %zu loads, total %.1f, issue %.1f, memory %.1f, DRAM %.0f%%, CPI %.2f\n", s.loads, s.total,
                  s.issue, s.memory, 100 * s.dram_share, cpi_s);
    assert_true(c.dram_share > 0.8 && s.dram_share > 0.8);
    /* the chase: a DRAM access (150 cycles) of waiting before each load issues, unloaded memory */
    assert_true(c.issue > 120);
    assert_true(c.memory >= 150 && c.memory < 190);
    /* the stream: queueing at 4 bytes per cycle makes each load's memory latency longer */
    assert_true(s.memory > 1.3 * c.memory);
    assert_true(s.issue < c.issue / 4);
    /* and CPU_CYCLES grows with the stalls: the chase's CPI is far higher */
    assert_true(cpi_c > 3 * cpi_s);
    assert_true(cpi_s > 1.2);
}

/* The per-sample fields perf reads from perf.data with Debian's perf: `perf script -F
 * ip,sym,weight` (the WEIGHT attribute), and per record the weight (total latency), data address
 * and data source of our own decoding of spe.bin, in order. */
static void test_perf_script_weight_addr_data_src(void **state)
{
    (void)state;
    char dir[512], path[1024];
    outdir(dir, sizeof dir, "weight");
    assert_int_equal(run_plugin(dir, "hot", "2097152 20", "interval=1024,l1d=16K,l2=128K,llc=1M"), 0);
    /* the command of the issue: no error, one weight per line */
    assert_int_equal(sh("%s script -F ip,sym,weight -i %s/perf.data >%s/w.txt 2>%s/w.err", PERF, dir, dir, dir), 0);
    snprintf(path, sizeof path, "%s/w.err", dir);
    char *err = slurp(path, NULL);
    assert_null(strstr(err, "WEIGHT"));
    free(err);
    /* one instruction sample per record */
    assert_int_equal(sh("%s script --itrace=i1i -F ip,weight,addr,data_src -i %s/perf.data >%s/f.txt 2>/dev/null",
                        PERF, dir, dir), 0);
    snprintf(path, sizeof path, "%s/spe.bin", dir);
    recs rs = decode(path);
    snprintf(path, sizeof path, "%s/f.txt", dir);
    char *out = slurp(path, NULL);
    assert_non_null(out);
    size_t k = 0, loads = 0, levels[4] = { 0 };
    for (char *save = NULL, *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save), k++) {
        assert_true(k < rs.n);
        const spe_record *r = &rs.r[k];
        /* perf's field order: addr, data_src (value |OP ...|LVL ...|...|BLK ...), weight, ip */
        char *p = line;
        unsigned long long addr = strtoull(p, &p, 16);
        char *end = line + strlen(line), *ip_at, *w_at;
        while (end > line && end[-1] == ' ')
            end--;
        for (ip_at = end; ip_at > line && ip_at[-1] != ' '; ip_at--)
            ;
        for (w_at = ip_at; w_at > line && w_at[-1] == ' '; w_at--)
            ;
        for (; w_at > line && w_at[-1] != ' '; w_at--)
            ;
        unsigned long long ip = strtoull(ip_at, NULL, 16), weight = strtoull(w_at, NULL, 10);
        assert_int_equal(ip, r->pc);
        assert_int_equal(weight, r->present & SPE_R_TOTAL_LAT ? r->total_lat : 0);
        if (r->op_class != SPE_CLASS_LDST)
            continue;
        assert_int_equal(addr, r->data_va);
        if (r->op_subclass & SPE_LDST_ST)
            continue;                                    /* perf 6.1: no level for stores */
        static const struct { uint16_t ds; const char *lvl; } lv[] = {
            { DS_L1D, "|LVL L1" }, { DS_L2, "|LVL L2" }, { DS_LLC, "|LVL L3" }, { DS_DRAM, "RAM" } };
        for (int l = 0; l < 4; l++)
            if (r->data_source == lv[l].ds) {
                if (!strstr(p, lv[l].lvl))
                    fail_msg("record %zu: data source 0x%x, perf says: %s", k, r->data_source, line);
                levels[l]++;
            }
        loads++;
    }
    print_message("%zu records, %zu loads: L1D %zu, L2 %zu, LLC %zu, DRAM %zu\n", rs.n, loads, levels[0], levels[1],
                  levels[2], levels[3]);
    assert_int_equal(k, rs.n);
    assert_true(loads > 100);
    assert_true(levels[3] > 100);                         /* DRAM, and another level too */
    assert_true(levels[0] + levels[1] + levels[2] > 0);
    free(out);
    free(rs.r);
    /* perf mem report: the hot function's loads, weighted */
    assert_int_equal(sh("%s mem report --stdio -i %s/perf.data 2>/dev/null | grep -c armprof_hot_loop >%s/n",
                        PERF, dir, dir), 0);
    snprintf(path, sizeof path, "%s/n", dir);
    char *n = slurp(path, NULL);
    assert_true(atoi(n) > 0);
    free(n);
}

/* perf.data marks the arm_spe event as perf record -e arm_spe//u does (exclude_kernel): the SPU
 * samples EL0 only, so perf report looks for no kernel symbols and prints no kallsyms warning. */
static void test_perf_report_no_kernel_warning(void **state)
{
    (void)state;
    char dir[512], path[1024];
    outdir(dir, sizeof dir, "nokernel");
    assert_int_equal(run_plugin(dir, "hot", "16384 50", "interval=1024"), 0);
    snprintf(path, sizeof path, "%s/perf.data", dir);
    size_t len = 0;
    char *data = slurp(path, &len);
    assert_true(len > 104 + 128);
    uint64_t attrs = 0, flags = 0;
    memcpy(&attrs, data + 24, 8);                          /* perf_file_header.attrs.offset */
    memcpy(&flags, data + attrs + 40, 8);                  /* perf_event_attr flags */
    free(data);
    assert_true(flags & (1u << 5));                        /* exclude_kernel */
    assert_int_equal(sh("%s report --stdio -i %s/perf.data >/dev/null 2>%s/err", PERF, dir, dir), 0);
    snprintf(path, sizeof path, "%s/err", dir);
    char *err = slurp(path, NULL);
    assert_null(strstr(err, "kallsyms"));
    free(err);
}

/* A bad option: a message naming it, and QEMU exits with a non-zero status. */
static void test_bad_options(void **state)
{
    (void)state;
    static const struct {
        const char *opt, *named;
    } rows[] = {
        { "bogus=1", "bogus" },
        { "interval=100", "interval" },
        { "interval=abc", "interval" },
        { "rnd=maybe", "rnd" },
        { "buffer=1000", "buffer" },
        { "l1d=3000", "l1d" },
        { "filter=loads", "filter" },
        { "cpi=0", "cpi" },
        { "novalue", "novalue" },
        { "trace=sometimes", "trace" },
        { "mshrs=0", "mshrs" },
        { "dram_bw=x", "dram_bw" },
        { "l1d_ways=3", "l1d_ways" },
    };
    char dir[512];
    outdir(dir, sizeof dir, "badopt");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        int st = run_plugin(dir, "hot", "4096 1", rows[i].opt);
        assert_int_not_equal(st, 0);
        char path[1024];
        snprintf(path, sizeof path, "%s/stderr", dir);
        char *err = slurp(path, NULL);
        assert_non_null(err);
        if (!strstr(err, rows[i].named) || !strstr(err, "armprof-qemu"))
            print_error("option %s: stderr was: %s\n", rows[i].opt, err);
        assert_non_null(strstr(err, rows[i].named));
        free(err);
    }
}

int main(void)
{
    mkdir(TEST_OUT, 0777);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_samples_exact_rnd0),
        cmocka_unit_test(test_buffer_service),
        cmocka_unit_test(test_perf_report_hot_function),
        cmocka_unit_test(test_data_addresses_in_array),
        cmocka_unit_test(test_data_source_follows_array_size),
        cmocka_unit_test(test_branches),
        cmocka_unit_test(test_two_threads),
        cmocka_unit_test(test_dynamic_program_libraries),
        cmocka_unit_test(test_long_blocks_exact),
        cmocka_unit_test(test_type_filters),
        cmocka_unit_test(test_operation_trace),
        cmocka_unit_test(test_latency_grows_with_load),
        cmocka_unit_test(test_perf_script_weight_addr_data_src),
        cmocka_unit_test(test_perf_report_no_kernel_warning),
        cmocka_unit_test(test_bad_options),
    };
    return cmocka_run_group_tests_name("qemu_plugin", tests, NULL, NULL);
}
