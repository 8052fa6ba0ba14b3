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
    SPE_R_OPTYPE = 1u << 11
};

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
} spe_format_cfg;

/*
 * Encodes one record into `out` (capacity `cap`), packets in the order of §5.1.2 with the
 * smallest Events payload that holds the set bits, and Padding up to a multiple of 2^align.
 * Returns the number of bytes written, or 0 when `cap` is too small or the record cannot be
 * made to fit in 2^max_size bytes.
 */
size_t spe_encode(const spe_record *rec, const spe_format_cfg *cfg, uint8_t *out, size_t cap);
/* Size spe_encode() would produce, without writing. */
size_t spe_encoded_size(const spe_record *rec, const spe_format_cfg *cfg);

#ifdef __cplusplus
}
#endif
#endif /* ARMPROF_SPE_H */
