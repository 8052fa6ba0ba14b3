// SPDX-License-Identifier: Apache-2.0
// trbu_module.cpp: TRBU wrapper: memory port over TLM (with DMI), register socket, TRBIRQ, self-scheduling.
#include "trbu_module.h"
#include "report.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace armprof {

using namespace sc_core;

TrbuModule::TrbuModule(sc_module_name name, const trbu_config &cfg, sc_time period)
    : sc_module(name), BufferPort("mem", period), regs("regs"), irq("irq"), sig_trbptr("sig_trbptr"), period_(period)
{
    armprof_host_ops ops{};
    ops.mem_write = &TrbuModule::cb_write;
    ops.irq = &TrbuModule::cb_irq;
    ops.event = &PmuOutputs::cb_event<TrbuModule>;
    ops.pmu_freeze = &PmuOutputs::cb_freeze<TrbuModule>;
    ops.log = &report::model_log<TrbuModule, report::kTrbu>;
    ops.user = this;
    armprof_err e = trbu_open(&cfg, &ops, &trbu_);
    if (e != ARMPROF_OK) {
        char why[160] = "";
        trbu_config_validate(&cfg, why, sizeof why);
        ARMPROF_REPORT_ERROR(report::kTrbu, std::string("trbu_open: ") + armprof_strerror(e) + ": " + why);
    }
    regs.register_b_transport(this, &TrbuModule::regs_b_transport);
    SC_HAS_PROCESS(TrbuModule);
    SC_METHOD(on_wake);
    sensitive << wake_;
    dont_initialize();
}

TrbuModule::~TrbuModule() { trbu_close(trbu_); }

void TrbuModule::update_ptr_signal()
{
    uint64_t p = 0;
    trbu_reg_peek(trbu_, TRBU_TRBPTR_EL1, &p);
    sig_trbptr.write(p);
}

armprof_err TrbuModule::reg_read(uint32_t enc, uint64_t *val) { return trbu_reg_read(trbu_, enc, val); }

armprof_err TrbuModule::reg_write(uint32_t enc, uint64_t val)
{
    drop_dmi(); // the owning regime may change (TRBLIMITR_EL1.nVM, ...)
    armprof_err e = trbu_reg_write(trbu_, enc, val);
    update_ptr_signal();
    return e;
}

armprof_err TrbuModule::set_pe_context(const armprof_pe_ctx &ctx)
{
    drop_dmi();
    return trbu_set_pe_context(trbu_, &ctx);
}

void TrbuModule::reset()
{
    drop_dmi();
    trbu_reset(trbu_);
    level_ = trbu_irq_level(trbu_); // the model does not call back on a reset
    update_ptr_signal();
}

void TrbuModule::tsb_csync()
{
    settle([this] { trbu_tsb_csync(trbu_); }, [this] { return trbu_writes_outstanding(trbu_) != 0; });
    update_ptr_signal();
}

sc_time TrbuModule::model_time() const { return period_ * (double)trbu_now(trbu_); }

void TrbuModule::advance_to(const sc_time &t)
{
    uint64_t target = (uint64_t)(t.value() / period_.value());
    uint64_t now = trbu_now(trbu_);
    if (target > now)
        trbu_advance(trbu_, target - now);
}

void TrbuModule::flush_irq()
{
    if (level_ != driven_) {
        driven_ = level_;
        irq.write(level_);
        st_.irq_edges++;
        update_ptr_signal();
    }
}

void TrbuModule::reschedule()
{
    uint64_t c = trbu_cycles_to_next_event(trbu_);
    if (c == UINT64_MAX)
        return;
    sc_time at = period_ * (double)(trbu_now(trbu_) + (c ? c : 1));
    sc_time now = sc_time_stamp();
    wake_.notify(at > now ? at - now : SC_ZERO_TIME);
}

void TrbuModule::on_wake()
{
    advance_to(sc_time_stamp());
    flush_irq();
    reschedule();
}

// AT: the oldest pending write's answer, at the unit's time of the BEGIN_RESP (the unit is
// brought there first; a unit already ahead, by temporal decoupling, takes it at its own time).
void TrbuModule::on_mem_complete(const armprof_mem_result &r)
{
    advance_to(sc_time_stamp());
    trbu_mem_complete(trbu_, &r);
    flush_irq();
    reschedule();
}

void TrbuModule::cb_irq(void *user, bool level) { static_cast<TrbuModule *>(user)->level_ = level; }

armprof_mem_result TrbuModule::cb_write(void *user, uint64_t addr, const uint8_t *data, uint32_t len,
                                        const armprof_regime *rg)
{
    return static_cast<TrbuModule *>(user)->port_write(addr, data, len, *rg);
}

void TrbuModule::regs_b_transport(tlm::tlm_generic_payload &trans, sc_time &delay)
{
    advance_to(sc_time_stamp() + delay);
    reg_socket_access(*this, trans);
    flush_irq();
    reschedule();
}

} // namespace armprof
