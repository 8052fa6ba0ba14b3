// SPDX-License-Identifier: Apache-2.0
// test_platform_memattr.cpp: memory attributes of buffer writes (stage 1 MAIR/SH, PMBMAR_EL1 with nVM, HCR_EL2.DC, stage 2 combine), seen by the memory over TLM and DMI.
#include <string>

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

constexpr uint64_t VA_BUF = 0xFFFF000010000000ull;   // TTBR1 address of the buffer
constexpr uint64_t IPA_BUF = DRAM_BASE + 0x100000;   // stage 1 output
constexpr uint64_t PA_BUF = DRAM_BASE + 0x400000;    // stage 2 output
constexpr uint64_t POOL = DRAM_BASE + (32ull << 20); // table pool, IPA == PA
constexpr uint64_t POOL_SIZE = 8ull << 20;
constexpr uint64_t BUF_SIZE = 0x10000;

// Descriptor fields (VMSAv8-64): stage 1 AttrIndx[4:2], stage 2 MemAttr[5:2], SH[9:8].
constexpr uint64_t ATTRINDX = AP_GENMASK(4, 2);
constexpr uint64_t MEMATTR = AP_GENMASK(5, 2);
constexpr uint64_t SH = AP_GENMASK(9, 8);

// Linux MAIR_EL1 indexes (the Smmu default MAIR).
enum { MT_NORMAL = 0, MT_NORMAL_NC = 2, MT_DEVICE_nGnRnE = 3, MT_DEVICE_nGnRE = 4 };
// Stage 2 MemAttr (FEAT_S2FWB off): 0b1111 Normal WB, 0b0001 Device-nGnRE, 0b1001 oWT iNC.
constexpr unsigned S2_WB = 0xF, S2_DEV_nGnRE = 0x1, S2_DEV_GRE = 0x3, S2_OWT_INC = 0x9;

uint64_t s1_leaf(unsigned attrindx, unsigned sh = 3)
{
    return ap_field_set(ap_field_set(PageTables::s1_attrs(), ATTRINDX, attrindx), SH, sh);
}
uint64_t s2_leaf(unsigned memattr, unsigned sh = 3)
{
    return ap_field_set(ap_field_set(PageTables::s2_attrs(), MEMATTR, memattr), SH, sh);
}

// Stage 1 (EL1&0, TTBR1: VA_BUF -> IPA_BUF with s1 leaves) and, when s2, stage 2
// (IPA_BUF -> PA_BUF with s2 leaves, the pool at IPA == PA). The second half of the buffer
// (offset 0x8000 on) gets s1b / s2b when nonzero.
void build(uint64_t s1, bool s2, uint64_t s2d = 0, bool dc = false, uint64_t s1b = 0, uint64_t s2b = 0)
{
    soc->smmu.clear_injections();
    soc->smmu.dmi_enabled = true;
    soc->mem.clear_attrs();
    delete pt;
    pt = new PageTables(PageTables::for_memory(soc->mem, DRAM_BASE, POOL, POOL + POOL_SIZE));
    uint64_t root0 = pt->alloc_table(), root1 = pt->alloc_table();
    uint64_t half = BUF_SIZE / 2;
    pt->map(root1, 0, VA_BUF, IPA_BUF, half, s1);
    pt->map(root1, 0, VA_BUF + half, IPA_BUF + half, half, s1b ? s1b : s1);
    Smmu::StageCfg c1;
    c1.enabled = true;
    c1.ttb0 = root0;
    c1.ttb1 = root1;
    c1.two_ranges = true;
    soc->smmu.set_stage1(0, ARMPROF_REGIME_EL10, c1);
    Smmu::StageCfg c2;
    if (s2) {
        uint64_t r2 = pt->alloc_table();
        pt->map(r2, 0, IPA_BUF, PA_BUF, half, s2d);
        pt->map(r2, 0, IPA_BUF + half, PA_BUF + half, half, s2b ? s2b : s2d);
        pt->map(r2, 0, POOL, POOL, POOL_SIZE, PageTables::s2_attrs());
        c2.enabled = true;
        c2.ttb0 = r2;
        c2.dc = dc;
    }
    soc->smmu.set_stage2(0, c2);
    soc->smmu.tlbi_all();
}

