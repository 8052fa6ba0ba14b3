/* SPDX-License-Identifier: Apache-2.0 */
/* spe_encode.c: spe_record -> bytes of one SPE sample record (seed 001 §5), in a fixed packet order. */
#include <string.h>

#include "armprof/spe.h"
#include "spe_pkt.h"

/*
 * Packet order (see docs/decode.md, "Packet order"): §5.1.2 only fixes that a record ends in an
 * End or Timestamp packet; implementations differ (Arm's 2018 example dump starts with the
 * Operation Type packet, Neoverse cores start with the PC). Decoders, Linux perf's included, accept
 * any order. armprof writes, always:
 *   Address PC, Context EL1, Context EL2, Operation Type, Events, Counter total/issue/translation,
 *   Address target, data VA, data PA, Data Source, Padding..., then Timestamp or End.
 * Padding goes before the final packet (as real hardware pads), so a record is exactly a multiple
 * of 2^Align bytes and its last byte is the last byte of its End or Timestamp packet.
 */

static inline void put_le(uint8_t *p, uint64_t v, unsigned n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &v, n); /* with a constant n: one store */
#else
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
#endif
}

size_t spe_pkt_address(uint8_t *out, unsigned index, uint64_t payload)
{
    size_t n = 0;
    if (index > 31)
        return 0;
    if (index >= 8) /* §5.2.2: extended format carries INDEX[4:3] in byte 0 */
        out[n++] = (uint8_t)(SPE_HDR_EXT_PREFIX |
                             ap_field_prep(SPE_HDR_INDEX_EXT_HI, ap_field_get(SPE_INDEX_HI, index)));
    out[n++] = (uint8_t)(SPE_HDR_ADDRESS | ap_field_prep(SPE_HDR_INDEX_SHORT, ap_field_get(SPE_INDEX_LO, index)));
    put_le(out + n, payload, 8);
    return n + 8;
}

size_t spe_pkt_counter(uint8_t *out, unsigned index, uint16_t value)
{
    size_t n = 0;
    if (index > 31)
        return 0;
    if (index >= 8)
        out[n++] = (uint8_t)(SPE_HDR_EXT_PREFIX |
                             ap_field_prep(SPE_HDR_INDEX_EXT_HI, ap_field_get(SPE_INDEX_HI, index)));
    out[n++] = (uint8_t)(SPE_HDR_COUNTER | ap_field_prep(SPE_HDR_INDEX_SHORT, ap_field_get(SPE_INDEX_LO, index)));
    put_le(out + n, value, 2);
    return n + 2;
}

size_t spe_pkt_alignment(uint8_t *out, unsigned size)
{
    if (size < 1 || size > 15)
        return 0;
    out[0] = (uint8_t)(SPE_HDR_EXT_PREFIX | ap_field_prep(SPE_HDR_ALIGN_SIZE, size));
    out[1] = SPE_HDR_ALIGN_BYTE1;
    return 2;
}

/* Events payload size exponent: the smallest of 1, 2, 4, 8 bytes that holds every set bit. */
static inline unsigned events_sz(uint64_t ev)
{
    if (ev <= 0xFFu)
        return SPE_SZ_BYTE;
    if (ev <= 0xFFFFu)
        return SPE_SZ_HALF;
    if (ev <= 0xFFFFFFFFu)
        return SPE_SZ_WORD;
    return SPE_SZ_DOUBLE;
}

static inline unsigned ds_sz(const spe_record *r, const spe_format_cfg *cfg)
{
    return (cfg->ds_fixed16 || r->data_source > 0xFFu) ? SPE_SZ_HALF : SPE_SZ_BYTE;
}

bool spe_format_cfg_valid(const spe_format_cfg *cfg)
{
    return cfg && cfg->max_size >= SPE_MAX_SIZE_MIN && cfg->max_size <= SPE_MAX_SIZE_MAX &&
           cfg->align <= cfg->max_size && (cfg->count_size == 2 || cfg->count_size == 3);
}

