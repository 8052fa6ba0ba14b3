/* SPDX-License-Identifier: Apache-2.0 */
/* main.c: armprof-decode, lists / exports the records of an SPE Profiling Buffer dump (seed 001 §5). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "armprof/spe.h"
#include "perf_export.h"
#include "spe_fmt.h"
#include "tool_io.h"

enum { EXIT_WELL_FORMED = 0, EXIT_MALFORMED = 1, EXIT_USAGE = 2 };
enum { MODE_LIST, MODE_JSON, MODE_CSV, MODE_SUMMARY, MODE_QUIET };

static void usage(FILE *f)
{
    fprintf(f,
            "usage: armprof-decode [options] [FILE|-|CPU=FILE]...\n"
            "Decodes SPE Profiling Buffer dumps (e.g. out/spe.bin from armprof-run), from FILEs or stdin.\n"
            "Several FILEs are the buffers of several CPUs: the k-th FILE is CPU k unless written\n"
            "CPU=FILE (armprof-vp: out/spe.bin is PE 0, out/spe_peN.bin PE N).\n\n"
            "output (one of; default: a listing like `perf report -D`, one block per record):\n"
            "  --json             one JSON object per record (one per line)\n"
            "  --csv              one CSV row per record, with a header line\n"
            "  --summary          record counts by operation class, event totals, latency histograms\n"
            "  --quiet            no output; only check the stream (exit status, errors on stderr)\n"
            "checks:\n"
            "  --lenient          keep going after an error (resynchronise) and count the errors\n"
            "  --max-size N       PMSIDR_EL1.MaxSize: report records longer than 2^N bytes (4..11)\n"
            "  --base ADDR        buffer address of the first byte (Alignment commands align to it)\n"
            "  --count-size BITS  PMSIDR_EL1.CountSize as counter width, 12 (default) or 16: a Counter\n"
            "                     packet of all ones (0xFFF / 0xFFFF) is shown as saturated\n"
            "export:\n"
            "  --to-perf-data OUT write OUT as a perf.data file holding each buffer as the Arm SPE AUX\n"
            "                     trace of its CPU; open it with `perf report -D -i OUT` or\n"
            "                     `perf script -i OUT --itrace=i1i -F cpu,time,ip`\n"
            "  --timer-hz HZ      frequency of the counter in the Timestamp packets, for perf's sample\n"
            "                     times (ns = ticks * 1e9 / HZ; default 1000000000; 0: no conversion,\n"
            "                     perf shows time 0)\n"
            "  --midr VALUE       MIDR_EL1 for the perf.data CPU identifier (default 0x413fd0c1,\n"
            "                     Arm Neoverse N1 r3p1)\n"
            "  -h, --help         this text\n\n"
            "exit status: 0 the streams are well formed, 1 one is not (errors are reported with their\n"
            "byte offsets on stderr), 2 usage or I/O error.\n");
}

static int parse_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *s == '\0' || *end != '\0' || s[0] == '-' || v < lo || v > hi) {
        fprintf(stderr, "armprof-decode: %s expects an integer in [%" PRIu64 ", %" PRIu64 "], got '%s'\n",
                opt, lo, hi, s);
        return -1;
    }
    *out = v;
    return 0;
}

/* Standard output flushed and closed: EXIT_USAGE (an I/O error, with a message) when anything
 * written to it was lost, else `status`. */
static int close_stdout(int status)
{
    return tool_close_stdout("armprof-decode") ? EXIT_USAGE : status;
}

