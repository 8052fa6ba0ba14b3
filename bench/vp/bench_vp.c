/* SPDX-License-Identifier: Apache-2.0 */
/* bench_vp.c: armprof-vp records per CPU second against the bare C models on the same records (interval 256), and 32 PEs against one, in alternating rounds. */
#define _DEFAULT_SOURCE /* wait4 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "armprof/pmu.h"
#include "armprof/spu.h"
#include "workload.h"
#define ARMPROF_BENCH_WANT_SPU_OP
#include "../common/bench_util.h"

/*
 * Records per CPU second of armprof-vp against the bare C models making the same records
 * (run_vp_loop() below), and the cost of 32 PEs against one. armprof-vp runs as a child
 * process; its CPU seconds come from wait4() (user + system) less those of a run of 1000
 * operations with the same PEs and timing in the same round (process start-up, elaboration,
 * exit). The yardstick runs in this process, timed with CLOCK_PROCESS_CPUTIME_ID. CPU time
 * rather than wall time, so that other processes on a shared machine disturb the figures less.
 * Rounds alternate the sides; each figure is printed as min / median / max over the rounds.
 */

static const char *vp_path;
static char tmpdir[] = "/tmp/bench-vp-XXXXXX";

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void min_med_max(double *v, int n, double *mn, double *med, double *mx)
{
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    *mn = v[0];
    *mx = v[n - 1];
    *med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Sum of every `"key": number` in the text (one per PE for records_written). */
static double json_sum(const char *text, const char *key, int *found)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    double sum = 0;
    *found = 0;
    for (const char *s = strstr(text, pat); s; s = strstr(s + 1, pat)) {
        sum += strtod(s + strlen(pat), NULL);
        (*found)++;
    }
    return sum;
}

/* Runs armprof-vp on a scenario of `pes` PEs, `ops` operations each, interval 256; returns its
 * CPU seconds (user + system), its host_seconds in *wall and the records written by all PEs in
 * *records. Exits on any failure. */
static const char *vp_extra = ""; /* more scenario lines (pe_threads) */

static double run_vp(unsigned pes, unsigned long long ops, const char *timing, double *records, double *wall)
{
    char yaml[256], out[256], summary[300];
    snprintf(yaml, sizeof yaml, "%s/scenario.yaml", tmpdir);
    snprintf(out, sizeof out, "%s/out", tmpdir);
    snprintf(summary, sizeof summary, "%s/summary.json", out);
    FILE *f = fopen(yaml, "w");
    if (!f) {
        perror(yaml);
        exit(1);
    }
    fprintf(f, "name: bench-vp\npes: %u\nops: %llu\nseed: 1\ntiming: %s\n%sspe:\n  interval: 256\n", pes, ops, timing,
            vp_extra);
    fclose(f);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(1);
    }
    if (pid == 0) {
        setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
        if (!freopen("/dev/null", "w", stdout))
            _exit(127);
        execl(vp_path, vp_path, yaml, "--out", out, "--quiet", (char *)NULL);
        perror(vp_path);
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
        ;
    double cpu = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
                 (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "bench-vp: %s %s failed (status %d)\n", vp_path, yaml, status);
        exit(1);
    }
    f = fopen(summary, "r");
    if (!f) {
        perror(summary);
        exit(1);
    }
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    int found = 0;
    double host = json_sum(text, "host_seconds", &found);
    if (found != 1) {
        fprintf(stderr, "bench-vp: no host_seconds in %s\n", summary);
        exit(1);
    }
    *records = json_sum(text, "records_written", &found);
    if (found != (int)pes || host <= 0) {
        fprintf(stderr, "bench-vp: %s: %d records_written entries for %u PEs\n", summary, found, pes);
        exit(1);
    }
    *wall = host;
    return cpu;
}

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* CPU seconds of a vp run less those of a 1000-operation run with the same PEs (at least 1 ms). */
static double vp_cpu(unsigned pes, unsigned long long ops, const char *timing, double *records, double *wall)
{
    double rec0, wall0;
    double base = run_vp(pes, 1000, timing, &rec0, &wall0);
    double t = run_vp(pes, ops, timing, records, wall) - base;
    return t > 1e-3 ? t : 1e-3;
}