std::string str(const mem_attr &a)
{
    char b[64];
    return mem_attr_str(a, b, sizeof b);
}

// Writes 32 bytes at `addr` over TLM and returns the attributes the memory recorded for the
// page at `pa` (checking the bytes landed there).
std::string write_attr(const armprof_regime &rg, uint64_t addr, uint64_t pa)
{
    std::vector<uint8_t> data(32);
    for (unsigned i = 0; i < data.size(); i++)
        data[i] = (uint8_t)(0x5A ^ i ^ addr);
    armprof_mem_result r = soc->ini.write(rg, addr, data);
    assert_int_equal(r.status, ARMPROF_MEM_OK);
    assert_memory_equal(soc->host(pa), data.data(), data.size());
    const mem_attr *a = soc->mem.page_attr(pa - DRAM_BASE);
    assert_non_null(a);
    return str(*a);
}

void expect_str(const std::string &got, const char *want)
{
    if (got != want)
        fprintf(stderr, "got \"%s\", want \"%s\"\n", got.c_str(), want);
    assert_true(got == want);
}

armprof_regime nvm_regime(uint16_t mar, bool stage2)
{
    armprof_regime rg = regime_el1(0, stage2, false, true);
    rg.mar = mar;
    return rg;
}

// ----- decoding -------------------------------------------------------------------------------

void test_decode_tables(void **)
{
    // MAIR Attr<n>: Device types, Normal WB/WT/NC with hints, transient; SH per descriptor.
    expect_str(str(Smmu::s1_attr(0xFF, 3)), "Normal iWB-RWA oWB-RWA ISH");
    expect_str(str(Smmu::s1_attr(0xFF, 2)), "Normal iWB-RWA oWB-RWA OSH");
    expect_str(str(Smmu::s1_attr(0xBB, 0)), "Normal iWT-RWA oWT-RWA NSH");
    expect_str(str(Smmu::s1_attr(0x4E, 3)), "Normal iWB-RA oNC ISH");
    expect_str(str(Smmu::s1_attr(0x75, 3)), "Normal iWB-WA-T oWB-RWA-T ISH");
    expect_str(str(Smmu::s1_attr(0x88, 3)), "Normal iWT-nA oWT-nA ISH");
    // Normal iNC oNC and Device are always Outer Shareable, whatever SH says.
    expect_str(str(Smmu::s1_attr(0x44, 0)), "Normal iNC oNC OSH");
    expect_str(str(Smmu::s1_attr(0x00, 3)), "Device-nGnRnE OSH");
    expect_str(str(Smmu::s1_attr(0x04, 0)), "Device-nGnRE OSH");
    expect_str(str(Smmu::s1_attr(0x08, 3)), "Device-nGRE OSH");
    expect_str(str(Smmu::s1_attr(0x0C, 3)), "Device-GRE OSH");
    // Reserved: 0b0000ddxx with xx != 0 (no FEAT_XS), inner 0b0000 with a Normal outer half,
    // SH 0b01. Treated as Device-nGnRnE, resp. OSH, and flagged.
    bool rsv = false;
    expect_str(str(Smmu::s1_attr(0x01, 3, &rsv)), "Device-nGnRnE OSH");
    assert_true(rsv);
    rsv = false;
    expect_str(str(Smmu::s1_attr(0xF0, 3, &rsv)), "Device-nGnRnE OSH");
    assert_true(rsv);
    rsv = false;
    expect_str(str(Smmu::s1_attr(0xFF, 1, &rsv)), "Normal iWB-RWA oWB-RWA OSH");
    assert_true(rsv);
    rsv = true;
    Smmu::s1_attr(0xFF, 3, &rsv);
    assert_false(rsv);
    // Stage 2 MemAttr, FEAT_S2FWB off: no allocation hints of its own.
    expect_str(str(Smmu::s2_attr(0xF, 3)), "Normal iWB-nA oWB-nA ISH");
    expect_str(str(Smmu::s2_attr(0x9, 0)), "Normal iNC oWT-nA NSH");
    expect_str(str(Smmu::s2_attr(0x1, 3)), "Device-nGnRE OSH");
    rsv = false;
    expect_str(str(Smmu::s2_attr(0x4, 3, &rsv)), "Device-nGnRnE OSH"); // inner 0b00: reserved
    assert_true(rsv);
    // HCR_EL2.DC (seed 000 D17.7.3).
    expect_str(str(Smmu::dc_attr()), "Normal iWB-RWA oWB-RWA NSH");
}

