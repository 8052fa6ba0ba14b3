// SPDX-License-Identifier: Apache-2.0
// pmu_module.h: thin SystemC/TLM-2.0 wrapper of the PMU C model (register socket, PMUIRQ, capture completion scheduling, event inputs).
#ifndef ARMPROF_PLATFORM_PMU_MODULE_H
#define ARMPROF_PLATFORM_PMU_MODULE_H

#include <cstdint>
#include <string>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "unit_clock.h"
#include "armprof/pmu.h"

namespace armprof {

/*
 * Owns one pmu_t; counting, freezing and PMU snapshots (FEAT_PMUv3_SS) stay in the C model.
 *  - regs (UnitClock, unit_clock.h): register access by TLM: offset = encoding * 8, 8-byte
 *    accesses (as SpuModule).
 *  - irq (UnitClock): PMUIRQ (overflow), a level.
 *  - events: units connect their armprof_host_ops.event / .pmu_freeze to event_sink() /
 *    freeze_sink() with user = unit() (the model's pmu_event_sink / pmu_freeze_sink).
 *  - time (UnitClock): the model counts cycles of `period` (CPU_CYCLES, capture latency) in integer
 *    SystemC ticks; the module wakes itself only at the earlier of pmu_cycles_to_next_event()
 *    (a Capture event completing) and pmu_cycles_to_overflow() (a counter of cycles
 *    overflowing), never per cycle.
 */
class PmuModule : public UnitClock<PmuModule> {
public:
    // regs, irq (PMUIRQ), period(), advance_to(t), model_time(), irq_level(), irq_changed(),
    // flush_irq(), reschedule(): UnitClock.

    PmuModule(sc_core::sc_module_name name, const pmu_config &cfg,
              sc_core::sc_time period = sc_core::sc_time(1, sc_core::SC_NS));
    ~PmuModule() override;

    pmu_t *unit() { return pmu_; }
    static constexpr armprof_event_fn event_sink = &pmu_event_sink;
    static constexpr armprof_pmu_freeze_fn freeze_sink = &pmu_freeze_sink;

    armprof_err reg_read(uint32_t enc, uint64_t *val);
    armprof_err reg_write(uint32_t enc, uint64_t val);
    // Direct accesses (no SystemC time of their own); during simulation they drive PMUIRQ and
    // reschedule the module's wake, as accesses through `regs` do.
    armprof_err set_pe_context(const armprof_pe_ctx &ctx);

private:
    friend class UnitClock<PmuModule>;
    std::string access_rule(uint32_t enc, bool write, armprof_err e) const;
    uint64_t clock_now() const { return pmu_now(pmu_); }
    void clock_advance(uint64_t n) { pmu_advance(pmu_, n); }
    // The one next thing the model cannot know it has reached unless woken: a Capture event
    // completing, or a counter of cycles overflowing (PMOVSSET_EL0, PMUIRQ). Nothing else needs
    // a wake: events arrive by calls, and pmu_advance() between them is O(1).
    uint64_t clock_next_event() const
    {
        uint64_t c = pmu_cycles_to_next_event(pmu_), o = pmu_cycles_to_overflow(pmu_);
        return o < c ? o : c;
    }

    pmu_t *pmu_ = nullptr;
};

} // namespace armprof

#endif
