// SPDX-License-Identifier: Apache-2.0
// spu_rtl.h: the Verilated RTL sample interval counter and record FIFO (rtl-cosim, --sc) in place of the SPU model's, for one PE.
#ifndef ARMPROF_PLATFORM_SPU_RTL_H
#define ARMPROF_PLATFORM_SPU_RTL_H

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <systemc>

#include "armprof/spu.h"
#include "../spu_module.h" /* relative: also right in the installed include/armprof/systemc/rtl/ */

namespace armprof {

/*
 * The scenario option `spe: {sampler: rtl}`: one Vspu_cosim_top_sc (rtl-cosim/rtl, library
 * armprof_cosim_sc) per PE, clocked at the PE's period, decides which
 * operations are sampled and which collide, and how many bytes leave the record FIFO at each
 * edge; the SPU model follows it through its external-sampler hook (spu_cycle_ext(),
 * capi/armprof/spu.h) and keeps filters, encoder, buffer writer, management events and
 * registers. Per PE cycle (cycle()), between a falling and the next falling edge:
 *   inputs from the model: PMSIRR_EL1 / PMSICR_EL1 when software changed them, the enable
 *   (StatisticalProfilingEnabled()), op_valid for the n lanes, fifo_discard = PMBSR_EL1.S and
 *   fifo_flush when the model's FIFO is empty and the RTL's is not (a management event
 *   discarded it or a PSB CSYNC wrote it), drain_ready = spu_drain_ready() (the buffer writer
 *   takes the FIFO's offer at this edge: the RTL drains only as the memory system accepts
 *   writes, as the model's own FIFO does); then, from the combinational `fire`, the operation
 *   of each selected lane (`draw`, in lane order, as the transaction-level PE draws one
 *   workload operation per sample) with its latency (lane_lat) and predicted record length
 *   (lane_len, spu_predict_record_len()); the rising edge; after the falling edge fire_q,
 *   coll_q, the drained bytes, the FIFO level and PMSICR_EL1 go to spu_cycle_ext().
 * The model's cycle N ends at SystemC's N periods (the reset takes delta cycles only), so the
 * buffer writes its edge makes reach the bus at the unit's time, with SystemC there (LT: the
 * edge of the model's cycle N + 1 is made at SystemC's N periods). Memory timing: Off, Lt and
 * At. At: SystemC is brought to the cycle's start before the inputs are read, the answers
 * that arrive during the edge's delta cycles are held (BufferPort::hold_answers()) and given
 * after the model's edge, and SystemC then moves to the cycle's end, so each answer takes
 * effect at the cycle the transaction-level PE's lockstep gives it (Pe::step()); no quiet step
 * while AT writes are pending; cycles the unit's own clock takes while the driver's PSB CSYNC
 * waits for answers are counted (unclocked()).
 * The bus books transfers in the order they are made (Bus::b_transport): with background
 * traffic on TLM writes, rtl == model needs both PEs to make each writing edge at the same
 * SystemC time. This PE always does (SystemC at the edge); the transaction-level PE does with
 * a quantum of at most one clock period (Pe::step(), write_sync_) and under AT while writes are
 * pending; at a larger LT quantum it makes them up to a step or a quantum ahead, and the
 * traffic's bursts are booked in another order (docs/integration.md).
 * The RTL's clock has edges only in clocked cycles: quiet cycles (skip_idle(), a stalled
 * writer's included) are stepped in the model, the RTL's FIFO drains them in one edge and its
 * COUNT is reloaded after them (ARMPROF_RTL_EVERY_CYCLE=1 in the environment: a free-running
 * sc_clock and every cycle clocked edge by edge with its delta cycles, as before:
 * bench-stream's yardstick). With one PE the output is the same either way unless a TLM
 * write's latency depends on when it reaches the bus (LT timing with bus contention: the
 * yardstick's edges come 2.5 periods after the model's time, and its TLM writes reach the bus
 * that late; bench-stream's example writes through DMI; nor are AT answers held: the yardstick
 * is for Off and Lt); with several, two PEs' TLM writes made at the same time can reach the bus
 * in the other order (bus_time_ns / wait_ns then differ by a few ns; the records, dumps and
 * interrupts do not).
 * Without the SystemC RTL in the build (ARMPROF_WITHOUT contains rtl-cosim) the constructor
 * throws std::invalid_argument.
 */
class SpuRtl : public sc_core::sc_module {
public:
    static constexpr uint32_t kLanes = 4; // the RTL's W: operations per cycle at most