/*
 * The yardstick: the bare C models (SPU and PMU through the C API) producing the same records
 * from the same operation stream as armprof-vp's PE 0 at `timing: off`. This is armprof-vp's
 * PE loop (platform/pe.cpp), SPE driver (platform/spe_agent.cpp) and perf session
 * (platform/pmu_agent.cpp) with SystemC, TLM, bus, SMMU and quantum keeper taken out: the same
 * SPU configuration and seeds (platform/soc.cpp), PE context (EL2 boot writing PMSCR_EL2.{PCT,PA},
 * then EL1, HCR_EL2.VM, CONTEXTIDR_EL1 0x100), the buffer at the same VA in a flat memory
 * answering every write at once, the handler irq_latency cycles after PMBIRQ is seen, the
 * buffer's contents written to a file as the driver consumes them, and a PMU counting the four
 * SPE events and CPU_CYCLES. main() checks that its file equals armprof-vp's spe.bin byte for
 * byte, so that both sides are timed on the same records.
 */
#define VPL_BUF_VA 0xFFFF800000000000ull /* Platform::BUF_VA (platform/soc.h), PE 0 */
#define VPL_BUF_BYTES 65536u             /* spe.buffer_bytes default */
#define VPL_IRQ_LATENCY 2000u            /* spe.irq_latency default */

typedef struct vpl_ctx {
    spu_t *spu;
    pmu_t *pmu;
    uint8_t *mem;
    bool level;
    uint32_t latency;
    FILE *dump;
} vpl_ctx;

static armprof_mem_result vpl_write(void *u, uint64_t a, const uint8_t *d, uint32_t n, const armprof_regime *rg)
{
    (void)rg;
    vpl_ctx *c = u;
    armprof_mem_result r = { .status = ARMPROF_MEM_OK };
    if (a < VPL_BUF_VA || a - VPL_BUF_VA + n > VPL_BUF_BYTES) {
        fprintf(stderr, "bench-vp: yardstick write outside the buffer at 0x%llx\n", (unsigned long long)a);
        exit(1);
    }
    memcpy(c->mem + (a - VPL_BUF_VA), d, n);
    r.written = n;
    r.latency = c->latency;
    return r;
}

static void vpl_irq(void *u, bool level) { ((vpl_ctx *)u)->level = level; }
static void vpl_event(void *u, uint16_t ev, uint64_t n) { pmu_event_sink(((vpl_ctx *)u)->pmu, ev, n); }
static void vpl_freeze(void *u) { pmu_freeze_sink(((vpl_ctx *)u)->pmu); }

static uint64_t vpl_rd(spu_t *s, uint32_t enc)
{
    uint64_t v = 0;
    spu_reg_read(s, enc, &v);
    return v;
}

static void vpl_copy_out(vpl_ctx *c, uint64_t upto)
{
    if (upto > VPL_BUF_VA && upto <= VPL_BUF_VA + VPL_BUF_BYTES && c->dump)
        fwrite(c->mem, 1, (size_t)(upto - VPL_BUF_VA), c->dump);
}

