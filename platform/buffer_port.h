// SPDX-License-Identifier: Apache-2.0
// buffer_port.h: the TLM memory port every unit wrapper writes its buffer through (regime extension, DMI per regime, fault results, statistics).
#ifndef ARMPROF_PLATFORM_BUFFER_PORT_H
#define ARMPROF_PLATFORM_BUFFER_PORT_H

#include <cstdint>
#include <cstring>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "ap_tlm.h"

namespace armprof {

bool same_regime(const armprof_regime &a, const armprof_regime &b);

/*
 * The buffer side of a unit wrapper (SpuModule, TrbuModule derive from it after sc_module, so
 * the socket is named <module>.mem). Every write of the model (armprof_host_ops.mem_write)
 * goes to port_write():
 *  - DMI fast path, inline: one range check against the cached region (start, last offset,
 *    host pointer), a memcpy and three counters; the DMI latency is summed in integer ps;
 *  - otherwise a TLM write carrying the owning regime in a regime_ext; the SMMU's answer
 *    (regime_ext::result: stage, FSC with level, EA, async) goes back to the model. A target
 *    that answers without an SMMU on the path gives an External abort (SEA, or AEA when the
 *    target reported it asynchronously). After a successful write, DMI is requested when the
 *    path allows it.
 * The owning regime only changes on a register write or a PE context change; the wrapper calls
 * drop_dmi() then, so the fast path needs no regime compare.
 */
class BufferPort {
public:
    tlm_utils::simple_initiator_socket<BufferPort> mem;

    struct Stats {
        uint64_t writes = 0, bytes = 0, dmi_writes = 0, tlm_writes = 0, faults = 0, aborts = 0;
        uint64_t irq_edges = 0;      // kept by the wrapper (its interrupt line)
        sc_core::sc_time bus_time;   // sum of the delays the writes were charged
    };
    const Stats &stats() const
    {
        st_.writes = st_.dmi_writes + st_.tlm_writes;
        st_.bus_time = tlm_time_ + sc_core::sc_time((double)dmi_time_ps_, sc_core::SC_PS);
        return st_;
    }

    void set_dmi(bool on)
    {
        use_dmi_ = on;
        drop_dmi();
    }

    // The memory port the model calls (public for benches and hosts that feed it directly).
    armprof_mem_result port_write(uint64_t addr, const uint8_t *data, uint32_t len, const armprof_regime &rg)
    {
        uint64_t off = addr - dmi_start_;
        if (dmi_valid_ && off <= dmi_last_ && len - 1 <= dmi_last_ - off && len) {
            std::memcpy(dmi_host_ + off, data, len);
            st_.dmi_writes++;
            st_.bytes += len;
            dmi_time_ps_ += dmi_latency_ps_;
            armprof_mem_result r{};
            r.status = ARMPROF_MEM_OK;
            r.written = len;
            return r;
        }
        return write_tlm(addr, data, len, rg);
    }

    // Reads the buffer through the memory path with the owning regime (debug, untimed).
    size_t debug_read(const armprof_regime &rg, uint64_t addr, uint8_t *buf, size_t len);

    // The host pointer of `addr` when the DMI region granted for the owning regime covers it
    // (*avail: bytes from there to the region's end), else nullptr: lets a driver's dump be
    // written straight from the buffer's memory.
    const uint8_t *dmi_view(uint64_t addr, size_t *avail) const
    {
        uint64_t off = addr - dmi_start_;
        if (!dmi_valid_ || off > dmi_last_)
            return nullptr;
        *avail = (size_t)(dmi_last_ - off + 1);
        return dmi_host_ + off;
    }

protected:
    explicit BufferPort(const char *socket_name = "mem");
    void drop_dmi() { dmi_valid_ = false; }
    mutable Stats st_;

private:
    armprof_mem_result write_tlm(uint64_t addr, const uint8_t *data, uint32_t len, const armprof_regime &rg);
    void invalidate(sc_dt::uint64 lo, sc_dt::uint64 hi);

    bool use_dmi_ = true, dmi_valid_ = false;
    uint64_t dmi_start_ = 0, dmi_last_ = 0;   // the region: [start, start + last]
    uint8_t *dmi_host_ = nullptr;
    uint64_t dmi_latency_ps_ = 0, dmi_time_ps_ = 0;
    armprof_regime dmi_rg_{};
    tlm::tlm_generic_payload gp_;
    regime_ext ext_;
    sc_core::sc_time tlm_time_;
};

} // namespace armprof

#endif
