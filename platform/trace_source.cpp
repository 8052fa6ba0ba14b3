// SPDX-License-Identifier: Apache-2.0
// trace_source.cpp: synthetic trace bytes and triggers into the TRBU wrapper, TRBIRQ servicing with the quantum keeper.
#include "trace_source.h"

#include <vector>

#include "armprof/rng.h"

namespace armprof {

using namespace sc_core;

TraceSource::TraceSource(sc_module_name name, const Config &cfg, TrbuModule &trbu, TrbeAgent &agent)
    : sc_module(name), cfg_(cfg), trbu_(trbu), agent_(agent)
{
    if (!cfg_.mean_burst)
        cfg_.mean_burst = 1;
    if (!cfg_.bytes_per_cycle)
        cfg_.bytes_per_cycle = 1;
    qk_.set_global_quantum(cfg_.quantum);
    SC_HAS_PROCESS(TraceSource);
    SC_THREAD(run);
}

// Bring SystemC time to the model's time, then drive TRBIRQ.
void TraceSource::sync_irq()
{
    if (!trbu_.irq_changed())
        return;
    qk_.set(trbu_.model_time() > sc_time_stamp() ? trbu_.model_time() - sc_time_stamp() : SC_ZERO_TIME);
    qk_.sync();
    trbu_.flush_irq();
}

// Hands `len` bytes to the unit; those it refused (trbu_stats.bytes_refused grew: back-pressure,
// the tail of the bytes) become `held`, those it discarded (unit disabled) are gone. Returns the
// bytes it took.
size_t TraceSource::hand_over(trbu_t *t, const uint8_t *data, size_t len, std::vector<uint8_t> &held)
{
    trbu_stats before, after;
    trbu_get_stats(t, &before);
    size_t a = trbu_trace_bytes(t, data, len);
    trbu_get_stats(t, &after);
    uint64_t refused = after.bytes_refused - before.bytes_refused;
    if (refused > len - a)
        refused = len - a;
    std::vector<uint8_t> rest(data + len - refused, data + len);
    held.swap(rest);
    return a;
}

void TraceSource::run()
{
    qk_.reset();
    if (!agent_.probe()) {
        finished_ = true;
        finished_event.notify(SC_ZERO_TIME);
        return;
    }
    agent_.start();
    sync_irq();
    trbu_t *t = trbu_.unit();
    ap_prng64 rng = {cfg_.seed};
    std::vector<uint8_t> burst(2 * (size_t)cfg_.mean_burst);
    uint64_t since_trig = 0, next_trig = cfg_.trigger_every ? 1 + ap_prng64_below(&rng, 2 * cfg_.trigger_every) : 0;
    bool irq = false;
    uint64_t irq_at = 0;
    // Bytes the unit refused (memory-timing back-pressure: its internal buffer is full behind
    // outstanding writes) stay here and are offered again: the trace unit stalls rather than
    // dropping trace, so a slow memory delays the trace instead of losing it.
    std::vector<uint8_t> held;
    while (produced_ < cfg_.bytes || !held.empty()) {
        if (trbu_.irq_level() && !irq) {
            irq = true;
            irq_at = trbu_now(t);
        }
        if (irq && trbu_now(t) >= irq_at + cfg_.irq_latency) {
            agent_.on_irq((uint64_t)(trbu_.model_time().to_seconds() * 1e9));
            irq = trbu_.irq_level();
            if (irq)
                irq_at = trbu_now(t);
            sync_irq();
            continue;
        }
        if (!held.empty()) {
            size_t a = hand_over(t, held.data(), held.size(), held);
            // Stalled: wait for the unit's next event (a write accepted) before offering again.
            uint64_t c = a ? (a / cfg_.bytes_per_cycle ? a / cfg_.bytes_per_cycle : 1) : trbu_cycles_to_next_event(t);
            trbu_advance(t, c == 0 || c == UINT64_MAX ? 1 : c);
            sync_irq();
            qk_.set(trbu_.model_time() > sc_time_stamp() ? trbu_.model_time() - sc_time_stamp() : SC_ZERO_TIME);
            if (qk_.need_sync())
                qk_.sync();
            continue;
        }
        uint64_t n = 1 + ap_prng64_below(&rng, 2 * (uint64_t)cfg_.mean_burst - 1);
        if (n > cfg_.bytes - produced_)
            n = cfg_.bytes - produced_;
        for (uint64_t i = 0; i < n; i++)
            burst[i] = (uint8_t)((produced_ + i) % 29 == 0 ? ap_prng64_next(&rng) : (produced_ + i) & 0x7F);
        hand_over(t, burst.data(), (size_t)n, held);
        produced_ += n;
        since_trig += n;
        if (cfg_.trigger_every && since_trig >= next_trig) {
            trbu_trigger(t);
            triggers_++;
            since_trig = 0;
            next_trig = 1 + ap_prng64_below(&rng, 2 * cfg_.trigger_every);
        }
        uint64_t cyc = n / cfg_.bytes_per_cycle ? n / cfg_.bytes_per_cycle : 1;
        trbu_advance(t, cyc);
        sync_irq();
        qk_.set(trbu_.model_time() > sc_time_stamp() ? trbu_.model_time() - sc_time_stamp() : SC_ZERO_TIME);
        if (qk_.need_sync())
            qk_.sync();
    }
    // The session ends as arm_trbe_update_buffer() ends it (a pending interrupt first).
    if (trbu_.irq_level())
        agent_.on_irq((uint64_t)(trbu_.model_time().to_seconds() * 1e9));
    agent_.stop();
    sync_irq();
    qk_.sync();
    trbu_.reschedule();
    finished_ = true;
    finished_event.notify(SC_ZERO_TIME);
}

} // namespace armprof
