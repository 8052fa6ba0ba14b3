// SPDX-License-Identifier: Apache-2.0
// spu_module.h: thin SystemC/TLM-2.0 wrapper of the SPU C model (buffer writes, registers, PMBIRQ, event scheduling).
#ifndef ARMPROF_PLATFORM_SPU_MODULE_H
#define ARMPROF_PLATFORM_SPU_MODULE_H

#include <cstdint>
#include <string>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "ap_tlm.h"
#include "buffer_port.h"
#include "unit_clock.h"
#include "armprof/spu.h"

namespace armprof {

/*
 * Owns one spu_t and translates; the unit's behaviour stays in the C model.
 *  - mem (BufferPort, buffer_port.h): every buffer write of the model (armprof_host_ops.mem_write) becomes a TLM write
 *    carrying the owning translation regime in a regime_ext; the answer (regime_ext::result)
 *    goes back to the model as stage / FSC / level. DMI is used when granted, per regime.
 *  - regs (UnitClock, unit_clock.h): register access by TLM: offset = encoding * 8
 *    (ARMPROF_SYSREG), 8-byte accesses. The C++ calls reg_read / reg_write do the same for a CPU model.
 *  - irq (UnitClock): PMBIRQ, a level.
 *  - time (UnitClock): the model counts cycles of `period`. Whoever drives it (a PE with a
 *    quantum keeper) calls advance_to(); when nobody does, the module wakes itself at the time
 *    spu_cycles_to_next_event() gives (no ticking every clock).
 * Memory timing (the constructor's `timing`, set_timing(); BufferTiming in buffer_port.h): Lt,
 * the default as in armprof-vp, returns each write's annotated delay as its latency in unit
 * cycles; Off keeps the functional drain (writes answered at once); At runs the four phases and
 * answers with spu_mem_complete() at BEGIN_RESP. The record FIFO then drains only as the memory
 * system accepts writes (docs/integration.md).
 * A register access the model refuses (UNDEFINED, a trap, no such register) is reported as an
 * SC_INFO of type armprof/spu naming the register, the EL and the access rule (report.h).
 */
class SpuModule : public UnitClock<SpuModule>, public BufferPort, public PmuOutputs {
public:
    // regs (System registers by encoding * 8), irq (PMBIRQ), period(), advance_to(t),
    // model_time(), irq_level(), irq_changed(), flush_irq(), reschedule(): UnitClock.
    sc_core::sc_signal<sc_dt::uint64, sc_core::SC_MANY_WRITERS> sig_pmbptr; // PMBPTR_EL1 (waves)
    // CTI input trigger 2 (seed 001 §2.7, armprof_host_ops.cti_trigger): an event notified at
    // the unit's time of each record written out to the Profiling Buffer. Notifications close
    // together merge as SystemC events do; cti_triggers() counts every assertion. The event is
    // notified from the first call of cti_sample() on: a process can wait on it only after
    // taking it, so a listener misses nothing, and a platform that never takes it (armprof-vp)
    // puts no timed notification per record into SystemC's event queue (with 32 PEs that queue
    // doubled and the scheduler stopped at each record's time).
    sc_core::sc_event &cti_sample()
    {
        cti_watched_ = true;
        return cti_sample_;
    }
    uint64_t cti_triggers() const { return cti_count_; }

    // timing: how memory time reaches the unit (BufferTiming, buffer_port.h): Lt by default, as
    // armprof-vp's `timing: lt`; Off for the functional drain; At needs an AT target on `mem`.
    SpuModule(sc_core::sc_module_name name, const spu_config &cfg,
              sc_core::sc_time period = sc_core::sc_time(1, sc_core::SC_NS), BufferTiming timing = BufferTiming::Lt);
    ~SpuModule() override;

    spu_t *unit() { return spu_; }

    // CPU-side interface (at the model's current time).
    armprof_err reg_read(uint32_t enc, uint64_t *val);
    armprof_err reg_write(uint32_t enc, uint64_t val);
    armprof_err set_pe_context(const armprof_pe_ctx &ctx);
    // PSB CSYNC (spu_psb_csync); with AT writes pending, a thread caller waits for their answers.
    void psb_csync();

protected:
    uint64_t unit_cycles() const override { return spu_now(spu_); }
    void on_mem_complete(const armprof_mem_result &r) override;

private:
    friend class UnitClock<SpuModule>;
    uint64_t clock_now() const { return spu_now(spu_); }
    void clock_advance(uint64_t n) { spu_advance(spu_, n); }
    uint64_t clock_next_event() const { return spu_cycles_to_next_event(spu_); }
    void on_irq_edge();

    std::string access_rule(uint32_t enc, bool write, armprof_err e) const;
    static armprof_mem_result cb_write(void *user, uint64_t addr, const uint8_t *data, uint32_t len,
                                       const armprof_regime *rg);
    static void cb_cti(void *user, uint8_t trigger);
    void update_ptr_signal();

    spu_t *spu_ = nullptr;
    uint64_t cti_count_ = 0;
    bool cti_watched_ = false;
    sc_core::sc_event cti_sample_;
};

} // namespace armprof

#endif
