// SPDX-License-Identifier: Apache-2.0
// cosim.h: lockstep co-simulation of the Verilated counter/FIFO RTL against the C model.
#ifndef ARMPROF_COSIM_H
#define ARMPROF_COSIM_H

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "stimulus.h"

namespace apcosim {

struct Options {
    uint64_t seed = 1;
    uint64_t cycles = 100000;
    bool cfg_from_seed = true;       // draw the Config from the seed (else use `cfg`)
    Config cfg;
    // Config fields set by name after the seed's draw (config_set), e.g. {"ernd", "1"}
    std::vector<std::pair<std::string, std::string>> overrides;
    ModelSide::Perturb perturb = ModelSide::PERTURB_NONE;
    // Waveforms
    bool trace = false;              // dump the whole run to <waves_dir>/<run_name>.fst
    bool vcd = false;                // also convert the dump to .vcd (fst2vcd)
    std::string waves_dir;           // default: ARMPROF_WAVES_DIR (the source tree's waves/)
    std::string run_name;            // default: cosim-seed<seed>
    bool wave_on_mismatch = true;    // rerun and dump the cycles around a mismatch
    uint32_t wave_before = 64, wave_after = 8;
    bool quiet = true;
    // Internal (the mismatch rerun): dump only cycles [trace_from, trace_to], run until trace_to
    bool window = false;
    uint64_t trace_from = 0, trace_to = 0;
};

struct Result {
    bool ok = false;                 // every cycle matched
    bool harness_error = false;      // the run could not be made (bad config, model error)
    std::string message;             // one line: "matched N cycles" or the mismatch
    uint64_t matched = 0;            // cycles compared and equal
    uint64_t mismatch_cycle = 0;
    std::string signal;
    uint64_t rtl_val = 0, model_val = 0;
    std::string wave_file;           // written dump, if any
    Config cfg;
    // What the run exercised (from the model side)
    uint64_t ops = 0, samples = 0, collisions = 0, full_cycles = 0, records = 0,
             filtered = 0, toggles = 0, icr_writes = 0, irr_writes = 0, stall_cycles = 0,
             disabled_cycles = 0, perturbed = 0;
    double seconds = 0.0;
};

Result run(const Options &o);

// The Verilated RTL alone, out of reset with the straps of `cfg`, one clock cycle per step():
// for tests that check the RTL directly against the spec.
class Rtl {
public:
    explicit Rtl(const Config &cfg);
    ~Rtl();
    Rtl(const Rtl &) = delete;
    Rtl &operator=(const Rtl &) = delete;
    void step(const CycleIn &in, CycleOut &out);
    bool pending() const;            // cfg.next_op: the next population member is sampled
    uint32_t records() const;        // records in the FIFO
    bool drain_valid() const;        // the FIFO's offer for the next cycle (from state)
    uint32_t drain_len() const;      // bytes that leave at the next edge if drain_ready

private:
    struct Impl;
    std::unique_ptr<Impl> p_;
};

// Several seeds; writes a JUnit XML report when junit_path is not empty.
struct Campaign {
    std::vector<Result> results;
    std::vector<uint64_t> seeds;
    uint64_t cycles = 0;
    unsigned failures = 0;
};
Campaign run_seeds(const Options &base, uint64_t first_seed, unsigned nseeds,
                   const std::string &junit_path);
bool write_junit(const Campaign &c, const std::string &path, std::string *err);

// The same stimulus, stepped through each side alone, for `make bench`: cycles per second.
struct BenchResult {
    double model_cps = 0.0, rtl_cps = 0.0;
    uint64_t cycles = 0;
};
BenchResult bench(const Config &cfg, uint64_t seed, uint64_t cycles);

} // namespace apcosim

#endif
