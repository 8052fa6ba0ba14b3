// SPDX-License-Identifier: Apache-2.0
// pe.cpp: workload-driven PE (a resumable loop with temporal decoupling) and the SPE driver's interrupt handling.
#include "pe.h"

#include <tlm>

namespace armprof {

using namespace sc_core;

Pe::Pe(sc_module_name name, const Config &cfg, SpuModule &spu, SpeAgent &agent)
    : sc_module(name), cfg_(cfg), spu_(spu), agent_(agent)
{
    if (!cfg_.ops_per_cycle)
        cfg_.ops_per_cycle = 1;
    if (cfg_.rtl)
        cfg_.own_thread = true;
    wl_init(&gen_, &cfg_.wl);
    progress_step_ = cfg_.ops / 100 + 1;
    period_ticks_ = spu_.period().value();
    quantum_ticks_ = cfg_.quantum.value();
    tlm::tlm_global_quantum::instance().set(cfg_.quantum); // every PE sets the same global quantum
    if (cfg_.own_thread) {
        SC_HAS_PROCESS(Pe);
        SC_THREAD(run);
    }
}

bool Pe::pmu_catch_up()
{
    pmu_t *pm = pmu_->unit();
    uint64_t s = spu_now(spu_.unit()), m = pmu_now(pm);
    if (s > m)
        pmu_advance(pm, s - m);
    return pmu_->irq_changed();
}

// run_rtl(): SystemC is at the unit's time there (clocked), so the wait is a delta cycle.
void Pe::sync_pmu()
{
    if (pmu_catch_up()) {
        uint64_t t = model_ticks(), now = sc_time_stamp().value();
        wait(sc_time::from_value(t > now ? t - now : 0));
        pmu_->flush_irq();
    }
}

void Pe::stop_pmu()
{
    if (!pmu_)
        return;
    // Outside the PE's loop: the PMU only catches up in cycles.
    pmu_catch_up();
    pmu_agent_->stop();
}

bool Pe::begin_session()
{
    if (!agent_.probe()) {
        finish();
        return false;
    }
    if (pmu_)
        pmu_ok_ = pmu_agent_->start(pmu_events_);
    agent_.start();
    return true;
}

bool Pe::handler_due()
{
    if (spu_.irq_level() && !irq_seen_) {
        irq_seen_ = true;
        irq_at_ = spu_now(spu_.unit());
    }
    return irq_seen_ && spu_now(spu_.unit()) >= irq_at_ + cfg_.irq_latency;
}

void Pe::service_irq()
{
    agent_.on_irq((uint64_t)(spu_.model_time().to_seconds() * 1e9));
    irq_seen_ = spu_.irq_level();
    if (pmu_ && !irq_seen_)
        pmu_set_spe_freeze(pmu_->unit(), false); // PMBSR_EL1.S cleared: SPEFreezeOnEvent ends
}

void Pe::next_op(uint64_t index, spu_op &op)
{
    if (cfg_.trace)
        op = cfg_.trace->ops[index % cfg_.trace->count];
    else
        wl_next(&gen_, &op);
}

// Calls the progress callback about every 1% of the operations.
void Pe::progress_tick(uint64_t &last)
{
    if (cfg_.progress && done_ - last >= progress_step_) {
        last = done_;
        cfg_.progress((double)done_ / (double)cfg_.ops);
    }
}

void Pe::finish()
{
    finished_ = true;
    finished_event.notify(SC_ZERO_TIME);
}

// The PE's own thread: step() with its waits.
void Pe::run()
{
    if (cfg_.rtl)
        return run_rtl();
    uint64_t t;
    while (step(&t)) {
        uint64_t now = sc_time_stamp().value();
        wait(sc_time::from_value(t > now ? t - now : 0));
    }
}

/*
 * One call runs the loop until it needs SystemC time (wait_for) or has finished. Each wait
 * is the one the loop made when it ran in a thread with a tlm_quantumkeeper: PMBIRQ and
 * PMUIRQ changes are driven with SystemC at the unit's time (a delta cycle when it is there
 * already), the lead is given up when the unit reaches the next quantum boundary
 * (next_sync_), and in lockstep (AT writes pending, or a quantum of at most one clock period
 * with memory timing) at each edge. A call goes on at the point after the wait it asked for
 * (the switch), then stays in the loop below; the stages only name those points.
 */
bool Pe::step(uint64_t *resume)
{
    spu_t *spu = spu_.unit();
    const uint64_t rate = cfg_.ops_per_cycle;
    uint64_t t;
    switch (stage_) {
    case Stage::Start:
        synced();
        if (!begin_session()) {
            stage_ = Stage::Done;
            return false;
        }
        // A quantum of at most one clock period with memory timing (LT or AT): no temporal
        // decoupling of the unit's TLM writes either. Their edges (the events of
        // spu_cycles_to_next_event()) are made with SystemC at the edge's time, as the
        // RTL-clocked PE makes them (rtl/pe_rtl.cpp), so they reach the bus in the same order
        // relative to other initiators (background traffic): the bus books transfers in the
        // order they are made.
        write_sync_ = spu_.timing() != BufferTiming::Off && cfg_.quantum <= spu_.period();
        if (spu_.irq_changed())
            return wait_for(model_ticks(), Stage::HandlerIrq, resume);
        break;
    case Stage::HandlerIrq: // after the handler (or the start): PMBIRQ at the unit's time
        synced();
        spu_.flush_irq();
        break;
    case Stage::Edge:
        synced();
        goto edge;
    case Stage::PmuIrq:
        synced();
        pmu_->flush_irq();
        goto count;
    case Stage::Irq:
        synced();
        spu_.flush_irq();
        goto quantum;
    case Stage::Synced:
        synced();
        progress_tick(last_progress_);
        break;
    case Stage::StopIrq:
        synced();
        lead_ = 0;
        spu_.flush_irq();
        goto stop_pmu;
    case Stage::StopPmuIrq:
        synced();
        lead_ = 0;
        pmu_->flush_irq();
        goto stop_sync;
    case Stage::StopEnd:
        spu_.reschedule();
        finish();
        stage_ = Stage::Done;
        return false;
    case Stage::Done:
        return false;
    }

    while (done_ < cfg_.ops) {
        if (handler_due()) {
            service_irq();
            catch_up();
            if (spu_.irq_changed())
                return wait_for(model_ticks(), Stage::HandlerIrq, resume);
            continue;
        }
        {
            // The unit step: a sampled operation retired, or a run of unsampled ones reported
            // with spu_skip(), up to the unit's next event and the handler's start.
            uint64_t remaining = cfg_.ops - done_, step;
            uint64_t k = spu_ops_until_sample(spu);
            at_lockstep_ = spu_.timing() == BufferTiming::At && spu_.at_outstanding();
            if (k == 0) {
                spu_op op;
                next_op(done_, op);
                spu_retire(spu, &op);
                step = 1;
            } else {
                uint64_t cyc = spu_cycles_to_next_event(spu);
                if (irq_seen_) {
                    uint64_t due = irq_at_ + cfg_.irq_latency - spu_now(spu);
                    if (due < cyc)
                        cyc = due ? due : 1;
                }
                // AT memory timing: a pending write's answer comes from SystemC (its BEGIN_RESP
                // at time T), and it must find the unit no later than T. With writes pending
                // the PE gives up temporal decoupling: one cycle at a time, synchronised after
                // each, so the answer takes effect within the cycle it arrives in (not up to a
                // quantum late).
                if (at_lockstep_ && cyc > 1)
                    cyc = 1;
                step = k < remaining ? k : remaining;
                if (rate == 1) {
                    // One operation a cycle (the general case below, without its divisions):
                    // at most `cyc` operations, none when the event is due now.
                    if (cyc < step)
                        step = cyc;
                } else {
                    uint64_t lim = wl_ops_before_event(rate, done_, cyc);
                    if (lim < step)
                        step = lim;
                }
                if (k != UINT64_MAX)
                    step = spu_skip(spu, step);
                if (!step)
                    step = 1;
            }
            step_ = step;
            cycles_ = rate == 1 ? step : (done_ + step) / rate - done_ / rate;
        }
        if (cycles_) {
            if (write_sync_) {
                if (cycles_ > 1)
                    spu_advance(spu, cycles_ - 1);
                t = model_ticks();
                if (spu_cycles_to_next_event(spu) == 1 && t > sc_at_)
                    return wait_for(t, Stage::Edge, resume); // the edge that may write, at its time
            edge:
                spu_advance(spu, 1);
            } else {
                spu_advance(spu, cycles_);
            }
            if (pmu_ && pmu_catch_up()) // the PMU counts the PE's cycles; then PMUIRQ
                return wait_for(model_ticks(), Stage::PmuIrq, resume);
        }
    count:
        done_ += step_;
        if (spu_.irq_changed())
            return wait_for(model_ticks(), Stage::Irq, resume);
    quantum:
        // The unit's lead over SystemC is given up when it reaches the next sync point. (In
        // lockstep, a step within the cycle, whose unit time is SystemC's, does not wait a
        // delta cycle: the cycle's steps and its edge are made in one evaluation, and an AT
        // answer arriving at that time in a later delta cycle takes effect after the edge,
        // however many samples the cycle has; the RTL-clocked PE does the same.)
        t = model_ticks();
        if ((at_lockstep_ && t > sc_at_) || t >= next_sync_) {
            lead_unset_ = false;
            return wait_for(t, Stage::Synced, resume, !at_lockstep_ && !write_sync_);
        }
        lead_unset_ = true;
        progress_tick(last_progress_);
    }

    // The session ends as arm_spe_pmu_stop() ends it, and the PE's last wait is for the unit's
    // lead the loop left (none when its last iteration synchronised).
    t = model_ticks();
    lead_ = lead_unset_ && t > sc_at_ ? t - sc_at_ : 0;
    agent_.stop();
    catch_up();
    if (spu_.irq_changed())
        return wait_for(model_ticks(), Stage::StopIrq, resume);
stop_pmu:
    if (pmu_ && pmu_catch_up())
        return wait_for(model_ticks(), Stage::StopPmuIrq, resume);
stop_sync:
    return wait_for(sc_at_ + lead_, Stage::StopEnd, resume);
}

} // namespace armprof
