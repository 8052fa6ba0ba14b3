/* SPDX-License-Identifier: Apache-2.0 */
/* perf_export.c: a minimal perf.data (PERFILE2) holding one Arm SPE AUX buffer, laid out as Linux perf's own files are. */
/*
 * Layout (tools/perf/util/header.c, perf_session__write_header(); docs/decode.md), as
 * `perf record -a -e arm_spe//` writes it for several CPUs:
 *   perf_file_header (104 bytes: magic "PERFILE2", size, attr_size, attrs, data, event_types,
 *                     adds_features bitmap of 256 bits)
 *   attrs:  one perf_file_attr = perf_event_attr (PERF_ATTR_SIZE_VER7, 128 bytes) + ids section:
 *           the arm_spe event as perf record's arm_spe_recording_options() leaves it:
 *           sample_type with DATA_SRC (and PHYS_ADDR when the records hold physical addresses),
 *           config with the format bits the unit ran with (ts_enable, pa_enable, ...), and
 *           exclude_kernel for a unit that sampled EL0 only (perf -e arm_spe//u); WEIGHT and
 *           ADDR too, which the samples perf synthesizes from the records carry: perf script
 *           checks each -F field against the event's sample_type (evsel__check_attr())
 *   ids:    one u64 event id per CPU (buffer i has id i + 1)
 *   data:   PERF_RECORD_TIME_CONV (with a timer frequency: Timestamp ticks -> ns),
 *           PERF_RECORD_ID_INDEX (id -> mmap index, CPU),
 *           PERF_RECORD_AUXTRACE_INFO (type PERF_AUXTRACE_ARM_SPE, priv = { PMU type, per-cpu mmaps }),
 *           PERF_RECORD_COMM (one per thread with a buffer), PERF_RECORD_MMAP2 of the process's
 *           files when given, then per CPU PERF_RECORD_AUX (kernel records carry the sample_id_all
 *           trailer: perf only orders events, which its SPE decoder requires, when it is set)
 *           and PERF_RECORD_AUXTRACE (idx = buffer index, cpu) + the buffer (padded to 8),
 *           PERF_RECORD_FINISHED_ROUND
 *   feature section table (one perf_file_section per set bit, in bit order), then the features:
 *           HOSTNAME, OSRELEASE, VERSION, ARCH ("aarch64"), NRCPUS, CPUID (MIDR as "0x%016x").
 *           No AUXTRACE index: with one, perf report 6.1 turns call chains on for AUX data
 *           (report__setup_sample_type()) and, for an aarch64 file on a host without libunwind
 *           for it, prints "unwind: target platform=arm64 is not supported" per mapping.
 * Everything is written little-endian, so the file reads the same on any host (perf byte-swaps
 * files whose magic is swapped). The event has PERF_SAMPLE_TIME, so perf decodes "timed": its
 * samples get tsc_to_perf_time(Timestamp packet) with TIME_CONV's mult/shift, and the queues of
 * several CPUs are merged in timestamp order. PERF_SAMPLE_CPU gives each sample its CPU.
 */
#define _POSIX_C_SOURCE 200809L
#include "perf_export.h"

