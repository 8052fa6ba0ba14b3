// SPDX-License-Identifier: Apache-2.0
// spu_module.cpp: SPU wrapper: memory port over TLM (with DMI), register socket, PMBIRQ, self-scheduling.
#include "spu_module.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace armprof {

using namespace sc_core;

bool same_regime(const armprof_regime &a, const armprof_regime &b)
{
    return a.kind == b.kind && a.ss == b.ss && a.el == b.el && a.stage2 == b.stage2 && a.nvm == b.nvm &&
           a.hw_flag_update == b.hw_flag_update && a.mar == b.mar && a.unit == b.unit && a.pe == b.pe;
}

SpuModule::SpuModule(sc_module_name name, const spu_config &cfg, sc_time period)
    : sc_module(name), mem("mem"), regs("regs"), irq("irq"), sig_pmbptr("sig_pmbptr"), period_(period)
{
    armprof_host_ops ops{};
    ops.mem_write = &SpuModule::cb_write;
    ops.irq = &SpuModule::cb_irq;
    ops.event = &SpuModule::cb_event;
    ops.pmu_freeze = &SpuModule::cb_freeze;
    ops.user = this;
    armprof_err e = spu_open(&cfg, &ops, &spu_);
    if (e != ARMPROF_OK) {
        char why[160] = "";
        spu_config_validate(&cfg, why, sizeof why);
        throw std::invalid_argument(std::string("spu_open: ") + armprof_strerror(e) + ": " + why);
    }
    mem.register_invalidate_direct_mem_ptr(this, &SpuModule::invalidate);
    regs.register_b_transport(this, &SpuModule::regs_b_transport);
    SC_HAS_PROCESS(SpuModule);
    SC_METHOD(on_wake);
    sensitive << wake_;
    dont_initialize();
    gp_.set_streaming_width(0);
}

SpuModule::~SpuModule() { spu_close(spu_); }

armprof_err SpuModule::reg_read(uint32_t enc, uint64_t *val) { return spu_reg_read(spu_, enc, val); }

armprof_err SpuModule::reg_write(uint32_t enc, uint64_t val)
{
    dmi_valid_ = false; // the owning regime may change (PMBLIMITR_EL1.nVM, ...)
    armprof_err e = spu_reg_write(spu_, enc, val);
    uint64_t p = 0;
    spu_reg_peek(spu_, SPU_PMBPTR_EL1, &p);
    sig_pmbptr.write(p);
    return e;
}

armprof_err SpuModule::set_pe_context(const armprof_pe_ctx &ctx)
{
    dmi_valid_ = false; // the owning regime may change
    return spu_set_pe_context(spu_, &ctx);
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

void SpuModule::cb_irq(void *user, bool level) { static_cast<SpuModule *>(user)->level_ = level; }

void SpuModule::cb_event(void *user, uint16_t event, uint64_t count)
{
    SpuModule *m = static_cast<SpuModule *>(user);
    if (m->ev_fn_)
        m->ev_fn_(m->ev_user_, event, count);
}

void SpuModule::cb_freeze(void *user)
{
    SpuModule *m = static_cast<SpuModule *>(user);
    if (m->fz_fn_)
        m->fz_fn_(m->ev_user_);
}

armprof_mem_result SpuModule::cb_write(void *user, uint64_t addr, const uint8_t *data, uint32_t len,
                                       const armprof_regime *rg)
{
    return static_cast<SpuModule *>(user)->write(addr, data, len, *rg);
}

armprof_mem_result SpuModule::write(uint64_t addr, const uint8_t *data, uint32_t len, const armprof_regime &rg)
{
    st_.writes++;
    // The owning regime only changes on a register write or a PE context change, which both
    // drop the DMI pointer: the fast path needs only the address check.
    if (dmi_valid_ && addr >= dmi_.get_start_address() &&
        addr + len - 1 <= dmi_.get_end_address()) {
        std::memcpy(dmi_.get_dmi_ptr() + (addr - dmi_.get_start_address()), data, len);
        st_.dmi_writes++;
        st_.bytes += len;
        dmi_time_ += dmi_latency_ps_; // DMI latency, in ps, folded into stats() on demand
        armprof_mem_result r{};
        r.status = ARMPROF_MEM_OK;
        r.written = len;
        return r;
    }
    sc_time delay = SC_ZERO_TIME;
    gp_.set_command(tlm::TLM_WRITE_COMMAND);
    gp_.set_address(addr);
    gp_.set_data_ptr(const_cast<uint8_t *>(data));
    gp_.set_data_length(len);
    gp_.set_streaming_width(len);
    gp_.set_byte_enable_ptr(nullptr);
    gp_.set_dmi_allowed(false);
    gp_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    ext_.regime = rg;
    ext_.result = armprof_mem_result{};
    ext_.translated = false;
    gp_.set_extension(&ext_);
    mem->b_transport(gp_, delay);
    st_.tlm_writes++;
    tlm_time_ += delay;
    armprof_mem_result r = ext_.result;
    if (!ext_.translated) { // no SMMU on the path: a physical target answered
        if (gp_.is_response_ok()) {
            r.status = ARMPROF_MEM_OK;
            r.written = len;
        } else {
            r.status = ARMPROF_MEM_EXT_ABORT;
            r.fsc = r.async ? ARMPROF_FSC_AEA_WRITE : ARMPROF_FSC_SEA_WRITE;
            r.written = 0;
        }
    }
    st_.bytes += r.status == ARMPROF_MEM_OK ? len : r.written;
    if (r.status == ARMPROF_MEM_FAULT)
        st_.faults++;
    else if (r.status == ARMPROF_MEM_EXT_ABORT)
        st_.aborts++;
    if (r.status == ARMPROF_MEM_OK && use_dmi_ && gp_.is_dmi_allowed() && !(dmi_valid_ && same_regime(rg, dmi_rg_) &&
                                                                           addr >= dmi_.get_start_address() &&
                                                                           addr + len - 1 <= dmi_.get_end_address())) {
        tlm::tlm_dmi d;
        if (mem->get_direct_mem_ptr(gp_, d) && d.is_write_allowed()) {
            dmi_ = d;
            dmi_latency_ps_ = (uint64_t)(d.get_write_latency().to_seconds() * 1e12 + 0.5);
            dmi_rg_ = rg;
            dmi_valid_ = true;
        }
    }
    gp_.clear_extension(&ext_);
    return r;
}

void SpuModule::invalidate(sc_dt::uint64 lo, sc_dt::uint64 hi)
{
    if (dmi_valid_ && lo <= dmi_.get_end_address() && hi >= dmi_.get_start_address())
        dmi_valid_ = false;
}

size_t SpuModule::debug_read(const armprof_regime &rg, uint64_t addr, uint8_t *buf, size_t len)
{
    tlm::tlm_generic_payload gp;
    regime_ext ext;
    ext.regime = rg;
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(addr);
    gp.set_data_ptr(buf);
    gp.set_data_length((unsigned)len);
    gp.set_streaming_width((unsigned)len);
    gp.set_extension(&ext);
    size_t n = mem->transport_dbg(gp);
    gp.clear_extension(&ext);
    return n;
}

void SpuModule::regs_b_transport(tlm::tlm_generic_payload &trans, sc_time &delay)
{
    advance_to(sc_time_stamp() + delay);
    reg_socket_access(*this, trans);
    flush_irq();
    reschedule();
}

} // namespace armprof
