/* SPDX-License-Identifier: Apache-2.0 */
/* spe_decode.c: bytes of an SPE Profiling Buffer -> packets and records (seed 001 §5), never trusting the input.
 * The text of packets and errors is in spe_text.c. */
#include <stdio.h>
#include <string.h>

#include "armprof/spe.h"
#include "spe_pkt.h"

/* Kinds in the header table: the public packet kinds, plus "16-bit header prefix". */
enum {
    SPE_HK_PAD = SPE_PKT_PADDING, SPE_HK_END = SPE_PKT_END, SPE_HK_TS = SPE_PKT_TIMESTAMP,
    SPE_HK_EVENTS = SPE_PKT_EVENTS, SPE_HK_DS = SPE_PKT_DATA_SOURCE, SPE_HK_CTX = SPE_PKT_CONTEXT,
    SPE_HK_OP = SPE_PKT_OPTYPE, SPE_HK_ADDR = SPE_PKT_ADDRESS, SPE_HK_CNT = SPE_PKT_COUNTER,
    SPE_HK_EXT = SPE_PKT_ALIGNMENT, SPE_HK_UNK = SPE_PKT_UNKNOWN
};
#include "spe_hdr_table.h"

#define HK_KIND  AP_GENMASK(3, 0)
#define HK_BYTES AP_GENMASK(7, 4)

#if defined(__GNUC__)
#define SPE_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define SPE_LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define SPE_UNLIKELY(x) (x)
#define SPE_LIKELY(x) (x)
#endif

/* Threaded packet dispatch (labels as values) where the compiler has it. */
#if defined(__GNUC__) && !defined(SPE_DECODE_NO_THREADING)
#define SPE_THREADED 1
#else
#define SPE_THREADED 0
#endif

/* Little-endian load of n (0..8) bytes. */
static inline uint64_t load_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(&v, p, n);
#else
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
#endif
    return v;
}

size_t spe_align_skip(uint64_t addr, unsigned size)
{
    uint64_t a = 1ull << (size + 1); /* §5.3.2: SIZE 0b0001 = 4 bytes ... 0b1111 = 64 KB */
    return (size_t)((a - (addr & (a - 1))) & (a - 1));
}

/* §5.3.1: INDEX 0..3 defined, 0b0011x and 0b1xxxx IMPLEMENTATION DEFINED, the rest reserved. */
static inline uint8_t addr_cnt_note(unsigned idx, unsigned ndefined)
{
    if (idx < ndefined)
        return SPE_NOTE_NONE;
    if (idx == 6 || idx == 7 || idx >= 16)
        return SPE_NOTE_IMPDEF;
    return SPE_NOTE_RESERVED;
}

/* §5.3.8: the SUBCLASS values the 2017 text defines for each CLASS. */
static inline bool subclass_defined(unsigned cls, unsigned sub)
{
    switch (cls) {
    case SPE_CLASS_OTHER:
        return sub <= SPE_OTHER_COND;
    case SPE_CLASS_BRANCH:
        return (sub & ~(unsigned)(SPE_BR_COND | SPE_BR_INDIRECT)) == 0;
    default: /* load/store: GP 0b0000000x, SIMD&FP 0b0000010x, extended 0b000xxx1x */
        return (sub & 0xFEu) == SPE_LDST_GP || (sub & 0xFEu) == SPE_LDST_SIMD_FP ||
               ((sub & 0xE0u) == 0 && (sub & SPE_LDST_EXTENDED));
    }
}

