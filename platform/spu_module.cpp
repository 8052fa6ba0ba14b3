// SPDX-License-Identifier: Apache-2.0
// spu_module.cpp: SPU wrapper: memory port over TLM (with DMI), register socket, PMBIRQ, self-scheduling.
#include "spu_module.h"
#include "report.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace armprof {

using namespace sc_core;

SpuModule::SpuModule(sc_module_name name, const spu_config &cfg, sc_time period)
    : sc_module(name), BufferPort("mem", period), regs("regs"), irq("irq"), sig_pmbptr("sig_pmbptr"), period_(period)
{
    armprof_host_ops ops{};
    ops.mem_write = &SpuModule::cb_write;
    ops.irq = &SpuModule::cb_irq;
    ops.event = &PmuOutputs::cb_event<SpuModule>;
    ops.pmu_freeze = &PmuOutputs::cb_freeze<SpuModule>;
    ops.log = &report::model_log<SpuModule, report::kSpu>;
    ops.user = this;
    armprof_err e = spu_open(&cfg, &ops, &spu_);
    if (e != ARMPROF_OK) {
        char why[160] = "";
        spu_config_validate(&cfg, why, sizeof why);
        ARMPROF_REPORT_ERROR(report::kSpu, std::string("spu_open: ") + armprof_strerror(e) + ": " + why);
    }
    regs.register_b_transport(this, &SpuModule::regs_b_transport);
    SC_HAS_PROCESS(SpuModule);
    SC_METHOD(on_wake);
    sensitive << wake_;
    dont_initialize();
}

SpuModule::~SpuModule() { spu_close(spu_); }

armprof_err SpuModule::reg_read(uint32_t enc, uint64_t *val) { return spu_reg_read(spu_, enc, val); }

armprof_err SpuModule::reg_write(uint32_t enc, uint64_t val)
{
    drop_dmi(); // the owning regime may change (PMBLIMITR_EL1.nVM, ...)
    armprof_err e = spu_reg_write(spu_, enc, val);
    uint64_t p = 0;
    spu_reg_peek(spu_, SPU_PMBPTR_EL1, &p);
    sig_pmbptr.write(p);
    return e;
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

sc_time SpuModule::model_time() const { return period_ * (double)spu_now(spu_); }

void SpuModule::advance_to(const sc_time &t)
{
    uint64_t target = (uint64_t)(t.value() / period_.value());
    uint64_t now = spu_now(spu_);
    if (target > now)
        spu_advance(spu_, target - now);
}

void SpuModule::flush_irq()
{
    if (level_ != driven_) {
        driven_ = level_;
        irq.write(level_);
        st_.irq_edges++;
        uint64_t p = 0;
        spu_reg_peek(spu_, SPU_PMBPTR_EL1, &p);
        sig_pmbptr.write(p);
    }
}

void SpuModule::reschedule()
{
    uint64_t c = spu_cycles_to_next_event(spu_);
    if (c == UINT64_MAX)
        return;
    sc_time at = period_ * (double)(spu_now(spu_) + (c ? c : 1));
    sc_time now = sc_time_stamp();
    wake_.notify(at > now ? at - now : SC_ZERO_TIME);
}

void SpuModule::on_wake()
{
    advance_to(sc_time_stamp());
    flush_irq();
    reschedule();
}

// AT: the oldest pending write's answer, at the unit's time of the BEGIN_RESP (the unit is
// brought there first; a unit already ahead, by temporal decoupling, takes it at its own time).
void SpuModule::on_mem_complete(const armprof_mem_result &r)
{
    advance_to(sc_time_stamp());
    spu_mem_complete(spu_, &r);
    flush_irq();
    reschedule();
}

void SpuModule::cb_irq(void *user, bool level) { static_cast<SpuModule *>(user)->level_ = level; }

armprof_mem_result SpuModule::cb_write(void *user, uint64_t addr, const uint8_t *data, uint32_t len,
                                       const armprof_regime *rg)
{
    return static_cast<SpuModule *>(user)->port_write(addr, data, len, *rg);
}

void SpuModule::regs_b_transport(tlm::tlm_generic_payload &trans, sc_time &delay)
{
    advance_to(sc_time_stamp() + delay);
    reg_socket_access(*this, trans);
    flush_irq();
    reschedule();
}

} // namespace armprof
