// SPDX-License-Identifier: Apache-2.0
// bus.h: an interconnect that routes by address map and charges latency and bandwidth per target.
#ifndef ARMPROF_PLATFORM_BUS_H
#define ARMPROF_PLATFORM_BUS_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

namespace armprof {

/*
 * Loosely-timed interconnect. Each target port has an address window, a fixed latency and a
 * bandwidth in bytes per ns. A transaction's delay grows by the latency, by its transfer time
 * (len / bandwidth) and by the time it waits for the target to finish earlier transfers (the
 * target is busy until the end of the last transfer it accepted), so traffic from several
 * initiators contends. Addresses are rebased to the target window. DMI requests and
 * invalidations are forwarded with the same rebasing; DMI accesses bypass the bus, so the
 * initiator charges the DMI latency itself.
 */
class Bus : public sc_core::sc_module {
public:
    tlm_utils::multi_passthrough_target_socket<Bus> tsock;    // from initiators
    tlm_utils::multi_passthrough_initiator_socket<Bus> isock; // to targets, in map() order

    explicit Bus(sc_core::sc_module_name name);

    // Target `port` (the index of its isock binding) answers [base, base + size).
    void map(unsigned port, uint64_t base, uint64_t size, sc_core::sc_time latency,
             double bytes_per_ns, const std::string &name = "");

    struct Stats {
        uint64_t transactions = 0, bytes = 0, errors = 0, decode_errors = 0;
        sc_core::sc_time busy, wait; // time transferring, time queued behind other transfers
    };
    const Stats &target_stats(unsigned port) const { return ports_.at(port).st; }
    // Per requester: the (pe, unit) of a regime_ext, or 0xFFFF for accesses without one.
    const std::map<unsigned, Stats> &requester_stats() const { return req_; }
    static unsigned requester_key(unsigned pe, unsigned unit) { return pe * 4u + unit; }

private:
    struct Port {
        uint64_t base = 0, size = 0;
        sc_core::sc_time latency;
        double bytes_per_ns = 0;
        std::string name;
        sc_core::sc_time busy_until;
        Stats st;
        bool mapped = false;
    };
    int decode(uint64_t addr, unsigned len) const;
    void b_transport(int id, tlm::tlm_generic_payload &trans, sc_core::sc_time &delay);
    unsigned transport_dbg(int id, tlm::tlm_generic_payload &trans);
    bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload &trans, tlm::tlm_dmi &dmi);
    void invalidate_direct_mem_ptr(int port, sc_dt::uint64 lo, sc_dt::uint64 hi);

    std::vector<Port> ports_;
    std::map<unsigned, Stats> req_;
};

} // namespace armprof

#endif
