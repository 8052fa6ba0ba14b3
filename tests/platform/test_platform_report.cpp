// SPDX-License-Identifier: Apache-2.0
// test_platform_report.cpp: the modules' errors, the models' warnings and refused register accesses reach SystemC's report handler with types under armprof/, and sc_report_handler::set_actions silences or escalates them.
#include <initializer_list>
#include <string>
#include <vector>

#include <systemc>

#include "memory.h"
#include "pmu_module.h"
#include "spu_module.h"
#include "trbu_module.h"
#include "armprof/sysreg.h"

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

// One register access through a unit's TLM register socket (offset = encoding * 8), as a CPU
// model's MSR / MRS; the response status.
template <class Module> tlm::tlm_response_status tlm_access(Module &m, uint32_t enc, bool write, uint64_t v = 0)
{
    tlm::tlm_generic_payload gp;
    sc_time d = SC_ZERO_TIME;
    gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    gp.set_address((uint64_t)enc * 8);
    gp.set_data_ptr(reinterpret_cast<unsigned char *>(&v));
    gp.set_data_length(8);
    gp.set_streaming_width(8);
    m.regs.get_base_interface().b_transport(gp, d);
    return gp.get_response_status();
}

// The last report, which must be the SC_INFO of `type` at SC_MEDIUM about a refused access, and
// must say each of `what`.
void expect_refusal(size_t before, const char *type, std::initializer_list<const char *> what)
{
    assert_int_equal(seen.size(), before + 1);
    assert_int_equal(seen.back().sev, SC_INFO);
    assert_string_equal(seen.back().type.c_str(), type);
    for (const char *w : what)
        if (!contains(seen.back().msg, w))
            fail_msg("'%s' lacks '%s'", seen.back().msg.c_str(), w);
}

