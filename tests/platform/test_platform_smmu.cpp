// SPDX-License-Identifier: Apache-2.0
// test_platform_smmu.cpp: SMMU stage 1 / stage 2 walks, every fault at every level and stage, TLB, DMI, injection.
#include "armprof/bits.h"
#include "fixture.h"

// cmocka.h last: its fail() macro would clash with the C++ library
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
extern "C" {
#include <cmocka.h> // cmocka 1.1.5 has no extern "C" guards
}

using namespace armprof_test;

namespace {

Soc *soc;
PageTables *pt;

constexpr uint64_t VA_BUF = 0xFFFF000010000000ull;   // TTBR1 (kernel) address of the buffer
constexpr uint64_t IPA_BUF = DRAM_BASE + 0x100000;   // stage 1 output
constexpr uint64_t PA_BUF = DRAM_BASE + 0x400000;    // stage 2 output
constexpr uint64_t POOL = DRAM_BASE + (32ull << 20); // table pool, IPA == PA
constexpr uint64_t POOL_SIZE = 8ull << 20;
constexpr uint64_t BUF_SIZE = 0x10000;

// Stage 1 for EL1&0 (48-bit, TTBR1 holds the buffer) and optionally stage 2 (48-bit IPA).
void build(bool s2, bool s1_writable = true, bool s1_af = true, bool s1_dbm = false,
           bool s2_writable = true, bool s2_af = true, bool s2_dbm = false)
{
    soc->smmu.clear_injections();
    soc->mem.clear_error_regions();
    delete pt;
    pt = new PageTables(PageTables::for_memory(soc->mem, DRAM_BASE, POOL, POOL + POOL_SIZE));
    uint64_t root0 = pt->alloc_table(), root1 = pt->alloc_table();
    pt->map(root1, 0, VA_BUF, IPA_BUF, BUF_SIZE, PageTables::s1_attrs(s1_writable, s1_af, s1_dbm));
    Smmu::StageCfg c1;
    c1.enabled = true;
    c1.ttb0 = root0;
    c1.ttb1 = root1;
    c1.two_ranges = true;
    soc->smmu.set_stage1(0, ARMPROF_REGIME_EL10, c1);
    Smmu::StageCfg c2;
    if (s2) {
        uint64_t r2 = pt->alloc_table();
        pt->map(r2, 0, IPA_BUF, PA_BUF, BUF_SIZE, PageTables::s2_attrs(s2_writable, s2_af, s2_dbm));
        pt->map(r2, 0, POOL, POOL, POOL_SIZE, PageTables::s2_attrs(true, true));
        c2.enabled = true;
        c2.ttb0 = r2;
    }
    soc->smmu.set_stage2(0, c2);
    soc->smmu.tlbi_all();
}

std::vector<uint8_t> pattern(unsigned n, uint8_t seed)
{
    std::vector<uint8_t> v(n);
    for (unsigned i = 0; i < n; i++)
        v[i] = (uint8_t)(seed + i * 7);
    return v;
}

void expect_fault(const armprof_mem_result &r, uint8_t ec, uint8_t fsc)
{
    assert_int_equal(r.status, ARMPROF_MEM_FAULT);
    assert_int_equal(r.ec, ec);
    assert_int_equal(r.fsc, fsc);
}

// RLWHSF: nVM 0: the pointers are VAs translated by the owning regime's stage 1.
void test_s1_walk_writes_bytes(void **)
{
    build(false);
    auto data = pattern(16, 1);
    armprof_mem_result r = soc->ini.write(regime_el1(), VA_BUF + 0x1230, data);
    assert_int_equal(r.status, ARMPROF_MEM_OK);
    assert_int_equal(r.written, 16);
    assert_memory_equal(soc->host(IPA_BUF + 0x1230), data.data(), 16);
}

// RDQTTB: with stage 2, the stage 1 output IPA goes through stage 2 like any other IPA.
void test_s1_s2_walk_writes_bytes(void **)
{
    build(true);
    auto data = pattern(64, 9);
    armprof_mem_result r = soc->ini.write(regime_el1(0, true), VA_BUF + 0x2000, data);
    assert_int_equal(r.status, ARMPROF_MEM_OK);
    assert_memory_equal(soc->host(PA_BUF + 0x2000), data.data(), 64);
    // Without stage 2 applying (regime.stage2 == 0) the IPA is the PA.
    r = soc->ini.write(regime_el1(0, false), VA_BUF + 0x3000, data);
    assert_int_equal(r.status, ARMPROF_MEM_OK);
    assert_memory_equal(soc->host(IPA_BUF + 0x3000), data.data(), 64);
}

void test_s1_blocks_and_39bit_input(void **)
{
    build(false);
    // TTBR0 with a 39-bit input size starts at level 1: a 1 GB block and a 2 MB block.
    uint64_t root = pt->alloc_table();
    pt->map(root, 1, 0x40000000ull, DRAM_BASE, 1ull << 30, PageTables::s1_attrs(), 1);
    pt->map(root, 1, 0x00200000ull, DRAM_BASE + 0x600000, 2ull << 20, PageTables::s1_attrs(), 2);
    Smmu::StageCfg c = soc->smmu.stage1(0, ARMPROF_REGIME_EL10);
    c.ttb0 = root;
    c.tsz0 = 25;
    soc->smmu.set_stage1(0, ARMPROF_REGIME_EL10, c);
    auto data = pattern(8, 3);
    assert_int_equal(soc->ini.write(regime_el1(), 0x40123458ull, data).status, ARMPROF_MEM_OK);
    assert_memory_equal(soc->host(DRAM_BASE + 0x123458), data.data(), 8);
    assert_int_equal(soc->ini.write(regime_el1(), 0x00234560ull, data).status, ARMPROF_MEM_OK);
    assert_memory_equal(soc->host(DRAM_BASE + 0x634560), data.data(), 8);
    // Bit 39 set in a 39-bit TTBR0 range: Translation fault, level 0.
    expect_fault(soc->ini.write(regime_el1(), 0x8000000000ull, data), ARMPROF_EC_S1_ABORT, 0x04);
}

void test_translation_fault_each_level_and_stage(void **)
{
    for (unsigned stage = 1; stage <= 2; stage++) {
        for (unsigned level = 0; level <= 3; level++) {
            build(stage == 2);
            uint64_t addr = stage == 1 ? VA_BUF : IPA_BUF;
            assert_true(soc->smmu.inject_unmap(0, ARMPROF_REGIME_EL10, stage, addr + 0x1000, (int)level));
            armprof_mem_result r = soc->ini.write(regime_el1(0, stage == 2), VA_BUF + 0x1000, pattern(8, 0));
            expect_fault(r, stage == 1 ? ARMPROF_EC_S1_ABORT : ARMPROF_EC_S2_ABORT,
                         (uint8_t)(ARMPROF_FSC_TRANSLATION | level));
            assert_int_equal(r.written, 0);
        }
    }
}

void test_s2_fault_on_s1_table_fetch(void **)
{
    build(true);
    // The stage 1 level 3 table lives at an IPA: unmap that IPA at stage 2.
    uint64_t l3_desc = soc->smmu.descriptor_address(0, ARMPROF_REGIME_EL10, 1, VA_BUF, 3);
    assert_true(l3_desc != 0);
    assert_true(soc->smmu.inject_unmap(0, ARMPROF_REGIME_EL10, 2, l3_desc, 3));
    expect_fault(soc->ini.write(regime_el1(0, true), VA_BUF, pattern(8, 0)), ARMPROF_EC_S2_ABORT, 0x07);
}

void test_access_flag_fault_or_hw_update(void **)
{
    struct Row { unsigned stage; bool hw; bool ok; uint8_t ec, fsc; } rows[] = {
        {1, false, false, ARMPROF_EC_S1_ABORT, 0x0B},
        {1, true, true, 0, 0},
        {2, false, false, ARMPROF_EC_S2_ABORT, 0x0B},
        {2, true, true, 0, 0},
    };
    for (const Row &row : rows) {
        build(row.stage == 2);
        uint64_t addr = row.stage == 1 ? VA_BUF : IPA_BUF;
        assert_true(soc->smmu.inject_clear_af(0, ARMPROF_REGIME_EL10, row.stage, addr));
        uint64_t da = soc->smmu.descriptor_address(0, ARMPROF_REGIME_EL10, row.stage, addr, -1);
        armprof_mem_result r = soc->ini.write(regime_el1(0, row.stage == 2, row.hw), VA_BUF, pattern(8, 0));
        if (row.ok) {
            assert_int_equal(r.status, ARMPROF_MEM_OK);
            assert_true(soc->rd64(da) & AP_BIT(10)); // AF set by hardware
        } else {
            expect_fault(r, row.ec, row.fsc);
            assert_false(soc->rd64(da) & AP_BIT(10));
        }
    }
    // A 2 MB block without AF: the fault reports level 2.
    build(false);
    uint64_t root = pt->alloc_table();
    pt->map(root, 1, 0x00200000ull, DRAM_BASE + 0x600000, 2ull << 20, PageTables::s1_attrs(true, false), 2);
    Smmu::StageCfg c = soc->smmu.stage1(0, ARMPROF_REGIME_EL10);
    c.ttb0 = root;
    c.tsz0 = 25;
    soc->smmu.set_stage1(0, ARMPROF_REGIME_EL10, c);
    expect_fault(soc->ini.write(regime_el1(), 0x00200000ull, pattern(8, 0)), ARMPROF_EC_S1_ABORT, 0x0A);
}

void test_permission_faults_and_dirty_update(void **)
{
    // Privileged write, PAN treated as 0 (D17.7.6).
    struct Row { const char *what; unsigned stage; bool hw, dbm; bool ok; uint8_t ec; } rows[] = {
        {"s1 read-only", 1, false, false, false, ARMPROF_EC_S1_ABORT},
        {"s1 read-only, hw update but no DBM", 1, true, false, false, ARMPROF_EC_S1_ABORT},
        {"s1 writable-clean, no hw update", 1, false, true, false, ARMPROF_EC_S1_ABORT},
        {"s1 writable-clean, hw dirty update", 1, true, true, true, 0},
        {"s2 read-only", 2, false, false, false, ARMPROF_EC_S2_ABORT},
        {"s2 writable-clean, no hw update", 2, false, true, false, ARMPROF_EC_S2_ABORT},
        {"s2 writable-clean, hw dirty update", 2, true, true, true, 0},
    };
    for (const Row &row : rows) {
        if (row.stage == 1)
            build(false, false, true, row.dbm);
        else
            build(true, true, true, false, false, true, row.dbm);
        uint64_t addr = row.stage == 1 ? VA_BUF : IPA_BUF;
        uint64_t da = soc->smmu.descriptor_address(0, ARMPROF_REGIME_EL10, row.stage, addr, -1);
        armprof_mem_result r = soc->ini.write(regime_el1(0, row.stage == 2, row.hw), VA_BUF, pattern(8, 0));
        if (row.ok) {
            assert_int_equal(r.status, ARMPROF_MEM_OK);
            uint64_t d = soc->rd64(da);
            assert_true(row.stage == 1 ? !(d & AP_BIT(7)) : (d & AP_BIT(7))); // now dirty
        } else {
            expect_fault(r, row.ec, 0x0F);
        }
    }
    // AP[2:1] = 0b01 (EL0 read/write): a privileged write is allowed since PAN is ignored.
    build(false);
    assert_true(soc->smmu.edit_descriptor(0, ARMPROF_REGIME_EL10, 1, VA_BUF, -1, AP_BIT(6), AP_BIT(7)));
    assert_int_equal(soc->ini.write(regime_el1(), VA_BUF, pattern(8, 0)).status, ARMPROF_MEM_OK);
    // APTable[1] on the level 1 table descriptor: no write below it; fault at the leaf level.
    build(false);
    assert_true(soc->smmu.edit_descriptor(0, ARMPROF_REGIME_EL10, 1, VA_BUF, 1, AP_BIT(62), 0));
    expect_fault(soc->ini.write(regime_el1(0, false, true), VA_BUF, pattern(8, 0)), ARMPROF_EC_S1_ABORT, 0x0F);
}

void test_address_size_faults(void **)
{
    // Output size 40 bits; bit 44 set in the TTBR (fault at level 0) or in the descriptor at
    // level L (a next-table address for L < 3, an output address at L = 3: fault at level L).
    for (unsigned stage = 1; stage <= 2; stage++) {
        for (int where = -1; where <= 3; where++) {
            build(stage == 2);
            uint64_t addr = stage == 1 ? VA_BUF : IPA_BUF;
            Smmu::StageCfg c = stage == 1 ? soc->smmu.stage1(0, ARMPROF_REGIME_EL10) : soc->smmu.stage2(0);
            c.oa_bits = 40;
            if (where < 0)
                (stage == 1 ? c.ttb1 : c.ttb0) |= AP_BIT(44);
            if (stage == 1)
                soc->smmu.set_stage1(0, ARMPROF_REGIME_EL10, c);
            else
                soc->smmu.set_stage2(0, c);
            if (where >= 0)
                assert_true(soc->smmu.edit_descriptor(0, ARMPROF_REGIME_EL10, stage, addr, where, AP_BIT(44), 0));
            unsigned level = where < 0 ? 0 : (unsigned)where;
            armprof_mem_result r = soc->ini.write(regime_el1(0, stage == 2), VA_BUF, pattern(8, 0));
            expect_fault(r, stage == 1 ? ARMPROF_EC_S1_ABORT : ARMPROF_EC_S2_ABORT,
                         (uint8_t)(ARMPROF_FSC_ADDR_SIZE | level));
        }
    }
}

// RVGJHQ: stage 1 as for any VA: the top byte is ignored with TBI, and a fault without it.
void test_va_range_and_tbi(void **)
{
    build(false);
    auto d = pattern(8, 0);
    // Top byte ignored (TCR_EL1.TBI1): a tagged pointer translates.
    assert_int_equal(soc->ini.write(regime_el1(), (VA_BUF & ~AP_GENMASK(63, 56)) | 0xAB00000000000000ull |
                                                      AP_BIT(55), d).status, ARMPROF_MEM_OK);
    Smmu::StageCfg c = soc->smmu.stage1(0, ARMPROF_REGIME_EL10);
    c.tbi1 = false;
    soc->smmu.set_stage1(0, ARMPROF_REGIME_EL10, c);
    expect_fault(soc->ini.write(regime_el1(), (VA_BUF & ~AP_GENMASK(63, 56)) | 0xAB00000000000000ull | AP_BIT(55), d),
                 ARMPROF_EC_S1_ABORT, 0x04);
    // TTBR0 range with a bit above the 48-bit input size.
    expect_fault(soc->ini.write(regime_el1(), 0x0001000000000000ull, d), ARMPROF_EC_S1_ABORT, 0x04);
}

void test_walk_external_aborts(void **)
{
    // Injected aborts on the descriptor read at each level of each stage.
    for (unsigned stage = 1; stage <= 2; stage++) {
        for (unsigned level = 0; level <= 3; level++) {
            build(stage == 2);
            Smmu::Rule r{Smmu::Inject::WalkAbort, 0};
            r.lo = VA_BUF;
            r.hi = VA_BUF + BUF_SIZE;
            r.stage = stage;
            r.level = level;
            r.remaining = 1;
            soc->smmu.inject(r);
            armprof_mem_result m = soc->ini.write(regime_el1(0, stage == 2), VA_BUF, pattern(8, 0));
            expect_fault(m, stage == 1 ? ARMPROF_EC_S1_ABORT : ARMPROF_EC_S2_ABORT,
                         (uint8_t)(ARMPROF_FSC_SEA_WALK | level));
            // Fired once: the next write walks normally.
            assert_int_equal(soc->ini.write(regime_el1(0, stage == 2), VA_BUF, pattern(8, 0)).status, ARMPROF_MEM_OK);
        }
    }
    // A real External abort from memory on the level 3 table read.
    build(false);
    uint64_t da = soc->smmu.descriptor_address(0, ARMPROF_REGIME_EL10, 1, VA_BUF, 3);
    soc->mem.add_error_region((da & ~0xFFFull) - DRAM_BASE, (da & ~0xFFFull) - DRAM_BASE + 0x1000, true, false, false);
    expect_fault(soc->ini.write(regime_el1(), VA_BUF, pattern(8, 0)), ARMPROF_EC_S1_ABORT, 0x17);
    // An External abort on the hardware update of the Access flag.
    build(false, true, false);
    soc->mem.add_error_region((da & ~0xFFFull) - DRAM_BASE, (da & ~0xFFFull) - DRAM_BASE + 0x1000, false, true, false);
    expect_fault(soc->ini.write(regime_el1(0, false, true), VA_BUF, pattern(8, 0)), ARMPROF_EC_S1_ABORT, 0x17);
    soc->mem.clear_error_regions();
}

void test_write_external_aborts(void **)
{
    struct Row { bool injected, async; } rows[] = {{true, false}, {true, true}, {false, false}, {false, true}};
    for (const Row &row : rows) {
        build(false);
        uint64_t at = VA_BUF + 0x1010;
        if (row.injected) {
            Smmu::Rule r{Smmu::Inject::WriteAbort, 0};
            r.lo = at;
            r.hi = at + 0x10;
            r.async = row.async;
            soc->smmu.inject(r);
        } else {
            soc->mem.add_error_region(IPA_BUF + 0x1010 - DRAM_BASE, IPA_BUF + 0x1020 - DRAM_BASE, false, true, row.async);
        }
        auto data = pattern(0x40, 5);
        armprof_mem_result m = soc->ini.write(regime_el1(), VA_BUF + 0x1000, data);
        assert_int_equal(m.status, ARMPROF_MEM_EXT_ABORT);
        assert_int_equal(m.fsc, row.async ? ARMPROF_FSC_AEA_WRITE : ARMPROF_FSC_SEA_WRITE);
        assert_int_equal(m.async, row.async);
        if (row.injected) { // the bytes before the aborted address were written
            assert_int_equal(m.written, 0x10);
            assert_memory_equal(soc->host(IPA_BUF + 0x1000), data.data(), 0x10);
        }
    }
    soc->mem.clear_error_regions();
}

void test_gpc_fault_injected(void **)
{
    build(false);
    Smmu::Rule r{Smmu::Inject::Gpf, 0};
    r.lo = VA_BUF;
    r.hi = VA_BUF + 0x1000;
    soc->smmu.inject(r);
    expect_fault(soc->ini.write(regime_el1(), VA_BUF, pattern(8, 0)), ARMPROF_EC_GPC, ARMPROF_FSC_GPF);
}

// RRPSLW / RSDWFC: nVM 1: stage 1 disabled, the pointers are PAs, or IPAs with stage 2.
// RQJNFT: OAMax is 47 here (no FEAT_LPA / FEAT_D128): bits [63:48] are the CONSTRAINED
// UNPREDICTABLE case, bits [47:PAMax] the Address Size fault of RXBFCM.
void test_nvm_pointers(void **)
{
    build(true);
    auto data = pattern(16, 2);
    // nVM, no stage 2: the pointer is a PA.
    assert_int_equal(soc->ini.write(regime_el1(0, false, false, true), DRAM_BASE + 0x8000, data).status, ARMPROF_MEM_OK);
    assert_memory_equal(soc->host(DRAM_BASE + 0x8000), data.data(), 16);
    // nVM with stage 2: the pointer is an IPA.
    assert_int_equal(soc->ini.write(regime_el1(0, true, false, true), IPA_BUF + 0x40, data).status, ARMPROF_MEM_OK);
    assert_memory_equal(soc->host(PA_BUF + 0x40), data.data(), 16);
    expect_fault(soc->ini.write(regime_el1(0, true, false, true), IPA_BUF + BUF_SIZE, data), ARMPROF_EC_S2_ABORT, 0x07);
    // RXBFCM: PTR[47:PAMax] nonzero with PAMax = 40: stage 1 Address size fault.
    soc->smmu.pamax = 40;
    expect_fault(soc->ini.write(regime_el1(0, false, false, true), AP_BIT(44) | 0x1000, data), ARMPROF_EC_S1_ABORT, 0x00);
    soc->smmu.pamax = 48;
    // PTR[63:48] nonzero: CONSTRAINED UNPREDICTABLE, fault or ignored per the knob.
    expect_fault(soc->ini.write(regime_el1(0, false, false, true), AP_BIT(60) | (DRAM_BASE + 0x9000), data),
                 ARMPROF_EC_S1_ABORT, 0x00);
    soc->smmu.nvm_high_bits_fault = false;
    assert_int_equal(soc->ini.write(regime_el1(0, false, false, true), AP_BIT(60) | (DRAM_BASE + 0x9000), data).status,
                     ARMPROF_MEM_OK);
    assert_memory_equal(soc->host(DRAM_BASE + 0x9000), data.data(), 16);
    soc->smmu.nvm_high_bits_fault = true;
}

void test_tlb_and_invalidation(void **)
{
    build(true);
    Smmu::Stats s0 = soc->smmu.stats();
    sc_time d1 = SC_ZERO_TIME, d2 = SC_ZERO_TIME;
    uint8_t b[8] = {0};
    armprof_regime rg = regime_el1(0, true);
    soc->ini.access(&rg, VA_BUF, b, 8, true, d1);
    d2 = d1; // issued after the first one completes
    soc->ini.access(&rg, VA_BUF + 8, b, 8, true, d2);
    d2 -= d1;
    assert_int_equal(soc->smmu.stats().tlb_hits, s0.tlb_hits + 1);
    // A hit costs the bus and memory only (10 + 0.5 + 20 ns); the walk read 8 descriptors
    // (4 levels of stage 1, each through 4 levels of stage 2, ...) over the bus first.
    assert_true(d2 == sc_time(30.5, SC_NS));
    assert_true(d1 > sc_time(8 * 30.5, SC_NS));
    // Change the table behind the TLB's back: the stale entry is still used until a TLBI.
    uint64_t da = soc->smmu.descriptor_address(0, ARMPROF_REGIME_EL10, 1, VA_BUF, 3);
    uint64_t v = soc->rd64(da) & ~1ull;
    std::memcpy(soc->host(da), &v, 8);
    assert_int_equal(soc->ini.write(rg, VA_BUF, pattern(8, 0)).status, ARMPROF_MEM_OK);
    soc->smmu.tlbi_va(0, ARMPROF_REGIME_EL10, VA_BUF);
    expect_fault(soc->ini.write(rg, VA_BUF, pattern(8, 0)), ARMPROF_EC_S1_ABORT, 0x07);
}

void test_cross_page_write_reports_written(void **)
{
    build(false);
    assert_true(soc->smmu.inject_unmap(0, ARMPROF_REGIME_EL10, 1, VA_BUF + 0x2000));
    auto data = pattern(32, 4);
    armprof_mem_result r = soc->ini.write(regime_el1(), VA_BUF + 0x2000 - 16, data);
    expect_fault(r, ARMPROF_EC_S1_ABORT, 0x07);
    assert_int_equal(r.written, 16);
    assert_memory_equal(soc->host(IPA_BUF + 0x2000 - 16), data.data(), 16);
}

void test_dmi_through_translation(void **)
{
    build(true);
    armprof_regime rg = regime_el1(0, true);
    tlm::tlm_generic_payload gp;
    regime_ext ext;
    ext.regime = rg;
    gp.set_extension(&ext);
    gp.set_address(VA_BUF + 0x3010);
    tlm::tlm_dmi dmi;
    assert_true(soc->ini.sock->get_direct_mem_ptr(gp, dmi));
    assert_int_equal(dmi.get_start_address(), VA_BUF + 0x3000);
    assert_int_equal(dmi.get_end_address(), VA_BUF + 0x3FFF);
    assert_ptr_equal(dmi.get_dmi_ptr(), soc->host(PA_BUF + 0x3000));
    // A page whose Access flag is clear (no hardware update) gets no DMI pointer.
    unsigned inv = soc->ini.invalidations;
    assert_true(soc->smmu.inject_clear_af(0, ARMPROF_REGIME_EL10, 1, VA_BUF + 0x4000));
    assert_true(soc->ini.invalidations > inv); // the edit invalidated the pointers handed out
    gp.set_address(VA_BUF + 0x4000);
    assert_false(soc->ini.sock->get_direct_mem_ptr(gp, dmi));
    gp.clear_extension(&ext);
}

} // namespace

