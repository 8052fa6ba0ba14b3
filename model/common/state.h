/* SPDX-License-Identifier: Apache-2.0 */
/* state.h: save / restore of a unit's complete state to a byte buffer (checkpoints). */
#ifndef ARMPROF_COMMON_STATE_H
#define ARMPROF_COMMON_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "armprof/armprof.h"

/*
 * Blob layout (little-endian): magic u32, unit tag u32, format version u32, config hash u64,
 * payload length u32, payload, FNV-1a-64 of everything before it u64.
 * A writer with buf == NULL only counts, so callers can size the buffer first.
 */
typedef struct ap_state_writer {
    uint8_t *buf;
    size_t cap;
    size_t len;
    size_t payload_at;
    bool overflow;
} ap_state_writer;

typedef struct ap_state_reader {
    const uint8_t *buf;
    size_t len;
    size_t pos;
    bool bad;
} ap_state_reader;

#define AP_STATE_MAGIC 0x50524641u /* "AFRP" */

uint64_t ap_fnv1a64(const void *data, size_t len, uint64_t h);
#define AP_FNV_INIT 0xcbf29ce484222325ull

void ap_state_begin(ap_state_writer *w, uint8_t *buf, size_t cap, uint32_t tag, uint32_t version,
                    uint64_t cfg_hash);
void ap_state_put(ap_state_writer *w, const void *data, size_t len);
void ap_state_put_u64(ap_state_writer *w, uint64_t v);
void ap_state_put_u32(ap_state_writer *w, uint32_t v);
/* Closes the blob; returns ARMPROF_ERR_BUFSZ (with w->len the size needed) on overflow. */
armprof_err ap_state_end(ap_state_writer *w);

/* Validates magic, tag, version, hash and checksum, and positions the reader at the payload. */
armprof_err ap_state_open(ap_state_reader *r, const uint8_t *buf, size_t len, uint32_t tag,
                          uint32_t version, uint64_t cfg_hash);
void ap_state_get(ap_state_reader *r, void *data, size_t len);
uint64_t ap_state_get_u64(ap_state_reader *r);
uint32_t ap_state_get_u32(ap_state_reader *r);
/* ARMPROF_OK when every payload byte was consumed exactly. */
armprof_err ap_state_close(ap_state_reader *r);

#endif
