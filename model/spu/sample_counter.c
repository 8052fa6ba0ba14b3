/* SPDX-License-Identifier: Apache-2.0 */
/* sample_counter.c: which operation is sampled: seed 001 §2.2 "Defining the sample population",
 * §3.1 "Controlling when an operation is sampled" (§3.1.1 initializing, §3.1.2 while enabled,
 * §3.1.3 while disabled), §2.2.2 random perturbation (PMSIRR_EL1.RND, PMSIDR_EL1.ERnd, ECOUNT),
 * §2.2.4 / §3.1.4 sample collisions (PMBSR_EL1.COLL), and the PMU events SAMPLE_POP and
 * SAMPLE_COLLISION of §2.6 (SAMPLE_FEED is counted where the sampled operation takes its slot,
 * collection.c). The common step of the counter (COUNT decrements) is counter_step_plain() in
 * spu_internal.h, inlined into the per-operation step of spu.c. */
#include "spu_internal.h"

/* =============================================================================================
 * The sample interval counter (§3.1)
 * ============================================================================================= */

/* §3.1.1: on the move from disabled to enabled, a zero PMSICR_EL1 is loaded with an initial
 * value; a non-zero one resumes where it was. */
void spu_counter_on_enable(spu_t *spu)
{
    uint64_t icr = spu_reg(spu, R_PMSICR_EL1);
    if (icr != 0)
        return;
    uint64_t irr = spu_reg(spu, R_PMSIRR_EL1);
    uint64_t count = ap_field_get(PMSIRR_INTERVAL, irr) << 8;
    if (ap_field_get(PMSIRR_RND, irr) && !spu->cfg.ernd)
        count |= ap_rng_draw8(&spu->rng);
    spu->regs[R_PMSICR_EL1] = ap_field_set(icr, PMSICR_COUNT, count);
}

/*
 * One member of the sample population while profiling is enabled. Returns true when this
 * operation is the one selected for sampling.
 *   COUNT != 0: COUNT decrements. COUNT == 0: this operation is the sample point and COUNT
 *   reloads (INTERVAL:0x00, or INTERVAL:random with RND=1, ERnd=0), which makes the interval
 *   INTERVAL x 256 + 1 (§3.1.2 note). With RND=1 and ERnd=1 the sample point instead loads
 *   ECOUNT with a random value, and the operation at which ECOUNT (decrementing while non-zero)
 *   reaches zero is selected (immediately when the random value is 0).
 */
static bool counter_tick(spu_t *spu)
{
    uint64_t icr = spu->regs[R_PMSICR_EL1];
    uint32_t count = (uint32_t)ap_field_get(PMSICR_COUNT, icr);
    uint8_t ecount = spu->cfg.ernd ? (uint8_t)ap_field_get(PMSICR_ECOUNT, icr) : 0;
    bool fire = false;
    if (spu->sample_pending) {
        spu->sample_pending = false;
        fire = true;
    }
    bool point = false;
    if (ecount) {
        ecount--;
        if (!ecount)
            point = true;
    }
    if (count) {
        count--;
    } else {
        uint64_t irr = spu->regs[R_PMSIRR_EL1];
        bool rnd = ap_field_get(PMSIRR_RND, irr);
        count = (uint32_t)(ap_field_get(PMSIRR_INTERVAL, irr) << 8);
        if (rnd && spu->cfg.ernd) {
            ecount = ap_rng_draw8(&spu->rng);
            if (!ecount)
                point = true;
        } else {
            if (rnd)
                count |= ap_rng_draw8(&spu->rng);
            point = true;
        }
    }
    icr = ap_field_set(icr, PMSICR_COUNT, count);
    if (spu->cfg.ernd)
        icr = ap_field_set(icr, PMSICR_ECOUNT, ecount);
    spu->regs[R_PMSICR_EL1] = icr;
    if (point) {
        if (spu->cfg.sample_next_op)
            spu->sample_pending = true;
        else
            fire = true;
    }
    return fire;
}

uint64_t spu_ops_until_sample(const spu_t *spu)
{
    if (!spu->prof_enabled)
        return UINT64_MAX;
    if (spu->sample_pending)
        return 0;
    uint64_t icr = spu->regs[R_PMSICR_EL1];
    uint64_t n = ap_field_get(PMSICR_COUNT, icr);
    if (spu->cfg.ernd) {
        uint64_t e = ap_field_get(PMSICR_ECOUNT, icr);
        if (e && e - 1 < n)
            n = e - 1;
    }
    return n;
}

uint64_t spu_skip(spu_t *spu, uint64_t n)
{
    uint64_t k = spu_ops_until_sample(spu);
    if (k == UINT64_MAX)
        return 0; /* profiling disabled: operations are not in the population */
    if (n < k)
        k = n;
    if (!k)
        return 0;
    uint64_t icr = spu->regs[R_PMSICR_EL1];
    icr = ap_field_set(icr, PMSICR_COUNT, ap_field_get(PMSICR_COUNT, icr) - k);
    if (spu->cfg.ernd && ap_field_get(PMSICR_ECOUNT, icr))
        icr = ap_field_set(icr, PMSICR_ECOUNT, ap_field_get(PMSICR_ECOUNT, icr) - k);
    spu->regs[R_PMSICR_EL1] = icr;
    spu->st.population += k;
    emit(spu, ARMPROF_EV_SAMPLE_POP, k);
    return k;
}

/* =============================================================================================
 * Sample collisions (§2.2.4, §3.1.4)
 * ============================================================================================= */

/* §3.1.4: the sample point fell on an operation but no slot was free: SAMPLE_COLLISION and
 * PMBSR_EL1.COLL. */
spu_op_result spu_collide(spu_t *spu)
{
    spu->st.collisions++;
    spu->regs[R_PMBSR_EL1] = ap_field_set(spu->regs[R_PMBSR_EL1], PMBSR_COLL, 1);
    emit(spu, ARMPROF_EV_SAMPLE_COLLISION, 1);
    return SPU_OP_COLLIDED;
}

/* The counter step that may select the operation, then the collision check (§3.1.4) or the
 * sampled operation's slot. */
spu_op_result spu_retire_tick(spu_t *spu, const spu_op *op)
{
    if (!counter_tick(spu))
        return SPU_OP_COUNTED;
    if (spu->inflight >= spu->cfg.max_inflight)
        return spu_collide(spu);
    spu_admit(spu, op);
    return SPU_OP_SAMPLED;
}
