// SPDX-License-Identifier: Apache-2.0
// trbu_module.cpp: TRBU wrapper: memory port over TLM (with DMI), register socket, TRBIRQ, self-scheduling.
#include "trbu_module.h"
#include "report.h"

#include <cstdio>
#include <string>

namespace armprof {

using namespace sc_core;

TrbuModule::TrbuModule(sc_module_name name, const trbu_config &cfg, sc_time period, BufferTiming timing)
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
    set_timing(timing);
    start_clock(false);
}

TrbuModule::~TrbuModule() { trbu_close(trbu_); }

void TrbuModule::update_ptr_signal()
{
    uint64_t p = 0;
    trbu_reg_peek(trbu_, TRBU_TRBPTR_EL1, &p);
    sig_trbptr.write(p);
}

armprof_err TrbuModule::reg_read(uint32_t enc, uint64_t *val)
{
    armprof_err e = trbu_reg_read(trbu_, enc, val);
    if (e != ARMPROF_OK)
        report::refused_access(report::kTrbu, name(), false, enc, e, trbu_get_pe_context(trbu_), access_rule(enc, false, e));
    return e;
}

armprof_err TrbuModule::reg_write(uint32_t enc, uint64_t val)
{
    drop_dmi(); // the owning regime may change (TRBLIMITR_EL1.nVM, ...)
    armprof_err e = trbu_reg_write(trbu_, enc, val);
    update_ptr_signal();
    if (e != ARMPROF_OK)
        report::refused_access(report::kTrbu, name(), true, enc, e, trbu_get_pe_context(trbu_), access_rule(enc, true, e));
    return e;
}

// The access checks of the TRB* registers (the trbu model's check_* functions) and the controls
// they read, for the report of a refused access.
std::string TrbuModule::access_rule(uint32_t enc, bool write, armprof_err e) const
{
    const armprof_pe_ctx &c = *trbu_get_pe_context(trbu_);
    char now[200];
    std::snprintf(now, sizeof now,
                  "; here MDCR_EL2.E2TB=0b%u%u, MDCR_EL3.NSTB=0b%u%u, SCR_EL3.NS=%u, HCR_EL2.{E2H,NV,NV1,NV2}="
                  "{%u,%u,%u,%u}, HDFGRTR_EL2/HDFGWTR_EL2 TRB bits 0x%02x/0x%02x",
                  (c.mdcr2_e2tb >> 1) & 1, c.mdcr2_e2tb & 1, (c.mdcr3_nstb >> 1) & 1, c.mdcr3_nstb & 1, c.scr_ns,
                  c.hcr_e2h, c.hcr_nv, c.hcr_nv1, c.hcr_nv2, c.hdfgrtr_trb, c.hdfgwtr_trb);
    std::string reg = report::sysreg_name(enc);
    if (e == ARMPROF_ERR_NOREG)
        return "the TRBU has no register at this encoding (TLM offset = encoding * 8; SYS_* in armprof/sysreg.h)";
    for (size_t i = 0; write && i < trbu_reg_count(trbu_); i++) {
        trbu_reg_info in;
        if (trbu_reg_info_at(trbu_, i, &in) == ARMPROF_OK && in.enc == enc && in.read_only)
            return reg + " is an ID register: MSR to it is UNDEFINED";
    }
    if (enc == TRBU_TRBSR_EL2 || enc == TRBU_TRBSR_EL3 || enc == TRBU_TRBSR_EL12)
        return reg + " (FEAT_TRBE_EXC, trbu_config.feat_trbe_exc): TRBSR_EL2 from EL2 up, TRBSR_EL3 at EL3, TRBSR_EL12 from"
                     " EL2 with HCR_EL2.E2H=1 (at EL1 trapped to EL2 under HCR_EL2.NV); trapped to EL3 when"
                     " MDCR_EL3.NSTB denies the Security state" + std::string(now);
    return "the TRB* register accessors (seed 004, Arm ARM D6.5): UNDEFINED at EL0; at EL1 with EL2 enabled trapped to"
           " EL2 by the register's HDFGRTR_EL2/HDFGWTR_EL2 bit or MDCR_EL2.E2TB=0bx0; at EL1 and EL2 trapped to EL3"
           " when MDCR_EL3.NSTB[0]=0 or the PE is not in the owning Security state" + std::string(now);
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
