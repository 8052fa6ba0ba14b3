// SPDX-License-Identifier: Apache-2.0
// stimulus.h: seeded co-simulation stimulus and the C model side (model/spu through capi/armprof/spu.h).
#ifndef ARMPROF_COSIM_STIMULUS_H
#define ARMPROF_COSIM_STIMULUS_H

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "armprof/spu.h"
#include "armprof/rng.h"

namespace apcosim {

// Structural sizes of the Verilated RTL (the parameters of rtl/spu_cosim_top.sv); a run's
// configuration must fit inside them.
constexpr unsigned kLanes = 4;       // W
constexpr unsigned kSlots = 8;       // SLOTS
constexpr unsigned kDepth = 1024;    // DEPTH (bytes)
constexpr unsigned kRecSlots = 512;  // REC_SLOTS
constexpr unsigned kDrainMax = 32;   // DRAIN_MAX
constexpr unsigned kLatMax = 65535;  // LAT_W = 16

// What one run looks like: the unit's configuration and the stimulus knobs.
struct Config {
    // Unit (spu_config and RTL straps)
    bool ernd = false;               // PMSIDR_EL1.ERnd
    bool next_op = false;            // spu_config.sample_next_op
    uint32_t rng_seed = 0;           // spu_config.rng_seed
    uint32_t slots = 4;              // spu_config.max_inflight
    uint32_t fifo_bytes = 1024;      // spu_config.fifo_bytes
    uint32_t drain = 16;             // spu_config.drain_bytes_per_cycle
    uint8_t max_size = 6;            // PMSIDR_EL1.MaxSize
    // Stimulus knobs
    uint32_t lanes = 4;              // operations retired per cycle, at most
    double retire_rate = 0.7;        // probability that each lane retires an operation
    uint32_t lat_min = 0, lat_max = 40;  // completion latencies (uniform), plus ...
    double long_lat_rate = 0.01;     // ... this share of long ones, up to long_lat_max
    uint32_t long_lat_max = 400;
    double toggle_rate = 0.0005;     // per cycle: an enable toggle (E1SPE, PMBLIMITR_EL1.E, EL)
    double icr_write_rate = 0.0002;  // per cycle: MSR PMSICR_EL1 (half of them zero)
    double irr_write_rate = 0.0002;  // per cycle: MSR PMSIRR_EL1
    uint32_t interval_max = 2;       // PMSIRR_EL1.INTERVAL written: 0 .. interval_max
    // Memory-acceptance pattern: drain_ready of the FIFO's valid/ready handshake, low when
    // any of these holds (the same for the RTL and the model: spu_set_drain_stall(!ready)).
    double stall_rate = 0.002;       // per cycle: a long latency burst (ready low) starts ...
    uint32_t stall_len_max = 80;     // ... lasting 1 .. stall_len_max cycles
    double ready_drop_rate = 0.0;    // per cycle: ready low for that cycle alone (random stalls)
    uint32_t accept_gap = 0;         // after each cycle that moved bytes, ready low this many
                                     // cycles (a memory with one write outstanding, latency)
    double psb_rate = 0.0;           // per cycle: a PSB CSYNC (the model's spu_psb_csync(), the
                                     // RTL's fifo_flush), when no sampled operation is in flight
    bool filter_lat = false;         // PMSFCR_EL1.FL with PMSLATFR_EL1.MINLAT = minlat
    uint32_t minlat = 0;
    uint8_t pmscr_extra = 0;         // PMSCR_EL1.{TS,PA,CX} bits (record lengths vary)
};

// A configuration drawn from a seed: every knob varies between seeds.
Config config_from_seed(uint64_t seed);
std::string config_describe(const Config &c);
// Sets one field by its name in Config (e.g. "drain", "16"); an error message or "".
std::string config_set(Config &c, const std::string &key, const std::string &value);
std::string config_keys();
// Checks a configuration against the RTL's structural sizes; empty string when it fits.
std::string config_check(const Config &c);

// The inputs of one cycle, identical for both sides.
struct CycleIn {
    bool icr_we = false, irr_we = false;
    uint64_t icr = 0, irr = 0;       // PMSICR_EL1 / PMSIRR_EL1 written before the operations
    int toggle = -1;                 // enable toggle applied this cycle: 0 E1SPE, 1 E, 2 EL
    bool prof_en = false;            // StatisticalProfilingEnabled() after the writes
    uint8_t valid = 0;               // lanes retiring an operation (in program order)
    uint16_t lat[kLanes] = {};       // completion latency of each lane's operation
    uint16_t len[kLanes] = {};       // its record length if sampled and kept (from the model)
    uint64_t op[kLanes] = {};        // operation index (its PC is kPcBase + 4 * index)
    bool stall = false;              // !drain_ready: memory accepts no bytes this cycle
    bool psb = false;                // PSB CSYNC at the start of the cycle: every record in the
                                     // FIFO is written (the RTL's FIFO is flushed at the edge)
};

// What one cycle produced: read after the clock edge on both sides.
struct CycleOut {
    uint8_t fire = 0;                // lanes sampled (collided or not)
    uint8_t coll = 0;                // lanes that collided
    bool full = false;               // a completed record waited for FIFO room
    uint32_t count = 0;              // PMSICR_EL1.COUNT
    uint8_t ecount = 0;              // PMSICR_EL1.ECOUNT
    uint32_t irr = 0;                // PMSIRR_EL1 as stored: INTERVAL:0:RND
    uint32_t rng = 0;                // generator state
    uint32_t inflight = 0;
    uint32_t level = 0;              // FIFO bytes
    uint64_t drained = 0;            // bytes drained so far
    uint64_t popped = 0;             // records handed to the buffer writer so far
    bool valid = false;              // drain_valid during the cycle (the FIFO offered bytes)
};

// Compares two outputs; on a difference names the first signal and both values.
bool outputs_equal(const CycleOut &rtl, const CycleOut &model, std::string *signal,
                   uint64_t *rtl_val, uint64_t *model_val);

// Seeded stimulus generator: the enable state it drives and the operations it retires.
class Stimulus {
public:
    Stimulus(const Config &cfg, uint64_t seed);
    // Next cycle's inputs (lengths still zero: the model side fills them).
    void next(CycleIn &in);
    // The model's outputs of the cycle just given by next(): an accept_gap pattern follows the
    // bytes that moved, and a PSB CSYNC waits for a cycle with no sampled operation in flight
    // (call it after each model step; without it accept_gap and psb_rate have no effect).
    void observe(const CycleOut &out);
    static constexpr uint64_t kPcBase = 0x0000'0040'0000ull;
    uint64_t toggles() const { return toggles_; }

private:
    bool chance(double p);
    uint32_t below(uint32_t n);
    Config cfg_;
    ap_prng64 prng_;
    uint64_t cycle_ = 0, next_op_ = 0;
    bool e1spe_ = true, lim_e_ = false;
    uint8_t el_ = 1;
    uint32_t stall_left_ = 0, busy_left_ = 0;
    uint64_t toggles_ = 0, last_drained_ = 0;
    // For PSB CSYNC: the sampled operations in flight after the last observed cycle.
    bool observed_ = false;
    uint32_t last_inflight_ = 0;
};

// The C model side: model/spu driven through capi/armprof/spu.h, one spu_cycle() per cycle.
class ModelSide {
public:
    // Deliberately broken RTL (armprof-cosim --perturb; the RTL's spu_cosim_pkg::PERTURB_*,
    // selected at run time with +armprof_perturb=N): RELOAD_OFF_BY_ONE, every reload of COUNT
    // one too high; DRAIN_EXTRA, the FIFO drains on the first not-ready cycle of each stall;
    // IGNORE_READY, it drains whether drain_ready is high or not. The model is never perturbed.
    enum Perturb { PERTURB_NONE = 0, PERTURB_RELOAD_OFF_BY_ONE = 1, PERTURB_DRAIN_EXTRA = 2,
                   PERTURB_IGNORE_READY = 3 };
    explicit ModelSide(const Config &cfg);
    ~ModelSide();
    ModelSide(const ModelSide &) = delete;
    ModelSide &operator=(const ModelSide &) = delete;

