// SPDX-License-Identifier: Apache-2.0
// test_platform_at_backpressure.cpp: timing: at with a user's AT target that delays END_REQ throttles the SPU (writes spaced by the delay, exact write latency, FIFO full, collisions), against a prompt target.
#include <cstdio>
#include <cstring>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/peq_with_cb_and_phase.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "spu_module.h"

// cmocka.h last: its fail() macro would clash with the C++ library
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
extern "C" {
#include <cmocka.h> // cmocka 1.1.5 has no extern "C" guards
}

using namespace sc_core;
using armprof::BufferTiming;
using armprof::SpuModule;

namespace {

constexpr uint64_t BUF = 0x10000000;
constexpr unsigned CYCLES = 60000;
constexpr unsigned SLOW_NS = 1000; // the slow target's END_REQ delay

// A user's AT memory: END_REQ `end_req` after BEGIN_REQ, given as BEGIN_RESP at that time (the
// response implies END_REQ). Records each BEGIN_REQ time and checks the base protocol's
// request rule (no BEGIN_REQ while one waits for its END_REQ).
struct AtMemory : sc_module {
    tlm_utils::simple_target_socket<AtMemory> sock{"sock"};
    sc_time end_req;
    std::vector<sc_time> begin_req;
    uint64_t bytes = 0;
    unsigned violations = 0;
    bool in_req = false;
    tlm_utils::peq_with_cb_and_phase<AtMemory> peq{this, &AtMemory::cb};
    AtMemory(sc_module_name n, sc_time er) : sc_module(n), end_req(er)
    {
        sock.register_nb_transport_fw(this, &AtMemory::fw);
    }
    tlm::tlm_sync_enum fw(tlm::tlm_generic_payload &gp, tlm::tlm_phase &ph, sc_time &d)
    {
        if (ph == tlm::BEGIN_REQ) {
            if (in_req)
                violations++;
            in_req = true;
            begin_req.push_back(sc_time_stamp() + d);
            bytes += gp.get_data_length();
            peq.notify(gp, tlm::BEGIN_RESP, d + end_req);
            return tlm::TLM_ACCEPTED;
        }
        return tlm::TLM_COMPLETED; // END_RESP
    }
    void cb(tlm::tlm_generic_payload &gp, const tlm::tlm_phase &)
    {
        in_req = false;
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        tlm::tlm_phase ph = tlm::BEGIN_RESP;
        sc_time z = SC_ZERO_TIME;
        sock->nb_transport_bw(gp, ph, z);
    }
};

// Programs both SPUs alike and retires the same operation into each every 1 ns cycle, in
// lockstep with SystemC time (no temporal decoupling, so AT answers land on their cycle).
struct Cpu : sc_module {
    SpuModule *spu[2] = {nullptr, nullptr};
    SC_HAS_PROCESS(Cpu);
    explicit Cpu(sc_module_name n) : sc_module(n) { SC_THREAD(run); }
    void run()
    {
        for (SpuModule *s : spu) {
            s->reg_write(SPU_PMSIRR_EL1, 256); // INTERVAL [31:8]: a sample every 256 operations
            s->reg_write(SPU_PMSICR_EL1, 0);
            s->reg_write(SPU_PMBPTR_EL1, BUF);
            s->reg_write(SPU_PMBLIMITR_EL1, (BUF + 0x100000) | 1);
            s->reg_write(SPU_PMSCR_EL1, 0x3);
        }
        spu_op op{};
        op.op_class = SPE_CLASS_BRANCH;
        op.total_lat = 20;
        op.pc = 0x400000;
        for (unsigned i = 0; i < CYCLES; i++) {
            op.pc += 4;
            for (SpuModule *s : spu)
                spu_retire(s->unit(), &op);
            wait(1, SC_NS);
            for (SpuModule *s : spu) {
                s->advance_to(sc_time_stamp());
                s->flush_irq();
            }
        }
        for (SpuModule *s : spu)
            s->psb_csync();
        sc_stop();
    }
};

SpuModule *slow, *fast;
AtMemory *slow_mem, *fast_mem;

// The slow target takes 1000 ns per write and the writer keeps one in flight: a write issued
// when the previous one is accepted (inside spu_mem_complete, at the BEGIN_RESP time) is accepted
// exactly 1000 cycles later; one issued while the CPU brings the unit from cycle n - 1 to its
// time n (advance_to after the wait) leaves at n, so it takes 1001 cycles of the unit's time.
// The next BEGIN_REQ never comes before the previous END_REQ (BEGIN_RESP).
void test_write_latency_is_the_end_req_delay(void **)
{
    spu_stats st;
    spu_get_stats(slow->unit(), &st);
    assert_int_equal(slow_mem->violations, 0);
    assert_true(st.writes_issued > 100);
    assert_int_equal(slow_mem->begin_req.size(), st.writes_issued);
    assert_int_equal(st.writes_answered, st.writes_issued); // PSB CSYNC waited for the last answers
    assert_int_equal(st.write_latency_min, SLOW_NS);
    assert_int_equal(st.write_latency_max, SLOW_NS + 1);
    assert_true(st.write_latency_sum >= (uint64_t)SLOW_NS * st.writes_answered);
    assert_true(st.write_latency_sum <= (uint64_t)(SLOW_NS + 1) * st.writes_answered);
    assert_int_equal(st.outstanding_writes_max, 1);
    for (size_t i = 1; i < slow_mem->begin_req.size(); i++)
        assert_true(slow_mem->begin_req[i] - slow_mem->begin_req[i - 1] >= sc_time(SLOW_NS, SC_NS));
    // The writer is the bottleneck: it issues the next write the cycle the previous is accepted.
    assert_true(slow_mem->begin_req.size() >= CYCLES / SLOW_NS - 2);
    assert_true(st.writer_stall_cycles > CYCLES / 2);
    assert_int_equal(slow_mem->bytes, st.bytes_written);
}

// Throttled: the record FIFO fills (its high-water mark within a record of its depth),
// completed records wait for space and new samples collide; the prompt target (answers in the
// same cycle) sees none of it.
void test_slow_target_throttles_the_unit(void **)
{
    spu_stats s, f;
    spu_get_stats(slow->unit(), &s);
    spu_get_stats(fast->unit(), &f);
    assert_int_equal(fast_mem->violations, 0);
    assert_true(f.write_latency_max <= 1); // 1: issued during the CPU's catch-up, as above
    assert_int_equal(f.collisions, 0);
    assert_int_equal(f.fifo_full_cycles, 0);
    assert_true(f.fifo_bytes_max < 128);
    assert_true(s.fifo_bytes_max > 1024 - 64);
    assert_true(s.fifo_full_cycles > CYCLES / 2);
    assert_true(s.collisions > 100);
    assert_true(s.records_written < f.records_written / 2);
    // Every record sampled is written or counted as discarded.
    assert_int_equal(f.records_written + f.records_discarded, f.feed - f.collisions - f.filtered_out);
}

} // namespace

