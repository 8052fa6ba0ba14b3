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
    SC_METHOD(on_wake); // also once at the start: a configuration made during elaboration
    sensitive << wake_;
}

PmuModule::~PmuModule() { pmu_close(pmu_); }

armprof_err PmuModule::reg_read(uint32_t enc, uint64_t *val) { return pmu_reg_read(pmu_, enc, val); }
armprof_err PmuModule::reg_write(uint32_t enc, uint64_t val)
{
    armprof_err e = pmu_reg_write(pmu_, enc, val);
    if (sc_is_running()) {
        flush_irq();
        reschedule(); // a counter or what counts changed: the next overflow may be elsewhere
    }
    return e;
}

armprof_err PmuModule::set_pe_context(const armprof_pe_ctx &ctx)
{
    armprof_err e = pmu_set_pe_context(pmu_, &ctx);
    if (sc_is_running()) {
        flush_irq();
        reschedule();
    }
    return e;
}

void PmuModule::advance_to(const sc_time &t)
{
    uint64_t target = t.value() / period_.value(); // integer time: SystemC ticks / ticks per cycle
    uint64_t now = pmu_now(pmu_);
    if (target > now)
        pmu_advance(pmu_, target - now);
}

sc_time PmuModule::model_time() const
{
    return sc_time::from_value(pmu_now(pmu_) * period_.value());
}

void PmuModule::flush_irq()
{
    if (level_ != driven_) {
        driven_ = level_;
        irq.write(level_);
    }
}

// The one next thing the model cannot know it has reached unless woken: a Capture event
// completing, or a counter of cycles overflowing (PMOVSSET_EL0, PMUIRQ). Nothing else needs a
// wake: events arrive by calls, and pmu_advance() between them is O(1).
void PmuModule::reschedule()
{
    uint64_t c = pmu_cycles_to_next_event(pmu_);
    uint64_t o = pmu_cycles_to_overflow(pmu_);
    if (o < c)
        c = o;
    if (c == UINT64_MAX)
        return;
    uint64_t per = period_.value(), cyc = pmu_now(pmu_) + (c ? c : 1);
    if (cyc < pmu_now(pmu_) || cyc > UINT64_MAX / per)
        return; // beyond the end of SystemC time (a 64-bit counter's overflow)
    uint64_t at = cyc * per, now = sc_time_stamp().value();
    wake_.notify(at > now ? sc_time::from_value(at - now) : SC_ZERO_TIME);
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
