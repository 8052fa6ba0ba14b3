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

const char *buffer_timing_name(BufferTiming t)
{
    return t == BufferTiming::Off ? "off" : t == BufferTiming::Lt ? "lt" : "at";
}

// One AT write: the payload (whose memory manager is the port), its regime and a copy of the
// bytes (the model's buffer is only valid during the call).
struct BufferPort::AtTxn {
    tlm::tlm_generic_payload gp;
    regime_ext ext;
    std::vector<uint8_t> buf;
    sc_time issue;            // the unit's time at the call
    sc_time req_sent;         // BEGIN_REQ time
    bool responded = false;   // BEGIN_RESP seen (or TLM_COMPLETED)
    bool completed = false;   // the target completed the transaction: no END_RESP to send
    armprof_mem_result res{};
};

void BufferPort::Mm::free(tlm::tlm_generic_payload *gp)
{
    for (auto &t : owner->at_pool_)
        if (&t->gp == gp)
            owner->at_free_.push_back(t.get());
}

BufferPort::BufferPort(const char *socket_name, sc_time period)
    : mem(socket_name), period_ticks_(period.value() ? period.value() : 1), peq_(this, &BufferPort::peq_cb)
{
    mem.register_invalidate_direct_mem_ptr(this, &BufferPort::invalidate);
    mem.register_nb_transport_bw(this, &BufferPort::nb_bw);
    gp_.set_streaming_width(0);
    mm_.owner = this;
}

BufferPort::~BufferPort()
{
    for (auto &t : at_pool_)
        t->gp.clear_extension(&t->ext);
}

// The unit's time minus SystemC's: the local time offset of a temporally decoupled initiator.
sc_time BufferPort::local_offset() const
{
    uint64_t t = unit_cycles() * period_ticks_, now = sc_time_stamp().value();
    return t > now ? sc_time::from_value(t - now) : SC_ZERO_TIME;
}

uint32_t BufferPort::to_cycles(const sc_time &t) const
{
    uint64_t c = (t.value() + period_ticks_ - 1) / period_ticks_;
    return c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
}

