/* SPDX-License-Identifier: Apache-2.0 */
/* spe_text.c: the SPE decoder's text: names of events and operation classes, one-line packet
 * descriptions, and decoder error messages (seed 001 §5.3 packet fields, read back as text). */
#include <stdio.h>
#include <string.h>

#include "armprof/spe.h"
#include "spe_pkt.h"

/* ---- errors ---- */

static const char *const err_names[SPE_DEC_ERR__COUNT] = {
    [SPE_DEC_OK] = "no error",
    [SPE_DEC_ERR_EMPTY] = "empty input",
    [SPE_DEC_ERR_TRUNCATED_PKT] = "truncated packet",
    [SPE_DEC_ERR_TRUNCATED_REC] = "truncated record",
    [SPE_DEC_ERR_RESERVED_HDR] = "reserved header",
    [SPE_DEC_ERR_DUPLICATE] = "duplicate packet in a record",
    [SPE_DEC_ERR_TOO_LONG] = "record longer than MaxSize",
};

const char *spe_dec_strerror(spe_dec_err err)
{
    return (unsigned)err < SPE_DEC_ERR__COUNT ? err_names[err] : "unknown error";
}

/* ---- names ---- */

static const char *const event_names[] = {
    [SPE_EV_EXCEPTION] = "exception", [SPE_EV_RETIRED] = "retired",
    [SPE_EV_L1D_ACCESS] = "l1d_access", [SPE_EV_L1D_REFILL] = "l1d_refill",
    [SPE_EV_TLB_ACCESS] = "tlb_access", [SPE_EV_TLB_WALK] = "tlb_walk",
    [SPE_EV_NOT_TAKEN] = "not_taken", [SPE_EV_MISPREDICTED] = "mispredicted",
    [SPE_EV_LLC_ACCESS] = "llc_access", [SPE_EV_LLC_MISS] = "llc_miss",
    [SPE_EV_REMOTE_ACCESS] = "remote_access",
};

const char *spe_event_name(unsigned bit)
{
    return bit < sizeof event_names / sizeof event_names[0] ? event_names[bit] : NULL;
}

const char *spe_op_class_name(unsigned c)
{
    static const char *const n[] = { "other", "ldst", "branch", "reserved" };
    return n[c & 3];
}

/* Appends a string / a "0x%02x" byte to t (at most 64 bytes are ever built). */
static inline size_t cat_s(char *t, size_t n, const char *s)
{
    size_t k = strlen(s);
    memcpy(t + n, s, k);
    return n + k;
}
static inline size_t cat_x8(char *t, size_t n, unsigned v)
{
    static const char hx[] = "0123456789abcdef";
    t[n++] = '0';
    t[n++] = 'x';
    t[n++] = hx[(v >> 4) & 0xF];
    t[n++] = hx[v & 0xF];
    return n;
}

/* Built by hand, not with snprintf(): JSON output calls this once per record. */
int spe_op_describe(unsigned cls, unsigned sub, char *buf, size_t len)
{
    char t[64];
    size_t n = 0;
    sub &= 0xFFu;
    switch (cls) {
    case SPE_CLASS_OTHER:
        if (sub == SPE_OTHER_UNCOND)
            n = cat_s(t, n, "other");
        else if (sub == SPE_OTHER_COND)
            n = cat_s(t, n, "cond");
        else
            n = cat_x8(t, cat_s(t, n, "other "), sub);
        break;
    case SPE_CLASS_BRANCH:
        n = cat_s(t, n, (sub & SPE_BR_INDIRECT) ? "indirect" : "direct");
        if (sub & SPE_BR_COND)
            n = cat_s(t, n, " cond");
        if (sub & ~(unsigned)(SPE_BR_COND | SPE_BR_INDIRECT))
            n = cat_s(t, n, " +undefined bits");
        break;
    case SPE_CLASS_LDST:
        n = cat_s(t, n, (sub & SPE_LDST_ST) ? "store" : "load");
        if ((sub & 0xFEu) == SPE_LDST_GP) {
            n = cat_s(t, n, " gp");
        } else if ((sub & 0xFEu) == SPE_LDST_SIMD_FP) {
            n = cat_s(t, n, " simd_fp");
        } else if ((sub & 0xE0u) == 0 && (sub & SPE_LDST_EXTENDED)) {
            if (sub & SPE_LDST_AT)
                n = cat_s(t, n, " atomic");
            if (sub & SPE_LDST_EXCL)
                n = cat_s(t, n, " exclusive");
            if (sub & SPE_LDST_AR)
                n = cat_s(t, n, " acq_rel");
        } else {
            n = cat_x8(t, cat_s(t, n, " "), sub);
        }
        break;
    default:
        n = cat_x8(t, cat_s(t, n, "reserved "), sub);
        break;
    }
    if (len) {
        size_t k = n < len - 1 ? n : len - 1;
        memcpy(buf, t, k);
        buf[k] = '\0';
    }
    return (int)n;
}

static const char *note_text(uint8_t note)
{
    switch (note) {
    case SPE_NOTE_RESERVED: return " (reserved value: ignored)";
    case SPE_NOTE_IMPDEF:   return " (IMPLEMENTATION DEFINED: ignored)";
    case SPE_NOTE_RAZ:      return " (RAZ bits set)";
    case SPE_NOTE_SUBCLASS: return " (SUBCLASS not in the v8.2 text)";
    default:                return "";
    }
}

