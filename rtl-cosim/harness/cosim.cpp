// SPDX-License-Identifier: Apache-2.0
// cosim.cpp: the lockstep runner: stimulus into the Verilated RTL and the C model, compare every cycle.
#include "cosim.h"

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sys/stat.h>

#include "Vspu_cosim_top.h"
#include "verilated.h"
#include "verilated_fst_c.h"

#ifndef ARMPROF_WAVES_DIR
#define ARMPROF_WAVES_DIR "waves"
#endif

namespace apcosim {

namespace {

// The Verilated RTL, clocked one cycle per step().
class RtlSide {
public:
    RtlSide(const Config &c, bool may_trace)
        : ctx_(new VerilatedContext), top_()
    {
        ctx_->commandArgs(0, (const char **)nullptr);
        if (may_trace)
            ctx_->traceEverOn(true);
        top_.reset(new Vspu_cosim_top(ctx_.get(), "TOP"));
        top_->cfg_ernd = c.ernd;
        top_->cfg_next_op = c.next_op;
        top_->cfg_rng_seed = c.rng_seed;
        top_->cfg_slots = c.slots;
        top_->cfg_depth = c.fifo_bytes;
        top_->cfg_rec_cap = c.fifo_bytes / 3 + 2; // the model's descriptor ring
        top_->cfg_drain = c.drain;
        top_->rst = 1;
        for (int i = 0; i < 2; i++) {
            top_->clk = 0;
            top_->eval();
            top_->clk = 1;
            top_->eval();
        }
        top_->rst = 0;
        top_->clk = 0;
        top_->eval();
    }
    ~RtlSide()
    {
        close_trace();
        top_->final();
    }
    bool open_trace(const std::string &path)
    {
        tfp_.reset(new VerilatedFstC);
        top_->trace(tfp_.get(), 99);
        tfp_->open(path.c_str());
        if (!tfp_->isOpen()) {
            tfp_.reset();
            return false;
        }
        return true;
    }
    void close_trace()
    {
        if (tfp_) {
            tfp_->close();
            tfp_.reset();
        }
    }
    bool tracing() const { return tfp_ != nullptr; }
    const Vspu_cosim_top &top() const { return *top_; }

