/* SPDX-License-Identifier: Apache-2.0 */
/* main.c: armprof-decode, lists / exports the records of an SPE Profiling Buffer dump (seed 001 §5). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "armprof/spe.h"
#include "perf_export.h"
#include "spe_fmt.h"

enum { EXIT_WELL_FORMED = 0, EXIT_MALFORMED = 1, EXIT_USAGE = 2 };
enum { MODE_LIST, MODE_JSON, MODE_CSV, MODE_SUMMARY, MODE_QUIET };

static void usage(FILE *f)
{
    fprintf(f,
            "usage: armprof-decode [options] [FILE|-]\n"
            "Decodes an SPE Profiling Buffer dump (e.g. out/spe.bin from armprof-run), from FILE or stdin.\n\n"
            "output (one of; default: a listing like `perf report -D`, one block per record):\n"
            "  --json             one JSON object per record (one per line)\n"
            "  --csv              one CSV row per record, with a header line\n"
            "  --summary          record counts by operation class, event totals, latency histograms\n"
            "  --quiet            no output; only check the stream (exit status, errors on stderr)\n"
            "checks:\n"
            "  --lenient          keep going after an error (resynchronise) and count the errors\n"
            "  --max-size N       PMSIDR_EL1.MaxSize: report records longer than 2^N bytes (4..11)\n"
            "  --base ADDR        buffer address of the first byte (Alignment commands align to it)\n"
            "export:\n"
            "  --to-perf-data OUT write OUT as a perf.data file holding the buffer as Arm SPE AUX\n"
            "                     trace; open it with `perf report -D -i OUT` or\n"
            "                     `perf script -i OUT --itrace=i1i`\n"
            "  --midr VALUE       MIDR_EL1 for the perf.data CPU identifier (default 0x413fd0c1,\n"
            "                     Arm Neoverse N1 r3p1)\n"
            "  -h, --help         this text\n\n"
            "exit status: 0 the stream is well formed, 1 it is not (errors are reported with their\n"
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

/* Reads all of `f`. */
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
        free(p);
        return NULL;
    }
    *len = n;
    return p;
}

/* Prints the packets of [from, to) one per line: offset, raw bytes, description. */
static void list_packets(const uint8_t *b, size_t len, size_t from, size_t to, uint64_t base, FILE *o)
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
        fprintf(o, "%*s %s\n", (10 - n) * 3, "", desc);
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
        { "to-perf-data", required_argument, NULL, 'P' },
        { "midr", required_argument, NULL, 'M' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int mode = MODE_LIST, c;
    spe_decode_opts dopt = { 0 };
    const char *perf_out = NULL;
    perf_export_opts popt = { 0 };
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
        case 'P': perf_out = optarg; break;
        case 'M':
            if (parse_u64("--midr", optarg, 1, 0xFFFFFFFFull, &v))
                return EXIT_USAGE;
            popt.midr = v;
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (argc - optind > 1) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *path = optind < argc ? argv[optind] : "-";
    FILE *in = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!in) {
        fprintf(stderr, "armprof-decode: cannot open %s: %s\n", path, strerror(errno));
        return EXIT_USAGE;
    }
    size_t len = 0;
    uint8_t *buf = slurp(in, &len);
    if (in != stdin)
        fclose(in);
    if (!buf) {
        fprintf(stderr, "armprof-decode: cannot read %s\n", path);
        return EXIT_USAGE;
    }

    FILE *o = stdout;
    static char obuf_[1 << 16];
    setvbuf(o, obuf_, _IOFBF, sizeof obuf_);
    if (perf_out && mode == MODE_LIST)
        mode = MODE_QUIET;

    spe_decoder d;
    spe_decoded r;
    spe_summary sum;
    char line[SPE_FMT_LINE_MAX];
    size_t prev_end = 0;
    int rc;
    memset(&sum, 0, sizeof sum);
    spe_decoder_init(&d, buf, len, &dopt);
    if (mode == MODE_CSV)
        fputs(spe_fmt_csv_header(), o);
    while ((rc = spe_decoder_next(&d, &r)) != SPE_DEC_EOF) {
        if (rc == SPE_DEC_ERROR) {
            char msg[256];
            spe_dec_error_text(&d, msg, sizeof msg);
            fflush(o);
            fprintf(stderr, "armprof-decode: %s: %s\n", path, msg);
            if (mode == MODE_LIST) {
                if (r.size || d.err_offset > r.offset)
                    list_packets(buf, len, r.offset, d.err_offset > r.offset ? d.err_offset : r.offset + r.size,
                                 dopt.base, o);
                fprintf(o, "ERROR %s\n\n", msg);
            }
            prev_end = d.pos;
            continue;
        }
        switch (mode) {
        case MODE_LIST:
            if (r.offset > prev_end)
                fprintf(o, "(%zu bytes of padding / alignment at 0x%zx)\n", r.offset - prev_end, prev_end);
            fprintf(o, "record %" PRIu64 " at 0x%zx, %zu bytes\n", d.n_records - 1, r.offset, r.size);
            list_packets(buf, len, r.offset, r.offset + r.size, dopt.base, o);
            fputc('\n', o);
            break;
        case MODE_JSON:
            fwrite(line, 1, spe_fmt_json(&r, line), o);
            break;
        case MODE_CSV:
            fwrite(line, 1, spe_fmt_csv(&r, line), o);
            break;
        case MODE_SUMMARY:
            spe_summary_add(&sum, &r);
            break;
        default:
            break;
        }
        prev_end = r.offset + r.size;
    }
    sum.errors = d.n_errors;
    if (mode == MODE_SUMMARY)
        spe_summary_print(&sum, o);
    if (mode == MODE_LIST)
        fprintf(o, "%" PRIu64 " records, %zu bytes, %" PRIu64 " errors, %" PRIu64 " packets ignored\n",
                d.n_records, len, d.n_errors, d.n_ignored);
    fflush(o);
    if (d.n_errors && dopt.lenient)
        fprintf(stderr, "armprof-decode: %s: %" PRIu64 " errors, %" PRIu64 " records decoded\n", path,
                d.n_errors, d.n_records);

    int status = d.n_errors ? EXIT_MALFORMED : EXIT_WELL_FORMED;
    if (perf_out) {
        char err[256];
        if (perf_export_write(perf_out, buf, len, &popt, err, sizeof err)) {
            fprintf(stderr, "armprof-decode: %s\n", err);
            status = EXIT_USAGE;
        }
    }
    free(buf);
    return status;
}
