// SPDX-License-Identifier: Apache-2.0
// spe_agent.h: software that programs and services the SPU as Linux's arm_spe_pmu driver does (no SystemC in it).
#ifndef ARMPROF_PLATFORM_SPE_AGENT_H
#define ARMPROF_PLATFORM_SPE_AGENT_H

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "armprof/spu.h"

namespace armprof {

/*
 * What arm_spe_pmu does, reduced to the register sequence:
 *  - probe: PMSIDR_EL1 / PMBIDR_EL1 (P bit: buffer owned by a higher EL -> unusable; Align,
 *    MaxSize, minimum interval);
 *  - start: filters, PMSIRR_EL1, PMSICR_EL1, PMBPTR_EL1 = base, PMBLIMITR_EL1 = limit | E,
 *    PMBSR_EL1 = 0, then PMSCR_EL1 (TS, PA, CX, E1SPE, E0SPE);
 *  - interrupt (after the configured service latency): PSB CSYNC, read PMBSR_EL1; buffer full
 *    (EC 0, no EA): copy [base, PMBPTR_EL1) out unless DL, restart at base, PMBSR_EL1 = 0; a
 *    fault or External abort: copy out what is valid, report it, and (as Linux) stop the
 *    session (PMBLIMITR_EL1 = 0, PMBSR_EL1 = 0), or restart from the saved pointer when
 *    `restart_after_fault` (D17.7: profiling can be restarted after the fault is fixed);
 *  - stop: PMSCR_EL1 = 0, PSB CSYNC, copy out, disable the buffer.
 * Buffer contents go to a sink (a dump file), so long runs continue.
 */
class SpeAgent {
public:
    struct Config {
        uint64_t base = 0, size = 64 * 1024; // the buffer (VA, or PA/IPA with nVM)
        uint32_t interval = 1024;
        bool rnd = true;
        bool ts = true, pa = true, cx = true;
        uint64_t pmsfcr = 0, pmsevfr = 0, pmslatfr = 0;
        bool restart_after_fault = false;
        uint64_t nvm_bit = 0;               // PMBLIMITR_EL1 bit for nVM (0: not used)
    };
    using RegRead = std::function<armprof_err(uint32_t, uint64_t *)>;
    using RegWrite = std::function<armprof_err(uint32_t, uint64_t)>;
    using MemRead = std::function<size_t(uint64_t addr, uint8_t *buf, size_t len)>;
    using Sink = std::function<void(const uint8_t *, size_t)>;
    // Optional: the host pointer of a buffer address and the bytes readable from it (nullptr:
    // no direct view there, the dump reads through MemRead).
    using MemView = std::function<const uint8_t *(uint64_t addr, size_t *avail)>;

    SpeAgent(const Config &cfg, RegRead rd, RegWrite wr, std::function<void()> psb_csync, MemRead mem, Sink sink);

    bool probe();                 // false when the buffer is not usable (PMBIDR_EL1.P)
    void start();
    // Services PMBIRQ; returns true when a management event was pending.
    bool on_irq(uint64_t now_ns);
    void stop();
    bool running() const { return running_; }
    void set_mem_view(MemView v) { view_ = std::move(v); }

    struct Event { uint64_t when_ns, pmbsr, pmbptr; };
    const std::vector<Event> &events() const { return events_; }
    struct Stats {
        uint64_t irqs = 0, buffer_full = 0, faults = 0, ext_aborts = 0, dl = 0, fatal = 0;
        uint64_t bytes_copied = 0;
        std::map<std::string, uint64_t> by_kind; // "translation", "permission", ...
    };
    const Stats &stats() const { return st_; }
    uint32_t align() const { return align_; }
    uint32_t max_size() const { return max_size_; }

    static std::string fault_kind(uint64_t pmbsr);

private:
    uint64_t rd(uint32_t enc);
    void wr(uint32_t enc, uint64_t v);
    void copy_out(uint64_t upto);

    Config cfg_;
    RegRead rd_;
    RegWrite wr_;
    std::function<void()> csync_;
    MemRead mem_;
    Sink sink_;
    MemView view_;
    bool running_ = false;
    uint32_t align_ = 0, max_size_ = 0;
    std::vector<Event> events_;
    std::vector<uint8_t> tmp_;
    Stats st_;
};

} // namespace armprof

#endif
