// SPDX-License-Identifier: Apache-2.0
// cosim.cpp: the lockstep runner: stimulus into the Verilated RTL and the C model, compare every cycle.
#include "cosim.h"

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sys/stat.h>

#include "Vspu_cosim_top.h"
#include "Vspu_cosim_top__Dpi.h"
#include "Vspu_cosim_top_cov.h"
#include "Vspu_cosim_top_plain.h"
#include "verilated.h"
#include "verilated_cov.h"
#include "verilated_fst_c.h"

/* Where dumps go without --waves-dir: $ARMPROF_WAVES_DIR, else waves/ in the current folder (the
 * project's own waves/ when run from the top of a checkout). No path of the build machine is
 * compiled in, so an installed armprof-cosim writes where its user is. */
static std::string default_waves_dir()
{
    const char *e = std::getenv("ARMPROF_WAVES_DIR");
    return e && *e ? std::string(e) : std::string("waves");
}

namespace apcosim {

namespace {

// Failed RTL assertions of the model being stepped (spu_assert.svh with ARMPROF_SVA_DPI calls
// armprof_sva_fail() from inside eval()). One model steps at a time per thread.
struct SvaLog {
    uint64_t failures = 0;
    std::string first;
};
thread_local SvaLog *t_sva = nullptr;

} // namespace
} // namespace apcosim

// The DPI import of spu_cosim_pkg (both Verilated builds declare it alike).
void armprof_sva_fail(const char *name)
{
    apcosim::SvaLog *l = apcosim::t_sva;
    if (!l) {
        fprintf(stderr, "cosim: RTL assertion %s failed outside a step\n", name);
        return;
    }
    if (!l->failures++)
        l->first = name;
}

