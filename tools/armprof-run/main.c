/* SPDX-License-Identifier: Apache-2.0 */
/* main.c: armprof-run, the C-level main job: a synthetic workload through the SPU into a flat memory. */
#define _GNU_SOURCE /* fopencookie */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "armprof/pmu.h"
#include "run_trbe.h"
#include "spe_run.h"
#include "tool_io.h"

/* SIGINT / SIGTERM: the signal's number; -1: an output failed. Either ends the run as a
 * complete one ends (spe_run_opts.stop). */
static volatile sig_atomic_t g_stop;

static void on_stop_signal(int sig)
{
    g_stop = sig;
}

static void catch_stop_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop_signal;
    sa.sa_flags = SA_RESETHAND | SA_RESTART; /* a second signal ends the process at once */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* Past a file-size limit a write fails with EFBIG (said, with the file) instead of SIGXFSZ
     * ending the process. */
    signal(SIGXFSZ, SIG_IGN);
}

/* An output file whose first write error is kept with its errno (stdio forgets it): the run
 * stops there, and the message names the file and the reason. */
typedef struct out_file {
    FILE *f;
    int fd;
    int err;                    /* first errno of a write or the close; 0: none */
    char path[4096];
} out_file;

static ssize_t out_write(void *cookie, const char *buf, size_t n)
{
    out_file *o = cookie;
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(o->fd, buf + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (!o->err)
                o->err = w < 0 ? errno : EIO;
            g_stop = g_stop ? g_stop : -1;
            return done ? (ssize_t)done : -1;
        }
        done += (size_t)w;
    }
    return (ssize_t)done;
}

static int out_close(void *cookie)
{
    out_file *o = cookie;
    if (close(o->fd) != 0 && !o->err)
        o->err = errno;
    return o->err ? -1 : 0;
}

static int out_open(out_file *o, const char *dir, const char *name)
{
    memset(o, 0, sizeof(*o));
    snprintf(o->path, sizeof(o->path), "%s/%s", dir, name);
    o->fd = open(o->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (o->fd < 0) {
        fprintf(stderr, "armprof-run: cannot write %s: %s\n", o->path, strerror(errno));
        return -1;
    }
    o->f = fopencookie(o, "w", (cookie_io_functions_t){ .write = out_write, .close = out_close });
    if (!o->f) {
        fprintf(stderr, "armprof-run: cannot write %s: %s\n", o->path, strerror(errno));
        close(o->fd);
        return -1;
    }
    return 0;
}

/* Closes the file; -1 with the message when anything written to it was lost. */
static int out_finish(out_file *o)
{
    if (!o->f)
        return 0;
    fclose(o->f);
    o->f = NULL;
    if (o->err) {
        fprintf(stderr, "armprof-run: error writing %s: %s\n", o->path, strerror(o->err));
        return -1;
    }
    return 0;
}

static int close_stdout(void)
{
    return tool_close_stdout("armprof-run");
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: armprof-run [options]\n"
            "Runs a synthetic workload through the SPE model into a flat memory, servicing the\n"
            "buffer-full interrupt as Linux's arm_spe_pmu driver does, and writes\n"
            "OUT/summary.json and the buffer contents OUT/spe.bin.\n\n"
            "  --ops N            population operations (default 10000000)\n"
            "  --interval N       sampling interval in operations, >= 256 (default 1024)\n"
            "  --no-rnd           PMSIRR_EL1.RND = 0 (default: random perturbation on)\n"
            "  --buffer-bytes N   Profiling Buffer size, rounded up to 4 KiB (default 65536)\n"
            "  --seed N           workload and RNG seed (default 1)\n"
            "  --trace FILE       replay an operation-trace file (docs/trace-format.md) instead of the\n"
            "                     synthetic workload; the run is its operations * --repeat (no --ops)\n"
            "  --repeat N         times the trace is replayed (default 1)\n"
            "  --no-service       leave the first management event unserviced\n"
            "  --irq-latency N    cycles from PMBIRQ to the handler (default 2000)\n"
            "  --fifo-bytes N     record FIFO depth (default 1024)\n"
            "  --drain N          record FIFO drain rate, bytes per cycle (default 16)\n"
            "  --inflight N       sampled operations in flight (default 4)\n"
            "  --max-size N       PMSIDR_EL1.MaxSize, 4..11 (default 6)\n"
            "  --align N          PMBIDR_EL1.Align, 0..MaxSize (default 0)\n"
            "  --write-latency N  cycles the memory takes to accept each buffer write, SPE and\n"
            "                     --trbe (default 0: at once, the functional behaviour)\n"
            "  --write-latency-dist D  a seeded latency distribution instead: fixed:C,\n"
            "                     uniform:A:B or exp:MEAN (cycles; same --seed, same results)\n"
            "  --write-bytes N    buffer writer's write size: 0 = one write per record (default),\n"
            "                     else a power of two 16..4096 (aligned blocks, e.g. 64-byte lines)\n"
            "  --max-outstanding-writes N  writes in flight before the writer stalls, SPE and\n"
            "                     --trbe, 1..256 (default 1)\n"
            "  --out DIR          output folder (default out)\n"
            "  --trbe             also run the TRBU from a synthetic trace source (OUT/trbe.bin)\n"
            "  --trbe-bytes N     trace bytes for --trbe (default 16 MiB)\n"
            "  --trbe-buffer N    trace buffer bytes for --trbe (default 65536)\n"

            "  --json             print the JSON summary instead of the readable one\n"
            "  -h, --help         this text\n\n"
            "SIGINT or SIGTERM ends the run as a complete one ends: the dumps hold whole records and\n"
            "summary.json says \"interrupted\": true; the exit status is then 128 + the signal.\n"
            "exit status: 0 done, 1 the run or an output failed (the file and the reason are said),\n"
            "2 a bad option, 130 / 143 interrupted (docs/exit-status.md).\n");
}

