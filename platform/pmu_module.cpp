// SPDX-License-Identifier: Apache-2.0
// pmu_module.cpp: PMU wrapper: register socket, PMUIRQ, self-scheduling of Capture completion.
#include "pmu_module.h"
#include "report.h"

#include "ap_tlm.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace armprof {

using namespace sc_core;

PmuModule::PmuModule(sc_module_name name, const pmu_config &cfg, sc_time period)
    : sc_module(name), regs("regs"), irq("irq"), period_(period)
{
    armprof_host_ops ops{};
    ops.irq = &PmuModule::cb_irq;
    ops.log = &report::model_log<PmuModule, report::kPmu>;
    ops.user = this;
    armprof_err e = pmu_open(&cfg, &ops, &pmu_);
    if (e != ARMPROF_OK) {
        char why[160] = "";
        pmu_config_validate(&cfg, why, sizeof why);
        ARMPROF_REPORT_ERROR(report::kPmu, std::string("pmu_open: ") + armprof_strerror(e) + ": " + why);
    }
    regs.register_b_transport(this, &PmuModule::regs_b_transport);
    SC_HAS_PROCESS(PmuModule);
    SC_METHOD(on_wake);
    sensitive << wake_;
    dont_initialize();
}

PmuModule::~PmuModule() { pmu_close(pmu_); }

armprof_err PmuModule::reg_read(uint32_t enc, uint64_t *val) { return pmu_reg_read(pmu_, enc, val); }
armprof_err PmuModule::reg_write(uint32_t enc, uint64_t val) { return pmu_reg_write(pmu_, enc, val); }

void PmuModule::advance_to(const sc_time &t)
{
    uint64_t target = (uint64_t)(t.value() / period_.value());
    uint64_t now = pmu_now(pmu_);
    if (target > now)
        pmu_advance(pmu_, target - now);
}

void PmuModule::flush_irq()
{
    if (level_ != driven_) {
        driven_ = level_;
        irq.write(level_);
    }
}

void PmuModule::reschedule()
{
    uint64_t c = pmu_cycles_to_next_event(pmu_);
    if (c == UINT64_MAX)
        return;
    sc_time at = period_ * (double)(pmu_now(pmu_) + (c ? c : 1));
    sc_time now = sc_time_stamp();
    wake_.notify(at > now ? at - now : SC_ZERO_TIME);
}

void PmuModule::on_wake()
{
    advance_to(sc_time_stamp());
    flush_irq();
    reschedule();
}

void PmuModule::cb_irq(void *user, bool level) { static_cast<PmuModule *>(user)->level_ = level; }

void PmuModule::regs_b_transport(tlm::tlm_generic_payload &trans, sc_time &delay)
{
    advance_to(sc_time_stamp() + delay);
    reg_socket_access(*this, trans);
    flush_irq();
    reschedule();
}

} // namespace armprof
