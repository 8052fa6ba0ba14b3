// SPDX-License-Identifier: Apache-2.0
// pe_group.cpp: the PE group's thread: the due PEs in index order, then one wait for the earliest resume time.
#include "pe_group.h"

#include <functional>
#include <queue>
#include <string>
#include <utility>

namespace armprof {

using namespace sc_core;

PeGroup::PeGroup(sc_module_name name, std::vector<Pe *> pes, sc_time quantum)
    : sc_module(name), pes_(std::move(pes)), quantum_(quantum.value())
{
    SC_HAS_PROCESS(PeGroup);
    SC_THREAD(run);
}

void PeGroup::run()
{
    // The PEs by the SystemC tick at which they go on, earliest first and in PE order at equal
    // ticks: a binary heap of (tick, index), so that a wake costs O(log PEs), not a scan.
    using Due = std::pair<uint64_t, size_t>;
    std::priority_queue<Due, std::vector<Due>, std::greater<Due>> due;
    for (size_t i = 0; i < pes_.size(); i++)
        due.push({0, i});
    std::vector<Due> again; // asked for `now`: they go on after a delta cycle
    // Runs PE i once more and files its next resume time.
    auto resume = [&](size_t i, uint64_t now) {
        uint64_t t;
        const bool more = pes_[i]->step(&t);
        if (sc_time_stamp().value() != now)
            SC_REPORT_ERROR("armprof/pe_group",
                            ("SystemC time moved while " + std::string(pes_[i]->name()) +
                             " ran in the PE group: something on its path waited (a TLM target that calls wait() "
                             "in b_transport?); the group's other PEs would run behind SystemC. Give each PE its "
                             "own thread (pe_threads: true, Scenario::pe_threads)").c_str());
        if (!more)
            return; // finished
        if (t <= now)
            again.push_back({now, i});
        else
            due.push({t, i});
    };
    while (!due.empty()) {
        const uint64_t now = sc_time_stamp().value();
        while (!due.empty() && due.top().first <= now) {
            const size_t i = due.top().second;
            due.pop();
            resume(i, now);
        }
        // Elided waits: the next PE only synchronises at the end of its quantum, it is due
        // within the quantum that holds SystemC's time and before the end of the current run
        // (horizon_), and nothing else in SystemC is pending before then (no process runnable,
        // no update, no delta or timed notification). Waiting would then only move time: no
        // process could run in between, nor see the PE's state before it goes on. The PE goes
        // on at once, its own SystemC time (Pe::sc_at_) the one it asked for. Anything the PE
        // then notifies, or a signal it writes, is pending activity and ends this.
        if (again.empty()) {
            const uint64_t qend = quantum_ ? (now / quantum_ + 1) * quantum_ : now;
            while (!due.empty() && pes_[due.top().second]->resume_elidable()) {
                const uint64_t t = due.top().first;
                if (t >= qend || t >= horizon_ || sc_time_to_pending_activity().value() <= t - now)
                    break;
                const size_t i = due.top().second;
                due.pop();
                resume(i, now);
                elided_++;
            }
        }
        for (const Due &d : again)
            due.push(d);
        again.clear();
        if (due.empty())
            return;
        // A PE that asked for `now` goes on after a delta cycle, as its own thread would.
        wait(sc_time::from_value(due.top().first - now));
    }
}

} // namespace armprof
