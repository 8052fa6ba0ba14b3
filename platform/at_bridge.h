// SPDX-License-Identifier: Apache-2.0
// at_bridge.h: puts a loosely-timed target (b_transport) behind an approximately-timed socket (the base protocol's four phases).
#ifndef ARMPROF_PLATFORM_AT_BRIDGE_H
#define ARMPROF_PLATFORM_AT_BRIDGE_H

#include <deque>

#include <systemc>
#include <tlm>
#include <tlm_utils/peq_with_cb_and_phase.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

namespace armprof {

/*
 * AT in front, LT behind (scenario `timing: at` puts one between each unit and the SMMU).
 * BEGIN_REQ (at sc_time_stamp() + the annotated delay t): the payload goes through the LT
 * target's b_transport with delay t at once, END_REQ is returned with it (TLM_UPDATED: the
 * request is accepted when it arrives) and BEGIN_RESP follows at t + the delay the LT path
 * added (bus queueing and transfer, SMMU descriptor reads, memory latency). Responses are sent
 * one at a time: a BEGIN_RESP waits for the END_RESP of the previous one (base protocol).
 * The LT side must not wait() in b_transport (it is called from nb_transport_fw); the
 * platform's SMMU, bus and memory never do. Debug, DMI and invalidation pass through.
 */
class AtBridge : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<AtBridge> tsock;    // from an AT initiator
    tlm_utils::simple_initiator_socket<AtBridge> isock; // to an LT target

    explicit AtBridge(sc_core::sc_module_name name);

    struct Stats {
        uint64_t transactions = 0;
        sc_core::sc_time resp_wait; // BEGIN_RESPs held for the previous END_RESP
    };
    const Stats &stats() const { return st_; }

private:
    tlm::tlm_sync_enum nb_fw(tlm::tlm_generic_payload &gp, tlm::tlm_phase &ph, sc_core::sc_time &d);
    void b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &d) { isock->b_transport(gp, d); }
    unsigned transport_dbg(tlm::tlm_generic_payload &gp) { return isock->transport_dbg(gp); }
    bool get_dmi(tlm::tlm_generic_payload &gp, tlm::tlm_dmi &dmi) { return isock->get_direct_mem_ptr(gp, dmi); }
    void invalidate(sc_dt::uint64 lo, sc_dt::uint64 hi) { tsock->invalidate_direct_mem_ptr(lo, hi); }
    void peq_cb(tlm::tlm_generic_payload &gp, const tlm::tlm_phase &ph);
    void send_resp(tlm::tlm_generic_payload *gp);

    tlm_utils::peq_with_cb_and_phase<AtBridge> peq_;
    std::deque<std::pair<tlm::tlm_generic_payload *, sc_core::sc_time>> ready_; // responses due, in order
    tlm::tlm_generic_payload *resp_ = nullptr; // BEGIN_RESP sent, END_RESP awaited
    Stats st_;
};

} // namespace armprof

#endif