/*
 * Parts dropped, first to last, when a record would exceed 2^MaxSize bytes (an armprof choice,
 * docs/implementation-defined.md): the least useful to a profiler first. The Events packet
 * stays (§2.3.5: "All sample records written to the Profiling Buffer contain the Events
 * packet"); its step in the order (SPE_R_EVENTS) narrows it to E[15:0]: the IMPLEMENTATION
 * DEFINED events E[31:24] and E[63:48] are not output, and "software must treat bits that are
 * not output as zero" (§5.3.7). What is left then, PC (9) + Operation Type (2) + Events (at most
 * 3) + End (1), is 15 bytes: it fits the smallest MaxSize (16 bytes) whatever Align is.
 */
static const uint32_t drop_order[] = {
    SPE_R_CONTEXT_EL2, SPE_R_CONTEXT_EL1, SPE_R_DATA_SOURCE, SPE_R_ISSUE_LAT, SPE_R_XLAT_LAT,
    SPE_R_DATA_PA, SPE_R_TIMESTAMP, SPE_R_TARGET, SPE_R_TOTAL_LAT, SPE_R_DATA_VA,
    SPE_R_EVENTS,
};

/* The events an Events packet carries: all of them, or E[15:0] once narrowed to fit. */
#define SPE_EVENTS_NARROW 0xFFFFull
static inline uint64_t events_out(const spe_record *r, uint32_t p)
{
    return (p & SPE_R_EVENTS) ? r->events : r->events & SPE_EVENTS_NARROW;
}

/* Packet sizes of the fixed-size parts, four SPE_R_* bits at a time: bits [3:0] are the four
 * Address packets (9 bytes each), bits [7:4] Context EL1/EL2 (5) and Counter total/issue (3). */
#define SPE_SZ4(b0, b1, b2, b3, v)                                                         \
    (uint8_t)((((v) & 1) ? (b0) : 0) + (((v) & 2) ? (b1) : 0) + (((v) & 4) ? (b2) : 0) +   \
              (((v) & 8) ? (b3) : 0))
#define SPE_SZ4_ROW(b0, b1, b2, b3)                                                        \
    { SPE_SZ4(b0, b1, b2, b3, 0), SPE_SZ4(b0, b1, b2, b3, 1), SPE_SZ4(b0, b1, b2, b3, 2),    \
      SPE_SZ4(b0, b1, b2, b3, 3), SPE_SZ4(b0, b1, b2, b3, 4), SPE_SZ4(b0, b1, b2, b3, 5),    \
      SPE_SZ4(b0, b1, b2, b3, 6), SPE_SZ4(b0, b1, b2, b3, 7), SPE_SZ4(b0, b1, b2, b3, 8),    \
      SPE_SZ4(b0, b1, b2, b3, 9), SPE_SZ4(b0, b1, b2, b3, 10), SPE_SZ4(b0, b1, b2, b3, 11),  \
      SPE_SZ4(b0, b1, b2, b3, 12), SPE_SZ4(b0, b1, b2, b3, 13), SPE_SZ4(b0, b1, b2, b3, 14), \
      SPE_SZ4(b0, b1, b2, b3, 15) }
static const uint8_t size_addr[16] = SPE_SZ4_ROW(9, 9, 9, 9);   /* PC, TARGET, DATA_VA, DATA_PA */
static const uint8_t size_ctx_cnt[16] = SPE_SZ4_ROW(5, 5, 3, 3); /* CONTEXT_EL1/EL2, TOTAL/ISSUE_LAT */
#undef SPE_SZ4_ROW
#undef SPE_SZ4

/* Unpadded size of the record with parts `p` (always with an Events packet: SPE_R_EVENTS in `p`
 * means every event bit, without it E[15:0]). */
