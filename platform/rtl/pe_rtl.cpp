// SPDX-License-Identifier: Apache-2.0
// pe_rtl.cpp: Pe::run_rtl(): the PE clocked one cycle at a time against the RTL sampler (scenario spe.sampler: rtl).
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "pe.h"
#include "rtl/spu_rtl.h"
#include "report.h"

namespace armprof {

using namespace sc_core;

/*
 * The transaction-level loop of Pe::step() cycle by cycle: every PE cycle retires
 * ops_per_cycle operations through SpuRtl::cycle() (one clock edge each), drawing a workload
 * operation only for each sampled lane, as step() draws one per sample; PMBIRQ is driven after
 * the cycle whose edge raised it, and the driver's handler runs irq_latency cycles later,
 * before the operations of that cycle, as in step(). With the same decisions this gives the
 * same records at the same model times as step(). Idle cycles (nothing in flight, FIFOs
 * empty, no lane can fire: SpuRtl::skip_idle()) are stepped without clocking the RTL, up to the
 * handler's start, as step() skips to the unit's next event.
 */
void Pe::run_rtl()
{
    SpuRtl &rtl = *cfg_.rtl;
    spu_t *spu = spu_.unit();
    // A driver call: with AT memory timing its PSB CSYNC waits for the outstanding writes'
    // answers (BufferPort::settle()), and the unit's own clock takes the cycles until they
    // arrive, as with the transaction-level PE; the RTL is told.
    // The driver's calls are made with SystemC at the unit's time, where the transaction-level
    // PE's (synced after each step with a quantum of one period or in AT lockstep) are: a
    // PSB CSYNC's TLM writes then reach the bus at the same point among other initiators'.
    const auto with_settle = [this, &rtl, spu](const std::function<void()> &call) {
        const uint64_t t = model_ticks(), now = sc_time_stamp().value();
        if (t > now)
            wait(sc_time::from_value(t - now));
        spu_stats a, b;
        spu_get_stats(spu, &a);
        const uint64_t t0 = spu_now(spu);
        call();
        spu_get_stats(spu, &b);
        rtl.unclocked(spu_now(spu) - t0, b.writer_stall_cycles - a.writer_stall_cycles);
    };
    rtl.start();
    if (!begin_session())
        return;
    if (spu_.irq_changed())
        spu_.flush_irq();
    const uint64_t rate = cfg_.ops_per_cycle;
    uint64_t last_progress = 0;
    const std::function<void(uint32_t, spu_op &)> draw = [this](uint32_t lane, spu_op &op) {
        next_op(done_ + lane, op);
    };
    while (done_ < cfg_.ops) {
        if (handler_due()) {
            with_settle([this] { service_irq(); });
            if (spu_.irq_changed())
                spu_.flush_irq();
            continue;
        }
        uint64_t n = cfg_.ops - done_ < rate ? cfg_.ops - done_ : rate;
        if (n == rate) {
            // Whole cycles up to the handler's start: the idle ones are not clocked.
            uint64_t max = (cfg_.ops - done_) / rate;
            if (irq_seen_)
                max = std::min<uint64_t>(max, irq_at_ + cfg_.irq_latency - spu_now(spu));
            else if (spu_.irq_level())
                max = 0;
            if (uint64_t k = rtl.skip_idle((uint32_t)rate, max)) {
                done_ += k * rate;
                if (pmu_)
                    sync_pmu();
                if (spu_.irq_changed())
                    spu_.flush_irq();
                progress_tick(last_progress);
                continue;
            }
        }
        rtl.cycle((uint32_t)n, draw);
        done_ += n;
        if (pmu_)
            sync_pmu();
        if (spu_.irq_changed())
            spu_.flush_irq();
        progress_tick(last_progress);
    }
    with_settle([this] { agent_.stop(); });
    if (spu_.irq_changed())
        spu_.flush_irq();
    // The transaction-level PE finishes at the unit's time of the session's end (Pe::step(): its
    // last sync); so does this one, as the platform's run loop ends the background traffic
    // when it sees the PEs done (a later finish would let the traffic book more bursts).
    const uint64_t t_stop = model_ticks();
    // As the transaction-level SPU finishes by itself, through its wake process
    // (UnitClock::reschedule()), what is in flight after the session (its records are
    // discarded: the buffer is disabled), the answers to its outstanding writes and any edge
    // still due, clock the RTL until the unit has no event left.
    for (unsigned i = 0; i < 0x10000; i++) {
        spu_stats st;
        spu_get_stats(spu, &st);
        if (!st.inflight_now && !st.fifo_bytes_now && !spu_writes_outstanding(spu) &&
            spu_cycles_to_next_event(spu) == UINT64_MAX)
            break;
        rtl.cycle(0, draw);
        if (!finished_ && sc_time_stamp().value() >= t_stop)
            finish();
    }
    if (spu_.irq_changed())
        spu_.flush_irq();
    // Nothing silently lost: say where the model could not follow the RTL.
    spu_ext_stats xs;
    spu_get_ext_stats(spu, &xs);
    const SpuRtl::Stats &rs = rtl.stats();
    uint64_t bad = xs.slot_mismatches + xs.enable_mismatches + xs.len_mismatches + xs.level_mismatches +
                   xs.owed_edges + rs.fire_disagree + rs.lat_clamped + rs.drain_mismatches;
    if (bad || std::getenv("ARMPROF_RTL_STATS")) {
        char line[640];
        std::snprintf(line, sizeof line,
                     "%s: rtl sampler: %llu cycles (%llu quiet ones in steps, %llu drain steps), %llu samples, %llu collisions, "
                     "%llu flushes, %llu cycles drain_ready low; model could not follow: slot %llu, enable %llu, length %llu, level %llu, owed %llu, "
                     "fire %llu, latency %llu, drain step %llu\n",
                     name(), (unsigned long long)rs.cycles, (unsigned long long)rs.skipped,
                     (unsigned long long)rs.drain_steps, (unsigned long long)rs.samples,
                     (unsigned long long)rs.collisions, (unsigned long long)rs.flushes, (unsigned long long)rs.ready_stalls,
                     (unsigned long long)xs.slot_mismatches, (unsigned long long)xs.enable_mismatches,
                     (unsigned long long)xs.len_mismatches, (unsigned long long)xs.level_mismatches,
                     (unsigned long long)xs.owed_edges, (unsigned long long)rs.fire_disagree,
                     (unsigned long long)rs.lat_clamped, (unsigned long long)rs.drain_mismatches);
        if (bad)
            SC_REPORT_WARNING(report::kRtl, line);
        else
            SC_REPORT_INFO(report::kRtl, line);
    }
    if (pmu_)
        sync_pmu();
    if (!finished_) {
        const uint64_t now = sc_time_stamp().value();
        if (t_stop > now)
            wait(sc_time::from_value(t_stop - now));
        finish();
    }
}

} // namespace armprof
