// SPDX-License-Identifier: Apache-2.0
// bus.cpp: address-map routing with latency, bandwidth and contention per target.
#include "bus.h"

#include "ap_tlm.h"

namespace armprof {

using namespace sc_core;

uint64_t IntervalSet::first_fit(uint64_t t, uint64_t len) const
{
    auto it = m_.upper_bound(t);
    if (it != m_.begin()) {
        auto p = std::prev(it);
        if (p->second > t)
            t = p->second;
    }
    for (; it != m_.end() && it->first < t + len; ++it)
        if (it->second > t)
            t = it->second;
    return t;
}

uint64_t IntervalSet::add(uint64_t lo, uint64_t hi)
{
    if (hi <= lo)
        return 0;
    uint64_t covered = 0, nlo = lo, nhi = hi;
    auto it = m_.upper_bound(lo);
    if (it != m_.begin() && std::prev(it)->second >= lo)
        --it;
    while (it != m_.end() && it->first <= hi) {
        uint64_t a = it->first > lo ? it->first : lo, b = it->second < hi ? it->second : hi;
        if (b > a)
            covered += b - a;
        if (it->first < nlo)
            nlo = it->first;
        if (it->second > nhi)
            nhi = it->second;
        it = m_.erase(it);
    }
    m_.emplace(nlo, nhi);
    return (hi - lo) - covered;
}

void IntervalSet::prune(uint64_t before)
{
    while (!m_.empty() && m_.begin()->second < before)
        m_.erase(m_.begin());
}

sc_time Bus::drained_at() const
{
    uint64_t end = 0;
    for (const Port &p : ports_)
        if (p.booked.last_end() > end)
            end = p.booked.last_end();
    return sc_time::from_value(end);
}

Bus::Bus(sc_module_name name) : sc_module(name), tsock("tsock"), isock("isock")
{
    tsock.register_b_transport(this, &Bus::b_transport);
    tsock.register_transport_dbg(this, &Bus::transport_dbg);
    tsock.register_get_direct_mem_ptr(this, &Bus::get_direct_mem_ptr);
    isock.register_invalidate_direct_mem_ptr(this, &Bus::invalidate_direct_mem_ptr);
}

void Bus::map(unsigned port, uint64_t base, uint64_t size, sc_time latency, double bytes_per_ns,
              const std::string &name)
{
    if (ports_.size() <= port)
        ports_.resize(port + 1);
    Port &p = ports_[port];
    p.base = base;
    p.size = size;
    p.latency = latency;
    p.bytes_per_ns = bytes_per_ns;
    p.name = name;
    p.mapped = true;
}

int Bus::decode(uint64_t addr, unsigned len) const
{
    for (size_t i = 0; i < ports_.size(); i++) {
        const Port &p = ports_[i];
        if (p.mapped && addr >= p.base && addr - p.base < p.size && len <= p.size - (addr - p.base))
            return (int)i;
    }
    return -1;
}

void Bus::b_transport(int, tlm::tlm_generic_payload &trans, sc_time &delay)
{
    uint64_t addr = trans.get_address();
    unsigned len = trans.get_data_length();
    regime_ext *x = trans.get_extension<regime_ext>();
    Stats &rq = req_[x ? requester_key(x->regime.pe, x->regime.unit) : 0xFFFFu];
    int port = decode(addr, len);
    if (port < 0) {
        rq.decode_errors++;
        trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    Port &p = ports_[port];
    // Contention: the transfer takes the first free slot of the target from its arrival on.
    const uint64_t now = sc_time_stamp().value();
    sc_time arrive = sc_time_stamp() + delay + p.latency;
    sc_time xfer = p.bytes_per_ns > 0 ? sc_time((double)len / p.bytes_per_ns, SC_NS) : SC_ZERO_TIME;
    p.booked.prune(now);
    uint64_t a = arrive.value(), s0 = xfer.value() ? p.booked.first_fit(a, xfer.value()) : a;
    if (xfer.value())
        p.booked.add(s0, s0 + xfer.value());
    sc_time wait = sc_time::from_value(s0 - a);
    delay += p.latency + wait + xfer;
    IntervalSet &rqq = req_queued_[x ? requester_key(x->regime.pe, x->regime.unit) : 0xFFFFu];
    p.queued.prune(now);
    rqq.prune(now);
    sc_time pq = sc_time::from_value(p.queued.add(a, s0)), rqt = sc_time::from_value(rqq.add(a, s0));
    p.st.wait += pq;
    rq.wait += rqt;
    for (Stats *s : {&p.st, &rq}) {
        s->transactions++;
        s->bytes += len;
        s->busy += xfer;
        s->wait_sum += wait;
        if (wait > s->wait_max)
            s->wait_max = wait;
    }
    trans.set_address(addr - p.base);
    isock[port]->b_transport(trans, delay);
    trans.set_address(addr);
    if (trans.is_response_error()) {
        p.st.errors++;
        rq.errors++;
    }
}

unsigned Bus::transport_dbg(int, tlm::tlm_generic_payload &trans)
{
    uint64_t addr = trans.get_address();
    int port = decode(addr, 1);
    if (port < 0)
        return 0;
    Port &p = ports_[port];
    unsigned len = trans.get_data_length();
    uint64_t room = p.size - (addr - p.base);
    if (len > room)
        trans.set_data_length((unsigned)room);
    trans.set_address(addr - p.base);
    unsigned n = isock[port]->transport_dbg(trans);
    trans.set_address(addr);
    trans.set_data_length(len);
    return n;
}

bool Bus::get_direct_mem_ptr(int, tlm::tlm_generic_payload &trans, tlm::tlm_dmi &dmi)
{
    uint64_t addr = trans.get_address();
    int port = decode(addr, 1);
    if (port < 0)
        return false;
    Port &p = ports_[port];
    trans.set_address(addr - p.base);
    bool ok = isock[port]->get_direct_mem_ptr(trans, dmi);
    trans.set_address(addr);
    // Rebase and clip to the window, also when refused (the range says where DMI is denied).
    uint64_t lo = dmi.get_start_address(), hi = dmi.get_end_address();
    if (hi > p.size - 1)
        hi = p.size - 1;
    if (ok) {
        dmi.set_dmi_ptr(dmi.get_dmi_ptr());
        dmi.set_start_address(lo + p.base);
        dmi.set_end_address(hi + p.base);
        dmi.set_read_latency(dmi.get_read_latency() + p.latency);
        dmi.set_write_latency(dmi.get_write_latency() + p.latency);
    } else {
        dmi.set_start_address(p.base + (lo > p.size ? 0 : lo));
        dmi.set_end_address(p.base + hi);
    }
    return ok;
}

void Bus::invalidate_direct_mem_ptr(int port, sc_dt::uint64 lo, sc_dt::uint64 hi)
{
    if (port < 0 || (size_t)port >= ports_.size())
        return;
    const Port &p = ports_[port];
    uint64_t a = lo + p.base;
    uint64_t b = (hi >= p.size - 1) ? p.base + p.size - 1 : hi + p.base;
    for (unsigned i = 0; i < tsock.size(); i++)
        tsock[i]->invalidate_direct_mem_ptr(a, b);
}

} // namespace armprof
