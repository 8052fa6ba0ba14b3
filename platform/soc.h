// SPDX-License-Identifier: Apache-2.0
// soc.h: the whole virtual platform (N PEs with their SPUs and drivers, SMMU, bus, memory, IRQ stub) built from a scenario.
#ifndef ARMPROF_PLATFORM_SOC_H
#define ARMPROF_PLATFORM_SOC_H

#include <csignal>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "bus.h"
#include "irqc.h"
#include "memory.h"
#include "pagetable.h"
#include "pe.h"
#include "pe_group.h"
#include "rtl/spu_rtl.h"
#include "pmu_agent.h"
#include "pmu_module.h"
#include "smmu.h"
#include "spe_agent.h"
#include "spu_module.h"
#include "trace_source.h"
#include "traffic_gen.h"
#include "at_bridge.h"
#include "trbe_agent.h"
#include "trbu_module.h"

namespace armprof {

// A fault to inject at the start of the run, relative to a PE's Profiling Buffer.
struct FaultSpec {
    unsigned pe = 0;
    std::string kind;        // unmap | read_only | clear_af | walk_abort | write_abort | gpf | mem_error
    unsigned stage = 1;      // unmap, read_only, clear_af, walk_abort
    int level = -1;          // unmap (-1: leaf), walk_abort (0..3)
    uint64_t offset = 0;     // byte offset into the buffer
    uint64_t length = 0x1000;
    bool async = false;      // write_abort, mem_error
    int count = -1;          // walk_abort / write_abort / gpf: how many times (-1: always)
    std::string unit = "spe"; // whose buffer: spe (Profiling Buffer) | trbe (trace buffer)
};

// The optional TRBU of each PE, its synthetic trace source and its coresight-trbe driver.
struct TrbeScenario {
    bool enabled = false;
    uint64_t buffer_bytes = 64 * 1024;  // trace buffer per PE (a multiple of 4 KiB, >= 8 KiB)
    uint64_t bytes = 4ull << 20;        // trace bytes the source produces per PE
    uint32_t mean_burst = 256;          // mean burst length handed to the unit
    uint32_t bytes_per_cycle = 4;       // trace bandwidth of the source
    uint64_t trigger_every = 0;         // mean bytes between Detected Triggers (0: none)
    unsigned tm = TRBU_TM_IGNORE;       // TRBLIMITR_EL1.TM the driver programs
    uint32_t trigger_count = 0;         // TRBTRG_EL1
    uint64_t irq_latency = 2000;        // cycles from TRBIRQ to the driver's handler
    unsigned align = 6;                 // TRBIDR_EL1.Align
    unsigned ppi = PPI_TRBIRQ_DEFAULT;  // TRBIRQ INTID (a platform choice, IHHRLX)
};

// The PMU of each PE: a perf session counting the units' events (Platform::pmu_events()).
struct PmuScenario {
    bool enabled = true;
    unsigned ppi = PPI_PMUIRQ_DEFAULT;  // PMUIRQ INTID (SBSA: 23)
};

// The operations each PE retires: the synthetic generator, or a replayed operation-trace file
// (docs/trace-format.md) `repeat` times, which then sets ops = operations in the file * repeat.
// `trace` is replayed by every PE; `traces` (one file per PE, in PE order) gives each PE its own
// file and then each PE runs its own file's operations * repeat.
struct WorkloadScenario {
    std::string trace;                  // path of the trace file; empty: synthetic generator
    std::vector<std::string> traces;    // per-PE files (size == pes); non-empty: used instead of trace
    uint64_t repeat = 1;
    bool replay() const { return !trace.empty() || !traces.empty(); }
};

// Background traffic on the bus (bus.background_traffic): TrafficGen, traffic_gen.h.
struct TrafficScenario {
    double share = 0;                   // of the DRAM port's bandwidth, (0, 1]; 0: none
    uint32_t burst_bytes = 64;          // bytes per burst, 1..4096
    uint64_t seed = 0;                  // 0: derived from the scenario's seed
    bool enabled() const { return share > 0; }
};

struct Scenario {
    unsigned pes = 1;
    uint64_t ops = 20000000;            // population operations per PE
    uint32_t ops_per_cycle = 1;
    double clock_ns = 1.0;              // PE clock period
    double quantum_ns = 1000.0;         // tlm_quantumkeeper global quantum
    // Each PE in its own SC_THREAD, as before PeGroup (pe_group.h): PEs due at the same time then
    // run in the order of SystemC's timed-event heap instead of PE order. For comparisons; the
    // platform's default runs the transaction-level PEs of an LT or functional platform in one.
    bool pe_threads = false;
    bool dmi = true;
    uint64_t seed = 1;
    // SPE and its driver
    uint32_t interval = 1024;
    bool rnd = true;
    uint64_t buffer_bytes = 64 * 1024;
    uint64_t irq_latency = 2000;        // cycles
    bool ts = true, pa = true, cx = true;
    bool restart_after_fault = false;
    bool el2_pmscr = true;              // boot code sets PMSCR_EL2.{PCT,PA} = 1 (as Linux's nVHE init)
    bool hw_flag_update = true;         // PMBIDR_EL1.F
    bool stage2 = true;                 // EL2 enabled, HCR_EL2.VM = 1
    std::string sampler = "model";      // counter + record FIFO: model | rtl (Verilated, rtl/spu_rtl.h)
    uint32_t max_inflight = 0, fifo_bytes = 0, drain_bytes_per_cycle = 0; // 0: spu_config_default's
    uint32_t write_bytes = 0, max_outstanding_writes = 0; // 0: spu_config_default's
    // Memory timing reaching the units (BufferTiming, buffer_port.h): off | lt | at.
    std::string timing = "lt";
    // Interconnect and memory
    double bus_latency_ns = 10, bus_bytes_per_ns = 16, mem_latency_ns = 20;
    double mem_write_latency_ns = -1;   // < 0: mem_latency_ns
    TrafficScenario traffic;
    unsigned ppi_pmbirq = PPI_PMBIRQ_DEFAULT;
    std::vector<FaultSpec> faults;
    TrbeScenario trbe;
    PmuScenario pmu;
    WorkloadScenario workload;
    std::string name = "default";
};

// The first reason `sc` cannot be built ("" when it can), naming the scenario key: values out of
// the model's or the platform's range, buffers that do not fit DRAM, PPIs that clash, a unit
// configuration its *_config_validate() refuses, faults the platform cannot inject. Platform's
// constructor throws std::invalid_argument with it; armprof-vp's reader reports it with the line.
std::string scenario_check(const Scenario &sc);

class Platform {
public:
    static constexpr uint64_t DRAM_BASE = 0x80000000ull;
    static constexpr uint64_t DRAM_SIZE = 512ull << 20;
    static constexpr uint64_t POOL_OFF = 448ull << 20;         // translation tables
    static constexpr uint64_t BUF_VA = 0xFFFF800000000000ull;  // + pe * BUF_VA_STRIDE
    static constexpr uint64_t BUF_VA_STRIDE = 0x10000000ull;
    static constexpr uint64_t BUF_IPA_OFF = 16ull << 20;       // IPA = DRAM_BASE + this + ...
    static constexpr uint64_t S2_SHIFT = 128ull << 20;         // PA = IPA + this with stage 2
    static constexpr uint64_t TRBE_VA_OFF = 0x08000000ull;     // trace buffer VA = buffer_va + this
    static constexpr uint64_t TRBE_IPA_OFF = 256ull << 20;     // trace buffer IPA = DRAM_BASE + this + ...

