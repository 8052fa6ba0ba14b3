// SPDX-License-Identifier: Apache-2.0
// main.cpp: bench-cosim: the C model's spu_cycle() beside the Verilated counter/FIFO RTL (lockstep and coverage builds), same stimulus.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cosim.h"
#include "stimulus.h"

namespace {

// The C model's cycle step alone over a prepared stimulus: the operations are turned into ready
// spu_op arrays beforehand, so the timed loop is spu_set_drain_stall(), spu_cycle() and
// spu_get_probe() per cycle. Cycles with register writes or enable toggles (a few per thousand)
// go through ModelSide::step_lean(), which applies them. The operations have one shape (a load
// with VA, PA and translation latency); PC and latencies come from the stimulus.
struct ModelStep {
    std::vector<spu_op> ops;
    std::vector<uint32_t> first;

    explicit ModelStep(const std::vector<apcosim::CycleIn> &ins) : first(ins.size() + 1)
    {
        spu_op op{};
        op.op_class = SPE_CLASS_LDST;
        op.flags = SPU_OP_HAS_VA | SPU_OP_HAS_PA | SPU_OP_HAS_XLAT;
        op.data_va = 0x7F00'0000'1000ull;
        op.data_pa = 0x8000'1000ull;
        for (size_t t = 0; t < ins.size(); t++) {
            first[t] = (uint32_t)ops.size();
            for (unsigned i = 0; i < apcosim::kLanes; i++)
                if (ins[t].valid & (1u << i)) {
                    op.pc = apcosim::Stimulus::kPcBase + 4 * ins[t].op[i];
                    op.total_lat = ins[t].lat[i];
                    op.issue_lat = ins[t].lat[i] / 2u;
                    op.xlat_lat = ins[t].lat[i] / 4u;
                    ops.push_back(op);
                }
        }
        first[ins.size()] = (uint32_t)ops.size();
    }

    double cps(const apcosim::Config &cfg, const std::vector<apcosim::CycleIn> &ins) const
    {
        apcosim::ModelSide m(cfg);
        spu_t *spu = m.spu();
        spu_probe probe;
        uint64_t check = 0;
        auto t0 = std::chrono::steady_clock::now();
        for (size_t t = 0; t < ins.size(); t++) {
            const apcosim::CycleIn &in = ins[t];
            if (in.irr_we | in.icr_we | (in.toggle >= 0) | in.psb) {
                m.step_lean(in, probe);
            } else {
                spu_set_drain_stall(spu, in.stall);
                spu_cycle(spu, ops.data() + first[t], first[t + 1] - first[t], nullptr);
                spu_get_probe(spu, &probe);
            }
            check += probe.fifo_level;
        }
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (check == 1) // keeps the probe reads; never true in practice
            std::printf(" ");
        return (double)ins.size() / s;
    }
};

// The model with the harness's per-cycle work: ModelSide::step_lean() builds each cycle's
// operations from the stimulus.
double harness_cps(const apcosim::Config &cfg, const std::vector<apcosim::CycleIn> &ins)
{
    apcosim::ModelSide m(cfg);
    spu_probe probe;
    auto t0 = std::chrono::steady_clock::now();
    for (const apcosim::CycleIn &in : ins)
        m.step_lean(in, probe);
    return (double)ins.size() / std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

std::string mmm(const std::vector<double> &v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f/%.2f/%.2fx", *std::min_element(v.begin(), v.end()), median(v),
                  *std::max_element(v.begin(), v.end()));
    return buf;
}

} // namespace

