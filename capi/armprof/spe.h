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
    /* Not a request flag: spe_encode() always writes an Events packet (§5.3.7). It appears only
     * in spe_encode_ex()'s `dropped` mask and in spe_decoded.have (the packet was seen). */
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
 * in a fixed order (docs/impdef/spe-format.md) until it fits, so it always fits.
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

#ifdef __cplusplus
}
#endif
#endif /* ARMPROF_SPE_H */
