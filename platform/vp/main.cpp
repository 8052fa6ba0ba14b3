// SPDX-License-Identifier: Apache-2.0
// main.cpp: armprof-vp, runs a scenario (or the built-in default) on the SystemC virtual platform.
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

#include <cJSON.h>

#include "armprof/bits.h"
#include "scenario_file.h"
#include "soc.h"
#include "tool_io.h"

using namespace armprof;
using namespace sc_core;

namespace {

// Memory timing of one unit's buffer writes (cycles of the PE clock converted to ns).
void timing_json(cJSON *o, double clock_ns, uint64_t stall, uint64_t out_max, uint64_t writes, uint64_t lat_min,
                 uint64_t lat_sum, uint64_t lat_max)
{
    cJSON_AddNumberToObject(o, "writer_stall_cycles", (double)stall);
    cJSON_AddNumberToObject(o, "outstanding_writes_max", (double)out_max);
    cJSON *wl = cJSON_AddObjectToObject(o, "write_latency_ns");
    cJSON_AddNumberToObject(wl, "min", writes ? (double)lat_min * clock_ns : 0.0);
    cJSON_AddNumberToObject(wl, "mean", writes ? (double)lat_sum / (double)writes * clock_ns : 0.0);
    cJSON_AddNumberToObject(wl, "max", (double)lat_max * clock_ns);
}

void usage(FILE *f)
{
    std::fprintf(f,
                 "usage: armprof-vp [SCENARIO.yaml|.json] [--out DIR] [--vcd] [--ops N] [--quiet]\n"
                 "       armprof-vp [SCENARIO] --write-trace FILE [--ops N] [--pe N]\n"
                 "       armprof-vp [SCENARIO] --check\n"
                 "  Runs the scenario (default: the built-in one, examples/default.yaml documents it)\n"
                 "  and writes DIR/summary.json, DIR/spe.bin (PE 0; DIR/spe_peN.bin for the others),\n"
                 "  with trbe.enabled DIR/trbe.bin (DIR/trbe_peN.bin)\n"
                 "  and with --vcd waves/armprof-vp.vcd (PMBIRQ and PMBPTR_EL1 of every PE).\n"
                 "  The dumps are written as the drivers consume their buffers; SIGINT or SIGTERM ends the\n"
                 "  run there (summary.json: \"interrupted\": true, exit status 128 + the signal).\n"
                 "  --ops N sets the operations per PE (1 .. 2^63-1).\n"
                 "  --write-trace FILE writes PE 0's (--pe N: PE N's) synthetic workload (ops operations) as\n"
                 "  an operation trace (docs/trace-format.md) instead of running; workload.trace replays one\n"
                 "  (a list: one file per PE).\n"
                 "  --check reads the scenario, builds the platform (traces loaded, faults injected) and\n"
                 "  exits without running.\n"
                 "exit status: 0 done, 1 the run or its output failed, 2 a bad option or scenario,\n"
                 "  128 + N ended by signal N (docs/exit-status.md).\n");
}

// An integer option value in [lo, hi] (decimal, 0x hex), as armprof-run reads them.
bool parse_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t &out)
{
    char *end = nullptr;
    errno = 0;
    unsigned long long v = std::strtoull(s, &end, 0);
    if (errno || !*s || *end || s[0] == '-' || s[0] == '+' || std::isspace((unsigned char)s[0]) || v < lo ||
        v > hi) {
        std::fprintf(stderr, "armprof-vp: %s expects an integer in [%llu, %llu], got '%s'\n", opt,
                     (unsigned long long)lo, (unsigned long long)hi, printable(s).c_str());
        return false;
    }
    out = v;
    return true;
}

// Standard output flushed and closed: false (with a message) when anything written to it was lost.
bool close_stdout()
{
    return tool_close_stdout("armprof-vp") == 0;
}

