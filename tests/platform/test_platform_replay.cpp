// SPDX-License-Identifier: Apache-2.0
// test_platform_replay.cpp: a PE replaying an operation-trace file: every record in the SPE dump is one of the trace's operations (PC, data VA, target, latencies, class), in trace order; a bad trace file stops the platform with its line.
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "soc.h"

extern "C" {
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h> // last: its fail() macro would clash with the C++ library
}

using namespace armprof;

namespace {

constexpr unsigned N = 10000, REPEAT = 3;
const char *const PATH = "test_platform_replay.trc";
std::vector<spu_op> ops;
Platform *plat;

// A trace whose operations all differ (PC, addresses, latencies), so a record names its line.
void write_trace()
{
    FILE *f = std::fopen(PATH, "w");
    assert_non_null(f);
    wl_trace_write_header(f);
    for (unsigned i = 0; i < N; i++) {
        spu_op op{};
        op.pc = 0xffff800000400000ull + 4ull * i;
        op.total_lat = 4 + i % 50;
        op.issue_lat = 1 + i % 3;
        if (i % 4 == 0) {
            op.op_class = SPE_CLASS_LDST;
            op.op_subclass = (i % 8) ? SPE_LDST_ST : 0;
            op.data_va = 0x0000ffff00000000ull + 8ull * i;
            op.data_pa = 0x0000000900000000ull + 8ull * i;
            op.data_pa_ns = true;
            op.xlat_lat = 2;
            op.events = 1u << SPE_EV_L1D_ACCESS;
            op.flags = SPU_OP_HAS_VA | SPU_OP_HAS_PA | SPU_OP_HAS_XLAT;
        } else if (i % 4 == 1) {
            op.op_class = SPE_CLASS_BRANCH;
            op.op_subclass = SPE_BR_COND;
            op.target = 0xffff800000800000ull + 4ull * i;
            op.target_el = 1;
            op.target_ns = true;
            op.flags = SPU_OP_HAS_TARGET;
        } else {
            op.op_class = SPE_CLASS_OTHER;
        }
        ops.push_back(op);
        assert_int_equal(wl_trace_write_op(f, &op), 0);
    }
    assert_int_equal(std::fclose(f), 0);
}

void test_records_are_trace_operations(void **)
{
    assert_non_null(plat->trace());
    assert_int_equal(plat->scenario().ops, (uint64_t)N * REPEAT); // the trace sets the run length
    spu_stats st;
    spu_get_stats(plat->spu(0).unit(), &st);
    assert_true(st.records_written > 50);
    assert_int_equal(st.records_discarded, 0);
    const std::vector<uint8_t> &dump = plat->spe_dump(0);
    spe_decode_opts o{};
    o.max_size = 6;
    spe_decoder d;
    spe_decoder_init(&d, dump.data(), dump.size(), &o);
    spe_decoded r;
    uint64_t n = 0, last = 0, wraps = 0, classes[3] = {0, 0, 0};
    int rc;
    while ((rc = spe_decoder_next(&d, &r)) == SPE_DEC_RECORD) {
        assert_true(r.rec.present & SPE_R_PC);
        uint64_t off = r.rec.pc - 0x00ff800000400000ull; // PC bits [55:0]
        assert_int_equal(off % 4, 0);
        uint64_t i = off / 4;
        assert_true(i < N);
        const spu_op &op = ops[i];
        assert_int_equal(r.rec.op_class, op.op_class);
        assert_int_equal(r.rec.op_subclass, op.op_subclass);
        assert_int_equal(r.rec.total_lat, op.total_lat);
        assert_int_equal(r.rec.issue_lat, op.issue_lat);
        if (op.op_class == SPE_CLASS_LDST) {
            // PA only with PMSCR_EL2.PA as well (EL2 present), which the guest's driver does not set.
            assert_true(r.rec.present & SPE_R_DATA_VA);
            assert_int_equal(r.rec.data_va, op.data_va & 0x00FFFFFFFFFFFFFFull);
            assert_int_equal(r.rec.xlat_lat, op.xlat_lat);
        } else if (op.op_class == SPE_CLASS_BRANCH) {
            assert_true(r.rec.present & SPE_R_TARGET);
            assert_int_equal(r.rec.target, op.target & 0x00FFFFFFFFFFFFFFull);
        }
        classes[op.op_class]++;
        // Trace order: the line index only goes back when the replay starts the file again.
        if (n && i <= last)
            wraps++;
        last = i;
        n++;
    }
    assert_int_equal(rc, SPE_DEC_EOF);
    assert_int_equal(n, st.records_written);
    assert_true(wraps <= REPEAT - 1);
    assert_true(classes[0] > 0 && classes[1] > 0 && classes[2] > 0);
}

// A trace file with a bad line: the platform is not built, the message names file and line.
void test_bad_trace_stops_platform(void **)
{
    FILE *f = std::fopen("test_platform_replay_bad.trc", "w");
    assert_non_null(f);
    std::fputs("armprof-trace 1\n0x1000 other 0 4 1\n0x1004 ldst 0 x9 1\n", f);
    std::fclose(f);
    Scenario sc;
    sc.workload.trace = "test_platform_replay_bad.trc";
    std::string what;
    try {
        Platform bad(sc);
    } catch (const std::invalid_argument &e) {
        what = e.what();
    }
    assert_string_equal(what.c_str(),
                        "workload.trace: test_platform_replay_bad.trc:3: TOTAL_LAT: not an unsigned number: 'x9'");
    sc.workload.trace = "test_platform_replay_missing.trc";
    what.clear();
    try {
        Platform bad(sc);
    } catch (const std::invalid_argument &e) {
        what = e.what();
    }
    assert_string_equal(what.c_str(),
                        "workload.trace: test_platform_replay_missing.trc: cannot open: No such file or directory");
    std::remove("test_platform_replay_bad.trc");
}

} // namespace

int sc_main(int, char **)
{
    write_trace();
    Scenario sc;
    sc.interval = 256;
    sc.workload.trace = PATH;
    sc.workload.repeat = REPEAT;
    Platform p(sc);
    plat = &p;
    p.run();
    std::remove(PATH);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_records_are_trace_operations),
        cmocka_unit_test(test_bad_trace_stops_platform),
    };
    return cmocka_run_group_tests_name("platform_replay", tests, nullptr, nullptr);
}
