// SPDX-License-Identifier: Apache-2.0
// test_platform_pe_group.cpp: PeGroup (pe_group.h): elided waits change nothing, one PE runs as in its own thread, PEs due at the same time run in PE order, and a target that waits on a PE's path is an error.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

#include <tlm_utils/simple_target_socket.h>

#include "soc.h"

extern "C" {
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h> // last: its fail() macro would clash with the C++ library
}

using namespace armprof;

namespace {

std::string trace_path;

// FNV-1a, 64 bits.
struct Digest {
    uint64_t h = 0xcbf29ce484222325ull;
    void add(const void *p, size_t n)
    {
        const uint8_t *b = static_cast<const uint8_t *>(p);
        for (size_t i = 0; i < n; i++)
            h = (h ^ b[i]) * 0x100000001b3ull;
    }
    void add(uint64_t v) { add(&v, sizeof v); }
};

// The same operations for every PE: `lines` loads and others, so that with a fixed interval
// (RND = 0) every PE samples, completes and writes its records at the same cycles.
void write_trace(const char *path, unsigned lines)
{
    FILE *f = std::fopen(path, "w");
    if (!f)
        std::exit(4);
    wl_trace_write_header(f);
    for (unsigned i = 0; i < lines; i++) {
        spu_op op{};
        op.pc = 0xffff800000400000ull + 4ull * i;
        op.total_lat = 5 + i % 7;
        op.issue_lat = 1;
        if (i % 2 == 0) {
            op.op_class = SPE_CLASS_LDST;
            op.data_va = 0x0000ffff00000000ull + 64ull * i;
            op.flags = SPU_OP_HAS_VA;
        } else {
            op.op_class = SPE_CLASS_OTHER;
        }
        if (wl_trace_write_op(f, &op))
            std::exit(4);
    }
    if (std::fclose(f))
        std::exit(4);
}

/*
 * Child (SystemC elaborates once per process): `--child VARIANT ELIDE THREADS` runs one
 * platform and prints one line: a digest of everything the run produced (each PE's dump, the
 * units' statistics, the PMU counts, the bus's, the end time), the waits the group elided, the
 * records written, then each PE's bus queueing (sum over its writes, ps).
 *  - contended: 4 PEs, every write through the SMMU and the bus (no DMI), a slow memory shared
 *    with background traffic, a small record FIFO: the PEs' order matters to the results.
 *  - alone: 1 PE with the same memory system and traffic.
 *  - tied: 4 PEs replaying one trace with a fixed interval, no DMI, no traffic: their writes
 *    reach the bus at the same times, so the first to make them is served first.
 */
int child(const std::string &variant, bool elide, bool threads)
{
    Scenario sc;
    sc.pes = 4;
    sc.ops = 300000;
    sc.seed = 5;
    sc.dmi = false;
    sc.timing = "lt";
    sc.interval = 256;
    sc.pe_threads = threads;
    if (variant == "tied") {
        sc.rnd = false;
        sc.workload.trace = trace_path;
        sc.workload.repeat = 20;
        sc.mem_write_latency_ns = 60;
    } else {
        sc.pes = variant == "alone" ? 1 : 4;
        sc.ops_per_cycle = 2;
        sc.fifo_bytes = 512;
        sc.write_bytes = 64;
        sc.mem_write_latency_ns = 200;
        sc.traffic.share = 0.5;
        sc.traffic.burst_bytes = 256;
        sc.traffic.seed = 7;
    }
    Platform p(sc);
    p.set_elide_waits(elide);
    p.run();
    Digest d;
    uint64_t written = 0;
    for (unsigned i = 0; i < sc.pes; i++) {
        const std::vector<uint8_t> &dump = p.spe_dump(i);
        d.add(dump.size());
        d.add(dump.data(), dump.size());
        spu_stats st;
        spu_get_stats(p.spu(i).unit(), &st);
        for (uint64_t v : {st.records_written, st.records_discarded, st.collisions, st.feed, st.bytes_written,
                           st.write_latency_sum, st.writer_stall_cycles, st.fifo_bytes_max,
                           st.writes_answered})
            d.add(v);
        written += st.records_written;
        for (uint16_t ev : p.pmu_events()) {
            uint64_t n = 0;
            for (unsigned c = 0; c < p.pmu_events().size(); c++)
                if (p.pmu_events()[c] == ev)
                    pmu_reg_read(p.pmu(i).unit(), PMU_PMEVCNTR_EL0(c), &n);
            d.add(n);
        }
        d.add(p.pe(i).ops_done());
    }
    const Bus::Stats &bs = p.bus().target_stats(0);
    for (uint64_t v : {(uint64_t)bs.transactions, (uint64_t)bs.bytes, (uint64_t)bs.busy.value(), (uint64_t)bs.wait.value(),
                       (uint64_t)bs.wait_sum.value()})
        d.add(v);
    d.add(sc_core::sc_time_stamp().value());
    std::printf("%016llx %llu %llu", (unsigned long long)d.h,
                (unsigned long long)(p.pe_group() ? p.pe_group()->elided() : 0), (unsigned long long)written);
    for (unsigned i = 0; i < sc.pes; i++) {
        auto it = p.bus().requester_stats().find(Bus::requester_key(i, ARMPROF_UNIT_SPU));
        std::printf(" %llu", (unsigned long long)(it == p.bus().requester_stats().end() ? 0 : it->second.wait_sum.value()));
    }
    std::printf("\n");
    return 0;
}

// A buffer memory whose b_transport waits (allowed in LT, but not on a PE group's path).
struct WaitingMemory : sc_core::sc_module {
    tlm_utils::simple_target_socket<WaitingMemory> sock{"sock"};
    std::vector<uint8_t> mem = std::vector<uint8_t>(0x10000);
    explicit WaitingMemory(sc_core::sc_module_name n) : sc_module(n)
    {
        sock.register_b_transport(this, &WaitingMemory::bt);
    }
    void bt(tlm::tlm_generic_payload &t, sc_core::sc_time &d)
    {
        sc_core::wait(d + sc_core::sc_time(5, sc_core::SC_NS));
        d = sc_core::SC_ZERO_TIME;
        std::memcpy(mem.data() + (t.get_address() & 0xFFFF), t.get_data_ptr(), t.get_data_length());
        t.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

/*
 * Child `--child waits`: one PE in a PeGroup whose SPU writes its buffer into a memory that
 * waits in b_transport. The group must stop with its error (armprof/pe_group) naming the PE,
 * not run its other PEs behind SystemC. Prints the report's message type and text.
 */
int child_waits()
{
    spu_config cfg;
    spu_config_default(&cfg);
    SpuModule spu("spu0", cfg, sc_core::sc_time(1, sc_core::SC_NS));
    spu.set_timing(BufferTiming::Lt);
    spu.set_dmi(false);
    WaitingMemory mem("mem");
    spu.mem.bind(mem.sock);
    sc_core::sc_signal<bool, sc_core::SC_MANY_WRITERS> irq("pmbirq");
    spu.irq.bind(irq);
    armprof_pe_ctx ctx;
    armprof_pe_ctx_default(&ctx);
    spu.set_pe_context(ctx);
    SpeAgent::Config ac;
    ac.base = 0x10000000;
    ac.size = 0x4000;
    ac.interval = 256;
    SpeAgent agent(
        ac, [&](uint32_t e, uint64_t *v) { return spu.reg_read(e, v); },
        [&](uint32_t e, uint64_t v) { return spu.reg_write(e, v); }, [&] { spu.psb_csync(); },
        [](uint64_t, uint8_t *, size_t) { return (size_t)0; }, [](const uint8_t *, size_t) {});
    Pe::Config pc;
    pc.ops = 100000;
    pc.own_thread = false;
    wl_config_default(&pc.wl);
    Pe pe("pe0", pc, spu, agent);
    PeGroup group("pes", {&pe}, pc.quantum);
    try {
        sc_core::sc_start();
    } catch (const sc_core::sc_report &r) {
        std::printf("%s: %s\n", r.get_msg_type(), r.get_msg());
        return 0;
    }
    std::printf("no error\n");
    return 0;
}

struct Run {
    std::string digest;
    unsigned long long elided = 0, written = 0;
    unsigned long long wait[4] = {0, 0, 0, 0};
};

Run run_child(const char *variant, bool elide, bool threads)
{
    char cmd[1400];
    std::snprintf(cmd, sizeof cmd, "/proc/%d/exe --child %s %d %d %s", (int)getpid(), variant, elide ? 1 : 0,
                  threads ? 1 : 0, trace_path.c_str());
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    char line[512] = "";
    assert_non_null(std::fgets(line, sizeof line, f));
    assert_int_equal(pclose(f), 0);
    Run r;
    char dg[32];
    int n = std::sscanf(line, "%20s %llu %llu %llu %llu %llu %llu", dg, &r.elided, &r.written, &r.wait[0], &r.wait[1],
                        &r.wait[2], &r.wait[3]);
    assert_true(n >= 4);
    r.digest = dg;
    assert_true(r.written > 100);
    return r;
}

// Elided waits are only made where no other process could run in between: the contended run
// (bus, traffic, collisions) gives the same bytes and statistics with every wait made.
void test_elided_waits_change_nothing(void **)
{
    Run on = run_child("contended", true, false), off = run_child("contended", false, false);
    assert_true(on.elided > 0);
    assert_int_equal(off.elided, 0);
    assert_string_equal(on.digest.c_str(), off.digest.c_str());
}

// One PE (with background traffic on the bus) runs in the group exactly as in its own thread:
// the group makes the PE's waits, nothing else.
void test_one_pe_as_in_its_own_thread(void **)
{
    Run group = run_child("alone", true, false), thread = run_child("alone", true, true);
    assert_int_equal(thread.elided, 0);
    assert_string_equal(group.digest.c_str(), thread.digest.c_str());
}

// PEs due at the same time run in PE order: with the same operations, their writes reach the
// bus at the same times, and the lower-numbered PE books its slots first every time, so each
// PE queues longer than the one before it. (With a thread per PE the order was the timed-event
// heap's: on this scenario PE 3 first and PE 0 last.)
void test_equal_times_in_pe_order(void **)
{
    Run r = run_child("tied", true, false);
    for (int i = 1; i < 4; i++)
        assert_true(r.wait[i] > r.wait[i - 1]);
    // The same with every wait made.
    Run off = run_child("tied", false, false);
    assert_string_equal(r.digest.c_str(), off.digest.c_str());
}

// A target on a PE's path that waits (allowed in LT b_transport) would let the group's other
// PEs run behind SystemC time: the group stops with an error that names the PE and the way out.
void test_waiting_target_is_an_error(void **)
{
    char cmd[600];
    std::snprintf(cmd, sizeof cmd, "/proc/%d/exe --child waits 2>/dev/null", (int)getpid());
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    char line[1024] = "";
    assert_non_null(std::fgets(line, sizeof line, f));
    assert_int_equal(pclose(f), 0);
    assert_non_null(std::strstr(line, "armprof/pe_group: SystemC time moved while pe0 ran in the PE group"));
    assert_non_null(std::strstr(line, "pe_threads: true"));
}

} // namespace

int sc_main(int argc, char **argv)
{
    if (argc == 3 && std::strcmp(argv[1], "--child") == 0 && std::strcmp(argv[2], "waits") == 0)
        return child_waits();
    if (argc == 6 && std::strcmp(argv[1], "--child") == 0) {
        trace_path = argv[5];
        return child(argv[2], std::atoi(argv[3]) != 0, std::atoi(argv[4]) != 0);
    }
    char path[] = "/tmp/test_pe_group_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 1;
    close(fd);
    trace_path = path;
    write_trace(path, 4096);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_elided_waits_change_nothing),
        cmocka_unit_test(test_one_pe_as_in_its_own_thread),
        cmocka_unit_test(test_equal_times_in_pe_order),
        cmocka_unit_test(test_waiting_target_is_an_error),
    };
    int rc = cmocka_run_group_tests_name("platform_pe_group", tests, nullptr, nullptr);
    unlink(path);
    return rc;
}