static int parse_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *s == '\0' || *end != '\0' || s[0] == '-' || v < lo || v > hi) {
        fprintf(stderr, "armprof-run: %s expects an integer in [%" PRIu64 ", %" PRIu64 "], got '%s'\n",
                opt, lo, hi, s);
        return -1;
    }
    *out = v;
    return 0;
}

static cJSON *num(cJSON *o, const char *k, double v)
{
    cJSON_AddNumberToObject(o, k, v);
    return o;
}

static char *hex(char *b, uint64_t v)
{
    snprintf(b, 24, "0x%016" PRIx64, v);
    return b;
}

/* A PMU counting the SPU's four events in PMEVCNTR0..3_EL0 (Table 1, §2.6). */
static const uint16_t spe_events[4] = { ARMPROF_EV_SAMPLE_POP, ARMPROF_EV_SAMPLE_FEED,
                                        ARMPROF_EV_SAMPLE_FILTRATE, ARMPROF_EV_SAMPLE_COLLISION };
static const char *const spe_event_names[4] = { "SAMPLE_POP", "SAMPLE_FEED", "SAMPLE_FILTRATE",
                                                "SAMPLE_COLLISION" };

static pmu_t *open_pmu(void)
{
    pmu_config pc;
    pmu_config_default(&pc);
    pmu_t *pmu = NULL;
    if (pmu_open(&pc, NULL, &pmu) != ARMPROF_OK)
        return NULL;
    armprof_pe_ctx ctx;
    armprof_pe_ctx_default(&ctx);
    pmu_set_pe_context(pmu, &ctx);
    for (int i = 0; i < 4; i++)
        pmu_reg_write(pmu, PMU_PMEVTYPER_EL0(i), spe_events[i]);
    pmu_reg_write(pmu, PMU_PMCNTENSET_EL0, 0xF);
    pmu_reg_write(pmu, PMU_PMCR_EL0, 1); /* PMCR_EL0.E */
    return pmu;
}