/* Notes on a parsed packet of a defined kind: reserved values, IMP DEF indices, RAZ bits. */
static void classify(spe_packet *k)
{
    switch (k->kind) {
    case SPE_PKT_CONTEXT:
        if (k->index > 1)
            k->note = SPE_NOTE_RESERVED;
        break;
    case SPE_PKT_OPTYPE:
        if (k->index > SPE_CLASS_BRANCH)
            k->note = SPE_NOTE_RESERVED;
        else if (!subclass_defined(k->index, (unsigned)k->payload))
            k->note = SPE_NOTE_SUBCLASS;
        break;
    case SPE_PKT_ADDRESS:
        k->note = addr_cnt_note(k->index, 4);
        if (k->note == SPE_NOTE_NONE &&
            (((k->index == SPE_ADDR_PC || k->index == SPE_ADDR_TARGET) && (k->payload & SPE_ADDR_INS_RAZ)) ||
             (k->index == SPE_ADDR_DATA_PA && (k->payload & SPE_ADDR_PA_RAZ))))
            k->note = SPE_NOTE_RAZ;
        break;
    case SPE_PKT_COUNTER:
        k->note = addr_cnt_note(k->index, 3);
        break;
    default:
        break;
    }
}

int spe_packet_parse(const uint8_t *p, size_t len, spe_packet *k)
{
    memset(k, 0, sizeof *k);
    if (len == 0)
        return -SPE_DEC_ERR_TRUNCATED_PKT;
    uint8_t h = p[0];
    uint8_t e = spe_hdr_table[h];
    unsigned kind = (unsigned)ap_field_get(HK_KIND, e);
    unsigned nb = (unsigned)ap_field_get(HK_BYTES, e);
    k->hdr[0] = h;

    if (kind != SPE_HK_EXT) {
        k->kind = (uint8_t)kind;
        k->payload_bytes = (uint8_t)nb;
        if (len < 1 + (size_t)nb) {
            k->size = (uint8_t)len;
            return -SPE_DEC_ERR_TRUNCATED_PKT;
        }
        k->size = (uint8_t)(1 + nb);
        k->payload = load_le(p + 1, nb);
        if (kind == SPE_HK_ADDR || kind == SPE_HK_CNT)
            k->index = (uint8_t)ap_field_get(SPE_HDR_INDEX_SHORT, h);
        else if (kind == SPE_HK_CTX)
            k->index = (uint8_t)ap_field_get(SPE_HDR_CTX_INDEX, h);
        else if (kind == SPE_HK_OP)
            k->index = (uint8_t)ap_field_get(SPE_HDR_OP_CLASS, h);
        classify(k);
        return k->size;
    }

    /* §5.2.2: 16-bit header. */
    k->ext = true;
    if (len < 2) {
        k->kind = SPE_PKT_UNKNOWN;
        k->size = (uint8_t)len;
        return -SPE_DEC_ERR_TRUNCATED_PKT;
    }
    uint8_t h1 = p[1];
    k->hdr[1] = h1;
    if (h1 < 0x20) { /* extended byte header, no payload */
        k->size = 2;
        if (h1 == SPE_HDR_ALIGN_BYTE1) {
            k->kind = SPE_PKT_ALIGNMENT;
            k->index = (uint8_t)ap_field_get(SPE_HDR_ALIGN_SIZE, h);
            if (k->index == 0 || (h & SPE_HDR_ALIGN_RAZ))
                k->note = SPE_NOTE_RESERVED;
        } else {
            k->kind = SPE_PKT_UNKNOWN;
        }
        return 2;
    }
    if (h1 < 0x40) { /* Figure 2: reserved; its length cannot be known */
        k->kind = SPE_PKT_UNKNOWN;
        k->size = 2;
        return -SPE_DEC_ERR_RESERVED_HDR;
    }
    nb = 1u << ap_field_get(SPE_HDR_SZ, h1);
    k->payload_bytes = (uint8_t)nb;
    unsigned k1 = (unsigned)ap_field_get(HK_KIND, spe_hdr_table[h1]);
    k->kind = (k1 == SPE_HK_ADDR || k1 == SPE_HK_CNT) ? (uint8_t)k1 : SPE_PKT_UNKNOWN;
    if (len < 2 + (size_t)nb) {
        k->size = (uint8_t)len;
        return -SPE_DEC_ERR_TRUNCATED_PKT;
    }
    k->size = (uint8_t)(2 + nb);
    k->payload = load_le(p + 2, nb);
    if (k->kind != SPE_PKT_UNKNOWN) {
        k->index = (uint8_t)(ap_field_prep(SPE_INDEX_HI, ap_field_get(SPE_HDR_INDEX_EXT_HI, h)) |
                             ap_field_prep(SPE_INDEX_LO, ap_field_get(SPE_HDR_INDEX_SHORT, h1)));
        classify(k);
        if (h & SPE_HDR_EXT_RAZ) /* byte 0 bits [4:2] read as zero: not this packet */
            k->note = SPE_NOTE_RESERVED;
    }
    return k->size;
}