#include <errno.h>
#include "armprof/spe.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* perf's own record types and constants (tools/perf/util/event.h, auxtrace.h, header.h). */
enum {
    PERF_RECORD_COMM_ = 3,
    PERF_RECORD_MMAP2_ = 10,
    PERF_RECORD_AUX_ = 11,
    PERF_RECORD_FINISHED_ROUND_ = 68,
    PERF_RECORD_ID_INDEX_ = 69,
    PERF_RECORD_AUXTRACE_INFO_ = 70,
    PERF_RECORD_AUXTRACE_ = 71,
    PERF_RECORD_TIME_CONV_ = 79,
};
enum { PERF_AUXTRACE_ARM_SPE_ = 4 };
enum {
    HEADER_HOSTNAME_ = 3, HEADER_OSRELEASE_ = 4, HEADER_VERSION_ = 5, HEADER_ARCH_ = 6,
    HEADER_NRCPUS_ = 7, HEADER_CPUID_ = 9,
};
#define PERF_MAGIC2 0x32454c4946524550ull   /* "PERFILE2" */
#define FILE_HEADER_SIZE 104u
#define ATTR_SIZE 128u                      /* PERF_ATTR_SIZE_VER7 */
#define NAME_ALIGN 64u
/* perf_event_attr.sample_type bits (include/uapi/linux/perf_event.h) */
#define PERF_SAMPLE_IP_         (1u << 0)
#define PERF_SAMPLE_TID_        (1u << 1)
#define PERF_SAMPLE_TIME_       (1u << 2)
#define PERF_SAMPLE_ADDR_       (1u << 3)
#define PERF_SAMPLE_CPU_        (1u << 7)
#define PERF_SAMPLE_PERIOD_     (1u << 8)
#define PERF_SAMPLE_WEIGHT_     (1u << 14)
#define PERF_SAMPLE_DATA_SRC_   (1u << 15)
#define PERF_SAMPLE_IDENTIFIER_ (1u << 16)
#define PERF_SAMPLE_PHYS_ADDR_  (1u << 19)
/* perf_event_attr flag bits */
#define ATTR_DISABLED       (1ull << 0)
#define ATTR_EXCLUDE_KERNEL (1ull << 5)
#define ATTR_EXCLUDE_HV     (1ull << 6)
#define ATTR_ENABLE_ON_EXEC (1ull << 12)
#define ATTR_SAMPLE_ID_ALL  (1ull << 18)
#define SPE_EVENT_ID 1ull
#define PERF_RECORD_MISC_USER_ 2u
#define PERF_RECORD_MISC_MMAP_DATA_ (1u << 13)

/* A growable little-endian byte buffer. */
typedef struct obuf {
    uint8_t *p;
    size_t n, cap;
    int oom;
} obuf;

static void ob_reserve(obuf *b, size_t more)
{
    if (b->oom || b->n + more <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + more)
        cap *= 2;
    uint8_t *np = realloc(b->p, cap);
    if (!np) {
        b->oom = 1;
        return;
    }
    b->p = np;
    b->cap = cap;
}
static void ob_bytes(obuf *b, const void *src, size_t n)
{
    ob_reserve(b, n);
    if (b->oom)
        return;
    memcpy(b->p + b->n, src, n);
    b->n += n;
}
static void ob_zero(obuf *b, size_t n)
{
    ob_reserve(b, n);
    if (b->oom)
        return;
    memset(b->p + b->n, 0, n);
    b->n += n;
}
static void ob_le(obuf *b, uint64_t v, unsigned n)
{
    uint8_t t[8];
    for (unsigned i = 0; i < n; i++)
        t[i] = (uint8_t)(v >> (8 * i));
    ob_bytes(b, t, n);
}
static void ob_u16(obuf *b, uint16_t v) { ob_le(b, v, 2); }
static void ob_u32(obuf *b, uint32_t v) { ob_le(b, v, 4); }
static void ob_u64(obuf *b, uint64_t v) { ob_le(b, v, 8); }
static void put_u64_at(obuf *b, size_t at, uint64_t v)
{
    for (unsigned i = 0; i < 8; i++)
        b->p[at + i] = (uint8_t)(v >> (8 * i));
}

/* sample_id_all trailer of kernel records for our sample_type (parsed from the end by perf's
 * perf_evsel__parse_id_sample()): TID (pid, tid), TIME, CPU (cpu, res), IDENTIFIER. */
#define SAMPLE_ID_SIZE 32u
static void sample_id(obuf *b, uint32_t pid, uint32_t cpu, uint64_t id)
{
    ob_u32(b, pid);
    ob_u32(b, pid);
    ob_u64(b, 0);
    ob_u32(b, cpu);
    ob_u32(b, 0);
    ob_u64(b, id);
}

static void ev_header(obuf *b, uint32_t type, uint16_t misc, uint16_t size)
{
    ob_u32(b, type);
    ob_u16(b, misc);
    ob_u16(b, size);
}

/* perf's do_write_string(): u32 length (padded to NAME_ALIGN, NUL included), then the string. */
static void feat_string(obuf *b, const char *s)
{
    size_t len = strlen(s) + 1;
    size_t olen = (len + NAME_ALIGN - 1) & ~(size_t)(NAME_ALIGN - 1);
    ob_u32(b, (uint32_t)olen);
    ob_bytes(b, s, len);
    ob_zero(b, olen - len);
}

