// SPDX-License-Identifier: Apache-2.0
// at_bridge.cpp: AT (four phases) to LT (b_transport) bridge.
#include "at_bridge.h"

namespace armprof {

using namespace sc_core;

AtBridge::AtBridge(sc_module_name name) : sc_module(name), tsock("tsock"), isock("isock"), peq_(this, &AtBridge::peq_cb)
{
    tsock.register_nb_transport_fw(this, &AtBridge::nb_fw);
    tsock.register_b_transport(this, &AtBridge::b_transport);
    tsock.register_transport_dbg(this, &AtBridge::transport_dbg);
    tsock.register_get_direct_mem_ptr(this, &AtBridge::get_dmi);
    isock.register_invalidate_direct_mem_ptr(this, &AtBridge::invalidate);
}

tlm::tlm_sync_enum AtBridge::nb_fw(tlm::tlm_generic_payload &gp, tlm::tlm_phase &ph, sc_time &d)
{
    if (ph == tlm::BEGIN_REQ) {
        if (gp.has_mm())
            gp.acquire();
        sc_time lt = d;
        isock->b_transport(gp, lt);
        st_.transactions++;
        peq_.notify(gp, tlm::BEGIN_RESP, lt);
        ph = tlm::END_REQ;
        return tlm::TLM_UPDATED;
    }
    if (ph == tlm::END_RESP) {
        peq_.notify(gp, tlm::END_RESP, d);
        return tlm::TLM_COMPLETED;
    }
    SC_REPORT_ERROR("armprof/at_bridge", "unexpected phase on the forward path");
    return tlm::TLM_COMPLETED;
}

void AtBridge::send_resp(tlm::tlm_generic_payload *gp)
{
    resp_ = gp;
    tlm::tlm_phase ph = tlm::BEGIN_RESP;
    sc_time d = SC_ZERO_TIME;
    tlm::tlm_sync_enum s = tsock->nb_transport_bw(*gp, ph, d);
    if (s == tlm::TLM_COMPLETED || (s == tlm::TLM_UPDATED && ph == tlm::END_RESP))
        peq_.notify(*gp, tlm::END_RESP, d);
}

void AtBridge::peq_cb(tlm::tlm_generic_payload &gp, const tlm::tlm_phase &ph)
{
    if (ph == tlm::BEGIN_RESP) {
        if (resp_)
            ready_.emplace_back(&gp, sc_time_stamp());
        else
            send_resp(&gp);
        return;
    }
    // END_RESP: the response channel is free again.
    if (&gp != resp_)
        return;
    resp_ = nullptr;
    if (gp.has_mm())
        gp.release();
    if (!ready_.empty()) {
        auto n = ready_.front();
        ready_.pop_front();
        st_.resp_wait += sc_time_stamp() - n.second;
        send_resp(n.first);
    }
}

} // namespace armprof