/* SpeAgent::on_irq (buffer full; any other management event stops the session, as there). */
static bool vpl_service(vpl_ctx *c, bool *running)
{
    spu_t *s = c->spu;
    spu_psb_csync(s);
    uint64_t sr = vpl_rd(s, SPU_PMBSR_EL1);
    if (!(sr & (1ull << 17)))
        return false;
    uint64_t ptr = vpl_rd(s, SPU_PMBPTR_EL1);
    bool dl = sr & (1ull << 19), ea = sr & (1ull << 18);
    unsigned ec = (unsigned)((sr >> 26) & 0x3f);
    if (ec == ARMPROF_EC_OTHER && !ea) {
        if (!dl)
            vpl_copy_out(c, ptr);
        spu_reg_write(s, SPU_PMBPTR_EL1, VPL_BUF_VA);
        spu_reg_write(s, SPU_PMBSR_EL1, 0);
        return true;
    }
    if (!dl && !ea)
        vpl_copy_out(c, ptr);
    spu_reg_write(s, SPU_PMBLIMITR_EL1, 0);
    spu_reg_write(s, SPU_PMBSR_EL1, 0);
    *running = false;
    return true;
}

/* Runs `ops` operations of PE 0 of a `seed` scenario at interval 256, each buffer write taking
 * `latency` cycles; the consumed buffer goes to `dump` (may be NULL). Returns the records
 * written; *cpu gets the CPU seconds of the run (set-up and teardown included, while
 * armprof-vp's start-up and elaboration are taken out of its side). */
