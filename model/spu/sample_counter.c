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

/* Ticks at the start of which the counter only decrements: COUNT does not reach its reload
 * (tick COUNT) and ECOUNT, when running, does not reach zero (tick ECOUNT - 1). */
static inline uint64_t plain_ticks(uint64_t count, uint64_t ecount)
{
    return (ecount && ecount - 1 < count) ? ecount - 1 : count;
}

/* Bound on the reloads spu_ops_until_sample() looks ahead through (only PMSIRR_EL1.INTERVAL = 0
 * with RND and ERnd, an UNKNOWN interval, can need more: the count is then a lower bound). */
#define LOOKAHEAD_RELOADS 1024

/*
 * The index (from 0) of the next operation at which the sample point falls, computed on copies
 * of COUNT, ECOUNT and the random generator, as counter_tick() would step them: the point is at
 * ECOUNT's zero when that comes first; otherwise at the reload of COUNT, unless RND and ERnd
 * load ECOUNT with a non-zero draw there, which moves it that many operations on (the draw is
 * the generator's next value: the count is exact, not a bound).
 */
static uint64_t ops_to_point(const spu_t *spu)
{
    uint64_t icr = spu->regs[R_PMSICR_EL1], irr = spu->regs[R_PMSIRR_EL1];
    uint64_t count = ap_field_get(PMSICR_COUNT, icr);
    uint64_t ecount = spu->cfg.ernd ? ap_field_get(PMSICR_ECOUNT, icr) : 0;
    bool rnd_ecount = spu->cfg.ernd && ap_field_get(PMSIRR_RND, irr);
    uint64_t reload = ap_field_get(PMSIRR_INTERVAL, irr) << 8;
    ap_rng rng = spu->rng;
    uint64_t acc = 0;
    for (int i = 0; i < LOOKAHEAD_RELOADS; i++) {
        if (ecount && ecount - 1 <= count)
            return acc + ecount - 1;
        acc += count; /* the reload is operation `acc` */
        if (!rnd_ecount)
            return acc;
        ecount = ap_rng_draw8(&rng);
        if (!ecount)
            return acc;
        acc++;
        count = reload;
    }
    return acc;
}

uint64_t spu_ops_until_sample(const spu_t *spu)
{
    if (!spu->prof_enabled)
        return UINT64_MAX;
    if (spu->sample_pending)
        return 0;
    /* With sample_next_op the operation after the sample point is the sampled one. */
    return ops_to_point(spu) + (spu->cfg.sample_next_op ? 1 : 0);
}

/* Runs of plain decrements in one step each; the few operations between them at which COUNT
 * reloads or ECOUNT reaches zero take the full counter step (random draws included), so the
 * counter, the generator and a pending sample end as n spu_retire() calls would leave them. */
uint64_t spu_skip(spu_t *spu, uint64_t n)
{
    uint64_t k = spu_ops_until_sample(spu);
    if (k == UINT64_MAX)
        return 0; /* profiling disabled: operations are not in the population */
    if (n < k)
        k = n;
    if (!k)
        return 0;
    for (uint64_t left = k; left;) {
        uint64_t icr = spu->regs[R_PMSICR_EL1];
        uint64_t count = ap_field_get(PMSICR_COUNT, icr);
        uint64_t ecount = spu->cfg.ernd ? ap_field_get(PMSICR_ECOUNT, icr) : 0;
        uint64_t m = plain_ticks(count, ecount);
        if (m > left)
            m = left;
        if (m) {
            icr = ap_field_set(icr, PMSICR_COUNT, count - m);
            if (ecount)
                icr = ap_field_set(icr, PMSICR_ECOUNT, ecount - m);
            spu->regs[R_PMSICR_EL1] = icr;
            left -= m;
            continue;
        }
        (void)counter_tick(spu); /* a reload or ECOUNT's zero: never the sampled operation */
        left--;
    }
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
