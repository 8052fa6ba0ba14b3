// SPDX-License-Identifier: Apache-2.0
// bench_platform.cpp: population ops per host second of the default scenario, SPU buffer writes per second (DMI + quantum keeper) and a bare TLM DMI write loop as yardstick.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <systemc>
#include <tlm_utils/tlm_quantumkeeper.h>

#include "soc.h"

using namespace armprof;
using namespace sc_core;

namespace {

uint64_t WRITES = 20000000;

double now_s()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// After the scenario: 64-byte writes through PE 0's SPU memory port (regime, SMMU, DMI), and
// the same count of 64-byte memcpy's into a DMI pointer, each with a quantum keeper.
struct WriteBench : sc_module {
    Platform *p = nullptr;
    bool do_port = true, do_bare = true;
    sc_event go;
    double port_rate = 0, bare_rate = 0;
    SC_HAS_PROCESS(WriteBench);
    explicit WriteBench(sc_module_name n) : sc_module(n) { SC_THREAD(run); }
    // The two loops run in ROUNDS alternating chunks, so a change of machine speed during the
    // run hits both alike; each rate is its writes over the sum of its chunks' times.
    static constexpr unsigned ROUNDS = 10;
    void run()
    {
        wait(go);
        uint8_t rec[64];
        std::memset(rec, 0x5A, sizeof rec);
        SpuModule &s = p->spu(0);
        armprof_regime rg = p->regime(0);
        uint64_t base = p->buffer_va(0), size = p->scenario().buffer_bytes;
        // Yardstick: the DMI pointer of the same memory, no wrapper, no translation.
        tlm::tlm_generic_payload gp;
        tlm::tlm_dmi dmi;
        gp.set_address(p->buffer_pa(0));
        p->smmu().isock->get_direct_mem_ptr(gp, dmi);
        uint8_t *ptr = dmi.get_dmi_ptr() + (p->buffer_pa(0) - dmi.get_start_address());
        tlm_utils::tlm_quantumkeeper qk;
        uint64_t chunk = WRITES / ROUNDS, bad = 0, poff = 0, boff = 0;
        double port_s = 0, bare_s = 0;
        for (unsigned r = 0; r < ROUNDS; r++) {
            qk.reset();
            double t0 = now_s();
            for (uint64_t i = 0; do_port && i < chunk; i++) {
                if (s.port_write(base + poff, rec, 64, rg).status != ARMPROF_MEM_OK)
                    bad++;
                poff = (poff + 64) % size;
                qk.inc(sc_time(1, SC_NS));
                if (qk.need_sync())
                    qk.sync();
            }
            port_s += now_s() - t0;
            qk.reset();
            t0 = now_s();
            for (uint64_t i = 0; do_bare && i < chunk; i++) {
                std::memcpy(ptr + boff, rec, 64);
                boff = (boff + 64) % size;
                qk.inc(sc_time(1, SC_NS));
                if (qk.need_sync())
                    qk.sync();
            }
            bare_s += now_s() - t0;
        }
        port_rate = do_port ? chunk * ROUNDS / port_s : 0;
        bare_rate = do_bare ? chunk * ROUNDS / bare_s : 0;
        if (bad)
            std::printf("  (%llu writes failed)\n", (unsigned long long)bad);
        sc_stop();
    }
};

} // namespace

// bench-platform: all figures. bench-platform --loop port|bare [--writes N]: only that write
// loop (after a short default scenario that sets up translation and DMI), for timing the two
// processes against each other from outside (scripts/bench.sh: hyperfine).
int sc_main(int argc, char **argv)
{
    std::string loop;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--loop" && i + 1 < argc && (std::string(argv[i + 1]) == "port" || std::string(argv[i + 1]) == "bare"))
            loop = argv[++i];
        else if (a == "--writes" && i + 1 < argc)
            WRITES = std::strtoull(argv[++i], nullptr, 0);
        else {
            std::fprintf(stderr, "usage: bench-platform [--loop port|bare] [--writes N]\n");
            return 2;
        }
    }
    Scenario sc; // the built-in default scenario, longer
    sc.ops = loop.empty() ? 500000000 : 1000000;
    Platform p(sc);
    WriteBench wb("write_bench");
    wb.p = &p;
    if (!loop.empty()) {
        wb.do_port = loop == "port";
        wb.do_bare = loop == "bare";
        p.run();
        wb.go.notify(SC_ZERO_TIME);
        sc_start();
        std::printf("%s loop: %.1f M writes/s\n", loop.c_str(), (loop == "port" ? wb.port_rate : wb.bare_rate) / 1e6);
        return 0;
    }
    double t0 = now_s();
    p.run();
    double host = now_s() - t0;
    spu_stats st;
    spu_get_stats(p.spu(0).unit(), &st);
    wb.go.notify(SC_ZERO_TIME);
    sc_start();
    std::printf("default scenario: %.0f M population ops/s host (%llu ops in %.2f s; target >= 100 M/s)\n",
                st.population / host / 1e6, (unsigned long long)st.population, host);
    std::printf("SPU buffer writes via SMMU+DMI+quantum keeper: %.1f M writes/s\n", wb.port_rate / 1e6);
    std::printf("bare TLM DMI write loop (yardstick):           %.1f M writes/s\n", wb.bare_rate / 1e6);
    std::printf("ratio %.2f (target >= 0.5); SMMU DMI grants %llu, TLM writes %llu\n", wb.port_rate / wb.bare_rate,
                (unsigned long long)p.smmu().stats().dmi_grants, (unsigned long long)p.spu(0).stats().tlm_writes);
    return 0;
}