    explicit Platform(const Scenario &sc);
    ~Platform();

    // Runs until every PE has finished its operations (and the units are idle).
    void run();

    const Scenario &scenario() const { return sc_; }
    Memory &memory() { return *mem_; }
    Bus &bus() { return *bus_; }
    Smmu &smmu() { return *smmu_; }
    IrqCtrl &irqc() { return *irqc_; }
    BufferTiming timing() const { return timing_; }
    // The background traffic generator (nullptr without bus.background_traffic).
    TrafficGen *traffic() { return traffic_.get(); }
    unsigned pes() const { return sc_.pes; }
    SpuModule &spu(unsigned pe) { return *spus_[pe]; }
    SpeAgent &agent(unsigned pe) { return *agents_[pe]; }
    Pe &pe(unsigned i) { return *pe_[i]; }
    const std::vector<uint8_t> &spe_dump(unsigned pe) const { return dumps_[pe]; }
    // The TRBU side (scenario trbe.enabled).
    bool has_trbe() const { return sc_.trbe.enabled; }
    TrbuModule &trbu(unsigned pe) { return *trbus_[pe]; }
    TrbeAgent &trbe_agent(unsigned pe) { return *tagents_[pe]; }
    TraceSource &trace_source(unsigned pe) { return *tsrcs_[pe]; }
    const std::vector<uint8_t> &trbe_dump(unsigned pe) const { return tdumps_[pe]; }
    uint64_t trbe_va(unsigned pe) const { return buffer_va(pe) + TRBE_VA_OFF; }
    uint64_t trbe_ipa(unsigned pe) const { return DRAM_BASE + TRBE_IPA_OFF + pe * sc_.trbe.buffer_bytes; }
    uint64_t trbe_pa(unsigned pe) const { return sc_.stage2 ? trbe_ipa(pe) + S2_SHIFT : trbe_ipa(pe); }
    armprof_regime trbe_regime(unsigned pe) const;
    // The PMU side (scenario pmu.enabled): counter i of every PE counts pmu_events()[i].
    bool has_pmu() const { return sc_.pmu.enabled; }
    PmuModule &pmu(unsigned pe) { return *pmus_[pe]; }
    PmuAgent &pmu_agent(unsigned pe) { return *pagents_[pe]; }
    const std::vector<uint16_t> &pmu_events() const { return pmu_events_; }
    // The trace PE `pe` replays (scenario workload.trace), or nullptr; trace() is PE 0's.
    const wl_trace *pe_trace(unsigned pe) const
    {
        if (traces_.empty())
            return nullptr;
        const wl_trace &t = traces_[traces_.size() == 1 ? 0 : pe];
        return t.count ? &t : nullptr;
    }
    const wl_trace *trace() const { return pe_trace(0); }
    // The path PE `pe` replays ("" without a replay).
    const std::string &pe_trace_path(unsigned pe) const
    {
        return sc_.workload.traces.empty() ? sc_.workload.trace : sc_.workload.traces[pe];
    }
    uint64_t buffer_va(unsigned pe) const { return BUF_VA + pe * BUF_VA_STRIDE; }
    uint64_t buffer_pa(unsigned pe) const;
    armprof_regime regime(unsigned pe) const;
    void trace(sc_core::sc_trace_file *tf);
    void set_progress(std::function<void(double)> fn) { progress_ = std::move(fn); }
    // Where the drivers' dumps go as they consume their buffers (set before run()): without a
    // sink they are kept in spe_dump() / trbe_dump() (tests); with one nothing is kept here, so
    // memory does not grow with the output. trbe: the TRBE driver's dump, else the SPE driver's.
    using DumpSink = std::function<void(unsigned pe, bool trbe, const uint8_t *data, size_t len)>;
    void set_dump_sink(DumpSink fn) { dump_sink_ = std::move(fn); }
    // run() returns early, without draining the units, once *flag is non-zero (a signal
    // handler sets it); interrupted() then says so.
    void set_stop_flag(const volatile std::sig_atomic_t *flag) { stop_flag_ = flag; }
    bool interrupted() const { return interrupted_; }
    // run() lets the PE group go on without a SystemC wait where no other process could run in
    // between (PeGroup's elided waits); results are the same either way. Off: every wait made.
    void set_elide_waits(bool on) { elide_waits_ = on; }
    // The PE group (nullptr when every PE has its own thread).
    const PeGroup *pe_group() const { return pe_group_.get(); }

private:
    void build_tables();
    armprof_regime idle_regime(unsigned pe, uint8_t unit) const;
    void build_trbe(const sc_core::sc_time &clk);
    void build_pmu(const sc_core::sc_time &clk, size_t first_line);
    void inject(const FaultSpec &f);
    void waiter();
    bool units_busy() const;
    void bind_mem(BufferPort &port, const std::string &name);

