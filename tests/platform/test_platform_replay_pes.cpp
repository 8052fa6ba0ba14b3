// SPDX-License-Identifier: Apache-2.0
// test_platform_replay_pes.cpp: two PEs replaying operation traces. Mode "list": each PE replays its
// own file (workload.traces) and every record in its dump carries a PC of that file, for a run of
// that file's lines * repeat; mode "single": one file replayed by both PEs, and PE 0 matches the
// C-level run (spe_run, armprof-run --trace) on the same file: SAMPLE_POP, SAMPLE_FEED and the PC of
// every record, in order (fixed interval, RND = 0).
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "soc.h"
#include "spe_run.h"

extern "C" {
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h> // last: its fail() macro would clash with the C++ library
}

using namespace armprof;

namespace {

constexpr uint64_t PC_A = 0xffff800000400000ull, PC_B = 0xffff800000c00000ull;
constexpr unsigned LINES_A = 3000, LINES_B = 5000, REPEAT = 10, INTERVAL = 256;
// Per mode, so that the two tests can run at once in the same folder.
std::string file_a, file_b;
Platform *plat;
bool list_mode;

// lines operations at pc0 + 4 * i: a record's PC names its file and line.
void write_trace(const char *path, uint64_t pc0, unsigned lines)
{
    FILE *f = std::fopen(path, "w");
    assert_non_null(f);
    wl_trace_write_header(f);
    for (unsigned i = 0; i < lines; i++) {
        spu_op op{};
        op.pc = pc0 + 4ull * i;
        op.total_lat = 3 + i % 40;
        op.issue_lat = 1 + i % 2;
        if (i % 3 == 0) {
            op.op_class = SPE_CLASS_LDST;
            op.data_va = 0x0000ffff00000000ull + 8ull * i;
            op.flags = SPU_OP_HAS_VA;
        } else {
            op.op_class = SPE_CLASS_OTHER;
        }
        assert_int_equal(wl_trace_write_op(f, &op), 0);
    }
    assert_int_equal(std::fclose(f), 0);
}

// The PC (bits [55:0], as the PC packet carries it) of every record of a dump, in order.
std::vector<uint64_t> record_pcs(const uint8_t *data, size_t len)
{
    spe_decode_opts o{};
    o.max_size = 6;
    spe_decoder d;
    spe_decoder_init(&d, data, len, &o);
    spe_decoded r;
    std::vector<uint64_t> pcs;
    int rc;
    while ((rc = spe_decoder_next(&d, &r)) == SPE_DEC_RECORD) {
        assert_true(r.rec.present & SPE_R_PC);
        pcs.push_back(r.rec.pc);
    }
    assert_int_equal(rc, SPE_DEC_EOF);
    return pcs;
}

// Every PC is line i of the file starting at pc0 (i < lines).
void check_pcs_in(const std::vector<uint64_t> &pcs, uint64_t pc0, unsigned lines)
{
    const uint64_t base = pc0 & 0x00FFFFFFFFFFFFFFull;
    for (uint64_t pc : pcs) {
        assert_true(pc >= base);
        assert_int_equal((pc - base) % 4, 0);
        assert_true((pc - base) / 4 < lines);
    }
}

uint64_t pmu_count(unsigned pe, uint16_t ev)
{
    const std::vector<uint16_t> &e = plat->pmu_events();
    for (unsigned i = 0; i < e.size(); i++)
        if (e[i] == ev)
            return plat->pmu_agent(pe).read(i);
    fail_msg("event 0x%x not counted", ev);
    return 0;
}

// workload.traces: PE p replays file p, and runs that file's lines * repeat operations.
void test_each_pe_its_own_trace(void **)
{
    if (!list_mode)
        skip();
    assert_int_equal(plat->pe(0).ops_done(), (uint64_t)LINES_A * REPEAT);
    assert_int_equal(plat->pe(1).ops_done(), (uint64_t)LINES_B * REPEAT);
    assert_int_equal(plat->pe_trace(0)->count, LINES_A);
    assert_int_equal(plat->pe_trace(1)->count, LINES_B);
    for (unsigned p = 0; p < 2; p++) {
        spu_stats st;
        spu_get_stats(plat->spu(p).unit(), &st);
        assert_int_equal(st.records_discarded, 0);
        std::vector<uint64_t> pcs = record_pcs(plat->spe_dump(p).data(), plat->spe_dump(p).size());
        assert_int_equal(pcs.size(), st.records_written);
        // RND = 0: the counter starts at PMSICR_EL1.COUNT = INTERVAL (the driver copies PMSIRR_EL1)
        // and counts down to zero, so one operation in INTERVAL + 1 is selected (seed 001 §3.1.2,
        // note: "the interval ... is (INTERVAL x 256 + 1)"); a sample taken at the very end may
        // still be in flight when the session stops.
        assert_int_equal(st.population, plat->pe(p).ops_done());
        assert_int_equal(st.feed, st.population / (INTERVAL + 1));
        assert_true(pcs.size() + 1 >= st.feed && pcs.size() > 50);
        check_pcs_in(pcs, p ? PC_B : PC_A, p ? LINES_B : LINES_A);
    }
}

// One file: both PEs replay it (the same operations, so with RND = 0 the same record PCs).
void test_single_file_every_pe(void **)
{
    if (list_mode)
        skip();
    assert_ptr_equal(plat->pe_trace(0), plat->pe_trace(1));
    std::vector<uint64_t> pcs0 = record_pcs(plat->spe_dump(0).data(), plat->spe_dump(0).size());
    std::vector<uint64_t> pcs1 = record_pcs(plat->spe_dump(1).data(), plat->spe_dump(1).size());
    assert_true(pcs0.size() > 50);
    check_pcs_in(pcs0, PC_A, LINES_A);
    check_pcs_in(pcs1, PC_A, LINES_A);
    assert_true(pcs0 == pcs1);
}

// The C-level model on the same file, interval and RND = 0 gives the platform's PE 0 counts and
// record PCs (armprof-run --trace runs this spe_run).
void test_c_model_matches_platform(void **)
{
    if (list_mode)
        skip();
    wl_trace t;
    char err[256];
    assert_int_equal(wl_trace_load(file_a.c_str(), &t, err, sizeof err), 0);
    spe_run_opts o;
    spe_run_opts_default(&o);
    o.trace = &t;
    o.ops = t.count * REPEAT;
    o.interval = INTERVAL;
    o.rnd = false;
    o.buffer_bytes = plat->scenario().buffer_bytes;
    char *buf = nullptr;
    size_t len = 0;
    o.dump = open_memstream(&buf, &len);
    assert_non_null(o.dump);
    spe_run_result r;
    assert_int_equal(spe_run(&o, &r), 0);
    std::fclose(o.dump);
    wl_trace_free(&t);
    assert_int_equal(r.st.population, pmu_count(0, ARMPROF_EV_SAMPLE_POP));
    assert_int_equal(r.st.feed, pmu_count(0, ARMPROF_EV_SAMPLE_FEED));
    assert_int_equal(r.st.population, (uint64_t)LINES_A * REPEAT);
    std::vector<uint64_t> c = record_pcs(reinterpret_cast<const uint8_t *>(buf), len);
    std::free(buf);
    std::vector<uint64_t> p = record_pcs(plat->spe_dump(0).data(), plat->spe_dump(0).size());
    assert_int_equal(c.size(), p.size());
    assert_true(c == p);
}

// A per-PE list of the wrong length is refused before anything is built.
void test_list_length_checked(void **)
{
    Scenario sc;
    sc.pes = 3;
    sc.workload.traces = {file_a, file_b};
    std::string what;
    try {
        Platform bad(sc);
    } catch (const std::invalid_argument &e) {
        what = e.what();
    }
    assert_string_equal(what.c_str(),
                        "workload.trace: 2 files for 3 PEs (one file per PE, or a single file for every PE)");
}

} // namespace

