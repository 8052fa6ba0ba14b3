// SPDX-License-Identifier: Apache-2.0
// test_platform_spe_faults.cpp: each injected fault, one PE per fault, gives the PMBSR_EL1 / PMBPTR_EL1 the spec requires (seed 001 3.5.3-3.5.4, seed 002).
#include <cstdio>
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

struct Row {
    FaultSpec f;
    uint8_t ec, fsc;
    bool ea;
    bool ptr_is_fault_address; // synchronous reports: PMBPTR_EL1 is the faulting address
    bool dl;                   // DL required to be 1 (asynchronous External abort)
};

FaultSpec fs(const char *kind, unsigned stage, int level, uint64_t offset, uint64_t length = 0x1000,
             bool async = false)
{
    FaultSpec f;
    f.kind = kind;
    f.stage = stage;
    f.level = level;
    f.offset = offset;
    f.length = length;
    f.async = async;
    return f;
}

const std::vector<Row> rows = {
    {fs("unmap", 1, 3, 0x3000), ARMPROF_EC_S1_ABORT, 0x07, false, true, false},
    {fs("unmap", 1, 2, 0x0000), ARMPROF_EC_S1_ABORT, 0x06, false, true, false},
    {fs("unmap", 1, 1, 0x0000), ARMPROF_EC_S1_ABORT, 0x05, false, true, false},
    {fs("unmap", 2, 3, 0x2000), ARMPROF_EC_S2_ABORT, 0x07, false, true, false},
    {fs("unmap", 2, 2, 0x0000), ARMPROF_EC_S2_ABORT, 0x06, false, true, false},
    {fs("read_only", 1, -1, 0x1000), ARMPROF_EC_S1_ABORT, 0x0F, false, true, false},
    {fs("read_only", 2, -1, 0x1000), ARMPROF_EC_S2_ABORT, 0x0F, false, true, false},
    {fs("clear_af", 1, -1, 0x1000), ARMPROF_EC_S1_ABORT, 0x0B, false, true, false},
    {fs("clear_af", 2, -1, 0x2000), ARMPROF_EC_S2_ABORT, 0x0B, false, true, false},
    {fs("walk_abort", 1, 3, 0x1000), ARMPROF_EC_S1_ABORT, 0x17, false, true, false},
    {fs("walk_abort", 2, 0, 0x1000), ARMPROF_EC_S2_ABORT, 0x14, false, true, false},
    {fs("write_abort", 1, -1, 0x1000, 0x10, false), ARMPROF_EC_S1_ABORT, 0x10, true, true, false},
    {fs("write_abort", 1, -1, 0x1000, 0x10, true), ARMPROF_EC_S1_ABORT, 0x11, true, false, true},
    {fs("gpf", 1, -1, 0x1000), ARMPROF_EC_GPC, 0x28, false, true, false},
    {fs("mem_error", 1, -1, 0x2000, 0x40, false), ARMPROF_EC_S1_ABORT, 0x10, true, true, false},
};

void test_each_fault_syndrome(void **)
{
    for (unsigned p = 0; p < rows.size(); p++) {
        const Row &r = rows[p];
        const auto &ev = plat->agent(p).events();
        assert_int_equal(ev.size(), 1); // the first management event is fatal to the session
        uint64_t sr = ev[0].pmbsr;
        assert_true(sr & AP_BIT(17));                                  // S
        assert_int_equal(ap_field_get(AP_GENMASK(31, 26), sr), r.ec);   // EC
        assert_int_equal(ap_field_get(AP_GENMASK(5, 0), sr), r.fsc);    // MSS.FSC
        assert_int_equal(!!(sr & AP_BIT(18)), r.ea);                    // EA
        if (r.dl)
            assert_true(sr & AP_BIT(19));                               // DL
        if (r.ptr_is_fault_address) {
            uint64_t at = plat->buffer_va(p) + r.f.offset;
            if (r.f.kind == "write_abort" || r.f.kind == "mem_error")
                assert_true(ev[0].pmbptr >= at && ev[0].pmbptr < at + r.f.length);
            else
                assert_int_equal(ev[0].pmbptr, at);
        }
        assert_int_equal(plat->irqc().assertions(p, PPI_PMBIRQ_DEFAULT), 1);
        assert_int_equal(plat->agent(p).stats().fatal, 1);
        // The records before the fault decode (synchronous reports only: DL says a record is cut).
        if (!(sr & AP_BIT(19)) && !r.ea && !plat->spe_dump(p).empty()) {
            const std::vector<uint8_t> &d = plat->spe_dump(p);
            spe_decoder dec;
            spe_decode_opts o{};
            spe_decoder_init(&dec, d.data(), d.size(), &o);
            spe_decoded rec;
            int x;
            while ((x = spe_decoder_next(&dec, &rec)) == SPE_DEC_RECORD) {
            }
            if (x != SPE_DEC_EOF)
                std::fprintf(stderr, "PE %u (%s): dump of %zu bytes does not decode\n", p, r.f.kind.c_str(), d.size());
            assert_int_equal(x, SPE_DEC_EOF);
        }
    }
}

} // namespace

int sc_main(int, char **)
{
    Scenario sc;
    sc.pes = (unsigned)rows.size();
    sc.ops = 600000;
    sc.buffer_bytes = 16 * 1024;
    sc.stage2 = true;
    sc.hw_flag_update = false; // a cleared Access flag faults
    for (unsigned p = 0; p < rows.size(); p++) {
        FaultSpec f = rows[p].f;
        f.pe = p;
        sc.faults.push_back(f);
    }
    Platform p(sc);
    plat = &p;
    p.run();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_fault_syndrome),
    };
    return cmocka_run_group_tests_name("platform_spe_faults", tests, nullptr, nullptr);
}