int main(int argc, char **argv)
{
    uint64_t cycles = 400000;
    int rounds = 9;
    if (argc > 3 || (argc >= 2 && !(argv[1][0] >= '0' && argv[1][0] <= '9')) ||
        (argc == 3 && !(argv[2][0] >= '0' && argv[2][0] <= '9'))) {
        std::fprintf(stderr, "usage: bench-cosim [CYCLES [ROUNDS]]   (cycles per measurement, default 400000;\n"
                             "                                     paired rounds, default 9)\n");
        return 2;
    }
    if (argc >= 2) {
        char *end = nullptr;
        cycles = strtoull(argv[1], &end, 0);
        if (*end || cycles == 0) {
            std::fprintf(stderr, "bench-cosim: CYCLES must be a positive number, not '%s'\n", argv[1]);
            return 2;
        }
    }
    if (argc == 3) {
        rounds = atoi(argv[2]);
        if (rounds < 1) {
            std::fprintf(stderr, "bench-cosim: ROUNDS must be a positive number, not '%s'\n", argv[2]);
            return 2;
        }
    }
    // Two stimulus mixes: the default (every knob moving, short intervals) and a sparse one
    // nearer a real workload (PMSIRR_EL1.INTERVAL up to 16, i.e. 4096-op intervals).
    struct Mix {
        const char *name;
        apcosim::Config cfg;
    } mixes[2];
    mixes[0].name = "busy (4 lanes, interval <= 512 ops)";
    mixes[1].name = "sparse (4 lanes, interval <= 4096 ops)";
    mixes[1].cfg.interval_max = 16;
    // Each round times, back to back and in an order that alternates between rounds, the C
    // model's step, the model with the harness, and three builds of the RTL: plain (the design,
    // no assertions: the yardstick), lockstep (assertions checked, as every co-simulation runs
    // it) and coverage (line, toggle and cover points: the nightly's); the ratios are taken per
    // round and reported as min / median / max over the rounds.
    std::printf("%-40s %8s %8s %8s %8s %8s\n", "M cycles/s (medians)", "step", "+harn", "RTL",
                "RTL+sva", "RTL+cov");
    std::vector<std::string> lines;
    bool met = true;
    for (const Mix &m : mixes) {
        const std::vector<apcosim::CycleIn> ins = apcosim::bench_stimulus(m.cfg, 42, cycles);
        const ModelStep step(ins);
        std::vector<double> st, hn, rp, rl, rc, r_step, r_harn, sva_cost, cov_cost;
        for (int rep = 0; rep < rounds; rep++) {
            double a = 0, h = 0, p = 0, l = 0, c = 0;
            auto model = [&]() {
                a = step.cps(m.cfg, ins);
                h = harness_cps(m.cfg, ins);
            };
            auto rtl = [&]() {
                p = apcosim::bench_rtl(ins, m.cfg, apcosim::RtlBuild::Plain);
                l = apcosim::bench_rtl(ins, m.cfg, apcosim::RtlBuild::Lockstep);
                c = apcosim::bench_rtl(ins, m.cfg, apcosim::RtlBuild::Coverage);
            };
            if (rep % 2 == 0) {
                model();
                rtl();
            } else {
                rtl();
                model();
            }
            st.push_back(a);
            hn.push_back(h);
            rp.push_back(p);
            rl.push_back(l);
            rc.push_back(c);
            r_step.push_back(a / p);
            r_harn.push_back(h / p);
            sva_cost.push_back(p / l);
            cov_cost.push_back(p / c);
        }
        std::printf("%-40s %8.2f %8.2f %8.2f %8.2f %8.2f\n", m.name, median(st) / 1e6, median(hn) / 1e6,
                    median(rp) / 1e6, median(rl) / 1e6, median(rc) / 1e6);
        char b[400];
        std::snprintf(b, sizeof b, "%-40s step/RTL %s%s  (+harn)/RTL %s\n%-40s RTL+sva %s slower than RTL, RTL+cov %s",
                      m.name, mmm(r_step).c_str(), median(r_step) >= 5.0 ? "" : " BELOW 5x", mmm(r_harn).c_str(),
                      "", mmm(sva_cost).c_str(), mmm(cov_cost).c_str());
        lines.push_back(b);
        met = met && median(r_step) >= 5.0;
    }
    std::printf("ratios min/median/max over %d paired rounds of %llu cycles (target: step/RTL >= 5x at the "
                "median):\n",
                rounds, (unsigned long long)cycles);
    for (const std::string &l : lines)
        std::printf("%s\n", l.c_str());
    std::printf("step: the C model's spu_cycle() on prepared operations; +harn: with the harness building them\n"
                "(ModelSide::step_lean); RTL: the Verilated RTL as a design (no assertions); RTL+sva: the\n"
                "lockstep build (assertions checked); RTL+cov: the coverage build (line, toggle, cover points).\n");
    std::printf("target %s\n", met ? "met" : "NOT met");
    return 0;
}