    // Runs the injections at start_of_simulation: descriptor edits go over TLM, which needs
    // the bindings complete, and no PE may have written yet.
    struct Starter : sc_core::sc_module {
        Platform *p;
        Starter(sc_core::sc_module_name n, Platform *pl) : sc_module(n), p(pl) {}
        void start_of_simulation() override;
    };
    friend struct Starter;

    Scenario sc_;
    std::vector<wl_trace> traces_;      // one (every PE) or one per PE
    uint64_t s2root_ = 0;
    std::unique_ptr<Starter> starter_;
    std::unique_ptr<Memory> mem_;
    std::unique_ptr<Bus> bus_;
    std::unique_ptr<Smmu> smmu_;
    std::unique_ptr<IrqCtrl> irqc_;
    BufferTiming timing_ = BufferTiming::Lt;
    std::unique_ptr<TrafficGen> traffic_;
    std::vector<std::unique_ptr<AtBridge>> bridges_;
    std::vector<std::unique_ptr<sc_core::sc_signal<bool, sc_core::SC_MANY_WRITERS>>> irq_sigs_;
    std::vector<std::unique_ptr<SpuModule>> spus_;
    std::vector<std::unique_ptr<SpeAgent>> agents_;
    std::vector<std::unique_ptr<Pe>> pe_;
    std::unique_ptr<PeGroup> pe_group_; // the PEs without a thread of their own
    std::vector<std::unique_ptr<SpuRtl>> rtls_;
    std::vector<std::vector<uint8_t>> dumps_;
    std::vector<std::unique_ptr<sc_core::sc_signal<bool, sc_core::SC_MANY_WRITERS>>> trbirq_sigs_;
    std::vector<std::unique_ptr<TrbuModule>> trbus_;
    std::vector<std::unique_ptr<TrbeAgent>> tagents_;
    std::vector<std::unique_ptr<TraceSource>> tsrcs_;
    std::vector<std::vector<uint8_t>> tdumps_;
    std::vector<std::unique_ptr<sc_core::sc_signal<bool, sc_core::SC_MANY_WRITERS>>> pmuirq_sigs_;
    std::vector<std::unique_ptr<PmuModule>> pmus_;
    std::vector<std::unique_ptr<PmuAgent>> pagents_;
    std::vector<uint16_t> pmu_events_;
    std::function<void(double)> progress_;
    DumpSink dump_sink_;
    const volatile std::sig_atomic_t *stop_flag_ = nullptr;
    bool interrupted_ = false;
    bool elide_waits_ = true;
    std::vector<double> frac_;
};

} // namespace armprof

#endif