static uint64_t run_vp_loop(unsigned long long ops, uint32_t latency, FILE *dump, double *cpu)
{
    const uint32_t seed = 1;
    vpl_ctx c;
    memset(&c, 0, sizeof c);
    c.dump = dump;
    c.latency = latency;
    c.mem = calloc(1, VPL_BUF_BYTES);
    if (!c.mem) {
        fprintf(stderr, "bench-vp: out of memory\n");
        exit(1);
    }
    double t0 = cpu_now();
    /* The PMU of PE 0 (Platform::build_pmu) and its perf session (PmuAgent::start). */
    pmu_config pc;
    pmu_config_default(&pc);
    if (pc.num_counters < 5)
        pc.num_counters = 5;
    if (pmu_open(&pc, NULL, &c.pmu) != ARMPROF_OK) {
        fprintf(stderr, "bench-vp: pmu_open failed\n");
        exit(1);
    }
    armprof_pe_ctx ctx;
    armprof_pe_ctx_default(&ctx);
    ctx.el = 1;
    ctx.hcr_vm = true;
    ctx.contextidr_el1 = 0x100;
    pmu_set_pe_context(c.pmu, &ctx);
    /* The SPU of PE 0 (Platform's constructor). */
    spu_config sc;
    spu_config_default(&sc);
    sc.pe_index = 0;
    sc.rng_seed = (uint32_t)(seed * 2654435761u + 0 + 1);
    armprof_host_ops hops = { .mem_write = vpl_write, .irq = vpl_irq, .event = vpl_event,
                              .pmu_freeze = vpl_freeze, .user = &c };
    if (spu_open(&sc, &hops, &c.spu) != ARMPROF_OK) {
        fprintf(stderr, "bench-vp: spu_open failed\n");
        exit(1);
    }
    spu_t *s = c.spu;
    ctx.el = 2;
    spu_set_pe_context(s, &ctx);
    spu_reg_write(s, SPU_PMSCR_EL2, (1u << 6) | (1u << 4)); /* PMSCR_EL2.{PCT,PA} */
    ctx.el = 1;
    spu_set_pe_context(s, &ctx);
    /* Pe::begin_session: the driver's probe, the perf session, then the SPE session. */
    vpl_rd(s, SPU_PMBIDR_EL1);
    vpl_rd(s, SPU_PMSIDR_EL1);
    static const uint16_t events[5] = { ARMPROF_EV_SAMPLE_POP, ARMPROF_EV_SAMPLE_FEED, ARMPROF_EV_SAMPLE_FILTRATE,
                                        ARMPROF_EV_SAMPLE_COLLISION, PMU_EV_CPU_CYCLES };
    pmu_reg_write(c.pmu, PMU_PMCNTENCLR_EL0, ~0ull);
    pmu_reg_write(c.pmu, PMU_PMINTENCLR_EL1, ~0ull);
    pmu_reg_write(c.pmu, PMU_PMOVSCLR_EL0, ~0ull);
    uint64_t enabled = 1ull << PMU_CYCLE_COUNTER_ID;
    for (unsigned i = 0; i < 5; i++) {
        pmu_reg_write(c.pmu, PMU_PMEVTYPER_EL0(i), events[i]);
        enabled |= 1ull << i;
    }
    pmu_reg_write(c.pmu, PMU_PMCCFILTR_EL0, 0);
    pmu_reg_write(c.pmu, PMU_PMCR_EL0, 0xC7); /* E, P, C, LC, LP */
    pmu_reg_write(c.pmu, PMU_PMCNTENSET_EL0, enabled);
    spu_reg_write(s, SPU_PMSFCR_EL1, 0);
    spu_reg_write(s, SPU_PMSEVFR_EL1, 0);
    spu_reg_write(s, SPU_PMSLATFR_EL1, 0);
    spu_reg_write(s, SPU_PMSIRR_EL1, (256u >> 8) << 8 | 1u); /* INTERVAL, RND */
    spu_reg_write(s, SPU_PMSICR_EL1, vpl_rd(s, SPU_PMSIRR_EL1));
    spu_reg_write(s, SPU_PMBPTR_EL1, VPL_BUF_VA);
    spu_reg_write(s, SPU_PMBLIMITR_EL1, (VPL_BUF_VA + VPL_BUF_BYTES) | 1);
    spu_reg_write(s, SPU_PMBSR_EL1, 0);
    spu_reg_write(s, SPU_PMSCR_EL1, (1u << 5) | (1u << 4) | (1u << 3) | 3u); /* TS, PA, CX, E1SPE, E0SPE */
    bool running = true;

    /* Pe::run without SystemC. */
    wl_config wc;
    wl_config_default(&wc);
    wc.seed = seed * 1000003u + 0;
    wl_gen g;
    wl_init(&g, &wc);
    uint64_t done = 0, irq_at = 0;
    bool irq_seen = false;
    while (done < ops) {
        if (c.level && !irq_seen) {
            irq_seen = true;
            irq_at = spu_now(s);
        }
        if (irq_seen && spu_now(s) >= irq_at + VPL_IRQ_LATENCY) {
            vpl_service(&c, &running);
            irq_seen = c.level;
            if (!irq_seen)
                pmu_set_spe_freeze(c.pmu, false);
            continue;
        }
        uint64_t remaining = ops - done, step;
        uint64_t k = spu_ops_until_sample(s);
        if (k == 0) {
            spu_op op;
            wl_next(&g, &op);
            spu_retire(s, &op);
            step = 1;
        } else {
            uint64_t cyc = spu_cycles_to_next_event(s);
            if (irq_seen) {
                uint64_t due = irq_at + VPL_IRQ_LATENCY - spu_now(s);
                if (due < cyc)
                    cyc = due ? due : 1;
            }
            step = k < remaining ? k : remaining;
            if (cyc != UINT64_MAX) {
                uint64_t lim = cyc; /* one operation per cycle */
                if (lim < step)
                    step = lim;
            }
            if (k != UINT64_MAX)
                step = spu_skip(s, step);
            if (!step)
                step = 1;
        }
        spu_advance(s, step); /* one operation per cycle */
        uint64_t sn = spu_now(s), pn = pmu_now(c.pmu);
        if (sn > pn)
            pmu_advance(c.pmu, sn - pn);
        done += step;
    }
    /* SpeAgent::stop, then the PMU session's end. */
    spu_reg_write(s, SPU_PMSCR_EL1, 0);
    spu_psb_csync(s);
    uint64_t sr = vpl_rd(s, SPU_PMBSR_EL1);
    if (running && !(sr & (1ull << 19)))
        vpl_copy_out(&c, vpl_rd(s, SPU_PMBPTR_EL1));
    spu_reg_write(s, SPU_PMBLIMITR_EL1, 0);
    uint64_t sn = spu_now(s), pn = pmu_now(c.pmu);
    if (sn > pn)
        pmu_advance(c.pmu, sn - pn);
    pmu_reg_write(c.pmu, PMU_PMCNTENCLR_EL0, enabled);
    spu_stats st;
    spu_get_stats(s, &st);
    spu_close(s);
    pmu_close(c.pmu);
    *cpu = cpu_now() - t0;
    free(c.mem);
    return st.records_written;
}


