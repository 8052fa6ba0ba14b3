// SPDX-License-Identifier: Apache-2.0
// test_platform_rtl.cpp: the platform with spe.sampler rtl (Verilated SystemC counter/FIFO) gives the samples, collisions and spe.bin of sampler model.
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

// Two small scenarios that exercise the counter (RND, every-operation sampling with
// PMSIRR_EL1.INTERVAL == 0), collisions (§3.1.4: few slots), FIFO backpressure (a slow drain),
// buffer-full management events with the driver's restarts (§3.5.2), and 1 or 4 lanes.
Scenario scenario(int which, bool rtl)
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
    // Functional memory on both sides until platform/rtl binds the RTL FIFO's drain_ready to the
    // writer (ARMPROF_RTL_DRAIN_STALL_PORT): the RTL sampler's writes are functional until then.
    sc.timing = "off";
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

int child(int which, bool rtl)
{
    Scenario sc = scenario(which, rtl);
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
    uint64_t bad = xs.slot_mismatches + xs.enable_mismatches + xs.len_mismatches + xs.level_mismatches + xs.owed_edges;
    if (!trace.empty())
        std::remove(trace.c_str());
    // The PE's PMU counted the unit's events in either mode (SAMPLE_FEED / SAMPLE_COLLISION,
    // seed 001 §2.6): a difference is reported as `bad`.
    if (pmu_count(p, ARMPROF_EV_SAMPLE_FEED) != st.feed || pmu_count(p, ARMPROF_EV_SAMPLE_COLLISION) != st.collisions ||
        pmu_count(p, ARMPROF_EV_SAMPLE_POP) != st.population)
        bad++;
    const SpuRtl *sampler = p.pe(0).rtl();
    uint64_t skipped = sampler ? sampler->stats().skipped : 0, drain_steps = sampler ? sampler->stats().drain_steps : 0;
    if (sampler)
        bad += sampler->stats().drain_mismatches;
    std::printf("%llu %llu %llu %llu %llu %llu %llu %016llx %016llx %llu %llu %llu %llu %llu\n",
                (unsigned long long)st.population, (unsigned long long)st.feed,
                (unsigned long long)st.collisions, (unsigned long long)st.records_written,
                (unsigned long long)st.records_discarded, (unsigned long long)st.buffer_full_events,
                (unsigned long long)pcs.n, (unsigned long long)pcs.h, (unsigned long long)dh,
                (unsigned long long)d.size(), (unsigned long long)bad, (unsigned long long)xs.cycles,
                (unsigned long long)skipped, (unsigned long long)drain_steps);
    return 0;
}

struct Out {
    unsigned long long pop = 0, feed = 0, coll = 0, written = 0, discarded = 0, full = 0, recs = 0,
                       pc_hash = 0, dump_hash = 0, dump_bytes = 0, bad = 0, ext_cycles = 0, skipped = 0,
                       drain_steps = 0;
};

Out run_child(int which, bool rtl)
{
    char cmd[256];
    std::snprintf(cmd, sizeof cmd, "/proc/%d/exe --child %d %d", (int)getpid(), which, rtl ? 1 : 0);
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    Out o;
    assert_int_equal(std::fscanf(f, "%llu %llu %llu %llu %llu %llu %llu %llx %llx %llu %llu %llu %llu %llu", &o.pop,
                                 &o.feed, &o.coll, &o.written, &o.discarded, &o.full, &o.recs, &o.pc_hash,
                                 &o.dump_hash, &o.dump_bytes, &o.bad, &o.ext_cycles, &o.skipped, &o.drain_steps),
                     14);
    assert_int_equal(pclose(f), 0);
    return o;
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
    // The model followed every decision of the RTL.
    assert_int_equal(r.bad, 0);
    // Same samples, same collisions (SAMPLE_POP, SAMPLE_FEED, SAMPLE_COLLISION, §3.1.4) ...
    assert_int_equal(r.pop, m.pop);
    assert_int_equal(r.feed, m.feed);
    assert_int_equal(r.coll, m.coll);
    // ... the same records, PC by PC, with the same outcomes ...
    assert_int_equal(r.recs, m.recs);
    assert_int_equal(r.pc_hash, m.pc_hash);
    assert_int_equal(r.written, m.written);
    assert_int_equal(r.discarded, m.discarded);
    assert_int_equal(r.full, m.full);
    // ... and the Profiling Buffer dumps are byte-identical (timestamps included).
    assert_int_equal(r.dump_bytes, m.dump_bytes);
    assert_int_equal(r.dump_hash, m.dump_hash);
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
    if (argc == 4 && std::strcmp(argv[1], "--child") == 0)
        return child(std::atoi(argv[2]), std::atoi(argv[3]) != 0);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rtl_limits),
        cmocka_unit_test(test_rtl_same_as_model_4_lanes),
        cmocka_unit_test(test_rtl_same_as_model_every_op),
        cmocka_unit_test(test_rtl_same_as_model_trace_replay),
        cmocka_unit_test(test_rtl_same_as_model_quiet_steps),
    };
    return cmocka_run_group_tests_name("platform_rtl", tests, NULL, NULL);
}
