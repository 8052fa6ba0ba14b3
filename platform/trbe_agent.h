// SPDX-License-Identifier: Apache-2.0
// trbe_agent.h: software that programs and services the TRBU as Linux's coresight-trbe driver does (no SystemC in it).
#ifndef ARMPROF_PLATFORM_TRBE_AGENT_H
#define ARMPROF_PLATFORM_TRBE_AGENT_H

#include <cstdint>
#include <functional>
#include <vector>

#include "armprof/trbu.h"

namespace armprof {

/*
 * What coresight-trbe does with the unit, reduced to the register sequence:
 *  - enable (__arm_trbe_enable / trbe_enable_hw): pad the AUX head to 2^TRBIDR_EL1.Align with
 *    ETE Ignore packets (0x70), and past a tail shorter than 64 bytes; TRBLIMITR_EL1.E = 0,
 *    clear TRBSR_EL1 {IRQ, TRG, WRAP, EC, BSC, S, EA}, TRBBASER_EL1, TRBPTR_EL1 = base + head,
 *    TRBTRG_EL1, then TRBLIMITR_EL1 = limit | FM Fill | TM (Ignore by default) | E;
 *  - interrupt (arm_trbe_irq_handler): TSB CSYNC and disable, read TRBSR_EL1; a buffer full
 *    wrap (WRAP, EC 0, BSC filled, TRBPTR_EL1 = base) copies [head, end) out and starts again
 *    at base; a trigger, fault or External abort (TRG, EA, EC 0x24 / 0x25) truncates the
 *    session at TRBPTR_EL1 (perf then schedules the event in again: re-enable);
 *  - a permanent fault stops the session for good, as arm_spe_pmu does with a fatal buffer
 *    fault: an External abort (TRBSR_EL1.EA, is_trbe_abort(): it does not go away by retrying),
 *    or the same fault (EC, FSC) again at the same TRBPTR_EL1 right after the restart, with
 *    nothing written in between (an unmapped or read-only page). The unit stays disabled, the
 *    trace source's later bytes are not collected, permanent_fault() says what and where;
 *  - stop (arm_trbe_update_buffer): TSB CSYNC, disable, copy [head, TRBPTR_EL1) out.
 * The pad bytes go straight to the sink (the driver writes them into the AUX buffer, which is
 * what the sink stands for). Buffer contents go to a sink, so long runs continue.
 */
class TrbeAgent {
public:
    struct Config {
        uint64_t base = 0, size = 64 * 1024; // the trace buffer (VA of the owning regime)
        unsigned tm = TRBU_TM_IGNORE;        // TRBLIMITR_EL1.TM
        uint32_t trigger_count = 0;          // TRBTRG_EL1
    };
    using RegRead = std::function<armprof_err(uint32_t, uint64_t *)>;
    using RegWrite = std::function<armprof_err(uint32_t, uint64_t)>;
    using MemRead = std::function<size_t(uint64_t addr, uint8_t *buf, size_t len)>;
    using Sink = std::function<void(const uint8_t *, size_t)>;
    // Optional: the host pointer of a buffer address and the bytes readable from it (nullptr:
    // no direct view there, the dump reads through MemRead).
    using MemView = std::function<const uint8_t *(uint64_t addr, size_t *avail)>;

    TrbeAgent(const Config &cfg, RegRead rd, RegWrite wr, std::function<void()> tsb_csync, MemRead mem, Sink sink);

    bool probe();                 // false when TRBIDR_EL1.P says the buffer is owned by a higher EL
    void start();
    bool on_irq(uint64_t now_ns); // services TRBIRQ; true when TRBSR_EL1.IRQ was set
    void stop();
    bool running() const { return running_; }
    void set_mem_view(MemView v) { view_ = std::move(v); }

    struct Event { uint64_t when_ns, trbsr, trbptr; };
    const std::vector<Event> &events() const { return events_; }
    // The fault that stopped the session (valid when stats().permanent).
    const Event &permanent_fault() const { return permanent_; }
    struct Stats {
        uint64_t irqs = 0, wraps = 0, fatal = 0, spurious = 0, faults = 0;
        uint64_t permanent = 0;       // 1 when a permanent fault stopped the session
        uint64_t pad_bytes = 0, bytes_copied = 0;
    };
    const Stats &stats() const { return st_; }
    uint64_t align() const { return align_; }

private:
    uint64_t rd(uint32_t enc);
    void wr(uint32_t enc, uint64_t v);
    void drain_and_disable();
    void enable();
    void pad(uint64_t to);
    void consume(uint64_t from, uint64_t to);

    Config cfg_;
    RegRead rd_;
    RegWrite wr_;
    std::function<void()> csync_;
    MemRead mem_;
    Sink sink_;
    MemView view_;
    bool running_ = false;
    uint64_t align_ = 1, head_ = 0;
    // The last fault and where the session restarted after it (permanent fault detection).
    bool fault_restart_ = false;
    uint64_t fault_kind_ = 0, restart_ptr_ = 0;
    Event permanent_{0, 0, 0};
    std::vector<Event> events_;
    std::vector<uint8_t> tmp_;
    Stats st_;
};

} // namespace armprof

#endif