/*
 * For reference only: the SPU model's raw record rate as
 * bench-spu measures it (one fixed load operation, spu_skip to each sample point, retire, one
 * cycle, 64 MiB flat buffer, no workload generator, no service). The "~37 ns a record"
 * is this figure.
 */
#define RAW_BUF (64u << 20)
static uint8_t *raw_mem;

static armprof_mem_result raw_write(void *u, uint64_t a, const uint8_t *d, uint32_t n, const armprof_regime *rg)
{
    (void)u;
    (void)rg;
    memcpy(raw_mem + (a & (RAW_BUF - 1)), d, n);
    return (armprof_mem_result){ .status = ARMPROF_MEM_OK };
}

static double run_raw(unsigned long long records) /* records per CPU second */
{
    if (!raw_mem && !(raw_mem = calloc(1, RAW_BUF))) {
        fprintf(stderr, "bench-vp: out of memory\n");
        exit(1);
    }
    spu_config c;
    spu_config_default(&c);
    c.max_inflight = 16;
    c.fifo_bytes = 64 * 1024;
    c.drain_bytes_per_cycle = 64;
    armprof_host_ops ops = { .mem_write = raw_write };
    spu_t *s;
    if (spu_open(&c, &ops, &s) != ARMPROF_OK) {
        fprintf(stderr, "bench-vp: spu_open failed\n");
        exit(1);
    }
    armprof_pe_ctx ctx;
    armprof_pe_ctx_default(&ctx);
    spu_set_pe_context(s, &ctx);
    spu_reg_write(s, SPU_PMSIRR_EL1, 256);
    spu_reg_write(s, SPU_PMBPTR_EL1, 0x100000000ull);
    spu_reg_write(s, SPU_PMBLIMITR_EL1, (0x100000000ull + RAW_BUF) | 1);
    spu_reg_write(s, SPU_PMSCR_EL1, (1u << 5) | 3);
    spu_op op;
    bench_fixed_op(&op);
    spu_stats st0, st1;
    spu_get_stats(s, &st0);
    double t0 = cpu_now();
    for (unsigned long long done = 0; done < records; done += 1000) {
        for (int i = 0; i < 1000; i++) {
            spu_skip(s, UINT64_MAX);
            spu_retire(s, &op);
            spu_advance(s, 1);
        }
        spu_psb_csync(s);
        spu_reg_write(s, SPU_PMBPTR_EL1, 0x100000000ull);
        spu_reg_write(s, SPU_PMBSR_EL1, 0);
    }
    double t = cpu_now() - t0;
    spu_get_stats(s, &st1);
    spu_close(s);
    return (double)(st1.records_written - st0.records_written) / t;
}

static void usage(void)
{
    fprintf(stderr, "usage: bench-vp [--rounds N] [--ops N] [--pe-ops N] [--vp PATH]\n"
                    "  --ops N     operations of the rate comparison (default 100000000)\n"
                    "  --pe-ops N  operations per PE of the 32-PE comparison (default 5000000)\n"
                    "  --vp PATH   armprof-vp to measure (default: beside this program)\n");
    exit(2);
}

