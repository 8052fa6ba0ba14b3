// SPDX-License-Identifier: Apache-2.0
// test_platform_determinism.cpp: with zero memory latency, the same run with and without DMI and with different quanta gives identical buffer contents; with memory timing, the same scenario gives the same bytes and statistics on every run.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

extern "C" {
#include "common/state.h" // no extern "C" guards of its own
}
#include "soc.h"

extern "C" {
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h> // last: its fail() macro would clash with the C++ library
}

using namespace armprof;

namespace {

// SystemC elaborates once per process: each variant runs in a child (this program with
// --child DMI QUANTUM_NS TIMED), which prints a digest of the dumps, how the writes were made and
// the timing statistics. TIMED 0: memory timing on (timing: lt) with zero latency everywhere
// (bus and memory latency 0, unlimited bandwidth); 1: the default bus and memory with a write
// latency of 200 ns and background traffic.
int child(bool dmi, double quantum, int timed)
{
    Scenario sc;
    sc.pes = 2;
    sc.ops = 1500000;
    sc.buffer_bytes = 8 * 1024;
    sc.dmi = dmi;
    sc.quantum_ns = quantum;
    sc.timing = "lt";
    if (timed) {
        sc.mem_write_latency_ns = 200;
        sc.traffic.share = 0.5;
        sc.traffic.burst_bytes = 256;
        if (timed == 2) { // overload: the traffic alone fills a 4 B/ns port
            sc.bus_bytes_per_ns = 4;
            sc.traffic.share = 1.0;
            sc.traffic.burst_bytes = 4096;
        }
    } else {
        sc.bus_latency_ns = 0;
        sc.bus_bytes_per_ns = 0;
        sc.mem_latency_ns = 0;
    }
    Platform p(sc);
    p.run();
    uint64_t h = AP_FNV_INIT, bytes = 0, dmi_writes = 0, tlm_writes = 0, st_sum = 0;
    for (unsigned i = 0; i < sc.pes; i++) {
        const auto &d = p.spe_dump(i);
        h = ap_fnv1a64(d.data(), d.size(), h);
        bytes += d.size();
        dmi_writes += p.spu(i).stats().dmi_writes;
        tlm_writes += p.spu(i).stats().tlm_writes;
        spu_stats st;
        spu_get_stats(p.spu(i).unit(), &st);
        for (uint64_t v : {st.collisions, st.fifo_bytes_max, st.fifo_full_cycles, st.writer_stall_cycles,
                           st.outstanding_writes_max, st.write_latency_sum, st.write_latency_max, st.records_written})
            st_sum = st_sum * 1000003u + v;
    }
    std::printf("%016llx %llu %llu %llu %llu %llu %llu\n", (unsigned long long)h, (unsigned long long)bytes,
                (unsigned long long)dmi_writes, (unsigned long long)tlm_writes, (unsigned long long)st_sum,
                (unsigned long long)p.bus().target_stats(0).wait.value(), (unsigned long long)sc_core::sc_time_stamp().value());
    return 0;
}

struct Out { unsigned long long hash = 0, bytes = 0, dmi = 0, tlm = 0, stats = 0, wait = 0, end = 0; };

Out run_child(bool dmi, double quantum, int timed = 0)
{
    char cmd[256];
    std::snprintf(cmd, sizeof cmd, "/proc/%d/exe --child %d %g %d", (int)getpid(), dmi ? 1 : 0, quantum, timed);
    FILE *f = popen(cmd, "r");
    Out o;
    assert_non_null(f);
    assert_int_equal(std::fscanf(f, "%llx %llu %llu %llu %llu %llu %llu", &o.hash, &o.bytes, &o.dmi, &o.tlm, &o.stats,
                                 &o.wait, &o.end), 7);
    assert_int_equal(pclose(f), 0);
    return o;
}

// With memory timing, two runs of the same scenario: the same bytes and statistics, and the bus
// never reports more queued time than the run lasted.
void test_timed_runs_repeat(void **)
{
    Out a = run_child(false, 1000, 1), b = run_child(false, 1000, 1);
    assert_true(a.bytes > 10000);
    assert_int_equal(a.hash, b.hash);
    assert_int_equal(a.bytes, b.bytes);
    assert_int_equal(a.stats, b.stats);
    assert_int_equal(a.wait, b.wait);
    assert_int_equal(a.end, b.end);
    assert_true(a.wait > 0);
    assert_true(a.wait <= a.end);
}

// An overloaded bus (the background traffic alone asks for all of it) stretches the
// initiators' time: the port has a queue most of the run, never for longer than the run.
void test_overload_queued_time_within_run(void **)
{
    Out o = run_child(false, 1000, 2);
    assert_true(o.wait <= o.end);
    assert_true(o.wait > o.end / 2);
}

void test_dmi_and_quantum_do_not_change_buffers(void **)
{
    Out ref = run_child(true, 1000);
    assert_true(ref.bytes > 10000);
    assert_true(ref.dmi > 0);
    Out nodmi = run_child(false, 1000);
    assert_int_equal(nodmi.dmi, 0);
    assert_true(nodmi.tlm > 0);
    Out q_small = run_child(true, 50);
    Out q_large = run_child(false, 100000);
    for (const Out &o : {nodmi, q_small, q_large}) {
        assert_int_equal(o.hash, ref.hash);
        assert_int_equal(o.bytes, ref.bytes);
    }
}

} // namespace

int sc_main(int argc, char **argv)
{
    if (argc == 5 && std::string(argv[1]) == "--child")
        return child(std::atoi(argv[2]) != 0, std::atof(argv[3]), std::atoi(argv[4]));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dmi_and_quantum_do_not_change_buffers),
        cmocka_unit_test(test_timed_runs_repeat),
        cmocka_unit_test(test_overload_queued_time_within_run),
    };
    return cmocka_run_group_tests_name("platform_determinism", tests, nullptr, nullptr);
}