// PE `pe`'s synthetic workload of the scenario (the generator and seed Platform gives that PE)
// as an operation-trace file.
int write_trace(const Scenario &sc, const std::string &path, unsigned pe)
{
    wl_config c;
    wl_config_default(&c);
    c.seed = sc.seed * 1000003u + pe;
    wl_gen g;
    wl_init(&g, &c);
    FILE *f = std::fopen(path.c_str(), "w");
    if (!f) {
        std::fprintf(stderr, "armprof-vp: cannot write %s: %s\n", path.c_str(), std::strerror(errno));
        return 1;
    }
    bool ok = wl_trace_write_header(f) == 0;
    for (uint64_t i = 0; ok && i < sc.ops; i++) {
        spu_op op;
        wl_next(&g, &op);
        ok = wl_trace_write_op(f, &op) == 0;
    }
    int e = ok ? 0 : errno;
    if (std::fclose(f) != 0 && ok) {
        ok = false;
        e = errno;
    }
    if (!ok) {
        std::fprintf(stderr, "armprof-vp: error writing %s: %s\n", path.c_str(), std::strerror(e ? e : EIO));
        return 1;
    }
    std::printf("armprof-vp: wrote %llu operations to %s\n", (unsigned long long)sc.ops, path.c_str());
    return close_stdout() ? 0 : 1;
}

// Writes the whole file; false with errno set when it could not.
bool write_file(const std::string &path, const void *data, size_t len)
{
    FILE *f = std::fopen(path.c_str(), "wb");
    if (!f)
        return false;
    bool ok = std::fwrite(data, 1, len, f) == len;
    int e = errno;
    if (std::fclose(f) != 0)
        return false;
    errno = e;
    return ok;
}

// SIGINT / SIGTERM: the run stops at its next slice (Platform::set_stop_flag) and ends as a
// normal one does, its dump files holding every buffer the drivers consumed so far.
volatile std::sig_atomic_t g_stop = 0;

extern "C" void on_stop_signal(int sig) { g_stop = sig; }

