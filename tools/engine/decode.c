/* SPDX-License-Identifier: Apache-2.0 */
/* decode.c: ape_decode(): libarmprof's SPE decoder over a buffer, each record's fields into column arrays (the Python package's DataFrame). */
#define _DEFAULT_SOURCE /* madvise */
#include "armprof/engine.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>

#include "armprof/spe.h"

#define PUT(col, v)                                                                                                   \
    do {                                                                                                              \
        if (c->col)                                                                                                   \
            c->col[i] = (v);                                                                                          \
    } while (0)

static void store(const ape_columns *c, size_t i, const spe_decoded *d)
{
    const spe_record *r = &d->rec;
    uint32_t h = d->have;
    PUT(offset, d->offset);
    PUT(size, (uint32_t)d->size);
    PUT(have, h);
    PUT(pc, h & SPE_R_PC ? r->pc : 0);
    PUT(el, h & SPE_R_PC ? r->pc_el : 0);
    PUT(ns, h & SPE_R_PC ? r->pc_ns : 0);
    PUT(op_class, h & SPE_R_OPTYPE ? r->op_class : 0);
    PUT(op_subclass, h & SPE_R_OPTYPE ? r->op_subclass : 0);
    PUT(events, h & SPE_R_EVENTS ? r->events : 0);
    PUT(lat_total, h & SPE_R_TOTAL_LAT ? r->total_lat : 0);
    PUT(lat_issue, h & SPE_R_ISSUE_LAT ? r->issue_lat : 0);
    PUT(lat_xlat, h & SPE_R_XLAT_LAT ? r->xlat_lat : 0);
    PUT(target, h & SPE_R_TARGET ? r->target : 0);
    PUT(target_el, h & SPE_R_TARGET ? r->target_el : 0);
    PUT(target_ns, h & SPE_R_TARGET ? r->target_ns : 0);
    PUT(va, h & SPE_R_DATA_VA ? r->data_va : 0);
    PUT(va_tag, h & SPE_R_DATA_VA ? r->data_va_tag : 0);
    PUT(pa, h & SPE_R_DATA_PA ? r->data_pa : 0);
    PUT(pa_ns, h & SPE_R_DATA_PA ? r->data_pa_ns : 0);
    PUT(contextidr_el1, h & SPE_R_CONTEXT_EL1 ? r->context_el1 : 0);
    PUT(contextidr_el2, h & SPE_R_CONTEXT_EL2 ? r->context_el2 : 0);
    PUT(data_source, h & SPE_R_DATA_SOURCE ? r->data_source : 0);
    PUT(ts, h & SPE_R_TIMESTAMP ? r->timestamp : 0);
    PUT(ignored_packets, d->n_ignored);
    for (int b = 0; b < APE_PARTS; b++)
        if (c->absent[b])
            c->absent[b][i] = !((h >> b) & 1);
}

int64_t ape_decode(const void *buf, size_t len, const ape_decode_opts *o, ape_columns *cols, uint64_t *errors,
                   ape_error *err)
{
    if (err)
        memset(err, 0, sizeof(*err));
    if (errors)
        *errors = 0;
    if (!buf && len) {
        if (err) {
            err->code = APE_ERR_ARG;
            snprintf(err->text, sizeof(err->text), "ape_decode: no buffer");
        }
        return -1;
    }
    spe_decode_opts dopt = { 0 };
    if (o) {
        dopt.max_size = o->max_size;
        dopt.base = o->base;
        dopt.lenient = o->lenient != 0;
    }
    /* An empty input is no records (armprof-decode says so and exits 0 as well). */
    if (len == 0)
        return 0;
    spe_decoder d;
    spe_decoder_init(&d, buf, len, &dopt);
    spe_decoded r;
    size_t n = 0, cap = cols ? cols->cap : 0;
    int k;
    while ((k = spe_decoder_next(&d, &r)) != SPE_DEC_EOF) {
        if (k == SPE_DEC_ERROR) {
            if (dopt.lenient)
                continue;
            if (err) {
                err->code = APE_ERR_DECODE;
                spe_dec_error_text(&d, err->text, sizeof(err->text));
            }
            if (errors)
                *errors = d.n_errors;
            return -1;
        }
        if (n < cap)
            store(cols, n, &r);
        n++;
    }
    if (errors)
        *errors = d.n_errors;
    return (int64_t)n;
}

/* The columns' element sizes, in the order of ape_columns' pointers. */
#define COLS(X)                                                                                                       \
    X(offset) X(size) X(have) X(pc) X(el) X(ns) X(op_class) X(op_subclass) X(events) X(lat_total) X(lat_issue)        \
    X(lat_xlat) X(target) X(target_el) X(target_ns) X(va) X(va_tag) X(pa) X(pa_ns) X(contextidr_el1)                 \
    X(contextidr_el2) X(data_source) X(ts) X(ignored_packets)