namespace apcosim {

namespace {

// The Verilated RTL, clocked one cycle per step(): Top is the lockstep build (Vspu_cosim_top) or
// the coverage build (Vspu_cosim_top_cov) of the same sources.
template <typename Top> class RtlSide {
public:
    RtlSide(const Config &c, bool may_trace, int perturb = 0)
        : ctx_(new VerilatedContext), top_(), may_trace_(may_trace)
    {
        // +armprof_perturb=N selects the RTL's deliberate bug (0: none), read at the first eval.
        perturb_arg_ = "+armprof_perturb=" + std::to_string(perturb);
        const char *argv[] = { "armprof-cosim", perturb_arg_.c_str() };
        ctx_->commandArgs(2, argv);
        ctx_->fatalOnError(false);
        if (may_trace)
            ctx_->traceEverOn(true);
        top_.reset(new Top(ctx_.get(), "TOP"));
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
        if (!coverage_file_.empty())
            ctx_->coveragep()->write(coverage_file_.c_str());
    }
    // Assertion checks on (the default) or off (Verilator's run-time switch; bench figures).
    void assert_on(bool on) { ctx_->assertOn(on); }
    // Write the coverage counts to `path` when the model goes (the coverage build).
    void write_coverage(const std::string &path) { coverage_file_ = path; }
    // The failed assertions seen during step() go to `log`.
    void set_sva_log(SvaLog *log) { sva_ = log; }
    // The model's values shown beside the RTL's in a dump (m_*, `diff`), before the first step:
    // the state both hold out of reset.
    void show_model(const CycleOut &m)
    {
        set_model(m);
        top_->eval();
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
    const Top &top() const { return *top_; }

    // One cycle: inputs, falling half, rising edge; outputs read after the edge. `m` (the
    // model's outputs of the same cycle) goes to the m_* ports in a model that may trace, every
    // cycle, so that a dump opened later starts with the model's real values.
    void step(const CycleIn &in, CycleOut &out, const CycleOut *m)
    {
        Top &t = *top_;
        SvaLog *prev = t_sva;
        t_sva = sva_;
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
        t.fifo_flush = in.psb; // PSB CSYNC: the model wrote every record of its FIFO
        t.fifo_discard = 0;    // no management event in the lockstep (kLimit)
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
        if (may_trace_ && m) {
            set_model(*m);
            t.eval();
        }
        if (tfp_)
            tfp_->dump(ctx_->time());
        ctx_->timeInc(1);
        t_sva = prev;
    }

private:
    void set_model(const CycleOut &m)
    {
        Top &t = *top_;
        t.m_fire = m.fire;
        t.m_coll = m.coll;
        t.m_full = m.full;
        t.m_count = m.count;
        t.m_ecount = m.ecount;
        t.m_rng_state = m.rng;
        t.m_inflight = m.inflight;
        t.m_fifo_level = m.level;
        t.m_drained = m.drained;
    }
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Top> top_;
    std::unique_ptr<VerilatedFstC> tfp_;
    bool may_trace_;
    std::string perturb_arg_, coverage_file_;
    SvaLog *sva_ = nullptr;
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
    std::string dir = o.waves_dir.empty() ? default_waves_dir() : o.waves_dir;
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
    explicit Impl(const Config &c) : side(c, false) { side.set_sva_log(&sva); }
    SvaLog sva;
    RtlSide<Vspu_cosim_top> side;
};
Rtl::Rtl(const Config &cfg) : p_(new Impl(cfg)) {}
Rtl::~Rtl() = default;
void Rtl::step(const CycleIn &in, CycleOut &out)
{
    p_->side.step(in, out, nullptr);
    if (p_->sva.failures)
        fprintf(stderr, "cosim: RTL assertion %s failed\n", p_->sva.first.c_str());
}
uint64_t Rtl::assert_failures() const { return p_->sva.failures; }
bool Rtl::pending() const { return p_->side.top().pending; }
uint32_t Rtl::records() const { return p_->side.top().nrec; }
bool Rtl::drain_valid() const { return p_->side.top().drain_valid; }
uint32_t Rtl::drain_len() const { return p_->side.top().drain_len; }

namespace {

template <typename Top> Result run_with(const Options &o);

} // namespace

Result run(const Options &o)
{
    if (!o.coverage_dir.empty())
        return run_with<Vspu_cosim_top_cov>(o);
    return run_with<Vspu_cosim_top>(o);
}

namespace {

template <typename Top> Result run_with(const Options &o)
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
    ModelSide model(c);
    if (!model.ok()) {
        r.harness_error = true;
        r.message = "C model: " + model.error();
        return r;
    }
    model.set_len_callback(&Lookahead::on_len, &la);
    const bool may_trace = o.trace || o.window;
    SvaLog sva;
    std::unique_ptr<RtlSide<Top>> rtlp(new RtlSide<Top>(c, may_trace, (int)o.perturb));
    RtlSide<Top> &rtl = *rtlp;
    rtl.set_sva_log(&sva);
    if (may_trace)
        rtl.show_model(model.initial_outputs());
    if (!o.coverage_dir.empty() && !o.window) {
        const std::string dir = o.coverage_dir + "/seeds";
        mkdirs(dir);
        r.coverage_file = dir + "/" +
                          (o.run_name.empty() ? "cosim-seed" + std::to_string(o.seed) : o.run_name) + ".dat";
        rtl.write_coverage(r.coverage_file);
    }
    if (o.trace) {
        r.wave_file = wave_path(o, "", ".fst");
        if (!rtl.open_trace(r.wave_file))
            fprintf(stderr, "cosim: cannot open %s\n", r.wave_file.c_str());
    }
    // The RTL runs cycles [0, rtl_end); the model runs D cycles ahead of it.
    const uint64_t rtl_end = o.window ? std::min(o.cycles, o.trace_to + 1) : o.cycles;
    bool failed = false;
    bool prev_stall = false;
    uint32_t prev_count = 0;
    // PSB CSYNC: the model writes its FIFO's records (drained, popped) where the RTL flushes
    // them; the RTL's totals are compared with these added.
    uint64_t flushed_bytes = 0, flushed_recs = 0;
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
            r.psb_syncs += e.in.psb;
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
        // Where the deliberate bug acts (the RTL's own condition, followed on the model side).
        switch (o.perturb) {
        case ModelSide::PERTURB_RELOAD_OFF_BY_ONE:
            r.perturbed += e.out.count > prev_count && !e.in.icr_we;
            break;
        case ModelSide::PERTURB_DRAIN_EXTRA:
            r.perturbed += e.in.stall && e.out.valid && !prev_stall;
            break;
        case ModelSide::PERTURB_IGNORE_READY:
            r.perturbed += e.in.stall && e.out.valid;
            break;
        default:
            break;
        }
        prev_stall = e.in.stall;
        prev_count = e.out.count;
        if (e.in.psb) {
            flushed_bytes += rtl.top().fifo_level;
            flushed_recs += rtl.top().nrec;
        }
        CycleOut m = e.out;          // the model's values in the RTL's terms
        m.drained -= flushed_bytes;
        m.popped -= flushed_recs;
        CycleOut ro;
        const uint64_t before = sva.failures;
        rtl.step(e.in, ro, &m);
        la.consumed = cyc + 1;
        if (sva.failures && !before)
            r.assert_cycle = cyc;
        if (o.window && cyc >= o.trace_to)
            break;
        if (failed)
            continue;
        if (e.in.psb)
            ro.valid = false; // the flush edge takes the offer back: nothing leaves (model: empty)
        std::string sig;
        uint64_t rv, mv;
        const bool equal = outputs_equal(ro, m, &sig, &rv, &mv);
        if (!equal || sva.failures) {
            failed = true;
            r.mismatch_cycle = cyc;
            if (!equal) {
                r.signal = sig;
                r.rtl_val = rv;
                r.model_val = mv;
            }
            if (!o.window)
                break;
            continue;
        }
        r.matched++;
    }
    r.assert_failures = sva.failures;
    r.assert_name = sva.first;
    // One Verilated model at a time: this one goes (writing its coverage) before a mismatch
    // rerun makes another.
    rtlp.reset();
    if (!r.wave_file.empty() && o.vcd)
        to_vcd(r.wave_file);
    r.collisions = model.collisions();
    r.filtered = model.filtered();
    r.toggles = stim.toggles();
    spu_stats st;
    spu_get_stats(model.spu(), &st);
    r.records = st.records_written + st.records_discarded;
    char b[400];
    if (r.harness_error) {
        // message already set
    } else if (failed) {
        if (!r.signal.empty())
            snprintf(b, sizeof(b), "cycle %" PRIu64 ": %s rtl=%" PRIu64 " (0x%" PRIx64 ") model=%" PRIu64
                     " (0x%" PRIx64 ") seed %" PRIu64,
                     r.mismatch_cycle, r.signal.c_str(), r.rtl_val, r.rtl_val, r.model_val, r.model_val,
                     o.seed);
        else
            snprintf(b, sizeof(b), "cycle %" PRIu64 ": RTL assertion %s failed seed %" PRIu64,
                     r.mismatch_cycle, r.assert_name.c_str(), o.seed);
        r.message = b;
        if (r.assert_failures && !r.signal.empty())
            r.message += "; RTL assertion " + r.assert_name + " failed at cycle " +
                         std::to_string(r.assert_cycle);
        if (o.wave_on_mismatch && !o.window) {
            Options w = o;
            w.window = true;
            w.trace = false;
            w.coverage_dir.clear();
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

} // namespace

bool coverage_begin(const std::string &dir, std::string *err)
{
    std::error_code ec;
    const std::filesystem::path seeds = std::filesystem::path(dir) / "seeds";
    std::filesystem::remove_all(seeds, ec);
    std::filesystem::create_directories(seeds, ec);
    if (ec) {
        *err = "cannot create " + seeds.string() + ": " + ec.message();
        return false;
    }
    return true;
}

bool coverage_finish(Campaign &c, const std::string &dir, bool require_covers, std::string *err)
{
    c.require_covers = require_covers;
    if (!coverage_report(dir, &c.coverage, err))
        return false;
    c.have_coverage = true;
    if (require_covers && !c.coverage.not_hit().empty())
        c.failures++;
    return true;
}

Campaign run_seeds(const Options &base, uint64_t first_seed, unsigned nseeds,
                   const std::string &junit_path)
{
    Campaign c;
    std::string err;
    if (!base.coverage_dir.empty() && !coverage_begin(base.coverage_dir, &err))
        fprintf(stderr, "cosim: %s\n", err.c_str());
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
    if (!base.coverage_dir.empty() && !coverage_finish(c, base.coverage_dir, false, &err))
        fprintf(stderr, "cosim: %s\n", err.c_str());
    if (!junit_path.empty()) {
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
    const size_t tests = c.results.size() + (c.have_coverage ? 1 : 0);
    const std::vector<std::string> not_hit = c.have_coverage ? c.coverage.not_hit() : std::vector<std::string>();
    f << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    f << "<testsuites name=\"armprof-cosim\" tests=\"" << tests << "\" failures=\""
      << c.failures << "\" time=\"" << total << "\">\n";
    f << "  <testsuite name=\"cosim.spu_counter_fifo\" tests=\"" << tests
      << "\" failures=\"" << c.failures << "\" errors=\"0\" skipped=\"0\" time=\"" << total << "\">\n";
    if (c.have_coverage) {
        // The RTL coverage of the campaign (verilator --coverage, merged over the seeds).
        f << "    <properties>\n";
        auto prop = [&f](const std::string &name, const std::string &value) {
            f << "      <property name=\"" << xml_escape(name) << "\" value=\"" << xml_escape(value)
              << "\"/>\n";
        };
        auto pct = [](uint64_t hit, uint64_t total) {
            char b[32];
            snprintf(b, sizeof b, "%.1f", total ? 100.0 * (double)hit / (double)total : 100.0);
            return std::string(b);
        };
        std::vector<CoverageModule> rows = c.coverage.modules;
        rows.push_back(c.coverage.total);
        for (const CoverageModule &m : rows) {
            prop("coverage." + m.name + ".line_pct", pct(m.line_hit, m.line_total));
            prop("coverage." + m.name + ".toggle_pct", pct(m.toggle_hit, m.toggle_total));
            prop("coverage." + m.name + ".cover_points",
                 std::to_string(m.cover_hit) + "/" + std::to_string(m.cover_total));
        }
        std::string nh;
        for (const std::string &n : not_hit)
            nh += (nh.empty() ? "" : " ") + n;
        prop("coverage.cover_points_not_hit", nh);
        f << "    </properties>\n";
    }
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
    if (c.have_coverage) {
        f << "    <testcase classname=\"cosim.spu_counter_fifo\" name=\"cover_points\" time=\"0\">\n";
        if (c.require_covers && !not_hit.empty()) {
            std::string list;
            for (const std::string &n : not_hit)
                list += (list.empty() ? "" : " ") + n;
            f << "      <failure message=\"" << not_hit.size() << " cover point"
              << (not_hit.size() == 1 ? "" : "s") << " never hit: " << xml_escape(list)
              << "\" type=\"coverage\">" << xml_escape(coverage_table(c.coverage, false)) << "</failure>\n";
        }
        f << "      <system-out>" << xml_escape(coverage_table(c.coverage, false)) << "</system-out>\n";
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

std::vector<CycleIn> bench_stimulus(const Config &cfg, uint64_t seed, uint64_t cycles)
{
    // The stimulus, with the record lengths the model produced, kept in memory.
    std::vector<CycleIn> ins(cycles);
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
    return ins;
}

namespace {

template <typename Top> double rtl_cps(const std::vector<CycleIn> &ins, const Config &cfg, bool asserts)
{
    using clk = std::chrono::steady_clock;
    RtlSide<Top> rtl(cfg, false);
    rtl.assert_on(asserts);
    SvaLog sva;
    rtl.set_sva_log(&sva);
    CycleOut out;
    auto t0 = clk::now();
    for (const CycleIn &in : ins)
        rtl.step(in, out, nullptr);
    double s = std::chrono::duration<double>(clk::now() - t0).count();
    if (sva.failures)
        fprintf(stderr, "bench: RTL assertion %s failed\n", sva.first.c_str());
    return (double)ins.size() / s;
}

} // namespace

double bench_rtl(const std::vector<CycleIn> &ins, const Config &cfg, RtlBuild build)
{
    switch (build) {
    case RtlBuild::Plain:
        return rtl_cps<Vspu_cosim_top_plain>(ins, cfg, false);
    case RtlBuild::Coverage:
        return rtl_cps<Vspu_cosim_top_cov>(ins, cfg, true);
    default:
        return rtl_cps<Vspu_cosim_top>(ins, cfg, true);
    }
}

BenchResult bench(const Config &cfg, uint64_t seed, uint64_t cycles)
{
    BenchResult b;
    b.cycles = cycles;
    std::vector<CycleIn> ins = bench_stimulus(cfg, seed, cycles);
    using clk = std::chrono::steady_clock;
    {
        ModelSide m(cfg);
        spu_probe probe;
        auto t0 = clk::now();
        for (uint64_t t = 0; t < cycles; t++)
            m.step_lean(ins[t], probe);
        b.model_cps = (double)cycles / std::chrono::duration<double>(clk::now() - t0).count();
    }
    b.rtl_cps = bench_rtl(ins, cfg, RtlBuild::Lockstep);
    b.rtl_cov_cps = bench_rtl(ins, cfg, RtlBuild::Coverage);
    return b;
}

} // namespace apcosim
