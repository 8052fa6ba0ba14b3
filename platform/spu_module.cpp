// SPDX-License-Identifier: Apache-2.0
// spu_module.cpp: SPU wrapper: memory port over TLM (with DMI), register socket, PMBIRQ, self-scheduling.
#include "spu_module.h"
#include "report.h"

#include <cstdio>
#include <string>

namespace armprof {

using namespace sc_core;

SpuModule::SpuModule(sc_module_name name, const spu_config &cfg, sc_time period, BufferTiming timing)
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
    set_timing(timing);
    start_clock(false);
}

SpuModule::~SpuModule() { spu_close(spu_); }

armprof_err SpuModule::reg_read(uint32_t enc, uint64_t *val)
{
    armprof_err e = spu_reg_read(spu_, enc, val);
    if (e != ARMPROF_OK)
        report::refused_access(report::kSpu, name(), false, enc, e, spu_get_pe_context(spu_), access_rule(enc, false, e));
    return e;
}

armprof_err SpuModule::reg_write(uint32_t enc, uint64_t val)
{
    drop_dmi(); // the owning regime may change (PMBLIMITR_EL1.nVM, ...)
    armprof_err e = spu_reg_write(spu_, enc, val);
    update_ptr_signal();
    if (e != ARMPROF_OK)
        report::refused_access(report::kSpu, name(), true, enc, e, spu_get_pe_context(spu_), access_rule(enc, true, e));
    return e;
}

// The access check of each SPE register (the spu model's check_* functions) and the controls it
// reads, for the report of a refused access.
std::string SpuModule::access_rule(uint32_t enc, bool write, armprof_err e) const
{
    const armprof_pe_ctx &c = *spu_get_pe_context(spu_);
    const spu_config &cfg = *spu_get_config(spu_);
    char now[200];
    std::snprintf(now, sizeof now,
                  "; here MDCR_EL2.E2PB=0b%u%u, MDCR_EL2.TPMS=%u, MDCR_EL3.NSPB=0b%u%u, SCR_EL3.NS=%u, "
                  "HCR_EL2.{E2H,NV,NV2}={%u,%u,%u}, EL2 %s, EL3 %s",
                  (c.mdcr2_e2pb >> 1) & 1, c.mdcr2_e2pb & 1, c.mdcr2_tpms, (c.mdcr3_nspb >> 1) & 1,
                  c.mdcr3_nspb & 1, c.scr_ns, c.hcr_e2h, c.hcr_nv, c.hcr_nv2,
                  c.have_el2 ? "implemented" : "not implemented", c.have_el3 ? "implemented" : "not implemented");
    std::string reg = report::sysreg_name(enc);
    if (e == ARMPROF_ERR_NOREG)
        return "the SPU has no register at this encoding (TLM offset = encoding * 8; SYS_* in armprof/sysreg.h)";
    for (size_t i = 0; write && i < spu_reg_count(spu_); i++) {
        spu_reg_info in;
        if (spu_reg_info_at(spu_, i, &in) == ARMPROF_OK && in.enc == enc && in.read_only)
            return reg + " is an ID register: MSR to it is UNDEFINED";
    }
    if (enc == SPU_PMSNEVFR_EL1 && !cfg.feat_spev1p2)
        return "PMSNEVFR_EL1 exists with FEAT_SPEv1p2 only (spu_config.feat_spev1p2)";
    if (enc == SPU_PMBMAR_EL1 && !cfg.feat_spe_nvm)
        return "PMBMAR_EL1 exists with FEAT_SPE_nVM only (spu_config.feat_spe_nvm)";
    if (enc == SPU_PMSCR_EL2 || enc == SPU_PMSCR_EL12)
        return reg + " is an EL2 register (seed 001 §4.3): UNDEFINED without EL2, at EL0 and at EL1 (trapped to EL2"
                     " under HCR_EL2.NV)" + (enc == SPU_PMSCR_EL12 ? std::string(", and at EL2 needs HCR_EL2.E2H=1") : "") +
               "; trapped to EL3 when MDCR_EL3.NSPB denies the Security state" + now;
    if (enc == SPU_PMBSR_EL1)
        return std::string("the PMBSR_EL1 accessors (seed 002): UNDEFINED at EL0 and in AArch32; at EL1 with EL2"
                           " enabled trapped to EL2 by HDFGRTR_EL2/HDFGWTR_EL2.PMBSR_EL1 (here ") +
               (c.hdfgrtr_pmb ? "1" : "0") + "/" + (c.hdfgwtr_pmb ? "1" : "0") +
               ") or MDCR_EL2.E2PB=0bx0; trapped to EL3 when MDCR_EL3.NSPB denies the Security state;"
               " then redirected to memory by HCR_EL2.{NV2,NV}" + now;
    if (reg.compare(0, 3, "PMB") == 0)
        return "CheckProfilingBufferAccess() (seed 001 §3.4.6): UNDEFINED at EL0 and in AArch32; at EL1 with EL2"
               " enabled trapped to EL2 when MDCR_EL2.E2PB=0bx0; trapped to EL3 when MDCR_EL3.NSPB denies the"
               " Security state" + std::string(now);
    return "CheckStatisticalProfilingAccess() (seed 001 §3.2.3): UNDEFINED at EL0 and in AArch32; at EL1 with EL2"
           " enabled trapped to EL2 when MDCR_EL2.TPMS=1; trapped to EL3 when MDCR_EL3.NSPB denies the Security"
           " state" + std::string(now);
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
