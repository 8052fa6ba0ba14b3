/* SPDX-License-Identifier: Apache-2.0 */
/* spe_fmt.c: fast JSON/CSV formatting of decoded SPE records, and the --summary tables. */
#include "spe_fmt.h"

#include <inttypes.h>
#include <string.h>

static inline char *put_s(char *o, const char *s)
{
    size_t n = strlen(s);
    memcpy(o, s, n);
    return o + n;
}

static inline char *put_u(char *o, uint64_t v)
{
    char t[20];
    int n = 0;
    do {
        t[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *o++ = t[--n];
    return o;
}

static inline char *put_x(char *o, uint64_t v)
{
    static const char hx[] = "0123456789abcdef";
    int n = v ? (64 - __builtin_clzll(v) + 3) / 4 : 1;
    *o++ = '0';
    *o++ = 'x';
    for (int i = n - 1; i >= 0; i--)
        *o++ = hx[(v >> (4 * i)) & 0xF];
    return o;
}

uint64_t spe_fmt_perf_ip(uint64_t addr55, unsigned el, int ns)
{
    uint64_t a = addr55 & 0x00FFFFFFFFFFFFFFull;
    if (ns && (el == 1 || el == 2))
        a |= 0xFFull << 56;
    return a;
}

static const char *const sat_names[3] = { "total", "issue", "xlat" };

/* The names of the saturated counters in `sat` (bit i: sat_names[i]), `sep` between them, each
 * in double quotes when `quoted` (JSON) or bare (CSV). */
static char *put_sat_list(char *o, unsigned sat, char sep, bool quoted)
{
    for (int i = 0, first = 1; i < 3; i++) {
        if (!(sat & (1u << i)))
            continue;
        if (!first)
            *o++ = sep;
        first = 0;
        if (quoted)
            *o++ = '"';
        o = put_s(o, sat_names[i]);
        if (quoted)
            *o++ = '"';
    }
    return o;
}

size_t spe_fmt_json(const spe_decoded *d, char *buf)
{
    return spe_fmt_json_ex(d, buf, 0xFFF);
}

size_t spe_fmt_json_ex(const spe_decoded *d, char *buf, uint16_t count_max)
{
    const spe_record *r = &d->rec;
    uint32_t p = d->have;
    char *o = buf;
    o = put_s(o, "{\"offset\":");
    o = put_u(o, d->offset);
    o = put_s(o, ",\"size\":");
    o = put_u(o, d->size);
    if (p & SPE_R_PC) {
        o = put_s(o, ",\"pc\":\"");
        o = put_x(o, r->pc);
        o = put_s(o, "\",\"el\":");
        o = put_u(o, r->pc_el);
        o = put_s(o, ",\"ns\":");
        o = put_u(o, r->pc_ns);
    }
    if (p & SPE_R_OPTYPE) {
        char desc[64];
        o = put_s(o, ",\"op\":\"");
        o = put_s(o, spe_op_class_name(r->op_class));
        o = put_s(o, "\",\"subclass\":");
        o = put_u(o, r->op_subclass);
        spe_op_describe(r->op_class, r->op_subclass, desc, sizeof desc);
        o = put_s(o, ",\"op_desc\":\"");
        o = put_s(o, desc);
        *o++ = '"';
    }
    if (p & SPE_R_EVENTS) {
        o = put_s(o, ",\"events\":[");
        uint64_t ev = r->events;
        int first = 1;
        while (ev) {
            unsigned b = (unsigned)__builtin_ctzll(ev);
            ev &= ev - 1;
            const char *n = spe_event_name(b);
            if (!first)
                *o++ = ',';
            first = 0;
            *o++ = '"';
            if (n) {
                o = put_s(o, n);
            } else {
                *o++ = 'e';
                o = put_u(o, b);
            }
            *o++ = '"';
        }
        o = put_s(o, "],\"events_raw\":\"");
        o = put_x(o, r->events);
        *o++ = '"';
    }
    if (p & SPE_R_TOTAL_LAT) {
        o = put_s(o, ",\"lat_total\":");
        o = put_u(o, r->total_lat);
    }
    if (p & SPE_R_ISSUE_LAT) {
        o = put_s(o, ",\"lat_issue\":");
        o = put_u(o, r->issue_lat);
    }
    if (p & SPE_R_XLAT_LAT) {
        o = put_s(o, ",\"lat_xlat\":");
        o = put_u(o, r->xlat_lat);
    }
    unsigned sat = spe_fmt_saturated(d, count_max);
    if (sat) {
        o = put_s(o, ",\"saturated\":[");
        o = put_sat_list(o, sat, ',', true);
        *o++ = ']';
    }
    if (p & SPE_R_TARGET) {
        o = put_s(o, ",\"target\":\"");
        o = put_x(o, r->target);
        o = put_s(o, "\",\"target_el\":");
        o = put_u(o, r->target_el);
        o = put_s(o, ",\"target_ns\":");
        o = put_u(o, r->target_ns);
    }
    if (p & SPE_R_DATA_VA) {
        o = put_s(o, ",\"va\":\"");
        o = put_x(o, r->data_va);
        o = put_s(o, "\",\"va_tag\":");
        o = put_u(o, r->data_va_tag);
    }
    if (p & SPE_R_DATA_PA) {
        o = put_s(o, ",\"pa\":\"");
        o = put_x(o, r->data_pa);
        o = put_s(o, "\",\"pa_ns\":");
        o = put_u(o, r->data_pa_ns);
    }
    if (p & SPE_R_CONTEXT_EL1) {
        o = put_s(o, ",\"contextidr_el1\":");
        o = put_u(o, r->context_el1);
    }
    if (p & SPE_R_CONTEXT_EL2) {
        o = put_s(o, ",\"contextidr_el2\":");
        o = put_u(o, r->context_el2);
    }
    if (p & SPE_R_DATA_SOURCE) {
        o = put_s(o, ",\"data_source\":");
        o = put_u(o, r->data_source);
    }
    if (p & SPE_R_TIMESTAMP) {
        o = put_s(o, ",\"ts\":");
        o = put_u(o, r->timestamp);
    } else {
        o = put_s(o, ",\"end\":true");
    }
    if (d->n_ignored) {
        o = put_s(o, ",\"ignored_packets\":");
        o = put_u(o, d->n_ignored);
    }
    o = put_s(o, "}\n");
    return (size_t)(o - buf);
}

const char *spe_fmt_csv_header(void)
{
    return "offset,size,pc,el,ns,op,subclass,events,lat_total,lat_issue,lat_xlat,target,target_el,"
           "target_ns,va,va_tag,pa,pa_ns,contextidr_el1,contextidr_el2,data_source,ts,saturated\n";
}

size_t spe_fmt_csv(const spe_decoded *d, char *buf)
{
    return spe_fmt_csv_ex(d, buf, 0xFFF);
}

size_t spe_fmt_csv_ex(const spe_decoded *d, char *buf, uint16_t count_max)
{
    const spe_record *r = &d->rec;
    uint32_t p = d->have;
    char *o = buf;
#define SEP() (*o++ = ',')
    o = put_u(o, d->offset); SEP();
    o = put_u(o, d->size); SEP();
    if (p & SPE_R_PC) { o = put_x(o, r->pc); SEP(); o = put_u(o, r->pc_el); SEP(); o = put_u(o, r->pc_ns); SEP(); }
    else { SEP(); SEP(); SEP(); }
    if (p & SPE_R_OPTYPE) { o = put_s(o, spe_op_class_name(r->op_class)); SEP(); o = put_x(o, r->op_subclass); SEP(); }
    else { SEP(); SEP(); }
    if (p & SPE_R_EVENTS) o = put_x(o, r->events);
    SEP();
    if (p & SPE_R_TOTAL_LAT) o = put_u(o, r->total_lat);
    SEP();
    if (p & SPE_R_ISSUE_LAT) o = put_u(o, r->issue_lat);
    SEP();
    if (p & SPE_R_XLAT_LAT) o = put_u(o, r->xlat_lat);
    SEP();
    if (p & SPE_R_TARGET) { o = put_x(o, r->target); SEP(); o = put_u(o, r->target_el); SEP(); o = put_u(o, r->target_ns); SEP(); }
    else { SEP(); SEP(); SEP(); }
    if (p & SPE_R_DATA_VA) { o = put_x(o, r->data_va); SEP(); o = put_u(o, r->data_va_tag); SEP(); }
    else { SEP(); SEP(); }
    if (p & SPE_R_DATA_PA) { o = put_x(o, r->data_pa); SEP(); o = put_u(o, r->data_pa_ns); SEP(); }
    else { SEP(); SEP(); }
    if (p & SPE_R_CONTEXT_EL1) o = put_u(o, r->context_el1);
    SEP();
    if (p & SPE_R_CONTEXT_EL2) o = put_u(o, r->context_el2);
    SEP();
    if (p & SPE_R_DATA_SOURCE) o = put_u(o, r->data_source);
    SEP();
    if (p & SPE_R_TIMESTAMP) o = put_u(o, r->timestamp);
    SEP();
    o = put_sat_list(o, spe_fmt_saturated(d, count_max), '|', false);
#undef SEP
    *o++ = '\n';
    return (size_t)(o - buf);
}

static inline unsigned lat_bucket(uint16_t v)
{
    return v ? 32u - (unsigned)__builtin_clz(v) : 0u;
}

void spe_summary_add(spe_summary *s, const spe_decoded *d)
{
    const spe_record *r = &d->rec;
    const uint16_t lat[3] = { r->total_lat, r->issue_lat, r->xlat_lat };
    const uint32_t lat_bit[3] = { SPE_R_TOTAL_LAT, SPE_R_ISSUE_LAT, SPE_R_XLAT_LAT };
    s->records++;
    s->bytes += d->size;
    if (d->have & SPE_R_OPTYPE) {
        s->by_class[r->op_class & 3]++;
        if (r->op_class == SPE_CLASS_LDST) {
            if (r->op_subclass & SPE_LDST_ST)
                s->ldst_store++;
            else
                s->ldst_load++;
        } else if (r->op_class == SPE_CLASS_BRANCH) {
            s->br_cond += (r->op_subclass & SPE_BR_COND) != 0;
            s->br_indirect += (r->op_subclass & SPE_BR_INDIRECT) != 0;
        }
    } else {
        s->by_class[3]++;
    }
    if (d->have & SPE_R_PC)
        s->by_el[r->pc_el & 3]++;
    for (uint64_t ev = r->events; ev; ev &= ev - 1)
        s->events[__builtin_ctzll(ev)]++;
    for (int i = 0; i < 3; i++) {
        if (!(d->have & lat_bit[i]))
            continue;
        s->lat_n[i]++;
        s->lat_sum[i] += lat[i];
        if (lat[i] > s->lat_max[i])
            s->lat_max[i] = lat[i];
        s->lat_hist[i][lat_bucket(lat[i])]++;
    }
    unsigned sat = spe_fmt_saturated(d, s->count_max ? s->count_max : 0xFFF);
    if (sat) {
        s->sat_records++;
        for (int i = 0; i < 3; i++)
            s->sat[i] += (sat >> i) & 1;
    }
    if (d->have & SPE_R_TIMESTAMP)
        s->with_ts++;
    else
        s->with_end++;
    s->ignored += d->n_ignored;
    s->notes += d->n_notes;
}

static double pct(uint64_t a, uint64_t b)
{
    return b ? 100.0 * (double)a / (double)b : 0.0;
}

void spe_summary_print(const spe_summary *s, FILE *f)
{
    static const char *const cls[4] = { "other", "load/store", "branch", "(no Operation Type)" };
    static const char *const lat_names[3] = { "total", "issue", "translation" };
    fprintf(f, "records: %" PRIu64 " (%" PRIu64 " bytes, %" PRIu64 " ending in Timestamp, %" PRIu64 " in End)\n",
            s->records, s->bytes, s->with_ts, s->with_end);
    fprintf(f, "errors: %" PRIu64 ", packets ignored: %" PRIu64 ", packets noted: %" PRIu64 "\n",
            s->errors, s->ignored, s->notes);
    fprintf(f, "saturated counters (%u-bit): %" PRIu64 " records (total %" PRIu64 ", issue %" PRIu64
               ", translation %" PRIu64 ")\n\n",
            s->count_max == 0xFFFF ? 16u : 12u, s->sat_records, s->sat[0], s->sat[1], s->sat[2]);
    fprintf(f, "by operation class:\n");
    for (int i = 0; i < 4; i++)
        if (s->by_class[i] || i < 3)
            fprintf(f, "  %-20s %12" PRIu64 "  %6.2f%%\n", cls[i], s->by_class[i], pct(s->by_class[i], s->records));
    fprintf(f, "    loads %" PRIu64 ", stores %" PRIu64 "; branches conditional %" PRIu64 ", indirect %" PRIu64 "\n",
            s->ldst_load, s->ldst_store, s->br_cond, s->br_indirect);
    fprintf(f, "by exception level (PC): EL0 %" PRIu64 ", EL1 %" PRIu64 ", EL2 %" PRIu64 ", EL3 %" PRIu64 "\n\n",
            s->by_el[0], s->by_el[1], s->by_el[2], s->by_el[3]);
    fprintf(f, "event totals:\n");
    for (unsigned b = 0; b < 64; b++) {
        if (!s->events[b])
            continue;
        const char *n = spe_event_name(b);
        char tmp[8];
        if (!n) {
            snprintf(tmp, sizeof tmp, "e%u", b);
            n = tmp;
        }
        fprintf(f, "  %-20s %12" PRIu64 "  %6.2f%%\n", n, s->events[b], pct(s->events[b], s->records));
    }
    for (int i = 0; i < 3; i++) {
        if (!s->lat_n[i])
            continue;
        fprintf(f, "\n%s latency (cycles): %" PRIu64 " samples, mean %.1f, max %" PRIu64 "\n", lat_names[i],
                s->lat_n[i], (double)s->lat_sum[i] / (double)s->lat_n[i], s->lat_max[i]);
        uint64_t peak = 0;
        for (int k = 0; k < SPE_LAT_BUCKETS; k++)
            if (s->lat_hist[i][k] > peak)
                peak = s->lat_hist[i][k];
        for (int k = 0; k < SPE_LAT_BUCKETS; k++) {
            uint64_t c = s->lat_hist[i][k];
            if (!c)
                continue;
            unsigned lo = k ? 1u << (k - 1) : 0, hi = k ? (1u << k) - 1 : 0;
            int bar = (int)(40.0 * (double)c / (double)peak + 0.5);
            fprintf(f, "  %5u-%-5u %12" PRIu64 " %6.2f%% %.*s\n", lo, hi, c, pct(c, s->lat_n[i]), bar,
                    "########################################");
        }
    }
}