// The model's answer to a finished write: the SMMU's result, or for a target reached without
// an SMMU the response status as an External abort (SEA, or AEA when reported asynchronously).
armprof_mem_result BufferPort::answer(tlm::tlm_generic_payload &gp, regime_ext &ext, uint32_t len)
{
    armprof_mem_result r = ext.result;
    if (!ext.translated) { // no SMMU on the path: a physical target answered
        if (gp.is_response_ok()) {
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
    return r;
}

armprof_mem_result BufferPort::write_tlm(uint64_t addr, const uint8_t *data, uint32_t len, const armprof_regime &rg)
{
    const sc_time offset = local_offset();
    sc_time delay = offset;
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
    const sc_time took = delay > offset ? delay - offset : SC_ZERO_TIME;
    tlm_time_ += took;
    armprof_mem_result r = answer(gp_, ext_, len);
    r.latency = timing_ == BufferTiming::Lt ? to_cycles(took) : 0;
    bool covered = dmi_valid_ && same_regime(rg, dmi_rg_) && addr - dmi_start_ <= dmi_last_ &&
                   len - 1 <= dmi_last_ - (addr - dmi_start_);
    if (r.status == ARMPROF_MEM_OK && use_dmi_ && gp_.is_dmi_allowed() && !covered) {
        tlm::tlm_dmi d;
        if (mem->get_direct_mem_ptr(gp_, d) && d.is_write_allowed()) {
            dmi_start_ = d.get_start_address();
            dmi_last_ = d.get_end_address() - d.get_start_address();
            dmi_host_ = d.get_dmi_ptr();
            dmi_latency_ps_ = (uint64_t)(d.get_write_latency().to_seconds() * 1e12 + 0.5);
            dmi_latency_cycles_ = timing_ == BufferTiming::Lt ? to_cycles(d.get_write_latency()) : 0;
            dmi_rg_ = rg;
            dmi_valid_ = true;
        }
    }
    gp_.clear_extension(&ext_);
    return r;
}

// A barrier (PSB CSYNC, TSB CSYNC) with AT writes pending: the model cannot finish it in one
// call, so the calling thread (the PE's or the trace source's) waits, at the unit's time, for
// the answers, calling `barrier` again after each until nothing is outstanding. Outside a
// thread (or with LT / Off timing) it is the one call.
void BufferPort::settle(const std::function<void()> &barrier, const std::function<bool()> &busy)
{
    barrier();
    if (timing_ != BufferTiming::At) {
        // Synchronous answers take effect at once in a barrier; call it again while the unit
        // still reports writes outstanding (each call settles those it has issued).
        for (unsigned i = 0; i < 4096 && busy(); i++)
            barrier();
        return;
    }
    if (!busy())
        return;
    sc_process_handle h = sc_get_current_process_handle();
    if (!h.valid() || h.proc_kind() != SC_THREAD_PROC_)
        return;
    sc_time ahead = local_offset();
    if (ahead > SC_ZERO_TIME)
        wait(ahead);
    while (busy()) {
        wait(at_answered_);
        barrier();
    }
}

// ----- Approximately timed ----------------------------------------------------------------

armprof_mem_result BufferPort::write_at(uint64_t addr, const uint8_t *data, uint32_t len, const armprof_regime &rg)
{
    if (at_free_.empty()) {
        at_pool_.emplace_back(new AtTxn);
        AtTxn *n = at_pool_.back().get();
        n->gp.set_mm(&mm_);
        n->gp.set_extension(&n->ext);
        at_free_.push_back(n);
    }
    AtTxn *t = at_free_.back();
    at_free_.pop_back();
    t->buf.assign(data, data + len);
    tlm::tlm_generic_payload &gp = t->gp;
    gp.set_command(tlm::TLM_WRITE_COMMAND);
    gp.set_address(addr);
    gp.set_data_ptr(t->buf.data());
    gp.set_data_length(len);
    gp.set_streaming_width(len);
    gp.set_byte_enable_ptr(nullptr);
    gp.set_dmi_allowed(false);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    t->ext.regime = rg;
    t->ext.result = armprof_mem_result{};
    t->ext.translated = false;
    t->issue = sc_time_stamp() + local_offset();
    t->responded = t->completed = false;
    gp.acquire();
    at_inflight_.push_back(t);
    st_.tlm_writes++;
    if (!at_req_)
        send_req(t);
    else
        at_waiting_.push_back(t);
    armprof_mem_result r{};
    r.status = ARMPROF_MEM_PENDING;
    return r;
}

// BEGIN_REQ at the later of now and the unit's time of the write (base protocol: one request
// in the request phase at a time, so the next waits for END_REQ).
void BufferPort::send_req(AtTxn *t)
{
    at_req_ = t;
    sc_time now = sc_time_stamp(), d = t->issue > now ? t->issue - now : SC_ZERO_TIME;
    t->req_sent = now + d;
    tlm::tlm_phase ph = tlm::BEGIN_REQ;
    tlm::tlm_sync_enum s = mem->nb_transport_fw(t->gp, ph, d);
    if (s == tlm::TLM_COMPLETED) {
        t->completed = true;
        peq_.notify(t->gp, tlm::BEGIN_RESP, d);
    } else if (s == tlm::TLM_UPDATED) {
        peq_.notify(t->gp, ph, d);
    }
}

tlm::tlm_sync_enum BufferPort::nb_bw(tlm::tlm_generic_payload &gp, tlm::tlm_phase &ph, sc_time &d)
{
    peq_.notify(gp, ph, d);
    return tlm::TLM_ACCEPTED;
}

BufferPort::AtTxn *BufferPort::find(tlm::tlm_generic_payload &gp)
{
    for (AtTxn *t : at_inflight_)
        if (&t->gp == &gp)
            return t;
    return nullptr;
}

void BufferPort::end_req(AtTxn *t)
{
    if (at_req_ != t)
        return;
    at_req_ = nullptr;
    sc_time w = sc_time_stamp() - t->req_sent;
    if (w > at_req_wait_max_)
        at_req_wait_max_ = w;
    if (!at_waiting_.empty()) {
        AtTxn *n = at_waiting_.front();
        at_waiting_.pop_front();
        send_req(n);
    }
}

void BufferPort::peq_cb(tlm::tlm_generic_payload &gp, const tlm::tlm_phase &ph)
{
    AtTxn *t = find(gp);
    if (!t)
        SC_REPORT_ERROR("armprof/buffer_port", "AT: a phase for a transaction that is not in flight");
    if (ph == tlm::END_REQ) {
        end_req(t);
        return;
    }
    if (ph != tlm::BEGIN_RESP)
        SC_REPORT_ERROR("armprof/buffer_port", "AT: unexpected phase on the backward path");
    end_req(t); // BEGIN_RESP implies END_REQ
    tlm_time_ += sc_time_stamp() - t->req_sent;
    t->res = answer(gp, t->ext, gp.get_data_length());
    t->responded = true;
    if (!t->completed) {
        tlm::tlm_phase e = tlm::END_RESP;
        sc_time z = SC_ZERO_TIME;
        mem->nb_transport_fw(gp, e, z);
    }
    deliver_answers();
}

// Answers go to the unit in issue order (a response that overtakes an earlier write waits).
void BufferPort::deliver_answers()
{
    while (!at_hold_ && !at_inflight_.empty() && at_inflight_.front()->responded) {
        AtTxn *h = at_inflight_.front();
        at_inflight_.pop_front();
        armprof_mem_result r = h->res;
        h->gp.release(); // back to the pool once the target has released it too
        on_mem_complete(r);
        at_answered_.notify(SC_ZERO_TIME);
    }
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