int sc_main(int argc, char **argv)
{
    list_mode = argc > 1 && !std::strcmp(argv[1], "list");
    file_a = std::string("test_platform_replay_pes_") + (list_mode ? "list" : "single") + "_a.trc";
    file_b = std::string("test_platform_replay_pes_") + (list_mode ? "list" : "single") + "_b.trc";
    write_trace(file_a.c_str(), PC_A, LINES_A);
    write_trace(file_b.c_str(), PC_B, LINES_B);
    Scenario sc;
    sc.pes = 2;
    sc.interval = INTERVAL;
    sc.rnd = false;
    sc.buffer_bytes = 256 * 1024; // never full: the driver's service cannot shift the samples
    sc.workload.repeat = REPEAT;
    if (list_mode)
        sc.workload.traces = {file_a, file_b};
    else
        sc.workload.trace = file_a.c_str();
    Platform p(sc);
    plat = &p;
    p.run();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_pe_its_own_trace),
        cmocka_unit_test(test_single_file_every_pe),
        cmocka_unit_test(test_c_model_matches_platform),
        cmocka_unit_test(test_list_length_checked),
    };
    int rc = cmocka_run_group_tests_name(list_mode ? "platform_replay_pes_list" : "platform_replay_pes_single", tests,
                                         nullptr, nullptr);
    std::remove(file_a.c_str());
    std::remove(file_b.c_str());
    return rc;
}