int sc_main(int, char **)
{
    Soc s;
    soc = &s;
    sc_core::sc_start(SC_ZERO_TIME);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_s1_walk_writes_bytes),
        cmocka_unit_test(test_s1_s2_walk_writes_bytes),
        cmocka_unit_test(test_s1_blocks_and_39bit_input),
        cmocka_unit_test(test_translation_fault_each_level_and_stage),
        cmocka_unit_test(test_s2_fault_on_s1_table_fetch),
        cmocka_unit_test(test_access_flag_fault_or_hw_update),
        cmocka_unit_test(test_permission_faults_and_dirty_update),
        cmocka_unit_test(test_address_size_faults),
        cmocka_unit_test(test_va_range_and_tbi),
        cmocka_unit_test(test_walk_external_aborts),
        cmocka_unit_test(test_write_external_aborts),
        cmocka_unit_test(test_gpc_fault_injected),
        cmocka_unit_test(test_nvm_pointers),
        cmocka_unit_test(test_tlb_and_invalidation),
        cmocka_unit_test(test_cross_page_write_reports_written),
        cmocka_unit_test(test_dmi_through_translation),
    };
    int rc = cmocka_run_group_tests_name("platform_smmu", tests, nullptr, nullptr);
    delete pt;
    return rc;
}
