// SPDX-License-Identifier: Apache-2.0
// soc.cpp: builds and runs the virtual platform of a scenario.
#include "soc.h"
#include "report.h"
#include "armprof/sysreg.h"

#include <algorithm>
#include <stdexcept>

#include "armprof/bits.h"

namespace armprof {

using namespace sc_core;

namespace {

constexpr uint64_t kSpeBufferTotal = 96ull << 20;  // the SPE buffers' share of DRAM (BUF_IPA_OFF ..)
constexpr uint64_t kTrbeBufferTotal = 64ull << 20; // the trace buffers' (TRBE_IPA_OFF ..)

// PE p's SPU configuration: spu_config_default() with the scenario's micro-architecture.
spu_config spu_config_of(const Scenario &sc, unsigned p)
{
    spu_config cfg;
    spu_config_default(&cfg);
    cfg.flag_update = sc.hw_flag_update;
    cfg.pe_index = (uint8_t)p;
    cfg.rng_seed = (uint32_t)(sc.seed * 2654435761u + p + 1);
    cfg.max_inflight = sc.max_inflight ? sc.max_inflight : cfg.max_inflight;
    cfg.fifo_bytes = sc.fifo_bytes ? sc.fifo_bytes : cfg.fifo_bytes;
    cfg.drain_bytes_per_cycle = sc.drain_bytes_per_cycle ? sc.drain_bytes_per_cycle : cfg.drain_bytes_per_cycle;
    cfg.write_bytes = sc.write_bytes ? sc.write_bytes : cfg.write_bytes;
    cfg.max_outstanding_writes = sc.max_outstanding_writes ? sc.max_outstanding_writes : cfg.max_outstanding_writes;
    return cfg;
}

uint64_t round_4k(uint64_t b) { return b > UINT64_MAX - 0xFFF ? 0 : (b + 0xFFF) & ~0xFFFull; }

std::string check_fault(const Scenario &sc, size_t i)
{
    const FaultSpec &f = sc.faults[i];
    const std::string w = "faults[" + std::to_string(i) + "]";
    static const char *const kinds[] = {"unmap", "read_only", "clear_af", "walk_abort", "write_abort", "gpf",
                                        "mem_error"};
    if (std::find(std::begin(kinds), std::end(kinds), f.kind) == std::end(kinds))
        return w + ".kind: unmap, read_only, clear_af, walk_abort, write_abort, gpf or mem_error, not '" + f.kind + "'";
    if (f.pe >= sc.pes)
        return w + ".pe: " + std::to_string(f.pe) + ", but the scenario has " + std::to_string(sc.pes) + " PE(s)";
    bool trbe = f.unit == "trbe";
    if (!trbe && f.unit != "spe")
        return w + ".unit: spe or trbe, not '" + f.unit + "'";
    if (trbe && !sc.trbe.enabled)
        return w + ".unit: trbe needs trbe.enabled: true";
    if (f.stage != 1 && f.stage != 2)
        return w + ".stage: 1 or 2, not " + std::to_string(f.stage);
    if (f.stage == 2 && !sc.stage2)
        return w + ".stage: 2 needs smmu.stage2: true";
    if (f.level < -1 || f.level > 3)
        return w + ".level: 0..3, not " + std::to_string(f.level);
    uint64_t size = trbe ? sc.trbe.buffer_bytes : round_4k(sc.buffer_bytes);
    if (f.offset >= size)
        return w + ".offset: " + std::to_string(f.offset) + " is past the end of the buffer (" + std::to_string(size) +
               " bytes)";
    if (f.length == 0 || f.length > size)
        return w + ".length: 1.." + std::to_string(size) + " (the buffer's size), not " + std::to_string(f.length);
    if (f.count == 0 || f.count < -1)
        return w + ".count: at least 1 (without it: every time), not " + std::to_string(f.count);
    return "";
}

} // namespace

std::string scenario_check(const Scenario &sc)
{
    if (sc.pes == 0 || sc.pes > 64)
        return "pes: 1..64, not " + std::to_string(sc.pes);
    if (sc.ops_per_cycle == 0)
        return "ops_per_cycle: at least 1";
    // A clock or quantum below SystemC's time resolution would be zero time: a division by zero
    // in the units' clocks, or a run that never advances.
    if (!(sc.clock_ns > 0) || sc_time(sc.clock_ns, SC_NS).value() == 0)
        return "clock_ns: " + std::to_string(sc.clock_ns) + " is below the time resolution (" +
               sc_get_time_resolution().to_string() + ")";
    if (!(sc.quantum_ns > 0) || sc_time(sc.quantum_ns, SC_NS).value() == 0)
        return "quantum_ns: " + std::to_string(sc.quantum_ns) + " is below the time resolution (" +
               sc_get_time_resolution().to_string() + ")";
    uint64_t spe_buf = round_4k(sc.buffer_bytes);
    if (spe_buf == 0 || spe_buf > kSpeBufferTotal / sc.pes)
        return "spe.buffer_bytes: 4 KiB .. " + std::to_string(kSpeBufferTotal / sc.pes / 4096 * 4096) + " bytes per PE (" +
               std::to_string(kSpeBufferTotal >> 20) + " MiB in total), not " + std::to_string(sc.buffer_bytes);
    const TrbeScenario &tb = sc.trbe;
    if (tb.enabled) {
        if (tb.buffer_bytes < 8192 || (tb.buffer_bytes & 0xFFF) || tb.buffer_bytes > kTrbeBufferTotal / sc.pes)
            return "trbe.buffer_bytes: a multiple of 4096, 8192 .. " +
                   std::to_string(kTrbeBufferTotal / sc.pes / 4096 * 4096) + " bytes per PE (" +
                   std::to_string(kTrbeBufferTotal >> 20) + " MiB in total), not " + std::to_string(tb.buffer_bytes);
        if (tb.mean_burst == 0 || tb.mean_burst > 32768)
            return "trbe.mean_burst: 1..32768, not " + std::to_string(tb.mean_burst);
        if (tb.bytes_per_cycle == 0)
            return "trbe.bytes_per_cycle: at least 1";
        if (tb.tm != TRBU_TM_STOP && tb.tm != TRBU_TM_IRQ && tb.tm != TRBU_TM_IGNORE)
            return "trbe.tm: 0 (Stop), 1 (IRQ) or 3 (Ignore)";
        trbu_config tc;
        trbu_config_default(&tc);
        tc.align = (uint8_t)tb.align;
        char why[160];
        if (tb.align > 255 || trbu_config_validate(&tc, why, sizeof why) != ARMPROF_OK)
            return std::string("trbe: ") + (tb.align > 255 ? "align out of range" : why);
    }
    {
        struct Ppi { const char *key; unsigned v; };
        std::vector<Ppi> ppis = {{"spe.ppi", sc.ppi_pmbirq}};
        if (tb.enabled)
            ppis.push_back({"trbe.ppi", tb.ppi});
        if (sc.pmu.enabled)
            ppis.push_back({"pmu.ppi", sc.pmu.ppi});
        for (size_t i = 0; i < ppis.size(); i++) {
            if (ppis[i].v < 16 || ppis[i].v > 31)
                return std::string(ppis[i].key) + ": a PPI INTID, 16..31, not " + std::to_string(ppis[i].v);
            for (size_t j = 0; j < i; j++)
                if (ppis[i].v == ppis[j].v)
                    return std::string(ppis[i].key) + ": " + std::to_string(ppis[i].v) + " is " + ppis[j].key +
                           " already (spe.ppi, trbe.ppi and pmu.ppi must differ)";
        }
    }
    if (sc.timing != "lt" && sc.timing != "at" && sc.timing != "off")
        return "timing: lt, at or off, not '" + sc.timing + "'";
    if (sc.sampler != "model" && sc.sampler != "rtl")
        return "spe.sampler: model or rtl, not '" + sc.sampler + "'";
    // The SPU's micro-architecture: spu_config_validate(), and with the RTL sampler its sizes.
    auto unit_why = [](const Scenario &s) {
        spu_config cfg = spu_config_of(s, 0);
        char why[160];
        if (spu_config_validate(&cfg, why, sizeof why) != ARMPROF_OK)
            return std::string(why);
        return s.sampler == "rtl" ? SpuRtl::why_not(cfg, s.ops_per_cycle) : std::string();
    };
    std::string why = unit_why(sc);
    if (!why.empty()) {
        // Named after the first key set in the scenario without which the configuration is valid.
        struct { const char *key; uint32_t Scenario::*field; } keys[] = {
            {"spe.fifo_bytes", &Scenario::fifo_bytes},
            {"spe.max_inflight", &Scenario::max_inflight},
            {"spe.drain_bytes_per_cycle", &Scenario::drain_bytes_per_cycle},
            {"spe.write_bytes", &Scenario::write_bytes},
            {"spe.max_outstanding_writes", &Scenario::max_outstanding_writes},
            {"ops_per_cycle", &Scenario::ops_per_cycle},
        };
        for (const auto &k : keys) {
            Scenario alt = sc;
            alt.*k.field = k.field == &Scenario::ops_per_cycle ? 1 : 0;
            if (sc.*k.field != alt.*k.field && unit_why(alt).empty())
                return std::string(k.key) + ": " + std::to_string(sc.*k.field) + ": " + why;
        }
        return "spe: " + why;
    }
    for (size_t i = 0; i < sc.faults.size(); i++) {
        std::string w = check_fault(sc, i);
        if (!w.empty())
            return w;
    }
    return "";
}

Platform::Platform(const Scenario &sc) : sc_(sc)
{
    // Every value is checked before anything is built (a scenario file's reader calls the same
    // check, so its errors carry the file's line).
    std::string why = scenario_check(sc_);
    if (!why.empty())
        throw std::invalid_argument(why);
    sc_.buffer_bytes = round_4k(sc_.buffer_bytes);
    const TrbeScenario &tb = sc_.trbe;
    // The traces are loaded once the scenario checks have passed: one file every PE replays, or
    // one per PE (workload.traces); a PE's run is its file's operations * repeat.
    if (sc_.workload.replay()) {
        if (sc_.workload.repeat == 0)
            throw std::invalid_argument("workload.repeat must be >= 1");
        const std::vector<std::string> &files =
            sc_.workload.traces.empty() ? std::vector<std::string>{sc_.workload.trace} : sc_.workload.traces;
        if (!sc_.workload.traces.empty() && files.size() != sc_.pes)
            throw std::invalid_argument("workload.trace: " + std::to_string(files.size()) + " files for " +
                                        std::to_string(sc_.pes) +
                                        " PEs (one file per PE, or a single file for every PE)");
        traces_.resize(files.size());
        for (size_t i = 0; i < files.size(); i++) {
            char err[512];
            std::string what = sc_.workload.traces.empty() ? "workload.trace: "
                                                           : "workload.trace[" + std::to_string(i) + "]: ";
            if (wl_trace_load(files[i].c_str(), &traces_[i], err, sizeof err)) {
                for (wl_trace &t : traces_)
                    wl_trace_free(&t);
                throw std::invalid_argument(what + err);
            }
            if (traces_[i].count > UINT64_MAX / sc_.workload.repeat) {
                for (wl_trace &t : traces_)
                    wl_trace_free(&t);
                throw std::invalid_argument("workload: operations * repeat overflow");
            }
        }
        sc_.ops = traces_[0].count * sc_.workload.repeat; // PE 0's; each PE: its own file's
    }
    timing_ = sc_.timing == "off" ? BufferTiming::Off : sc_.timing == "at" ? BufferTiming::At : BufferTiming::Lt;
    sc_time clk(sc_.clock_ns, SC_NS);
    mem_.reset(new Memory("dram", DRAM_SIZE, sc_time(sc_.mem_latency_ns, SC_NS)));
    if (sc_.mem_write_latency_ns >= 0)
        mem_->set_write_latency(sc_time(sc_.mem_write_latency_ns, SC_NS));
    bus_.reset(new Bus("bus"));
    smmu_.reset(new Smmu("smmu", sc_.pes));
    std::vector<IrqCtrl::LineInfo> lines;
    for (unsigned p = 0; p < sc_.pes; p++)
        lines.push_back({p, sc_.ppi_pmbirq, "PMBIRQ" + std::to_string(p)});
    if (tb.enabled) // TRBIRQ of PE p is line pes + p
        for (unsigned p = 0; p < sc_.pes; p++)
            lines.push_back({p, tb.ppi, "TRBIRQ" + std::to_string(p)});
    size_t pmu_line = lines.size();
    if (sc_.pmu.enabled) // then PMUIRQ of PE p
        for (unsigned p = 0; p < sc_.pes; p++)
            lines.push_back({p, sc_.pmu.ppi, "PMUIRQ" + std::to_string(p)});
    irqc_.reset(new IrqCtrl("irqc", lines));
    smmu_->isock.bind(bus_->tsock);
    bus_->isock.bind(mem_->socket);
    bus_->map(0, DRAM_BASE, DRAM_SIZE, sc_time(sc_.bus_latency_ns, SC_NS), sc_.bus_bytes_per_ns, "dram");
    mem_->set_dmi_enabled(sc_.dmi);
    smmu_->dmi_enabled = sc_.dmi;
    if (sc_.traffic.enabled()) {
        // Reads of the first 16 MiB of DRAM (below the buffers), a share of the DRAM port.
        TrafficGen::Config tc;
        tc.share = sc_.traffic.share;
        tc.burst_bytes = sc_.traffic.burst_bytes;
        tc.seed = sc_.traffic.seed ? sc_.traffic.seed : sc_.seed * 0x51ED27u + 17;
        tc.base = DRAM_BASE;
        tc.span = BUF_IPA_OFF;
        tc.bytes_per_ns = sc_.bus_bytes_per_ns;
        tc.quantum = sc_time(sc_.quantum_ns, SC_NS);
        traffic_.reset(new TrafficGen("traffic", tc));
        traffic_->sock.bind(bus_->tsock);
    }
    dumps_.resize(sc_.pes);
    frac_.assign(sc_.pes, 0.0);
    for (unsigned p = 0; p < sc_.pes; p++) {
        spu_config cfg = spu_config_of(sc_, p);
        std::string n = "spu" + std::to_string(p);
        spus_.emplace_back(new SpuModule(n.c_str(), cfg, clk));
        SpuModule &s = *spus_.back();
        bind_mem(s, n);
        irq_sigs_.emplace_back(new sc_signal<bool, SC_MANY_WRITERS>(("pmbirq" + std::to_string(p)).c_str()));
        s.irq.bind(*irq_sigs_.back());
        irqc_->lines[p].bind(*irq_sigs_.back());
        armprof_pe_ctx ctx;
        armprof_pe_ctx_default(&ctx);
        ctx.hcr_vm = sc_.stage2;
        ctx.contextidr_el1 = 0x100 + p;
        // Boot at EL2, as Linux's init_el2_state does for a kernel at EL1 (nVHE): PMSCR_EL2.PCT = 1
        // and PA = 1, so that PMSCR_EL1.PA and PCT take effect (CollectPhysicalAddress(),
        // CollectTimeStamp(), seed 001 3.3.1); PMSCR_EL2.TS/CX/E2SPE stay 0. Then drop to EL1.
        ctx.el = 2;
        s.set_pe_context(ctx);
        if (sc_.el2_pmscr && s.reg_write(SPU_PMSCR_EL2, ap_field_prep(PMSCR_EL2_PCT, PMSCR_EL2_PCT_PHYS) | PMSCR_EL2_PA) != ARMPROF_OK)
            ARMPROF_REPORT_ERROR(report::kSoc, "PMSCR_EL2 write at EL2 refused");
        ctx.el = 1;
        s.set_pe_context(ctx);

        SpeAgent::Config ac;
        ac.base = buffer_va(p);
        ac.size = sc_.buffer_bytes;
        ac.interval = sc_.interval;
        ac.rnd = sc_.rnd;
        ac.ts = sc_.ts;
        ac.pa = sc_.pa;
        ac.cx = sc_.cx;
        ac.restart_after_fault = sc_.restart_after_fault;
        SpuModule *sp = &s;
        std::vector<uint8_t> *dump = &dumps_[p];
        agents_.emplace_back(new SpeAgent(
            ac, [sp](uint32_t e, uint64_t *v) { return sp->reg_read(e, v); },
            [sp](uint32_t e, uint64_t v) { return sp->reg_write(e, v); }, [sp] { sp->psb_csync(); },
            [this, p, sp](uint64_t a, uint8_t *b, size_t l) { return sp->debug_read(regime(p), a, b, l); },
            [this, p, dump](const uint8_t *b, size_t l) {
                if (dump_sink_)
                    dump_sink_(p, false, b, l);
                else
                    dump->insert(dump->end(), b, b + l);
            }));
        agents_.back()->set_mem_view([sp](uint64_t a, size_t *avail) { return sp->dmi_view(a, avail); });

        Pe::Config pc;
        pc.index = p;
        pc.ops = pe_trace(p) ? pe_trace(p)->count * sc_.workload.repeat : sc_.ops;
        pc.ops_per_cycle = sc_.ops_per_cycle;
        pc.irq_latency = sc_.irq_latency;
        pc.quantum = sc_time(sc_.quantum_ns, SC_NS);
        wl_config_default(&pc.wl);
        pc.wl.seed = sc_.seed * 1000003u + p;
        pc.trace = pe_trace(p);
        pc.progress = [this, p](double f) {
            frac_[p] = f;
            if (progress_) {
                double m = 1.0;
                for (double x : frac_)
                    m = std::min(m, x);
                progress_(m);
            }
        };
        if (sc_.sampler == "rtl") {
            rtls_.emplace_back(new SpuRtl((n + "_rtl").c_str(), s, clk, sc_.ops_per_cycle));
            pc.rtl = rtls_.back().get();
        }
        // The transaction-level PEs of an LT or functional platform run in one thread, in PE
        // order (PeGroup, pe_group.h); under AT each PE keeps its own (its driver's PSB CSYNC
        // waits for write answers inside the handler).
        pc.own_thread = pc.rtl || timing_ == BufferTiming::At || sc_.pe_threads;
        std::string pn = "pe" + std::to_string(p);
        pe_.emplace_back(new Pe(pn.c_str(), pc, s, *agents_.back()));
    }
    std::vector<Pe *> grouped;
    for (auto &pe : pe_)
        if (!pe->own_thread())
            grouped.push_back(pe.get());
    if (!grouped.empty())
        pe_group_.reset(new PeGroup("pes", std::move(grouped), sc_time(sc_.quantum_ns, SC_NS)));
    if (tb.enabled)
        build_trbe(clk);
    if (sc_.pmu.enabled)
        build_pmu(clk, pmu_line);
    build_tables();
    starter_.reset(new Starter("starter", this));
}

// A unit's buffer port to the SMMU: directly (off, lt), or through an AtBridge (at).
void Platform::bind_mem(BufferPort &port, const std::string &name)
{
    port.set_timing(timing_);
    port.set_dmi(sc_.dmi && timing_ != BufferTiming::At);
    if (timing_ == BufferTiming::At) {
        bridges_.emplace_back(new AtBridge((name + "_at").c_str()));
        port.mem.bind(bridges_.back()->tsock);
        bridges_.back()->isock.bind(smmu_->tsock);
    } else {
        port.mem.bind(smmu_->tsock);
    }
}

// One TRBU per PE with its trace source and coresight-trbe driver; the buffer at a kernel VA of
// the same EL1&0 regime, through the same SMMU.
void Platform::build_trbe(const sc_time &clk)
{
    const TrbeScenario &tb = sc_.trbe;
    tdumps_.resize(sc_.pes);
    for (unsigned p = 0; p < sc_.pes; p++) {
        trbu_config cfg;
        trbu_config_default(&cfg);
        cfg.align = (uint8_t)tb.align;
        cfg.flag_update = sc_.hw_flag_update;
        cfg.pe_index = (uint8_t)p;
        std::string n = "trbu" + std::to_string(p);
        trbus_.emplace_back(new TrbuModule(n.c_str(), cfg, clk));
        TrbuModule &t = *trbus_.back();
        bind_mem(t, n);
        trbirq_sigs_.emplace_back(new sc_signal<bool, SC_MANY_WRITERS>(("trbirq" + std::to_string(p)).c_str()));
        t.irq.bind(*trbirq_sigs_.back());
        irqc_->lines[sc_.pes + p].bind(*trbirq_sigs_.back());
        armprof_pe_ctx ctx;
        armprof_pe_ctx_default(&ctx);
        ctx.el = 1;
        ctx.hcr_vm = sc_.stage2;
        ctx.contextidr_el1 = 0x100 + p;
        t.set_pe_context(ctx);

        TrbeAgent::Config ac;
        ac.base = trbe_va(p);
        ac.size = tb.buffer_bytes;
        ac.tm = tb.tm;
        ac.trigger_count = tb.trigger_count;
        TrbuModule *tp = &t;
        std::vector<uint8_t> *dump = &tdumps_[p];
        tagents_.emplace_back(new TrbeAgent(
            ac, [tp](uint32_t e, uint64_t *v) { return tp->reg_read(e, v); },
            [tp](uint32_t e, uint64_t v) { return tp->reg_write(e, v); }, [tp] { tp->tsb_csync(); },
            [this, p, tp](uint64_t a, uint8_t *b, size_t l) { return tp->debug_read(trbe_regime(p), a, b, l); },
            [this, p, dump](const uint8_t *b, size_t l) {
                if (dump_sink_)
                    dump_sink_(p, true, b, l);
                else
                    dump->insert(dump->end(), b, b + l);
            }));
        tagents_.back()->set_mem_view([tp](uint64_t a, size_t *avail) { return tp->dmi_view(a, avail); });

        TraceSource::Config sc;
        sc.bytes = tb.bytes;
        sc.mean_burst = tb.mean_burst;
        sc.bytes_per_cycle = tb.bytes_per_cycle;
        sc.trigger_every = tb.trigger_every;
        sc.irq_latency = tb.irq_latency;
        sc.seed = sc_.seed * 7919u + p + 1;
        sc.quantum = sc_time(sc_.quantum_ns, SC_NS);
        std::string sn = "trace" + std::to_string(p);
        tsrcs_.emplace_back(new TraceSource(sn.c_str(), sc, t, *tagents_.back()));
    }
}

// One PMU per PE, counting the SPU's (and TRBU's) events as a perf session programs it: the
// units' armprof_host_ops.event / .pmu_freeze go to the PMU of their PE.
void Platform::build_pmu(const sc_time &clk, size_t first_line)
{
    pmu_events_ = {ARMPROF_EV_SAMPLE_POP, ARMPROF_EV_SAMPLE_FEED, ARMPROF_EV_SAMPLE_FILTRATE,
                   ARMPROF_EV_SAMPLE_COLLISION};
    if (sc_.trbe.enabled)
        pmu_events_.push_back(ARMPROF_EV_TRB_WRAP);
    pmu_events_.push_back(PMU_EV_CPU_CYCLES);
    for (unsigned p = 0; p < sc_.pes; p++) {
        pmu_config cfg;
        pmu_config_default(&cfg);
        if (cfg.num_counters < pmu_events_.size())
            cfg.num_counters = (uint8_t)pmu_events_.size();
        std::string n = "pmu" + std::to_string(p);
        pmus_.emplace_back(new PmuModule(n.c_str(), cfg, clk));
        PmuModule &m = *pmus_.back();
        pmuirq_sigs_.emplace_back(new sc_signal<bool, SC_MANY_WRITERS>(("pmuirq" + std::to_string(p)).c_str()));
        m.irq.bind(*pmuirq_sigs_.back());
        irqc_->lines[first_line + p].bind(*pmuirq_sigs_.back());
        armprof_pe_ctx ctx;
        armprof_pe_ctx_default(&ctx);
        ctx.el = 1;
        ctx.hcr_vm = sc_.stage2;
        ctx.contextidr_el1 = 0x100 + p;
        m.set_pe_context(ctx);
        spus_[p]->connect_pmu(PmuModule::event_sink, PmuModule::freeze_sink, m.unit());
        if (sc_.trbe.enabled)
            trbus_[p]->connect_pmu(PmuModule::event_sink, PmuModule::freeze_sink, m.unit());
        PmuModule *mp = &m;
        pagents_.emplace_back(new PmuAgent([mp](uint32_t e, uint64_t *v) { return mp->reg_read(e, v); },
                                           [mp](uint32_t e, uint64_t v) { return mp->reg_write(e, v); }));
        pe_[p]->attach_pmu(m, *pagents_.back(), pmu_events_);
    }
}

// The regime a disabled buffer would have: the drivers' EL1&0, Non-secure.
armprof_regime Platform::idle_regime(unsigned pe, uint8_t unit) const
{
    armprof_regime rg{};
    rg.kind = ARMPROF_REGIME_EL10;
    rg.ss = ARMPROF_NONSECURE;
    rg.el = 1;
    rg.stage2 = sc_.stage2;
    rg.hw_flag_update = sc_.hw_flag_update;
    rg.unit = unit;
    rg.pe = (uint8_t)pe;
    return rg;
}

armprof_regime Platform::trbe_regime(unsigned pe) const
{
    armprof_regime rg{};
    if (!trbu_buffer_enabled(trbus_[pe]->unit(), &rg))
        rg = idle_regime(pe, ARMPROF_UNIT_TRBU);
    return rg;
}

void Platform::Starter::start_of_simulation()
{
    for (const FaultSpec &f : p->sc_.faults)
        p->inject(f);
}

Platform::~Platform()
{
    for (wl_trace &t : traces_)
        wl_trace_free(&t);
}

uint64_t Platform::buffer_pa(unsigned pe) const
{
    uint64_t ipa = DRAM_BASE + BUF_IPA_OFF + pe * sc_.buffer_bytes;
    return sc_.stage2 ? ipa + S2_SHIFT : ipa;
}

armprof_regime Platform::regime(unsigned pe) const
{
    armprof_regime rg{};
    if (!spu_buffer_enabled(spus_[pe]->unit(), &rg))
        rg = idle_regime(pe, ARMPROF_UNIT_SPU);
    return rg;
}

// Kernel-style tables: the buffers at TTBR1 VAs (EL1&0), 4 KB pages, writable-clean (DBM)
// with AF clear when the unit updates flags by hardware, so the first writes exercise the
// hardware updates; stage 2 maps IPA -> IPA + S2_SHIFT and the table pool at IPA == PA.
void Platform::build_tables()
{
    PageTables pt = PageTables::for_memory(*mem_, DRAM_BASE, DRAM_BASE + POOL_OFF, DRAM_BASE + DRAM_SIZE);
    bool hw = sc_.hw_flag_update;
    for (unsigned p = 0; p < sc_.pes; p++) {
        // Each PE runs its own guest: its own stage 2 (VMID), and its own stage 1 (ASID).
        uint64_t ipa = DRAM_BASE + BUF_IPA_OFF + p * sc_.buffer_bytes;
        if (sc_.stage2) {
            uint64_t s2root = pt.alloc_table();
            s2root_ = s2root;
            pt.map(s2root, 0, DRAM_BASE + POOL_OFF, DRAM_BASE + POOL_OFF, DRAM_SIZE - POOL_OFF,
                   PageTables::s2_attrs(), 2);
            pt.map(s2root, 0, ipa, ipa + S2_SHIFT, sc_.buffer_bytes, PageTables::s2_attrs(true, true));
            Smmu::StageCfg c2;
            c2.enabled = true;
            c2.ttb0 = s2root;
            smmu_->set_stage2(p, c2);
        }
        uint64_t root0 = pt.alloc_table(), root1 = pt.alloc_table();
        pt.map(root1, 0, buffer_va(p), ipa, sc_.buffer_bytes, PageTables::s1_attrs(!hw, !hw, hw));
        if (sc_.trbe.enabled) {
            pt.map(root1, 0, trbe_va(p), trbe_ipa(p), sc_.trbe.buffer_bytes, PageTables::s1_attrs(!hw, !hw, hw));
            if (sc_.stage2)
                pt.map(s2root_, 0, trbe_ipa(p), trbe_ipa(p) + S2_SHIFT, sc_.trbe.buffer_bytes,
                       PageTables::s2_attrs(true, true));
        }
        Smmu::StageCfg c1;
        c1.enabled = true;
        c1.ttb0 = root0;
        c1.ttb1 = root1;
        c1.two_ranges = true;
        smmu_->set_stage1(p, ARMPROF_REGIME_EL10, c1);
    }
}

void Platform::inject(const FaultSpec &f)
{
    if (f.pe >= sc_.pes)
        throw std::invalid_argument("fault: no such PE");
    bool trbe = f.unit == "trbe";
    if (!trbe && f.unit != "spe")
        throw std::invalid_argument("fault: unit must be spe or trbe");
    if (trbe && !sc_.trbe.enabled)
        throw std::invalid_argument("fault: unit trbe needs trbe.enabled");
    uint64_t va = (trbe ? trbe_va(f.pe) : buffer_va(f.pe)) + f.offset;
    uint64_t ipa = (trbe ? trbe_ipa(f.pe) : DRAM_BASE + BUF_IPA_OFF + f.pe * sc_.buffer_bytes) + f.offset;
    uint64_t addr = f.stage == 2 ? ipa : va;
    bool ok = true;
    if (f.kind == "unmap")
        ok = smmu_->inject_unmap(f.pe, ARMPROF_REGIME_EL10, f.stage, addr, f.level);
    else if (f.kind == "read_only")
        ok = smmu_->inject_read_only(f.pe, ARMPROF_REGIME_EL10, f.stage, addr);
    else if (f.kind == "clear_af")
        ok = smmu_->inject_clear_af(f.pe, ARMPROF_REGIME_EL10, f.stage, addr);
    else if (f.kind == "walk_abort" || f.kind == "write_abort" || f.kind == "gpf") {
        Smmu::Rule r;
        r.what = f.kind == "walk_abort" ? Smmu::Inject::WalkAbort
               : f.kind == "write_abort" ? Smmu::Inject::WriteAbort : Smmu::Inject::Gpf;
        r.pe = f.pe;
        r.lo = va;
        r.hi = va + f.length;
        r.stage = f.stage;
        r.level = f.level < 0 ? 3 : (unsigned)f.level;
        r.async = f.async;
        r.remaining = f.count;
        r.unit = trbe ? ARMPROF_UNIT_TRBU : -1;
        smmu_->inject(r);
    } else if (f.kind == "mem_error") {
        uint64_t pa = (trbe ? trbe_pa(f.pe) : buffer_pa(f.pe)) + f.offset - DRAM_BASE;
        mem_->add_error_region(pa, pa + f.length, false, true, f.async);
    } else {
        throw std::invalid_argument("fault: unknown kind '" + f.kind + "'");
    }
    if (!ok)
        throw std::invalid_argument("fault: the walk does not reach the descriptor to edit (" + f.kind +
                                    ", PE " + std::to_string(f.pe) + ")");
}

void Platform::trace(sc_trace_file *tf)
{
    for (unsigned p = 0; p < sc_.pes; p++) {
        sc_trace(tf, *irq_sigs_[p], "PMBIRQ_pe" + std::to_string(p));
        sc_trace(tf, spus_[p]->sig_pmbptr, "PMBPTR_EL1_pe" + std::to_string(p));
    }
    for (unsigned p = 0; p < trbus_.size(); p++) {
        sc_trace(tf, *trbirq_sigs_[p], "TRBIRQ_pe" + std::to_string(p));
        sc_trace(tf, trbus_[p]->sig_trbptr, "TRBPTR_EL1_pe" + std::to_string(p));
    }
    for (unsigned p = 0; p < pmuirq_sigs_.size(); p++)
        sc_trace(tf, *pmuirq_sigs_[p], "PMUIRQ_pe" + std::to_string(p));
}

bool Platform::units_busy() const
{
    if (sc_time_stamp() < bus_->drained_at() || (traffic_ && !traffic_->idle()))
        return true;
    for (const auto &s : spus_)
        if (s->at_outstanding() || spu_writes_outstanding(s->unit()))
            return true;
    for (const auto &t : trbus_)
        if (t->at_outstanding() || trbu_writes_outstanding(t->unit()))
            return true;
    return false;
}

void Platform::run()
{
    for (;;) {
        bool done = std::all_of(pe_.begin(), pe_.end(), [](const std::unique_ptr<Pe> &p) { return p->done(); }) &&
                    std::all_of(tsrcs_.begin(), tsrcs_.end(),
                                [](const std::unique_ptr<TraceSource> &t) { return t->done(); });
        if (done)
            break;
        if (stop_flag_ && *stop_flag_) {
            interrupted_ = true; // the dumps hold every buffer the drivers consumed so far
            break;
        }
        const sc_time chunk(sc_.quantum_ns * 16, SC_NS);
        if (pe_group_ && elide_waits_)
            pe_group_->set_horizon(sc_time_stamp() + chunk);
        sc_start(chunk);
    }
    if (pe_group_)
        pe_group_->clear_horizon();
    // Memory timing: the units' writes still outstanding and the bus's queue complete first (an
    // overloaded memory system stretches the run); the background traffic stops.
    if (traffic_)
        traffic_->stop();
    for (unsigned i = 0; i < 1000000 && units_busy(); i++)
        sc_start(sc_time(sc_.quantum_ns, SC_NS));

    // Let the units finish what they have in flight, then end the PMU sessions.
    if (!interrupted_)
        sc_start(sc_time(sc_.quantum_ns, SC_NS));
    for (auto &p : pe_)
        p->stop_pmu();
}

} // namespace armprof
