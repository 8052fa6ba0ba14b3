// SPDX-License-Identifier: Apache-2.0
// test_platform_rtl.cpp: the platform with spe.sampler rtl (Verilated SystemC counter/FIFO) gives the samples, collisions, spe.bin and memory-timing statistics of sampler model, functional and under a slow, contended memory.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <unistd.h>

extern "C" {
#include "common/state.h" // no extern "C" guards of its own
}
#include "soc.h"
#include "trace_file.h"

extern "C" {
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h> // last: its fail() macro would clash with the C++ library
}

using namespace armprof;

namespace {

// Memory timing of a run: functional (every write accepted at once), or LT with a slow
// memory (200 ns writes) where the record FIFO drains only as writes are accepted.
enum Memory {
    kFunctional = 0,
    // DMI writes (the grant's write latency: memory 200 ns + bus 10 ns: 210 cycles) while
    // background traffic loads the bus that the SMMU's table walks and the writes before the
    // DMI grant cross; one outstanding write of 64 bytes.
    kSlowDmiTraffic = 1,
    // Every write through the SMMU and the bus (no DMI), 4 outstanding 64-byte writes sharing
    // a narrow DRAM port (0.5 B/ns: 128 ns per line) with the table walks: they queue behind
    // each other at the port.
    kSlowContended = 2,
    // The platform's default memory (20 ns, bus 10 ns) with DMI: each record's write takes 30
    // cycles, one outstanding; the writer stalls now and then.
    kLtDefault = 3,
    // kSlowContended with background traffic (64-byte reads, 30% of the port) contending with
    // the unit's writes and walks at the DRAM port, and a quantum of one clock period (1 ns):
    // the transaction-level PE then makes the edges that write at their time (Pe::run()
    // write_sync), as the RTL-clocked PE does, so both PEs' writes reach the bus in the same
    // order relative to the traffic's bursts, which the bus books in the order they are made
    // (docs/integration.md: at the default quantum the two orders differ).
    kSlowContendedTraffic = 4,
    // kSlowContended with `timing: at`: the unit's writes go through the base protocol's four
    // phases (AtBridge before the SMMU), answered from SystemC at BEGIN_RESP; the default
    // quantum (both PEs give up temporal decoupling while AT writes are pending).
    kSlowAt = 5,
    // kSlowAt with kSlowContendedTraffic's background traffic and quantum of one clock period.
    kSlowAtTraffic = 6,
};

// Small scenarios that exercise the counter (RND, every-operation sampling with
// PMSIRR_EL1.INTERVAL == 0), collisions (§3.1.4: few slots), FIFO backpressure (a slow drain),
// buffer-full management events with the driver's restarts (§3.5.2), and 1 or 4 lanes; each
// functional, and some under a slow memory.
Scenario scenario(int which, bool rtl, int mem = kFunctional)
{
    Scenario sc;
    sc.name = "rtl-vs-model";
    sc.pes = 1;
    sc.seed = 3;
    sc.buffer_bytes = 8192;
    sc.irq_latency = 500;
    sc.fifo_bytes = 256;
    if (which == 0) {
        sc.ops = 120000;        // a multiple of ops_per_cycle
        sc.ops_per_cycle = 4;
        sc.interval = 0;        // INTERVAL 0 with RND: reloads of 0..255
        sc.rnd = true;
        sc.max_inflight = 2;
        sc.drain_bytes_per_cycle = 1;
    } else if (which == 3) {
        // examples/rtl_sampler.yaml: a sample every ~257 operations, so that most cycles are
        // quiet (SpuRtl::skip_idle(): idle ones not clocked, draining ones in one edge each).
        sc.ops = 400000;
        sc.ops_per_cycle = 4;
        sc.interval = 256;
        sc.rnd = true;
        sc.max_inflight = 2;
        sc.drain_bytes_per_cycle = 1;
    } else if (which == 2) {
        // An operation-trace replay (workload.trace) with the PMU counting: the RTL's lanes take
        // the trace's operations by their index in the population, as the model's PE does.
        sc.ops = 0;
        sc.workload.repeat = 12;
        sc.ops_per_cycle = 4;
        sc.interval = 0;
        sc.rnd = true;
        sc.max_inflight = 2;
        sc.drain_bytes_per_cycle = 1;
    } else {
        sc.ops = 60000;
        sc.ops_per_cycle = 1;
        sc.interval = 0;        // RND=0: every operation is sampled (most collide)
        sc.rnd = false;
        sc.max_inflight = 1;
        sc.drain_bytes_per_cycle = 3;
    }
    sc.sampler = rtl ? "rtl" : "model";
    if (mem == kFunctional) {
        sc.timing = "off";
        return sc;
    }
    // Issue 12: the buffer writer's writes take the memory system's time and the record FIFO
    // drains only as they are accepted (the RTL's drain_ready = spu_drain_ready()).
    sc.timing = mem == kSlowAt || mem == kSlowAtTraffic ? "at" : "lt";
    if (mem == kLtDefault)
        return sc;
    sc.mem_write_latency_ns = 200;
    sc.write_bytes = 64;
    if (mem == kSlowDmiTraffic) {
        sc.dmi = true;
        sc.max_outstanding_writes = 1;
        sc.traffic.share = 0.6;
        sc.traffic.burst_bytes = 256;
        sc.traffic.seed = 7;
    } else {
        sc.dmi = false;
        sc.max_outstanding_writes = 4;
        sc.bus_bytes_per_ns = 0.5;
    }
    if (mem == kSlowContendedTraffic || mem == -kSlowContendedTraffic || mem == kSlowAtTraffic)
        sc.quantum_ns = sc.clock_ns;
    if (mem == kSlowContendedTraffic || mem == kSlowAtTraffic) {
        sc.traffic.share = 0.3;
        sc.traffic.burst_bytes = 64;
        sc.traffic.seed = 7;
    }
    return sc;
}

struct PcHash {
    uint64_t h = AP_FNV_INIT, n = 0;
    static void hook(void *user, const spe_record *rec, const uint8_t *, size_t)
    {
        PcHash *p = static_cast<PcHash *>(user);
        p->h = ap_fnv1a64(&rec->pc, sizeof(rec->pc), p->h);
        p->n++;
    }
};

// SystemC elaborates once per process: each run is a child (this program with --child N RTL)
// that prints what the parent compares.
// Writes `n` operations of the synthetic generator as a trace file (scenario 2).
std::string write_trace(unsigned n)
{
    std::string path = "/tmp/armprof_rtl_replay_" + std::to_string(getpid()) + ".trc";
    FILE *f = std::fopen(path.c_str(), "w");
    if (!f || wl_trace_write_header(f))
        throw std::runtime_error("cannot write " + path);
    wl_config wc;
    wl_config_default(&wc);
    wc.seed = 11;
    wl_gen g;
    wl_init(&g, &wc);
    for (unsigned i = 0; i < n; i++) {
        spu_op op;
        wl_next(&g, &op);
        if (wl_trace_write_op(f, &op))
            throw std::runtime_error("cannot write " + path);
    }
    std::fclose(f);
    return path;
}

uint64_t pmu_count(Platform &p, uint16_t ev)
{
    const std::vector<uint16_t> &e = p.pmu_events();
    for (unsigned i = 0; i < e.size(); i++)
        if (e[i] == ev)
            return p.pmu_agent(0).read(i);
    return UINT64_MAX;
}

// FNV-1a of a statistics array.
template <typename T, size_t N> uint64_t hash_of(const T (&a)[N]) { return ap_fnv1a64(a, sizeof a, AP_FNV_INIT); }

int child(int which, bool rtl, int mem)
{
    Scenario sc = scenario(which, rtl, mem);
    // The RTL sampler's "model could not follow" warning would go to stdout, which carries
    // this child's numbers: `bad` below reports the same counts.
    sc_core::sc_report_handler::set_actions("armprof/rtl", sc_core::SC_WARNING, sc_core::SC_DO_NOTHING);
    std::string trace;
    if (which == 2)
        sc.workload.trace = trace = write_trace(7000);
    Platform p(sc);
    PcHash pcs;
    spu_set_record_hook(p.spu(0).unit(), &PcHash::hook, &pcs);
    p.run();
    spu_stats st;
    spu_get_stats(p.spu(0).unit(), &st);
    spu_ext_stats xs;
    spu_get_ext_stats(p.spu(0).unit(), &xs);
    const auto &d = p.spe_dump(0);
    uint64_t dh = ap_fnv1a64(d.data(), d.size(), AP_FNV_INIT);
    // drain_not_ready: the RTL drained at an edge where the model's writer did not take bytes
    // (an RTL that ignored drain_ready under back-pressure).
    uint64_t bad = xs.slot_mismatches + xs.enable_mismatches + xs.len_mismatches + xs.level_mismatches + xs.owed_edges +
                   xs.drain_not_ready;
    if (!trace.empty())
        std::remove(trace.c_str());
    // The PE's PMU counted the unit's events in either mode (SAMPLE_FEED / SAMPLE_COLLISION,
    // seed 001 §2.6): a difference is reported as `bad`.
    if (pmu_count(p, ARMPROF_EV_SAMPLE_FEED) != st.feed || pmu_count(p, ARMPROF_EV_SAMPLE_COLLISION) != st.collisions ||
        pmu_count(p, ARMPROF_EV_SAMPLE_POP) != st.population)
        bad++;
    const SpuRtl *sampler = p.pe(0).rtl();
    uint64_t skipped = sampler ? sampler->stats().skipped : 0, drain_steps = sampler ? sampler->stats().drain_steps : 0;
    uint64_t ready_stalls = sampler ? sampler->stats().ready_stalls : 0;
    uint64_t step_stalls = sampler ? sampler->stats().step_stalls : 0;
    if (sampler)
        bad += sampler->stats().drain_mismatches;
    std::printf("%llu %llu %llu %llu %llu %llu %llu %016llx %016llx %llu %llu %llu %llu %llu\n",
                (unsigned long long)st.population, (unsigned long long)st.feed,
                (unsigned long long)st.collisions, (unsigned long long)st.records_written,
                (unsigned long long)st.records_discarded, (unsigned long long)st.buffer_full_events,
                (unsigned long long)pcs.n, (unsigned long long)pcs.h, (unsigned long long)dh,
                (unsigned long long)d.size(), (unsigned long long)bad, (unsigned long long)xs.cycles,
                (unsigned long long)skipped, (unsigned long long)drain_steps);
    // The memory-timing statistics (capi/armprof/spu.h, summary.json) and the unit's bus side.
    const BufferPort::Stats &ps = p.spu(0).stats();
    std::printf("%llu %llu %llu %llu %llu %llu %llu %llu %llu %016llx %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu\n",
                (unsigned long long)st.fifo_bytes_max, (unsigned long long)st.writer_stall_cycles,
                (unsigned long long)st.outstanding_writes_max, (unsigned long long)st.write_latency_min,
                (unsigned long long)st.write_latency_max, (unsigned long long)st.write_latency_sum,
                (unsigned long long)st.writes_answered, (unsigned long long)st.writes_issued,
                (unsigned long long)st.fifo_byte_cycles, (unsigned long long)hash_of(st.fifo_hist),
                (unsigned long long)st.fifo_full_cycles, (unsigned long long)st.service_cycles,
                (unsigned long long)ps.tlm_writes, (unsigned long long)ps.dmi_writes,
                (unsigned long long)ps.bus_time.value(), (unsigned long long)p.bus().target_stats(0).wait.value(),
                (unsigned long long)sc_core::sc_time_stamp().value(), (unsigned long long)ready_stalls,
                (unsigned long long)(p.traffic() ? p.traffic()->stats().transactions : 0),
                (unsigned long long)step_stalls);
    return 0;
}

struct Out {
    unsigned long long pop = 0, feed = 0, coll = 0, written = 0, discarded = 0, full = 0, recs = 0,
                       pc_hash = 0, dump_hash = 0, dump_bytes = 0, bad = 0, ext_cycles = 0, skipped = 0,
                       drain_steps = 0;
    unsigned long long fifo_max = 0, stall = 0, out_max = 0, lat_min = 0, lat_max = 0, lat_sum = 0, answered = 0,
                       issued = 0, byte_cycles = 0, hist_hash = 0, fifo_full = 0, service = 0, tlm_writes = 0,
                       dmi_writes = 0, bus_time = 0, bus_wait = 0, end = 0, ready_stalls = 0, bursts = 0,
                       step_stalls = 0;
};

Out run_child(int which, bool rtl, int mem = kFunctional)
{
    char cmd[256];
    std::snprintf(cmd, sizeof cmd, "/proc/%d/exe --child %d %d %d", (int)getpid(), which, rtl ? 1 : 0, mem);
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    Out o;
    assert_int_equal(std::fscanf(f, "%llu %llu %llu %llu %llu %llu %llu %llx %llx %llu %llu %llu %llu %llu", &o.pop,
                                 &o.feed, &o.coll, &o.written, &o.discarded, &o.full, &o.recs, &o.pc_hash,
                                 &o.dump_hash, &o.dump_bytes, &o.bad, &o.ext_cycles, &o.skipped, &o.drain_steps),
                     14);
    assert_int_equal(std::fscanf(f, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llx %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
                                 &o.fifo_max, &o.stall, &o.out_max, &o.lat_min, &o.lat_max, &o.lat_sum, &o.answered,
                                 &o.issued, &o.byte_cycles, &o.hist_hash, &o.fifo_full, &o.service, &o.tlm_writes,
                                 &o.dmi_writes, &o.bus_time, &o.bus_wait, &o.end, &o.ready_stalls, &o.bursts,
                                 &o.step_stalls),
                     20);
    assert_int_equal(pclose(f), 0);
    return o;
}

// Sampler rtl against sampler model, both under the same memory: the same samples, records and
// bytes (same_records(), every run) and the same memory-timing statistics (same_statistics(), the
// timed runs).
void same_records(const Out &m, const Out &r)
{
    assert_int_equal(r.bad, 0);
    assert_int_equal(r.pop, m.pop);
    assert_int_equal(r.feed, m.feed);
    assert_int_equal(r.coll, m.coll);
    assert_int_equal(r.recs, m.recs);
    assert_int_equal(r.pc_hash, m.pc_hash);
    assert_int_equal(r.written, m.written);
    assert_int_equal(r.discarded, m.discarded);
    assert_int_equal(r.full, m.full);
    assert_int_equal(r.dump_bytes, m.dump_bytes);
    assert_int_equal(r.dump_hash, m.dump_hash);
}

void same_statistics(const Out &m, const Out &r)
{
    assert_int_equal(r.fifo_max, m.fifo_max);       // fifo_bytes_max
    assert_int_equal(r.stall, m.stall);             // writer_stall_cycles
    assert_int_equal(r.out_max, m.out_max);         // outstanding_writes_max
    assert_int_equal(r.lat_min, m.lat_min);         // write_latency min / max / sum (mean)
    assert_int_equal(r.lat_max, m.lat_max);
    assert_int_equal(r.lat_sum, m.lat_sum);
    assert_int_equal(r.answered, m.answered);
    assert_int_equal(r.issued, m.issued);
    assert_int_equal(r.byte_cycles, m.byte_cycles); // fifo_bytes_mean
    assert_int_equal(r.hist_hash, m.hist_hash);     // the FIFO occupancy histogram
    assert_int_equal(r.fifo_full, m.fifo_full);
    assert_int_equal(r.service, m.service);
    assert_int_equal(r.tlm_writes, m.tlm_writes);   // the same writes on the same paths ...
    assert_int_equal(r.dmi_writes, m.dmi_writes);
    assert_int_equal(r.bus_time, m.bus_time);       // ... charged the same time
    assert_int_equal(r.bus_wait, m.bus_wait);       // the DRAM port queued as long
    assert_int_equal(r.bursts, m.bursts);
    assert_int_equal(r.end, m.end);                 // and the run ends at the same time
}

void same_run(int which)
{
    Out m = run_child(which, false), r = run_child(which, true);
    std::printf("scenario %d: population %llu, SAMPLE_FEED %llu, collisions %llu, written %llu, discarded %llu, "
                "buffer full %llu, spe.bin %llu B; RTL run: %llu cycles, %llu quiet ones in steps (%llu drain steps)\n",
                which, m.pop, m.feed, m.coll, m.written, m.discarded, m.full, m.dump_bytes, r.ext_cycles, r.skipped,
                r.drain_steps);
    // The scenario does what it is there for.
    assert_true(m.feed > 300);
    if (which == 3) {
        assert_true(r.skipped > r.ext_cycles / 2); // most cycles quiet: taken in steps ...
        assert_true(r.drain_steps > 300);          // ... draining ones too
        assert_true(m.coll >= 1);
    } else {
        assert_true(m.coll > 50);
    }
    assert_true(m.full >= 2);
    assert_true(m.dump_bytes > 8192);
    assert_int_equal(m.ext_cycles, 0);      // the model run has no external sampler
    assert_int_equal(m.bad, 0);             // the model run's PMU counts equal its unit's
    if (which == 2) // the trace's lines * repeat retire; those while PMBSR_EL1.S == 1 are not counted
        assert_true(m.pop <= 7000 * 12 && m.pop > 7000 * 11);
    assert_true(r.ext_cycles >= m.pop / scenario(which, true).ops_per_cycle);
    // The model followed every decision of the RTL; the same samples and collisions (SAMPLE_POP,
    // SAMPLE_FEED, SAMPLE_COLLISION, §3.1.4), the same records PC by PC with the same outcomes, and
    // byte-identical Profiling Buffer dumps (timestamps included).
    same_records(m, r);
}

void test_rtl_same_as_model_4_lanes(void **state)
{
    (void)state;
    same_run(0);
}

void test_rtl_same_as_model_every_op(void **state)
{
    (void)state;
    same_run(1);
}

void test_rtl_same_as_model_trace_replay(void **state)
{
    (void)state;
    same_run(2);
}

// The quiet cycles the RTL run takes in steps (idle: not clocked; draining: one edge at
// k x the drain rate, COUNT reloaded after) change nothing: the same identity with the model.
void test_rtl_same_as_model_quiet_steps(void **state)
{
    (void)state;
    same_run(3);
}

// Issue 12: under a slow memory the buffer writer stalls and the record FIFO fills; the RTL's
// FIFO offers its bytes (drain_valid) but hands them over only with drain_ready, which the
// platform drives from the model's writer (spu_drain_ready()) every cycle. Sampler rtl then
// still gives sampler model's records and statistics, stall for stall; an RTL that drained
// regardless would be caught (drain_not_ready, then level / owed mismatches and other bytes).
void slow_run(int which, int mem)
{
    Out f = run_child(which, false), m = run_child(which, false, mem), r = run_child(which, true, mem);
    std::printf("scenario %d, memory %d: collisions %llu (functional %llu), written %llu, fifo_bytes_max %llu (functional "
                "%llu), writer_stall_cycles %llu, outstanding max %llu, write latency %llu/%.1f/%llu cycles, %llu TLM + "
                "%llu DMI writes, %llu background bursts; RTL run: %llu quiet cycles in steps (%llu drain steps), "
                "%llu cycles with drain_ready low (%llu in steps)\n",
                which, mem, m.coll, f.coll, m.written, m.fifo_max, f.fifo_max, m.stall, m.out_max, m.lat_min,
                m.answered ? (double)m.lat_sum / (double)m.answered : 0.0, m.lat_max, m.tlm_writes, m.dmi_writes,
                m.bursts, r.skipped, r.drain_steps, r.ready_stalls, r.step_stalls);
    // The memory slows the unit down: the writer stalls, and the FIFO holds more than with
    // functional memory.
    assert_int_equal(f.stall, 0);
    assert_true(m.stall > 1000);
    assert_true(m.fifo_max > f.fifo_max || m.fifo_max == 256);
    assert_true(m.byte_cycles > f.byte_cycles);
    assert_true(m.coll >= f.coll);
    assert_true(m.answered > 90);
    if (mem == kLtDefault) {
        // DMI's write latency: memory 20 ns + bus 10 ns (more for the TLM writes before the
        // grant, whose table walks read over the bus; PSB CSYNC settles some writes at once).
        assert_true(m.lat_max >= 30 && m.lat_max < 1000 && m.dmi_writes > m.tlm_writes);
        // Most cycles still quiet and taken in steps, stalls included.
        assert_true(r.skipped > r.ext_cycles / 2);
        assert_true(r.step_stalls > 100);
    } else {
        // 200 ns writes: 210 cycles through DMI or TLM (with the 10 ns bus), more when queued
        // or translated by a walk.
        assert_true(m.lat_max > 210 && m.lat_sum / m.answered > 150);
    }
    if (mem == kSlowDmiTraffic)
        assert_true(m.bursts > 1000 && m.dmi_writes > m.tlm_writes);
    if (mem == kSlowContended || mem == kSlowContendedTraffic || mem == kSlowAt || mem == kSlowAtTraffic)
        assert_true(m.tlm_writes > 100 && m.dmi_writes == 0 && m.out_max == 4 && m.bus_wait > 0);
    if (mem == kSlowAtTraffic)
        assert_true(m.bursts > 50);
    if (mem == kSlowContendedTraffic) {
        // The bursts contend with the unit's writes at the port: against the same run without
        // traffic the port queues longer and the unit's writes take longer on average.
        Out n = run_child(which, false, -kSlowContendedTraffic);
        std::printf("  without traffic: DRAM port wait %llu ps, write latency %.1f cycles; with: %llu ps, %.1f cycles\n",
                    n.bus_wait, (double)n.lat_sum / (double)n.answered, m.bus_wait,
                    (double)m.lat_sum / (double)m.answered);
        assert_true(m.bursts > 50);
        assert_true(m.bus_wait > n.bus_wait);
        assert_true(m.lat_sum * n.answered > n.lat_sum * m.answered);
        assert_int_equal(n.bursts, 0);
    }
    assert_int_equal(m.bad, 0);
    assert_int_equal(m.ext_cycles, 0);
    // The RTL held its offer (drain_valid with drain_ready low) on exactly the cycles the
    // model's writer stalled.
    assert_int_equal(r.ready_stalls, r.stall);
    same_records(m, r);
    same_statistics(m, r);
}

// The example's scenario with the default memory (LT, DMI): most cycles remain quiet and are
// taken in steps, including those where the writer stalls (the RTL is not clocked: with
// drain_ready low its edges would change nothing).
void test_rtl_same_as_model_lt_quiet_steps(void **state)
{
    (void)state;
    slow_run(3, kLtDefault);
}

void test_rtl_same_as_model_slow_memory_quiet_steps(void **state)
{
    (void)state;
    slow_run(3, kSlowDmiTraffic);
}

void test_rtl_same_as_model_slow_contended_4_lanes(void **state)
{
    (void)state;
    slow_run(0, kSlowContended);
}

void test_rtl_same_as_model_slow_contended_every_op(void **state)
{
    (void)state;
    slow_run(1, kSlowContended);
}

void test_rtl_same_as_model_slow_memory_trace_replay(void **state)
{
    (void)state;
    slow_run(2, kSlowDmiTraffic);
}

// Background traffic on the DRAM port that the unit's TLM writes (no DMI) cross: with a quantum
// of one clock period both PEs make each writing edge with SystemC at its time, so the bus books
// the writes and the bursts in the same order and the runs agree, bus wait for bus wait.
void test_rtl_same_as_model_contended_traffic_quiet_steps(void **state)
{
    (void)state;
    slow_run(3, kSlowContendedTraffic);
}

void test_rtl_same_as_model_contended_traffic_4_lanes(void **state)
{
    (void)state;
    slow_run(0, kSlowContendedTraffic);
}

void test_rtl_same_as_model_contended_traffic_every_op(void **state)
{
    (void)state;
    slow_run(1, kSlowContendedTraffic);
}

// `timing: at`: the RTL-clocked PE runs every cycle at its time while AT writes are pending,
// holds the answers that arrive during its edge's delta cycles until the model's edge is made
// (as the transaction-level PE's lockstep takes them), and counts the cycles the unit's own
// clock takes while the driver's PSB CSYNC waits for answers (SpuRtl::unclocked()).
void test_rtl_same_as_model_at_quiet_steps(void **state)
{
    (void)state;
    slow_run(3, kSlowAt);
}

void test_rtl_same_as_model_at_4_lanes(void **state)
{
    (void)state;
    slow_run(0, kSlowAt);
}

void test_rtl_same_as_model_at_every_op(void **state)
{
    (void)state;
    slow_run(1, kSlowAt);
}

void test_rtl_same_as_model_at_traffic_quiet_steps(void **state)
{
    (void)state;
    slow_run(3, kSlowAtTraffic);
}

void test_rtl_same_as_model_at_traffic_4_lanes(void **state)
{
    (void)state;
    slow_run(0, kSlowAtTraffic);
}

// Configurations the RTL cannot represent are refused with the reason, before elaboration.
void test_rtl_limits(void **state)
{
    (void)state;
    spu_config c;
    spu_config_default(&c);
    assert_string_equal(SpuRtl::why_not(c, 4).c_str(), "");
    assert_non_null(std::strstr(SpuRtl::why_not(c, 5).c_str(), "ops_per_cycle"));
    c.max_inflight = 9;
    assert_non_null(std::strstr(SpuRtl::why_not(c, 1).c_str(), "max_inflight"));
    c.max_inflight = 8;
    c.fifo_bytes = 2048;
    assert_non_null(std::strstr(SpuRtl::why_not(c, 1).c_str(), "fifo_bytes"));
    c.fifo_bytes = 1024;
    c.drain_bytes_per_cycle = 33;
    assert_non_null(std::strstr(SpuRtl::why_not(c, 1).c_str(), "drain_bytes_per_cycle"));
}

} // namespace

