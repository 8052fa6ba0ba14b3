/* SPDX-License-Identifier: Apache-2.0 */
/* spe.h: the SPE sample record (seed 001 §5) as a struct, its encoder and its decoder. */
#ifndef ARMPROF_SPE_H
#define ARMPROF_SPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "armprof/armprof.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Operation Type packet CLASS (§5.3.8). */
enum { SPE_CLASS_OTHER = 0, SPE_CLASS_LDST = 1, SPE_CLASS_BRANCH = 2 };

/* Operation Type SUBCLASS values for CLASS Other and Branch (§5.3.8). For Load/store the
 * subclass byte is the payload exactly as §5.3.8 defines it (LDST_* below name its parts). */
enum {
    SPE_OTHER_UNCOND = 0x00,
    SPE_OTHER_COND = 0x01,          /* conditional instruction or select */
    SPE_BR_COND = 0x01,             /* COND bit */
    SPE_BR_INDIRECT = 0x02,         /* 0b0000001x indirect, 0b0000000x direct */
    SPE_LDST_ST = 0x01,             /* ST, bit 0: 1 store, 0 load (all load/store forms) */
    SPE_LDST_GP = 0x00,             /* SUBCLASS[7:1] 0b0000000: general-purpose registers */
    SPE_LDST_SIMD_FP = 0x04,        /* SUBCLASS[7:1] 0b0000010: SIMD&FP registers */
    SPE_LDST_EXTENDED = 0x02,       /* bits[7:5] == 0 and bit 1 set: extended (atomic/excl/AR) */
    SPE_LDST_AT = 0x04,             /* extended: AT, atomic */
    SPE_LDST_EXCL = 0x08,           /* extended: EXCL, exclusive */
    SPE_LDST_AR = 0x10              /* extended: AR, acquire / release */
};

/* Address packet INDEX values (§5.3.1). */
enum { SPE_ADDR_PC = 0, SPE_ADDR_TARGET = 1, SPE_ADDR_DATA_VA = 2, SPE_ADDR_DATA_PA = 3 };
/* Counter packet INDEX values (§5.3.4). */
enum { SPE_CNT_TOTAL = 0, SPE_CNT_ISSUE = 1, SPE_CNT_XLAT = 2 };

/* Events packet bit numbers (§5.3.7). */
enum {
    SPE_EV_EXCEPTION = 0,         /* generated exception */
    SPE_EV_RETIRED = 1,           /* architecturally retired */
    SPE_EV_L1D_ACCESS = 2,
    SPE_EV_L1D_REFILL = 3,
    SPE_EV_TLB_ACCESS = 4,
    SPE_EV_TLB_WALK = 5,
    SPE_EV_NOT_TAKEN = 6,
    SPE_EV_MISPREDICTED = 7,
    SPE_EV_LLC_ACCESS = 8,
    SPE_EV_LLC_MISS = 9,
    SPE_EV_REMOTE_ACCESS = 10
};

/* Which optional parts a record has. */
enum {
    SPE_R_PC = 1u << 0,
    SPE_R_TARGET = 1u << 1,
    SPE_R_DATA_VA = 1u << 2,
    SPE_R_DATA_PA = 1u << 3,
    SPE_R_CONTEXT_EL1 = 1u << 4,
    SPE_R_CONTEXT_EL2 = 1u << 5,
    SPE_R_TOTAL_LAT = 1u << 6,
    SPE_R_ISSUE_LAT = 1u << 7,
    SPE_R_XLAT_LAT = 1u << 8,
    SPE_R_DATA_SOURCE = 1u << 9,
    SPE_R_TIMESTAMP = 1u << 10,   /* record ends in a Timestamp packet, else an End packet */
    SPE_R_OPTYPE = 1u << 11,
    /* Not a request flag: spe_encode() always writes an Events packet (§2.3.5, §5.3.7). In
     * spe_encode_ex()'s `dropped` mask it says the packet was narrowed to E[15:0] to fit MaxSize
     * (set E[63:16] bits not output, read as zero); in spe_decoded.have, the packet was seen. */
    SPE_R_EVENTS = 1u << 12
};
/* The SPE_R_* flags spe_encode() reads from spe_record.present. */
#define SPE_R__ENCODED 0x0FFFu