static cJSON *summary_json(const spe_run_opts *o, const spe_run_result *r, pmu_t *pmu)
{
    const spu_stats *s = &r->st;
    char b[24];
    cJSON *j = cJSON_CreateObject();
    num(j, "population_ops", (double)s->population);
    num(j, "ops", (double)o->ops);
    num(j, "cycles", (double)r->cycles);
    num(j, "samples", (double)s->feed);
    num(j, "filtrate", (double)s->filtrate);
    num(j, "filtered_out", (double)s->filtered_out);
    num(j, "collisions", (double)s->collisions);
    num(j, "records_written", (double)s->records_written);
    num(j, "bytes_written", (double)s->bytes_written);
    num(j, "records_discarded", (double)s->records_discarded);
    cJSON *d = cJSON_AddObjectToObject(j, "discarded_by_reason");
    for (int i = 0; i < SPU_DISCARD__COUNT; i++)
        num(d, spu_discard_reason_name((spu_discard_reason)i), (double)s->discarded[i]);
    num(j, "management_events", (double)s->management_events);
    cJSON *m = cJSON_AddObjectToObject(j, "management_events_by_kind");
    num(m, "buffer_full", (double)s->buffer_full_events);
    num(m, "fault", (double)s->fault_events);
    num(m, "external_abort", (double)s->ext_abort_events);
    num(j, "interrupts", (double)r->irqs);
    num(j, "serviced", (double)r->serviced);
    num(j, "dl_events", (double)r->dl_events);
    num(j, "dumped_bytes", (double)r->dumped_bytes);
    num(j, "fifo_bytes_max", (double)r->fifo_max);
    num(j, "fifo_bytes_p99", (double)r->fifo_p99);
    num(j, "fifo_bytes_mean", r->fifo_mean);
    cJSON *fh = cJSON_AddArrayToObject(j, "fifo_hist");
    for (int i = 0; i < SPU_FIFO_HIST_BINS; i++)
        cJSON_AddItemToArray(fh, cJSON_CreateNumber((double)s->fifo_hist[i]));
    num(j, "fifo_full_cycles", (double)s->fifo_full_cycles);
    num(j, "writer_stall_cycles", (double)s->writer_stall_cycles);
    num(j, "writes_issued", (double)s->writes_issued);
    num(j, "outstanding_writes_max", (double)s->outstanding_writes_max);
    cJSON *wl = cJSON_AddObjectToObject(j, "write_latency");
    num(wl, "min", (double)s->write_latency_min);
    num(wl, "mean", s->writes_answered ? (double)s->write_latency_sum / (double)s->writes_answered : 0.0);
    num(wl, "max", (double)s->write_latency_max);
    num(j, "service_cycles", (double)s->service_cycles);
    num(j, "host_seconds", r->host_seconds);
    cJSON_AddStringToObject(j, "pmbsr", hex(b, r->pmbsr));
    cJSON_AddStringToObject(j, "pmbptr", hex(b, r->pmbptr));
    cJSON_AddStringToObject(j, "pmblimitr", hex(b, r->pmblimitr));
    cJSON_AddStringToObject(j, "pmsicr", hex(b, r->pmsicr));
    cJSON_AddStringToObject(j, "buffer_base", hex(b, r->buffer_base));
    cJSON *f = cJSON_AddObjectToObject(j, "pmbsr_fields");
    num(f, "EC", (double)((r->pmbsr >> 26) & 0x3f));
    num(f, "DL", (double)((r->pmbsr >> 19) & 1));
    num(f, "EA", (double)((r->pmbsr >> 18) & 1));
    num(f, "S", (double)((r->pmbsr >> 17) & 1));
    num(f, "COLL", (double)((r->pmbsr >> 16) & 1));
    num(f, "MSS", (double)(r->pmbsr & 0xffff));
    if (pmu) {
        cJSON *p = cJSON_AddObjectToObject(j, "pmu");
        for (int i = 0; i < 4; i++) {
            uint64_t v = 0;
            pmu_reg_peek(pmu, PMU_PMEVCNTR_EL0(i), &v);
            num(p, spe_event_names[i], (double)v);
        }
    }
    cJSON *cfg = cJSON_AddObjectToObject(j, "config");
    num(cfg, "interval", o->interval);
    cJSON_AddBoolToObject(cfg, "rnd", o->rnd);
    num(cfg, "buffer_bytes", (double)o->buffer_bytes);
    num(cfg, "seed", (double)o->wl.seed);
    cJSON_AddBoolToObject(cfg, "service", o->service);
    num(cfg, "irq_latency", (double)o->irq_latency);
    num(cfg, "fifo_bytes", o->spu.fifo_bytes);
    num(cfg, "drain_bytes_per_cycle", o->spu.drain_bytes_per_cycle);
    num(cfg, "max_inflight", o->spu.max_inflight);
    num(cfg, "max_size", o->spu.max_size);
    num(cfg, "align", o->spu.align);
    static const char *const kinds[] = { "fixed", "uniform", "exp" };
    cJSON_AddStringToObject(cfg, "write_latency_dist", kinds[o->lat_kind]);
    num(cfg, "write_latency", o->write_latency);
    num(cfg, "write_latency_max", o->lat_kind == SPE_LAT_FIXED ? o->write_latency : o->write_latency_max);
    num(cfg, "write_bytes", o->spu.write_bytes);
    num(cfg, "max_outstanding_writes", o->spu.max_outstanding_writes);
    return j;
}

