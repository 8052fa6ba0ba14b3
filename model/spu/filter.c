/* SPDX-License-Identifier: Apache-2.0 */
/* filter.c: filtering sample records: seed 001 §2.4 "Enabling sampling and filtering sample
 * records", §3.2.2 "Filtering sample records" and the CollectRecord() pseudocode of §3.2.3
 * (PMSFCR_EL1.{FE,FT,FL,B,LD,ST}, PMSEVFR_EL1, PMSLATFR_EL1), with FEAT_SPEv1p2's inverted event
 * filter (PMSFCR_EL1.FnE, PMSNEVFR_EL1). A record is checked when it is complete; one that is
 * not removed counts SAMPLE_FILTRATE (§2.6, see inflight.c). The CONSTRAINED UNPREDICTABLE
 * cases of an enabled filter with nothing selected are the cu_*_zero_discards choices. */
#include "spu_internal.h"

/* CollectRecord(): the filters of §3.2.2, evaluated when the record is complete. */
bool spu_collect_record(const spu_t *spu, uint64_t events, uint32_t total_lat, int optype)
{
    uint64_t fcr = spu_reg(spu, R_PMSFCR_EL1);
    if (ap_field_get(PMSFCR_FE, fcr)) {
        uint64_t m = spu_reg(spu, R_PMSEVFR_EL1) & PMSEVFR_FILTERABLE;
        if (spu_reg(spu, R_PMSEVFR_EL1) == 0 && spu->cfg.cu_fe_zero_discards)
            return false;
        if (~events & m)
            return false;
    }
    if (ap_field_get(PMSFCR_FNE, fcr) && spu->cfg.feat_spev1p2) {
        /* FEAT_SPEv1p2 inverted filter: discard a record with any event in PMSNEVFR_EL1. */
        if (events & spu_reg(spu, R_PMSNEVFR_EL1) & PMSEVFR_FILTERABLE)
            return false;
    }
    if (ap_field_get(PMSFCR_FT, fcr)) {
        bool b = ap_field_get(PMSFCR_B, fcr), ld = ap_field_get(PMSFCR_LD, fcr),
             st = ap_field_get(PMSFCR_ST, fcr);
        if (!b && !ld && !st && spu->cfg.cu_ft_zero_discards)
            return false;
        switch (optype) {
        case OPTYPE_BRANCH: if (!b) return false; break;
        case OPTYPE_LOAD: if (!ld) return false; break;
        case OPTYPE_STORE: if (!st) return false; break;
        /* "ST enables collection of store sampled operations, including all atomic operations.
         * LD enables collection of load sampled operations, including atomic operations that
         * return a value to a register." */
        case OPTYPE_ATOMIC: if (!st) return false; break;
        case OPTYPE_ATOMIC_RET: if (!st && !ld) return false; break;
        default: return false;
        }
    }
    if (ap_field_get(PMSFCR_FL, fcr)) {
        uint64_t minlat = spu_reg(spu, R_PMSLATFR_EL1) & AP_GENMASK(15, 0);
        if (minlat == 0 && spu->cfg.cu_fl_zero_discards)
            return false;
        if (total_lat < minlat)
            return false;
    }
    return true;
}