static inline size_t raw_size(const spe_record *r, const spe_format_cfg *cfg, uint32_t p)
{
    _Static_assert(SPE_R_PC == 1u && SPE_R_TARGET == 2u && SPE_R_DATA_VA == 4u && SPE_R_DATA_PA == 8u &&
                       SPE_R_CONTEXT_EL1 == 16u && SPE_R_CONTEXT_EL2 == 32u && SPE_R_TOTAL_LAT == 64u &&
                       SPE_R_ISSUE_LAT == 128u,
                   "size tables follow the SPE_R_* bit order");
    size_t n = (size_t)size_addr[p & 0xFu] + size_ctx_cnt[(p >> 4) & 0xFu];
    if (p & SPE_R_XLAT_LAT)    n += 3;
    if (p & SPE_R_OPTYPE)      n += 2;
    n += 1 + (1u << events_sz(events_out(r, p)));
    if (p & SPE_R_DATA_SOURCE) n += 1 + (1u << ds_sz(r, cfg));
    n += (p & SPE_R_TIMESTAMP) ? 9 : 1;
    return n;
}

static inline size_t pad_to(size_t n, unsigned align)
{
    size_t a = (size_t)1 << align;
    return (n + a - 1) & ~(a - 1);
}

/* Which parts are written: the record's own and all its events, minus what must go to fit. */
static inline uint32_t fit_parts(const spe_record *r, const spe_format_cfg *cfg, size_t *size)
{
    uint32_t p = (r->present & SPE_R__ENCODED) | SPE_R_EVENTS;
    size_t lim = (size_t)1 << cfg->max_size;
    size_t n = raw_size(r, cfg, p);
    for (size_t i = 0; n > lim && i < sizeof drop_order / sizeof drop_order[0]; i++) {
        p &= ~drop_order[i];
        n = raw_size(r, cfg, p);
    }
    *size = pad_to(n, cfg->align);
    return p;
}

size_t spe_encoded_size(const spe_record *rec, const spe_format_cfg *cfg)
{
    size_t n;
    if (!rec || !spe_format_cfg_valid(cfg))
        return 0;
    (void)fit_parts(rec, cfg, &n);
    return n;
}

static inline uint16_t saturate(uint16_t v, unsigned count_size)
{
    /* CountSize 0b0010: 12-bit saturating, 0xFFF means saturated (§5.3.4). */
    uint16_t max = (uint16_t)(count_size == 2 ? SPE_CNT_COUNT12 : SPE_CNT_COUNT16);
    return v > max ? max : v;
}

static inline uint64_t ins_payload(uint64_t addr, uint8_t el, bool ns)
{
    return ap_field_prep(SPE_ADDR_ADDR, addr) | ap_field_prep(SPE_ADDR_EL, el) |
           ap_field_prep(SPE_ADDR_NS, ns);
}

/*
 * The packets of one record. Every Address and Counter packet the encoder writes has an INDEX
 * below 8, so all of them use the short (8-bit) header: the writers below have the header byte as
 * a constant and store the payload with fixed-size little-endian stores (one call per packet of
 * the public spe_pkt_* writers, with their range checks, was the larger part of the cost of a
 * sampled record in the SPU).
 */
static inline uint8_t *put_addr_short(uint8_t *o, unsigned index, uint64_t payload)
{
    *o++ = (uint8_t)(SPE_HDR_ADDRESS | ap_field_prep(SPE_HDR_INDEX_SHORT, index));
    put_le(o, payload, 8);
    return o + 8;
}

static inline uint8_t *put_cnt_short(uint8_t *o, unsigned index, uint16_t value)
{
    *o++ = (uint8_t)(SPE_HDR_COUNTER | ap_field_prep(SPE_HDR_INDEX_SHORT, index));
    put_le(o, value, 2);
    return o + 2;
}