static void trbe_json(cJSON *j, const run_trbe_result *t)
{
    char b[24];
    cJSON *o = cJSON_AddObjectToObject(j, "trbu");
    num(o, "bytes_in", (double)t->st.bytes_in);
    num(o, "bytes_refused", (double)t->st.bytes_refused);
    num(o, "bytes_written", (double)t->st.bytes_written);
    num(o, "bytes_discarded", (double)t->st.bytes_discarded);
    num(o, "wraps", (double)t->st.wraps);
    num(o, "management_events", (double)t->st.management_events);
    cJSON *m = cJSON_AddObjectToObject(o, "management_events_by_kind");
    num(m, "buffer_full", (double)t->st.buffer_full_events);
    num(m, "wrap_irq", (double)t->st.wrap_irq_events);
    num(m, "trigger", (double)t->st.trigger_mgmt_events);
    num(m, "fault", (double)t->st.fault_events);
    num(m, "external_abort", (double)t->st.ext_abort_events);
    num(m, "impdef", (double)t->st.impdef_events);
    num(o, "detected_triggers", (double)t->st.detected_triggers);
    num(o, "trigger_events", (double)t->st.trigger_events);
    num(o, "interrupts", (double)t->irqs);
    num(o, "serviced_wraps", (double)t->serviced_wraps);
    num(o, "dumped_bytes", (double)t->dumped_bytes);
    num(o, "cycles", (double)t->cycles);
    num(o, "buf_bytes_max", (double)t->st.buf_bytes_max);
    num(o, "writer_stall_cycles", (double)t->st.writer_stall_cycles);
    num(o, "source_stall_cycles", (double)t->source_stall_cycles);
    num(o, "outstanding_writes_max", (double)t->st.outstanding_writes_max);
    cJSON *wl = cJSON_AddObjectToObject(o, "write_latency_cycles");
    num(wl, "min", (double)t->st.write_latency_min);
    num(wl, "mean", t->st.port_writes ? (double)t->st.write_latency_sum / (double)t->st.port_writes : 0.0);
    num(wl, "max", (double)t->st.write_latency_max);
    num(o, "host_seconds", t->host_seconds);
    cJSON_AddStringToObject(o, "trbsr", hex(b, t->trbsr));
    cJSON_AddStringToObject(o, "trbptr", hex(b, t->trbptr));
    cJSON_AddStringToObject(o, "trblimitr", hex(b, t->trblimitr));
    cJSON_AddStringToObject(o, "trbbaser", hex(b, t->trbbaser));
}

