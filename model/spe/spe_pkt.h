/* SPDX-License-Identifier: Apache-2.0 */
/* spe_pkt.h: header bytes, field masks and payload layouts of the SPE packets (seed 001 §5.2, §5.3). */
#ifndef ARMPROF_SPE_PKT_H
#define ARMPROF_SPE_PKT_H

#include <stdint.h>

#include "armprof/bits.h"

/*
 * 8-bit headers (§5.2.1, Figure 5). The fixed bits of each header; the variable bits are the
 * fields below. Every header byte 0x40-0xFF carries its payload size in SZ, bits [5:4]
 * (0b00 byte ... 0b11 doubleword); 0x00-0x1F have no payload; 0x20-0x3F prefix a 16-bit header.
 */
#define SPE_HDR_PADDING       0x00u      /* §5.3.9 */
#define SPE_HDR_END           0x01u      /* §5.3.6 */
#define SPE_HDR_TIMESTAMP     0x71u      /* §5.3.10: 0b01 SZ=0b11 0b0001 */
#define SPE_HDR_EVENTS        0x42u      /* §5.3.7: 0b01 SZ 0b0010 */
#define SPE_HDR_DATA_SOURCE   0x43u      /* §5.3.5: 0b01 SZ 0b0011 */
#define SPE_HDR_CONTEXT       0x64u      /* §5.3.3: 0b01 SZ=0b10 0b01 INDEX[1:0] */
#define SPE_HDR_OPTYPE        0x48u      /* §5.3.8: 0b01 SZ=0b00 0b10 CLASS[1:0] */
#define SPE_HDR_ADDRESS       0xB0u      /* §5.3.1 short: 0b10 SZ=0b11 0 INDEX[2:0] */
#define SPE_HDR_COUNTER       0x98u      /* §5.3.4 short: 0b10 SZ=0b01 1 INDEX[2:0] */
#define SPE_HDR_EXT_PREFIX    0x20u      /* §5.2.2 byte 0: 0b001xxxxx */
#define SPE_HDR_ALIGN_BYTE1   0x00u      /* §5.3.2 byte 1 of the Alignment command */

/* Masks that pick the fixed bits of each header kind. */
#define SPE_HDR_MASK_EV_DS    (AP_GENMASK(7, 6) | AP_GENMASK(3, 0))  /* Events, Data Source */
#define SPE_HDR_MASK_CTX_OP   AP_GENMASK(7, 2)                       /* Context, Operation Type */
#define SPE_HDR_MASK_ADDR_CNT AP_GENMASK(7, 3)                       /* Address, Counter */
#define SPE_HDR_MASK_EXT      AP_GENMASK(7, 5)                       /* 16-bit prefix */

/* Header fields. */
#define SPE_HDR_SZ            AP_GENMASK(5, 4)   /* payload size: 1 << SZ bytes */
#define SPE_HDR_INDEX_SHORT   AP_GENMASK(2, 0)   /* Address/Counter INDEX (short), INDEX[2:0] (ext byte 1) */
#define SPE_HDR_INDEX_EXT_HI  AP_GENMASK(1, 0)   /* Address/Counter INDEX[4:3], extended byte 0 */
#define SPE_HDR_EXT_RAZ       AP_GENMASK(4, 2)   /* extended byte 0 bits [4:2], read as zero */
#define SPE_HDR_CTX_INDEX     AP_GENMASK(1, 0)   /* Context INDEX */
#define SPE_HDR_OP_CLASS      AP_GENMASK(1, 0)   /* Operation Type CLASS */
#define SPE_HDR_ALIGN_SIZE    AP_GENMASK(3, 0)   /* Alignment command SIZE */
#define SPE_HDR_ALIGN_RAZ     AP_BIT(4)          /* Alignment command byte 0 bit [4] */

/* The 5-bit Address/Counter INDEX split over the two bytes of an extended header. */
#define SPE_INDEX_HI          AP_GENMASK(4, 3)   /* INDEX[4:3]: extended byte 0 bits [1:0] */
#define SPE_INDEX_LO          AP_GENMASK(2, 0)   /* INDEX[2:0]: byte 1 (or the short header) */

/* SZ values. */
enum { SPE_SZ_BYTE = 0, SPE_SZ_HALF = 1, SPE_SZ_WORD = 2, SPE_SZ_DOUBLE = 3 };

/* Address packet payload (§5.3.1). */
#define SPE_ADDR_ADDR         AP_GENMASK(55, 0)  /* ADDR, bits [55:0] of the address */
#define SPE_ADDR_NS           AP_BIT(63)         /* NS (instruction VA and data PA) */
#define SPE_ADDR_EL           AP_GENMASK(62, 61) /* EL (instruction VA) */
#define SPE_ADDR_INS_RAZ      AP_GENMASK(60, 56) /* byte 7 bits [4:0] (instruction VA) */
#define SPE_ADDR_TAG          AP_GENMASK(63, 56) /* TAG (data VA) */
#define SPE_ADDR_PA_RAZ       AP_GENMASK(62, 56) /* byte 7 bits [6:0] (data PA) */

/* Counter packet payload (§5.3.4). */
#define SPE_CNT_COUNT12       AP_GENMASK(11, 0)
#define SPE_CNT_COUNT16       AP_GENMASK(15, 0)

/* Events payload (§5.3.7): bits that read as zero at each payload size. */
#define SPE_EV_RAZ_16         AP_BIT(11)
#define SPE_EV_RAZ_32         (AP_BIT(11) | AP_GENMASK(23, 16))
#define SPE_EV_RAZ_64         (AP_BIT(11) | AP_GENMASK(23, 16) | AP_GENMASK(47, 32))

/* Longest packet: 2 header bytes + 8 payload bytes. */
#define SPE_PKT_MAX_BYTES     10u

#endif