// ----- stage 1 + stage 2 --------------------------------------------------------------------

void test_s1_wb_s2_wb_is_wb_inner_shareable(void **)
{
    build(s1_leaf(MT_NORMAL), true, s2_leaf(S2_WB));
    Memory::Stats before = soc->mem.stats();
    expect_str(write_attr(regime_el1(0, true), VA_BUF + 0x100, PA_BUF + 0x100), "Normal iWB-RWA oWB-RWA ISH");
    assert_int_equal(soc->mem.stats().normal_cacheable_writes, before.normal_cacheable_writes + 1);
    // The TLB hit gives the same attributes.
    expect_str(write_attr(regime_el1(0, true), VA_BUF + 0x200, PA_BUF + 0x200), "Normal iWB-RWA oWB-RWA ISH");
    // Stage 1 Outer Shareable + stage 2 Inner Shareable: the stronger, OSH.
    build(s1_leaf(MT_NORMAL, 2), true, s2_leaf(S2_WB, 3));
    expect_str(write_attr(regime_el1(0, true), VA_BUF, PA_BUF), "Normal iWB-RWA oWB-RWA OSH");
    // Stage 1 Non-shareable + stage 2 Non-shareable stays NSH; without stage 2 stage 1's own.
    build(s1_leaf(MT_NORMAL, 0), true, s2_leaf(S2_WB, 0));
    expect_str(write_attr(regime_el1(0, true), VA_BUF, PA_BUF), "Normal iWB-RWA oWB-RWA NSH");
    expect_str(write_attr(regime_el1(0, false), VA_BUF + 0x40, IPA_BUF + 0x40), "Normal iWB-RWA oWB-RWA NSH");
}

void test_s2_device_wins(void **)
{
    build(s1_leaf(MT_NORMAL), true, s2_leaf(S2_DEV_nGnRE));
    uint64_t dev = soc->mem.device_writes(mem_attr::nGnRE);
    expect_str(write_attr(regime_el1(0, true), VA_BUF + 0x80, PA_BUF + 0x80), "Device-nGnRE OSH");
    assert_int_equal(soc->mem.device_writes(mem_attr::nGnRE), dev + 1);
    // Device at both stages: the more restrictive type (nGnRnE over GRE).
    build(s1_leaf(MT_DEVICE_nGnRnE), true, s2_leaf(S2_DEV_GRE));
    expect_str(write_attr(regime_el1(0, true), VA_BUF, PA_BUF), "Device-nGnRnE OSH");
    build(s1_leaf(MT_DEVICE_nGnRE), true, s2_leaf(S2_WB));
    expect_str(write_attr(regime_el1(0, true), VA_BUF, PA_BUF), "Device-nGnRE OSH");
}

void test_s1_nc_s2_wb_is_nc(void **)
{
    build(s1_leaf(MT_NORMAL_NC), true, s2_leaf(S2_WB));
    uint64_t nc = soc->mem.stats().normal_nc_writes;
    expect_str(write_attr(regime_el1(0, true), VA_BUF, PA_BUF), "Normal iNC oNC OSH");
    assert_int_equal(soc->mem.stats().normal_nc_writes, nc + 1);
    // Per level: stage 2 Outer WT Inner NC over stage 1 WB RWA: iNC, oWT with stage 1's hints;
    // Shareability ISH (stage 1) with NSH (stage 2): ISH.
    build(s1_leaf(MT_NORMAL, 3), true, s2_leaf(S2_OWT_INC, 0));
    expect_str(write_attr(regime_el1(0, true), VA_BUF, PA_BUF), "Normal iNC oWT-RWA ISH");
}