/* One sample record, decoded. Addresses hold bits [55:0]; the top byte is in the fields. */
typedef struct spe_record {
    uint32_t present;             /* SPE_R_* */
    uint64_t pc;                  /* Address INDEX 0, with pc_el / pc_ns */
    uint8_t pc_el;
    bool pc_ns;
    uint64_t target;              /* Address INDEX 1 */
    uint8_t target_el;
    bool target_ns;
    uint64_t data_va;             /* Address INDEX 2, [55:0] */
    uint8_t data_va_tag;          /* top-byte tag, byte 7 */
    uint64_t data_pa;             /* Address INDEX 3, [55:0] */
    bool data_pa_ns;
    uint32_t context_el1;         /* Context packet, CONTEXTIDR_EL1 */
    uint32_t context_el2;         /* Context packet, CONTEXTIDR_EL2 */
    uint16_t total_lat;           /* Counter packets (already saturated to CountSize) */
    uint16_t issue_lat;
    uint16_t xlat_lat;
    uint64_t events;              /* Events packet: bit n = E[n] */
    uint8_t op_class;             /* SPE_CLASS_* */
    uint8_t op_subclass;          /* Operation Type payload */
    uint16_t data_source;         /* Data Source packet payload */
    uint64_t timestamp;           /* Timestamp packet payload */
} spe_record;

/* What the unit's ID registers say about the layout of records. */
typedef struct spe_format_cfg {
    uint8_t max_size;             /* PMSIDR_EL1.MaxSize: records are at most 2^max_size bytes */
    uint8_t align;                /* PMBIDR_EL1.Align: records padded to 2^align bytes */
    uint8_t count_size;           /* PMSIDR_EL1.CountSize: 2 = 12-bit, 3 = 16-bit saturating */
    bool ds_fixed16;              /* Data Source payload always 16-bit; else the smallest (8/16) that holds it */
} spe_format_cfg;

/* PMSIDR_EL1.MaxSize range: 0b0100 (16 bytes) to 0b1011 (2 KiB). */
#define SPE_MAX_SIZE_MIN 4
#define SPE_MAX_SIZE_MAX 11

/* True when MaxSize is 4..11, Align <= MaxSize and CountSize is 2 or 3. */
bool spe_format_cfg_valid(const spe_format_cfg *cfg);

/*
 * Encodes one record into `out` (capacity `cap`). Packet order (fixed, docs/decode.md):
 *   Address PC, Context EL1, Context EL2, Operation Type, Events, Counters total/issue/xlat,
 *   Address target, data VA, data PA, Data Source, Padding, then Timestamp or End.
 * Events always, with the smallest payload (1, 2, 4, 8 bytes) that holds the set bits. Counter
 * values are clamped to the CountSize width (12-bit: 0xFFF means saturated). Addresses use bits
 * [55:0] of the struct fields. Padding (0x00) before the final packet makes the record a
 * multiple of 2^align bytes. A record that would exceed 2^max_size bytes loses optional parts
 * in a fixed order (docs/implementation-defined.md) until it fits, so it always fits; it keeps
 * its PC, Operation Type and Events packets (Events narrowed to E[15:0] if need be).
 * Returns the number of bytes written, or 0 when `cap` is too small or `cfg` is invalid.
 */
size_t spe_encode(const spe_record *rec, const spe_format_cfg *cfg, uint8_t *out, size_t cap);
/* As spe_encode(), and sets *dropped (if not NULL) to the SPE_R_* parts left out to fit MaxSize. */
size_t spe_encode_ex(const spe_record *rec, const spe_format_cfg *cfg, uint8_t *out, size_t cap,
                     uint32_t *dropped);
/* Size spe_encode() would produce, without writing (0 when `cfg` is invalid). */
size_t spe_encoded_size(const spe_record *rec, const spe_format_cfg *cfg);
/* Largest record any configuration produces (all packets, 8-byte Events, before padding). */
#define SPE_RECORD_MAX_RAW 78u