perf_time_conv perf_export_time_conv(uint64_t hz)
{
    perf_time_conv c = { .shift = 0, .mult = 0, .zero = 0 };
    if (!hz)
        return c;
    for (int shift = 31; shift >= 0; shift--) {
        /* round(1e9 * 2^shift / hz), computed without overflow */
        unsigned __int128 num = (unsigned __int128)1000000000u << shift;
        unsigned __int128 m = (num + hz / 2) / hz;
        if (m <= 0xFFFFFFFFu && m > 0) {
            c.shift = (uint16_t)shift;
            c.mult = (uint32_t)m;
            /* prefer the smallest exact pair (1 GHz: 1 << 0, 100 MHz: 10 << 0) */
            while (c.shift && !(c.mult & 1)) {
                c.shift--;
                c.mult >>= 1;
            }
            return c;
        }
    }
    c.mult = 0xFFFFFFFFu; /* hz < 1/4 Hz: as slow as perf can express */
    return c;
}

uint64_t perf_export_ticks_to_ns(uint64_t ticks, const perf_time_conv *c)
{
    uint64_t quot = ticks >> c->shift;
    uint64_t rem = ticks & ((1ull << c->shift) - 1);
    return c->zero + quot * c->mult + ((rem * c->mult) >> c->shift);
}

void perf_export_scan_bufs(const perf_export_buf *bufs, size_t n, perf_export_scan *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < n; i++) {
        spe_decode_opts dopt = { .lenient = true };
        spe_decoder d;
        spe_decoder_init(&d, bufs[i].data, bufs[i].len, &dopt);
        spe_decoded r;
        int st;
        while ((st = spe_decoder_next(&d, &r)) != SPE_DEC_EOF) {
            if (st != SPE_DEC_RECORD)
                continue;
            out->records++;
            out->any_pa |= (r.rec.present & SPE_R_DATA_PA) != 0;
            out->any_ts |= (r.rec.present & SPE_R_TIMESTAMP) != 0;
            out->any_kernel_pc |= (r.rec.present & SPE_R_PC) && (r.rec.pc_el == 1 || r.rec.pc_el == 2);
        }
    }
}

int perf_export_write(const char *path, const uint8_t *buf, size_t len, const perf_export_opts *o,
                      char *err, size_t errlen)
{
    perf_export_buf one = { .data = buf, .len = len, .cpu = o ? o->cpu : 0 };
    return perf_export_write_cpus(path, &one, 1, o, err, errlen);
}

