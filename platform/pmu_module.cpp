// SPDX-License-Identifier: Apache-2.0
// pmu_module.cpp: PMU wrapper: register socket, PMUIRQ, self-scheduling of Capture completion.
#include "pmu_module.h"
#include "report.h"

#include <cstdio>
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

armprof_err PmuModule::reg_read(uint32_t enc, uint64_t *val)
{
    armprof_err e = pmu_reg_read(pmu_, enc, val);
    if (e != ARMPROF_OK)
        report::refused_access(report::kPmu, name(), false, enc, e, pmu_get_pe_context(pmu_), access_rule(enc, false, e));
    return e;
}

armprof_err PmuModule::reg_write(uint32_t enc, uint64_t val)
{
    armprof_err e = pmu_reg_write(pmu_, enc, val);
    if (e != ARMPROF_OK)
        report::refused_access(report::kPmu, name(), true, enc, e, pmu_get_pe_context(pmu_), access_rule(enc, true, e));
    if (sc_is_running())
        outputs_changed(); // a counter or what counts changed: the next overflow may be elsewhere
    return e;
}

// The PMU's access rules (the pmu model's pmu_check) and the controls they read, for the report of
// a refused access.
std::string PmuModule::access_rule(uint32_t enc, bool write, armprof_err e) const
{
    const armprof_pe_ctx &c = *pmu_get_pe_context(pmu_);
    const pmu_config &cfg = *pmu_get_config(pmu_);
    uint64_t userenr = 0;
    pmu_reg_peek(pmu_, PMU_PMUSERENR_EL0, &userenr);
    char now[160];
    std::snprintf(now, sizeof now, "; here PMCR_EL0.N=%u, MDCR_EL2.HPMN=%u%s, PMUSERENR_EL0=0x%llx", cfg.num_counters,
                  c.mdcr2_hpmn, c.mdcr2_hpmn == ARMPROF_MDCR2_HPMN_N ? " (N)" : "", (unsigned long long)userenr);
    if (e == ARMPROF_ERR_NOREG)
        return "the PMU has no register at this encoding in this configuration (PMICNTR_EL0 and PMICFILTR_EL0 need"
               " FEAT_PMUv3_ICNTR, PMSSCR_EL1, PMECR_EL1 and the *SVR_EL1 registers FEAT_PMUv3_SS)";
    for (size_t i = 0; write && i < pmu_reg_count(pmu_); i++) {
        pmu_reg_info in;
        if (pmu_reg_info_at(pmu_, i, &in) == ARMPROF_OK && in.enc == enc && in.read_only)
            return report::sysreg_name(enc) + " is read-only: MSR to it is UNDEFINED";
    }
    return "the PMU's access rules (Arm ARM D24.5): PMEVCNTR<n>, PMEVTYPER<n>, PMEVCNTSVR<n> with n >= PMCR_EL0.N are"
           " UNDEFINED, and with n >= MDCR_EL2.HPMN (EL2's counters) UNDEFINED at EL1 and EL0; reads of PMSWINC_EL0"
           " are UNDEFINED; at EL0 the _EL1 registers are UNDEFINED and the _EL0 ones need PMUSERENR_EL0.EN, or"
           " SW for PMSWINC_EL0, CR for reads of PMCCNTR_EL0, ER for reads of the event counters and PMSELR_EL0" +
           std::string(now);
}

armprof_err PmuModule::set_pe_context(const armprof_pe_ctx &ctx)
{
    armprof_err e = pmu_set_pe_context(pmu_, &ctx);
    if (sc_is_running())
        outputs_changed();
    return e;
}

} // namespace armprof
