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
 * Time intervals [lo, hi) in sc_time ticks, kept merged: a target port's booked transfers and
 * the time transfers spent queued. Intervals that end before the current simulation time are
 * dropped (prune): every LT initiator annotates a non-negative local time offset, so no later
 * transaction can reach back before sc_time_stamp().
 */
class IntervalSet {
public:
    // The earliest start >= t at which [start, start + len) overlaps no interval.
    uint64_t first_fit(uint64_t t, uint64_t len) const;
    // Adds [lo, hi); returns how much of it was not covered before.
    uint64_t add(uint64_t lo, uint64_t hi);
    void prune(uint64_t before);
    uint64_t last_end() const { return m_.empty() ? 0 : m_.rbegin()->second; }
    size_t size() const { return m_.size(); }

private:
    std::map<uint64_t, uint64_t> m_; // lo -> hi, disjoint and not touching
};

/*
 * Loosely-timed interconnect. Each target port has an address window, a fixed latency and a
 * bandwidth in bytes per ns. A transaction's delay grows by the latency, by its transfer time
 * (len / bandwidth) and by the time it waits for a free slot of the target: the port books each
 * transfer into the first gap at or after its arrival time (sc_time_stamp() + the annotated
 * delay + latency) that is long enough. Arrival times come from the initiators' local times, so
 * temporally decoupled initiators that call out of time order still share the bandwidth by
 * arrival, not by call order; the port never carries more than its bandwidth, so an overload
 * stretches the initiators' time (their writes complete later) instead of piling up a queue
 * that runs ahead of simulated time. Addresses are rebased to the target window. DMI requests
 * and invalidations are forwarded with the same rebasing; DMI accesses bypass the bus, so the
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
        sc_core::sc_time busy;       // time transferring
        sc_core::sc_time wait;       // time at least one transfer was queued (<= simulated time)
        sc_core::sc_time wait_sum;   // sum over transfers of their queueing (mean: / transactions)
        sc_core::sc_time wait_max;   // longest queueing of one transfer
    };
    const Stats &target_stats(unsigned port) const { return ports_.at(port).st; }
    // Per requester: the (pe, unit) of a regime_ext, or 0xFFFF for accesses without one.
    const std::map<unsigned, Stats> &requester_stats() const { return req_; }
    static unsigned requester_key(unsigned pe, unsigned unit) { return pe * 4u + unit; }
    // The end of the last transfer booked on any port: the bus is idle from then on.
    sc_core::sc_time drained_at() const;

private:
    struct Port {
        uint64_t base = 0, size = 0;
        sc_core::sc_time latency;
        double bytes_per_ns = 0;
        std::string name;
        IntervalSet booked, queued;
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
    std::map<unsigned, IntervalSet> req_queued_;
};

} // namespace armprof

#endif
