// SPDX-License-Identifier: Apache-2.0
// test_platform_trbe_permanent.cpp: permanent faults on the trace buffer: the coresight-trbe-like driver stops re-enabling (same translation fault again right after the restart; an External abort at once), the run ends, the unit stays disabled and the fault is reported.
#include <vector>

#include "armprof/bits.h"
#include "soc.h"

extern "C" {
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h> // last: its fail() macro would clash with the C++ library
}

using namespace armprof;

namespace {

Platform *plat;
constexpr uint64_t PAGE_OFF = 0x3000, LINE_OFF = 0x1000, BYTES = 1 << 20;

uint64_t trbsr(unsigned ec, bool ea, unsigned fsc)
{
    return TRBSR_IRQ | TRBSR_S | ap_field_prep(TRBSR_EC, ec) | (ea ? TRBSR_EA : 0) | fsc;
}

// PE 0: a stage 1 translation fault (level 3) on an unmapped page: truncated at the fault,
// restarted there, the same fault again with nothing written: stopped after 2 interrupts.
void test_same_fault_after_restart(void **)
{
    const TrbeAgent &a = plat->trbe_agent(0);
    assert_int_equal(a.stats().permanent, 1);
    assert_int_equal(a.stats().faults, 2);
    assert_int_equal(a.events().size(), 2);
    uint64_t want = trbsr(ARMPROF_EC_S1_ABORT, false, 0x07);
    for (const auto &e : a.events()) {
        assert_int_equal(e.trbsr, want);
        assert_int_equal(e.trbptr, plat->trbe_va(0) + PAGE_OFF);
    }
    assert_int_equal(a.permanent_fault().trbsr, want);
    assert_int_equal(a.permanent_fault().trbptr, plat->trbe_va(0) + PAGE_OFF);
    assert_int_equal(plat->irqc().assertions(0, PPI_TRBIRQ_DEFAULT), 2);
    assert_int_equal(plat->trbe_dump(0).size(), PAGE_OFF); // what was written before the page
}

// PE 1: an External abort on every write of a line (TRBSR_EL1.EA): fatal at the first report.
void test_external_abort_fatal_at_once(void **)
{
    const TrbeAgent &a = plat->trbe_agent(1);
    assert_int_equal(a.stats().permanent, 1);
    assert_int_equal(a.events().size(), 1);
    assert_int_equal(a.permanent_fault().trbsr, trbsr(ARMPROF_EC_S1_ABORT, true, ARMPROF_FSC_SEA_WRITE));
    assert_int_equal(a.permanent_fault().trbptr, plat->trbe_va(1) + LINE_OFF);
    assert_int_equal(plat->irqc().assertions(1, PPI_TRBIRQ_DEFAULT), 1);
    assert_int_equal(plat->trbe_dump(1).size(), LINE_OFF);
}

// Both: the run ended with every trace byte handed to the unit; the session stays off
// (TRBLIMITR_EL1.E = 0, TRBIRQ low) and the bytes after the fault were not written.
void test_run_ends_unit_disabled(void **)
{
    for (unsigned p = 0; p < 2; p++) {
        assert_true(plat->trace_source(p).done());
        assert_int_equal(plat->trace_source(p).produced(), BYTES);
        uint64_t lim = 0;
        trbu_reg_peek(plat->trbu(p).unit(), TRBU_TRBLIMITR_EL1, &lim);
        assert_int_equal(lim & TRBLIMITR_EL1_E, 0);
        assert_false(plat->irqc().level(p, PPI_TRBIRQ_DEFAULT));
        assert_false(plat->trbe_agent(p).running());
        trbu_stats st;
        trbu_get_stats(plat->trbu(p).unit(), &st);
        assert_true(st.bytes_written <= PAGE_OFF);
        // Refused bytes (memory-timing back-pressure) stay with the trace source, which drops them.
        assert_true(st.bytes_discarded + st.bytes_written + st.bytes_padded + st.bytes_refused >= BYTES - 4096);
    }
}

} // namespace

int sc_main(int, char **)
{
    Scenario sc;
    sc.pes = 2;
    sc.ops = 200000;
    sc.trbe.enabled = true;
    sc.trbe.bytes = BYTES;
    FaultSpec unmap;
    unmap.pe = 0;
    unmap.unit = "trbe";
    unmap.kind = "unmap";
    unmap.offset = PAGE_OFF;
    FaultSpec ea;
    ea.pe = 1;
    ea.unit = "trbe";
    ea.kind = "write_abort";
    ea.offset = LINE_OFF;
    ea.length = 0x40;
    sc.faults = {unmap, ea};
    Platform p(sc);
    plat = &p;
    p.run();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_fault_after_restart),
        cmocka_unit_test(test_external_abort_fatal_at_once),
        cmocka_unit_test(test_run_ends_unit_disabled),
    };
    return cmocka_run_group_tests_name("platform_trbe_permanent", tests, nullptr, nullptr);
}
