/* SPDX-License-Identifier: Apache-2.0 */
/* regtable.c: the generic register read/write path (see regtable.h for the order of steps). */
#include "common/regtable.h"

#include <string.h>

const ap_regdef *ap_reg_find(const ap_regfile *rf, uint32_t enc)
{
    for (size_t i = 0; i < rf->count; i++)
        if (rf->defs[i].enc == enc)
            return &rf->defs[i];
    return NULL;
}

const ap_regdef *ap_reg_find_name(const ap_regfile *rf, const char *name)
{
    for (size_t i = 0; i < rf->count; i++)
        if (strcmp(rf->defs[i].name, name) == 0)
            return &rf->defs[i];
    return NULL;
}

/* An AP_REG_ALIAS entry behaves as the register owning its slot; only its check is its own. */
static const ap_regdef *ap_reg_target(const ap_regfile *rf, const ap_regdef *r)
{
    if (!(r->flags & AP_REG_ALIAS))
        return r;
    for (size_t i = 0; i < rf->count; i++)
        if (rf->defs[i].slot == r->slot && !(rf->defs[i].flags & AP_REG_ALIAS))
            return &rf->defs[i];
    return r;
}

uint64_t ap_reg_res0(const ap_regfile *rf, const ap_regdef *r)
{
    uint64_t m = r->res0;
    if (r->res0_extra)
        m |= r->res0_extra(rf->unit, r);
    return m;
}

/* The access checks of one entry (steps 1-3 of regtable.h). */
static armprof_err entry_check(const ap_regfile *rf, const ap_regdef *r, bool is_write)
{
    armprof_err e = r->check ? r->check(rf->unit, r, is_write) : ARMPROF_OK;
    if (is_write && e != ARMPROF_ERR_NOREG && (ap_reg_target(rf, r)->flags & AP_REG_RO))
        return ARMPROF_ERR_UNDEFINED;
    return e;
}

armprof_err ap_reg_check(const ap_regfile *rf, uint32_t enc, bool is_write)
{
    const ap_regdef *r = ap_reg_find(rf, enc);
    if (!r)
        return ARMPROF_ERR_NOREG;
    return entry_check(rf, r, is_write);
}

armprof_err ap_reg_read(const ap_regfile *rf, uint32_t enc, uint64_t *out)
{
    const ap_regdef *r = ap_reg_find(rf, enc);
    if (!r)
        return ARMPROF_ERR_NOREG;
    if (!out)
        return ARMPROF_ERR_INVAL;
    armprof_err e = entry_check(rf, r, false);
    if (e != ARMPROF_OK)
        return e;
    r = ap_reg_target(rf, r);
    uint64_t v = rf->vals[r->slot];
    *out = r->read ? r->read(rf->unit, r, v) : v;
    return ARMPROF_OK;
}

armprof_err ap_reg_write(ap_regfile *rf, uint32_t enc, uint64_t val)
{
    const ap_regdef *r = ap_reg_find(rf, enc);
    if (!r)
        return ARMPROF_ERR_NOREG;
    armprof_err e = entry_check(rf, r, true);
    if (e != ARMPROF_OK)
        return e;
    r = ap_reg_target(rf, r);
    uint64_t old = rf->vals[r->slot];
    uint64_t keep = ap_reg_res0(rf, r) | r->ro;
    uint64_t v = (val & ~keep) | (old & r->ro) | r->res1;
    if (r->prewrite)
        v = r->prewrite(rf->unit, r, old, v);
    rf->vals[r->slot] = v;
    if (r->postwrite)
        r->postwrite(rf->unit, r, old, v);
    return ARMPROF_OK;
}

void ap_reg_set_raw(ap_regfile *rf, const ap_regdef *r, uint64_t val)
{
    rf->vals[r->slot] = val;
}

void ap_reg_reset(ap_regfile *rf, bool cold)
{
    for (size_t i = 0; i < rf->count; i++) {
        const ap_regdef *r = &rf->defs[i];
        if (r->flags & AP_REG_ALIAS)
            continue;
        if ((r->flags & AP_REG_NORESET) && !cold)
            continue;
        rf->vals[r->slot] = r->reset;
    }
}
