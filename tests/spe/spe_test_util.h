/* SPDX-License-Identifier: Apache-2.0 */
/* spe_test_util.h: helpers shared by the SPE tests: random records, expected decodings, field-by-field compare. */
#ifndef ARMPROF_TESTS_SPE_UTIL_H
#define ARMPROF_TESTS_SPE_UTIL_H

#include <stdio.h>
#include <string.h>

#include "armprof/spe.h"
#include "armprof/rng.h"

/* A random record: every optional part on or off, fields of their full widths. */
static inline spe_record spe_test_random_record(ap_prng64 *g)
{
    spe_record r;
    memset(&r, 0, sizeof r);
    r.present = (uint32_t)ap_prng64_next(g) & SPE_R__ENCODED;
    r.pc = ap_prng64_next(g) & 0x00FFFFFFFFFFFFFFull;
    r.pc_el = (uint8_t)ap_prng64_below(g, 4);
    r.pc_ns = ap_prng64_next(g) & 1;
    r.target = ap_prng64_next(g) & 0x00FFFFFFFFFFFFFFull;
    r.target_el = (uint8_t)ap_prng64_below(g, 4);
    r.target_ns = ap_prng64_next(g) & 1;
    r.data_va = ap_prng64_next(g) & 0x00FFFFFFFFFFFFFFull;
    r.data_va_tag = (uint8_t)ap_prng64_next(g);
    r.data_pa = ap_prng64_next(g) & 0x00FFFFFFFFFFFFFFull;
    r.data_pa_ns = ap_prng64_next(g) & 1;
    r.context_el1 = (uint32_t)ap_prng64_next(g);
    r.context_el2 = (uint32_t)ap_prng64_next(g);
    r.total_lat = (uint16_t)ap_prng64_next(g);
    r.issue_lat = (uint16_t)ap_prng64_below(g, 0x1100); /* around the 12-bit limit */
    r.xlat_lat = (uint16_t)ap_prng64_below(g, 64);
    /* Events of every payload width: keep 8, 16, 32 or 64 low bits. */
    unsigned w = 8u << ap_prng64_below(g, 4);
    r.events = ap_prng64_next(g) & (w == 64 ? ~0ull : ((1ull << w) - 1));
    r.op_class = (uint8_t)ap_prng64_below(g, 3);
    r.op_subclass = (uint8_t)ap_prng64_next(g);
    r.data_source = (uint16_t)(ap_prng64_next(g) & 1 ? ap_prng64_below(g, 256) : ap_prng64_next(g));
    r.timestamp = ap_prng64_next(g);
    return r;
}

/* What a decoder must give back for `r` written with `cfg`, minus the parts in `dropped`. */
static inline spe_record spe_test_expected(const spe_record *r, const spe_format_cfg *cfg, uint32_t dropped)
{
    spe_record e;
    memset(&e, 0, sizeof e);
    uint32_t p = r->present & SPE_R__ENCODED & ~dropped;
    uint16_t max = cfg->count_size == 2 ? 0xFFF : 0xFFFF;
    e.present = p;
    if (p & SPE_R_PC) {
        e.pc = r->pc & 0x00FFFFFFFFFFFFFFull;
        e.pc_el = r->pc_el & 3;
        e.pc_ns = r->pc_ns;
    }
    if (p & SPE_R_TARGET) {
        e.target = r->target & 0x00FFFFFFFFFFFFFFull;
        e.target_el = r->target_el & 3;
        e.target_ns = r->target_ns;
    }
    if (p & SPE_R_DATA_VA) {
        e.data_va = r->data_va & 0x00FFFFFFFFFFFFFFull;
        e.data_va_tag = r->data_va_tag;
    }
    if (p & SPE_R_DATA_PA) {
        e.data_pa = r->data_pa & 0x00FFFFFFFFFFFFFFull;
        e.data_pa_ns = r->data_pa_ns;
    }
    if (p & SPE_R_CONTEXT_EL1)
        e.context_el1 = r->context_el1;
    if (p & SPE_R_CONTEXT_EL2)
        e.context_el2 = r->context_el2;
    if (p & SPE_R_TOTAL_LAT)
        e.total_lat = r->total_lat > max ? max : r->total_lat;
    if (p & SPE_R_ISSUE_LAT)
        e.issue_lat = r->issue_lat > max ? max : r->issue_lat;
    if (p & SPE_R_XLAT_LAT)
        e.xlat_lat = r->xlat_lat > max ? max : r->xlat_lat;
    /* The Events packet is always there; narrowed to E[15:0] when `dropped` says so. */
    e.events = (dropped & SPE_R_EVENTS) ? r->events & 0xFFFFu : r->events;
    if (p & SPE_R_OPTYPE) {
        e.op_class = r->op_class;
        e.op_subclass = r->op_subclass;
    }
    if (p & SPE_R_DATA_SOURCE)
        e.data_source = r->data_source;
    if (p & SPE_R_TIMESTAMP)
        e.timestamp = r->timestamp;
    return e;
}

/* First field that differs, or NULL. */
static inline const char *spe_test_diff(const spe_record *a, const spe_record *b)
{
#define SPE_CMP(f) if (a->f != b->f) return #f
    SPE_CMP(present); SPE_CMP(pc); SPE_CMP(pc_el); SPE_CMP(pc_ns); SPE_CMP(target);
    SPE_CMP(target_el); SPE_CMP(target_ns); SPE_CMP(data_va); SPE_CMP(data_va_tag);
    SPE_CMP(data_pa); SPE_CMP(data_pa_ns); SPE_CMP(context_el1); SPE_CMP(context_el2);
    SPE_CMP(total_lat); SPE_CMP(issue_lat); SPE_CMP(xlat_lat); SPE_CMP(events);
    SPE_CMP(op_class); SPE_CMP(op_subclass); SPE_CMP(data_source); SPE_CMP(timestamp);
#undef SPE_CMP
    return NULL;
}

#endif
