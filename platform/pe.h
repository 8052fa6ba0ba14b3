// SPDX-License-Identifier: Apache-2.0
// pe.h: a processing element stand-in: retires a workload's operations into its SPU with temporal decoupling and runs the SPE driver.
#ifndef ARMPROF_PLATFORM_PE_H
#define ARMPROF_PLATFORM_PE_H

#include <cstdint>
#include <functional>
#include <memory>

#include <systemc>
#include <tlm_utils/tlm_quantumkeeper.h>

#include "spe_agent.h"
#include "spu_module.h"
#include "workload.h"

namespace armprof {

class SpuRtl;

/*
 * One PE: an SC_THREAD that feeds operations from a workload generator to its SPU wrapper at
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
        std::function<void(double)> progress; // fraction done, called every ~1%
        SpuRtl *rtl = nullptr;                // spe.sampler rtl: clocked against it (rtl/pe_rtl.cpp)
    };

    Pe(sc_core::sc_module_name name, const Config &cfg, SpuModule &spu, SpeAgent &agent);

    bool done() const { return finished_; }
    uint64_t ops_done() const { return done_; }
    sc_core::sc_event finished_event;

private:
    void run();
    void run_rtl();
    void sync_irq();

    Config cfg_;
    SpuModule &spu_;
    SpeAgent &agent_;
    tlm_utils::tlm_quantumkeeper qk_;
    wl_gen gen_;
    uint64_t done_ = 0;
    bool finished_ = false;
};

} // namespace armprof

#endif
