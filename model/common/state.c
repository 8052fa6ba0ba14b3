/* SPDX-License-Identifier: Apache-2.0 */
/* state.c: checkpoint blob framing with a checksum, shared by every unit. */
#include "common/state.h"

#include <string.h>

uint64_t ap_fnv1a64(const void *data, size_t len, uint64_t h)
{
    const uint8_t *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static void le_store(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t le_load(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

void ap_state_put(ap_state_writer *w, const void *data, size_t len)
{
    if (w->buf && w->len + len <= w->cap)
        memcpy(w->buf + w->len, data, len);
    else if (w->buf)
        w->overflow = true;
    w->len += len;
}

void ap_state_put_u64(ap_state_writer *w, uint64_t v)
{
    uint8_t b[8];
    le_store(b, v, 8);
    ap_state_put(w, b, 8);
}

void ap_state_put_u32(ap_state_writer *w, uint32_t v)
{
    uint8_t b[4];
    le_store(b, v, 4);
    ap_state_put(w, b, 4);
}

void ap_state_begin(ap_state_writer *w, uint8_t *buf, size_t cap, uint32_t tag, uint32_t version,
                    uint64_t cfg_hash)
{
    memset(w, 0, sizeof(*w));
    w->buf = buf;
    w->cap = cap;
    ap_state_put_u32(w, AP_STATE_MAGIC);
    ap_state_put_u32(w, tag);
    ap_state_put_u32(w, version);
    ap_state_put_u64(w, cfg_hash);
    ap_state_put_u32(w, 0); /* payload length, patched in ap_state_end */
    w->payload_at = w->len;
}

armprof_err ap_state_end(ap_state_writer *w)
{
    size_t payload = w->len - w->payload_at;
    if (w->buf && !w->overflow && w->len + 8 <= w->cap) {
        le_store(w->buf + w->payload_at - 4, payload, 4);
        uint64_t h = ap_fnv1a64(w->buf, w->len, AP_FNV_INIT);
        le_store(w->buf + w->len, h, 8);
    } else if (w->buf) {
        w->overflow = true;
    }
    w->len += 8;
    return (w->buf && !w->overflow) ? ARMPROF_OK : ARMPROF_ERR_BUFSZ;
}

armprof_err ap_state_open(ap_state_reader *r, const uint8_t *buf, size_t len, uint32_t tag,
                          uint32_t version, uint64_t cfg_hash)
{
    memset(r, 0, sizeof(*r));
    if (!buf || len < 24 + 8)
        return ARMPROF_ERR_STATE_CORRUPT;
    if (le_load(buf, 4) != AP_STATE_MAGIC)
        return ARMPROF_ERR_STATE_CORRUPT;
    uint64_t payload = le_load(buf + 20, 4);
    if (24 + payload + 8 != len)
        return ARMPROF_ERR_STATE_CORRUPT;
    if (ap_fnv1a64(buf, len - 8, AP_FNV_INIT) != le_load(buf + len - 8, 8))
        return ARMPROF_ERR_STATE_CORRUPT;
    if (le_load(buf + 4, 4) != tag || le_load(buf + 8, 4) != version ||
        le_load(buf + 12, 8) != cfg_hash)
        return ARMPROF_ERR_STATE_MISMATCH;
    r->buf = buf + 24;
    r->len = (size_t)payload;
    return ARMPROF_OK;
}

void ap_state_get(ap_state_reader *r, void *data, size_t len)
{
    if (r->bad || r->pos + len > r->len) {
        r->bad = true;
        memset(data, 0, len);
        return;
    }
    memcpy(data, r->buf + r->pos, len);
    r->pos += len;
}

uint64_t ap_state_get_u64(ap_state_reader *r)
{
    uint8_t b[8];
    ap_state_get(r, b, 8);
    return le_load(b, 8);
}

uint32_t ap_state_get_u32(ap_state_reader *r)
{
    uint8_t b[4];
    ap_state_get(r, b, 4);
    return (uint32_t)le_load(b, 4);
}

armprof_err ap_state_close(ap_state_reader *r)
{
    return (!r->bad && r->pos == r->len) ? ARMPROF_OK : ARMPROF_ERR_STATE_CORRUPT;
}