int spe_packet_describe(const spe_packet *k, char *buf, size_t len)
{
    static const char *const cnt_names[] = { "TOT", "ISSUE", "XLAT" };
    const char *nt = note_text(k->note);
    uint64_t pl = k->payload;
    int n;
    switch (k->kind) {
    case SPE_PKT_PADDING:
        return snprintf(buf, len, "PAD");
    case SPE_PKT_END:
        return snprintf(buf, len, "END");
    case SPE_PKT_TIMESTAMP:
        return snprintf(buf, len, "TS %llu", (unsigned long long)pl);
    case SPE_PKT_EVENTS:
        n = snprintf(buf, len, "EV");
        for (unsigned b = 0; b < 64; b++) {
            if (!(pl & (1ull << b)))
                continue;
            const char *name = spe_event_name(b);
            size_t at = (size_t)n < len ? (size_t)n : len;
            if (name)
                n += snprintf(buf + at, len - at, " %s", name);
            else
                n += snprintf(buf + at, len - at, " e%u", b);
        }
        return n;
    case SPE_PKT_DATA_SOURCE:
        return snprintf(buf, len, "DATA-SOURCE %llu", (unsigned long long)pl);
    case SPE_PKT_CONTEXT:
        return snprintf(buf, len, "CONTEXT 0x%llx el%u%s", (unsigned long long)pl, k->index + 1u, nt);
    case SPE_PKT_OPTYPE: {
        char d[64];
        spe_op_describe(k->index, (unsigned)pl, d, sizeof d);
        return snprintf(buf, len, "OP %s: %s%s", spe_op_class_name(k->index), d, nt);
    }
    case SPE_PKT_ADDRESS: {
        unsigned long long a = (unsigned long long)ap_field_get(SPE_ADDR_ADDR, pl);
        if (k->note == SPE_NOTE_NONE || k->note == SPE_NOTE_RAZ) {
            switch (k->index) {
            case SPE_ADDR_PC:
            case SPE_ADDR_TARGET:
                return snprintf(buf, len, "%s 0x%llx el%u ns=%u%s", k->index ? "TGT" : "PC", a,
                                (unsigned)ap_field_get(SPE_ADDR_EL, pl),
                                (unsigned)ap_field_get(SPE_ADDR_NS, pl), nt);
            case SPE_ADDR_DATA_VA:
                return snprintf(buf, len, "VA 0x%llx tag 0x%02x", a,
                                (unsigned)ap_field_get(SPE_ADDR_TAG, pl));
            default:
                return snprintf(buf, len, "PA 0x%llx ns=%u%s", a,
                                (unsigned)ap_field_get(SPE_ADDR_NS, pl), nt);
            }
        }
        return snprintf(buf, len, "ADDR idx %u 0x%llx%s", k->index, (unsigned long long)pl, nt);
    }
    case SPE_PKT_COUNTER:
        if (k->index < 3 && k->note == SPE_NOTE_NONE)
            return snprintf(buf, len, "LAT %llu %s", (unsigned long long)pl, cnt_names[k->index]);
        return snprintf(buf, len, "LAT %llu idx %u%s", (unsigned long long)pl, k->index, nt);
    case SPE_PKT_ALIGNMENT:
        if (k->note != SPE_NOTE_NONE)
            return snprintf(buf, len, "ALIGN size %u%s", k->index, nt);
        return snprintf(buf, len, "ALIGN %llu", 1ull << (k->index + 1));
    default:
        return snprintf(buf, len, "UNKNOWN packet, %u payload bytes (ignored)", k->payload_bytes);
    }
}


/* ---- decoder errors ---- */

int spe_dec_error_text(const spe_decoder *d, char *buf, size_t len)
{
    size_t at = d->err_offset;
    const char *what = spe_dec_strerror(d->err);
    switch (d->err) {
    case SPE_DEC_ERR_EMPTY:
        return snprintf(buf, len, "offset 0x0: %s: no bytes to decode", what);
    case SPE_DEC_ERR_TRUNCATED_PKT: {
        spe_packet k;
        (void)spe_packet_parse(d->buf + at, d->len - at, &k);
        return snprintf(buf, len,
                        "offset 0x%zx: %s: header 0x%02x needs %u payload bytes, the input has %zu more",
                        at, what, d->buf[at], k.payload_bytes,
                        d->len - at - (k.ext && d->len - at >= 2 ? 2 : 1));
    }
    case SPE_DEC_ERR_TRUNCATED_REC:
        return snprintf(buf, len,
                        "offset 0x%zx: %s: the input ends (at 0x%zx) before its End or Timestamp packet",
                        at, what, d->len);
    case SPE_DEC_ERR_RESERVED_HDR:
        return snprintf(buf, len, "offset 0x%zx: %s: 0x%02x 0x%02x (second byte 0x20-0x3F is reserved, §5.1.1)",
                        at, what, d->buf[at], d->buf[at + 1]);
    case SPE_DEC_ERR_DUPLICATE:
        return snprintf(buf, len,
                        "offset 0x%zx: %s: header 0x%02x repeats a packet of the record at 0x%zx (missing End?)",
                        at, what, d->buf[at], d->err_arg);
    case SPE_DEC_ERR_TOO_LONG:
        return snprintf(buf, len, "offset 0x%zx: %s: %zu bytes, MaxSize allows %zu", at, what,
                        d->err_arg, (size_t)1 << d->opts.max_size);
    default:
        return snprintf(buf, len, "offset 0x%zx: %s", at, what);
    }
}
