// SPDX-License-Identifier: Apache-2.0
// buffer_port.h: the TLM memory port every unit wrapper writes its buffer through (regime extension, DMI per regime, fault results, statistics).
#ifndef ARMPROF_PLATFORM_BUFFER_PORT_H
#define ARMPROF_PLATFORM_BUFFER_PORT_H

#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/peq_with_cb_and_phase.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "ap_tlm.h"

namespace armprof {

bool same_regime(const armprof_regime &a, const armprof_regime &b);

/*
 * How the memory system's timing reaches the unit (scenario key `timing`):
 *  - Off: functional; every write is answered at once with latency 0 (the timing is only
 *    accounted in the statistics).
 *  - Lt: loosely timed (the default, of the scenario and of SpuModule / TrbuModule); b_transport is called with the unit's local time offset (its model
 *    time minus sc_time_stamp()) and the delay it adds (bus queueing and transfer, SMMU
 *    descriptor reads over the bus, the target's latency) becomes armprof_mem_result.latency in
 *    unit cycles (rounded up); a DMI write takes the DMI grant's write latency. Any TLM target
 *    works: only the annotated delay is used.
 *  - At: approximately timed; the base protocol's four phases on the same socket
 *    (nb_transport_fw / _bw, BEGIN_REQ, END_REQ, BEGIN_RESP, END_RESP). The port answers the
 *    model ARMPROF_MEM_PENDING, sends BEGIN_REQ when the previous request got its END_REQ (a
 *    target back-pressures by a late END_REQ), and at each BEGIN_RESP gives the answer to the
 *    model (spu_mem_complete / trbu_mem_complete through on_mem_complete()), in issue order.
 *    No DMI: every write goes through the protocol. The target must speak AT (AtBridge,
 *    at_bridge.h, puts an LT target behind an AT socket).
 */
enum class BufferTiming : uint8_t { Off, Lt, At };
const char *buffer_timing_name(BufferTiming t);

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
 * Timing (the wrapper's constructor, set_timing, BufferTiming above): Lt (the default, as in
 * armprof-vp) turns the annotated delay (TLM) or the grant's write latency (DMI) into
 * armprof_mem_result.latency; Off answers latency 0 (functional); At runs the four phases and
 * answers ARMPROF_MEM_PENDING.
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
    // Before the first write (between runs at the latest).
    void set_timing(BufferTiming t)
    {
        timing_ = t;
        drop_dmi();
    }
    BufferTiming timing() const { return timing_; }
    // AT: writes issued and not yet answered to the unit; the longest END_REQ wait seen.
    size_t at_outstanding() const { return at_inflight_.size(); }
    sc_core::sc_time at_end_req_wait_max() const { return at_req_wait_max_; }
    // AT: notified after each answer given to the unit.
    const sc_core::sc_event &at_answered() const { return at_answered_; }
    // AT: while held, answers (BEGIN_RESP) are kept, in issue order, instead of going to the
    // unit; releasing gives the kept ones at once. The RTL sampler holds them during the delta
    // cycles of its clock edge (platform/rtl/spu_rtl.cpp), so that an answer takes effect after
    // the unit's edge, as with the transaction-level PE whose thread makes that edge first.
    void hold_answers() { at_hold_ = true; }
    void release_answers()
    {
        at_hold_ = false;
        deliver_answers();
    }

