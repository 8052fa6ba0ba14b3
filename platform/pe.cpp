// SPDX-License-Identifier: Apache-2.0
// pe.cpp: workload-driven PE with quantum keeper and the SPE driver's interrupt handling.
#include "pe.h"

namespace armprof {

using namespace sc_core;

Pe::Pe(sc_module_name name, const Config &cfg, SpuModule &spu, SpeAgent &agent)
    : sc_module(name), cfg_(cfg), spu_(spu), agent_(agent)
{
    if (!cfg_.ops_per_cycle)
        cfg_.ops_per_cycle = 1;
    wl_init(&gen_, &cfg_.wl);
    progress_step_ = cfg_.ops / 100 + 1;
    period_ticks_ = spu_.period().value();
    qk_.set_global_quantum(cfg_.quantum); // every PE sets the same global quantum
    SC_HAS_PROCESS(Pe);
    SC_THREAD(run);
}

// Bring SystemC time to the model's time, then drive PMBIRQ.
void Pe::sync_irq()
{
    if (!spu_.irq_changed())
        return;
    uint64_t t = model_ticks(), now = sc_time_stamp().value();
    qk_.set(sc_time::from_value(t > now ? t - now : 0));
    qk_.sync();
    spu_.flush_irq();
}

// SystemC time to t ticks when it is behind (the quantum keeper's local time is then zero).
void Pe::sync_to(uint64_t t)
{
    uint64_t now = sc_time_stamp().value();
    if (t > now) {
        qk_.set(sc_time::from_value(t - now));
        qk_.sync();
    }
}

// The PMU counts the PE's cycles: bring it to the SPU's cycle count, then drive PMUIRQ.
void Pe::sync_pmu()
{
    pmu_t *pm = pmu_->unit();
    uint64_t s = spu_now(spu_.unit()), m = pmu_now(pm);
    if (s > m)
        pmu_advance(pm, s - m);
    if (pmu_->irq_changed()) {
        uint64_t t = model_ticks(), now = sc_time_stamp().value();
        qk_.set(sc_time::from_value(t > now ? t - now : 0));
        qk_.sync();
        pmu_->flush_irq();
    }
}

void Pe::stop_pmu()
{
    if (!pmu_)
        return;
    // Outside the PE's thread: no quantum keeper here, the PMU only catches up in cycles.
    uint64_t s = spu_now(spu_.unit()), m = pmu_now(pmu_->unit());
    if (s > m)
        pmu_advance(pmu_->unit(), s - m);
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

void Pe::run()
{
    if (cfg_.rtl)
        return run_rtl();
    qk_.reset();
    if (!begin_session())
        return;
    sync_irq();
    const uint64_t rate = cfg_.ops_per_cycle;
    spu_t *spu = spu_.unit();
    uint64_t last_progress = 0;
    bool at_lockstep = false, lead_unset = false;
    // A quantum of at most one clock period with memory timing (LT or AT): no temporal
    // decoupling of the unit's TLM writes either. Their edges (the events of spu_cycles_to_next_event()) are
    // made with SystemC at the edge's time, as the RTL-clocked PE makes them (rtl/pe_rtl.cpp),
    // so they reach the bus in the same order relative to other initiators (background
    // traffic): the bus books transfers in the order they are made.
    const bool write_sync = spu_.timing() != BufferTiming::Off && cfg_.quantum <= spu_.period();
    while (done_ < cfg_.ops) {
        if (handler_due()) {
            service_irq();
            sync_irq();
            continue;
        }
        uint64_t remaining = cfg_.ops - done_;
        uint64_t step;
        uint64_t k = spu_ops_until_sample(spu);
        at_lockstep = spu_.timing() == BufferTiming::At && spu_.at_outstanding();
        if (k == 0) {
            spu_op op;
            next_op(done_, op);
            spu_retire(spu, &op);
            step = 1;
        } else {
            // Stop at the unit's next event and at the handler's start.
            uint64_t cyc = spu_cycles_to_next_event(spu);
            if (irq_seen_) {
                uint64_t due = irq_at_ + cfg_.irq_latency - spu_now(spu);
                if (due < cyc)
                    cyc = due ? due : 1;
            }
            // AT memory timing: a pending write's answer comes from SystemC (its BEGIN_RESP at
            // time T), and it must find the unit no later than T. With writes pending the PE
            // gives up temporal decoupling: one cycle at a time, synchronised after each, so the
            // answer takes effect within the cycle it arrives in (not up to a quantum late).
            if (at_lockstep && cyc > 1)
                cyc = 1;
            step = k < remaining ? k : remaining;
            if (rate == 1) {
                // One operation a cycle (the general case below, without its divisions): at
                // most `cyc` operations, none when the event is due now.
                if (cyc < step)
                    step = cyc;
            } else if (cyc != UINT64_MAX) {
                uint64_t in_cycle = rate - done_ % rate;
                uint64_t lim = cyc > (UINT64_MAX - in_cycle) / rate ? UINT64_MAX : in_cycle + (cyc - (cyc ? 1 : 0)) * rate;
                if (cyc == 0)
                    lim = in_cycle - 1;
                if (lim < step)
                    step = lim;
            }
            if (k != UINT64_MAX)
                step = spu_skip(spu, step);
            if (!step)
                step = 1;
        }
        uint64_t cycles = rate == 1 ? step : (done_ + step) / rate - done_ / rate;
        if (cycles) {
            if (write_sync) {
                if (cycles > 1)
                    spu_advance(spu, cycles - 1);
                if (spu_cycles_to_next_event(spu) == 1)
                    sync_to(model_ticks()); // the edge that may write, at its time
                spu_advance(spu, 1);
            } else {
                spu_advance(spu, cycles);
            }
            if (pmu_)
                sync_pmu();
        }
        done_ += step;
        sync_irq();
        // The quantum keeper's local time is the unit's lead over SystemC, and it needs a sync
        // when the unit reaches the next sync point (need_sync(): now + local >= next). Set only
        // when it is used (here, or after the loop) rather than on every step: the same waits.
        // (In lockstep, a step within the cycle, whose unit time is SystemC's, does not wait a
        // delta cycle: the cycle's steps and its edge are made in one evaluation, and an AT
        // answer arriving at that time in a later delta cycle takes effect after the edge,
        // however many samples the cycle has; the RTL-clocked PE does the same.)
        uint64_t t = model_ticks();
        if ((at_lockstep && t > sc_time_stamp().value()) || t >= qk_.next_sync_ticks()) {
            qk_.set(sc_time::from_value(t - sc_time_stamp().value()));
            qk_.sync();
            lead_unset = false;
        } else {
            lead_unset = true;
        }
        progress_tick(last_progress);
    }
    if (lead_unset) // SystemC time has not moved since the last step
        qk_.set(sc_time::from_value(model_ticks() - sc_time_stamp().value()));
    // The session ends as arm_spe_pmu_stop() ends it.
    agent_.stop();
    sync_irq();
    if (pmu_)
        sync_pmu();
    qk_.sync();
    spu_.reschedule();
    finish();
}

} // namespace armprof