static void print_human(const spe_run_opts *o, const spe_run_result *r, const char *outdir)
{
    const spu_stats *s = &r->st;
    printf("armprof-run: SPE model, synthetic workload, flat memory\n");
    printf("  operations          %" PRIu64 " (%" PRIu64 " in the sample population)\n", o->ops, s->population);
    printf("  sampled             %" PRIu64 " (interval %u%s), collisions %" PRIu64 "\n", s->feed,
           o->interval, o->rnd ? " + random" : "", s->collisions);
    printf("  filtered out        %" PRIu64 "\n", s->filtered_out);
    printf("  records written     %" PRIu64 " (%" PRIu64 " bytes)\n", s->records_written, s->bytes_written);
    printf("  records discarded   %" PRIu64, s->records_discarded);
    const char *sep = " (";
    for (int i = 0; i < SPU_DISCARD__COUNT; i++)
        if (s->discarded[i]) {
            printf("%s%s %" PRIu64, sep, spu_discard_reason_name((spu_discard_reason)i), s->discarded[i]);
            sep = ", ";
        }
    printf("%s\n", sep[0] == ',' ? ")" : "");
    printf("  management events   %" PRIu64 " (buffer full %" PRIu64 ", fault %" PRIu64 ", external abort %" PRIu64
           "), %s\n", s->management_events, s->buffer_full_events, s->fault_events, s->ext_abort_events,
           o->service ? "serviced" : "left unserviced");
    printf("  record FIFO         max %" PRIu64 " B, p99 %" PRIu64 " B, mean %.1f B of %u B\n", r->fifo_max,
           r->fifo_p99, r->fifo_mean, o->spu.fifo_bytes);
    printf("  buffer writes       %" PRIu64 " (latency min %" PRIu64 " mean %.1f max %" PRIu64
           " cycles), up to %" PRIu64 " outstanding, writer stalled %" PRIu64 " cycles\n",
           s->writes_issued, s->write_latency_min,
           s->writes_answered ? (double)s->write_latency_sum / (double)s->writes_answered : 0.0,
           s->write_latency_max, s->outstanding_writes_max, s->writer_stall_cycles);
    printf("  PMBSR_EL1           0x%016" PRIx64 " (S=%u EC=0x%02x DL=%u EA=%u COLL=%u MSS=0x%04x)\n", r->pmbsr,
           (unsigned)((r->pmbsr >> 17) & 1), (unsigned)((r->pmbsr >> 26) & 0x3f), (unsigned)((r->pmbsr >> 19) & 1),
           (unsigned)((r->pmbsr >> 18) & 1), (unsigned)((r->pmbsr >> 16) & 1), (unsigned)(r->pmbsr & 0xffff));
    printf("  PMBPTR_EL1          0x%016" PRIx64 "\n", r->pmbptr);
    printf("  PMBLIMITR_EL1       0x%016" PRIx64 "\n", r->pmblimitr);
    printf("  host time           %.3f s (%.1f M population ops/s)\n", r->host_seconds,
           r->host_seconds > 0 ? (double)s->population / r->host_seconds / 1e6 : 0.0);
    printf("  wrote %s/summary.json and %s/spe.bin (%" PRIu64 " bytes)\n", outdir, outdir, r->dumped_bytes);
}