    // The memory port the model calls (public for benches and hosts that feed it directly).
    armprof_mem_result port_write(uint64_t addr, const uint8_t *data, uint32_t len, const armprof_regime &rg)
    {
        uint64_t off = addr - dmi_start_;
        if (dmi_valid_ && off <= dmi_last_ && len - 1 <= dmi_last_ - off && len) {
            std::memcpy(dmi_host_ + off, data, len);
            // The unit writes its buffer upwards: fetch the next lines now, so the next records'
            // stores find them in the cache. With many PEs the buffers (64 KiB each) no longer
            // fit in L2, and a store waiting for its line held up the PE's following ones.
            // (Host cache hints only: a prefetch never faults, past the region's end neither.)
            uintptr_t next = reinterpret_cast<uintptr_t>(dmi_host_ + off) + len;
            for (uintptr_t ahead = 64; ahead <= 192; ahead += 64)
                __builtin_prefetch(reinterpret_cast<const void *>(next + ahead), 1, 3);
            st_.dmi_writes++;
            st_.bytes += len;
            dmi_time_ps_ += dmi_latency_ps_;
            armprof_mem_result r{};
            r.status = ARMPROF_MEM_OK;
            r.written = len;
            r.latency = dmi_latency_cycles_;
            return r;
        }
        if (timing_ == BufferTiming::At)
            return write_at(addr, data, len, rg);
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
    // `period`: the unit's clock (latencies are counted in these cycles).
    BufferPort(const char *socket_name, sc_core::sc_time period);
    virtual ~BufferPort();
    void drop_dmi() { dmi_valid_ = false; }
    mutable Stats st_;
    void settle(const std::function<void()> &barrier, const std::function<bool()> &busy);
    // The unit's current cycle (its model time is cycles * period).
    virtual uint64_t unit_cycles() const = 0;
    // AT: the answer to the oldest pending write, at sc_time_stamp(): the owner brings the unit
    // to this time and calls spu_mem_complete() / trbu_mem_complete().
    virtual void on_mem_complete(const armprof_mem_result &r) = 0;

private:
    struct AtTxn;
    struct Mm : tlm::tlm_mm_interface {
        BufferPort *owner = nullptr;
        void free(tlm::tlm_generic_payload *gp) override;
    };
    armprof_mem_result write_tlm(uint64_t addr, const uint8_t *data, uint32_t len, const armprof_regime &rg);
    armprof_mem_result write_at(uint64_t addr, const uint8_t *data, uint32_t len, const armprof_regime &rg);
    armprof_mem_result answer(tlm::tlm_generic_payload &gp, regime_ext &ext, uint32_t len);
    sc_core::sc_time local_offset() const;
    uint32_t to_cycles(const sc_core::sc_time &t) const;
    void invalidate(sc_dt::uint64 lo, sc_dt::uint64 hi);
    tlm::tlm_sync_enum nb_bw(tlm::tlm_generic_payload &gp, tlm::tlm_phase &ph, sc_core::sc_time &d);
    void peq_cb(tlm::tlm_generic_payload &gp, const tlm::tlm_phase &ph);
    void send_req(AtTxn *t);
    void end_req(AtTxn *t);
    AtTxn *find(tlm::tlm_generic_payload &gp);
    void deliver_answers();

    bool use_dmi_ = true, dmi_valid_ = false;
    uint64_t dmi_start_ = 0, dmi_last_ = 0;   // the region: [start, start + last]
    uint8_t *dmi_host_ = nullptr;
    uint64_t dmi_latency_ps_ = 0, dmi_time_ps_ = 0;
    uint32_t dmi_latency_cycles_ = 0;
    armprof_regime dmi_rg_{};
    tlm::tlm_generic_payload gp_;
    regime_ext ext_;
    sc_core::sc_time tlm_time_;
    BufferTiming timing_ = BufferTiming::Lt;
    uint64_t period_ticks_;
    // AT: payloads (own memory manager), in issue order until answered; the one whose END_REQ
    // is awaited; those waiting for it.
    Mm mm_;
    tlm_utils::peq_with_cb_and_phase<BufferPort> peq_;
    std::vector<std::unique_ptr<AtTxn>> at_pool_;
    std::vector<AtTxn *> at_free_;
    std::deque<AtTxn *> at_inflight_, at_waiting_;
    AtTxn *at_req_ = nullptr;
    sc_core::sc_time at_req_wait_max_;
    sc_core::sc_event at_answered_;
    bool at_hold_ = false;
};

} // namespace armprof

#endif