/* ---- records ---- */

void spe_decoder_init(spe_decoder *d, const void *buf, size_t len, const spe_decode_opts *opts)
{
    memset(d, 0, sizeof *d);
    d->buf = (const uint8_t *)buf;
    d->len = buf ? len : 0;
    if (opts)
        d->opts = *opts;
}

static int fail(spe_decoder *d, spe_dec_err err, size_t at, size_t arg, size_t resume)
{
    d->err = err;
    d->err_offset = at;
    d->err_arg = arg;
    d->n_errors++;
    d->pos = resume;
    if (!d->opts.lenient || resume >= d->len)
        d->done = true;
    return SPE_DEC_ERROR;
}

#define SEEN(bit)                                                                  \
    do {                                                                           \
        if (SPE_UNLIKELY(have & (bit)))                                            \
            goto duplicate;                                                        \
        have |= (bit);                                                             \
    } while (0)

/* Address packet INDEX 0..3 into the record: -1 duplicate, else the number of RAZ notes (0/1).
 * Other indices are IMPLEMENTATION DEFINED or reserved: ignored (the caller counts them). */
static inline int set_address(spe_record *r, unsigned idx, uint64_t pl, uint32_t *have)
{
    static const uint32_t bit[4] = { SPE_R_PC, SPE_R_TARGET, SPE_R_DATA_VA, SPE_R_DATA_PA };
    if (idx > SPE_ADDR_DATA_PA)
        return 0;
    if (*have & bit[idx])
        return -1;
    *have |= bit[idx];
    switch (idx) {
    case SPE_ADDR_PC:
        r->pc = ap_field_get(SPE_ADDR_ADDR, pl);
        r->pc_el = (uint8_t)ap_field_get(SPE_ADDR_EL, pl);
        r->pc_ns = ap_field_get(SPE_ADDR_NS, pl);
        return (pl & SPE_ADDR_INS_RAZ) != 0;
    case SPE_ADDR_TARGET:
        r->target = ap_field_get(SPE_ADDR_ADDR, pl);
        r->target_el = (uint8_t)ap_field_get(SPE_ADDR_EL, pl);
        r->target_ns = ap_field_get(SPE_ADDR_NS, pl);
        return (pl & SPE_ADDR_INS_RAZ) != 0;
    case SPE_ADDR_DATA_VA:
        r->data_va = ap_field_get(SPE_ADDR_ADDR, pl);
        r->data_va_tag = (uint8_t)ap_field_get(SPE_ADDR_TAG, pl);
        return 0;
    default:
        r->data_pa = ap_field_get(SPE_ADDR_ADDR, pl);
        r->data_pa_ns = ap_field_get(SPE_ADDR_NS, pl);
        return (pl & SPE_ADDR_PA_RAZ) != 0;
    }
}

/* Counter packet INDEX 0..2 into the record: -1 duplicate, 0 otherwise. */
static inline int set_counter(spe_record *r, unsigned idx, uint64_t pl, uint32_t *have)
{
    static const uint32_t bit[3] = { SPE_R_TOTAL_LAT, SPE_R_ISSUE_LAT, SPE_R_XLAT_LAT };
    if (idx > SPE_CNT_XLAT)
        return 0;
    if (*have & bit[idx])
        return -1;
    *have |= bit[idx];
    uint16_t v = (uint16_t)pl;
    if (idx == SPE_CNT_TOTAL)
        r->total_lat = v;
    else if (idx == SPE_CNT_ISSUE)
        r->issue_lat = v;
    else
        r->xlat_lat = v;
    return 0;
}

