// SPDX-License-Identifier: Apache-2.0
// pmu_module.h: thin SystemC/TLM-2.0 wrapper of the PMU C model (register socket, PMUIRQ, capture completion scheduling, event inputs).
#ifndef ARMPROF_PLATFORM_PMU_MODULE_H
#define ARMPROF_PLATFORM_PMU_MODULE_H

#include <cstdint>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "armprof/pmu.h"

namespace armprof {

/*
 * Owns one pmu_t; counting, freezing and PMU snapshots (FEAT_PMUv3_SS) stay in the C model.
 *  - regs: register access by TLM: offset = encoding * 8, 8-byte accesses (as SpuModule).
 *  - irq: PMUIRQ (overflow), a level.
 *  - events: units connect their armprof_host_ops.event / .pmu_freeze to event_sink() /
 *    freeze_sink() with user = unit() (the model's pmu_event_sink / pmu_freeze_sink).
 *  - time: the model counts cycles of `period` (CPU_CYCLES, capture latency) in integer
 *    SystemC ticks; the module wakes itself only at the earlier of pmu_cycles_to_next_event()
 *    (a Capture event completing) and pmu_cycles_to_overflow() (a counter of cycles
 *    overflowing), never per cycle.
 */
class PmuModule : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket_optional<PmuModule> regs;
    sc_core::sc_out<bool> irq;

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

    void advance_to(const sc_core::sc_time &t);
    sc_core::sc_time model_time() const;
    bool irq_level() const { return level_; }
    bool irq_changed() const { return level_ != driven_; }
    void flush_irq();
    void reschedule();

private:
    static void cb_irq(void *user, bool level);
    void regs_b_transport(tlm::tlm_generic_payload &trans, sc_core::sc_time &delay);
    void on_wake();

    pmu_t *pmu_ = nullptr;
    sc_core::sc_time period_;
    bool level_ = false, driven_ = false;
    sc_core::sc_event wake_;
};

} // namespace armprof

#endif