void test_stage1_disabled_is_device(void **)
{
    // SCTLR_EL1.M == 0, not nVM: stage 1 output is Device-nGnRnE for data accesses.
    build(s1_leaf(MT_NORMAL), false);
    Smmu::StageCfg c1 = soc->smmu.stage1(0, ARMPROF_REGIME_EL10);
    c1.enabled = false;
    soc->smmu.set_stage1(0, ARMPROF_REGIME_EL10, c1);
    expect_str(write_attr(regime_el1(0, false), PA_BUF + 0x10, PA_BUF + 0x10), "Device-nGnRnE OSH");
}

// ----- nVM: PMBMAR_EL1 -----------------------------------------------------------------------

void test_nvm_pmbmar_attributes(void **)
{
    for (int s1_on = 0; s1_on <= 1; s1_on++) {
        // SCTLR_EL1.{C, M} are ignored with nVM (seed 000 D17.7.2): stage 1 on or off, same result.
        build(s1_leaf(MT_NORMAL_NC), false);
        Smmu::StageCfg c1 = soc->smmu.stage1(0, ARMPROF_REGIME_EL10);
        c1.enabled = s1_on;
        soc->smmu.set_stage1(0, ARMPROF_REGIME_EL10, c1);
        // PMBMAR_EL1 = {SH[9:8], Attr[7:0]}.
        expect_str(write_attr(nvm_regime(0x004, false), PA_BUF, PA_BUF), "Device-nGnRE OSH");
        expect_str(write_attr(nvm_regime(0x00C, false), PA_BUF + 0x1000, PA_BUF + 0x1000), "Device-GRE OSH");
        expect_str(write_attr(nvm_regime(0x344, false), PA_BUF + 0x2000, PA_BUF + 0x2000), "Normal iNC oNC OSH");
        expect_str(write_attr(nvm_regime(0x3FF, false), PA_BUF + 0x3000, PA_BUF + 0x3000), "Normal iWB-RWA oWB-RWA ISH");
        expect_str(write_attr(nvm_regime(0x0FF, false), PA_BUF + 0x4000, PA_BUF + 0x4000), "Normal iWB-RWA oWB-RWA NSH");
    }
    // A new PMBMAR_EL1 value on a page the TLB holds: the new attributes, and the memory sees
    // a change of attributes for that page (mismatched attributes are possible with nVM).
    build(s1_leaf(MT_NORMAL), false);
    expect_str(write_attr(nvm_regime(0x3FF, false), PA_BUF, PA_BUF), "Normal iWB-RWA oWB-RWA ISH");
    uint64_t ch = soc->mem.stats().attr_changes;
    expect_str(write_attr(nvm_regime(0x000, false), PA_BUF + 8, PA_BUF + 8), "Device-nGnRnE OSH");
    assert_int_equal(soc->mem.stats().attr_changes, ch + 1);
    // nVM with stage 2: PMBMAR_EL1's attributes combined with stage 2's (IPA_BUF -> PA_BUF).
    build(s1_leaf(MT_NORMAL), true, s2_leaf(S2_DEV_nGnRE));
    expect_str(write_attr(nvm_regime(0x3FF, true), IPA_BUF, PA_BUF), "Device-nGnRE OSH");
    build(s1_leaf(MT_NORMAL), true, s2_leaf(S2_WB, 3));
    expect_str(write_attr(nvm_regime(0x044, true), IPA_BUF, PA_BUF), "Normal iNC oNC OSH");
    expect_str(write_attr(nvm_regime(0x0FF, true), IPA_BUF + 0x1000, PA_BUF + 0x1000), "Normal iWB-RWA oWB-RWA ISH");
}

// ----- HCR_EL2.DC ---------------------------------------------------------------------------

