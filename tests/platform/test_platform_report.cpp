// SPDX-License-Identifier: Apache-2.0
// test_platform_report.cpp: the modules' errors and the models' warnings reach SystemC's report handler with types under armprof/, and sc_report_handler::set_actions silences or escalates them.
#include <string>
#include <vector>

#include <systemc>

#include "memory.h"
#include "pmu_module.h"
#include "spu_module.h"
#include "trbu_module.h"

// cmocka.h last: its fail() macro would clash with the C++ library
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
extern "C" {
#include <cmocka.h> // cmocka 1.1.5 has no extern "C" guards
}

using namespace sc_core;
using namespace armprof;

namespace {

// A platform's own handler: it records every report, then lets SystemC act on it.
struct Seen {
    sc_severity sev;
    std::string type, msg;
    sc_actions actions;
};
std::vector<Seen> seen;
void recorder(const sc_report &r, const sc_actions &a)
{
    seen.push_back({r.get_severity(), r.get_msg_type(), r.get_msg(), a});
    sc_report_handler::default_handler(r, a);
}

bool contains(const std::string &s, const char *what) { return s.find(what) != std::string::npos; }

// What constructing a module did: which exception, with which message.
struct Outcome {
    bool sc_report = false, invalid_argument = false, bad_alloc = false, built = false;
    std::string type, msg;
    sc_severity sev = SC_INFO;
};
template <class F> Outcome attempt(F make)
{
    Outcome o;
    try {
        make();
        o.built = true;
    } catch (const sc_report &r) {
        o.sc_report = true;
        o.type = r.get_msg_type();
        o.msg = r.get_msg();
        o.sev = r.get_severity();
    } catch (const std::invalid_argument &e) {
        o.invalid_argument = true;
        o.msg = e.what();
    } catch (const std::bad_alloc &) {
        o.bad_alloc = true;
    }
    return o;
}

// A unit that cannot be opened: SC_REPORT_ERROR; by default thrown as sc_report.
void test_unit_errors_are_sc_reports(void **)
{
    spu_config sc;
    spu_config_default(&sc);
    sc.interval = 1; // PMSIDR_EL1.Interval 0b0001 is reserved
    Outcome o = attempt([&] { SpuModule bad("spu_bad", sc); });
    assert_true(o.sc_report);
    assert_int_equal(o.sev, SC_ERROR);
    assert_string_equal(o.type.c_str(), "armprof/spu");
    assert_true(contains(o.msg, "spu_open: "));
    assert_true(contains(o.msg, "PMSIDR_EL1.Interval"));
    assert_int_equal(seen.back().actions, SC_DEFAULT_ERROR_ACTIONS); // includes SC_THROW

    trbu_config tc;
    trbu_config_default(&tc);
    tc.align = 12; // TRBIDR_EL1.Align above 0b1011
    o = attempt([&] { TrbuModule bad("trbu_bad", tc); });
    assert_true(o.sc_report);
    assert_string_equal(o.type.c_str(), "armprof/trbu");
    assert_true(contains(o.msg, "trbu_open: "));

    pmu_config pc;
    pmu_config_default(&pc);
    pc.num_counters = 32; // PMCR_EL0.N is 0..31
    o = attempt([&] { PmuModule bad("pmu_bad", pc); });
    assert_true(o.sc_report);
    assert_string_equal(o.type.c_str(), "armprof/pmu");
    assert_true(contains(o.msg, "pmu_open: "));

    // 4 EiB cannot be allocated.
    o = attempt([&] { Memory huge("huge", 1ull << 62, sc_time(1, SC_NS)); });
    assert_true(o.sc_report);
    assert_string_equal(o.type.c_str(), "armprof/memory");
    assert_true(contains(o.msg, "huge: cannot allocate 4611686018427387904 bytes"));
}

// Silenced (SC_DO_NOTHING): nothing shown or thrown by SystemC, counted; the module still is not
// built: std::invalid_argument with the same message.
void test_silenced_error_still_stops_construction(void **)
{
    spu_config sc;
    spu_config_default(&sc);
    sc.interval = 1;
    sc_report_handler::set_actions("armprof/spu", SC_ERROR, SC_DO_NOTHING);
    int before = sc_report_handler::get_count("armprof/spu", SC_ERROR);
    Outcome o = attempt([&] { SpuModule bad("spu_silenced", sc); });
    sc_report_handler::set_actions("armprof/spu", SC_ERROR, SC_DEFAULT_ERROR_ACTIONS);
    assert_false(o.sc_report);
    assert_true(o.invalid_argument);
    assert_true(contains(o.msg, "spu_open: "));
    assert_int_equal(seen.back().actions, SC_DO_NOTHING);
    assert_string_equal(seen.back().type.c_str(), "armprof/spu");
    assert_int_equal(sc_report_handler::get_count("armprof/spu", SC_ERROR), before + 1);
}

// The SPU model's warning for a reserved PMBLIMITR_EL1.FM (it behaves as fill mode, 0b00, and a
// direct read returns it, seed 001 §4.3.2) is an SC_WARNING of armprof/spu naming the module;
// silenced, then escalated to a throw.
void test_model_warning_silence_escalate(void **)
{
    spu_config sc;
    spu_config_default(&sc);
    SpuModule spu("spu_w", sc);
    armprof_pe_ctx ctx;
    armprof_pe_ctx_default(&ctx); // Non-secure EL1
    assert_int_equal(spu.set_pe_context(ctx), ARMPROF_OK);
    const uint64_t limit = 0x10001000ull | (1u << 1); // FM (bits [2:1]) = 0b01: reserved

    size_t n = seen.size();
    assert_int_equal(spu.reg_write(SPU_PMBLIMITR_EL1, limit), ARMPROF_OK);
    assert_int_equal(seen.size(), n + 1);
    assert_int_equal(seen.back().sev, SC_WARNING);
    assert_string_equal(seen.back().type.c_str(), "armprof/spu");
    assert_true(contains(seen.back().msg, "spu_w: PMBLIMITR_EL1.FM=0b01 is reserved"));
    assert_int_equal(seen.back().actions, SC_DEFAULT_WARNING_ACTIONS);
    uint64_t v = 0;
    assert_int_equal(spu_reg_peek(spu.unit(), SPU_PMBLIMITR_EL1, &v), ARMPROF_OK);
    assert_int_equal(v & 0x6, 0x2); // stored as written (0b01)

    sc_report_handler::set_actions("armprof/spu", SC_WARNING, SC_DO_NOTHING);
    assert_int_equal(spu.reg_write(SPU_PMBLIMITR_EL1, limit), ARMPROF_OK);
    assert_int_equal(seen.size(), n + 2);
    assert_int_equal(seen.back().actions, SC_DO_NOTHING);

    sc_report_handler::set_actions("armprof/spu", SC_WARNING, SC_THROW);
    bool thrown = false;
    try {
        spu.reg_write(SPU_PMBLIMITR_EL1, limit);
    } catch (const sc_report &r) {
        thrown = true;
        assert_int_equal(r.get_severity(), SC_WARNING);
        assert_string_equal(r.get_msg_type(), "armprof/spu");
    }
    sc_report_handler::set_actions("armprof/spu", SC_WARNING, SC_DEFAULT_WARNING_ACTIONS);
    assert_true(thrown);
}

} // namespace

int sc_main(int, char **)
{
    sc_report_handler::set_handler(recorder);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unit_errors_are_sc_reports),
        cmocka_unit_test(test_silenced_error_still_stops_construction),
        cmocka_unit_test(test_model_warning_silence_escalate),
    };
    return cmocka_run_group_tests_name("platform_report", tests, nullptr, nullptr);
}