    // One cycle: inputs, falling half, rising edge; outputs read after the edge. `m` (the
    // model's outputs of the same cycle) goes to the m_* ports when a dump is open.
    void step(const CycleIn &in, CycleOut &out, const CycleOut *m)
    {
        Vspu_cosim_top &t = *top_;
        t.icr_we = in.icr_we;
        t.icr_wdata = in.icr;
        t.irr_we = in.irr_we;
        t.irr_wdata = in.irr;
        t.prof_en = in.prof_en;
        t.op_valid = in.valid;
        uint64_t lat = 0, len = 0;
        for (unsigned i = 0; i < kLanes; i++) {
            lat |= (uint64_t)in.lat[i] << (16 * i);
            len |= (uint64_t)(in.len[i] & 0xFFF) << (12 * i);
        }
        t.lane_lat = lat;
        t.lane_len = len;
        t.drain_ready = !in.stall;
        t.fifo_flush = 0;   // platform inputs: the lockstep model never empties its FIFO
        t.fifo_discard = 0; // by itself (no management event: kLimit)
        t.clk = 0;
        t.eval();
        out.valid = t.drain_valid; // the offer during the cycle, before the edge
        if (tfp_)
            tfp_->dump(ctx_->time());
        ctx_->timeInc(1);
        t.clk = 1;
        t.eval();
        out.fire = t.fire_q;
        out.coll = t.coll_q;
        out.full = t.full_q;
        out.count = t.count;
        out.ecount = t.ecount;
        out.rng = t.rng_state;
        out.irr = (t.interval << 8) | t.rnd;
        out.inflight = t.inflight;
        out.level = t.fifo_level;
        out.drained = t.drained;
        out.popped = t.popped;
        if (tfp_) {
            if (m) {
                t.m_fire = m->fire;
                t.m_coll = m->coll;
                t.m_full = m->full;
                t.m_count = m->count;
                t.m_ecount = m->ecount;
                t.m_rng_state = m->rng;
                t.m_inflight = m->inflight;
                t.m_fifo_level = m->level;
                t.m_drained = m->drained;
                t.eval();
            }
            tfp_->dump(ctx_->time());
        }
        ctx_->timeInc(1);
    }

private:
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Vspu_cosim_top> top_;
    std::unique_ptr<VerilatedFstC> tfp_;
};

struct Entry {
    CycleIn in;
    CycleOut out;
};

// Where each operation of the lookahead window sits, so a record's length reaches its lane.
struct Lookahead {
    std::vector<Entry> ring;
    std::vector<uint64_t> op_cycle;
    std::vector<uint8_t> op_lane;
    uint64_t consumed = 0;           // cycles already given to the RTL
    bool late = false;
    Entry &at(uint64_t cycle) { return ring[cycle % ring.size()]; }
    static void on_len(void *user, uint64_t op, uint32_t len)
    {
        Lookahead *l = static_cast<Lookahead *>(user);
        size_t k = op % l->op_cycle.size();
        uint64_t c = l->op_cycle[k];
        if (c < l->consumed) {
            l->late = true;
            return;
        }
        l->at(c).in.len[l->op_lane[k]] = (uint16_t)len;
    }
};

void mkdirs(const std::string &dir)
{
    std::string cur;
    for (size_t i = 0; i <= dir.size(); i++) {
        if (i == dir.size() || dir[i] == '/') {
            if (!cur.empty())
                mkdir(cur.c_str(), 0777);
        }
        if (i < dir.size())
            cur += dir[i];
    }
}

std::string wave_path(const Options &o, const std::string &suffix, const char *ext)
{
    std::string dir = o.waves_dir.empty() ? std::string(ARMPROF_WAVES_DIR) : o.waves_dir;
    mkdirs(dir);
    std::string name = o.run_name.empty() ? "cosim-seed" + std::to_string(o.seed) : o.run_name;
    return dir + "/" + name + suffix + ext;
}

void to_vcd(const std::string &fst)
{
    std::string vcd = fst.substr(0, fst.size() - 4) + ".vcd";
    std::string cmd = "fst2vcd -f '" + fst + "' -o '" + vcd + "' >/dev/null 2>&1";
    if (std::system(cmd.c_str()) != 0)
        fprintf(stderr, "cosim: fst2vcd failed; the FST dump is %s\n", fst.c_str());
}

} // namespace

struct Rtl::Impl {
    explicit Impl(const Config &c) : side(c, false) {}
    RtlSide side;
};
Rtl::Rtl(const Config &cfg) : p_(new Impl(cfg)) {}
Rtl::~Rtl() = default;
void Rtl::step(const CycleIn &in, CycleOut &out) { p_->side.step(in, out, nullptr); }
bool Rtl::pending() const { return p_->side.top().pending; }
uint32_t Rtl::records() const { return p_->side.top().nrec; }
bool Rtl::drain_valid() const { return p_->side.top().drain_valid; }
uint32_t Rtl::drain_len() const { return p_->side.top().drain_len; }

Result run(const Options &o)
{
    Result r;
    auto t0 = std::chrono::steady_clock::now();
    r.cfg = o.cfg_from_seed ? config_from_seed(o.seed) : o.cfg;
    for (const auto &kv : o.overrides) {
        std::string e = config_set(r.cfg, kv.first, kv.second);
        if (!e.empty()) {
            r.harness_error = true;
            r.message = e;
            return r;
        }
    }
    const Config &c = r.cfg;
    std::string bad = config_check(c);
    if (!bad.empty()) {
        r.harness_error = true;
        r.message = "configuration does not fit the RTL: " + bad;
        return r;
    }
    // The model runs D cycles ahead so that a record's length (known when the sampled
    // operation completes) is there when the RTL takes the sample.
    const uint64_t D = (uint64_t)std::max(c.lat_max, c.long_lat_max) + 2;
    Lookahead la;
    la.ring.resize(D + 1);
    la.op_cycle.assign((D + 2) * kLanes, 0);
    la.op_lane.assign((D + 2) * kLanes, 0);

    Stimulus stim(c, o.seed);
    const bool rtl_perturb = o.perturb == ModelSide::PERTURB_DRAIN_EXTRA ||
                             o.perturb == ModelSide::PERTURB_IGNORE_READY;
    ModelSide model(c, rtl_perturb ? ModelSide::PERTURB_NONE : o.perturb);
    if (!model.ok()) {
        r.harness_error = true;
        r.message = "C model: " + model.error();
        return r;
    }
    model.set_len_callback(&Lookahead::on_len, &la);
    std::unique_ptr<RtlSide> rtlp(new RtlSide(c, o.trace || o.window));
    RtlSide &rtl = *rtlp;
    if (o.trace) {
        r.wave_file = wave_path(o, "", ".fst");
        if (!rtl.open_trace(r.wave_file))
            fprintf(stderr, "cosim: cannot open %s\n", r.wave_file.c_str());
    }
    // The RTL runs cycles [0, rtl_end); the model runs D cycles ahead of it.
    const uint64_t rtl_end = o.window ? std::min(o.cycles, o.trace_to + 1) : o.cycles;
    bool mismatch = false;
    bool prev_stall = false;
    uint64_t drain_perturbed = 0;
    for (uint64_t t = 0; t < rtl_end + D; t++) {
        if (t < o.cycles) {
            Entry &e = la.at(t);
            stim.next(e.in);
            for (unsigned i = 0; i < kLanes; i++)
                if (e.in.valid & (1u << i)) {
                    size_t k = e.in.op[i] % la.op_cycle.size();
                    la.op_cycle[k] = t;
                    la.op_lane[k] = (uint8_t)i;
                    r.ops++;
                }
            if (!model.step(e.in, e.out)) {
                r.harness_error = true;
                r.message = "C model at cycle " + std::to_string(t) + ": " + model.error();
                break;
            }
            stim.observe(e.out);
            r.icr_writes += e.in.icr_we;
            r.irr_writes += e.in.irr_we;
            r.stall_cycles += e.in.stall;
            r.disabled_cycles += !e.in.prof_en;
            r.full_cycles += e.out.full;
            for (unsigned i = 0; i < kLanes; i++)
                r.samples += (e.out.fire >> i) & 1;
        }
        if (la.late) {
            r.harness_error = true;
            r.message = "lookahead too short for a record length";
            break;
        }
        if (t < D)
            continue;
        const uint64_t cyc = t - D;
        Entry &e = la.at(cyc);
        if (o.window && cyc == o.trace_from) {
            r.wave_file = wave_path(o, "-mismatch", ".fst");
            rtl.open_trace(r.wave_file);
        }
        CycleOut ro;
        if (rtl_perturb) {
            // A deliberately wrong drain handshake on the RTL side (see ModelSide::Perturb).
            CycleIn pin = e.in;
            if (pin.stall && e.out.valid &&
                (o.perturb == ModelSide::PERTURB_IGNORE_READY || !prev_stall)) {
                pin.stall = false;
                drain_perturbed++;
            }
            prev_stall = e.in.stall;
            rtl.step(pin, ro, &e.out);
        } else {
            rtl.step(e.in, ro, &e.out);
        }
        la.consumed = cyc + 1;
        if (o.window && cyc >= o.trace_to)
            break;
        if (mismatch)
            continue;
        std::string sig;
        uint64_t rv, mv;
        if (!outputs_equal(ro, e.out, &sig, &rv, &mv)) {
            mismatch = true;
            r.mismatch_cycle = cyc;
            r.signal = sig;
            r.rtl_val = rv;
            r.model_val = mv;
            if (!o.window)
                break;
            continue;
        }
        r.matched++;
    }
    // One Verilated model at a time: this one goes before a mismatch rerun makes another.
    rtlp.reset();
    if (!r.wave_file.empty() && o.vcd)
        to_vcd(r.wave_file);
    r.collisions = model.collisions();
    r.filtered = model.filtered();
    r.toggles = stim.toggles();
    r.perturbed = model.reloads_perturbed() + drain_perturbed;
    spu_stats st;
    spu_get_stats(model.spu(), &st);
    r.records = st.records_written + st.records_discarded;
    char b[400];
    if (r.harness_error) {
        // message already set
    } else if (mismatch) {
        snprintf(b, sizeof(b), "cycle %" PRIu64 ": %s rtl=%" PRIu64 " (0x%" PRIx64 ") model=%" PRIu64
                 " (0x%" PRIx64 ") seed %" PRIu64,
                 r.mismatch_cycle, r.signal.c_str(), r.rtl_val, r.rtl_val, r.model_val, r.model_val,
                 o.seed);
        r.message = b;
        if (o.wave_on_mismatch && !o.window) {
            Options w = o;
            w.window = true;
            w.trace = false;
            w.trace_from = r.mismatch_cycle > o.wave_before ? r.mismatch_cycle - o.wave_before : 0;
            w.trace_to = r.mismatch_cycle + o.wave_after;
            Result wr = run(w);
            r.wave_file = wr.wave_file;
            if (!r.wave_file.empty())
                r.message += "; waveform " + r.wave_file;
        }
    } else {
        r.ok = true;
        snprintf(b, sizeof(b), "matched %" PRIu64 " cycles (seed %" PRIu64 ")", r.matched, o.seed);
        r.message = b;
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

Campaign run_seeds(const Options &base, uint64_t first_seed, unsigned nseeds,
                   const std::string &junit_path)
{
    Campaign c;
    for (unsigned i = 0; i < nseeds; i++) {
        Options o = base;
        o.seed = first_seed + i;
        o.run_name.clear();
        Result r = run(o);
        c.cycles += r.matched;
        if (!r.ok)
            c.failures++;
        if (!base.quiet)
            printf("seed %" PRIu64 ": %s\n", o.seed, r.message.c_str());
        c.seeds.push_back(o.seed);
        c.results.push_back(r);
    }
    if (!junit_path.empty()) {
        std::string err;
        if (!write_junit(c, junit_path, &err))
            fprintf(stderr, "cosim: %s\n", err.c_str());
    }
    return c;
}

static std::string xml_escape(const std::string &s)
{
    std::string o;
    for (char ch : s) {
        switch (ch) {
        case '&': o += "&amp;"; break;
        case '<': o += "&lt;"; break;
        case '>': o += "&gt;"; break;
        case '"': o += "&quot;"; break;
        default: o += ch;
        }
    }
    return o;
}

bool write_junit(const Campaign &c, const std::string &path, std::string *err)
{
    size_t slash = path.rfind('/');
    if (slash != std::string::npos)
        mkdirs(path.substr(0, slash));
    std::ofstream f(path);
    if (!f) {
        *err = "cannot write " + path;
        return false;
    }
    double total = 0;
    for (const Result &r : c.results)
        total += r.seconds;
    f << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    f << "<testsuites name=\"armprof-cosim\" tests=\"" << c.results.size() << "\" failures=\""
      << c.failures << "\" time=\"" << total << "\">\n";
    f << "  <testsuite name=\"cosim.spu_counter_fifo\" tests=\"" << c.results.size()
      << "\" failures=\"" << c.failures << "\" errors=\"0\" skipped=\"0\" time=\"" << total << "\">\n";
    for (size_t i = 0; i < c.results.size(); i++) {
        const Result &r = c.results[i];
        f << "    <testcase classname=\"cosim.spu_counter_fifo\" name=\"seed_" << c.seeds[i]
          << "\" time=\"" << r.seconds << "\">\n";
        if (!r.ok)
            f << "      <failure message=\"" << xml_escape(r.message) << "\" type=\""
              << (r.harness_error ? "harness" : "mismatch") << "\">"
              << xml_escape(config_describe(r.cfg)) << "</failure>\n";
        f << "      <system-out>" << xml_escape(r.message) << "; " << xml_escape(config_describe(r.cfg))
          << "; ops=" << r.ops << " samples=" << r.samples << " collisions=" << r.collisions
          << " full_cycles=" << r.full_cycles << " records=" << r.records
          << " toggles=" << r.toggles << "</system-out>\n";
        f << "    </testcase>\n";
    }
    f << "  </testsuite>\n</testsuites>\n";
    f.close();
    if (!f) {
        *err = "write failed: " + path;
        return false;
    }
    return true;
}

BenchResult bench(const Config &cfg, uint64_t seed, uint64_t cycles)
{
    BenchResult b;
    b.cycles = cycles;
    // Pass 1: the stimulus, with the record lengths the model produced, kept in memory.
    std::vector<CycleIn> ins(cycles);
    {
        const uint64_t D = (uint64_t)std::max(cfg.lat_max, cfg.long_lat_max) + 2;
        std::vector<uint64_t> op_cycle((D + 2) * kLanes);
        std::vector<uint8_t> op_lane((D + 2) * kLanes);
        struct Ctx {
            std::vector<CycleIn> *ins;
            std::vector<uint64_t> *op_cycle;
            std::vector<uint8_t> *op_lane;
        } cx = { &ins, &op_cycle, &op_lane };
        Stimulus stim(cfg, seed);
        ModelSide m(cfg);
        m.set_len_callback(
            [](void *u, uint64_t op, uint32_t len) {
                Ctx *x = static_cast<Ctx *>(u);
                size_t k = op % x->op_cycle->size();
                (*x->ins)[(*x->op_cycle)[k]].len[(*x->op_lane)[k]] = (uint16_t)len;
            },
            &cx);
        CycleOut out;
        for (uint64_t t = 0; t < cycles; t++) {
            stim.next(ins[t]);
            for (unsigned i = 0; i < kLanes; i++)
                if (ins[t].valid & (1u << i)) {
                    op_cycle[ins[t].op[i] % op_cycle.size()] = t;
                    op_lane[ins[t].op[i] % op_cycle.size()] = (uint8_t)i;
                }
            m.step(ins[t], out);
            stim.observe(out);
        }
    }
    using clk = std::chrono::steady_clock;
    {
        ModelSide m(cfg);
        spu_probe probe;
        auto t0 = clk::now();
        for (uint64_t t = 0; t < cycles; t++)
            m.step_lean(ins[t], probe);
        b.model_cps = (double)cycles / std::chrono::duration<double>(clk::now() - t0).count();
    }
    {
        RtlSide rtl(cfg, false);
        CycleOut out;
        auto t0 = clk::now();
        for (uint64_t t = 0; t < cycles; t++)
            rtl.step(ins[t], out, nullptr);
        b.rtl_cps = (double)cycles / std::chrono::duration<double>(clk::now() - t0).count();
    }
    return b;
}

} // namespace apcosim