// A refused register access (UNDEFINED, a trap, no such register) answers the TLM error it did
// and is reported as an SC_INFO naming the register, MRS / MSR, the EL and Security state, the
// outcome and the access rule with the controls it reads; an access that succeeds reports nothing.
void test_refused_access_reported(void **)
{
    spu_config sc;
    spu_config_default(&sc);
    SpuModule spu("spu_r", sc);
    armprof_pe_ctx ctx;
    armprof_pe_ctx_default(&ctx);
    ctx.el = 0;
    spu.set_pe_context(ctx);

    size_t n = seen.size();
    assert_int_equal(tlm_access(spu, SPU_PMBLIMITR_EL1, true, 0x10001001), tlm::TLM_COMMAND_ERROR_RESPONSE);
    expect_refusal(n, "armprof/spu", {"spu_r: MSR PMBLIMITR_EL1 at EL0 (Non-secure) refused: UNDEFINED. Rule: ",
                                      "CheckProfilingBufferAccess() (seed 001 §3.4.6)"});

    // EL1 with MDCR_EL2.E2PB = 0b00: the buffer is EL2's.
    ctx.el = 1;
    ctx.mdcr2_e2pb = 0;
    spu.set_pe_context(ctx);
    n = seen.size();
    assert_int_equal(tlm_access(spu, SPU_PMBPTR_EL1, false), tlm::TLM_COMMAND_ERROR_RESPONSE);
    expect_refusal(n, "armprof/spu", {"MRS PMBPTR_EL1 at EL1 (Non-secure) refused: trapped to EL2",
                                      "MDCR_EL2.E2PB=0b00"});
    // The sampling registers' rule: MDCR_EL2.TPMS.
    ctx.mdcr2_e2pb = 3;
    ctx.mdcr2_tpms = true;
    spu.set_pe_context(ctx);
    n = seen.size();
    assert_int_equal(spu.reg_write(SPU_PMSCR_EL1, PMSCR_EL1_E1SPE), ARMPROF_ERR_TRAP_EL2);
    expect_refusal(n, "armprof/spu", {"MSR PMSCR_EL1 at EL1 (Non-secure) refused: trapped to EL2",
                                      "CheckStatisticalProfilingAccess() (seed 001 §3.2.3)", "MDCR_EL2.TPMS=1"});
    ctx.mdcr2_tpms = false;
    spu.set_pe_context(ctx);
    // No register there: an address error, and the encoding in Arm's generic form.
    n = seen.size();
    assert_int_equal(tlm_access(spu, ARMPROF_SYSREG(3, 0, 9, 10, 2), false), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    expect_refusal(n, "armprof/spu", {"MRS S3_0_C9_C10_2 at EL1", "no such register"});
    // An ID register: MSR is UNDEFINED, and the report says why.
    n = seen.size();
    assert_int_equal(tlm_access(spu, SPU_PMSIDR_EL1, true, 0), tlm::TLM_COMMAND_ERROR_RESPONSE);
    expect_refusal(n, "armprof/spu", {"MSR PMSIDR_EL1 at EL1 (Non-secure) refused: UNDEFINED",
                                      "PMSIDR_EL1 is an ID register: MSR to it is UNDEFINED"});
    // Allowed: nothing.
    n = seen.size();
    assert_int_equal(tlm_access(spu, SPU_PMBPTR_EL1, true, 0x10000000), tlm::TLM_OK_RESPONSE);
    assert_int_equal(seen.size(), n);

    // Silenced by the platform: still counted, nothing shown; below SC_MEDIUM verbosity: no report.
    sc_report_handler::set_actions("armprof/spu", SC_INFO, SC_DO_NOTHING);
    ctx.el = 0;
    spu.set_pe_context(ctx);
    n = seen.size();
    assert_int_equal(tlm_access(spu, SPU_PMBSR_EL1, false), tlm::TLM_COMMAND_ERROR_RESPONSE);
    assert_int_equal(seen.size(), n + 1);
    assert_int_equal(seen.back().actions, SC_DO_NOTHING);
    sc_report_handler::set_actions("armprof/spu", SC_INFO, SC_DEFAULT_INFO_ACTIONS);
    sc_report_handler::set_verbosity_level(SC_LOW);
    assert_int_equal(tlm_access(spu, SPU_PMBSR_EL1, false), tlm::TLM_COMMAND_ERROR_RESPONSE);
    sc_report_handler::set_verbosity_level(SC_MEDIUM);
    assert_int_equal(seen.size(), n + 1);

    // TRBU and PMU alike.
    trbu_config tc;
    trbu_config_default(&tc);
    TrbuModule trbu("trbu_r", tc);
    trbu.set_pe_context(ctx); // EL0
    n = seen.size();
    assert_int_equal(tlm_access(trbu, TRBU_TRBSR_EL1, false), tlm::TLM_COMMAND_ERROR_RESPONSE);
    expect_refusal(n, "armprof/trbu", {"trbu_r: MRS TRBSR_EL1 at EL0 (Non-secure) refused: UNDEFINED",
                                       "the TRB* register accessors", "MDCR_EL2.E2TB=0b"});
    pmu_config pc;
    pmu_config_default(&pc);
    PmuModule pmu("pmu_r", pc);
    pmu.set_pe_context(ctx); // EL0, PMUSERENR_EL0 = 0
    n = seen.size();
    assert_int_equal(tlm_access(pmu, PMU_PMEVCNTR_EL0(3), false), tlm::TLM_COMMAND_ERROR_RESPONSE);
    expect_refusal(n, "armprof/pmu", {"pmu_r: MRS PMEVCNTR3_EL0 at EL0 (Non-secure) refused: UNDEFINED",
                                      "PMUSERENR_EL0.EN", "PMUSERENR_EL0=0x0"});
}

} // namespace

int sc_main(int, char **)
{
    sc_report_handler::set_handler(recorder);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unit_errors_are_sc_reports),
        cmocka_unit_test(test_silenced_error_still_stops_construction),
        cmocka_unit_test(test_model_warning_silence_escalate),
        cmocka_unit_test(test_refused_access_reported),
    };
    return cmocka_run_group_tests_name("platform_report", tests, nullptr, nullptr);
}
