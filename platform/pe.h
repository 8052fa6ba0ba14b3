// SPDX-License-Identifier: Apache-2.0
// pe.h: a processing element stand-in: retires a workload's operations into its SPU with temporal decoupling and runs the SPE driver.
#ifndef ARMPROF_PLATFORM_PE_H
#define ARMPROF_PLATFORM_PE_H

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <systemc>

#include "pmu_agent.h"
#include "pmu_module.h"
#include "spe_agent.h"
#include "spu_module.h"
#include "trace_file.h"
#include "workload.h"

namespace armprof {

class SpuRtl;

/*
 * One PE: feeds operations from a workload generator (or a replayed operation trace,
 * Config::trace) to its SPU wrapper at `ops_per_cycle`, reporting the unsampled runs with
 * spu_skip() and stopping at each sample and at each event the unit announces
 * (spu_cycles_to_next_event), so the model sees the same stimulus whatever the quantum. Time
 * runs ahead of SystemC (temporal decoupling, the TLM-2.0 global quantum) and is synchronised
 * when the unit reaches the end of the quantum and whenever PMBIRQ or PMUIRQ changes, so the
 * edge is seen at its true time. The SPE driver (SpeAgent) runs on this PE: `irq_latency`
 * cycles after PMBIRQ rises, its handler runs (the workload keeps retiring in between, as on a
 * real PE before it takes the interrupt).
 *
 * The loop is resumable (step()): it returns each time it needs SystemC time to reach a point
 * before it can go on. Two drivers run it, with the same waits: the PE's own SC_THREAD
 * (Config::own_thread; AT memory timing, whose PSB CSYNC waits for answers inside the driver's
 * handler, and the RTL sampler), or a PeGroup (pe_group.h), one SC_THREAD that runs the
 * transaction-level PEs of an LT or functional platform in PE index order.
 */
class Pe : public sc_core::sc_module {
public:
    struct Config {
        unsigned index = 0;
        uint64_t ops = 10000000;
        uint32_t ops_per_cycle = 1;
        uint64_t irq_latency = 2000;          // cycles from PMBIRQ to the handler
        sc_core::sc_time quantum = sc_core::sc_time(1, sc_core::SC_US);
        wl_config wl;
        // Replay: operation i of the population is trace->ops[i % trace->count] (the synthetic
        // generator is not used); the caller keeps the trace alive.
        const wl_trace *trace = nullptr;
        std::function<void(double)> progress; // fraction done, called every ~1%
        SpuRtl *rtl = nullptr;                // spe.sampler rtl: clocked against it (rtl/pe_rtl.cpp)
        bool own_thread = true;               // false: a PeGroup calls step() (not with rtl)
    };

    Pe(sc_core::sc_module_name name, const Config &cfg, SpuModule &spu, SpeAgent &agent);

    // The PE's PMU and the perf session that counts `events` on it (before elaboration ends):
    // counting starts before the SPE session and stops at stop_pmu(); the PMU's cycles follow the
    // SPU's (same clock); PMUIRQ is driven with the PE's time; the SPE freeze level
    // (PMBLIMITR_EL1.PMFZ) drops when the SPE driver has cleared PMBSR_EL1.S.
    void attach_pmu(PmuModule &pmu, PmuAgent &agent, std::vector<uint16_t> events)
    {
        pmu_ = &pmu;
        pmu_agent_ = &agent;
        pmu_events_ = std::move(events);
    }
    // False when the PMU has fewer counters than events (the session then counts nothing).
    bool pmu_counting() const { return pmu_ok_; }
    // Ends the PMU session once the units are idle (records of the last samples complete after
    // the SPE session stops, and count SAMPLE_FILTRATE then).
    void stop_pmu();