size_t spe_encode_ex(const spe_record *r, const spe_format_cfg *cfg, uint8_t *out, size_t cap,
                     uint32_t *dropped)
{
    size_t total;
    uint32_t p;
    uint8_t *o = out;

    if (dropped)
        *dropped = 0;
    if (!r || !out || !spe_format_cfg_valid(cfg))
        return 0;
    p = fit_parts(r, cfg, &total);
    if (total > cap)
        return 0;
    if (dropped) {
        *dropped = r->present & SPE_R__ENCODED & ~p;
        if (events_out(r, p) != r->events)
            *dropped |= SPE_R_EVENTS; /* event bits E[63:16] not output */
    }

    if (p & SPE_R_PC)
        o = put_addr_short(o, SPE_ADDR_PC, ins_payload(r->pc, r->pc_el, r->pc_ns));
    if (p & SPE_R_CONTEXT_EL1) {
        *o++ = (uint8_t)(SPE_HDR_CONTEXT | ap_field_prep(SPE_HDR_CTX_INDEX, 0));
        put_le(o, r->context_el1, 4);
        o += 4;
    }
    if (p & SPE_R_CONTEXT_EL2) {
        *o++ = (uint8_t)(SPE_HDR_CONTEXT | ap_field_prep(SPE_HDR_CTX_INDEX, 1));
        put_le(o, r->context_el2, 4);
        o += 4;
    }
    if (p & SPE_R_OPTYPE) {
        *o++ = (uint8_t)(SPE_HDR_OPTYPE | ap_field_prep(SPE_HDR_OP_CLASS, r->op_class));
        *o++ = r->op_subclass;
    }
    {
        uint64_t ev = events_out(r, p);
        unsigned sz = events_sz(ev);
        *o++ = (uint8_t)(SPE_HDR_EVENTS | ap_field_prep(SPE_HDR_SZ, sz));
        if (sz == SPE_SZ_BYTE)
            *o = (uint8_t)ev;
        else
            put_le(o, ev, 1u << sz);
        o += 1u << sz;
    }
    if (p & SPE_R_TOTAL_LAT)
        o = put_cnt_short(o, SPE_CNT_TOTAL, saturate(r->total_lat, cfg->count_size));
    if (p & SPE_R_ISSUE_LAT)
        o = put_cnt_short(o, SPE_CNT_ISSUE, saturate(r->issue_lat, cfg->count_size));
    if (p & SPE_R_XLAT_LAT)
        o = put_cnt_short(o, SPE_CNT_XLAT, saturate(r->xlat_lat, cfg->count_size));
    if (p & SPE_R_TARGET)
        o = put_addr_short(o, SPE_ADDR_TARGET, ins_payload(r->target, r->target_el, r->target_ns));
    if (p & SPE_R_DATA_VA)
        o = put_addr_short(o, SPE_ADDR_DATA_VA,
                           ap_field_prep(SPE_ADDR_ADDR, r->data_va) |
                           ap_field_prep(SPE_ADDR_TAG, r->data_va_tag));
    if (p & SPE_R_DATA_PA)
        o = put_addr_short(o, SPE_ADDR_DATA_PA,
                           ap_field_prep(SPE_ADDR_ADDR, r->data_pa) |
                           ap_field_prep(SPE_ADDR_NS, r->data_pa_ns));
    if (p & SPE_R_DATA_SOURCE) {
        unsigned sz = ds_sz(r, cfg);
        *o++ = (uint8_t)(SPE_HDR_DATA_SOURCE | ap_field_prep(SPE_HDR_SZ, sz));
        put_le(o, r->data_source, 1u << sz);
        o += 1u << sz;
    }
    /* Padding (§5.3.9) up to the final packet, so the record ends on a 2^Align boundary. */
    {
        size_t last = (p & SPE_R_TIMESTAMP) ? 9 : 1;
        size_t pad = total - (size_t)(o - out) - last;
        for (size_t i = 0; i < pad; i++) /* usually none or a few bytes: no memset call */
            o[i] = SPE_HDR_PADDING;
        o += pad;
    }
    if (p & SPE_R_TIMESTAMP) {
        *o++ = SPE_HDR_TIMESTAMP;
        put_le(o, r->timestamp, 8);
        o += 8;
    } else {
        *o++ = SPE_HDR_END;
    }
    return (size_t)(o - out);
}

size_t spe_encode(const spe_record *rec, const spe_format_cfg *cfg, uint8_t *out, size_t cap)
{
    return spe_encode_ex(rec, cfg, out, cap, NULL);
}
