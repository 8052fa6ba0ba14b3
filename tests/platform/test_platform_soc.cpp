// SPDX-License-Identifier: Apache-2.0
// test_platform_soc.cpp: memory (DMI, error regions), bus (address map, latency, bandwidth, contention), IRQ stub.
#include "fixture.h"
#include "irqc.h"

// cmocka.h last: its fail() macro would clash with the C++ library
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
extern "C" {
#include <cmocka.h> // cmocka 1.1.5 has no extern "C" guards
}

using namespace armprof_test;
using sc_core::sc_signal;

namespace {

constexpr uint64_t SRAM_BASE = 0x10000000ull;
constexpr uint64_t SRAM_SIZE = 0x10000;

struct Bench {
    Memory dram{"dram", DRAM_SIZE, sc_time(20, SC_NS)};
    Memory sram{"sram", SRAM_SIZE, sc_time(2, SC_NS)};
    Bus bus{"bus"};
    Initiator a{"a"}, b{"b"};
    sc_signal<bool> pmb0{"pmb0"}, trb0{"trb0"}, pmb1{"pmb1"};
    IrqCtrl irqc{"irqc", {{0, PPI_PMBIRQ_DEFAULT, "PMBIRQ0"}, {0, PPI_TRBIRQ_DEFAULT, "TRBIRQ0"},
                          {1, PPI_PMBIRQ_DEFAULT, "PMBIRQ1"}}};
    Bench()
    {
        a.sock.bind(bus.tsock);
        b.sock.bind(bus.tsock);
        bus.isock.bind(dram.socket);
        bus.isock.bind(sram.socket);
        bus.map(0, DRAM_BASE, DRAM_SIZE, sc_time(10, SC_NS), 16.0, "dram"); // 64 B take 4 ns
        bus.map(1, SRAM_BASE, SRAM_SIZE, sc_time(1, SC_NS), 0, "sram");     // no bandwidth limit
        irqc.lines[0].bind(pmb0);
        irqc.lines[1].bind(trb0);
        irqc.lines[2].bind(pmb1);
    }
} *bench;

armprof_mem_result phys(Initiator &ini, uint64_t addr, uint8_t *buf, unsigned len, bool write, sc_time &d)
{
    return ini.access(nullptr, addr, buf, len, write, d);
}

void test_routing_and_rebasing(void **)
{
    uint8_t w[16], r[16] = {0};
    for (int i = 0; i < 16; i++)
        w[i] = (uint8_t)(0xA0 + i);
    sc_time d = SC_ZERO_TIME;
    assert_int_equal(phys(bench->a, DRAM_BASE + 0x100, w, 16, true, d).status, ARMPROF_MEM_OK);
    assert_memory_equal(bench->dram.host_ptr(0x100), w, 16);
    assert_int_equal(phys(bench->a, SRAM_BASE + 0x20, w, 16, true, d).status, ARMPROF_MEM_OK);
    assert_memory_equal(bench->sram.host_ptr(0x20), w, 16);
    assert_int_equal(phys(bench->b, SRAM_BASE + 0x20, r, 16, false, d).status, ARMPROF_MEM_OK);
    assert_memory_equal(r, w, 16);
    // Unmapped address and an access running past a window: decode errors.
    assert_int_equal(phys(bench->a, 0x20000000ull, w, 16, true, d).status, ARMPROF_MEM_EXT_ABORT);
    assert_int_equal(phys(bench->a, SRAM_BASE + SRAM_SIZE - 8, w, 16, true, d).status, ARMPROF_MEM_EXT_ABORT);
}

void test_latency_and_bandwidth(void **)
{
    // Advance time so earlier transfers no longer occupy the targets.
    sc_core::sc_start(sc_time(1, sc_core::SC_US));
    uint8_t buf[64] = {0};
    sc_time d = SC_ZERO_TIME;
    phys(bench->a, DRAM_BASE, buf, 64, true, d);
    // bus latency 10 ns + 64 B at 16 B/ns (4 ns) + memory latency 20 ns
    assert_true(d == sc_time(34, SC_NS));
    d = SC_ZERO_TIME;
    phys(bench->a, SRAM_BASE, buf, 64, true, d);
    assert_true(d == sc_time(3, SC_NS)); // 1 ns + 2 ns, no bandwidth limit
}

void test_contention_between_initiators(void **)
{
    sc_core::sc_start(sc_time(1, sc_core::SC_US));
    uint8_t buf[256] = {0};
    sc_time da = SC_ZERO_TIME, db = SC_ZERO_TIME;
    Bus::Stats before = bench->bus.target_stats(0);
    phys(bench->a, DRAM_BASE, buf, 256, true, da); // occupies DRAM for 16 ns after 10 ns
    phys(bench->b, DRAM_BASE + 0x1000, buf, 256, true, db);
    // b arrives at 10 ns, waits for a's transfer (until 26 ns), transfers 16 ns, + 20 ns memory
    assert_true(da == sc_time(46, SC_NS));
    assert_true(db == sc_time(62, SC_NS));
    const Bus::Stats &after = bench->bus.target_stats(0);
    assert_int_equal(after.transactions - before.transactions, 2);
    assert_int_equal(after.bytes - before.bytes, 512);
    assert_true(after.wait - before.wait == sc_time(16, SC_NS));
}

void test_dmi_and_error_regions(void **)
{
    tlm::tlm_generic_payload gp;
    tlm::tlm_dmi dmi;
    gp.set_address(DRAM_BASE + 0x5000);
    assert_true(bench->a.sock->get_direct_mem_ptr(gp, dmi));
    assert_int_equal(dmi.get_start_address(), DRAM_BASE);
    assert_int_equal(dmi.get_end_address(), DRAM_BASE + DRAM_SIZE - 1);
    assert_ptr_equal(dmi.get_dmi_ptr(), bench->dram.host_ptr(0));
    assert_true(dmi.is_write_allowed() && dmi.is_read_allowed());
    assert_true(dmi.get_write_latency() == sc_time(30, SC_NS)); // bus + memory latency
    // An error region invalidates the pointers, answers errors and splits the DMI range.
    unsigned inv = bench->a.invalidations;
    bench->dram.add_error_region(0x10000, 0x11000, false, true, true);
    assert_true(bench->a.invalidations > inv);
    uint8_t buf[8] = {0};
    sc_time d = SC_ZERO_TIME;
    assert_int_equal(phys(bench->a, DRAM_BASE + 0x10ff8, buf, 8, true, d).status, ARMPROF_MEM_EXT_ABORT);
    assert_int_equal(phys(bench->a, DRAM_BASE + 0x10ff8, buf, 8, false, d).status, ARMPROF_MEM_OK); // write-only region
    assert_true(bench->a.sock->get_direct_mem_ptr(gp, dmi));
    assert_int_equal(dmi.get_end_address(), DRAM_BASE + 0x10000 - 1);
    gp.set_address(DRAM_BASE + 0x10800);
    assert_false(bench->a.sock->get_direct_mem_ptr(gp, dmi));
    gp.set_address(DRAM_BASE + 0x20000);
    assert_true(bench->a.sock->get_direct_mem_ptr(gp, dmi));
    assert_int_equal(dmi.get_start_address(), DRAM_BASE + 0x11000);
    bench->dram.clear_error_regions();
    // DMI switched off: refused.
    bench->dram.set_dmi_enabled(false);
    assert_false(bench->a.sock->get_direct_mem_ptr(gp, dmi));
    bench->dram.set_dmi_enabled(true);
}

void test_irq_record(void **)
{
    sc_time t0 = sc_core::sc_time_stamp();
    bench->pmb0.write(true);
    sc_core::sc_start(sc_time(5, SC_NS));
    bench->pmb1.write(true);
    sc_core::sc_start(sc_time(5, SC_NS));
    bench->pmb0.write(false);
    sc_core::sc_start(sc_time(5, SC_NS));
    bench->pmb0.write(true);
    sc_core::sc_start(sc_time(5, SC_NS));
    const auto &rec = bench->irqc.record();
    assert_int_equal(rec.size(), 4);
    assert_int_equal(rec[0].pe, 0);
    assert_int_equal(rec[0].intid, 21);
    assert_true(rec[0].level);
    assert_true(rec[0].when == t0);
    assert_int_equal(rec[1].pe, 1);
    assert_true(rec[1].when == t0 + sc_time(5, SC_NS));
    assert_false(rec[2].level);
    assert_int_equal(bench->irqc.assertions(0, PPI_PMBIRQ_DEFAULT), 2);
    assert_int_equal(bench->irqc.assertions(1, PPI_PMBIRQ_DEFAULT), 1);
    assert_int_equal(bench->irqc.assertions(0, PPI_TRBIRQ_DEFAULT), 0);
    assert_true(bench->irqc.level(0, PPI_PMBIRQ_DEFAULT));
}

} // namespace

int sc_main(int, char **)
{
    Bench b;
    bench = &b;
    sc_core::sc_start(SC_ZERO_TIME);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_routing_and_rebasing),
        cmocka_unit_test(test_latency_and_bandwidth),
        cmocka_unit_test(test_contention_between_initiators),
        cmocka_unit_test(test_dmi_and_error_regions),
        cmocka_unit_test(test_irq_record),
    };
    return cmocka_run_group_tests_name("platform_soc", tests, nullptr, nullptr);
}
