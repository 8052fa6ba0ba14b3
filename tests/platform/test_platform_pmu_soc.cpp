// SPDX-License-Identifier: Apache-2.0
// test_platform_pmu_soc.cpp: the PMU of each PE inside the platform: SAMPLE_POP/FEED/FILTRATE/COLLISION and TRB_WRAP counted by the PMU equal the units' own counts; PMU snapshots through the register socket, during and after the run; PMUIRQ on its PPI.
#include <vector>


#include "soc.h"

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

constexpr uint64_t PMSSCR_SS = 1ull << 0;
constexpr uint64_t PMECR_SSE_ALLOWED = 3ull << 3; // PMECR_EL1.SSE 0b11: Capture events allowed

// A CPU that reaches the PMU of PE 0 only through its register socket (offset = encoding * 8).
using Cpu = armprof_test::RegCpu;

Platform *plat;
Cpu *cpu;

// The counter index of an event in the platform's perf session.
unsigned counter_of(uint16_t ev)
{
    const std::vector<uint16_t> &e = plat->pmu_events();
    for (unsigned i = 0; i < e.size(); i++)
        if (e[i] == ev)
            return i;
    fail_msg("event 0x%x not counted", ev);
    return 0;
}

uint64_t count(unsigned pe, uint16_t ev) { return plat->pmu_agent(pe).read(counter_of(ev)); }

// Seed 001 §2.6 events: the PMU's counts are the SPU's own (spu_get_stats), per PE.
void test_spe_events_equal_spu_stats(void **)
{
    for (unsigned p = 0; p < plat->pes(); p++) {
        spu_stats st;
        spu_get_stats(plat->spu(p).unit(), &st);
        assert_true(st.population >= 500000); // not counted while PMBSR_EL1.S == 1
        assert_true(st.feed > 1000);
        assert_true(st.collisions > 0); // the short interval makes samples collide
        assert_int_equal(count(p, ARMPROF_EV_SAMPLE_POP), st.population);
        assert_int_equal(count(p, ARMPROF_EV_SAMPLE_FEED), st.feed);
        assert_int_equal(count(p, ARMPROF_EV_SAMPLE_FILTRATE), st.filtrate);
        assert_int_equal(count(p, ARMPROF_EV_SAMPLE_COLLISION), st.collisions);
        assert_true(plat->pe(p).pmu_counting());
    }
}

// TRB_WRAP: one per wrap of the trace buffer pointer, as the TRBU counts them.
void test_trb_wrap_equals_trbu_wraps(void **)
{
    for (unsigned p = 0; p < plat->pes(); p++) {
        trbu_stats st;
        trbu_get_stats(plat->trbu(p).unit(), &st);
        assert_true(st.wraps >= 3);
        assert_int_equal(count(p, ARMPROF_EV_TRB_WRAP), st.wraps);
    }
}

// CPU_CYCLES on an event counter and PMCCNTR_EL0 both count the PE's cycles (ops / ops_per_cycle, then the units' drain).
void test_cycles(void **)
{
    for (unsigned p = 0; p < plat->pes(); p++) {
        uint64_t c = count(p, PMU_EV_CPU_CYCLES);
        assert_int_equal(c, plat->pmu_agent(p).cycles());
        assert_true(c >= plat->scenario().ops / plat->scenario().ops_per_cycle);
        // No overflow interrupt was enabled: PMUIRQ never rose on its PPI.
        assert_int_equal(plat->irqc().assertions(p, PPI_PMUIRQ_DEFAULT), 0);
    }
}

// FEAT_PMUv3_SS through the register socket after the run: SS reads 1 while the Capture is in
// progress and 0 after; PMEVCNTSVR<n>_EL1 = PMEVCNTR<n>_EL0 = the SPU's counts (counting has
// stopped), PMCCNTSVR_EL1 = PMCCNTR_EL0.
void test_snapshot_after_run(void **)
{
    cpu->wr(PMU_PMECR_EL1, PMECR_SSE_ALLOWED);
    cpu->wr(PMU_PMSSCR_EL1, PMSSCR_SS);
    assert_int_equal(cpu->rd(PMU_PMSSCR_EL1) & PMSSCR_SS, PMSSCR_SS);
    int polls = 0;
    while (cpu->rd(PMU_PMSSCR_EL1) & PMSSCR_SS) {
        sc_core::sc_start(sc_time(1, SC_NS)); // the PMU module completes the Capture by itself
        assert_true(++polls < 100);
    }
    assert_int_equal(cpu->rd(PMU_PMSSCR_EL1), 0); // {NC, SS} = {0, 0}: successful capture
    spu_stats st;
    spu_get_stats(plat->spu(0).unit(), &st);
    assert_int_equal(cpu->rd(PMU_PMEVCNTSVR_EL1(counter_of(ARMPROF_EV_SAMPLE_POP))), st.population);
    assert_int_equal(cpu->rd(PMU_PMEVCNTSVR_EL1(counter_of(ARMPROF_EV_SAMPLE_FEED))), st.feed);
    assert_int_equal(cpu->rd(PMU_PMEVCNTSVR_EL1(counter_of(ARMPROF_EV_SAMPLE_COLLISION))), st.collisions);
    for (unsigned i = 0; i < plat->pmu_events().size(); i++)
        assert_int_equal(cpu->rd(PMU_PMEVCNTSVR_EL1(i)), cpu->rd(PMU_PMEVCNTR_EL0(i)));
    assert_int_equal(cpu->rd(PMU_PMCCNTSVR_EL1), cpu->rd(PMU_PMCCNTR_EL0));
    assert_false(cpu->bad);
}

} // namespace

int sc_main(int, char **)
{
    Scenario sc;
    sc.pes = 2;
    sc.ops = 1000000;
    sc.interval = 256;
    sc.ops_per_cycle = 32; // 8 cycles between samples: long-latency samples collide
    sc.buffer_bytes = 16 * 1024;
    sc.trbe.enabled = true;
    sc.trbe.buffer_bytes = 8192;
    sc.trbe.bytes = 64 * 1024;
    sc.timing = "off"; // functional memory: the sample and wrap counts above assume no write stalls
    Platform p(sc);
    plat = &p;
    cpu = new Cpu("cpu", false); // refusals counted in cpu->bad, checked at the end
    cpu->regs.bind(p.pmu(0).regs);
    p.run();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spe_events_equal_spu_stats),
        cmocka_unit_test(test_trb_wrap_equals_trbu_wraps),
        cmocka_unit_test(test_cycles),
        cmocka_unit_test(test_snapshot_after_run),
    };
    return cmocka_run_group_tests_name("platform_pmu_soc", tests, nullptr, nullptr);
}