void catch_stop_signals()
{
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sa.sa_flags = SA_RESETHAND | SA_RESTART; // a second signal ends the process at once; writes resume
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

// The dump files, written as the drivers consume their buffers (nothing is held in memory):
// DIR/spe.bin, DIR/spe_peN.bin and with TRBE DIR/trbe.bin, DIR/trbe_peN.bin.
class DumpFiles {
public:
    bool open(const std::string &out, unsigned pes, bool trbe)
    {
        for (unsigned i = 0; i < pes; i++) {
            std::string sfx = i == 0 ? ".bin" : "_pe" + std::to_string(i) + ".bin";
            if (!open_one(out + "/spe" + sfx, 0) || (trbe && !open_one(out + "/trbe" + sfx, 1)))
                return false;
        }
        return true;
    }
    void write(unsigned pe, bool trbe, const uint8_t *data, size_t len)
    {
        if (pe < f_[trbe].size() && std::fwrite(data, 1, len, f_[trbe][pe]) != len && err_.empty()) {
            err_ = "error writing " + names_[trbe][pe] + ": " + std::strerror(errno);
            g_stop = -1; // the run stops at its next slice: what follows could not be kept
        }
    }
    // Closes every file; false (error() says which) when a write or a close failed.
    bool close()
    {
        for (int u = 0; u < 2; u++) {
            for (size_t i = 0; i < f_[u].size(); i++)
                if (std::fclose(f_[u][i]) != 0 && err_.empty())
                    err_ = "error writing " + names_[u][i] + ": " + std::strerror(errno);
            f_[u].clear();
        }
        return err_.empty();
    }
    const std::string &error() const { return err_; }

private:
    bool open_one(const std::string &path, int u)
    {
        FILE *f = std::fopen(path.c_str(), "wb");
        if (!f) {
            err_ = "cannot write " + path + ": " + std::strerror(errno);
            return false;
        }
        f_[u].push_back(f);
        names_[u].push_back(path);
        return true;
    }
    std::vector<FILE *> f_[2];          // [0]: SPE dumps, [1]: TRBE dumps, by PE
    std::vector<std::string> names_[2];
    std::string err_;
};

cJSON *spu_json(Platform &p, unsigned i)
{
    spu_stats st;
    spu_get_stats(p.spu(i).unit(), &st);
    cJSON *o = cJSON_CreateObject();
    auto num = [o](const char *k, double v) { cJSON_AddNumberToObject(o, k, v); };
    num("population", (double)st.population);
    num("feed", (double)st.feed);
    num("filtrate", (double)st.filtrate);
    num("collisions", (double)st.collisions);
    num("filtered_out", (double)st.filtered_out);
    num("records_written", (double)st.records_written);
    num("bytes_written", (double)st.bytes_written);
    num("records_discarded", (double)st.records_discarded);
    num("cti_triggers", (double)p.spu(i).cti_triggers());
    cJSON *disc = cJSON_AddObjectToObject(o, "discarded");
    for (int r = 0; r < SPU_DISCARD__COUNT; r++)
        cJSON_AddNumberToObject(disc, spu_discard_reason_name((spu_discard_reason)r), (double)st.discarded[r]);
    num("fifo_bytes_max", (double)st.fifo_bytes_max);
    uint64_t level_cycles = 0;
    for (uint64_t c : st.fifo_hist)
        level_cycles += c;
    num("fifo_bytes_mean", level_cycles ? (double)st.fifo_byte_cycles / (double)level_cycles : 0.0);
    timing_json(o, p.scenario().clock_ns, st.writer_stall_cycles, st.outstanding_writes_max, st.writes_answered,
                st.write_latency_min, st.write_latency_sum, st.write_latency_max);
    num("serrors", (double)st.serrors);
    const SpuModule::Stats &ms = p.spu(i).stats();
    num("bus_write_transactions", (double)ms.writes);
    num("bus_write_bytes", (double)ms.bytes);
    num("tlm_writes", (double)ms.tlm_writes);
    num("dmi_writes", (double)ms.dmi_writes);
    num("bus_time_ns", ms.bus_time.to_seconds() * 1e9);
    num("interrupts", (double)p.irqc().assertions(i, p.scenario().ppi_pmbirq));
    cJSON *me = cJSON_AddObjectToObject(o, "management_events");
    cJSON_AddNumberToObject(me, "total", (double)st.management_events);
    cJSON_AddNumberToObject(me, "buffer_full", (double)st.buffer_full_events);
    cJSON_AddNumberToObject(me, "fault", (double)st.fault_events);
    cJSON_AddNumberToObject(me, "ext_abort", (double)st.ext_abort_events);
    cJSON *fk = cJSON_AddObjectToObject(o, "faults_by_kind");
    const SpeAgent::Stats &as = p.agent(i).stats();
    for (const auto &kv : as.by_kind)
        if (kv.first != "buffer_full")
            cJSON_AddNumberToObject(fk, kv.first.c_str(), (double)kv.second);
    cJSON *ag = cJSON_AddObjectToObject(o, "driver");
    cJSON_AddNumberToObject(ag, "serviced", (double)as.irqs);
    cJSON_AddNumberToObject(ag, "fatal", (double)as.fatal);
    cJSON_AddNumberToObject(ag, "dl", (double)as.dl);
    cJSON_AddNumberToObject(ag, "bytes_dumped", (double)as.bytes_copied);
    return o;
}

cJSON *trbu_json(Platform &p, unsigned i)
{
    trbu_stats st;
    trbu_get_stats(p.trbu(i).unit(), &st);
    cJSON *o = cJSON_CreateObject();
    auto num = [o](const char *k, double v) { cJSON_AddNumberToObject(o, k, v); };
    num("trace_bytes_produced", (double)p.trace_source(i).produced());
    num("bytes_in", (double)st.bytes_in);
    num("bytes_accepted", (double)st.bytes_accepted);
    num("bytes_written", (double)st.bytes_written);
    num("bytes_padded", (double)st.bytes_padded);
    num("bytes_discarded", (double)st.bytes_discarded);
    cJSON *disc = cJSON_AddObjectToObject(o, "discarded");
    for (int r = 0; r < TRBU_DISCARD__COUNT; r++)
        cJSON_AddNumberToObject(disc, trbu_discard_reason_name((trbu_discard_reason)r), (double)st.discarded[r]);
    num("port_writes", (double)st.port_writes);
    num("wraps", (double)st.wraps);
    num("detected_triggers", (double)st.detected_triggers);
    num("trigger_events", (double)st.trigger_events);
    num("flushes", (double)st.flushes);
    num("buf_bytes_max", (double)st.buf_bytes_max);
    num("bytes_refused", (double)st.bytes_refused);
    timing_json(o, p.scenario().clock_ns, st.writer_stall_cycles, st.outstanding_writes_max, st.port_writes,
                st.write_latency_min, st.write_latency_sum, st.write_latency_max);
    num("tsb_csyncs", (double)st.tsb_csyncs);
    num("serrors", (double)st.serrors);
    const TrbuModule::Stats &ms = p.trbu(i).stats();
    num("bus_write_transactions", (double)ms.writes);
    num("bus_write_bytes", (double)ms.bytes);
    num("tlm_writes", (double)ms.tlm_writes);
    num("dmi_writes", (double)ms.dmi_writes);
    num("bus_time_ns", ms.bus_time.to_seconds() * 1e9);
    num("interrupts", (double)p.irqc().assertions(i, p.scenario().trbe.ppi));
    cJSON *me = cJSON_AddObjectToObject(o, "management_events");
    cJSON_AddNumberToObject(me, "total", (double)st.management_events);
    cJSON_AddNumberToObject(me, "buffer_full", (double)st.buffer_full_events);
    cJSON_AddNumberToObject(me, "wrap_irq", (double)st.wrap_irq_events);
    cJSON_AddNumberToObject(me, "trigger", (double)st.trigger_mgmt_events);
    cJSON_AddNumberToObject(me, "fault", (double)st.fault_events);
    cJSON_AddNumberToObject(me, "ext_abort", (double)st.ext_abort_events);
    cJSON_AddNumberToObject(me, "impdef", (double)st.impdef_events);
    const TrbeAgent::Stats &as = p.trbe_agent(i).stats();
    cJSON *ag = cJSON_AddObjectToObject(o, "driver");
    cJSON_AddNumberToObject(ag, "serviced", (double)as.irqs);
    cJSON_AddNumberToObject(ag, "wraps", (double)as.wraps);
    cJSON_AddNumberToObject(ag, "fatal", (double)as.fatal);
    cJSON_AddNumberToObject(ag, "faults", (double)as.faults);
    cJSON_AddNumberToObject(ag, "spurious", (double)as.spurious);
    cJSON_AddNumberToObject(ag, "pad_bytes", (double)as.pad_bytes);
    cJSON_AddNumberToObject(ag, "bytes_dumped", (double)as.bytes_copied + (double)as.pad_bytes);
    cJSON_AddBoolToObject(ag, "stopped_on_fault", as.permanent != 0);
    if (as.permanent) {
        const TrbeAgent::Event &e = p.trbe_agent(i).permanent_fault();
        cJSON *pf = cJSON_AddObjectToObject(ag, "permanent_fault");
        // TRBSR_EL1 has PMBSR_EL1's EC [31:26], EA [18] and FSC [5:0]: the same kind names.
        cJSON_AddNumberToObject(pf, "at_ns", (double)e.when_ns);
        char hex[32];
        std::snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)e.trbsr);
        cJSON_AddStringToObject(pf, "TRBSR_EL1", hex);
        std::snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)e.trbptr);
        cJSON_AddStringToObject(pf, "TRBPTR_EL1", hex);
        cJSON_AddStringToObject(pf, "kind", SpeAgent::fault_kind(e.trbsr).c_str());
    }
    return o;
}