    bool done() const { return finished_; }
    // Runs the PE until it needs SystemC time to reach *resume (integer ticks, >= now; equal to
    // now: after a delta cycle) before it can go on, and returns true; false once it has
    // finished (nothing more to run). Called again at that time, it goes on where it stopped.
    bool step(uint64_t *resume);
    // Whether the wait step() last asked for only gives up the unit's lead at the end of a
    // quantum (no interrupt edge, no lockstep): see PeGroup.
    bool resume_elidable() const { return elidable_; }
    // False when a PeGroup runs this PE (Config::own_thread).
    bool own_thread() const { return cfg_.own_thread; }
    // The RTL sampler this PE is clocked against (spe.sampler: rtl), or nullptr.
    const SpuRtl *rtl() const { return cfg_.rtl; }
    uint64_t ops_done() const { return done_; }
    sc_core::sc_event finished_event;

private:
    // Where step() goes on after the SystemC wait it asked for (the loop of one iteration:
    // handler, unit step, PMU, PMBIRQ, quantum; then the session's end).
    enum class Stage : uint8_t { Start, HandlerIrq, Edge, PmuIrq, Irq, Synced, StopIrq, StopPmuIrq, StopEnd, Done };
    void run();
    void run_rtl();
    // step(): asks for SystemC time `t` (at least the PE's, sc_at_), going on at `next`.
    // `elidable`: a quantum synchronisation, which a PeGroup may run without waiting when
    // nothing else in SystemC has anything to do before `t` (pe_group.h).
    bool wait_for(uint64_t t, Stage next, uint64_t *resume, bool elidable = false)
    {
        *resume = t > sc_at_ ? t : sc_at_;
        sc_at_ = *resume;
        elidable_ = elidable;
        stage_ = next;
        return true;
    }
    // After a driver call that may wait inside (AT: PSB CSYNC, BufferPort::settle()), in the
    // PE's own thread: the PE is where SystemC is.
    void catch_up()
    {
        uint64_t now = sc_core::sc_time_stamp().value();
        if (now > sc_at_)
            sc_at_ = now;
    }
    // After a wait: the next synchronisation point is the end of the global quantum that holds
    // the PE's SystemC time (tlm_global_quantum::compute_local_quantum()).
    void synced() { next_sync_ = quantum_ticks_ ? (sc_at_ / quantum_ticks_ + 1) * quantum_ticks_ : sc_at_; }
    // The PMU counts the PE's cycles: brought to the SPU's cycle count; true when PMUIRQ then
    // changes (to be driven with SystemC at the unit's time).
    bool pmu_catch_up();
    // run_rtl(): pmu_catch_up(), then PMUIRQ with SystemC at the unit's time.
    void sync_pmu();
    // Shared by run() and run_rtl(): the driver's probe and start (after the PMU session);
    // false (and finished) when the unit is absent.
    bool begin_session();
    // PMBIRQ has been high for irq_latency cycles: the driver's handler is due.
    bool handler_due();
    // The driver's PMBIRQ handler (and the end of the SPE freeze of the PMU).
    void service_irq();
    // Operation `index` of the population: the trace's line, or the generator's next operation.
    void next_op(uint64_t index, spu_op &op);
    void finish();
    // The unit's time in SystemC ticks: SpuModule::model_time() in integers (the same value
    // while it is below 2^52 ticks, 75 simulated minutes at 1 ps, as sc_time * double rounds
    // an exact product; exact beyond).
    uint64_t model_ticks() { return spu_now(spu_.unit()) * period_ticks_; }
    void progress_tick(uint64_t &last);

    Config cfg_;
    SpuModule &spu_;
    SpeAgent &agent_;
    wl_gen gen_;
    PmuModule *pmu_ = nullptr;
    PmuAgent *pmu_agent_ = nullptr;
    std::vector<uint16_t> pmu_events_;
    bool pmu_ok_ = false;
    uint64_t done_ = 0;
    bool irq_seen_ = false;   // PMBIRQ seen high, handler pending
    uint64_t irq_at_ = 0;     // SPU cycle it was seen
    bool finished_ = false;
    uint64_t progress_step_ = 1; // operations between progress callbacks
    uint64_t period_ticks_ = 1;  // the unit's clock period in SystemC ticks
    // step()'s state between calls.
    Stage stage_ = Stage::Start;
    uint64_t quantum_ticks_ = 0; // the global quantum in SystemC ticks
    uint64_t next_sync_ = 0;     // SystemC ticks at which the unit's lead must be given up
    uint64_t lead_ = 0;          // the session's end: the unit's lead over SystemC to wait for
    // The SystemC time the PE is at: where its last wait ended. A PeGroup may run a PE before
    // SystemC gets there (an elided wait): the PE's own decisions (the next sync point, its
    // lead at the end, lockstep edges) are taken from here, and its writes carry the unit's
    // time as their offset from SystemC's, so they land at the same time either way.
    uint64_t sc_at_ = 0;
    bool elidable_ = false;
    uint64_t step_ = 0, cycles_ = 0; // the iteration's operations and cycles
    uint64_t last_progress_ = 0;
    bool lead_unset_ = false;    // the last iteration did not synchronise
    bool at_lockstep_ = false;   // AT writes pending: one cycle at a time
    bool write_sync_ = false;    // TLM writes made with SystemC at their edge's time
};

} // namespace armprof

#endif
