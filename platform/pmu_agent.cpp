// SPDX-License-Identifier: Apache-2.0
// pmu_agent.cpp: the arm_pmuv3 register sequence: reset, program event counters, enable, read, stop.
#include "pmu_agent.h"

#include "armprof/armprof.h"
#include "armprof/sysreg.h" // PMCR_EL0_E, PMCNTENSET_EL0_C, ...

namespace armprof {


uint64_t PmuAgent::rd(uint32_t enc)
{
    uint64_t v = 0;
    rd_(enc, &v);
    return v;
}

void PmuAgent::wr(uint32_t enc, uint64_t v) { wr_(enc, v); }

bool PmuAgent::start(const std::vector<uint16_t> &events)
{
    uint64_t n = ap_field_get(PMCR_EL0_N, rd(PMU_PMCR_EL0));
    if (events.size() > n)
        return false;
    // armv8pmu_reset(): nothing counts, interrupts off, overflow flags clear.
    wr(PMU_PMCNTENCLR_EL0, ~0ull);
    wr(PMU_PMINTENCLR_EL1, ~0ull);
    wr(PMU_PMOVSCLR_EL0, ~0ull);
    events_ = events;
    enabled_ = PMCNTENSET_EL0_C;
    for (unsigned i = 0; i < events.size(); i++) {
        wr(PMU_PMEVTYPER_EL0(i), events[i]);
        enabled_ |= 1ull << i;
    }
    wr(PMU_PMCCFILTR_EL0, 0);
    wr(PMU_PMCR_EL0, PMCR_EL0_E | PMCR_EL0_P | PMCR_EL0_C | PMCR_EL0_LC | PMCR_EL0_LP);
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
