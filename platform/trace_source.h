// SPDX-License-Identifier: Apache-2.0
// trace_source.h: a synthetic trace unit (seeded trace-like bytes with Detected Triggers) driving a TRBU wrapper, with its coresight-trbe driver.
#ifndef ARMPROF_PLATFORM_TRACE_SOURCE_H
#define ARMPROF_PLATFORM_TRACE_SOURCE_H

#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm_utils/tlm_quantumkeeper.h>

#include "trbe_agent.h"
#include "trbu_module.h"

namespace armprof {

/*
 * Stands in for a PE's trace unit (ETE) and for the PE running the coresight-trbe driver: an
 * SC_THREAD hands bursts of trace-like bytes (1 .. 2 * mean_burst - 1 bytes, runs of repeated
 * packets with noise, the same generator as armprof-run --trbe) to the unit at
 * `bytes_per_cycle`, with a Detected Trigger every ~`trigger_every` bytes (0: none). Time runs
 * ahead in a tlm_quantumkeeper and is synchronised at each quantum and whenever TRBIRQ
 * changes; `irq_latency` cycles after TRBIRQ rises the driver's handler runs. At the end the
 * session stops as arm_trbe_update_buffer() stops it.
 */
class TraceSource : public sc_core::sc_module {
public:
    struct Config {
        uint64_t bytes = 1ull << 20;         // trace bytes to produce
        uint32_t mean_burst = 256;
        uint32_t bytes_per_cycle = 4;
        uint64_t trigger_every = 0;          // mean bytes between Detected Triggers, 0 = none
        uint64_t irq_latency = 2000;         // cycles from TRBIRQ to the handler
        uint64_t seed = 1;
        sc_core::sc_time quantum = sc_core::sc_time(1, sc_core::SC_US);
    };

    TraceSource(sc_core::sc_module_name name, const Config &cfg, TrbuModule &trbu, TrbeAgent &agent);

    bool done() const { return finished_; }
    uint64_t produced() const { return produced_; }
    uint64_t triggers() const { return triggers_; }
    sc_core::sc_event finished_event;

private:
    void run();
    void sync_irq();

    Config cfg_;
    TrbuModule &trbu_;
    TrbeAgent &agent_;
    tlm_utils::tlm_quantumkeeper qk_;
    size_t hand_over(trbu_t *t, const uint8_t *data, size_t len, std::vector<uint8_t> &held);
    uint64_t produced_ = 0, triggers_ = 0;
    bool finished_ = false;
};

} // namespace armprof

#endif
