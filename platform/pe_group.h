// SPDX-License-Identifier: Apache-2.0
// pe_group.h: one SC_THREAD that runs the transaction-level PEs of a platform in PE index order (Pe::step()).
#ifndef ARMPROF_PLATFORM_PE_GROUP_H
#define ARMPROF_PLATFORM_PE_GROUP_H

#include <cstdint>
#include <vector>

#include <systemc>

#include "pe.h"

namespace armprof {

/*
 * Runs several PEs (built with Pe::Config::own_thread = false) in one SystemC thread. Each PE
 * asks, through Pe::step(), for the SystemC time at which it goes on (the end of its quantum,
 * an interrupt edge at the unit's time, a delta cycle); the group waits for the earliest of
 * them and runs every PE that is due then, in PE index order. Each PE waits where it would in
 * its own thread, so its writes, interrupt edges and driver calls keep their times.
 *
 * Elided waits: a PE due later in the same quantum only to give up its lead (a quantum
 * synchronisation) goes on without a wait when nothing else in SystemC is pending before it
 * and the current run (set_horizon()) lasts beyond it. No other process could have run in
 * between, so nothing can tell; with many PEs most of them then share one wait per quantum.
 *
 * What it changes against a thread per PE: PEs due at the same time run in index order, one
 * after another, where their threads ran in the order SystemC's timed-event heap gave them up
 * (which shifted with any other timed notification in the platform). Where PEs contend at
 * equal times (the bus books transfers in the order they are made) results follow PE order.
 * And a PE no longer costs a thread switch and a timed notification each quantum: 32 PEs cost
 * about 30 times one PE, where they cost 36 times in a thread each (bench-vp).
 *
 * Not for PEs whose driver calls wait inside the handler (AT memory timing: PSB CSYNC waits
 * for the answers of outstanding writes, BufferPort::settle()): the group's other PEs due at
 * that time would run behind SystemC time. The platform gives those PEs their own threads.
 * Nothing else on a PE's path may wait either (the platform's SMMU, bus and memory annotate
 * their delays, as LT targets should); if SystemC time moves during a PE's turn the group
 * stops the simulation with an error (SC_REPORT_ERROR, armprof/pe_group).
 */
class PeGroup : public sc_core::sc_module {
public:
    // `quantum`: the global quantum (elided waits stay within one).
    PeGroup(sc_core::sc_module_name name, std::vector<Pe *> pes, sc_core::sc_time quantum);

    // The end of the current sc_start() (Platform::run() sets it): waits beyond it are not
    // elided, so a run stops with every PE where its own thread would be. By default nothing
    // is elided (whoever calls sc_start() may stop the simulation at any time).
    void set_horizon(const sc_core::sc_time &end) { horizon_ = end.value(); }
    void clear_horizon() { horizon_ = 0; }
    // Waits elided so far.
    uint64_t elided() const { return elided_; }

private:
    void run();
    std::vector<Pe *> pes_;
    uint64_t quantum_;
    uint64_t horizon_ = 0;
    uint64_t elided_ = 0;
};

} // namespace armprof

#endif
