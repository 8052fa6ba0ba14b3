// SPDX-License-Identifier: Apache-2.0
// test_platform_cti.cpp: SpuModule's CTI input trigger 2 event (seed 001 §2.7): notified at the unit's time of each record written out, in lockstep with SystemC, and merged per quantum at the first record's time with the unit running ahead.
#include <algorithm>
#include <cstring>
#include <vector>

#include <systemc>
#include <tlm>
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
using armprof::SpuModule;

namespace {

constexpr uint64_t BUF = 0x10000000;
constexpr uint64_t OPS = 20000; // about 78 records at interval 256
const sc_time PERIOD(1, SC_NS);

// Physical memory answering every write with `delay` annotated (Off timing: latency 0 anyway).
struct Mem : sc_module {
    tlm_utils::simple_target_socket<Mem> sock{ "sock" };
    std::vector<uint8_t> mem = std::vector<uint8_t>(1 << 20);
    explicit Mem(sc_module_name n) : sc_module(n) { sock.register_b_transport(this, &Mem::bt); }
    void bt(tlm::tlm_generic_payload &t, sc_time &)
    {
        std::memcpy(mem.data() + (t.get_address() - BUF), t.get_data_ptr(), t.get_data_length());
        t.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

// Records the time of each notification of the event.
struct Watcher : sc_module {
    std::vector<sc_time> at;
    SC_HAS_PROCESS(Watcher);
    Watcher(sc_module_name n, sc_event &ev) : sc_module(n)
    {
        SC_METHOD(seen);
        sensitive << ev;
        dont_initialize();
    }
    void seen() { at.push_back(sc_time_stamp()); }
};

// A CPU retiring OPS operations of one a cycle into its unit. Lockstep: one operation, one
// cycle of SystemC time, the unit brought to SystemC time; the time of each record is where
// cti_triggers() moved. Decoupled: unsampled runs skipped (spu_skip) up to the unit's next
// event, the unit run ahead of SystemC and synchronised every 1 us, as armprof-vp's PEs do; the
// trigger count is kept at each synchronisation.
struct Cpu : sc_module {
    SpuModule *spu = nullptr;
    bool lockstep = false;
    std::vector<sc_time> counted; // lockstep: the time of each new trigger
    uint64_t multi = 0;           // lockstep: triggers beyond one in a cycle
    std::vector<uint64_t> at_sync; // decoupled: cti_triggers() at each synchronisation
    SC_HAS_PROCESS(Cpu);
    Cpu(sc_module_name n, SpuModule *s, bool ls) : sc_module(n), spu(s), lockstep(ls) { SC_THREAD(run); }
    void program()
    {
        spu->reg_write(SPU_PMSIRR_EL1, 256); // INTERVAL 256, RND 0
        spu->reg_write(SPU_PMSICR_EL1, 256);
        spu->reg_write(SPU_PMBPTR_EL1, BUF);
        spu->reg_write(SPU_PMBLIMITR_EL1, (BUF + (1 << 20)) | 1);
        spu->reg_write(SPU_PMSCR_EL1, 0x3);
    }
    static spu_op make_op(uint64_t i)
    {
        spu_op op{};
        op.op_class = SPE_CLASS_BRANCH;
        op.total_lat = 5;
        op.pc = 0x400000 + 4 * i;
        return op;
    }
    void run()
    {
        program();
        spu_t *u = spu->unit();
        if (lockstep) {
            for (uint64_t i = 0; i < OPS; i++) {
                spu_op op = make_op(i);
                spu_retire(u, &op);
                wait(PERIOD);
                uint64_t before = spu->cti_triggers();
                spu->advance_to(sc_time_stamp());
                if (spu->cti_triggers() != before) {
                    multi += spu->cti_triggers() - before - 1; // records far apart: none
                    counted.push_back(sc_time_stamp());
                }
            }
            return;
        }
        uint64_t done = 0;
        const sc_time quantum(1, SC_US);
        sc_time synced = sc_time_stamp();
        while (done < OPS) {
            uint64_t step = 1, k = spu_ops_until_sample(u);
            if (k == 0) {
                spu_op op = make_op(done);
                spu_retire(u, &op);
            } else {
                uint64_t cyc = spu_cycles_to_next_event(u);
                step = std::min(std::min(k, OPS - done), cyc ? cyc : 1);
                step = spu_skip(u, step);
                if (!step)
                    step = 1;
            }
            spu_advance(u, step);
            done += step;
            if (spu->model_time() - synced >= quantum || done == OPS) {
                at_sync.push_back(spu->cti_triggers());
                wait(spu->model_time() - sc_time_stamp());
                synced = sc_time_stamp();
            }
        }
    }
};

SpuModule *spu_ls, *spu_dc;
Cpu *cpu_ls, *cpu_dc;
Watcher *w_ls, *w_dc;

void test_cti_event_at_each_record(void **)
{
    spu_stats st;
    spu_get_stats(spu_ls->unit(), &st);
    assert_true(st.records_written >= OPS / 257 - 1);
    assert_int_equal(spu_ls->cti_triggers(), st.records_written);
    // Lockstep: one notification per record, in the cycle the count moved.
    assert_int_equal(cpu_ls->multi, 0);
    assert_int_equal(cpu_ls->counted.size(), st.records_written);
    assert_int_equal(w_ls->at.size(), cpu_ls->counted.size());
    for (size_t i = 0; i < w_ls->at.size(); i++)
        assert_true(w_ls->at[i] == cpu_ls->counted[i]);
}

void test_cti_event_time_with_unit_ahead(void **)
{
    // The unit ran up to 1 us ahead of SystemC, so the records of one quantum were all notified
    // before SystemC reached the first: they merge into one notification (an sc_event keeps the
    // earliest pending one), at the first record's time: the start of the cycle its last write
    // was accepted in, one period before the lockstep CPU (which brings the unit to SystemC time
    // at the end of each cycle) sees its count move.
    spu_stats st;
    spu_get_stats(spu_dc->unit(), &st);
    assert_int_equal(spu_dc->cti_triggers(), st.records_written);
    assert_int_equal(st.records_written, cpu_ls->counted.size());
    std::vector<sc_time> want;
    uint64_t before = 0;
    for (uint64_t n : cpu_dc->at_sync) {
        if (n > before)
            want.push_back(cpu_ls->counted[before] - PERIOD);
        before = n;
    }
    assert_true(want.size() >= 10 && want.size() < st.records_written); // merging happened
    assert_int_equal(w_dc->at.size(), want.size());
    for (size_t i = 0; i < want.size(); i++)
        assert_true(w_dc->at[i] == want[i]);
}

} // namespace

int sc_main(int, char **)
{
    spu_config cfg;
    spu_config_default(&cfg);
    armprof_pe_ctx ctx;
    armprof_pe_ctx_default(&ctx);
    spu_ls = new SpuModule("spu_ls", cfg, PERIOD);
    spu_dc = new SpuModule("spu_dc", cfg, PERIOD);
    Mem *m_ls = new Mem("m_ls"), *m_dc = new Mem("m_dc");
    spu_ls->mem.bind(m_ls->sock);
    spu_dc->mem.bind(m_dc->sock);
    auto *irq_ls = new sc_signal<bool, SC_MANY_WRITERS>("irq_ls");
    auto *irq_dc = new sc_signal<bool, SC_MANY_WRITERS>("irq_dc");
    spu_ls->irq.bind(*irq_ls);
    spu_dc->irq.bind(*irq_dc);
    spu_ls->set_pe_context(ctx);
    spu_dc->set_pe_context(ctx);
    cpu_ls = new Cpu("cpu_ls", spu_ls, true);
    cpu_dc = new Cpu("cpu_dc", spu_dc, false);
    w_ls = new Watcher("w_ls", spu_ls->cti_sample());
    w_dc = new Watcher("w_dc", spu_dc->cti_sample());
    sc_start();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cti_event_at_each_record),
        cmocka_unit_test(test_cti_event_time_with_unit_ahead),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
