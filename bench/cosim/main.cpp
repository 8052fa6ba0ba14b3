// SPDX-License-Identifier: Apache-2.0
// main.cpp: bench-cosim: the C model's spu_cycle() beside the Verilated counter/FIFO RTL, same stimulus.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cosim.h"
#include "stimulus.h"

namespace {

// The C model's cycle step alone: the stimulus is generated first (as apcosim::bench does) and
// turned into ready spu_op arrays, so the timed loop is spu_set_drain_stall(), spu_cycle() and
// spu_get_probe() per cycle. Cycles with register writes or enable toggles (a few per thousand)
// go through ModelSide::step_lean(), which applies them. The operations have one shape (a load
// with VA, PA and translation latency); PC and latencies come from the stimulus.
double model_step_cps(const apcosim::Config &cfg, uint64_t seed, uint64_t cycles)
{
    std::vector<apcosim::CycleIn> ins(cycles);
    apcosim::Stimulus stim(cfg, seed);
    for (uint64_t t = 0; t < cycles; t++)
        stim.next(ins[t]);
    std::vector<spu_op> ops;
    std::vector<uint32_t> first(cycles + 1);
    spu_op op{};
    op.op_class = SPE_CLASS_LDST;
    op.flags = SPU_OP_HAS_VA | SPU_OP_HAS_PA | SPU_OP_HAS_XLAT;
    op.data_va = 0x7F00'0000'1000ull;
    op.data_pa = 0x8000'1000ull;
    for (uint64_t t = 0; t < cycles; t++) {
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
    first[cycles] = (uint32_t)ops.size();
    apcosim::ModelSide m(cfg);
    spu_t *spu = m.spu();
    spu_probe probe;
    uint64_t check = 0;
    auto t0 = std::chrono::steady_clock::now();
    for (uint64_t t = 0; t < cycles; t++) {
        const apcosim::CycleIn &in = ins[t];
        if (in.irr_we | in.icr_we | (in.toggle >= 0)) {
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
    return (double)cycles / s;
}

} // namespace

int main(int argc, char **argv)
{
    uint64_t cycles = 400000;
    if (argc > 2 || (argc == 2 && !(argv[1][0] >= '0' && argv[1][0] <= '9'))) {
        std::fprintf(stderr, "usage: bench-cosim [CYCLES]   (cycles per measurement, default 400000)\n");
        return 2;
    }
    if (argc == 2) {
        char *end = nullptr;
        cycles = strtoull(argv[1], &end, 0);
        if (*end || cycles == 0) {
            std::fprintf(stderr, "bench-cosim: CYCLES must be a positive number, not '%s'\n", argv[1]);
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
    // "C model + harness" is apcosim::bench's figure: ModelSide::step_lean() per cycle, which also
    // builds the cycle's spu_op array from the stimulus. "C model step" times the model alone
    // (model_step_cps above). The RTL figure is the Verilated model driven by the same stimulus.
    std::printf("%-40s %14s %14s %12s %8s %8s\n", "stimulus", "C model step", "C + harness",
                "RTL", "ratio", "(+harn)");
    for (const Mix &m : mixes) {
        apcosim::BenchResult best;
        double step_best = 0;
        for (int rep = 0; rep < 3; rep++) {
            apcosim::BenchResult b = apcosim::bench(m.cfg, 42, cycles);
            if (b.model_cps > best.model_cps)
                best.model_cps = b.model_cps;
            if (b.rtl_cps > best.rtl_cps)
                best.rtl_cps = b.rtl_cps;
            double sc = model_step_cps(m.cfg, 42, cycles);
            if (sc > step_best)
                step_best = sc;
        }
        std::printf("%-40s %13.2fM %13.2fM %11.2fM %7.1fx %7.1fx\n", m.name, step_best / 1e6,
                    best.model_cps / 1e6, best.rtl_cps / 1e6, step_best / best.rtl_cps,
                    best.model_cps / best.rtl_cps);
    }
    std::printf("cycles/s, best of 3, %llu cycles each; ratio = C model step / RTL (target >= 5x)\n",
                (unsigned long long)cycles);
    return 0;
}
