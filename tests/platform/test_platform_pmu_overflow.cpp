// SPDX-License-Identifier: Apache-2.0
// test_platform_pmu_overflow.cpp: the PMU wrapper wakes itself when a counter of cycles overflows (pmu_cycles_to_overflow), so PMUIRQ rises at the overflow's SystemC time with nobody advancing the PMU.

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

constexpr uint64_t PMCR_E = 1ull << 0;
constexpr uint64_t CNT_C = 1ull << PMU_CYCLE_COUNTER_ID;

using Cpu = armprof_test::RegCpu;

// Records when PMUIRQ rises.
struct Monitor : sc_core::sc_module {
    sc_core::sc_in<bool> irq;
    sc_time rose_at = sc_core::SC_ZERO_TIME;
    unsigned rises = 0;
    explicit Monitor(sc_core::sc_module_name n) : sc_module(n), irq("irq")
    {
        SC_HAS_PROCESS(Monitor);
        SC_METHOD(on_rise);
        sensitive << irq.pos();
        dont_initialize();
    }
    void on_rise()
    {
        rose_at = sc_core::sc_time_stamp();
        rises++;
    }
};

PmuModule *g_pmu;
Cpu *cpu;
Monitor *mon;
sc_core::sc_signal<bool> *pmuirq;

// PMCCNTR_EL0 (PMCR_EL0.LC = 0: overflow at bit 31) 1000 cycles before its overflow, its
// interrupt enabled: CheckForPMUOverflow raises PMUIRQ at cycle 1000 (1 ns cycles), although
// no one reads or advances the PMU in between; a counter of CPU_CYCLES (LP = 0) overflowing
// first, 600 cycles on, is found the same way.
void test_pmuirq_at_cycle_counter_overflow(void **)
{
    cpu->wr(PMU_PMCCNTR_EL0, 0xFFFFFFFFull - 999);
    cpu->wr(PMU_PMINTENSET_EL1, CNT_C);
    cpu->wr(PMU_PMCNTENSET_EL0, CNT_C);
    cpu->wr(PMU_PMCR_EL0, PMCR_E);
    assert_int_equal(pmu_cycles_to_overflow(g_pmu->unit()), 1000);
    sc_core::sc_start(sc_time(999, SC_NS));
    assert_int_equal(mon->rises, 0);
    assert_false(g_pmu->irq_level());
    sc_core::sc_start(sc_time(5, SC_NS));
    assert_int_equal(mon->rises, 1);
    assert_true(mon->rose_at == sc_time(1000, SC_NS));
    assert_int_equal(cpu->rd(PMU_PMOVSSET_EL0) & CNT_C, CNT_C);
    // 1004 cycles: PMCCNTR_EL0 keeps all 64 bits; the flag was set on the carry out of bit 31
    assert_int_equal(cpu->rd(PMU_PMCCNTR_EL0), 0x100000004ull);
}

void test_pmuirq_at_event_counter_overflow(void **)
{
    cpu->wr(PMU_PMOVSCLR_EL0, ~0ull);
    assert_false(g_pmu->irq_level());
    cpu->wr(PMU_PMEVTYPER_EL0(0), PMU_EV_CPU_CYCLES);
    cpu->wr(PMU_PMEVCNTR_EL0(0), 0xFFFFFFFFull - 599);
    cpu->wr(PMU_PMINTENSET_EL1, 1);
    cpu->wr(PMU_PMCNTENSET_EL0, 1);
    cpu->wr(PMU_PMCR_EL0, PMCR_E); // LP = 0
    sc_time start = sc_core::sc_time_stamp();
    sc_core::sc_start(sc_time(700, SC_NS));
    assert_int_equal(mon->rises, 2);
    assert_true(mon->rose_at == start + sc_time(600, SC_NS));
    assert_int_equal(cpu->rd(PMU_PMOVSSET_EL0) & 1, 1);
}

// The same through the module's C++ access (PmuModule::reg_write), as the platform's PmuAgent
// programs it: the wake is rescheduled there too. A direct access happens at the model's time
// (the PE that makes it keeps the PMU at its own time); here a socket access first brings the
// model to the SystemC time.
void test_pmuirq_after_direct_access(void **)
{
    g_pmu->reg_write(PMU_PMOVSCLR_EL0, ~0ull);
    g_pmu->reg_write(PMU_PMCNTENCLR_EL0, ~0ull);
    assert_false(g_pmu->irq_level());
    sc_core::sc_start(sc_time(1, SC_NS)); // PMUIRQ falls
    assert_false(pmuirq->read());
    cpu->rd(PMU_PMCR_EL0); // the model at sc_time_stamp()
    assert_true(g_pmu->model_time() == sc_core::sc_time_stamp());
    g_pmu->reg_write(PMU_PMEVTYPER_EL0(1), PMU_EV_CPU_CYCLES);
    g_pmu->reg_write(PMU_PMEVCNTR_EL0(1), 0xFFFFFFFFull - 249);
    g_pmu->reg_write(PMU_PMINTENSET_EL1, 2);
    g_pmu->reg_write(PMU_PMCNTENSET_EL0, 2);
    sc_time start = sc_core::sc_time_stamp();
    sc_core::sc_start(sc_time(300, SC_NS));
    assert_int_equal(mon->rises, 3);
    assert_true(mon->rose_at == start + sc_time(250, SC_NS));
}

} // namespace

int sc_main(int, char **)
{
    pmu_config cfg;
    pmu_config_default(&cfg);
    g_pmu = new PmuModule("pmu", cfg);
    cpu = new Cpu("cpu");
    mon = new Monitor("mon");
    pmuirq = new sc_core::sc_signal<bool>("pmuirq");
    cpu->regs.bind(g_pmu->regs);
    g_pmu->irq.bind(*pmuirq);
    mon->irq.bind(*pmuirq);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pmuirq_at_cycle_counter_overflow),
        cmocka_unit_test(test_pmuirq_at_event_counter_overflow),
        cmocka_unit_test(test_pmuirq_after_direct_access),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
