// SPDX-License-Identifier: Apache-2.0
// trbu_module.cpp: TRBU wrapper: memory port over TLM (with DMI), register socket, TRBIRQ, self-scheduling.
#include "trbu_module.h"
#include "report.h"

#include <string>

namespace armprof {

using namespace sc_core;

TrbuModule::TrbuModule(sc_module_name name, const trbu_config &cfg, sc_time period)
    : UnitClock(name, period), BufferPort("mem", period), sig_trbptr("sig_trbptr")
{
    armprof_host_ops ops{};
    ops.mem_write = &TrbuModule::cb_write;
    ops.irq = &cb_irq;
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
    start_clock(false);
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
    set_irq_level(trbu_irq_level(trbu_)); // the model does not call back on a reset
    update_ptr_signal();
}

void TrbuModule::tsb_csync()
{
    settle([this] { trbu_tsb_csync(trbu_); }, [this] { return trbu_writes_outstanding(trbu_) != 0; });
    update_ptr_signal();
}

void TrbuModule::on_irq_edge()
{
    st_.irq_edges++;
    update_ptr_signal();
}

// AT: the oldest pending write's answer, at the unit's time of the BEGIN_RESP (the unit is
// brought there first; a unit already ahead, by temporal decoupling, takes it at its own time).
void TrbuModule::on_mem_complete(const armprof_mem_result &r)
{
    at_now([&] { trbu_mem_complete(trbu_, &r); });
}

armprof_mem_result TrbuModule::cb_write(void *user, uint64_t addr, const uint8_t *data, uint32_t len,
                                        const armprof_regime *rg)
{
    return static_cast<TrbuModule *>(user)->port_write(addr, data, len, *rg);
}

} // namespace armprof
