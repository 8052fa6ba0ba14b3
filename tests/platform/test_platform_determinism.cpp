// SPDX-License-Identifier: Apache-2.0
// test_platform_determinism.cpp: the same run with and without DMI and with different quanta gives identical buffer contents.
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
// --child DMI QUANTUM_NS), which prints a digest of the dumps and how the writes were made.
int child(bool dmi, double quantum)
{
    Scenario sc;
    sc.pes = 2;
    sc.ops = 1500000;
    sc.buffer_bytes = 8 * 1024;
    sc.dmi = dmi;
    sc.quantum_ns = quantum;
    Platform p(sc);
    p.run();
    uint64_t h = AP_FNV_INIT, bytes = 0, dmi_writes = 0, tlm_writes = 0;
    for (unsigned i = 0; i < sc.pes; i++) {
        const auto &d = p.spe_dump(i);
        h = ap_fnv1a64(d.data(), d.size(), h);
        bytes += d.size();
        dmi_writes += p.spu(i).stats().dmi_writes;
        tlm_writes += p.spu(i).stats().tlm_writes;
    }
    std::printf("%016llx %llu %llu %llu\n", (unsigned long long)h, (unsigned long long)bytes,
                (unsigned long long)dmi_writes, (unsigned long long)tlm_writes);
    return 0;
}

struct Out { unsigned long long hash = 0, bytes = 0, dmi = 0, tlm = 0; };

Out run_child(bool dmi, double quantum)
{
    char cmd[256];
    std::snprintf(cmd, sizeof cmd, "/proc/%d/exe --child %d %g", (int)getpid(), dmi ? 1 : 0, quantum);
    FILE *f = popen(cmd, "r");
    Out o;
    assert_non_null(f);
    assert_int_equal(std::fscanf(f, "%llx %llu %llu %llu", &o.hash, &o.bytes, &o.dmi, &o.tlm), 4);
    assert_int_equal(pclose(f), 0);
    return o;
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
    if (argc == 4 && std::string(argv[1]) == "--child")
        return child(std::atoi(argv[2]) != 0, std::atof(argv[3]));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dmi_and_quantum_do_not_change_buffers),
    };
    return cmocka_run_group_tests_name("platform_determinism", tests, nullptr, nullptr);
}
