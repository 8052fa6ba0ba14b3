// SPDX-License-Identifier: Apache-2.0
// memory.cpp: TLM-2.0 memory with DMI and error regions.
#include "memory.h"
#include "report.h"

#include <cstdlib>
#include <cstring>
#include <stdexcept>


namespace armprof {

using namespace sc_core;

Memory::Memory(sc_module_name name, uint64_t size, sc_time latency)
    : sc_module(name), socket("socket"), size_(size), latency_(latency), write_latency_(latency)
{
    mem_ = static_cast<uint8_t *>(std::calloc(size, 1));
    if (!mem_) {
        SC_REPORT_ERROR(report::kMemory, (std::string(basename()) + ": cannot allocate " + std::to_string(size) + " bytes").c_str());
        throw std::bad_alloc(); // the handler returned: the memory still cannot be built
    }
    socket.register_b_transport(this, &Memory::b_transport);
    socket.register_transport_dbg(this, &Memory::transport_dbg);
    socket.register_get_direct_mem_ptr(this, &Memory::get_direct_mem_ptr);
}

Memory::~Memory() { std::free(mem_); }

void Memory::add_error_region(uint64_t lo, uint64_t hi, bool on_read, bool on_write, bool async)
{
    errors_.push_back({lo, hi, on_read, on_write, async});
    invalidate_all();
}

void Memory::clear_error_regions()
{
    errors_.clear();
    invalidate_all();
}

void Memory::set_dmi_enabled(bool on)
{
    dmi_enabled_ = on;
    if (!on)
        invalidate_all();
}

void Memory::set_write_latency(sc_time t)
{
    write_latency_ = t;
    invalidate_all();
}

void Memory::invalidate_all()
{
    if (elaborated_)
        socket->invalidate_direct_mem_ptr(0, ~0ull);
}

void Memory::record_attr(uint64_t lo, uint64_t len, const mem_attr &a)
{
    if (!len)
        return;
    for (uint64_t pg = lo >> 12, last = (lo + len - 1) >> 12; pg <= last; pg++) {
        auto ins = page_attr_.emplace(pg, a);
        if (!ins.second && ins.first->second != a) {
            st_.attr_changes++;
            ins.first->second = a;
        }
    }
}

const mem_attr *Memory::page_attr(uint64_t off) const
{
    auto it = page_attr_.find(off >> 12);
    return it == page_attr_.end() ? nullptr : &it->second;
}

void Memory::clear_attrs()
{
    page_attr_.clear();
    st_.unattributed_writes = st_.device_writes = st_.normal_nc_writes = st_.normal_cacheable_writes = 0;
    st_.dmi_attr_grants = st_.attr_changes = 0;
    for (uint64_t &d : dev_writes_)
        d = 0;
}

const Memory::ErrorRegion *Memory::find_error(uint64_t lo, uint64_t len, bool write) const
{
    for (const ErrorRegion &e : errors_) {
        if ((write ? e.on_write : e.on_read) && lo < e.hi && lo + len > e.lo)
            return &e;
    }
    return nullptr;
}

void Memory::b_transport(tlm::tlm_generic_payload &trans, sc_time &delay)
{
    uint64_t addr = trans.get_address();
    unsigned len = trans.get_data_length();
    if (trans.get_byte_enable_ptr() || trans.get_streaming_width() < len) {
        trans.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
        return;
    }
    if (addr >= size_ || len > size_ - addr) {
        trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    bool write = trans.is_write();
    if (const ErrorRegion *e = find_error(addr, len, write)) {
        st_.errors++;
        if (regime_ext *x = trans.get_extension<regime_ext>())
            x->result.async = e->async;
        trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
        return;
    }
    if (write) {
        std::memcpy(mem_ + addr, trans.get_data_ptr(), len);
        st_.writes++;
        st_.write_bytes += len;
        if (const mem_attr_ext *ax = trans.get_extension<mem_attr_ext>()) {
            const mem_attr &a = ax->attr;
            if (a.type == mem_attr::DEVICE) {
                st_.device_writes++;
                dev_writes_[a.device & 3]++;
            } else if (a.inner == mem_attr::NC && a.outer == mem_attr::NC) {
                st_.normal_nc_writes++;
            } else {
                st_.normal_cacheable_writes++;
            }
            record_attr(addr, len, a);
        } else {
            st_.unattributed_writes++;
        }
    } else if (trans.is_read()) {
        std::memcpy(trans.get_data_ptr(), mem_ + addr, len);
        st_.reads++;
        st_.read_bytes += len;
    }
    delay += write ? write_latency_ : latency_;
    trans.set_dmi_allowed(dmi_enabled_);
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned Memory::transport_dbg(tlm::tlm_generic_payload &trans)
{
    uint64_t addr = trans.get_address();
    unsigned len = trans.get_data_length();
    if (addr >= size_)
        return 0;
    if (len > size_ - addr)
        len = (unsigned)(size_ - addr);
    if (trans.is_write())
        std::memcpy(mem_ + addr, trans.get_data_ptr(), len);
    else if (trans.is_read())
        std::memcpy(trans.get_data_ptr(), mem_ + addr, len);
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
    return len;
}

bool Memory::get_direct_mem_ptr(tlm::tlm_generic_payload &trans, tlm::tlm_dmi &dmi)
{
    uint64_t addr = trans.get_address();
    if (!dmi_enabled_ || addr >= size_)
        return false;
    // The largest gap between error regions that holds addr.
    uint64_t lo = 0, hi = size_;
    for (const ErrorRegion &e : errors_) {
        if (addr >= e.lo && addr < e.hi)
            return false;
        if (e.hi <= addr && e.hi > lo)
            lo = e.hi;
        if (e.lo > addr && e.lo < hi)
            hi = e.lo;
    }
    if (const mem_attr_ext *ax = trans.get_extension<mem_attr_ext>()) {
        uint64_t n = ax->dmi_bytes ? ax->dmi_bytes : 1;
        if (n > hi - addr)
            n = hi - addr;
        record_attr(addr, n, ax->attr);
        st_.dmi_attr_grants++;
    }
    dmi.set_dmi_ptr(mem_ + lo);
    dmi.set_start_address(lo);
    dmi.set_end_address(hi - 1);
    dmi.set_granted_access(tlm::tlm_dmi::DMI_ACCESS_READ_WRITE);
    dmi.set_read_latency(latency_);
    dmi.set_write_latency(write_latency_);
    st_.dmi_grants++;
    return true;
}

} // namespace armprof