    // Whether this build has the SystemC RTL.
    static bool available();
    // Why a unit of this configuration with `lanes` operations per cycle cannot use the RTL
    // (no RTL in the build; max_inflight > 8, fifo_bytes > 1024, drain_bytes_per_cycle > 32,
    // lanes > kLanes: its structural sizes), or "" when it can. Ask before constructing.
    static std::string why_not(const spu_config &c, uint32_t lanes);

    // Switches the unit to its external sampler (throws std::invalid_argument as why_not()).
    SpuRtl(sc_core::sc_module_name name, SpuModule &spu, const sc_core::sc_time &period, uint32_t lanes);
    ~SpuRtl() override;

    // From the PE's thread: the reset pulse (two clock cycles; the model's time does not move).
    void start();
    // From the PE's thread: one PE cycle in which n (<= lanes) operations retire; `draw` gives
    // the operation of each lane (0..n-1) the counter selects.
    void cycle(uint32_t n, const std::function<void(uint32_t, spu_op &)> &draw);
    // From the PE's thread, before cycle(): when nothing is in flight and no lane can fire in
    // the next cycles with n operations each, steps the model through up to max_cycles of them
    // with the RTL clocked at most once (the time moves as many periods) and returns how many;
    // 0 when the next cycle has to be clocked.
    uint64_t skip_idle(uint32_t n, uint64_t max_cycles);

    // From the PE's thread, after a driver call that waited for AT answers (a PSB CSYNC's
    // BufferPort::settle()): the unit's own clock (UnitClock::at_now()) took `cycles` cycles
    // meanwhile, `stalls` of them with the writer stalled, without the RTL's edges (the PE's
    // thread was waiting). They are counted, and the next clocked cycle reloads COUNT.
    void unclocked(uint64_t cycles, uint64_t stalls);

    struct Stats {
        uint64_t cycles = 0, samples = 0, collisions = 0;
        uint64_t fire_disagree = 0;   // fire_q after the edge != fire read before it
        uint64_t lat_clamped = 0;     // latencies above the RTL's 65535
        uint64_t flushes = 0;         // fifo_flush cycles
        uint64_t skipped = 0;         // of cycles, quiet ones taken in steps (skip_idle())
        uint64_t drain_steps = 0;     // steps that clocked the RTL once to drain its FIFO
        uint64_t drain_mismatches = 0; // drain steps after which the RTL's FIFO was not as expected
        uint64_t drain_events = 0;    // drain steps cut short by a management event
        uint64_t ready_stalls = 0;    // cycles the RTL's FIFO offered bytes with drain_ready low
                                      // (the buffer writer stalled: the model's writer_stall_cycles)
        uint64_t step_stalls = 0;     // of ready_stalls, those taken in steps (skip_idle())
        uint64_t unclocked = 0;       // of cycles, those the unit took without the RTL (unclocked())
        uint64_t unclocked_stalls = 0; // of ready_stalls, those in unclocked cycles
    };
    const Stats &stats() const { return st_; }

private:
    struct Impl;
    void clock(Impl &r, const sc_core::sc_time &until);
    void fall_edge();
    std::unique_ptr<Impl> impl_;
    bool every_cycle_ = false; // environment ARMPROF_RTL_EVERY_CYCLE=1: the per-cycle clocking
    SpuModule &spu_;
    Stats st_;
};

} // namespace armprof

#endif