static void free_cols(ape_columns *c)
{
#define F(f) free(c->f), c->f = NULL;
    COLS(F)
    for (int b = 0; b < APE_PARTS; b++)
        F(absent[b])
#undef F
    c->cap = 0;
}

/* Large columns in transparent huge pages where the system offers them on request: a column is
 * written once, front to back, and first touches of 4 KiB pages cost as much as the decoding. */
static void huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095, e = ((uintptr_t)p + bytes) & ~(uintptr_t)4095;
    if (bytes >= (4u << 20) && e > a)
        madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

/* Every column (re)allocated to cap elements; -1 when out of memory (the old ones stay). */
static int grow(ape_columns *c, size_t cap)
{
#define G(f)                                                                                                          \
    {                                                                                                                 \
        void *p = realloc(c->f, cap * sizeof(*c->f));                                                                 \
        if (!p)                                                                                                       \
            return -1;                                                                                                \
        c->f = p;                                                                                                     \
        huge(p, cap * sizeof(*c->f));                                                                                 \
    }
    COLS(G)
    for (int b = 0; b < APE_PARTS; b++)
        G(absent[b])
#undef G
    c->cap = cap;
    return 0;
}

/* store() for columns that are all there: the decoder hands out each record zeroed
 * (spe_decoder_next), so a field the record lacks is 0 without a test. */
static void store_all(const ape_columns *c, size_t i, const spe_decoded *d)
{
    const spe_record *r = &d->rec;
    c->offset[i] = d->offset;
    c->size[i] = (uint32_t)d->size;
    c->have[i] = d->have;
    c->pc[i] = r->pc;
    c->el[i] = r->pc_el;
    c->ns[i] = r->pc_ns;
    c->op_class[i] = r->op_class;
    c->op_subclass[i] = r->op_subclass;
    c->events[i] = r->events;
    c->lat_total[i] = r->total_lat;
    c->lat_issue[i] = r->issue_lat;
    c->lat_xlat[i] = r->xlat_lat;
    c->target[i] = r->target;
    c->target_el[i] = r->target_el;
    c->target_ns[i] = r->target_ns;
    c->va[i] = r->data_va;
    c->va_tag[i] = r->data_va_tag;
    c->pa[i] = r->data_pa;
    c->pa_ns[i] = r->data_pa_ns;
    c->contextidr_el1[i] = r->context_el1;
    c->contextidr_el2[i] = r->context_el2;
    c->data_source[i] = r->data_source;
    c->ts[i] = r->timestamp;
    c->ignored_packets[i] = d->n_ignored;
    for (int b = 0; b < APE_PARTS; b++)
        c->absent[b][i] = !((d->have >> b) & 1);
}

int64_t ape_decode_alloc(const void *buf, size_t len, const ape_decode_opts *o, ape_columns *cols, uint64_t *errors,
                         ape_error *err)
{
    if (err)
        memset(err, 0, sizeof(*err));
    if (errors)
        *errors = 0;
    memset(cols, 0, sizeof(*cols));
    if (!buf && len) {
        if (err) {
            err->code = APE_ERR_ARG;
            snprintf(err->text, sizeof(err->text), "ape_decode_alloc: no buffer");
        }
        return -1;
    }
    spe_decode_opts dopt = { 0 };
    if (o) {
        dopt.max_size = o->max_size;
        dopt.base = o->base;
        dopt.lenient = o->lenient != 0;
    }
    /* A first guess of 1 record per 32 bytes (the model's records are 40 to 64 bytes); large
     * blocks grow by mremap, without copying. */
    if (grow(cols, len / 32 + 16))
        goto nomem;
    size_t n = 0;
    if (len) {
        spe_decoder d;
        spe_decoder_init(&d, buf, len, &dopt);
        spe_decoded r;
        int k;
        while ((k = spe_decoder_next(&d, &r)) != SPE_DEC_EOF) {
            if (k == SPE_DEC_ERROR) {
                if (dopt.lenient)
                    continue;
                if (err) {
                    err->code = APE_ERR_DECODE;
                    spe_dec_error_text(&d, err->text, sizeof(err->text));
                }
                if (errors)
                    *errors = d.n_errors;
                free_cols(cols);
                return -1;
            }
            if (n == cols->cap && grow(cols, cols->cap * 2))
                goto nomem;
            store_all(cols, n++, &r);
        }
        if (errors)
            *errors = d.n_errors;
    }
    return (int64_t)n;
nomem:
    free_cols(cols);
    if (err) {
        err->code = APE_ERR_NOMEM;
        snprintf(err->text, sizeof(err->text), "out of memory decoding %zu bytes", len);
    }
    return -1;
}
