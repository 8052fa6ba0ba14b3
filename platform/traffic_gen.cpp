// SPDX-License-Identifier: Apache-2.0
// traffic_gen.cpp: seeded background read bursts at a share of a bus port's bandwidth, throttled by outstanding bursts.
#include "traffic_gen.h"

#include <stdexcept>

namespace armprof {

using namespace sc_core;

TrafficGen::TrafficGen(sc_module_name name, const Config &cfg) : sc_module(name), sock("sock"), cfg_(cfg)
{
    if (!(cfg_.share > 0 && cfg_.share <= 1))
        throw std::invalid_argument("background traffic: share must be in (0, 1]");
    if (cfg_.burst_bytes == 0 || cfg_.burst_bytes > 4096)
        throw std::invalid_argument("background traffic: burst_bytes must be 1..4096");
    if (!(cfg_.bytes_per_ns > 0))
        throw std::invalid_argument("background traffic needs a bus bandwidth (bus.bytes_per_ns > 0)");
    if (cfg_.span < cfg_.burst_bytes || cfg_.outstanding == 0)
        throw std::invalid_argument("background traffic: span >= burst_bytes, outstanding >= 1");
    rng_ = cfg_.seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    if (!rng_)
        rng_ = 1;
    buf_.assign(cfg_.burst_bytes, 0);
    qk_.set_global_quantum(cfg_.quantum);
    SC_HAS_PROCESS(TrafficGen);
    SC_THREAD(run);
}

uint64_t TrafficGen::next_rand()
{
    rng_ ^= rng_ >> 12;
    rng_ ^= rng_ << 25;
    rng_ ^= rng_ >> 27;
    return rng_ * 0x2545F4914F6CDD1Dull;
}

void TrafficGen::run()
{
    // Mean gap between issues, in ticks of the time resolution.
    const uint64_t mean = sc_time((double)cfg_.burst_bytes / (cfg_.share * cfg_.bytes_per_ns), SC_NS).value();
    const uint64_t slots = cfg_.span / cfg_.burst_bytes;
    std::vector<uint64_t> done(cfg_.outstanding, 0); // completion times of the last bursts, a ring
    unsigned ring = 0;
    tlm::tlm_generic_payload gp;
    qk_.reset();
    uint64_t planned = sc_time_stamp().value() + next_rand() % (2 * mean + 1);
    while (!stop_) {
        // The burst leaves at its planned time, or when the oldest of `outstanding` completes.
        uint64_t issue = planned > done[ring] ? planned : done[ring];
        st_.behind += sc_time::from_value(issue - planned);
        uint64_t now = sc_time_stamp().value();
        if (issue < now)
            issue = now;
        qk_.set(sc_time::from_value(issue - now));
        if (qk_.need_sync()) {
            qk_.sync();
            continue; // stop_ may have been set meanwhile
        }
        uint64_t addr = cfg_.base + (next_rand() % slots) * cfg_.burst_bytes;
        gp.set_command(tlm::TLM_READ_COMMAND);
        gp.set_address(addr);
        gp.set_data_ptr(buf_.data());
        gp.set_data_length(cfg_.burst_bytes);
        gp.set_streaming_width(cfg_.burst_bytes);
        gp.set_byte_enable_ptr(nullptr);
        gp.set_dmi_allowed(false);
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_time d = sc_time::from_value(issue - now);
        sock->b_transport(gp, d);
        sc_time lat = d - sc_time::from_value(issue - now);
        st_.transactions++;
        st_.bytes += cfg_.burst_bytes;
        if (gp.is_response_error())
            st_.errors++;
        st_.latency_sum += lat;
        if (lat > st_.latency_max)
            st_.latency_max = lat;
        done[ring] = issue + lat.value();
        ring = (ring + 1) % cfg_.outstanding;
        planned = issue + next_rand() % (2 * mean + 1);
    }
    done_ = true;
}

} // namespace armprof