void test_hcr_dc(void **)
{
    // DC == 1: stage 1 output Normal NSH iWB oWB RA WA regardless of PMBMAR_EL1 (Device here)
    // and of the stage 1 tables; stage 2 (WB, Non-shareable) keeps it.
    build(s1_leaf(MT_DEVICE_nGnRnE), true, s2_leaf(S2_WB, 0), true);
    expect_str(write_attr(nvm_regime(0x000, true), IPA_BUF, PA_BUF), "Normal iWB-RWA oWB-RWA NSH");
    expect_str(write_attr(nvm_regime(0x344, true), IPA_BUF + 0x1000, PA_BUF + 0x1000), "Normal iWB-RWA oWB-RWA NSH");
    // Not nVM: stage 1 is disabled by DC, the pointer is an IPA (flat), same attributes.
    expect_str(write_attr(regime_el1(0, true), IPA_BUF + 0x2000, PA_BUF + 0x2000), "Normal iWB-RWA oWB-RWA NSH");
    // DC is for EL1&0 with stage 2: the same regime with DC clear walks stage 1 again.
    build(s1_leaf(MT_DEVICE_nGnRnE), true, s2_leaf(S2_WB, 0), false);
    expect_str(write_attr(regime_el1(0, true), VA_BUF, PA_BUF), "Device-nGnRnE OSH");
}

// ----- DMI -----------------------------------------------------------------------------------

// Requests DMI for `va` and returns the grant (false when refused).
bool dmi_for(const armprof_regime &rg, uint64_t va, tlm::tlm_dmi &dmi)
{
    tlm::tlm_generic_payload gp;
    regime_ext ext;
    ext.regime = rg;
    gp.set_extension(&ext);
    gp.set_address(va);
    bool ok = soc->ini.sock->get_direct_mem_ptr(gp, dmi);
    gp.clear_extension(&ext);
    return ok;
}

void test_dmi_records_the_tlm_attributes(void **)
{
    struct Case { uint64_t s1, s2; const char *want; };
    const Case cases[] = {
        {s1_leaf(MT_NORMAL), s2_leaf(S2_WB), "Normal iWB-RWA oWB-RWA ISH"},
        {s1_leaf(MT_NORMAL), s2_leaf(S2_DEV_nGnRE), "Device-nGnRE OSH"},
        {s1_leaf(MT_NORMAL_NC), s2_leaf(S2_WB), "Normal iNC oNC OSH"},
    };
    for (const Case &c : cases) {
        // DMI off: the TLM write's attributes.
        build(c.s1, true, c.s2);
        soc->smmu.dmi_enabled = false;
        std::string tlm = write_attr(regime_el1(0, true), VA_BUF + 0x3000, PA_BUF + 0x3000);
        expect_str(tlm, c.want);
        tlm::tlm_dmi dmi;
        assert_false(dmi_for(regime_el1(0, true), VA_BUF + 0x3000, dmi));
        // DMI on: the grant records the same attributes for the page, before any write.
        build(c.s1, true, c.s2);
        uint64_t grants = soc->mem.stats().dmi_attr_grants;
        assert_null(soc->mem.page_attr(PA_BUF + 0x3000 - DRAM_BASE));
        assert_true(dmi_for(regime_el1(0, true), VA_BUF + 0x3000, dmi));
        assert_int_equal(soc->mem.stats().dmi_attr_grants, grants + 1);
        assert_ptr_equal(dmi.get_dmi_ptr(), soc->host(PA_BUF + 0x3000));
        const mem_attr *a = soc->mem.page_attr(PA_BUF + 0x3000 - DRAM_BASE);
        assert_non_null(a);
        expect_str(str(*a), c.want);
    }
}

