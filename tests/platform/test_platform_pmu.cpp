// SPDX-License-Identifier: Apache-2.0
// test_platform_pmu.cpp: the PMU wrapper: a PMU snapshot requested through the register socket (PMSSCR_EL1.SS, PMEVCNTSVR<n>_EL1 = the counters at capture), counts arriving through the units' event sink.
#include <cstring>


#include "pmu_module.h"

extern "C" {
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h> // last: its fail() macro would clash with the C++ library
}

#include "reg_cpu.h"

using namespace armprof;
using sc_core::sc_time;
using sc_core::SC_NS;

namespace {

constexpr uint64_t PMCR_E = 1ull << 0, PMCR_LC = 1ull << 6, PMCR_LP = 1ull << 7;
constexpr uint64_t PMSSCR_SS = 1ull << 0;
constexpr uint64_t PMECR_SSE_ALLOWED = 3ull << 3; // SSE 0b11: Capture events allowed

using Cpu = armprof_test::RegCpu;

PmuModule *g_pmu;
Cpu *cpu;
sc_core::sc_signal<bool> *pmuirq;

const uint16_t events[] = {ARMPROF_EV_SAMPLE_POP, ARMPROF_EV_SAMPLE_FEED, ARMPROF_EV_TRB_WRAP};

// FEAT_PMUv3_SS capture through the register socket: SS reads 1 while the Capture event is in
// progress (capture_cycles of the configuration) and 0 after; PMEVCNTSVR<n>_EL1 hold the
// counters at the capture, not the later values (RSCLCQ, RMFJWS with SSE allowed).
void test_snapshot_through_socket(void **)
{
    for (unsigned i = 0; i < 3; i++)
        cpu->wr(PMU_PMEVTYPER_EL0(i), events[i]);
    cpu->wr(PMU_PMCNTENSET_EL0, 0x7);
    cpu->wr(PMU_PMCR_EL0, PMCR_E | PMCR_LC | PMCR_LP);
    cpu->wr(PMU_PMECR_EL1, PMECR_SSE_ALLOWED);
    // The units report their events through the sink (SpuModule / TrbuModule hosts do this).
    PmuModule::event_sink(g_pmu->unit(), ARMPROF_EV_SAMPLE_POP, 1000);
    PmuModule::event_sink(g_pmu->unit(), ARMPROF_EV_SAMPLE_FEED, 7);
    PmuModule::event_sink(g_pmu->unit(), ARMPROF_EV_TRB_WRAP, 3);
    uint64_t at_capture[3];
    for (unsigned i = 0; i < 3; i++)
        at_capture[i] = cpu->rd(PMU_PMEVCNTR_EL0(i));
    assert_int_equal(at_capture[0], 1000);
    assert_int_equal(at_capture[1], 7);
    assert_int_equal(at_capture[2], 3);
    cpu->wr(PMU_PMSSCR_EL1, PMSSCR_SS);
    assert_int_equal(cpu->rd(PMU_PMSSCR_EL1) & PMSSCR_SS, PMSSCR_SS); // in progress (capture_cycles 8)
    int polls = 0;
    while (cpu->rd(PMU_PMSSCR_EL1) & PMSSCR_SS) {
        sc_core::sc_start(sc_time(1, SC_NS)); // the module completes the capture by itself
        assert_true(++polls < 100);
        PmuModule::event_sink(g_pmu->unit(), ARMPROF_EV_SAMPLE_FEED, 0); // nothing new meanwhile
    }
    assert_int_equal(cpu->rd(PMU_PMSSCR_EL1), 0); // {NC, SS} = {0, 0}: successful capture
    // Later events change the counters, not the saved values.
    PmuModule::event_sink(g_pmu->unit(), ARMPROF_EV_SAMPLE_FEED, 5);
    for (unsigned i = 0; i < 3; i++)
        assert_int_equal(cpu->rd(PMU_PMEVCNTSVR_EL1(i)), at_capture[i]);
    assert_int_equal(cpu->rd(PMU_PMEVCNTR_EL0(1)), 12);
}

} // namespace

int sc_main(int, char **)
{
    pmu_config cfg;
    pmu_config_default(&cfg);
    g_pmu = new PmuModule("pmu", cfg);
    cpu = new Cpu("cpu");
    pmuirq = new sc_core::sc_signal<bool>("pmuirq");
    cpu->regs.bind(g_pmu->regs);
    g_pmu->irq.bind(*pmuirq);
    armprof_pe_ctx ctx;
    armprof_pe_ctx_default(&ctx);
    g_pmu->set_pe_context(ctx);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_snapshot_through_socket),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
