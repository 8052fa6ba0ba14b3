// SPDX-License-Identifier: Apache-2.0
// trbu_module.h: thin SystemC/TLM-2.0 wrapper of the TRBU C model (trace buffer writes, registers, TRBIRQ, event scheduling).
#ifndef ARMPROF_PLATFORM_TRBU_MODULE_H
#define ARMPROF_PLATFORM_TRBU_MODULE_H

#include <cstdint>
#include <string>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "ap_tlm.h"
#include "buffer_port.h"
#include "unit_clock.h"
#include "armprof/trbu.h"

namespace armprof {

/*
 * Owns one trbu_t and translates, as SpuModule does for the SPU; the unit's behaviour (Fill /
 * Wrap / Circular modes, triggers, flushes, faults, TRBSR_ELx) stays in the C model.
 *  - mem (BufferPort, buffer_port.h): every trace buffer write (armprof_host_ops.mem_write) becomes a TLM write carrying
 *    the owning translation regime in a regime_ext (D6.5: TRBPTR_EL1 is a VA of the owning
 *    regime, or a PA / IPA with TRBLIMITR_EL1.nVM); the answer (regime_ext::result) goes back to
 *    the model, which records it in TRBSR_ELx. DMI is used when granted, per regime.
 *  - regs (UnitClock, unit_clock.h): register access by TLM: offset = encoding * 8
 *    (ARMPROF_SYSREG), 8-byte accesses.
 *  - irq (UnitClock): TRBIRQ (RVSCDV), a level.
 *  - time (UnitClock): the model counts cycles of `period`. The trace source that drives it
 *    calls advance_to(); otherwise the module wakes itself at trbu_cycles_to_next_event().
 */
class TrbuModule : public UnitClock<TrbuModule>, public BufferPort, public PmuOutputs {
public:
    // regs (System registers by encoding * 8), irq (TRBIRQ), period(), advance_to(t),
    // model_time(), irq_level(), irq_changed(), flush_irq(), reschedule(): UnitClock.
    sc_core::sc_signal<sc_dt::uint64, sc_core::SC_MANY_WRITERS> sig_trbptr; // TRBPTR_EL1 (waves)

    // timing: as SpuModule's (Lt by default, as armprof-vp's `timing: lt`).
    TrbuModule(sc_core::sc_module_name name, const trbu_config &cfg,
               sc_core::sc_time period = sc_core::sc_time(1, sc_core::SC_NS), BufferTiming timing = BufferTiming::Lt);
    ~TrbuModule() override;

    trbu_t *unit() { return trbu_; }

    // CPU-side interface (at the model's current time).
    armprof_err reg_read(uint32_t enc, uint64_t *val);
    armprof_err reg_write(uint32_t enc, uint64_t val);
    armprof_err set_pe_context(const armprof_pe_ctx &ctx);
    // Warm reset of the unit (trbu_reset); TRBIRQ follows the reset TRBSR_EL1 at the next flush_irq().
    void reset();
    // TSB CSYNC (the driver's drain before it reads the pointers).
    void tsb_csync();

protected:
    uint64_t unit_cycles() const override { return trbu_now(trbu_); }
    void on_mem_complete(const armprof_mem_result &r) override;

private:
    friend class UnitClock<TrbuModule>;
    uint64_t clock_now() const { return trbu_now(trbu_); }
    void clock_advance(uint64_t n) { trbu_advance(trbu_, n); }
    uint64_t clock_next_event() const { return trbu_cycles_to_next_event(trbu_); }
    void on_irq_edge();

    std::string access_rule(uint32_t enc, bool write, armprof_err e) const;
    static armprof_mem_result cb_write(void *user, uint64_t addr, const uint8_t *data, uint32_t len,
                                       const armprof_regime *rg);
    void update_ptr_signal();

    trbu_t *trbu_ = nullptr;
};

} // namespace armprof

#endif