    bool ok() const { return spu_ != nullptr; }
    const std::string &error() const { return error_; }
    // Applies the cycle's writes, toggles and operations, then one clock edge.
    // Returns false (with error()) when the model disagrees with the stimulus about enables.
    bool step(const CycleIn &in, CycleOut &out);
    // The same cycle for speed measurement: inputs applied, spu_cycle(), the probe read; no
    // per-cycle statistics or comparison outputs (inline: bench-cosim times it).
    inline bool step_lean(const CycleIn &in, spu_probe &probe);
    // Called for each record the model keeps: operation index and encoded length.
    typedef void (*LenFn)(void *user, uint64_t op, uint32_t len);
    void set_len_callback(LenFn fn, void *user) { len_fn_ = fn; len_user_ = user; }
    uint64_t collisions() const;
    uint64_t filtered() const;
    // The state before the first cycle (what the RTL holds out of reset), as a CycleOut.
    CycleOut initial_outputs() const;
    spu_t *spu() { return spu_; }

private:
    static void record_hook(void *user, const spe_record *rec, const uint8_t *b, size_t len);
    bool write(uint32_t enc, uint64_t v);
    bool apply_inputs(const CycleIn &in);
    Config cfg_;
    spu_t *spu_ = nullptr;
    std::string error_;
    armprof_pe_ctx ctx_;
    uint64_t pmscr_ = 0, pmblimitr_ = 0;
    uint64_t last_full_cycles_ = 0;
    LenFn len_fn_ = nullptr;
    void *len_user_ = nullptr;
    std::array<spu_op, kLanes> lean_ops_{};
};

inline bool ModelSide::step_lean(const CycleIn &in, spu_probe &probe)
{
    if ((in.irr_we | in.icr_we | (in.toggle >= 0) | in.psb) && !apply_inputs(in))
        return false;
    spu_set_drain_stall(spu_, in.stall);
    // The host's side kept small: one prepared operation per lane, only PC and latencies
    // change (building a whole spu_op per operation would measure the workload, not the model).
    // The valid lanes are packed without a branch per lane: every lane writes the next free
    // entry, which only a valid lane keeps (n counts them).
    spu_op *opv = lean_ops_.data();
    uint32_t n = 0;
    for (unsigned i = 0; i < kLanes; i++) {
        spu_op &op = opv[n];
        op.pc = Stimulus::kPcBase + 4 * in.op[i];
        op.total_lat = in.lat[i];
        op.issue_lat = in.lat[i] / 2u;
        n += (in.valid >> i) & 1u;
    }
    spu_cycle(spu_, opv, n, nullptr);
    spu_get_probe(spu_, &probe);
    return true;
}

// The C model run ahead of an RTL: yields each cycle's inputs with the record lengths filled
// in (known when the sampled operation completes, up to the longest latency later) and the
// model's outputs of that cycle. For RTL drivers that are not the C++ lockstep runner (the
// SystemC test bench).
class ModelAhead {
public:
    ModelAhead(const Config &cfg, uint64_t seed, uint64_t cycles);
    bool ok() const { return error_.empty(); }
    const std::string &error() const { return error_; }
    // The next cycle in order; false at the end or on a model error.
    bool next(CycleIn &in, CycleOut &out);
    ModelSide &model() { return model_; }

private:
    struct Entry {
        CycleIn in;
        CycleOut out;
    };
    static void on_len(void *user, uint64_t op, uint32_t len);
    Config cfg_;
    uint64_t cycles_, depth_;
    Stimulus stim_;
    ModelSide model_;
    std::vector<Entry> ring_;
    std::vector<uint64_t> op_cycle_;
    std::vector<uint8_t> op_lane_;
    uint64_t produced_ = 0, consumed_ = 0;
    std::string error_;
};

} // namespace apcosim

#endif