/*
 * Single packets, for building streams by hand (tests, tools). `out` must hold 10 bytes.
 * Address and Counter use the short 8-bit header for INDEX < 8 and the extended 16-bit header
 * for INDEX 8..31 (§5.2.2). Alignment SIZE is 1..15 (2^(SIZE+1) bytes). Return bytes written,
 * 0 for an index or size out of range.
 */
size_t spe_pkt_address(uint8_t *out, unsigned index, uint64_t payload);
size_t spe_pkt_counter(uint8_t *out, unsigned index, uint16_t value);
size_t spe_pkt_alignment(uint8_t *out, unsigned size);


/* ------------------------------------------------------------------------------------------
 * Decoder (seed 001 §5): packets, then records.
 * ------------------------------------------------------------------------------------------ */

/* What a packet is. */
typedef enum spe_pkt_kind {
    SPE_PKT_PADDING = 0,     /* §5.3.9 */
    SPE_PKT_END,             /* §5.3.6 */
    SPE_PKT_TIMESTAMP,       /* §5.3.10 */
    SPE_PKT_EVENTS,          /* §5.3.7 */
    SPE_PKT_DATA_SOURCE,     /* §5.3.5 */
    SPE_PKT_CONTEXT,         /* §5.3.3 */
    SPE_PKT_OPTYPE,          /* §5.3.8 */
    SPE_PKT_ADDRESS,         /* §5.3.1 */
    SPE_PKT_COUNTER,         /* §5.3.4 */
    SPE_PKT_ALIGNMENT,       /* §5.3.2 */
    SPE_PKT_UNKNOWN,         /* not defined, or a reserved value in a field: skipped by its size */
    SPE_PKT__COUNT
} spe_pkt_kind;

/* Why a packet of a defined kind is nevertheless ignored or noted (spe_packet.note). */
enum {
    SPE_NOTE_NONE = 0,
    SPE_NOTE_RESERVED,       /* a reserved field value: software ignores the packet (§5.1.4) */
    SPE_NOTE_IMPDEF,         /* IMPLEMENTATION DEFINED address or counter index (§5.4) */
    SPE_NOTE_RAZ,            /* a read-as-zero bit is set (packet still used) */
    SPE_NOTE_SUBCLASS        /* Operation Type SUBCLASS not defined by the 2017 text (still used) */
};

/* One packet. */
typedef struct spe_packet {
    uint8_t kind;            /* spe_pkt_kind */
    uint8_t index;           /* Address/Counter/Context INDEX, Operation Type CLASS, Alignment SIZE */
    uint8_t size;            /* header + payload bytes (for Alignment: the 2 command bytes) */
    uint8_t payload_bytes;   /* 0, 1, 2, 4 or 8 */
    uint8_t note;            /* SPE_NOTE_* */
    bool ext;                /* 16-bit header (§5.2.2) */
    uint8_t hdr[2];          /* header byte(s) */
    uint64_t payload;        /* little-endian payload, zero-extended */
} spe_packet;

/* Errors in a stream. */
typedef enum spe_dec_err {
    SPE_DEC_OK = 0,
    SPE_DEC_ERR_EMPTY,           /* the input has no bytes */
    SPE_DEC_ERR_TRUNCATED_PKT,   /* a header announces more payload bytes than the input holds */
    SPE_DEC_ERR_TRUNCATED_REC,   /* the input ends inside a record (no End or Timestamp packet) */
    SPE_DEC_ERR_RESERVED_HDR,    /* 16-bit header with a reserved second byte: its size is unknown */
    SPE_DEC_ERR_DUPLICATE,       /* a second packet of the same kind and index in one record */
    SPE_DEC_ERR_TOO_LONG,        /* record longer than 2^MaxSize bytes (only when max_size is given) */
    SPE_DEC_ERR__COUNT
} spe_dec_err;

const char *spe_dec_strerror(spe_dec_err err);

/*
 * Parses the packet at `p` (`len` bytes available). Returns the packet's size in bytes (> 0), or
 * the negated spe_dec_err (-SPE_DEC_ERR_TRUNCATED_PKT, -SPE_DEC_ERR_RESERVED_HDR) with pkt->size
 * set to the bytes to skip when resynchronising. An Alignment command's size is its 2 bytes; the
 * bytes it skips depend on the buffer address (spe_align_skip()).
 */
