// SPDX-License-Identifier: Apache-2.0
// pmu_agent.cpp: the arm_pmuv3 register sequence: reset, program event counters, enable, read, stop.
#include "pmu_agent.h"

#include "armprof/armprof.h"

namespace armprof {

namespace {
// PMCR_EL0 fields (Arm ARM D24.5.x PMCR_EL0).
constexpr uint64_t PMCR_E = 1ull << 0, PMCR_P = 1ull << 1, PMCR_C = 1ull << 2, PMCR_LC = 1ull << 6,
                   PMCR_LP = 1ull << 7;
constexpr unsigned PMCR_N_SHIFT = 11;
constexpr uint64_t PMCR_N_MASK = 0x1F;
constexpr uint64_t CYCLE_BIT = 1ull << PMU_CYCLE_COUNTER_ID;
} // namespace

uint64_t PmuAgent::rd(uint32_t enc)
{
    uint64_t v = 0;
    rd_(enc, &v);
    return v;
}

void PmuAgent::wr(uint32_t enc, uint64_t v) { wr_(enc, v); }

bool PmuAgent::start(const std::vector<uint16_t> &events)
{
    uint64_t n = (rd(PMU_PMCR_EL0) >> PMCR_N_SHIFT) & PMCR_N_MASK;
    if (events.size() > n)
        return false;
    // armv8pmu_reset(): nothing counts, interrupts off, overflow flags clear.
    wr(PMU_PMCNTENCLR_EL0, ~0ull);
    wr(PMU_PMINTENCLR_EL1, ~0ull);
    wr(PMU_PMOVSCLR_EL0, ~0ull);
    events_ = events;
    enabled_ = CYCLE_BIT;
    for (unsigned i = 0; i < events.size(); i++) {
        wr(PMU_PMEVTYPER_EL0(i), events[i]);
        enabled_ |= 1ull << i;
    }
    wr(PMU_PMCCFILTR_EL0, 0);
    wr(PMU_PMCR_EL0, PMCR_E | PMCR_P | PMCR_C | PMCR_LC | PMCR_LP);
    wr(PMU_PMCNTENSET_EL0, enabled_);
    running_ = true;
    return true;
}

void PmuAgent::stop()
{
    if (!running_)
        return;
    wr(PMU_PMCNTENCLR_EL0, enabled_);
    running_ = false;
}

uint64_t PmuAgent::read(unsigned counter) { return rd(PMU_PMEVCNTR_EL0(counter)); }

uint64_t PmuAgent::cycles() { return rd(PMU_PMCCNTR_EL0); }

const char *pmu_event_name(uint16_t event)
{
    switch (event) {
    case ARMPROF_EV_SAMPLE_POP: return "SAMPLE_POP";
    case ARMPROF_EV_SAMPLE_FEED: return "SAMPLE_FEED";
    case ARMPROF_EV_SAMPLE_FILTRATE: return "SAMPLE_FILTRATE";
    case ARMPROF_EV_SAMPLE_COLLISION: return "SAMPLE_COLLISION";
    case ARMPROF_EV_TRB_WRAP: return "TRB_WRAP";
    case ARMPROF_EV_TRB_TRIG: return "TRB_TRIG";
    case ARMPROF_EV_PMU_SNAPSHOT: return "PMU_SNAPSHOT";
    case PMU_EV_CPU_CYCLES: return "CPU_CYCLES";
    case PMU_EV_INST_RETIRED: return "INST_RETIRED";
    default: return "other";
    }
}

} // namespace armprof
