// SPDX-License-Identifier: Apache-2.0
// spu_module.cpp: SPU wrapper: memory port over TLM (with DMI), register socket, PMBIRQ, self-scheduling.
#include "spu_module.h"
#include "report.h"

#include <string>

namespace armprof {

using namespace sc_core;

SpuModule::SpuModule(sc_module_name name, const spu_config &cfg, sc_time period)
    : UnitClock(name, period), BufferPort("mem", period), sig_pmbptr("sig_pmbptr")
{
    armprof_host_ops ops{};
    ops.mem_write = &SpuModule::cb_write;
    ops.irq = &cb_irq;
    ops.event = &PmuOutputs::cb_event<SpuModule>;
    ops.pmu_freeze = &PmuOutputs::cb_freeze<SpuModule>;
    ops.log = &report::model_log<SpuModule, report::kSpu>;
    ops.cti_trigger = &SpuModule::cb_cti;
    ops.user = this;
    armprof_err e = spu_open(&cfg, &ops, &spu_);
    if (e != ARMPROF_OK) {
        char why[160] = "";
        spu_config_validate(&cfg, why, sizeof why);
        ARMPROF_REPORT_ERROR(report::kSpu, std::string("spu_open: ") + armprof_strerror(e) + ": " + why);
    }
    start_clock(false);
}

SpuModule::~SpuModule() { spu_close(spu_); }

armprof_err SpuModule::reg_read(uint32_t enc, uint64_t *val) { return spu_reg_read(spu_, enc, val); }

armprof_err SpuModule::reg_write(uint32_t enc, uint64_t val)
{
    drop_dmi(); // the owning regime may change (PMBLIMITR_EL1.nVM, ...)
    armprof_err e = spu_reg_write(spu_, enc, val);
    update_ptr_signal();
    return e;
}

void SpuModule::update_ptr_signal()
{
    uint64_t p = 0;
    spu_reg_peek(spu_, SPU_PMBPTR_EL1, &p);
    sig_pmbptr.write(p);
}

armprof_err SpuModule::set_pe_context(const armprof_pe_ctx &ctx)
{
    drop_dmi(); // the owning regime may change
    return spu_set_pe_context(spu_, &ctx);
}

void SpuModule::psb_csync()
{
    settle([this] { spu_psb_csync(spu_); }, [this] { return spu_writes_outstanding(spu_) != 0; });
}

// The model may run ahead of SystemC (temporal decoupling): the event is notified for the unit's
// time of the write, or now when SystemC is already there.
void SpuModule::cb_cti(void *user, uint8_t trigger)
{
    auto *m = static_cast<SpuModule *>(user);
    if (trigger != ARMPROF_CTI_SPE_SAMPLE)
        return;
    m->cti_count_++;
    if (!m->cti_watched_)
        return;
    sc_time t = m->model_time(), now = sc_time_stamp();
    m->cti_sample_.notify(t > now ? t - now : SC_ZERO_TIME);
}

void SpuModule::on_irq_edge()
{
    st_.irq_edges++;
    update_ptr_signal();
}

// AT: the oldest pending write's answer, at the unit's time of the BEGIN_RESP (the unit is
// brought there first; a unit already ahead, by temporal decoupling, takes it at its own time).
void SpuModule::on_mem_complete(const armprof_mem_result &r)
{
    at_now([&] { spu_mem_complete(spu_, &r); });
}

armprof_mem_result SpuModule::cb_write(void *user, uint64_t addr, const uint8_t *data, uint32_t len,
                                       const armprof_regime *rg)
{
    return static_cast<SpuModule *>(user)->port_write(addr, data, len, *rg);
}

} // namespace armprof
