// SPDX-License-Identifier: Apache-2.0
// pmu_agent.h: software that programs and reads the PMU event counters as Linux's arm_pmuv3 driver does for a perf session (no SystemC in it).
#ifndef ARMPROF_PLATFORM_PMU_AGENT_H
#define ARMPROF_PLATFORM_PMU_AGENT_H

#include <cstdint>
#include <functional>
#include <vector>

#include "armprof/pmu.h"

namespace armprof {

/*
 * The register sequence of a perf session on the PMU (arm_pmuv3: armv8pmu_reset,
 * armv8pmu_enable_event, armv8pmu_start), reduced to what the platform needs:
 *  - start(events): PMCR_EL0.N must cover the events; PMCNTENCLR_EL0 / PMINTENCLR_EL1 /
 *    PMOVSCLR_EL0 all ones, then for each event i: PMEVTYPER<i>_EL0 = event (filters 0: count
 *    at EL1 and EL0, not at EL2, NSH = 0), PMCCFILTR_EL0 = 0, PMCNTENSET_EL0 = the counters
 *    and C, PMCR_EL0 = E | P | C | LC | LP (64-bit counters, reset to zero);
 *  - read(i) / cycles(): PMEVCNTR<i>_EL0 / PMCCNTR_EL0;
 *  - stop(): PMCNTENCLR_EL0 of every counter it enabled (the values stay readable).
 */
class PmuAgent {
public:
    using RegRead = std::function<armprof_err(uint32_t, uint64_t *)>;
    using RegWrite = std::function<armprof_err(uint32_t, uint64_t)>;

    PmuAgent(RegRead rd, RegWrite wr) : rd_(std::move(rd)), wr_(std::move(wr)) {}

    // False (and nothing programmed) when PMCR_EL0.N is smaller than events.size().
    bool start(const std::vector<uint16_t> &events);
    void stop();
    uint64_t read(unsigned counter);
    uint64_t cycles();
    const std::vector<uint16_t> &events() const { return events_; }
    bool running() const { return running_; }

private:
    uint64_t rd(uint32_t enc);
    void wr(uint32_t enc, uint64_t v);

    RegRead rd_;
    RegWrite wr_;
    std::vector<uint16_t> events_;
    uint64_t enabled_ = 0;
    bool running_ = false;
};

// The events the platform counts on each PE's PMU, and their names (summary keys).
const char *pmu_event_name(uint16_t event);

} // namespace armprof

#endif
