// SPDX-License-Identifier: Apache-2.0
// bench_platform.cpp: population ops per host second of the default scenario, SPU buffer writes per second (DMI + quantum keeper) and a bare TLM DMI write loop as yardstick.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <unistd.h>
#include <vector>
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

// Child of timing_ratio(): the default scenario without DMI, memory timing `mode` (lt | off);
// prints the host seconds of the run (elaboration and process start excluded).
int timing_run(const std::string &mode)
{
    Scenario sc; // the built-in default scenario, longer (as the figures above)
    sc.ops = 200000000;
    sc.dmi = false;
    sc.timing = mode;
    Platform p(sc);
    double t0 = now_s();
    p.run();
    double host = now_s() - t0;
    spu_stats st;
    spu_get_stats(p.spu(0).unit(), &st);
    std::printf("%.6f %llu %llu\n", host, (unsigned long long)st.population, (unsigned long long)st.writes_issued);
    return 0;
}

bool run_child(const char *mode, double &sec)
{
    char cmd[256];
    std::snprintf(cmd, sizeof cmd, "/proc/%d/exe --timing-run %s", (int)getpid(), mode);
    FILE *f = popen(cmd, "r");
    if (!f)
        return false;
    unsigned long long pop = 0, writes = 0;
    bool ok = std::fscanf(f, "%lf %llu %llu", &sec, &pop, &writes) == 3;
    return pclose(f) == 0 && ok && sec > 0;
}

// The default scenario, no DMI, with memory timing (timing: lt) and functional (timing: off),
// one process each, in alternating pairs (lt off, off lt, ...) so a change of machine speed hits
// both alike; the figure is the per-pair time ratio lt / off, min / median / max.
int timing_ratio(unsigned rounds)
{
    std::vector<double> ratio, lt, off;
    for (unsigned r = 0; r < rounds; r++) {
        double a = 0, b = 0;
        bool ok = r % 2 ? run_child("off", b) && run_child("lt", a) : run_child("lt", a) && run_child("off", b);
        if (!ok) {
            std::fprintf(stderr, "bench-platform: a --timing-run child failed\n");
            return 1;
        }
        lt.push_back(a);
        off.push_back(b);
        ratio.push_back(a / b);
    }
    std::vector<double> s = ratio;
    std::sort(s.begin(), s.end());
    double med = s.size() % 2 ? s[s.size() / 2] : (s[s.size() / 2 - 1] + s[s.size() / 2]) / 2;
    std::sort(lt.begin(), lt.end());
    std::sort(off.begin(), off.end());
    std::printf("default scenario, no DMI: memory timing on (lt) vs functional (off), %u alternating pairs\n", rounds);
    std::printf("  host seconds: lt median %.3f, off median %.3f\n", lt[lt.size() / 2], off[off.size() / 2]);
    std::printf("  time ratio lt/off: min %.3f, median %.3f, max %.3f (target <= 2)\n", s.front(), med, s.back());
    return 0;
}

} // namespace

// bench-platform: all figures. bench-platform --loop port|bare [--writes N]: only that write
// loop (after a short default scenario that sets up translation and DMI), for timing the two
// processes against each other from outside (scripts/bench.sh: hyperfine).
// bench-platform --timing [--rounds N]: only the memory-timing ratio.
int sc_main(int argc, char **argv)
{
    std::string loop;
    bool timing_only = false;
    unsigned rounds = 11;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--loop" && i + 1 < argc && (std::string(argv[i + 1]) == "port" || std::string(argv[i + 1]) == "bare"))
            loop = argv[++i];
        else if (a == "--writes" && i + 1 < argc)
            WRITES = std::strtoull(argv[++i], nullptr, 0);
        else if (a == "--timing-run" && i + 1 < argc && (std::string(argv[i + 1]) == "lt" || std::string(argv[i + 1]) == "off"))
            return timing_run(argv[i + 1]);
        else if (a == "--timing")
            timing_only = true;
        else if (a == "--rounds" && i + 1 < argc && std::atoi(argv[i + 1]) > 0)
            rounds = (unsigned)std::atoi(argv[++i]);
        else {
            std::fprintf(stderr, "usage: bench-platform [--loop port|bare] [--writes N] [--timing] [--rounds N]\n");
            return 2;
        }
    }
    if (timing_only)
        return timing_ratio(rounds);
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
    return timing_ratio(rounds);
}
