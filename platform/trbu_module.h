// SPDX-License-Identifier: Apache-2.0
// trbu_module.h: thin SystemC/TLM-2.0 wrapper of the TRBU C model (trace buffer writes, registers, TRBIRQ, event scheduling).
#ifndef ARMPROF_PLATFORM_TRBU_MODULE_H
#define ARMPROF_PLATFORM_TRBU_MODULE_H

#include <cstdint>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "ap_tlm.h"
#include "armprof/trbu.h"

namespace armprof {

/*
 * Owns one trbu_t and translates, as SpuModule does for the SPU; the unit's behaviour (Fill /
 * Wrap / Circular modes, triggers, flushes, faults, TRBSR_ELx) stays in the C model.
 *  - mem: every trace buffer write (armprof_host_ops.mem_write) becomes a TLM write carrying
 *    the owning translation regime in a regime_ext (D6.5: TRBPTR_EL1 is a VA of the owning
 *    regime, or a PA / IPA with TRBLIMITR_EL1.nVM); the answer (regime_ext::result) goes back to
 *    the model, which records it in TRBSR_ELx. DMI is used when granted, per regime.
 *  - regs: register access by TLM: offset = encoding * 8 (ARMPROF_SYSREG), 8-byte accesses.
 *  - irq: TRBIRQ (RVSCDV), a level.
 *  - time: the model counts cycles of `period`. The trace source that drives it calls
 *    advance_to(); otherwise the module wakes itself at trbu_cycles_to_next_event().
 */
class TrbuModule : public sc_core::sc_module {
public:
    tlm_utils::simple_initiator_socket<TrbuModule> mem; // trace buffer writes
    tlm_utils::simple_target_socket_optional<TrbuModule> regs; // System registers by encoding * 8
    sc_core::sc_out<bool> irq;                          // TRBIRQ
    sc_core::sc_signal<sc_dt::uint64, sc_core::SC_MANY_WRITERS> sig_trbptr; // TRBPTR_EL1 (waves)

    TrbuModule(sc_core::sc_module_name name, const trbu_config &cfg,
               sc_core::sc_time period = sc_core::sc_time(1, sc_core::SC_NS));
    ~TrbuModule() override;

    trbu_t *unit() { return trbu_; }
    sc_core::sc_time period() const { return period_; }
    void set_dmi(bool on) { use_dmi_ = on; dmi_valid_ = false; }

    // CPU-side interface (at the model's current time).
    armprof_err reg_read(uint32_t enc, uint64_t *val);
    armprof_err reg_write(uint32_t enc, uint64_t val);
    armprof_err set_pe_context(const armprof_pe_ctx &ctx);
    // The unit's PMU outputs (armprof_host_ops.event / .pmu_freeze), e.g. a PmuModule's
    // event_sink / freeze_sink with user = pmu.unit(); nullptr drops them.
    void connect_pmu(armprof_event_fn event, armprof_pmu_freeze_fn freeze, void *user)
    {
        ev_fn_ = event;
        fz_fn_ = freeze;
        ev_user_ = user;
    }
    // Warm reset of the unit (trbu_reset); TRBIRQ follows the reset TRBSR_EL1 at the next flush_irq().
    void reset();
    // TSB CSYNC (the driver's drain before it reads the pointers).
    void tsb_csync();

    void advance_to(const sc_core::sc_time &t);
    sc_core::sc_time model_time() const;
    bool irq_level() const { return level_; }
    bool irq_changed() const { return level_ != driven_; }
    void flush_irq();
    void reschedule();
    // Reads the buffer through the memory path with the owning regime (debug, untimed).
    size_t debug_read(const armprof_regime &rg, uint64_t addr, uint8_t *buf, size_t len);

    struct Stats {
        uint64_t writes = 0, bytes = 0, dmi_writes = 0, tlm_writes = 0, faults = 0, aborts = 0;
        uint64_t irq_edges = 0;
        sc_core::sc_time bus_time;
    };
    const Stats &stats() const
    {
        st_.bus_time = tlm_time_ + sc_core::sc_time((double)dmi_time_, sc_core::SC_PS);
        return st_;
    }

private:
    static armprof_mem_result cb_write(void *user, uint64_t addr, const uint8_t *data, uint32_t len,
                                       const armprof_regime *rg);
    static void cb_irq(void *user, bool level);
    static void cb_event(void *user, uint16_t event, uint64_t count);
    static void cb_freeze(void *user);
    armprof_mem_result write(uint64_t addr, const uint8_t *data, uint32_t len, const armprof_regime &rg);
    void regs_b_transport(tlm::tlm_generic_payload &trans, sc_core::sc_time &delay);
    void invalidate(sc_dt::uint64 lo, sc_dt::uint64 hi);
    void on_wake();
    void update_ptr_signal();

    trbu_t *trbu_ = nullptr;
    sc_core::sc_time period_;
    bool level_ = false, driven_ = false;
    bool use_dmi_ = true, dmi_valid_ = false;
    tlm::tlm_dmi dmi_;
    armprof_regime dmi_rg_{};
    sc_core::sc_event wake_;
    armprof_event_fn ev_fn_ = nullptr;
    armprof_pmu_freeze_fn fz_fn_ = nullptr;
    void *ev_user_ = nullptr;
    tlm::tlm_generic_payload gp_;
    regime_ext ext_;
    mutable Stats st_;
    sc_core::sc_time tlm_time_;
    uint64_t dmi_time_ = 0, dmi_latency_ps_ = 0;
};

} // namespace armprof

#endif
