// SPDX-License-Identifier: Apache-2.0
// buffer_port.cpp: the TLM path of the unit wrappers' buffer port (writes with the regime, DMI requests and invalidation, debug reads).
#include "buffer_port.h"

namespace armprof {

using namespace sc_core;

bool same_regime(const armprof_regime &a, const armprof_regime &b)
{
    return a.kind == b.kind && a.ss == b.ss && a.el == b.el && a.stage2 == b.stage2 && a.nvm == b.nvm &&
           a.hw_flag_update == b.hw_flag_update && a.mar == b.mar && a.unit == b.unit && a.pe == b.pe;
}

BufferPort::BufferPort(const char *socket_name) : mem(socket_name)
{
    mem.register_invalidate_direct_mem_ptr(this, &BufferPort::invalidate);
    gp_.set_streaming_width(0);
}

armprof_mem_result BufferPort::write_tlm(uint64_t addr, const uint8_t *data, uint32_t len, const armprof_regime &rg)
{
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
    bool covered = dmi_valid_ && same_regime(rg, dmi_rg_) && addr - dmi_start_ <= dmi_last_ &&
                   len - 1 <= dmi_last_ - (addr - dmi_start_);
    if (r.status == ARMPROF_MEM_OK && use_dmi_ && gp_.is_dmi_allowed() && !covered) {
        tlm::tlm_dmi d;
        if (mem->get_direct_mem_ptr(gp_, d) && d.is_write_allowed()) {
            dmi_start_ = d.get_start_address();
            dmi_last_ = d.get_end_address() - d.get_start_address();
            dmi_host_ = d.get_dmi_ptr();
            dmi_latency_ps_ = (uint64_t)(d.get_write_latency().to_seconds() * 1e12 + 0.5);
            dmi_rg_ = rg;
            dmi_valid_ = true;
        }
    }
    gp_.clear_extension(&ext_);
    return r;
}

void BufferPort::invalidate(sc_dt::uint64 lo, sc_dt::uint64 hi)
{
    if (dmi_valid_ && lo <= dmi_start_ + dmi_last_ && hi >= dmi_start_)
        dmi_valid_ = false;
}

size_t BufferPort::debug_read(const armprof_regime &rg, uint64_t addr, uint8_t *buf, size_t len)
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

} // namespace armprof