static void print_trbe(const run_trbe_result *t, const char *outdir)
{
    printf("armprof-run --trbe: TRBU model, synthetic trace source, flat memory\n");
    printf("  trace bytes         %" PRIu64 " in, %" PRIu64 " written, %" PRIu64 " discarded, %" PRIu64
           " refused (offered again)\n", t->st.bytes_in - t->st.bytes_refused, t->st.bytes_written,
           t->st.bytes_discarded, t->st.bytes_refused);
    printf("  wraps               %" PRIu64 ", management events %" PRIu64 " (buffer full %" PRIu64
           ", trigger %" PRIu64 ", fault %" PRIu64 ")\n", t->st.wraps, t->st.management_events,
           t->st.buffer_full_events, t->st.trigger_mgmt_events, t->st.fault_events);
    printf("  memory timing       write latency %" PRIu64 "..%" PRIu64 " cycles, %" PRIu64
           " writes in flight at most, writer stalled %" PRIu64 " cycles, source %" PRIu64 "\n",
           t->st.write_latency_min, t->st.write_latency_max, t->st.outstanding_writes_max,
           t->st.writer_stall_cycles, t->source_stall_cycles);
    printf("  TRBSR_EL1           0x%016" PRIx64 ", TRBPTR_EL1 0x%016" PRIx64 "\n", t->trbsr, t->trbptr);
    printf("  wrote %s/trbe.bin (%" PRIu64 " bytes)\n", outdir, t->dumped_bytes);
}