int main(int argc, char **argv)
{
    int rounds = 7;
    unsigned long long ops = 100000000ull, pe_ops = 5000000ull;
    static char self_dir[4096];
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && strcmp(argv[i], "--rounds") == 0)
            rounds = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--ops") == 0)
            ops = strtoull(argv[++i], NULL, 0);
        else if (i + 1 < argc && strcmp(argv[i], "--pe-ops") == 0)
            pe_ops = strtoull(argv[++i], NULL, 0);
        else if (i + 1 < argc && strcmp(argv[i], "--vp") == 0)
            vp_path = argv[++i];
        else
            usage();
    }
    if (rounds < 1 || rounds > 100 || ops == 0 || pe_ops == 0)
        usage();
    if (!vp_path) {
        ssize_t n = readlink("/proc/self/exe", self_dir, sizeof self_dir - 32);
        if (n <= 0) {
            perror("/proc/self/exe");
            return 1;
        }
        self_dir[n] = 0;
        char *slash = strrchr(self_dir, '/');
        strcpy(slash ? slash + 1 : self_dir, "armprof-vp");
        vp_path = self_dir;
    }
    if (access(vp_path, X_OK) != 0) {
        fprintf(stderr, "bench-vp: %s: not an executable (build armprof-vp, or pass --vp)\n", vp_path);
        return 1;
    }
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }

    /*
     * 1. Records per CPU second, one PE, interval 256, against the bare C models on the same
     * records (run_vp_loop above), at each memory timing: armprof-vp at `timing: off` against
     * the yardstick's writes answered at once; at its default `timing: lt` (each write takes
     * the DRAM port's time: 30 ns by DMI, more where a walk or the bus comes first) against the
     * yardstick's writes taking 30 cycles, so that the model's writer does the same work on
     * both sides. Each side's spe.bin must equal the yardstick's byte for byte (checked in
     * every round).
     */
    static const char *const timing[2] = { "off", "lt" };
    static const uint32_t yard_latency[2] = { 0, 30 };
    double ratio[2][100], yard_rate[2][100], vp_rate[2][100], raw_rate[100], raw_ratio[100];
    double yard_recs[2] = { 0, 0 }, vp_recs[2] = { 0, 0 };
    char yard_path[300], vp_bin[300];
    snprintf(yard_path, sizeof yard_path, "%s/yardstick.bin", tmpdir);
    snprintf(vp_bin, sizeof vp_bin, "%s/out/spe.bin", tmpdir);
    for (int r = 0; r < rounds; r++) {
        raw_rate[r] = run_raw(200000);
        for (int m = 0; m < 2; m++) {
            FILE *yf = fopen(yard_path, "wb");
            if (!yf) {
                perror(yard_path);
                return 1;
            }
            double ty;
            yard_recs[m] = (double)run_vp_loop(ops, yard_latency[m], yf, &ty);
            if (fclose(yf) != 0) {
                perror(yard_path);
                return 1;
            }
            double wall;
            double tv = vp_cpu(1, ops, timing[m], &vp_recs[m], &wall);
            if (!bench_same_file(yard_path, vp_bin) || vp_recs[m] != yard_recs[m]) {
                fprintf(stderr, "bench-vp: armprof-vp (timing: %s) and the yardstick made different records "
                                "(%.0f and %.0f records; %s, %s)\n", timing[m], vp_recs[m], yard_recs[m], vp_bin,
                        yard_path);
                return 1;
            }
            yard_rate[m][r] = yard_recs[m] / (ty > 1e-3 ? ty : 1e-3);
            vp_rate[m][r] = vp_recs[m] / tv;
            ratio[m][r] = vp_rate[m][r] / yard_rate[m][r];
        }
        raw_ratio[r] = vp_rate[1][r] / raw_rate[r];
    }
    double mn, med, mx, y_med, v_med, w_med, d0, d1;
    printf("records per CPU second, interval 256, %llu operations, %d alternating rounds; yardstick: the bare\n"
           "C models (SPU + PMU by the C API) in armprof-vp's PE loop and SPE/perf drivers, without SystemC, TLM,\n"
           "bus or SMMU, making byte for byte the records armprof-vp makes (checked in every round):\n", ops, rounds);
    for (int m = 1; m >= 0; m--) {
        min_med_max(yard_rate[m], rounds, &d0, &y_med, &d1);
        min_med_max(vp_rate[m], rounds, &d0, &v_med, &d1);
        min_med_max(ratio[m], rounds, &mn, &med, &mx);
        printf("  timing: %s%s: %.0f records; yardstick (writes taking %u cycles) %.2f M/s, armprof-vp %.2f M/s median\n"
               "    ratio vp/bare model, same records (CPU time): min %.3f  median %.3f  max %.3f   (target >= 0.3)\n",
               timing[m], m ? " (armprof-vp's default)" : "", vp_recs[m], yard_latency[m], y_med / 1e6, v_med / 1e6,
               mn, med, mx);
    }
    min_med_max(raw_ratio, rounds, &mn, &med, &mx);
    min_med_max(raw_rate, rounds, &d0, &w_med, &d1);
    printf("  for reference, not the same records: the SPU model's raw record rate (bench-spu's loop: one fixed\n"
           "  operation, no workload, no PMU, no service): %.2f M/s median; vp (lt)/raw: min %.3f  median %.3f  max %.3f\n",
           w_med / 1e6, mn, med, mx);

    /*
     * 2. 32 PEs against one. One PE running 32x the operations stands for 32 runs of one PE
     * (its time is linear in the operations), so that both sides do the same work, last long
     * enough to time, and the 32-PE side carries all of its own elaboration and scheduling:
     * cost of 32 PEs in units of one PE = 32 * t(32 PEs x N) / t(1 PE x 32 N). A round runs
     * 1, 32, 32, 1 (each side's time is the sum of its two runs), so that a load on the shared
     * machine that grows or fades during the round weighs on both sides alike. In the middle of
     * each round, the same 32 PEs each in its own SystemC thread (pe_threads: true), as the
     * platform ran them before its PE group, for comparison.
     */
    double cost[100], wcost[100], tcost[100];
    double r1 = 0, r32 = 0, rt = 0;
    for (int r = 0; r < rounds; r++) {
        double w1a, w32a, w1b, w32b, wt;
        double t1 = vp_cpu(1, 32 * pe_ops, "lt", &r1, &w1a);
        double t32 = vp_cpu(32, pe_ops, "lt", &r32, &w32a);
        vp_extra = "pe_threads: true\n"; /* the same PEs, each in its own SystemC thread */
        double tt = vp_cpu(32, pe_ops, "lt", &rt, &wt);
        vp_extra = "";
        t32 += vp_cpu(32, pe_ops, "lt", &r32, &w32b);
        t1 += vp_cpu(1, 32 * pe_ops, "lt", &r1, &w1b);
        cost[r] = 32.0 * t32 / t1;
        wcost[r] = 32.0 * (w32a + w32b) / (w1a + w1b);
        tcost[r] = 32.0 * 2 * tt / t1;
    }
    min_med_max(cost, rounds, &mn, &med, &mx);
    printf("32 PEs against 1 PE, interval 256, %d rounds of 1-32-32-1 PEs: 32 PEs x %llu operations against\n"
           "  1 PE x %llu operations (32 runs of one PE); records %.0f (32 PEs), %.0f (1 PE)\n",
           rounds, pe_ops, 32 * pe_ops, r32, r1);
    printf("  cost of 32 PEs in units of one PE, 32 * t32/t1 (CPU time): min %.2f  median %.2f  max %.2f   (target <= 34)\n",
           mn, med, mx);
    min_med_max(wcost, rounds, &mn, &med, &mx);
    printf("  (wall clock, host_seconds incl. elaboration: min %.2f  median %.2f  max %.2f)\n", mn, med, mx);
    min_med_max(tcost, rounds, &mn, &med, &mx);
    printf("  for comparison, each PE in its own SystemC thread (pe_threads: true; %.0f records), in the same rounds:\n"
           "    32 * t32/t1 (CPU time): min %.2f  median %.2f  max %.2f\n", rt, mn, med, mx);

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench-vp: could not remove %s\n", tmpdir);
    return 0;
}
