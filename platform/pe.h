// SPDX-License-Identifier: Apache-2.0
// pe.h: a processing element stand-in: retires a workload's operations into its SPU with temporal decoupling and runs the SPE driver.
#ifndef ARMPROF_PLATFORM_PE_H
#define ARMPROF_PLATFORM_PE_H

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm_utils/tlm_quantumkeeper.h>

#include "pmu_agent.h"
#include "pmu_module.h"
#include "spe_agent.h"
#include "spu_module.h"
#include "trace_file.h"
#include "workload.h"

namespace armprof {

class SpuRtl;

/*
 * One PE: an SC_THREAD that feeds operations from a workload generator (or a replayed operation
 * trace, Config::trace) to its SPU wrapper at
 * `ops_per_cycle`, reporting the unsampled runs with spu_skip() and stopping at each sample and
 * at each event the unit announces (spu_cycles_to_next_event), so the model sees the same
 * stimulus whatever the quantum. Time runs ahead in a tlm_quantumkeeper and is synchronised at
 * the end of each quantum and whenever PMBIRQ changes, so the edge is seen at its true time.
 * The SPE driver (SpeAgent) runs on this PE: `irq_latency` cycles after PMBIRQ rises, its
 * handler runs (the workload keeps retiring in between, as on a real PE before it takes the
 * interrupt).
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
    // The RTL sampler this PE is clocked against (spe.sampler: rtl), or nullptr.
    const SpuRtl *rtl() const { return cfg_.rtl; }
    uint64_t ops_done() const { return done_; }
    sc_core::sc_event finished_event;

private:
    void run();
    void run_rtl();
    void sync_irq();
    void sync_to(uint64_t ticks);
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
    // The quantum keeper, with its next sync point readable as an integer.
    struct QuantumKeeper : tlm_utils::tlm_quantumkeeper {
        uint64_t next_sync_ticks() const { return m_next_sync_point.value(); }
    };
    QuantumKeeper qk_;
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
};

} // namespace armprof

#endif