int sc_main(int argc, char **argv)
{
    if (argc == 5 && std::strcmp(argv[1], "--child") == 0)
        return child(std::atoi(argv[2]), std::atoi(argv[3]) != 0, std::atoi(argv[4]));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rtl_limits),
        cmocka_unit_test(test_rtl_same_as_model_4_lanes),
        cmocka_unit_test(test_rtl_same_as_model_every_op),
        cmocka_unit_test(test_rtl_same_as_model_trace_replay),
        cmocka_unit_test(test_rtl_same_as_model_quiet_steps),
        cmocka_unit_test(test_rtl_same_as_model_lt_quiet_steps),
        cmocka_unit_test(test_rtl_same_as_model_slow_memory_quiet_steps),
        cmocka_unit_test(test_rtl_same_as_model_slow_contended_4_lanes),
        cmocka_unit_test(test_rtl_same_as_model_slow_contended_every_op),
        cmocka_unit_test(test_rtl_same_as_model_slow_memory_trace_replay),
        cmocka_unit_test(test_rtl_same_as_model_contended_traffic_quiet_steps),
        cmocka_unit_test(test_rtl_same_as_model_contended_traffic_4_lanes),
        cmocka_unit_test(test_rtl_same_as_model_contended_traffic_every_op),
        cmocka_unit_test(test_rtl_same_as_model_at_quiet_steps),
        cmocka_unit_test(test_rtl_same_as_model_at_4_lanes),
        cmocka_unit_test(test_rtl_same_as_model_at_every_op),
        cmocka_unit_test(test_rtl_same_as_model_at_traffic_quiet_steps),
        cmocka_unit_test(test_rtl_same_as_model_at_traffic_4_lanes),
    };
    return cmocka_run_group_tests_name("platform_rtl", tests, NULL, NULL);
}
