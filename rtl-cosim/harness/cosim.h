// SPDX-License-Identifier: Apache-2.0
// cosim.h: lockstep co-simulation of the Verilated counter/FIFO RTL against the C model.
#ifndef ARMPROF_COSIM_H
#define ARMPROF_COSIM_H

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "coverage.h"
#include "stimulus.h"

namespace apcosim {

struct Options {
    uint64_t seed = 1;
    uint64_t cycles = 100000;
    bool cfg_from_seed = true;       // draw the Config from the seed (else use `cfg`)
    Config cfg;
    // Config fields set by name after the seed's draw (config_set), e.g. {"ernd", "1"}
    std::vector<std::pair<std::string, std::string>> overrides;
    ModelSide::Perturb perturb = ModelSide::PERTURB_NONE;   // a deliberately broken RTL
    // Coverage: run the RTL's coverage build (line, toggle, cover points) and write this run's
    // counts to <coverage_dir>/seeds/<run_name>.dat (coverage_report() merges them).
    std::string coverage_dir;
    // Waveforms
    bool trace = false;              // dump the whole run to <waves_dir>/<run_name>.fst
    bool vcd = false;                // also convert the dump to .vcd (fst2vcd)
    std::string waves_dir;           // default: $ARMPROF_WAVES_DIR, else ./waves
    std::string run_name;            // default: cosim-seed<seed>
    bool wave_on_mismatch = true;    // rerun and dump the cycles around a mismatch
    uint32_t wave_before = 64, wave_after = 8;
    bool quiet = true;
    // Internal (the mismatch rerun): dump only cycles [trace_from, trace_to], run until trace_to
    bool window = false;
    uint64_t trace_from = 0, trace_to = 0;
};

struct Result {
    bool ok = false;                 // every cycle matched and no RTL assertion failed
    bool harness_error = false;      // the run could not be made (bad config, model error)
    std::string message;             // one line: "matched N cycles" or the mismatch
    uint64_t matched = 0;            // cycles compared and equal
    uint64_t mismatch_cycle = 0;     // the first cycle that differed or failed an assertion
    std::string signal;              // the first signal that differed ("" for an assertion alone)
    uint64_t rtl_val = 0, model_val = 0;
    std::string wave_file;           // written dump, if any
    // RTL assertions (spu_assert.svh) that failed: how many times, the first one and its cycle
    uint64_t assert_failures = 0;
    std::string assert_name;
    uint64_t assert_cycle = 0;
    std::string coverage_file;       // written coverage counts, if any
    Config cfg;
    // What the run exercised (from the model side)
    uint64_t ops = 0, samples = 0, collisions = 0, full_cycles = 0, records = 0,
             filtered = 0, toggles = 0, icr_writes = 0, irr_writes = 0, stall_cycles = 0,
             disabled_cycles = 0, psb_syncs = 0,
             perturbed = 0;          // cycles in which the selected RTL bug acted, up to the end
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
    uint64_t assert_failures() const; // RTL assertions that failed so far
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
    // With coverage: the merged figures (JUnit properties); with require_covers a cover point
    // never hit is a failing testcase of its own.
    bool have_coverage = false;
    CoverageSummary coverage;
    bool require_covers = false;
};
Campaign run_seeds(const Options &base, uint64_t first_seed, unsigned nseeds,
                   const std::string &junit_path);
bool write_junit(const Campaign &c, const std::string &path, std::string *err);
// Coverage of a campaign: coverage_begin() empties <dir>/seeds before the runs;
// coverage_finish() merges and reports them (coverage_report()) into the campaign, counting a
// failure when require_covers and a cover point was never hit.
bool coverage_begin(const std::string &dir, std::string *err);
bool coverage_finish(Campaign &c, const std::string &dir, bool require_covers, std::string *err);

// The same stimulus, stepped through each side alone, for `make bench`: cycles per second of
// the model with the harness's per-cycle work (ModelSide::step_lean()), of the RTL build the
// lockstep runs (assertions checked), and of the coverage build.
struct BenchResult {
    double model_cps = 0.0, rtl_cps = 0.0, rtl_cov_cps = 0.0;
    uint64_t cycles = 0;
};
BenchResult bench(const Config &cfg, uint64_t seed, uint64_t cycles);

// The Verilated builds of the RTL: Lockstep (assertions checked: every co-simulation),
// Coverage (the same with line, toggle and cover-point coverage: --coverage), Plain (the RTL as
// a design, no assertions: bench-cosim's yardstick).
enum class RtlBuild { Lockstep, Coverage, Plain };
// Cycles per second of one RTL build alone over a prepared stimulus (bench-cosim's rounds).
double bench_rtl(const std::vector<CycleIn> &ins, const Config &cfg, RtlBuild build);
// The stimulus of a bench run with the record lengths filled in by the model.
std::vector<CycleIn> bench_stimulus(const Config &cfg, uint64_t seed, uint64_t cycles);

} // namespace apcosim

#endif
