// SPDX-License-Identifier: Apache-2.0
// traffic_gen.h: seeded background traffic on a bus (a share of its bandwidth in bursts) so the units' buffer writes contend.
#ifndef ARMPROF_PLATFORM_TRAFFIC_GEN_H
#define ARMPROF_PLATFORM_TRAFFIC_GEN_H

#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

namespace armprof {

/*
 * An LT initiator standing for the rest of an SoC's traffic (scenario bus.background_traffic).
 * It reads bursts of `burst_bytes` at random aligned addresses of [base, base + span) (reads:
 * the memory's contents stay the units' alone) and offers `share` of the bus port's bandwidth:
 * bursts are issued at gaps drawn uniformly from [0, 2 * burst_bytes / (share * bytes_per_ns)]
 * by a seeded xorshift generator (integer arithmetic, so every host draws the same gaps). It is
 * throttled like a real master: at most `outstanding` bursts in flight, so when the bus cannot
 * carry the offered load the generator falls behind its schedule (time stretches) instead of
 * queueing without bound. Temporally decoupled with its own quantum keeper; stop() ends it.
 */
class TrafficGen : public sc_core::sc_module {
public:
    struct Config {
        double share = 0.25;         // of the bus bandwidth, (0, 1]
        uint32_t burst_bytes = 64;   // 1 .. 4096
        uint64_t seed = 1;
        uint64_t base = 0, span = 1 << 20; // addresses read (bus addresses)
        double bytes_per_ns = 16;    // the bus port's bandwidth (> 0)
        unsigned outstanding = 8;    // bursts in flight at most
        sc_core::sc_time quantum = sc_core::sc_time(1, sc_core::SC_US);
    };
    tlm_utils::simple_initiator_socket<TrafficGen> sock;

    TrafficGen(sc_core::sc_module_name name, const Config &cfg);

    void stop() { stop_ = true; }
    bool idle() const { return done_; }

    struct Stats {
        uint64_t transactions = 0, bytes = 0, errors = 0;
        sc_core::sc_time latency_sum, latency_max; // b_transport's annotated delay
        sc_core::sc_time behind;                   // sum of issue slips behind the schedule
    };
    const Stats &stats() const { return st_; }

private:
    void run();
    uint64_t next_rand();

    Config cfg_;
    bool stop_ = false, done_ = false;
    uint64_t rng_;
    Stats st_;
    tlm_utils::tlm_quantumkeeper qk_;
    std::vector<uint8_t> buf_;
};

} // namespace armprof

#endif