int main(int argc, char **argv)
{
    spe_run_opts o;
    spe_run_opts_default(&o);
    o.ops = 10000000ull;
    const char *outdir = "out";
    bool json = false, trbe = false;
    run_trbe_opts topt;
    run_trbe_opts_default(&topt);
    enum { O_OPS = 256, O_INTERVAL, O_NORND, O_BUF, O_SEED, O_NOSERV, O_IRQLAT, O_FIFO, O_DRAIN,
           O_INFL, O_MAXSIZE, O_ALIGN, O_OUT, O_JSON, O_TRBE, O_TRBE_BYTES, O_TRBE_BUF, O_TRACE, O_REPEAT,
           O_WLAT, O_WLATD, O_WBYTES, O_MAXOUT };
    static const struct option lo[] = {
        { "ops", required_argument, 0, O_OPS },           { "interval", required_argument, 0, O_INTERVAL },
        { "no-rnd", no_argument, 0, O_NORND },            { "buffer-bytes", required_argument, 0, O_BUF },
        { "seed", required_argument, 0, O_SEED },         { "no-service", no_argument, 0, O_NOSERV },
        { "irq-latency", required_argument, 0, O_IRQLAT }, { "fifo-bytes", required_argument, 0, O_FIFO },
        { "drain", required_argument, 0, O_DRAIN },       { "inflight", required_argument, 0, O_INFL },
        { "max-size", required_argument, 0, O_MAXSIZE },  { "align", required_argument, 0, O_ALIGN },
        { "out", required_argument, 0, O_OUT },           { "json", no_argument, 0, O_JSON },
        { "trbe", no_argument, 0, O_TRBE },               { "trbe-bytes", required_argument, 0, O_TRBE_BYTES },
        { "trbe-buffer", required_argument, 0, O_TRBE_BUF },
        { "trace", required_argument, 0, O_TRACE },       { "repeat", required_argument, 0, O_REPEAT },
        { "write-latency", required_argument, 0, O_WLAT }, { "write-latency-dist", required_argument, 0, O_WLATD },
        { "write-bytes", required_argument, 0, O_WBYTES }, { "max-outstanding-writes", required_argument, 0, O_MAXOUT },
        { "help", no_argument, 0, 'h' },                  { 0, 0, 0, 0 } };
    int ch;
    uint64_t v, repeat = 1;
    const char *trace_path = NULL;
    bool ops_set = false, repeat_set = false;
    opterr = 0; /* the messages below name the option without the program's path */
    while ((ch = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
        switch (ch) {
        case O_OPS: if (parse_u64("--ops", optarg, 1, UINT64_MAX / 2, &o.ops)) return 2; ops_set = true; break;
        case O_TRACE: trace_path = optarg; break;
        case O_REPEAT: if (parse_u64("--repeat", optarg, 1, UINT64_MAX / 2, &repeat)) return 2; repeat_set = true; break;
        case O_INTERVAL: if (parse_u64("--interval", optarg, 256, 0xFFFFFF00u, &v)) return 2; o.interval = (uint32_t)v; break;
        case O_NORND: o.rnd = false; break;
        case O_BUF: if (parse_u64("--buffer-bytes", optarg, 4096, 1ull << 32, &o.buffer_bytes)) return 2; break;
        case O_SEED: if (parse_u64("--seed", optarg, 0, UINT64_MAX, &v)) return 2; o.wl.seed = v; o.spu.rng_seed = (uint32_t)v; break;
        case O_NOSERV: o.service = false; break;
        case O_IRQLAT: if (parse_u64("--irq-latency", optarg, 0, 1ull << 40, &o.irq_latency)) return 2; break;
        case O_FIFO: if (parse_u64("--fifo-bytes", optarg, 1, 64u << 20, &v)) return 2; o.spu.fifo_bytes = (uint32_t)v; break;
        case O_DRAIN: if (parse_u64("--drain", optarg, 1, 1u << 20, &v)) return 2; o.spu.drain_bytes_per_cycle = (uint32_t)v; break;
        case O_INFL: if (parse_u64("--inflight", optarg, 1, 4096, &v)) return 2; o.spu.max_inflight = (uint32_t)v; break;
        case O_MAXSIZE: if (parse_u64("--max-size", optarg, 4, 11, &v)) return 2; o.spu.max_size = (uint8_t)v; break;
        case O_ALIGN: if (parse_u64("--align", optarg, 0, 11, &v)) return 2; o.spu.align = (uint8_t)v; break;
        case O_WLAT:
            if (parse_u64("--write-latency", optarg, 0, 1u << 24, &v)) return 2;
            o.lat_kind = SPE_LAT_FIXED;
            o.write_latency = o.write_latency_max = (uint32_t)v;
            topt.write_latency = (uint32_t)v;             /* --trbe: the same fixed latency */
            break;
        case O_WLATD: {
            char lwhy[160];
            if (spe_run_parse_latency(optarg, &o, lwhy, sizeof(lwhy))) {
                fprintf(stderr, "armprof-run: --write-latency-dist: %s\n", lwhy);
                return 2;
            }
            break;
        }
        case O_WBYTES:
            if (parse_u64("--write-bytes", optarg, 0, 4096, &v)) return 2;
            if (v && (v < 16 || (v & (v - 1)))) {
                fprintf(stderr, "armprof-run: --write-bytes expects 0 or a power of two 16 .. 4096, got '%s'\n", optarg);
                return 2;
            }
            o.spu.write_bytes = (uint32_t)v;
            break;
        case O_MAXOUT:
            if (parse_u64("--max-outstanding-writes", optarg, 1, 256, &v)) return 2;
            o.spu.max_outstanding_writes = (uint32_t)v;
            topt.trbu.max_outstanding_writes = (uint32_t)v;
            break;
        case O_OUT: outdir = optarg; break;
        case O_JSON: json = true; break;
        case O_TRBE: trbe = true; break;
        case O_TRBE_BYTES: if (parse_u64("--trbe-bytes", optarg, 1, 1ull << 40, &topt.bytes)) return 2; break;
        case O_TRBE_BUF: if (parse_u64("--trbe-buffer", optarg, 8192, 1ull << 32, &topt.buffer_bytes)) return 2; break;
        case 'h': usage(stdout); return close_stdout() ? 1 : 0;
        case ':':
            fprintf(stderr, "armprof-run: %s needs a value (armprof-run --help)\n", argv[optind - 1]);
            return 2;
        default:
            fprintf(stderr, "armprof-run: unknown option '%s' (armprof-run --help lists them)\n", argv[optind - 1]);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "armprof-run: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return 2;
    }
    /* Replay: the whole file is read (and checked) before anything runs; its length sets ops. */
    wl_trace trace = { 0 };
    if (trace_path) {
        if (ops_set) {
            fprintf(stderr, "armprof-run: --ops does not apply to --trace (--repeat sets the length)\n");
            return 2;
        }
        char terr[512];
        if (wl_trace_load(trace_path, &trace, terr, sizeof(terr))) {
            fprintf(stderr, "armprof-run: --trace: %s\n", terr);
            return 2;
        }
        if (trace.count > UINT64_MAX / 2 / repeat) {
            fprintf(stderr, "armprof-run: --trace: operations * --repeat overflow\n");
            wl_trace_free(&trace);
            return 2;
        }
        o.trace = &trace;
        o.ops = trace.count * repeat;
    } else if (repeat_set) {
        fprintf(stderr, "armprof-run: --repeat goes with --trace\n");
        return 2;
    }
    char why[160];
    if (spu_config_validate(&o.spu, why, sizeof(why)) != ARMPROF_OK) {
        fprintf(stderr, "armprof-run: invalid unit configuration: %s\n", why);
        return 2;
    }
    if (mkdir(outdir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "armprof-run: cannot create %s: %s\n", outdir, strerror(errno));
        return 1;
    }
    /* A summary of an earlier run would otherwise stand beside dumps this run could not finish. */
    char path[4096];
    snprintf(path, sizeof(path), "%s/summary.json", outdir);
    if (unlink(path) != 0 && errno != ENOENT) {
        fprintf(stderr, "armprof-run: cannot replace %s: %s\n", path, strerror(errno));
        return 1;
    }
    catch_stop_signals();
    static out_file dumpf, tracef;
    if (out_open(&dumpf, outdir, "spe.bin"))
        return 1;
    o.dump = dumpf.f;
    o.stop = &g_stop;
    pmu_t *pmu = open_pmu();
    if (pmu) {
        o.event_sink = pmu_event_sink;
        o.freeze_sink = pmu_freeze_sink;
        o.sink_user = pmu;
    }
    spe_run_result r;
    int rc = spe_run(&o, &r);
    int io = out_finish(&dumpf);
    wl_trace_free(&trace);
    o.trace = NULL;
    if (rc) {
        fprintf(stderr, "armprof-run: %s (%s)\n", r.error_text, armprof_strerror(r.error));
        return 1;
    }
    if (io)
        return 1;
    cJSON *j = summary_json(&o, &r, pmu);
    pmu_close(pmu);
    run_trbe_result tr;
    bool trbe_ran = false;
    if (trbe && !g_stop) {
        if (out_open(&tracef, outdir, "trbe.bin"))
            return 1;
        topt.dump = tracef.f;
        topt.seed = o.wl.seed;
        topt.stop = &g_stop;
        int trc = run_trbe(&topt, &tr);
        io = out_finish(&tracef);
        if (trc) {
            fprintf(stderr, "armprof-run --trbe: %s (%s)\n", tr.error_text, armprof_strerror(tr.error));
            return 1;
        }
        if (io)
            return 1;
        trbe_json(j, &tr);
        trbe_ran = true;
    }
    /* A signal ended the run early: the counts are those at that point, the dumps hold what the
     * buffers held then (whole records); with --trbe, a TRBE run not started is not in it. */
    bool interrupted = g_stop > 0;
    cJSON_AddBoolToObject(j, "interrupted", interrupted);
    if (interrupted)
        cJSON_AddNumberToObject(j, "signal", (double)g_stop);
    char *text = cJSON_Print(j);
    FILE *sf = fopen(path, "w");
    int e = 0;
    if (!sf || fprintf(sf, "%s\n", text) < 0)
        e = errno ? errno : EIO;
    if (sf && fclose(sf) != 0 && !e)
        e = errno ? errno : EIO;
    if (e) {
        fprintf(stderr, "armprof-run: cannot write %s: %s\n", path, strerror(e));
        return 1;
    }
    if (json)
        printf("%s\n", text);
    else {
        print_human(&o, &r, outdir);
        if (trbe_ran)
            print_trbe(&tr, outdir);
        if (interrupted)
            printf("  interrupted by signal %d: the dumps hold the records collected until then%s\n", (int)g_stop,
                   trbe && !trbe_ran ? " (the TRBE run did not start)" : "");
    }
    cJSON_free(text);
    cJSON_Delete(j);
    if (close_stdout())
        return 1;
    return interrupted ? 128 + (int)g_stop : 0;
}