/*
 * The record loop's dispatch: each 8-bit header byte (Figure 5) to one of 32 dense cases, so that
 * the switch below is one table jump with no range checks. Headers not listed are D_OTHER:
 * undefined, or a reserved value in a defined header, skipped by the size spe_hdr_table gives.
 */
enum {
    D_OTHER = 0, D_PAD, D_END, D_TS, D_EV1, D_EV2, D_EV4, D_EV8, D_DS1, D_DS2, D_CTX0, D_CTX1,
    D_OP_OTHER, D_OP_LDST, D_OP_BRANCH, D_PC, D_TARGET, D_VA, D_PA, D_TOT, D_ISSUE, D_XLAT, D_EXT,
    D__COUNT
};
_Static_assert(D__COUNT <= 32, "dispatch cases fit in 5 bits");
#define D_EXT4(b) [(b)] = D_EXT, [(b) + 1] = D_EXT, [(b) + 2] = D_EXT, [(b) + 3] = D_EXT
static const uint8_t dispatch[256] = {
    [SPE_HDR_PADDING] = D_PAD,
    [SPE_HDR_END] = D_END,
    [SPE_HDR_TIMESTAMP] = D_TS,
    [SPE_HDR_EVENTS | (SPE_SZ_BYTE << 4)] = D_EV1,
    [SPE_HDR_EVENTS | (SPE_SZ_HALF << 4)] = D_EV2,
    [SPE_HDR_EVENTS | (SPE_SZ_WORD << 4)] = D_EV4,
    [SPE_HDR_EVENTS | (SPE_SZ_DOUBLE << 4)] = D_EV8,
    [SPE_HDR_DATA_SOURCE | (SPE_SZ_BYTE << 4)] = D_DS1,
    [SPE_HDR_DATA_SOURCE | (SPE_SZ_HALF << 4)] = D_DS2,
    [SPE_HDR_CONTEXT | 0] = D_CTX0,
    [SPE_HDR_CONTEXT | 1] = D_CTX1,
    [SPE_HDR_OPTYPE | SPE_CLASS_OTHER] = D_OP_OTHER,
    [SPE_HDR_OPTYPE | SPE_CLASS_LDST] = D_OP_LDST,
    [SPE_HDR_OPTYPE | SPE_CLASS_BRANCH] = D_OP_BRANCH,
    [SPE_HDR_ADDRESS | SPE_ADDR_PC] = D_PC,
    [SPE_HDR_ADDRESS | SPE_ADDR_TARGET] = D_TARGET,
    [SPE_HDR_ADDRESS | SPE_ADDR_DATA_VA] = D_VA,
    [SPE_HDR_ADDRESS | SPE_ADDR_DATA_PA] = D_PA,
    [SPE_HDR_COUNTER | SPE_CNT_TOTAL] = D_TOT,
    [SPE_HDR_COUNTER | SPE_CNT_ISSUE] = D_ISSUE,
    [SPE_HDR_COUNTER | SPE_CNT_XLAT] = D_XLAT,
    D_EXT4(0x20), D_EXT4(0x24), D_EXT4(0x28), D_EXT4(0x2C),   /* §5.2.2: 0b001xxxxx */
    D_EXT4(0x30), D_EXT4(0x34), D_EXT4(0x38), D_EXT4(0x3C),
};
#undef D_EXT4