void test_dmi_stops_at_an_attribute_change(void **)
{
    // Pages 0..7 Normal WB, 8..15 Normal NC at stage 1; all in the TLB after one write each.
    build(s1_leaf(MT_NORMAL), true, s2_leaf(S2_WB), false, s1_leaf(MT_NORMAL_NC));
    for (uint64_t p = 0; p < BUF_SIZE; p += 0x1000)
        write_attr(regime_el1(0, true), VA_BUF + p, PA_BUF + p);
    tlm::tlm_dmi dmi;
    assert_true(dmi_for(regime_el1(0, true), VA_BUF + 0x6000, dmi));
    assert_int_equal(dmi.get_start_address(), VA_BUF + 0x6000);
    assert_int_equal(dmi.get_end_address(), VA_BUF + 0x7FFF); // not into the NC half
    assert_true(dmi_for(regime_el1(0, true), VA_BUF + 0x8000, dmi));
    assert_int_equal(dmi.get_end_address(), VA_BUF + 0xFFFF);
    expect_str(str(*soc->mem.page_attr(PA_BUF + 0xF000 - DRAM_BASE)), "Normal iNC oNC OSH");
    // Same attributes over the whole buffer: one grant spans it.
    build(s1_leaf(MT_NORMAL), true, s2_leaf(S2_WB));
    for (uint64_t p = 0; p < BUF_SIZE; p += 0x1000)
        write_attr(regime_el1(0, true), VA_BUF + p, PA_BUF + p);
    assert_true(dmi_for(regime_el1(0, true), VA_BUF, dmi));
    assert_int_equal(dmi.get_end_address(), VA_BUF + BUF_SIZE - 1);
}

void test_cross_page_write_each_page_its_attributes(void **)
{
    // Seed 000 D17.7.7, first permitted behaviour: each access uses the memory type and
    // Shareability of its own address. Stage 2 makes the second half Device-nGnRE.
    build(s1_leaf(MT_NORMAL), true, s2_leaf(S2_WB), false, 0, s2_leaf(S2_DEV_nGnRE));
    std::vector<uint8_t> data(32, 0xC3);
    armprof_mem_result r = soc->ini.write(regime_el1(0, true), VA_BUF + 0x8000 - 16, data);
    assert_int_equal(r.status, ARMPROF_MEM_OK);
    assert_int_equal(r.written, 32);
    assert_memory_equal(soc->host(PA_BUF + 0x8000 - 16), data.data(), 32);
    expect_str(str(*soc->mem.page_attr(PA_BUF + 0x7000 - DRAM_BASE)), "Normal iWB-RWA oWB-RWA ISH");
    expect_str(str(*soc->mem.page_attr(PA_BUF + 0x8000 - DRAM_BASE)), "Device-nGnRE OSH");
}

void test_reserved_encoding_counted(void **)
{
    build(s1_leaf(MT_NORMAL), false);
    Smmu::StageCfg c1 = soc->smmu.stage1(0, ARMPROF_REGIME_EL10);
    c1.mair = 0x01; // Attr0 = 0b00000001: reserved without FEAT_XS
    soc->smmu.set_stage1(0, ARMPROF_REGIME_EL10, c1);
    uint64_t n = soc->smmu.stats().reserved_attrs;
    expect_str(write_attr(regime_el1(0, false), VA_BUF, IPA_BUF), "Device-nGnRnE OSH");
    assert_int_equal(soc->smmu.stats().reserved_attrs, n + 1);
}

} // namespace

int sc_main(int, char **)
{
    Soc s;
    soc = &s;
    sc_core::sc_start(SC_ZERO_TIME);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_tables),
        cmocka_unit_test(test_s1_wb_s2_wb_is_wb_inner_shareable),
        cmocka_unit_test(test_s2_device_wins),
        cmocka_unit_test(test_s1_nc_s2_wb_is_nc),
        cmocka_unit_test(test_stage1_disabled_is_device),
        cmocka_unit_test(test_nvm_pmbmar_attributes),
        cmocka_unit_test(test_hcr_dc),
        cmocka_unit_test(test_dmi_records_the_tlm_attributes),
        cmocka_unit_test(test_dmi_stops_at_an_attribute_change),
        cmocka_unit_test(test_cross_page_write_each_page_its_attributes),
        cmocka_unit_test(test_reserved_encoding_counted),
    };
    int rc = cmocka_run_group_tests_name("platform_memattr", tests, nullptr, nullptr);
    delete pt;
    return rc;
}
