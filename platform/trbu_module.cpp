// SPDX-License-Identifier: Apache-2.0
// trbu_module.cpp: TRBU wrapper: memory port over TLM (with DMI), register socket, TRBIRQ, self-scheduling.
#include "trbu_module.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace armprof {

using namespace sc_core;

TrbuModule::TrbuModule(sc_module_name name, const trbu_config &cfg, sc_time period)
    : sc_module(name), mem("mem"), regs("regs"), irq("irq"), sig_trbptr("sig_trbptr"), period_(period)
{
    armprof_host_ops ops{};
    ops.mem_write = &TrbuModule::cb_write;
    ops.irq = &TrbuModule::cb_irq;
    ops.event = &TrbuModule::cb_event;
    ops.pmu_freeze = &TrbuModule::cb_freeze;
    ops.user = this;
    armprof_err e = trbu_open(&cfg, &ops, &trbu_);
    if (e != ARMPROF_OK) {
        char why[160] = "";
        trbu_config_validate(&cfg, why, sizeof why);
        throw std::invalid_argument(std::string("trbu_open: ") + armprof_strerror(e) + ": " + why);
    }
    mem.register_invalidate_direct_mem_ptr(this, &TrbuModule::invalidate);
    regs.register_b_transport(this, &TrbuModule::regs_b_transport);
    SC_HAS_PROCESS(TrbuModule);
    SC_METHOD(on_wake);
    sensitive << wake_;
    dont_initialize();
    gp_.set_streaming_width(0);
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
    dmi_valid_ = false; // the owning regime may change (TRBLIMITR_EL1.nVM, ...)
    armprof_err e = trbu_reg_write(trbu_, enc, val);
    update_ptr_signal();
    return e;
}

armprof_err TrbuModule::set_pe_context(const armprof_pe_ctx &ctx)
{
    dmi_valid_ = false;
    return trbu_set_pe_context(trbu_, &ctx);
}

void TrbuModule::reset()
{
    dmi_valid_ = false;
    trbu_reset(trbu_);
    level_ = trbu_irq_level(trbu_); // the model does not call back on a reset
    update_ptr_signal();
}

void TrbuModule::tsb_csync()
{
    trbu_tsb_csync(trbu_);
    update_ptr_signal();
}

sc_time TrbuModule::model_time() const { return period_ * (double)trbu_now(trbu_); }

void TrbuModule::advance_to(const sc_time &t)
{
    uint64_t target = (uint64_t)(t.value() / period_.value());
    uint64_t now = trbu_now(trbu_);
    if (target > now)
        trbu_advance(trbu_, target - now);
}

void TrbuModule::flush_irq()
{
    if (level_ != driven_) {
        driven_ = level_;
        irq.write(level_);
        st_.irq_edges++;
        update_ptr_signal();
    }
}

void TrbuModule::reschedule()
{
    uint64_t c = trbu_cycles_to_next_event(trbu_);
    if (c == UINT64_MAX)
        return;
    sc_time at = period_ * (double)(trbu_now(trbu_) + (c ? c : 1));
    sc_time now = sc_time_stamp();
    wake_.notify(at > now ? at - now : SC_ZERO_TIME);
}

void TrbuModule::on_wake()
{
    advance_to(sc_time_stamp());
    flush_irq();
    reschedule();
}

void TrbuModule::cb_irq(void *user, bool level) { static_cast<TrbuModule *>(user)->level_ = level; }

void TrbuModule::cb_event(void *user, uint16_t event, uint64_t count)
{
    TrbuModule *m = static_cast<TrbuModule *>(user);
    if (m->ev_fn_)
        m->ev_fn_(m->ev_user_, event, count);
}

void TrbuModule::cb_freeze(void *user)
{
    TrbuModule *m = static_cast<TrbuModule *>(user);
    if (m->fz_fn_)
        m->fz_fn_(m->ev_user_);
}

armprof_mem_result TrbuModule::cb_write(void *user, uint64_t addr, const uint8_t *data, uint32_t len,
                                        const armprof_regime *rg)
{
    return static_cast<TrbuModule *>(user)->write(addr, data, len, *rg);
}

armprof_mem_result TrbuModule::write(uint64_t addr, const uint8_t *data, uint32_t len, const armprof_regime &rg)
{
    st_.writes++;
    // The regime only changes on a register write or a PE context change, which drop DMI.
    if (dmi_valid_ && addr >= dmi_.get_start_address() && addr + len - 1 <= dmi_.get_end_address()) {
        std::memcpy(dmi_.get_dmi_ptr() + (addr - dmi_.get_start_address()), data, len);
        st_.dmi_writes++;
        st_.bytes += len;
        dmi_time_ += dmi_latency_ps_;
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
            r.fsc = ARMPROF_FSC_SEA_WRITE;
            r.written = 0;
        }
    }
    st_.bytes += r.status == ARMPROF_MEM_OK ? len : r.written;
    if (r.status == ARMPROF_MEM_FAULT)
        st_.faults++;
    else if (r.status == ARMPROF_MEM_EXT_ABORT)
        st_.aborts++;
    if (r.status == ARMPROF_MEM_OK && use_dmi_ && gp_.is_dmi_allowed()) {
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

void TrbuModule::invalidate(sc_dt::uint64 lo, sc_dt::uint64 hi)
{
    if (dmi_valid_ && lo <= dmi_.get_end_address() && hi >= dmi_.get_start_address())
        dmi_valid_ = false;
}

size_t TrbuModule::debug_read(const armprof_regime &rg, uint64_t addr, uint8_t *buf, size_t len)
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

void TrbuModule::regs_b_transport(tlm::tlm_generic_payload &trans, sc_time &delay)
{
    advance_to(sc_time_stamp() + delay);
    reg_socket_access(*this, trans);
    flush_irq();
    reschedule();
}

} // namespace armprof