// PE i's PMU counters as the perf session read them at the end (event name -> count).
cJSON *pmu_json(Platform &p, unsigned i)
{
    cJSON *o = cJSON_CreateObject();
    PmuAgent &a = p.pmu_agent(i);
    const std::vector<uint16_t> &ev = p.pmu_events();
    for (unsigned c = 0; c < ev.size(); c++)
        cJSON_AddNumberToObject(o, pmu_event_name(ev[c]), (double)a.read(c));
    cJSON_AddNumberToObject(o, "PMCCNTR_EL0", (double)a.cycles());
    cJSON_AddNumberToObject(o, "interrupts", (double)p.irqc().assertions(i, p.scenario().pmu.ppi));
    return o;
}

} // namespace

int vp_serve(int *argc, char ***argv); // serve.cpp

int sc_main(int argc, char **argv)
{
    // --serve: armprof-explore's fork server (serve.cpp); a child comes back with its run's arguments.
    if (argc > 1 && !std::strcmp(argv[1], "--serve")) {
        int rc = vp_serve(&argc, &argv);
        if (rc >= 0)
            return rc;
    }
    // Past a file-size limit a write fails with EFBIG (said, with the file) instead of SIGXFSZ
    // ending the process.
    std::signal(SIGXFSZ, SIG_IGN);
    Scenario sc;
    std::string out = "out", file, trace_out;
    bool vcd = false, quiet = false, check = false;
    uint64_t ops_override = 0, trace_pe_v = 0;
    long trace_pe = -1;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        // Options with a value: "--opt VALUE" or "--opt=VALUE".
        std::string val;
        bool has_val = false;
        size_t eq = a.find('=');
        if (a.compare(0, 2, "--") == 0 && eq != std::string::npos) {
            val = a.substr(eq + 1);
            a = a.substr(0, eq);
            has_val = true;
        }
        auto value = [&](std::string &dst) {
            if (has_val) {
                dst = val;
                return true;
            }
            if (i + 1 >= argc) {
                std::fprintf(stderr, "armprof-vp: %s needs a value (armprof-vp --help)\n", a.c_str());
                return false;
            }
            dst = argv[++i];
            return true;
        };
        if (a == "--out") {
            if (!value(out))
                return 2;
        } else if (a == "--write-trace") {
            if (!value(trace_out))
                return 2;
        } else if (a == "--pe") {
            std::string v;
            if (!value(v) || !parse_u64("--pe", v.c_str(), 0, 63, trace_pe_v))
                return 2;
            trace_pe = (long)trace_pe_v;
        } else if (a == "--ops") {
            std::string v;
            if (!value(v) || !parse_u64("--ops", v.c_str(), 1, UINT64_MAX / 2, ops_override))
                return 2;
        } else if (has_val) {
            std::fprintf(stderr, "armprof-vp: %s takes no value (armprof-vp --help)\n", a.c_str());
            return 2;
        } else if (a == "--vcd")
            vcd = true;
        else if (a == "--quiet")
            quiet = true;
        else if (a == "--check")
            check = true;
        else if (a == "-h" || a == "--help") {
            usage(stdout);
            return close_stdout() ? 0 : 1;
        } else if (a.size() > 1 && a[0] == '-') {
            std::fprintf(stderr, "armprof-vp: unknown option '%s' (armprof-vp --help lists them)\n",
                         printable(a).c_str());
            return 2;
        } else if (!file.empty()) {
            std::fprintf(stderr, "armprof-vp: unexpected argument '%s' (one scenario file, already '%s')\n",
                         printable(a).c_str(), printable(file).c_str());
            return 2;
        } else
            file = a;
    }
    if (!file.empty()) {
        std::string err;
        if (!load_scenario(file, sc, err)) {
            std::fprintf(stderr, "armprof-vp: %s\n", err.c_str());
            return 2;
        }
    }
    if (ops_override && trace_out.empty() && sc.workload.replay()) {
        std::fprintf(stderr, "armprof-vp: --ops does not apply to a trace replay (workload.repeat sets the length)\n");
        return 2;
    }
    if (ops_override)
        sc.ops = ops_override;
    if (trace_pe >= 0 && trace_out.empty()) {
        std::fprintf(stderr, "armprof-vp: --pe goes with --write-trace\n");
        return 2;
    }
    if (trace_pe >= (long)sc.pes) {
        std::fprintf(stderr, "armprof-vp: --pe %ld: the scenario has %u PE(s)\n", trace_pe, sc.pes);
        return 2;
    }
    if (check && (!trace_out.empty() || vcd)) {
        std::fprintf(stderr, "armprof-vp: --check runs nothing: not with --write-trace or --vcd\n");
        return 2;
    }
    if (!trace_out.empty())
        return write_trace(sc, trace_out, trace_pe < 0 ? 0u : (unsigned)trace_pe);
    auto t0 = std::chrono::steady_clock::now();
    Platform *pp;
    try {
        pp = new Platform(sc);
    } catch (const sc_report &e) { // a module refused its configuration: the message, not SystemC's file and line
        std::fprintf(stderr, "armprof-vp: %s\n", e.get_msg());
        return 2;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "armprof-vp: %s\n", e.what());
        return 2;
    }
    if (check) {
        // The end of elaboration: the faults are injected (Platform::Starter) at time 0.
        try {
            sc_start(SC_ZERO_TIME);
        } catch (const sc_report &e) {
            std::fprintf(stderr, "armprof-vp: %s\n", e.get_msg());
            return 2;
        } catch (const std::exception &e) {
            std::fprintf(stderr, "armprof-vp: %s\n", e.what());
            return 2;
        }
        std::printf("armprof-vp: %s: scenario '%s', %u PE(s): checked\n", file.empty() ? "(built-in)" : file.c_str(),
                    sc.name.c_str(), sc.pes);
        return close_stdout() ? 0 : 1;
    }
    Platform &p = *pp;
    int last = -1;
    // Progress on a terminal only: a log or a pipe gets the summary alone.
    bool show_progress = !quiet && isatty(STDERR_FILENO);
    if (show_progress)
        p.set_progress([&last](double f) {
            int pct = (int)(f * 10) * 10;
            if (pct > last) {
                last = pct;
                std::fprintf(stderr, "\rarmprof-vp: %3d%%", pct);
                std::fflush(stderr);
            }
        });
    mkdir(out.c_str(), 0777);
    // A summary of an earlier run would otherwise stand beside dumps this run could not finish.
    const std::string jpath = out + "/summary.json";
    if (unlink(jpath.c_str()) != 0 && errno != ENOENT) {
        std::fprintf(stderr, "armprof-vp: cannot replace %s: %s\n", jpath.c_str(), std::strerror(errno));
        return 1;
    }
    DumpFiles dumps;
    if (!dumps.open(out, p.pes(), p.has_trbe())) {
        std::fprintf(stderr, "armprof-vp: %s\n", dumps.error().c_str());
        dumps.close();
        return 1;
    }
    p.set_dump_sink([&dumps](unsigned pe, bool trbe, const uint8_t *b, size_t l) { dumps.write(pe, trbe, b, l); });
    p.set_stop_flag(&g_stop);
    catch_stop_signals();
    sc_trace_file *tf = nullptr;
    if (vcd) {
        mkdir("waves", 0777);
        tf = sc_create_vcd_trace_file("waves/armprof-vp");
        p.trace(tf);
    }
    try {
        p.run();
    } catch (const sc_report &e) {
        std::fprintf(stderr, "\narmprof-vp: %s\n", e.get_msg());
        dumps.close();
        return sc_time_stamp() == SC_ZERO_TIME ? 2 : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "\narmprof-vp: %s\n", e.what());
        dumps.close();
        return sc_time_stamp() == SC_ZERO_TIME ? 2 : 1;
    }
    if (tf)
        sc_close_vcd_trace_file(tf);
    double host = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!quiet)
        std::fprintf(stderr, "\r");
    if (!dumps.close()) {
        std::fprintf(stderr, "armprof-vp: %s\n", dumps.error().c_str());
        return 1;
    }

    uint64_t pop = 0;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "scenario", sc.name.c_str());
    // A signal ended the run early: the counts are those at that point, the dumps hold the
    // buffers consumed until then (what is still in a buffer is not in them).
    cJSON_AddBoolToObject(root, "interrupted", p.interrupted());
    cJSON_AddNumberToObject(root, "sim_time_ns", sc_time_stamp().to_seconds() * 1e9);
    cJSON_AddNumberToObject(root, "host_seconds", host);
    cJSON_AddNumberToObject(root, "pes", sc.pes);
    cJSON_AddStringToObject(root, "timing", buffer_timing_name(p.timing()));
    cJSON *units = cJSON_AddObjectToObject(root, "units");
    for (unsigned i = 0; i < p.pes(); i++) {
        cJSON *u = spu_json(p, i);
        pop += (uint64_t)cJSON_GetObjectItem(u, "population")->valuedouble;
        cJSON_AddItemToObject(units, ("pe" + std::to_string(i) + ".spu").c_str(), u);
        if (p.has_trbe())
            cJSON_AddItemToObject(units, ("pe" + std::to_string(i) + ".trbu").c_str(), trbu_json(p, i));
    }
    if (p.has_pmu()) {
        cJSON *pm = cJSON_AddObjectToObject(root, "pmu");
        for (unsigned i = 0; i < p.pes(); i++)
            cJSON_AddItemToObject(pm, ("pe" + std::to_string(i)).c_str(), pmu_json(p, i));
    }
    cJSON_AddNumberToObject(root, "population_ops", (double)pop);
    cJSON_AddNumberToObject(root, "population_ops_per_host_second", host > 0 ? (double)pop / host : 0);
    const Bus::Stats &bs = p.bus().target_stats(0);
    cJSON *bus = cJSON_AddObjectToObject(root, "bus");
    cJSON_AddNumberToObject(bus, "transactions", (double)bs.transactions);
    cJSON_AddNumberToObject(bus, "bytes", (double)bs.bytes);
    cJSON_AddNumberToObject(bus, "busy_ns", bs.busy.to_seconds() * 1e9);
    cJSON_AddNumberToObject(bus, "wait_ns", bs.wait.to_seconds() * 1e9); // time with a transfer queued
    cJSON_AddNumberToObject(bus, "wait_mean_ns",
                            bs.transactions ? bs.wait_sum.to_seconds() * 1e9 / (double)bs.transactions : 0.0);
    cJSON_AddNumberToObject(bus, "wait_max_ns", bs.wait_max.to_seconds() * 1e9);
    if (TrafficGen *tg = p.traffic()) {
        const TrafficGen::Stats &ts = tg->stats();
        cJSON *bg = cJSON_AddObjectToObject(bus, "background_traffic");
        cJSON_AddNumberToObject(bg, "transactions", (double)ts.transactions);
        cJSON_AddNumberToObject(bg, "bytes", (double)ts.bytes);
        cJSON_AddNumberToObject(bg, "latency_mean_ns",
                                ts.transactions ? ts.latency_sum.to_seconds() * 1e9 / (double)ts.transactions : 0.0);
        cJSON_AddNumberToObject(bg, "latency_max_ns", ts.latency_max.to_seconds() * 1e9);
    }
    const Smmu::Stats &ss = p.smmu().stats();
    cJSON *sm = cJSON_AddObjectToObject(root, "smmu");
    cJSON_AddNumberToObject(sm, "translations", (double)ss.translations);
    cJSON_AddNumberToObject(sm, "tlb_hits", (double)ss.tlb_hits);
    cJSON_AddNumberToObject(sm, "walks", (double)ss.walks);
    cJSON_AddNumberToObject(sm, "descriptor_reads", (double)ss.desc_reads);
    cJSON_AddNumberToObject(sm, "hw_updates", (double)ss.hw_updates);
    cJSON_AddNumberToObject(sm, "faults", (double)ss.faults);
    cJSON_AddNumberToObject(sm, "dmi_grants", (double)ss.dmi_grants);
    char *js = cJSON_Print(root);
    bool ok = write_file(jpath, js, std::strlen(js));
    cJSON_free(js);
    cJSON_Delete(root);
    if (!ok) {
        std::fprintf(stderr, "armprof-vp: cannot write %s: %s\n", jpath.c_str(), std::strerror(errno ? errno : EIO));
        return 1;
    }

    if (show_progress && last >= 0)
        std::fprintf(stderr, "\r%*s\r", 20, ""); // clear the progress line
    std::printf("armprof-vp: scenario '%s', %u PE(s), %.3f ms simulated in %.2f s host\n", sc.name.c_str(),
                sc.pes, sc_time_stamp().to_seconds() * 1e3, host);
    for (unsigned i = 0; i < sc.pes && p.trace(); i++) {
        if (sc.workload.traces.empty() && i)
            break;
        std::printf("  workload: %s replays %s (%zu operations x %llu)\n",
                    sc.workload.traces.empty() ? "every PE" : ("pe" + std::to_string(i)).c_str(),
                    p.pe_trace_path(i).c_str(), p.pe_trace(i)->count, (unsigned long long)sc.workload.repeat);
    }
    std::printf("  population ops     %llu (%.1f M/s host)\n", (unsigned long long)pop, host > 0 ? pop / host / 1e6 : 0.0);
    for (unsigned i = 0; i < p.pes(); i++) {
        spu_stats st;
        spu_get_stats(p.spu(i).unit(), &st);
        const SpeAgent::Stats &as = p.agent(i).stats();
        std::printf("  pe%u spu: sampled %llu, collisions %llu, records written %llu (%llu B), discarded %llu, "
                    "PMBIRQ %llu, buffer full %llu, faults %llu, ext aborts %llu, dumped %llu B\n",
                    i, (unsigned long long)st.feed, (unsigned long long)st.collisions,
                    (unsigned long long)st.records_written, (unsigned long long)st.bytes_written,
                    (unsigned long long)st.records_discarded,
                    (unsigned long long)p.irqc().assertions(i, sc.ppi_pmbirq), (unsigned long long)as.buffer_full,
                    (unsigned long long)as.faults, (unsigned long long)as.ext_aborts,
                    (unsigned long long)as.bytes_copied);
        if (p.timing() != BufferTiming::Off && st.writes_answered)
            std::printf("    memory timing (%s): write latency %.0f/%.1f/%.0f ns (min/mean/max), writer stalled %llu "
                        "cycles, outstanding writes max %llu, FIFO max %llu B\n",
                        buffer_timing_name(p.timing()), (double)st.write_latency_min * sc.clock_ns,
                        (double)st.write_latency_sum / (double)st.writes_answered * sc.clock_ns,
                        (double)st.write_latency_max * sc.clock_ns, (unsigned long long)st.writer_stall_cycles,
                        (unsigned long long)st.outstanding_writes_max, (unsigned long long)st.fifo_bytes_max);
        for (const auto &e : p.agent(i).events())
            if (SpeAgent::fault_kind(e.pmbsr) != "buffer_full") {
                std::printf("    at %llu ns: PMBSR_EL1=0x%llx (%s) PMBPTR_EL1=0x%llx\n", (unsigned long long)e.when_ns,
                            (unsigned long long)e.pmbsr, SpeAgent::fault_kind(e.pmbsr).c_str(),
                            (unsigned long long)e.pmbptr);
            }
    }
    for (unsigned i = 0; p.has_trbe() && i < p.pes(); i++) {
        trbu_stats st;
        trbu_get_stats(p.trbu(i).unit(), &st);
        const TrbeAgent::Stats &as = p.trbe_agent(i).stats();
        std::printf("  pe%u trbu: trace bytes %llu, written %llu, discarded %llu, TRBIRQ %llu, wraps %llu, "
                    "triggers %llu, faults %llu, dumped %llu B\n",
                    i, (unsigned long long)p.trace_source(i).produced(), (unsigned long long)st.bytes_written,
                    (unsigned long long)st.bytes_discarded,
                    (unsigned long long)p.irqc().assertions(i, sc.trbe.ppi), (unsigned long long)st.wraps,
                    (unsigned long long)st.detected_triggers, (unsigned long long)as.faults,
                    (unsigned long long)(as.bytes_copied + as.pad_bytes));
        if (p.timing() != BufferTiming::Off && st.port_writes)
            std::printf("    memory timing (%s): write latency %.0f/%.1f/%.0f ns (min/mean/max), writer stalled %llu "
                        "cycles, outstanding writes max %llu, buffer max %llu B, refused %llu B\n",
                        buffer_timing_name(p.timing()), (double)st.write_latency_min * sc.clock_ns,
                        (double)st.write_latency_sum / (double)st.port_writes * sc.clock_ns,
                        (double)st.write_latency_max * sc.clock_ns, (unsigned long long)st.writer_stall_cycles,
                        (unsigned long long)st.outstanding_writes_max, (unsigned long long)st.buf_bytes_max,
                        (unsigned long long)st.bytes_refused);
        unsigned shown = 0, more = 0;
        for (const auto &e : p.trbe_agent(i).events())
            if (ap_field_get(TRBSR_EC, e.trbsr) != 0) {
                if (shown++ >= 8) {
                    more++;
                    continue;
                }
                std::printf("    at %llu ns: TRBSR_EL1=0x%llx TRBPTR_EL1=0x%llx\n", (unsigned long long)e.when_ns,
                            (unsigned long long)e.trbsr, (unsigned long long)e.trbptr);
            }
        if (more)
            std::printf("    ... and %u more fault reports\n", more);
        if (as.permanent) {
            const TrbeAgent::Event &e = p.trbe_agent(i).permanent_fault();
            std::printf("    driver stopped: permanent fault (%s) at %llu ns, TRBSR_EL1=0x%llx TRBPTR_EL1=0x%llx; "
                        "trace after it not collected\n",
                        SpeAgent::fault_kind(e.trbsr).c_str(), (unsigned long long)e.when_ns,
                        (unsigned long long)e.trbsr, (unsigned long long)e.trbptr);
        }
    }
    for (unsigned i = 0; p.has_pmu() && i < p.pes(); i++) {
        std::printf("  pe%u pmu:", i);
        const std::vector<uint16_t> &ev = p.pmu_events();
        for (unsigned c = 0; c < ev.size(); c++)
            std::printf("%s %s %llu", c ? "," : "", pmu_event_name(ev[c]),
                        (unsigned long long)p.pmu_agent(i).read(c));
        std::printf("\n");
    }
    if (TrafficGen *tg = p.traffic())
        std::printf("  background traffic: %llu bursts, %llu B\n", (unsigned long long)tg->stats().transactions,
                    (unsigned long long)tg->stats().bytes);
    std::printf("  bus: %llu transactions, %llu B, queued %.0f ns; smmu: %llu walks, %llu TLB hits, %llu DMI grants\n",
                (unsigned long long)bs.transactions, (unsigned long long)bs.bytes, bs.wait.to_seconds() * 1e9,
                (unsigned long long)ss.walks, (unsigned long long)ss.tlb_hits, (unsigned long long)ss.dmi_grants);
    std::printf("  wrote %s/summary.json, %s/spe.bin%s%s\n", out.c_str(), out.c_str(),
                p.has_trbe() ? (", " + out + "/trbe.bin").c_str() : "", vcd ? ", waves/armprof-vp.vcd" : "");
    bool interrupted = p.interrupted();
    if (interrupted)
        std::printf("  interrupted by signal %d: the dumps hold the buffers consumed until then\n", (int)g_stop);
    delete pp;
    if (!close_stdout())
        return 1;
    return interrupted ? 128 + (int)g_stop : 0;
}