int perf_export_write_cpus(const char *path, const perf_export_buf *bufs, size_t nbuf, const perf_export_opts *o_in,
                           char *err, size_t errlen)
{
    perf_export_opts o = { .midr = 0x413fd0c1ull, .pmu_type = 8, .pid = 1, .cpu = 0, .comm = "armprof" };
    if (o_in) {
        if (o_in->midr) o.midr = o_in->midr;
        if (o_in->pmu_type) o.pmu_type = o_in->pmu_type;
        if (o_in->pid) o.pid = o_in->pid;
        if (o_in->comm) o.comm = o_in->comm;
        o.timer_hz = o_in->timer_hz;
        o.mmaps = o_in->mmaps;
        o.n_mmaps = o_in->n_mmaps;
        o.extra_sample_type = o_in->extra_sample_type;
        o.config = o_in->config;
        o.config1 = o_in->config1;
        o.config2 = o_in->config2;
        o.user_only = o_in->user_only;
    }
    if (nbuf == 0 || nbuf > PERF_EXPORT_MAX_CPUS) {
        snprintf(err, errlen, "%s: %zu buffers given, 1 to %d supported", path, nbuf, PERF_EXPORT_MAX_CPUS);
        return -1;
    }
    uint32_t max_cpu = 0;
    for (size_t i = 0; i < nbuf; i++) {
        if (bufs[i].cpu >= PERF_EXPORT_MAX_CPUS) {
            snprintf(err, errlen, "%s: CPU %u out of range (0..%d)", path, bufs[i].cpu, PERF_EXPORT_MAX_CPUS - 1);
            return -1;
        }
        for (size_t j = 0; j < i; j++)
            if (bufs[j].cpu == bufs[i].cpu) {
                snprintf(err, errlen, "%s: two buffers for CPU %u", path, bufs[i].cpu);
                return -1;
            }
        if (bufs[i].cpu > max_cpu)
            max_cpu = bufs[i].cpu;
    }
    perf_export_scan sc;
    perf_export_scan_bufs(bufs, nbuf, &sc);
    uint64_t sample_type = PERF_SAMPLE_IP_ | PERF_SAMPLE_TID_ | PERF_SAMPLE_TIME_ | PERF_SAMPLE_ADDR_ |
                           PERF_SAMPLE_CPU_ | PERF_SAMPLE_PERIOD_ | PERF_SAMPLE_WEIGHT_ | PERF_SAMPLE_DATA_SRC_ |
                           PERF_SAMPLE_IDENTIFIER_ | o.extra_sample_type;
    uint64_t config = o.config;
    if (sc.any_pa) {
        sample_type |= PERF_SAMPLE_PHYS_ADDR_;
        config |= PERF_EXPORT_SPE_PA_ENABLE;
    }
    if (sc.any_ts)
        config |= PERF_EXPORT_SPE_TS_ENABLE;
    bool user_only = o.user_only > 0 || (o.user_only == 0 && !sc.any_kernel_pc);
    uint64_t flags = ATTR_DISABLED | ATTR_EXCLUDE_HV | ATTR_ENABLE_ON_EXEC | ATTR_SAMPLE_ID_ALL |
                     (user_only ? ATTR_EXCLUDE_KERNEL : 0);
    obuf b = { 0 };

    /* perf_file_header, patched at the end */
    ob_zero(&b, FILE_HEADER_SIZE);

    /* attrs: perf_event_attr (128 bytes) + perf_file_section ids. One arm_spe event opened on
     * every CPU, as `perf record -a -e arm_spe//` does: one id per CPU (buffer i: id i + 1). */
    size_t attrs_off = b.n;
    ob_u32(&b, o.pmu_type);                               /* type */
    ob_u32(&b, ATTR_SIZE);                                /* size */
    ob_u64(&b, config);                                   /* config */
    ob_u64(&b, 1);                                        /* sample_period */
    ob_u64(&b, sample_type);
    ob_u64(&b, 0);                                        /* read_format */
    ob_u64(&b, flags);
    ob_u32(&b, 0);                                        /* wakeup_events */
    ob_u32(&b, 0);                                        /* bp_type */
    ob_u64(&b, o.config1);                                /* config1: event_filter */
    ob_u64(&b, o.config2);                                /* config2: min_latency */
    ob_zero(&b, ATTR_SIZE - 72);                          /* branch_sample_type ... sig_data */
    size_t ids_sec = b.n;
    ob_u64(&b, 0);                                        /* ids.offset (patched) */
    ob_u64(&b, 8 * nbuf);                                 /* ids.size: one u64 per CPU */
    size_t attrs_size = b.n - attrs_off;
    put_u64_at(&b, ids_sec, b.n);
    for (size_t i = 0; i < nbuf; i++)
        ob_u64(&b, SPE_EVENT_ID + i);

    /* data */
    size_t data_off = b.n;
    /* PERF_RECORD_TIME_CONV first: perf's arm_spe_process_auxtrace_info() copies the session's
     * conversion when it reads AUXTRACE_INFO (perf record writes TIME_CONV before it too).
     * Fields: time_shift, time_mult, time_zero, time_cycles, time_mask, cap_user_time_zero,
     * cap_user_time_short, reserved[6]. */
    if (o.timer_hz) {
        perf_time_conv tc = perf_export_time_conv(o.timer_hz);
        ev_header(&b, PERF_RECORD_TIME_CONV_, 0, 8 + 5 * 8 + 8);
        ob_u64(&b, tc.shift);
        ob_u64(&b, tc.mult);
        ob_u64(&b, tc.zero);
        ob_u64(&b, 0);                                    /* time_cycles */
        ob_u64(&b, 0);                                    /* time_mask */
        ob_le(&b, 1, 1);                                  /* cap_user_time_zero */
        ob_le(&b, 0, 1);                                  /* cap_user_time_short: full 64-bit counter */
        ob_zero(&b, 6);
    }
    /* PERF_RECORD_ID_INDEX: which CPU (and mmap index) each id belongs to: id, idx, cpu, tid */
    ev_header(&b, PERF_RECORD_ID_INDEX_, 0, (uint16_t)(16 + 32 * nbuf));
    ob_u64(&b, nbuf);
    for (size_t i = 0; i < nbuf; i++) {
        ob_u64(&b, SPE_EVENT_ID + i);
        ob_u64(&b, i);
        ob_u64(&b, bufs[i].cpu);
        ob_u64(&b, UINT64_MAX);                           /* tid -1: a per-CPU event */
    }
    /* PERF_RECORD_AUXTRACE_INFO: header, u32 type, u32 reserved, priv[ARM_SPE_AUXTRACE_PRIV_MAX] */
    ev_header(&b, PERF_RECORD_AUXTRACE_INFO_, 0, 8 + 8 + 16);
    ob_u32(&b, PERF_AUXTRACE_ARM_SPE_);
    ob_u32(&b, 0);
    ob_u64(&b, o.pmu_type);                               /* priv[ARM_SPE_PMU_TYPE] */
    ob_u64(&b, 1);                                        /* priv[ARM_SPE_PER_CPU_MMAPS] */
    /* PERF_RECORD_COMM: pid, tid, comm (NUL-terminated, padded to 8) */
    {
        char comm[16] = { 0 };
        strncpy(comm, o.comm, sizeof comm - 1);
        size_t cl = (strlen(comm) + 1 + 7) & ~(size_t)7;
        ev_header(&b, PERF_RECORD_COMM_, 0, (uint16_t)(8 + 8 + cl + SAMPLE_ID_SIZE));
        ob_u32(&b, o.pid);
        ob_u32(&b, o.pid);
        ob_bytes(&b, comm, cl);
        sample_id(&b, o.pid, bufs[0].cpu, SPE_EVENT_ID);
        /* Threads of the process with a buffer of their own: COMM (pid, tid), so perf finds
         * the thread and gives it the process's maps. */
        for (size_t i = 0; i < nbuf; i++) {
            uint32_t tid = bufs[i].tid;
            int seen = tid == 0 || tid == o.pid;
            for (size_t j = 0; j < i && !seen; j++)
                seen = bufs[j].tid == tid;
            if (seen)
                continue;
            ev_header(&b, PERF_RECORD_COMM_, 0, (uint16_t)(8 + 8 + cl + SAMPLE_ID_SIZE));
            ob_u32(&b, o.pid);
            ob_u32(&b, tid);
            ob_bytes(&b, comm, cl);
            sample_id(&b, o.pid, bufs[i].cpu, SPE_EVENT_ID + i);
        }
    }
    /* PERF_RECORD_MMAP2: pid, tid, start, len, pgoff, maj, min, ino, ino_generation, prot,
     * flags, filename (NUL-terminated, padded to 8), sample_id trailer. */
    for (size_t i = 0; i < o.n_mmaps; i++) {
        const perf_export_mmap *m = &o.mmaps[i];
        const char *fn = m->filename ? m->filename : "//anon";
        size_t fl = (strlen(fn) + 1 + 7) & ~(size_t)7;
        if (fl > 4096) {
            snprintf(err, errlen, "%s: mapping file name too long: %s", path, fn);
            free(b.p);
            return -1;
        }
        uint16_t misc = (uint16_t)(PERF_RECORD_MISC_USER_ | (m->data ? PERF_RECORD_MISC_MMAP_DATA_ : 0));
        ev_header(&b, PERF_RECORD_MMAP2_, misc, (uint16_t)(8 + 8 + 24 + 24 + 8 + fl + SAMPLE_ID_SIZE));
        ob_u32(&b, o.pid);
        ob_u32(&b, o.pid);
        ob_u64(&b, m->start);
        ob_u64(&b, m->len);
        ob_u64(&b, m->pgoff);
        ob_u32(&b, m->maj);
        ob_u32(&b, m->min);
        ob_u64(&b, m->ino);
        ob_u64(&b, 0);                                    /* ino_generation */
        ob_u32(&b, m->prot);
        ob_u32(&b, m->flags);
        char name[4096] = { 0 };
        memcpy(name, fn, strlen(fn));
        ob_bytes(&b, name, fl);
        sample_id(&b, o.pid, bufs[0].cpu, SPE_EVENT_ID);
    }
    for (size_t i = 0; i < nbuf; i++) {
        size_t len = bufs[i].len, padded = (len + 7) & ~(size_t)7;
        /* PERF_RECORD_AUX: aux_offset, aux_size, flags */
        ev_header(&b, PERF_RECORD_AUX_, 0, 8 + 24 + SAMPLE_ID_SIZE);
        ob_u64(&b, 0);
        ob_u64(&b, padded);
        ob_u64(&b, 0);
        uint32_t tid = bufs[i].tid ? bufs[i].tid : o.pid;
        ob_u32(&b, o.pid);                                /* sample_id: pid, tid, ... */
        ob_u32(&b, tid);
        ob_u64(&b, 0);
        ob_u32(&b, bufs[i].cpu);
        ob_u32(&b, 0);
        ob_u64(&b, SPE_EVENT_ID + i);
        /* PERF_RECORD_AUXTRACE: size, offset, reference, idx, tid, cpu, reserved; then the data */
        ev_header(&b, PERF_RECORD_AUXTRACE_, 0, 8 + 40);
        ob_u64(&b, padded);                               /* size, padding included */
        ob_u64(&b, 0);                                    /* offset in the AUX area */
        ob_u64(&b, 0x41524d50524f46ull + i);              /* reference (any value) */
        ob_u32(&b, (uint32_t)i);                          /* idx: the per-cpu mmap / queue */
        ob_u32(&b, tid);                                  /* tid */
        ob_u32(&b, bufs[i].cpu);                          /* cpu */
        ob_u32(&b, 0);
        ob_bytes(&b, bufs[i].data, len);
        ob_zero(&b, padded - len);                        /* SPE Padding packets */
    }
    ev_header(&b, PERF_RECORD_FINISHED_ROUND_, 0, 8);
    size_t data_size = b.n - data_off;

    /* features: the section table, then each feature's contents */
    static const int feats[] = { HEADER_HOSTNAME_, HEADER_OSRELEASE_, HEADER_VERSION_, HEADER_ARCH_,
                                 HEADER_NRCPUS_, HEADER_CPUID_ };
    enum { NFEAT = sizeof feats / sizeof feats[0] };
    size_t table = b.n;
    ob_zero(&b, 16 * NFEAT);
    uint64_t bitmap[4] = { 0 };
    for (int i = 0; i < NFEAT; i++) {
        size_t start = b.n;
        char midr[24];
        switch (feats[i]) {
        case HEADER_HOSTNAME_:  feat_string(&b, "armprof"); break;
        case HEADER_OSRELEASE_: feat_string(&b, "armprof-model"); break;
        case HEADER_VERSION_:   feat_string(&b, "armprof-decode"); break;
        case HEADER_ARCH_:      feat_string(&b, "aarch64"); break;
        case HEADER_NRCPUS_:    ob_u32(&b, max_cpu + 1); ob_u32(&b, max_cpu + 1); break;
        case HEADER_CPUID_:
            snprintf(midr, sizeof midr, "0x%016llx", (unsigned long long)o.midr);
            feat_string(&b, midr);
            break;
        }
        if (b.oom)
            break;
        put_u64_at(&b, table + 16 * (size_t)i, start);
        put_u64_at(&b, table + 16 * (size_t)i + 8, b.n - start);
        bitmap[feats[i] / 64] |= 1ull << (feats[i] % 64);
    }
    if (b.oom) {
        snprintf(err, errlen, "out of memory building %s", path);
        free(b.p);
        return -1;
    }

    /* perf_file_header */
    put_u64_at(&b, 0, PERF_MAGIC2);
    put_u64_at(&b, 8, FILE_HEADER_SIZE);
    put_u64_at(&b, 16, attrs_size);                       /* attr_size: attr + ids section */
    put_u64_at(&b, 24, attrs_off);
    put_u64_at(&b, 32, attrs_size);
    put_u64_at(&b, 40, data_off);
    put_u64_at(&b, 48, data_size);
    put_u64_at(&b, 56, 0);                                /* event_types: ignored */
    put_u64_at(&b, 64, 0);
    for (int i = 0; i < 4; i++)
        put_u64_at(&b, 72 + 8 * (size_t)i, bitmap[i]);

    FILE *f = fopen(path, "wb");
    if (!f) {
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
        free(b.p);
        return -1;
    }
    int bad = fwrite(b.p, 1, b.n, f) != b.n;
    int e = bad ? errno : 0;
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    free(b.p);
    if (bad) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(e ? e : EIO));
        return -1;
    }
    return 0;
}
