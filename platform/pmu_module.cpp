// SPDX-License-Identifier: Apache-2.0
// pmu_module.cpp: PMU wrapper: register socket, PMUIRQ, self-scheduling of Capture completion.
#include "pmu_module.h"
#include "report.h"

#include <string>

namespace armprof {

using namespace sc_core;

PmuModule::PmuModule(sc_module_name name, const pmu_config &cfg, sc_time period)
    : UnitClock(name, period)
{
    armprof_host_ops ops{};
    ops.irq = &cb_irq;
    ops.log = &report::model_log<PmuModule, report::kPmu>;
    ops.user = this;
    armprof_err e = pmu_open(&cfg, &ops, &pmu_);
    if (e != ARMPROF_OK) {
        char why[160] = "";
        pmu_config_validate(&cfg, why, sizeof why);
        ARMPROF_REPORT_ERROR(report::kPmu, std::string("pmu_open: ") + armprof_strerror(e) + ": " + why);
    }
    start_clock(true); // the wake runs once at the start too: a configuration made during elaboration
}

PmuModule::~PmuModule() { pmu_close(pmu_); }

armprof_err PmuModule::reg_read(uint32_t enc, uint64_t *val) { return pmu_reg_read(pmu_, enc, val); }
armprof_err PmuModule::reg_write(uint32_t enc, uint64_t val)
{
    armprof_err e = pmu_reg_write(pmu_, enc, val);
    if (sc_is_running())
        outputs_changed(); // a counter or what counts changed: the next overflow may be elsewhere
    return e;
}

armprof_err PmuModule::set_pe_context(const armprof_pe_ctx &ctx)
{
    armprof_err e = pmu_set_pe_context(pmu_, &ctx);
    if (sc_is_running())
        outputs_changed();
    return e;
}

} // namespace armprof