int spe_decoder_next(spe_decoder *d, spe_decoded *out)
{
    const uint8_t *b = d->buf;
    const size_t len = d->len;
    size_t pos = d->pos;
    spe_packet pk;

    static const spe_decoded zero; /* a copy, not memset: no `rep stos` start-up per record */
    *out = zero;
    if (d->done)
        return SPE_DEC_EOF;
    if (len == 0)
        return fail(d, SPE_DEC_ERR_EMPTY, 0, 0, 0);

    /* §5.1.4: only Padding and Alignment commands between records. */
    for (;;) {
        while (pos + 8 <= len && load_le(b + pos, 8) == 0)
            pos += 8;
        while (pos < len && b[pos] == SPE_HDR_PADDING)
            pos++;
        if (pos >= len) {
            d->pos = pos;
            d->done = true;
            return SPE_DEC_EOF;
        }
        if ((b[pos] & SPE_HDR_MASK_EXT) == SPE_HDR_EXT_PREFIX && pos + 1 < len &&
            b[pos + 1] == SPE_HDR_ALIGN_BYTE1) {
            (void)spe_packet_parse(b + pos, len - pos, &pk);
            pos += 2;
            if (pk.note == SPE_NOTE_NONE)
                pos += spe_align_skip(d->opts.base + pos, pk.index);
            else
                d->n_ignored++;
            if (pos > len)
                pos = len;
            continue;
        }
        break;
    }

    const size_t start = pos;
    uint32_t have = 0;
    unsigned npk = 0, nign = 0, nnote = 0;
    spe_record *r = &out->rec;
    out->offset = start;

    /*
     * One jump on the header byte per packet (Figure 5), with the payload loaded as 8 bytes and
     * narrowed in each case. Near the end of the input the payload comes from a zero-extended
     * copy, after the header's size has been checked against what is left.
     *
     * With GCC or Clang each packet's code ends in its own jump to the next packet's code
     * (through the dispatch table and a table of label addresses), so the branch predictor sees
     * which packet follows which; other compilers get the same cases as one switch.
     */
    size_t at;
    uint64_t pl;
    uint8_t h;
    int rc;
#if SPE_THREADED
    static const void *const jump[32] = {
        [D_OTHER] = &&pkt_D_OTHER, [D_PAD] = &&pkt_D_PAD, [D_END] = &&pkt_D_END, [D_TS] = &&pkt_D_TS,
        [D_EV1] = &&pkt_D_EV1, [D_EV2] = &&pkt_D_EV2, [D_EV4] = &&pkt_D_EV4, [D_EV8] = &&pkt_D_EV8,
        [D_DS1] = &&pkt_D_DS1, [D_DS2] = &&pkt_D_DS2, [D_CTX0] = &&pkt_D_CTX0, [D_CTX1] = &&pkt_D_CTX1,
        [D_OP_OTHER] = &&pkt_D_OP_OTHER, [D_OP_LDST] = &&pkt_D_OP_LDST,
        [D_OP_BRANCH] = &&pkt_D_OP_BRANCH, [D_PC] = &&pkt_D_PC, [D_TARGET] = &&pkt_D_TARGET,
        [D_VA] = &&pkt_D_VA, [D_PA] = &&pkt_D_PA, [D_TOT] = &&pkt_D_TOT, [D_ISSUE] = &&pkt_D_ISSUE,
        [D_XLAT] = &&pkt_D_XLAT, [D_EXT] = &&pkt_D_EXT,
        [D__COUNT ... 31] = &&pkt_D_OTHER,
    };
#define PKT(name) pkt_##name
#define PKT_DEFAULT
#define NEXT_PACKET()                                                                       \
    do {                                                                                    \
        if (SPE_UNLIKELY(len - pos < 9))                                                    \
            goto next_packet;                                                               \
        at = pos;                                                                           \
        pl = load_le(b + pos + 1, 8);                                                       \
        h = b[pos];                                                                         \
        npk++;                                                                              \
        goto *jump[dispatch[h] & 31u];                                                      \
    } while (0)
#else
#define PKT(name) case name
#define PKT_DEFAULT default:
#define NEXT_PACKET() goto next_packet
#endif

next_packet:
    {
        at = pos;
        if (SPE_LIKELY(len - pos >= 9)) {
            pl = load_le(b + pos + 1, 8);
        } else {
            uint8_t tail[8] = { 0 };
            if (pos >= len) {
                out->size = pos - start;
                d->n_ignored += nign;
                d->n_notes += nnote;
                return fail(d, SPE_DEC_ERR_TRUNCATED_REC, start, start, len);
            }
            size_t nb = (size_t)ap_field_get(HK_BYTES, spe_hdr_table[b[pos]]);
            if (nb + 1 > len - pos) {
                out->size = pos - start;
                d->n_ignored += nign;
                d->n_notes += nnote;
                return fail(d, SPE_DEC_ERR_TRUNCATED_PKT, at, 0, len);
            }
            memcpy(tail, b + pos + 1, len - pos - 1);
            pl = load_le(tail, 8);
        }
        h = b[pos];
        npk++;
    }
#if SPE_THREADED
    goto *jump[dispatch[h] & 31u];
#else
    switch (dispatch[h] & 31u) {
#endif
        PKT(D_PAD):
            pos++;
            while (pos < len && b[pos] == SPE_HDR_PADDING)
                pos++;
            NEXT_PACKET();
        PKT(D_END):
            pos++;
            goto finish;
        PKT(D_TS):
            SEEN(SPE_R_TIMESTAMP);
            r->timestamp = pl;
            pos += 9;
            goto finish;

#define EVENTS_CASE(dcase, nbytes, mask)                                                    \
        PKT(dcase):                                                                         \
            SEEN(SPE_R_EVENTS);                                                             \
            r->events = pl & (mask);                                                        \
            out->events_bytes = (nbytes);                                                   \
            pos += 1 + (nbytes);                                                            \
            NEXT_PACKET();
        EVENTS_CASE(D_EV1, 1, 0xFFull)
        EVENTS_CASE(D_EV2, 2, 0xFFFFull)
        EVENTS_CASE(D_EV4, 4, 0xFFFFFFFFull)
        EVENTS_CASE(D_EV8, 8, ~0ull)
#undef EVENTS_CASE

        /* §5.3.5: SZ 0b00 byte, 0b01 halfword; word and doubleword are reserved values. */
        PKT(D_DS1):
        PKT(D_DS2): {
            unsigned nb = h == SPE_HDR_DATA_SOURCE ? 1 : 2;
            SEEN(SPE_R_DATA_SOURCE);
            r->data_source = (uint16_t)(pl & (nb == 1 ? 0xFFu : 0xFFFFu));
            out->ds_bytes = (uint8_t)nb;
            pos += 1 + nb;
            NEXT_PACKET();
        }

        PKT(D_CTX0):
            SEEN(SPE_R_CONTEXT_EL1);
            r->context_el1 = (uint32_t)pl;
            pos += 5;
            NEXT_PACKET();
        PKT(D_CTX1):
            SEEN(SPE_R_CONTEXT_EL2);
            r->context_el2 = (uint32_t)pl;
            pos += 5;
            NEXT_PACKET();

        /* One case per CLASS: the jump that follows depends on the class (a load/store has
         * data addresses next, a branch its target), and separate cases let the indirect
         * branch predictor see which class it was. */
#define OPTYPE_CASE(dcase, cls)                                                             \
        PKT(dcase):                                                                         \
            SEEN(SPE_R_OPTYPE);                                                             \
            r->op_class = (cls);                                                            \
            r->op_subclass = (uint8_t)pl;                                                   \
            nnote += !subclass_defined((cls), (uint8_t)pl);                                 \
            pos += 2;                                                                       \
            NEXT_PACKET();
        OPTYPE_CASE(D_OP_OTHER, SPE_CLASS_OTHER)
        OPTYPE_CASE(D_OP_LDST, SPE_CLASS_LDST)
        OPTYPE_CASE(D_OP_BRANCH, SPE_CLASS_BRANCH)
#undef OPTYPE_CASE

        PKT(D_PC):
            if ((rc = set_address(r, SPE_ADDR_PC, pl, &have)) < 0)
                goto duplicate;
            nnote += (unsigned)rc;
            pos += 9;
            NEXT_PACKET();
        PKT(D_TARGET):
            if ((rc = set_address(r, SPE_ADDR_TARGET, pl, &have)) < 0)
                goto duplicate;
            nnote += (unsigned)rc;
            pos += 9;
            NEXT_PACKET();
        PKT(D_VA):
            if ((rc = set_address(r, SPE_ADDR_DATA_VA, pl, &have)) < 0)
                goto duplicate;
            pos += 9;
            NEXT_PACKET();
        PKT(D_PA):
            if ((rc = set_address(r, SPE_ADDR_DATA_PA, pl, &have)) < 0)
                goto duplicate;
            nnote += (unsigned)rc;
            pos += 9;
            NEXT_PACKET();

        PKT(D_TOT):
            if (set_counter(r, SPE_CNT_TOTAL, pl, &have) < 0)
                goto duplicate;
            pos += 3;
            NEXT_PACKET();
        PKT(D_ISSUE):
            if (set_counter(r, SPE_CNT_ISSUE, pl, &have) < 0)
                goto duplicate;
            pos += 3;
            NEXT_PACKET();
        PKT(D_XLAT):
            if (set_counter(r, SPE_CNT_XLAT, pl, &have) < 0)
                goto duplicate;
            pos += 3;
            NEXT_PACKET();

        PKT(D_EXT): {
            /* §5.2.2: 16-bit headers, the slow path. */
            rc = spe_packet_parse(b + pos, len - pos, &pk);
            if (rc < 0) {
                out->size = pos - start;
                d->n_ignored += nign;
                d->n_notes += nnote;
                return fail(d, (spe_dec_err)-rc, at, 0,
                            rc == -SPE_DEC_ERR_RESERVED_HDR ? pos + 2 : len);
            }
            pos += (size_t)rc;
            if (pk.kind == SPE_PKT_ALIGNMENT && pk.note == SPE_NOTE_NONE) {
                pos += spe_align_skip(d->opts.base + pos, pk.index);
                if (pos > len)
                    pos = len;
            } else if (pk.kind == SPE_PKT_UNKNOWN || pk.note == SPE_NOTE_RESERVED ||
                       pk.note == SPE_NOTE_IMPDEF || pk.kind == SPE_PKT_ALIGNMENT) {
                nign++;
            } else if (pk.kind == SPE_PKT_ADDRESS) {
                if ((rc = set_address(r, pk.index, pk.payload, &have)) < 0)
                    goto duplicate;
                nnote += (unsigned)rc;
            } else {
                if (set_counter(r, pk.index, pk.payload, &have) < 0)
                    goto duplicate;
            }
            NEXT_PACKET();
        }
        PKT_DEFAULT
        PKT(D_OTHER):
            /* §5.1.4: an undefined header, or a reserved value in a defined one (Context INDEX
             * 2/3, CLASS 3, Address INDEX 4..7, Counter INDEX 3..7, Data Source SZ 2/3):
             * skipped by the size its header gives. */
            nign++;
            pos += 1 + (size_t)ap_field_get(HK_BYTES, spe_hdr_table[h]);
            NEXT_PACKET();
#if !SPE_THREADED
    }
#endif

duplicate:
        /* The record lost its End (or the input is not SPE data): the repeated packet starts
         * the next record when resynchronising. */
        out->size = at - start;
        out->have = have;
        r->present = have & SPE_R__ENCODED;
        d->n_ignored += nign;
        d->n_notes += nnote;
        return fail(d, SPE_DEC_ERR_DUPLICATE, at, start, at);
#undef PKT
#undef PKT_DEFAULT
#undef NEXT_PACKET

finish:
    out->size = pos - start;
    out->have = have;
    r->present = have & SPE_R__ENCODED;
    out->n_packets = (uint16_t)(npk > 0xFFFF ? 0xFFFF : npk);
    out->n_ignored = (uint16_t)(nign > 0xFFFF ? 0xFFFF : nign);
    out->n_notes = (uint16_t)(nnote > 0xFFFF ? 0xFFFF : nnote);
    d->n_ignored += nign;
    d->n_notes += nnote;
    d->pos = pos;
    if (d->opts.max_size && out->size > ((size_t)1 << d->opts.max_size))
        return fail(d, SPE_DEC_ERR_TOO_LONG, start, out->size, pos);
    d->n_records++;
    return SPE_DEC_RECORD;
}
