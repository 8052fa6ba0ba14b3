// SPDX-License-Identifier: Apache-2.0
// test_platform_trbe.cpp: the TRBU wrapper on the platform: buffer wrap through SMMU and bus (memory, TRBSR_EL1, TRBPTR_EL1, TRBIRQ edges), injected faults' TRBSR_EL1 syndromes, and an armprof-vp-style run with the coresight-trbe agent.
#include <cstdio>
#include <vector>

#include "armprof/bits.h"
#include "fixture.h"
#include "irqc.h"
#include "soc.h"
#include "trbu_module.h"

extern "C" {
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h> // last: its fail() macro would clash with the C++ library
}

#include "reg_cpu.h"

using namespace armprof_test;

namespace {

constexpr uint64_t VA_BUF = 0xFFFF800000100000ull;  // TTBR1 kernel VA
constexpr uint64_t PA_BUF = DRAM_BASE + 0x200000;    // stage 1 only: output is the PA
constexpr uint64_t BUF_SIZE = 0x2000;                 // 8 KiB trace buffer
constexpr uint64_t POOL = DRAM_BASE + 0x1000000, POOL_SIZE = 0x100000;

// The CPU side: MSR / MRS as TLM transactions on the unit's register socket.
using Cpu = armprof_test::RegCpu;

struct Bench {
    Soc soc;
    TrbuModule trbu;
    IrqCtrl irqc;
    Cpu cpu{"cpu"};
    sc_core::sc_signal<bool, sc_core::SC_MANY_WRITERS> trbirq{"trbirq"};
    PageTables pt;
    uint64_t root1 = 0;
    static trbu_config cfg()
    {
        trbu_config c;
        trbu_config_default(&c); // Align 6: 64-byte writes
        return c;
    }
    Bench()
        : trbu("trbu", cfg(), sc_time(1, SC_NS), BufferTiming::Off), // functional: bytes land at once
          irqc("irqc", {{0, PPI_TRBIRQ_DEFAULT, "TRBIRQ0"}}),
          pt(PageTables::for_memory(soc.mem, DRAM_BASE, POOL, POOL + POOL_SIZE))
    {
        trbu.mem.bind(soc.smmu.tsock);
        cpu.regs.bind(trbu.regs);
        trbu.irq.bind(trbirq);
        irqc.lines[0].bind(trbirq);
        armprof_pe_ctx ctx;
        armprof_pe_ctx_default(&ctx); // EL1, Non-secure owns the trace buffer
        trbu.set_pe_context(ctx);
        map_buffer();
    }
    void map_buffer()
    {
        uint64_t root0 = pt.alloc_table();
        root1 = pt.alloc_table();
        pt.map(root1, 0, VA_BUF, PA_BUF, BUF_SIZE, PageTables::s1_attrs(true, true, false));
        Smmu::StageCfg c1;
        c1.enabled = true;
        c1.ttb0 = root0;
        c1.ttb1 = root1;
        c1.two_ranges = true;
        soc.smmu.set_stage1(0, ARMPROF_REGIME_EL10, c1);
    }
};

Bench *b;

// Signal update, then the interrupt controller's method: a little simulated time.
void settle() { sc_core::sc_start(sc_time(1, SC_NS)); }

uint8_t pattern(uint64_t i) { return (uint8_t)(i * 7 + 3); }

// The trace unit hands over bytes [from, from + n) of the pattern, one cycle per 4 bytes.
void push(uint64_t from, uint64_t n)
{
    std::vector<uint8_t> d(n);
    for (uint64_t i = 0; i < n; i++)
        d[i] = pattern(from + i);
    trbu_trace_bytes(b->trbu.unit(), d.data(), d.size());
    trbu_advance(b->trbu.unit(), n / 4);
    b->trbu.flush_irq();
    settle(); // TRBIRQ reaches the interrupt controller
}

// The coresight-trbe enable sequence, through the register socket.
void program(unsigned fm)
{
    b->trbu.reset();
    b->trbu.flush_irq();
    settle();
    std::memset(b->soc.host(PA_BUF), 0, BUF_SIZE);
    b->cpu.wr(TRBU_TRBSR_EL1, 0);
    b->cpu.wr(TRBU_TRBBASER_EL1, VA_BUF);
    b->cpu.wr(TRBU_TRBPTR_EL1, VA_BUF);
    b->cpu.wr(TRBU_TRBTRG_EL1, 0);
    b->cpu.wr(TRBU_TRBLIMITR_EL1, ((VA_BUF + BUF_SIZE) & TRBLIMITR_EL1_LIMIT) |
                                      ap_field_prep(TRBLIMITR_EL1_FM, fm) |
                                      ap_field_prep(TRBLIMITR_EL1_TM, TRBU_TM_IGNORE) | TRBLIMITR_EL1_E);
    settle(); // a TRBIRQ fall from clearing TRBSR_EL1 lands before the test's edges
    assert_false(b->irqc.level(0, PPI_TRBIRQ_DEFAULT));
}

void check_mem(uint64_t off, uint64_t from, uint64_t n)
{
    const uint8_t *m = b->soc.host(PA_BUF + off);
    for (uint64_t i = 0; i < n; i++)
        if (m[i] != pattern(from + i))
            fail_msg("memory at buffer + 0x%llx: 0x%02x, expected 0x%02x", (unsigned long long)(off + i), m[i],
                     pattern(from + i));
}

// Fill mode (RMBSHC): the write that reaches the Limit pointer wraps TRBPTR_EL1 to the base,
// stops collection and raises TRBIRQ; software clearing TRBSR_EL1.IRQ drops it (RVSCDV).
// RTPPCF: TRBIRQ reaches the interrupt controller as PE 0's PPI (PPI_TRBIRQ_DEFAULT).
void test_fill_mode_wrap_RMBSHC(void **)
{
    program(TRBU_FM_FILL);
    size_t e0 = b->irqc.record().size();
    push(0, BUF_SIZE - 64);
    assert_int_equal(b->cpu.rd(TRBU_TRBSR_EL1), 0);
    assert_int_equal(b->cpu.rd(TRBU_TRBPTR_EL1), VA_BUF + BUF_SIZE - 64);
    assert_false(b->irqc.level(0, PPI_TRBIRQ_DEFAULT));
    push(BUF_SIZE - 64, 192); // 64 reach the Limit, the rest is discarded (collection stopped)
    assert_int_equal(b->cpu.rd(TRBU_TRBSR_EL1), TRBSR_IRQ | TRBSR_WRAP | TRBSR_S | TRBU_BSC_FILLED);
    assert_int_equal(b->cpu.rd(TRBU_TRBPTR_EL1), VA_BUF);
    check_mem(0, 0, BUF_SIZE); // every byte went through SMMU, bus and memory
    assert_true(b->irqc.level(0, PPI_TRBIRQ_DEFAULT));
    b->cpu.wr(TRBU_TRBSR_EL1, TRBSR_WRAP | TRBSR_S | TRBU_BSC_FILLED); // IRQ = 0
    settle();
    assert_false(b->irqc.level(0, PPI_TRBIRQ_DEFAULT));
    const auto &rec = b->irqc.record();
    assert_int_equal(rec.size() - e0, 2);
    assert_true(rec[e0].level);
    assert_false(rec[e0 + 1].level);
    assert_int_equal(rec[e0].intid, PPI_TRBIRQ_DEFAULT);
    trbu_stats st;
    trbu_get_stats(b->trbu.unit(), &st);
    assert_int_equal(st.discarded[TRBU_DISCARD_STOPPED], 128);
    assert_true(b->trbu.stats().dmi_writes > 0); // the SMMU granted DMI over the mapped pages
}

// Wrap mode: the wrap sets IRQ and WRAP, collection continues at the base.
void test_wrap_mode_wrap(void **)
{
    program(TRBU_FM_WRAP);
    size_t e0 = b->irqc.record().size();
    push(0, BUF_SIZE + 256);
    assert_int_equal(b->cpu.rd(TRBU_TRBSR_EL1), TRBSR_IRQ | TRBSR_WRAP);
    assert_int_equal(b->cpu.rd(TRBU_TRBPTR_EL1), VA_BUF + 256);
    check_mem(0, BUF_SIZE, 256);
    check_mem(256, 256, BUF_SIZE - 256);
    assert_int_equal(b->irqc.record().size() - e0, 1);
    assert_true(b->irqc.level(0, PPI_TRBIRQ_DEFAULT));
    b->cpu.wr(TRBU_TRBSR_EL1, TRBSR_WRAP);
    settle();
    assert_false(b->irqc.level(0, PPI_TRBIRQ_DEFAULT));
}

// Injected faults on the SMMU path (RFSPBK, GVGPB): TRBSR_EL1 has the syndrome, TRBPTR_EL1 is the
// faulting address, the bytes before it are in memory, TRBIRQ rises.
struct FaultRow {
    const char *name;
    int kind;          // 0 unmap leaf, 1 read-only, 2 synchronous write abort
    uint8_t ec, fsc;
    bool ea;
};
const FaultRow fault_rows[] = {
    {"S1 translation level 3", 0, ARMPROF_EC_S1_ABORT, 0x07, false},
    {"S1 permission level 3", 1, ARMPROF_EC_S1_ABORT, 0x0F, false},
    {"synchronous External abort on the write", 2, ARMPROF_EC_S1_ABORT, 0x10, true},
};

void test_injected_faults_RFSPBK(void **)
{
    for (const FaultRow &r : fault_rows) {
        b->map_buffer(); // fresh tables (undo the previous row's edit)
        b->soc.smmu.clear_injections();
        b->soc.smmu.tlbi_all();
        program(TRBU_FM_FILL);
        uint64_t fault_va = VA_BUF + 0x1000;
        if (r.kind == 0)
            assert_true(b->soc.smmu.inject_unmap(0, ARMPROF_REGIME_EL10, 1, fault_va));
        else if (r.kind == 1)
            assert_true(b->soc.smmu.inject_read_only(0, ARMPROF_REGIME_EL10, 1, fault_va));
        else {
            Smmu::Rule rule;
            rule.what = Smmu::Inject::WriteAbort;
            rule.unit = ARMPROF_UNIT_TRBU;
            rule.lo = fault_va;
            rule.hi = fault_va + 0x10;
            b->soc.smmu.inject(rule);
        }
        size_t e0 = b->irqc.record().size();
        push(0, 0x1000 + 256);
        uint64_t sr = b->cpu.rd(TRBU_TRBSR_EL1);
        uint64_t x = TRBSR_IRQ | TRBSR_S | ap_field_prep(TRBSR_EC, r.ec) | r.fsc | (r.ea ? TRBSR_EA : 0);
        if (sr != x)
            fail_msg("%s: TRBSR_EL1 0x%llx, expected 0x%llx", r.name, (unsigned long long)sr, (unsigned long long)x);
        assert_int_equal(b->cpu.rd(TRBU_TRBPTR_EL1), fault_va);
        check_mem(0, 0, 0x1000);
        assert_true(b->irqc.level(0, PPI_TRBIRQ_DEFAULT));
        if (b->irqc.record().size() - e0 != 1)
            fail_msg("%s: %zu TRBIRQ edges, expected 1", r.name, b->irqc.record().size() - e0);
    }
    b->soc.smmu.clear_injections();
    b->map_buffer();
}

// Registers through the socket: an unknown encoding is an address error, TRBIDR_EL1 reads Align.
void test_register_socket(void **)
{
    uint64_t v = 0;
    assert_int_equal(b->cpu.transport(ARMPROF_SYSREG(3, 0, 9, 11, 5), v, false), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    assert_int_equal(ap_field_get(TRBIDR_EL1_Align, b->cpu.rd(TRBU_TRBIDR_EL1)), 6);
}

} // namespace

int sc_main(int, char **)
{
    b = new Bench;
    sc_core::sc_start(SC_ZERO_TIME);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_register_socket),
        cmocka_unit_test(test_fill_mode_wrap_RMBSHC),
        cmocka_unit_test(test_wrap_mode_wrap),
        cmocka_unit_test(test_injected_faults_RFSPBK),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
