// SPDX-License-Identifier: Apache-2.0
// test_platform_timing.cpp: memory timing at the buffer port (LT latency from the annotated delay and DMI, AT four phases with END_REQ back-pressure, in-order answers), the bus's slot booking and queued time, memory write latency, the AT bridge.
#include <deque>
#include <vector>

#include <tlm_utils/peq_with_cb_and_phase.h>
#include <tlm_utils/simple_target_socket.h>

#include "at_bridge.h"
#include "buffer_port.h"
#include "fixture.h"

// cmocka.h last: its fail() macro would clash with the C++ library
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
extern "C" {
#include <cmocka.h> // cmocka 1.1.5 has no extern "C" guards
}

using namespace armprof_test;
using sc_core::sc_time_stamp;

namespace {

const sc_time PERIOD(10, SC_NS); // the test unit's clock

// A unit stand-in: the buffer port of a wrapper whose model time follows SystemC time plus a
// settable lead (its local time offset), recording the answers AT delivers.
struct TestPort : sc_core::sc_module, BufferPort {
    uint64_t lead = 0; // unit cycles ahead of sc_time_stamp()
    struct Done {
        sc_time at;
        armprof_mem_result r;
    };
    std::vector<Done> done;
    explicit TestPort(sc_core::sc_module_name n) : sc_module(n), BufferPort("mem", PERIOD) {}
    uint64_t unit_cycles() const override { return sc_time_stamp().value() / PERIOD.value() + lead; }
    void on_mem_complete(const armprof_mem_result &r) override { done.push_back({sc_time_stamp(), r}); }
    armprof_mem_result write(uint64_t addr, unsigned len)
    {
        std::vector<uint8_t> b(len, 0xA5);
        armprof_regime rg = regime_el1();
        return port_write(addr, b.data(), len, rg);
    }
};

// A user's LT target: annotates a fixed delay; grants DMI with its own write latency when asked.
struct LtTarget : sc_core::sc_module {
    tlm_utils::simple_target_socket<LtTarget> sock;
    sc_time delay, dmi_latency;
    bool dmi = false;
    std::vector<uint8_t> mem = std::vector<uint8_t>(0x10000);
    LtTarget(sc_core::sc_module_name n, sc_time d) : sc_module(n), sock("sock"), delay(d)
    {
        sock.register_b_transport(this, &LtTarget::b_transport);
        sock.register_get_direct_mem_ptr(this, &LtTarget::get_dmi);
    }
    void b_transport(tlm::tlm_generic_payload &gp, sc_time &d)
    {
        std::memcpy(&mem[gp.get_address() & 0xFFFF], gp.get_data_ptr(), gp.get_data_length());
        d += delay;
        gp.set_dmi_allowed(dmi);
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    bool get_dmi(tlm::tlm_generic_payload &, tlm::tlm_dmi &d)
    {
        if (!dmi)
            return false;
        d.set_dmi_ptr(mem.data());
        d.set_start_address(0);
        d.set_end_address(mem.size() - 1);
        d.set_granted_access(tlm::tlm_dmi::DMI_ACCESS_READ_WRITE);
        d.set_write_latency(dmi_latency);
        return true;
    }
};

// A user's AT target: END_REQ `end_req` after BEGIN_REQ, BEGIN_RESP `resp` after END_REQ (or,
// with `reverse`, the second request's response before the first's). It checks the base
// protocol's request rule: no BEGIN_REQ while one waits for its END_REQ.
struct AtTarget : sc_core::sc_module {
    tlm_utils::simple_target_socket<AtTarget> sock;
    sc_time end_req, resp;
    bool reverse = false;
    unsigned violations = 0, end_resps = 0;
    std::vector<sc_time> begin_req;
    tlm::tlm_generic_payload *in_req = nullptr;
    std::deque<tlm::tlm_generic_payload *> held;
    tlm_utils::peq_with_cb_and_phase<AtTarget> peq;
    AtTarget(sc_core::sc_module_name n, sc_time er, sc_time rs)
        : sc_module(n), sock("sock"), end_req(er), resp(rs), peq(this, &AtTarget::cb)
    {
        sock.register_nb_transport_fw(this, &AtTarget::fw);
    }
    tlm::tlm_sync_enum fw(tlm::tlm_generic_payload &gp, tlm::tlm_phase &ph, sc_time &d)
    {
        if (ph == tlm::BEGIN_REQ) {
            if (in_req)
                violations++;
            in_req = &gp;
            begin_req.push_back(sc_time_stamp() + d);
            gp.acquire();
            peq.notify(gp, tlm::END_REQ, d + end_req);
            return tlm::TLM_ACCEPTED;
        }
        if (ph == tlm::END_RESP) {
            end_resps++;
            gp.release();
            return tlm::TLM_COMPLETED;
        }
        violations++;
        return tlm::TLM_COMPLETED;
    }
    void cb(tlm::tlm_generic_payload &gp, const tlm::tlm_phase &ph)
    {
        if (ph == tlm::END_REQ) {
            in_req = nullptr;
            tlm::tlm_phase p = tlm::END_REQ;
            sc_time z = SC_ZERO_TIME;
            sock->nb_transport_bw(gp, p, z);
            gp.set_response_status(tlm::TLM_OK_RESPONSE);
            if (reverse && held.empty() && begin_req.size() % 2 == 1) {
                held.push_back(&gp); // the odd one answers after the next
                return;
            }
            peq.notify(gp, tlm::BEGIN_RESP, resp);
            while (!held.empty()) {
                peq.notify(*held.front(), tlm::BEGIN_RESP, resp + sc_time(1, SC_NS));
                held.pop_front();
            }
        } else if (ph == tlm::BEGIN_RESP) {
            tlm::tlm_phase p = tlm::BEGIN_RESP;
            sc_time z = SC_ZERO_TIME;
            sock->nb_transport_bw(gp, p, z);
        }
    }
};

struct Bench {
    // LT with a user target: 35 ns per write.
    TestPort lt{"lt"};
    LtTarget lt_t{"lt_t", sc_time(35, SC_NS)};
    // LT with DMI: TLM 35 ns, DMI write latency 25 ns.
    TestPort dmi{"dmi"};
    LtTarget dmi_t{"dmi_t", sc_time(35, SC_NS)};
    // AT with a user target delaying END_REQ by 50 ns, response 20 ns later.
    TestPort at{"at"};
    AtTarget at_t{"at_t", sc_time(50, SC_NS), sc_time(20, SC_NS)};
    // AT, the target answering the second write before the first.
    TestPort atr{"atr"};
    AtTarget atr_t{"atr_t", sc_time(0, SC_NS), sc_time(20, SC_NS)};
    // AT through the bridge to an LT target of 30 ns.
    TestPort atb{"atb"};
    AtBridge bridge{"bridge"};
    LtTarget atb_t{"atb_t", sc_time(30, SC_NS)};
    // The bus and memory of the platform.
    Memory mem{"mem", DRAM_SIZE, sc_time(20, SC_NS)};
    Bus bus{"bus"};
    Initiator a{"a"}, b{"b"};
    Bench()
    {
        lt.mem.bind(lt_t.sock);
        dmi.mem.bind(dmi_t.sock);
        dmi_t.dmi = true;
        dmi_t.dmi_latency = sc_time(25, SC_NS);
        at.mem.bind(at_t.sock);
        atr.mem.bind(atr_t.sock);
        atr_t.reverse = true;
        atb.mem.bind(bridge.tsock);
        bridge.isock.bind(atb_t.sock);
        a.sock.bind(bus.tsock);
        b.sock.bind(bus.tsock);
        bus.isock.bind(mem.socket);
        bus.map(0, DRAM_BASE, DRAM_SIZE, sc_time(10, SC_NS), 16.0, "dram"); // 64 B take 4 ns
        mem.set_write_latency(sc_time(200, SC_NS));
    }
};
Bench *bench;

void test_interval_set(void **)
{
    IntervalSet s;
    assert_int_equal(s.add(10, 20), 10);
    assert_int_equal(s.add(30, 40), 10);
    assert_int_equal(s.first_fit(0, 10), 0);   // fits before the first interval
    assert_int_equal(s.first_fit(5, 10), 20);  // [5,15) hits [10,20); [20,30) is free
    assert_int_equal(s.first_fit(5, 12), 40);  // [20,32) hits [30,40)
    assert_int_equal(s.first_fit(15, 10), 20); // [20,30) is free
    assert_int_equal(s.first_fit(15, 11), 40);
    assert_int_equal(s.add(15, 35), 10);       // only [20,30) is new
    assert_int_equal(s.size(), 1u);            // merged into [10,40)
    assert_int_equal(s.last_end(), 40);
    s.prune(41);
    assert_int_equal(s.size(), 0u);
}

// LT: the delay a user's target annotates becomes the latency in unit cycles, rounded up; the
// unit's local time offset is passed down and not counted. Off: latency 0, the same bytes.
void test_lt_latency_from_annotated_delay(void **)
{
    TestPort &p = bench->lt;
    p.set_timing(BufferTiming::Lt);
    p.lead = 7; // 70 ns ahead of SystemC
    armprof_mem_result r = p.write(0x100, 64);
    assert_int_equal(r.status, ARMPROF_MEM_OK);
    assert_int_equal(r.written, 64);
    assert_int_equal(r.latency, 4); // 35 ns / 10 ns, rounded up
    p.set_timing(BufferTiming::Off);
    r = p.write(0x140, 64);
    assert_int_equal(r.status, ARMPROF_MEM_OK);
    assert_int_equal(r.latency, 0);
    assert_int_equal(bench->lt_t.mem[0x140], 0xA5);
    assert_true(p.stats().bus_time == sc_time(70, SC_NS)); // the offsets are not bus time
}

// LT with DMI: the first write goes by TLM (35 ns: 4 cycles) and gets the grant; the next ones
// take the grant's write latency (25 ns: 3 cycles).
void test_lt_dmi_write_latency(void **)
{
    TestPort &p = bench->dmi;
    p.set_timing(BufferTiming::Lt);
    assert_int_equal(p.write(0x0, 64).latency, 4);
    assert_int_equal(p.stats().tlm_writes, 1);
    armprof_mem_result r = p.write(0x40, 64);
    assert_int_equal(r.status, ARMPROF_MEM_OK);
    assert_int_equal(r.latency, 3);
    assert_int_equal(p.stats().dmi_writes, 1);
    p.set_timing(BufferTiming::Off); // drops the grant; the next grant carries latency 0
    p.write(0x80, 64);
    assert_int_equal(p.write(0xC0, 64).latency, 0);
}

// AT: three writes issued at once. The target takes 50 ns to END_REQ each request, so the port
// sends BEGIN_REQ at 0, 50, 100 ns (never two in the request phase), and each answer reaches
// the unit at its BEGIN_RESP, 20 ns after its END_REQ: 70, 120, 170 ns.
void test_at_end_req_back_pressure(void **)
{
    TestPort &p = bench->at;
    p.set_timing(BufferTiming::At);
    sc_time t0 = sc_time_stamp();
    for (unsigned i = 0; i < 3; i++)
        assert_int_equal(p.write(0x1000 + 64 * i, 64).status, ARMPROF_MEM_PENDING);
    assert_int_equal(p.at_outstanding(), 3u);
    sc_core::sc_start(sc_time(1, sc_core::SC_US));
    const AtTarget &t = bench->at_t;
    assert_int_equal(t.violations, 0);
    assert_int_equal(t.begin_req.size(), 3u);
    for (unsigned i = 0; i < 3; i++)
        assert_true(t.begin_req[i] == t0 + sc_time(50.0 * i, SC_NS));
    assert_int_equal(p.done.size(), 3u);
    for (unsigned i = 0; i < 3; i++) {
        assert_true(p.done[i].at == t0 + sc_time(70 + 50.0 * i, SC_NS));
        assert_int_equal(p.done[i].r.status, ARMPROF_MEM_OK);
        assert_int_equal(p.done[i].r.written, 64);
    }
    assert_int_equal(t.end_resps, 3);
    assert_int_equal(p.at_outstanding(), 0u);
    assert_true(p.at_end_req_wait_max() == sc_time(50, SC_NS));
    assert_int_equal(p.stats().tlm_writes, 3);
    assert_int_equal(p.stats().bytes, 192);
}

// AT: a unit running ahead of SystemC (temporal decoupling) sends BEGIN_REQ at its own time.
void test_at_begin_req_at_unit_time(void **)
{
    TestPort &p = bench->at;
    size_t n = bench->at_t.begin_req.size(), d = p.done.size();
    sc_time t0 = sc_time_stamp();
    p.lead = 30; // 300 ns ahead
    p.write(0x2000, 32);
    p.lead = 0;
    sc_core::sc_start(sc_time(1, sc_core::SC_US));
    assert_true(bench->at_t.begin_req[n] == t0 + sc_time(300, SC_NS));
    assert_true(p.done[d].at == t0 + sc_time(370, SC_NS));
}

// AT: the target answers the second write before the first; the unit still gets the answers
// in issue order, both when the first one's BEGIN_RESP arrives.
void test_at_answers_in_issue_order(void **)
{
    TestPort &p = bench->atr;
    p.set_timing(BufferTiming::At);
    sc_time t0 = sc_time_stamp();
    p.write(0x3000, 64);
    p.write(0x3040, 64);
    sc_core::sc_start(sc_time(1, sc_core::SC_US));
    assert_int_equal(bench->atr_t.violations, 0);
    assert_int_equal(p.done.size(), 2u);
    // END_REQ at once for both; the second's BEGIN_RESP at 20 ns, the first's at 21 ns.
    assert_true(p.done[0].at == t0 + sc_time(21, SC_NS));
    assert_true(p.done[1].at == t0 + sc_time(21, SC_NS));
}

// AT through the bridge to an LT target: END_REQ at once, BEGIN_RESP after the LT delay; the
// second response waits for the first's END_RESP (same time, a delta later).
void test_at_bridge(void **)
{
    TestPort &p = bench->atb;
    p.set_timing(BufferTiming::At);
    sc_time t0 = sc_time_stamp();
    p.write(0x100, 64);
    p.write(0x140, 64);
    sc_core::sc_start(sc_time(1, sc_core::SC_US));
    assert_int_equal(p.done.size(), 2u);
    assert_true(p.done[0].at == t0 + sc_time(30, SC_NS));
    assert_true(p.done[1].at == t0 + sc_time(30, SC_NS));
    assert_int_equal(bench->bridge.stats().transactions, 2);
    assert_int_equal(bench->atb_t.mem[0x140], 0xA5);
}

// Memory: writes take write_latency (200 ns), reads latency (20 ns); DMI grants carry both.
void test_memory_write_latency(void **)
{
    sc_core::sc_start(sc_time(1, sc_core::SC_US));
    uint8_t buf[64] = {0};
    sc_time d = SC_ZERO_TIME;
    bench->a.access(nullptr, DRAM_BASE, buf, 64, true, d);
    assert_true(d == sc_time(214, SC_NS)); // bus 10 + 64 B at 16 B/ns + 200
    d = sc_time(100, SC_NS); // after the write's transfer
    bench->a.access(nullptr, DRAM_BASE + 0x1000, buf, 64, false, d);
    assert_true(d == sc_time(134, SC_NS));
    tlm::tlm_generic_payload gp;
    tlm::tlm_dmi dmi;
    gp.set_address(DRAM_BASE);
    assert_true(bench->a.sock->get_direct_mem_ptr(gp, dmi));
    assert_true(dmi.get_write_latency() == sc_time(210, SC_NS)); // bus + memory write latency
    assert_true(dmi.get_read_latency() == sc_time(30, SC_NS));
}

// The bus books transfers by arrival time, not call order: a decoupled initiator 100 ns ahead
// does not delay one that arrives now; one that arrives during its transfer waits for it.
void test_bus_books_by_arrival(void **)
{
    sc_core::sc_start(sc_time(1, sc_core::SC_US));
    uint8_t buf[256] = {0};
    Bus::Stats before = bench->bus.target_stats(0);
    sc_time da(100, SC_NS), db = SC_ZERO_TIME, dc(102, SC_NS);
    bench->a.access(nullptr, DRAM_BASE, buf, 256, false, da);          // transfer [110, 126)
    bench->b.access(nullptr, DRAM_BASE + 0x1000, buf, 256, false, db); // [10, 26): no wait
    assert_true(da == sc_time(100 + 10 + 16 + 20, SC_NS));
    assert_true(db == sc_time(10 + 16 + 20, SC_NS));
    bench->b.access(nullptr, DRAM_BASE + 0x2000, buf, 256, false, dc); // arrives 112: waits to 126
    assert_true(dc == sc_time(126 + 16 + 20, SC_NS));
    const Bus::Stats &after = bench->bus.target_stats(0);
    assert_true(after.wait - before.wait == sc_time(14, SC_NS));
    assert_true(after.wait_max == sc_time(14, SC_NS));
}

// Queued time is the time some transfer waited, not the sum: eight transfers arriving together
// at a 16 B/ns port wait 0, 16, ..., 112 ns (sum 448 ns) but the port had a queue for 112 ns.
void test_bus_queued_time_is_wall_time(void **)
{
    sc_core::sc_start(sc_time(1, sc_core::SC_US));
    uint8_t buf[256] = {0};
    Bus::Stats before = bench->bus.target_stats(0);
    for (unsigned i = 0; i < 8; i++) {
        sc_time d = SC_ZERO_TIME;
        bench->a.access(nullptr, DRAM_BASE + 0x1000 * i, buf, 256, false, d);
        assert_true(d == sc_time(10 + 16.0 * i + 16 + 20, SC_NS));
    }
    const Bus::Stats &after = bench->bus.target_stats(0);
    assert_true(after.wait - before.wait == sc_time(112, SC_NS));
    assert_true(after.wait_sum - before.wait_sum == sc_time(448, SC_NS));
}

} // namespace

int sc_main(int, char **)
{
    Bench b;
    bench = &b;
    sc_core::sc_start(SC_ZERO_TIME);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interval_set),
        cmocka_unit_test(test_lt_latency_from_annotated_delay),
        cmocka_unit_test(test_lt_dmi_write_latency),
        cmocka_unit_test(test_at_end_req_back_pressure),
        cmocka_unit_test(test_at_begin_req_at_unit_time),
        cmocka_unit_test(test_at_answers_in_issue_order),
        cmocka_unit_test(test_at_bridge),
        cmocka_unit_test(test_memory_write_latency),
        cmocka_unit_test(test_bus_books_by_arrival),
        cmocka_unit_test(test_bus_queued_time_is_wall_time),
    };
    return cmocka_run_group_tests_name("platform_timing", tests, nullptr, nullptr);
}