int spe_packet_parse(const uint8_t *p, size_t len, spe_packet *pkt);
/* Bytes from `addr` (the address just after an Alignment command) to the next 2^(SIZE+1) boundary. */
size_t spe_align_skip(uint64_t addr, unsigned size);
/* Describes the packet in the style of `perf report -D` ("PC 0x400000 el0 ns=1"). Returns the
 * length snprintf() would produce. */
int spe_packet_describe(const spe_packet *pkt, char *buf, size_t len);

/* Name of Events bit n ("retired", "l1d_access", ...), NULL for bits the 2017 text leaves
 * IMPLEMENTATION DEFINED or reserved. */
const char *spe_event_name(unsigned bit);
/* "other", "ldst", "branch" or "reserved". */
const char *spe_op_class_name(unsigned op_class);
/* Operation Type subclass in words: "load gp", "store simd_fp", "atomic load acq_rel",
 * "branch indirect cond", "cond" ... Returns the snprintf() length. */
int spe_op_describe(unsigned op_class, unsigned subclass, char *buf, size_t len);

/* Decoder options. All zero is a sensible default. */
typedef struct spe_decode_opts {
    uint8_t max_size;        /* PMSIDR_EL1.MaxSize to check record lengths against; 0: no check */
    uint64_t base;           /* buffer address of byte 0 (Alignment commands align to it) */
    bool lenient;            /* keep going after an error (resynchronise), counting errors */
} spe_decode_opts;

/* One decoded record. */
typedef struct spe_decoded {
    spe_record rec;          /* rec.present holds the SPE_R_* parts seen (never SPE_R_EVENTS) */
    size_t offset;           /* byte offset of the record's first packet */
    size_t size;             /* bytes up to and including its End or Timestamp packet */
    uint32_t have;           /* rec.present, plus SPE_R_EVENTS when an Events packet was seen */
    uint8_t events_bytes;    /* Events payload size, 0 when absent */
    uint8_t ds_bytes;        /* Data Source payload size, 0 when absent */
    uint16_t n_packets;      /* packets in the record, Padding runs counted once */
    uint16_t n_ignored;      /* packets skipped: unknown kind, reserved value, IMP DEF index */
    uint16_t n_notes;        /* packets used despite a RAZ bit set or an undefined SUBCLASS */
} spe_decoded;

/* Record decoder over a buffer; the caller owns the buffer. Fields are read-only to callers. */
typedef struct spe_decoder {
    const uint8_t *buf;
    size_t len;
    size_t pos;              /* next byte to read */
    spe_decode_opts opts;
    uint64_t n_records;      /* records returned */
    uint64_t n_errors;       /* errors met */
    uint64_t n_ignored;      /* packets skipped (sum over records and between them) */
    uint64_t n_notes;
    spe_dec_err err;         /* the last error */
    size_t err_offset;       /* its byte offset */
    size_t err_arg;          /* detail: record start (TRUNCATED_REC), record size (TOO_LONG) */
    bool done;
} spe_decoder;

enum { SPE_DEC_ERROR = -1, SPE_DEC_EOF = 0, SPE_DEC_RECORD = 1 };

void spe_decoder_init(spe_decoder *d, const void *buf, size_t len, const spe_decode_opts *opts);
/*
 * Next record. Returns SPE_DEC_RECORD with *out filled; SPE_DEC_EOF at the end of the input;
 * SPE_DEC_ERROR with d->err / d->err_offset set (and *out holding what was decoded of the
 * record, out->size == 0 if none). After an error a strict decoder returns SPE_DEC_EOF from then
 * on; a lenient one resynchronises and carries on (docs/decode.md, "Errors and recovery").
 */
int spe_decoder_next(spe_decoder *d, spe_decoded *out);
/* Human text for an error at an offset: "offset 0x1f4: truncated packet: ..." into buf. */
int spe_dec_error_text(const spe_decoder *d, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* ARMPROF_SPE_H */