/* Reads all of `f`; NULL with errno set on a read error or out of memory. */
static uint8_t *slurp(FILE *f, size_t *len)
{
    size_t cap = 1 << 20, n = 0;
    uint8_t *p = malloc(cap);
    while (p) {
        size_t got = fread(p + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
        if (n == cap) {
            uint8_t *np = realloc(p, cap * 2);
            if (!np) {
                free(p);
                return NULL;
            }
            p = np;
            cap *= 2;
        }
    }
    if (p && ferror(f)) {
        int e = errno;
        free(p);
        errno = e ? e : EIO;
        return NULL;
    }
    if (!p)
        errno = ENOMEM;
    *len = n;
    return p;
}

/* Prints the packets of [from, to) one per line: offset, raw bytes, description. */
static void list_packets(const uint8_t *b, size_t len, size_t from, size_t to, uint64_t base, uint16_t count_max,
                         FILE *o)
{
    size_t pos = from;
    while (pos < to) {
        spe_packet k;
        char desc[256];
        int n = spe_packet_parse(b + pos, len - pos, &k);
        if (n < 0) {
            fprintf(o, "  %08zx: ", pos);
            for (size_t i = pos; i < len && i < pos + 10; i++)
                fprintf(o, " %02x", b[i]);
            fprintf(o, "   (%s)\n", spe_dec_strerror((spe_dec_err)-n));
            return;
        }
        if (k.kind == SPE_PKT_PADDING) {
            size_t run = 1;
            while (pos + run < to && b[pos + run] == 0)
                run++;
            if (run > 1) {
                char raw[32];
                snprintf(raw, sizeof raw, "00 x %zu", run);
                fprintf(o, "  %08zx:  %-29s PAD x%zu\n", pos, raw, run);
            } else {
                fprintf(o, "  %08zx:  %-29s PAD\n", pos, "00");
            }
            pos += run;
            continue;
        }
        spe_packet_describe(&k, desc, sizeof desc);
        fprintf(o, "  %08zx: ", pos);
        for (int i = 0; i < n; i++)
            fprintf(o, " %02x", b[pos + (size_t)i]);
        /* §5.3.4: a counter of all ones (0xFFF for 12-bit counters) has saturated */
        int sat = k.kind == SPE_PKT_COUNTER && k.index <= SPE_CNT_XLAT && k.note == SPE_NOTE_NONE &&
                  k.payload == count_max;
        fprintf(o, "%*s %s%s\n", (10 - n) * 3, "", desc, sat ? " (saturated)" : "");
        pos += (size_t)n;
        if (k.kind == SPE_PKT_ALIGNMENT && k.note == SPE_NOTE_NONE) {
            size_t skip = spe_align_skip(base + pos, k.index);
            if (skip) {
                fprintf(o, "  %*s(%zu bytes skipped)\n", 40, "", skip);
                pos += skip;
            }
        }
    }
}

/* One input buffer: a CPU's Profiling Buffer. */
typedef struct input {
    const char *path;
    uint32_t cpu;
    uint8_t *buf;
    size_t len;
} input;

/* Decodes one buffer in `mode`, adding to *sum; returns the number of errors. */
static uint64_t decode_one(const input *in, int mode, int multi, const spe_decode_opts *dopt, spe_summary *sum,
                           FILE *o)
{
    spe_decoder d;
    spe_decoded r;
    char line[SPE_FMT_LINE_MAX + 32];
    size_t prev_end = 0;
    int rc;
    spe_decoder_init(&d, in->buf, in->len, dopt);
    if (multi && mode == MODE_LIST)
        fprintf(o, "== %s (cpu %u) ==\n", in->path, in->cpu);
    while ((rc = spe_decoder_next(&d, &r)) != SPE_DEC_EOF) {
        if (rc == SPE_DEC_ERROR) {
            char msg[256];
            spe_dec_error_text(&d, msg, sizeof msg);
            fflush(o);
            fprintf(stderr, "armprof-decode: %s: %s\n", in->path, msg);
            if (mode == MODE_LIST) {
                if (r.size || d.err_offset > r.offset)
                    list_packets(in->buf, in->len, r.offset,
                                 d.err_offset > r.offset ? d.err_offset : r.offset + r.size, dopt->base,
                                 sum->count_max, o);
                fprintf(o, "ERROR %s\n\n", msg);
            }
            prev_end = d.pos;
            continue;
        }
        size_t n, k;
        switch (mode) {
        case MODE_LIST:
            if (r.offset > prev_end)
                fprintf(o, "(%zu bytes of padding / alignment at 0x%zx)\n", r.offset - prev_end, prev_end);
            fprintf(o, "record %" PRIu64 " at 0x%zx, %zu bytes\n", d.n_records - 1, r.offset, r.size);
            list_packets(in->buf, in->len, r.offset, r.offset + r.size, dopt->base, sum->count_max, o);
            fputc('\n', o);
            break;
        case MODE_JSON:
            /* several CPUs: "cpu" first; the record's own '{' becomes the comma after it */
            n = multi ? (size_t)snprintf(line, 32, "{\"cpu\":%u", in->cpu) : 0;
            k = n;
            n += spe_fmt_json_ex(&r, line + n, sum->count_max);
            if (multi)
                line[k] = ',';
            fwrite(line, 1, n, o);
            break;
        case MODE_CSV:
            n = multi ? (size_t)snprintf(line, 32, "%u,", in->cpu) : 0;
            n += spe_fmt_csv_ex(&r, line + n, sum->count_max);
            fwrite(line, 1, n, o);
            break;
        case MODE_SUMMARY:
            spe_summary_add(sum, &r);
            break;
        default:
            break;
        }
        prev_end = r.offset + r.size;
    }
    if (mode == MODE_LIST)
        fprintf(o, "%" PRIu64 " records, %zu bytes, %" PRIu64 " errors, %" PRIu64 " packets ignored\n%s",
                d.n_records, in->len, d.n_errors, d.n_ignored, multi ? "\n" : "");
    if (d.n_errors && dopt->lenient) {
        fflush(o);
        fprintf(stderr, "armprof-decode: %s: %" PRIu64 " errors, %" PRIu64 " records decoded\n", in->path,
                d.n_errors, d.n_records);
    }
    return d.n_errors;
}

/* Reads a FILE or CPU=FILE argument into *in (cpu = `pos` unless given). Returns 0 or EXIT_USAGE. */
static int load_input(const char *arg, uint32_t pos, input *in)
{
    in->path = arg;
    in->cpu = pos;
    const char *eq = strchr(arg, '=');
    if (eq && eq > arg && strspn(arg, "0123456789") == (size_t)(eq - arg)) {
        char num[16];
        size_t l = (size_t)(eq - arg);
        if (l >= sizeof num || eq[1] == '\0') {
            fprintf(stderr, "armprof-decode: bad CPU=FILE argument '%s'\n", arg);
            return EXIT_USAGE;
        }
        memcpy(num, arg, l);
        num[l] = '\0';
        uint64_t v;
        if (parse_u64("CPU=FILE", num, 0, PERF_EXPORT_MAX_CPUS - 1, &v))
            return EXIT_USAGE;
        in->cpu = (uint32_t)v;
        in->path = eq + 1;
    }
    FILE *f = strcmp(in->path, "-") ? fopen(in->path, "rb") : stdin;
    if (!f) {
        fprintf(stderr, "armprof-decode: cannot open %s: %s\n", in->path, strerror(errno));
        return EXIT_USAGE;
    }
    in->buf = slurp(f, &in->len);
    int e = errno;
    if (f != stdin)
        fclose(f);
    if (!in->buf) {
        fprintf(stderr, "armprof-decode: cannot read %s: %s\n", in->path, strerror(e));
        return EXIT_USAGE;
    }
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "json", no_argument, NULL, 'j' },
        { "csv", no_argument, NULL, 'c' },
        { "summary", no_argument, NULL, 's' },
        { "quiet", no_argument, NULL, 'q' },
        { "lenient", no_argument, NULL, 'l' },
        { "max-size", required_argument, NULL, 'm' },
        { "base", required_argument, NULL, 'b' },
        { "count-size", required_argument, NULL, 'C' },
        { "to-perf-data", required_argument, NULL, 'P' },
        { "midr", required_argument, NULL, 'M' },
        { "timer-hz", required_argument, NULL, 'T' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int mode = MODE_LIST, c;
    spe_decode_opts dopt = { 0 };
    const char *perf_out = NULL;
    perf_export_opts popt = { .timer_hz = 1000000000ull };
    uint16_t count_max = 0xFFF;
    uint64_t v;

    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': mode = MODE_JSON; break;
        case 'c': mode = MODE_CSV; break;
        case 's': mode = MODE_SUMMARY; break;
        case 'q': mode = MODE_QUIET; break;
        case 'l': dopt.lenient = true; break;
        case 'm':
            if (parse_u64("--max-size", optarg, SPE_MAX_SIZE_MIN, SPE_MAX_SIZE_MAX, &v))
                return EXIT_USAGE;
            dopt.max_size = (uint8_t)v;
            break;
        case 'b':
            if (parse_u64("--base", optarg, 0, UINT64_MAX, &v))
                return EXIT_USAGE;
            dopt.base = v;
            break;
        case 'C':
            if (parse_u64("--count-size", optarg, 12, 16, &v))
                return EXIT_USAGE;
            if (v != 12 && v != 16) {
                fprintf(stderr, "armprof-decode: --count-size expects 12 or 16, got '%s'\n", optarg);
                return EXIT_USAGE;
            }
            count_max = (uint16_t)((1u << v) - 1);
            break;
        case 'P': perf_out = optarg; break;
        case 'M':
            if (parse_u64("--midr", optarg, 1, 0xFFFFFFFFull, &v))
                return EXIT_USAGE;
            popt.midr = v;
            break;
        case 'T':
            if (parse_u64("--timer-hz", optarg, 0, UINT64_MAX, &v))
                return EXIT_USAGE;
            popt.timer_hz = v;
            break;
        case 'h': usage(stdout); return close_stdout(0);
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    size_t nin = optind < argc ? (size_t)(argc - optind) : 1;
    if (nin > PERF_EXPORT_MAX_CPUS) {
        fprintf(stderr, "armprof-decode: %zu files given, at most %d\n", nin, PERF_EXPORT_MAX_CPUS);
        return EXIT_USAGE;
    }
    input *ins = calloc(nin, sizeof *ins);
    if (!ins) {
        fprintf(stderr, "armprof-decode: out of memory\n");
        return EXIT_USAGE;
    }
    int status = EXIT_WELL_FORMED;
    for (size_t i = 0; i < nin && status == EXIT_WELL_FORMED; i++) {
        const char *arg = optind < argc ? argv[optind + (int)i] : "-";
        status = load_input(arg, (uint32_t)i, &ins[i]);
        if (!status && nin > 1 && !strcmp(ins[i].path, "-")) {
            fprintf(stderr, "armprof-decode: stdin ('-') only as the single input\n");
            status = EXIT_USAGE;
        }
        for (size_t j = 0; j < i && !status; j++)
            if (ins[j].cpu == ins[i].cpu) {
                fprintf(stderr, "armprof-decode: %s and %s are both CPU %u\n", ins[j].path, ins[i].path,
                        ins[i].cpu);
                status = EXIT_USAGE;
            }
    }
    if (status) {
        for (size_t i = 0; i < nin; i++)
            free(ins[i].buf);
        free(ins);
        return status;
    }

    /* Past a file-size limit (--to-perf-data) a write fails with EFBIG, said with the file. */
    signal(SIGXFSZ, SIG_IGN);
    FILE *o = stdout;
    static char obuf_[1 << 16];
    setvbuf(o, obuf_, _IOFBF, sizeof obuf_);
    if (perf_out && mode == MODE_LIST)
        mode = MODE_QUIET;

    spe_summary sum;
    memset(&sum, 0, sizeof sum);
    sum.count_max = count_max;
    int multi = nin > 1;
    if (mode == MODE_CSV) {
        if (multi)
            fputs("cpu,", o);
        fputs(spe_fmt_csv_header(), o);
    }
    uint64_t errors = 0;
    for (size_t i = 0; i < nin; i++)
        errors += decode_one(&ins[i], mode, multi, &dopt, &sum, o);
    sum.errors = errors;
    if (mode == MODE_SUMMARY)
        spe_summary_print(&sum, o);
    fflush(o);

    status = errors ? EXIT_MALFORMED : EXIT_WELL_FORMED;
    if (perf_out) {
        char err[256];
        perf_export_buf *pb = calloc(nin, sizeof *pb);
        if (!pb) {
            fprintf(stderr, "armprof-decode: out of memory\n");
            status = EXIT_USAGE;
        } else {
            for (size_t i = 0; i < nin; i++)
                pb[i] = (perf_export_buf){ .data = ins[i].buf, .len = ins[i].len, .cpu = ins[i].cpu };
            if (perf_export_write_cpus(perf_out, pb, nin, &popt, err, sizeof err)) {
                fprintf(stderr, "armprof-decode: %s\n", err);
                status = EXIT_USAGE;
            }
            free(pb);
        }
    }
    for (size_t i = 0; i < nin; i++)
        free(ins[i].buf);
    free(ins);
    return close_stdout(status);
}
