// SPDX-License-Identifier: Apache-2.0
// test_cosim_sc.cpp: the Verilated SystemC (--sc) counter/FIFO under an sc_clock gives the C model's samples and collisions.
#include <cstdio>
#include <string>

#include <systemc>

#include "Vspu_cosim_top_sc.h"
#include "stimulus.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
extern "C" { // cmocka 1.1.5's header has no C++ linkage guard around its functions
#include <cmocka.h>
}

using namespace sc_core;

namespace {

constexpr uint64_t kCycles = 60000;

// The test bench: drives the stimulus into the SystemC RTL one clock at a time while the C
// model (run ahead for the record lengths) gives the expected samples and collisions.
SC_MODULE(Bench) {
    sc_in<bool> clk;
    sc_signal<bool> rst, cfg_ernd, cfg_next_op, icr_we, irr_we, prof_en, full_q, m_full;
    sc_signal<bool> drain_ready, drain_valid;
    sc_signal<uint32_t> drain_len;
    uint64_t valid_diffs = 0, valid_cycles = 0;
    sc_signal<bool> fifo_flush, fifo_discard;
    sc_signal<bool> rnd, pending;
    sc_signal<uint32_t> cfg_rng_seed, cfg_slots, cfg_depth, cfg_rec_cap, cfg_drain, op_valid;
    sc_signal<uint32_t> fire, fire_q, coll_q, count, ecount, rng_state, inflight, fifo_level, interval,
        nrec, diff;
    sc_signal<uint32_t> m_fire, m_coll, m_count, m_ecount, m_rng_state, m_inflight, m_fifo_level;
    sc_signal<uint64_t> icr_wdata, irr_wdata, lane_lat, lane_len, drained, popped, m_drained;

    apcosim::Config cfg;
    uint64_t cycles = 0, samples_rtl = 0, samples_model = 0, coll_rtl = 0, coll_model = 0;
    uint64_t first_diff = UINT64_MAX;
    std::string error;
    bool done = false;

    SC_CTOR(Bench) { SC_THREAD(run); }

    template <typename T> void bind(T &rtl)
    {
        rtl.clk(clk);
        rtl.rst(rst);
        rtl.cfg_ernd(cfg_ernd);
        rtl.cfg_next_op(cfg_next_op);
        rtl.cfg_rng_seed(cfg_rng_seed);
        rtl.cfg_slots(cfg_slots);
        rtl.cfg_depth(cfg_depth);
        rtl.cfg_rec_cap(cfg_rec_cap);
        rtl.cfg_drain(cfg_drain);
        rtl.icr_we(icr_we);
        rtl.icr_wdata(icr_wdata);
        rtl.irr_we(irr_we);
        rtl.irr_wdata(irr_wdata);
        rtl.prof_en(prof_en);
        rtl.op_valid(op_valid);
        rtl.lane_lat(lane_lat);
        rtl.lane_len(lane_len);
        rtl.drain_ready(drain_ready);
        rtl.drain_valid(drain_valid);
        rtl.drain_len(drain_len);
        rtl.fifo_flush(fifo_flush);
        rtl.fifo_discard(fifo_discard);
        rtl.fire(fire);
        rtl.fire_q(fire_q);
        rtl.coll_q(coll_q);
        rtl.full_q(full_q);
        rtl.count(count);
        rtl.ecount(ecount);
        rtl.rng_state(rng_state);
        rtl.inflight(inflight);
        rtl.fifo_level(fifo_level);
        rtl.drained(drained);
        rtl.popped(popped);
        rtl.interval(interval);
        rtl.rnd(rnd);
        rtl.pending(pending);
        rtl.nrec(nrec);
        rtl.m_fire(m_fire);
        rtl.m_coll(m_coll);
        rtl.m_full(m_full);
        rtl.m_count(m_count);
        rtl.m_ecount(m_ecount);
        rtl.m_rng_state(m_rng_state);
        rtl.m_inflight(m_inflight);
        rtl.m_fifo_level(m_fifo_level);
        rtl.m_drained(m_drained);
        rtl.diff(diff);
    }

    void run()
    {
        apcosim::ModelAhead ahead(cfg, 4, kCycles);
        cfg_ernd.write(cfg.ernd);
        cfg_next_op.write(cfg.next_op);
        cfg_rng_seed.write(cfg.rng_seed);
        cfg_slots.write(cfg.slots);
        cfg_depth.write(cfg.fifo_bytes);
        cfg_rec_cap.write(cfg.fifo_bytes / 3 + 2);
        cfg_drain.write(cfg.drain);
        rst.write(true);
        wait(clk.posedge_event());
        wait(clk.posedge_event());
        wait(clk.negedge_event());
        rst.write(false);
        apcosim::CycleIn in;
        apcosim::CycleOut m;
        while (ahead.next(in, m)) {
            icr_we.write(in.icr_we);
            icr_wdata.write(in.icr);
            irr_we.write(in.irr_we);
            irr_wdata.write(in.irr);
            prof_en.write(in.prof_en);
            op_valid.write(in.valid);
            uint64_t lat = 0, len = 0;
            for (unsigned i = 0; i < apcosim::kLanes; i++) {
                lat |= (uint64_t)in.lat[i] << (16 * i);
                len |= (uint64_t)(in.len[i] & 0xFFF) << (12 * i);
            }
            lane_lat.write(lat);
            lane_len.write(len);
            drain_ready.write(!in.stall);
            fifo_flush.write(in.psb); // PSB CSYNC: the model wrote its FIFO's records
            // The offer comes from registered state: stable from the last edge to the next.
            valid_diffs += drain_valid.read() != m.valid;
            valid_cycles += m.valid;
            wait(clk.posedge_event());  // the RTL takes this cycle's inputs
            wait(clk.negedge_event());  // and its registered outputs have settled
            const uint32_t f = fire_q.read(), c = coll_q.read();
            samples_rtl += (uint64_t)__builtin_popcount(f);
            coll_rtl += (uint64_t)__builtin_popcount(c);
            samples_model += (uint64_t)__builtin_popcount(m.fire);
            coll_model += (uint64_t)__builtin_popcount(m.coll);
            if (first_diff == UINT64_MAX && (f != m.fire || c != m.coll || count.read() != m.count ||
                                             fifo_level.read() != m.level))
                first_diff = cycles;
            cycles++;
        }
        error = ahead.error();
        done = true;
        sc_stop();
    }
};

Bench *g_bench;

// One scenario (seed 4's stimulus, ERnd, a 2-slot unit and a narrow drain so that collisions
// and backpressure happen): the SystemC RTL samples the same operations and collides on the
// same ones as model/spu, cycle for cycle.
void test_sc_rtl_same_samples_and_collisions(void **state)
{
    (void)state;
    Bench &b = *g_bench;
    sc_start();
    assert_true(b.done);
    if (!b.error.empty())
        fprintf(stderr, "%s\n", b.error.c_str());
    assert_true(b.error.empty());
    assert_int_equal(b.cycles, kCycles);
    if (b.first_diff != UINT64_MAX)
        fprintf(stderr, "first difference at cycle %llu\n", (unsigned long long)b.first_diff);
    assert_int_equal(b.first_diff, UINT64_MAX);
    assert_int_equal(b.samples_rtl, b.samples_model);
    assert_int_equal(b.coll_rtl, b.coll_model);
    assert_true(b.samples_model > 100);
    assert_true(b.coll_model > 10);
    assert_true(b.coll_model < b.samples_model);
    // The drain handshake's offer (drain_valid) is the model's non-empty FIFO, every cycle.
    assert_int_equal(b.valid_diffs, 0);
    assert_true(b.valid_cycles > 1000);
    printf("SystemC RTL and C model: %llu cycles, %llu samples, %llu collisions, %.1f us simulated\n",
           (unsigned long long)b.cycles, (unsigned long long)b.samples_model,
           (unsigned long long)b.coll_model, sc_time_stamp().to_seconds() * 1e6);
}

} // namespace

int sc_main(int, char **)
{
    sc_clock clk("clk", 10, SC_NS);
    Bench bench("bench");
    bench.cfg = apcosim::config_from_seed(4);
    bench.cfg.ernd = true;
    bench.cfg.slots = 2;
    bench.cfg.drain = 2;
    bench.cfg.interval_max = 1;
    bench.cfg.ready_drop_rate = 0.1; // memory acceptance: random stalls and a busy gap after
    bench.cfg.accept_gap = 2;        // each accepted transfer, besides the seed's bursts
    bench.clk(clk);
    Vspu_cosim_top_sc rtl("rtl");
    bench.bind(rtl);
    g_bench = &bench;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sc_rtl_same_samples_and_collisions),
    };
    int failed = cmocka_run_group_tests_name("cosim_sc", tests, NULL, NULL);
    rtl.final();
    return failed;
}