int sc_main(int, char **)
{
    spu_config cfg;
    spu_config_default(&cfg);
    SpuModule s0("slow", cfg, sc_time(1, SC_NS)), s1("fast", cfg, sc_time(1, SC_NS));
    AtMemory m0("slow_mem", sc_time(SLOW_NS, SC_NS)), m1("fast_mem", SC_ZERO_TIME);
    Cpu cpu("cpu");
    sc_signal<bool, SC_MANY_WRITERS> irq0("irq0"), irq1("irq1");
    s0.mem.bind(m0.sock);
    s1.mem.bind(m1.sock);
    s0.irq.bind(irq0);
    s1.irq.bind(irq1);
    for (SpuModule *s : {&s0, &s1}) {
        s->set_timing(BufferTiming::At);
        armprof_pe_ctx ctx;
        armprof_pe_ctx_default(&ctx);
        s->set_pe_context(ctx);
    }
    cpu.spu[0] = &s0;
    cpu.spu[1] = &s1;
    slow = &s0;
    fast = &s1;
    slow_mem = &m0;
    fast_mem = &m1;
    sc_start();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_latency_is_the_end_req_delay),
        cmocka_unit_test(test_slow_target_throttles_the_unit),
    };
    return cmocka_run_group_tests_name("platform_at_backpressure", tests, nullptr, nullptr);
}
