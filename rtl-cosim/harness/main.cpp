// SPDX-License-Identifier: Apache-2.0
// main.cpp: armprof-cosim, the command line of the lockstep RTL-vs-C-model co-simulation.
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "cosim.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: armprof-cosim [options]\n"
            "  --seed N           first seed (default 1)\n"
            "  --seeds K          run K seeds: N, N+1, ... (default 1)\n"
            "  --cycles N         cycles per seed (default 100000)\n"
            "  --set KEY=VALUE    override a configuration field after the seed's draw\n"
            "                     (keys: %s)\n"
            "  --perturb P        a deliberately broken RTL that must fail an assertion and the\n"
            "                     compare: reload (every COUNT reload one too high), drain (the FIFO\n"
            "                     drains on the first not-ready cycle of each stall), ready (the\n"
            "                     FIFO ignores drain_ready)\n"
            "  --stall-pattern P  memory acceptance (drain_ready) after the seed's draw: none,\n"
            "                     random (single-cycle stalls), bursts (long latency bursts),\n"
            "                     latency (busy after each accepted transfer), mixed (all three)\n"
            "  --trace            dump the whole run to <waves>/<run>.fst\n"
            "  --vcd              also write <waves>/<run>.vcd (with --trace or on a mismatch)\n"
            "  --waves-dir DIR    where dumps go (default: $ARMPROF_WAVES_DIR, else ./waves)\n"
            "  --run NAME         dump file name (default cosim-seed<N>)\n"
            "  --no-mismatch-wave do not rerun and dump the cycles around a mismatch\n"
            "  --junit PATH       write a JUnit XML report of the seeds\n"
            "  --coverage DIR     run the RTL's coverage build (line, toggle, cover points); write\n"
            "                     DIR/seeds/*.dat and the merged report: DIR/coverage.txt (per-module\n"
            "                     table, every cover point), coverage.dat, coverage.info (lcov),\n"
            "                     annotated/ (verilator_coverage), html/ (genhtml)\n"
            "  --require-covers   with --coverage: a cover point never hit fails the run (exit 1)\n"
            "  --coverage-report DIR  only merge and report DIR/seeds/*.dat (runs made elsewhere,\n"
            "                     e.g. one per Slurm task); with --require-covers and --junit\n"
            "  --show-config      print each seed's configuration\n"
            "Prints 'matched N cycles' per seed, or the first mismatch (cycle, signal, both values,\n"
            "seed) and any RTL assertion that failed. Exit status: 0 all matched (and, with\n"
            "--require-covers, every cover point hit), 1 a mismatch, a failed assertion or a cover\n"
            "point not hit, 2 usage or harness error.\n",
            apcosim::config_keys().c_str());
}

int main(int argc, char **argv)
{
    apcosim::Options o;
    o.quiet = true;
    unsigned nseeds = 1;
    std::string junit, report_only;
    bool show = false, require_covers = false;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto val = [&](void) -> const char * {
            if (i + 1 >= argc) {
                fprintf(stderr, "armprof-cosim: %s needs a value\n", a.c_str());
                exit(2);
            }
            return argv[++i];
        };
        if (a == "--seed") o.seed = strtoull(val(), nullptr, 0);
        else if (a == "--seeds") nseeds = (unsigned)strtoul(val(), nullptr, 0);
        else if (a == "--cycles") o.cycles = strtoull(val(), nullptr, 0);
        else if (a == "--set") {
            std::string kv = val();
            size_t eq = kv.find('=');
            if (eq == std::string::npos) {
                fprintf(stderr, "armprof-cosim: --set wants KEY=VALUE\n");
                return 2;
            }
            o.overrides.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
        } else if (a == "--perturb") {
            std::string p = val();
            if (p == "reload")
                o.perturb = apcosim::ModelSide::PERTURB_RELOAD_OFF_BY_ONE;
            else if (p == "drain")
                o.perturb = apcosim::ModelSide::PERTURB_DRAIN_EXTRA;
            else if (p == "ready")
                o.perturb = apcosim::ModelSide::PERTURB_IGNORE_READY;
            else {
                fprintf(stderr, "armprof-cosim: unknown perturbation '%s' (reload, drain, ready)\n",
                        p.c_str());
                return 2;
            }
        } else if (a == "--stall-pattern") {
            std::string p = val();
            std::vector<std::pair<std::string, std::string>> kv;
            if (p == "none")
                kv = { { "stall_rate", "0" }, { "ready_drop_rate", "0" }, { "accept_gap", "0" } };
            else if (p == "random")
                kv = { { "stall_rate", "0" }, { "ready_drop_rate", "0.2" }, { "accept_gap", "0" } };
            else if (p == "bursts")
                kv = { { "stall_rate", "0.002" }, { "stall_len_max", "1500" },
                       { "ready_drop_rate", "0" }, { "accept_gap", "0" } };
            else if (p == "latency")
                kv = { { "stall_rate", "0" }, { "ready_drop_rate", "0" }, { "accept_gap", "6" } };
            else if (p == "mixed")
                kv = { { "stall_rate", "0.002" }, { "stall_len_max", "800" },
                       { "ready_drop_rate", "0.1" }, { "accept_gap", "3" } };
            else {
                fprintf(stderr, "armprof-cosim: unknown stall pattern '%s' (none, random, bursts, "
                                "latency, mixed)\n", p.c_str());
                return 2;
            }
            o.overrides.insert(o.overrides.end(), kv.begin(), kv.end());
        } else if (a == "--trace") o.trace = true;
        else if (a == "--vcd") o.vcd = true;
        else if (a == "--waves-dir") o.waves_dir = val();
        else if (a == "--run") o.run_name = val();
        else if (a == "--no-mismatch-wave") o.wave_on_mismatch = false;
        else if (a == "--junit") junit = val();
        else if (a == "--coverage") o.coverage_dir = val();
        else if (a == "--coverage-report") report_only = val();
        else if (a == "--require-covers") require_covers = true;
        else if (a == "--show-config") show = true;
        else if (a == "-h" || a == "--help") {
            usage(stdout);
            if (fflush(stdout) == 0 && !ferror(stdout))
                return 0;
            fprintf(stderr, "armprof-cosim: error writing standard output: %s\n", strerror(errno ? errno : EIO));
            return 2;
        } else {
            fprintf(stderr, "armprof-cosim: unknown option %s\n", a.c_str());
            usage(stderr);
            return 2;
        }
    }
    if (nseeds == 0 || o.cycles == 0) {
        fprintf(stderr, "armprof-cosim: --seeds and --cycles must be positive\n");
        return 2;
    }
    if (require_covers && o.coverage_dir.empty() && report_only.empty()) {
        fprintf(stderr, "armprof-cosim: --require-covers needs --coverage or --coverage-report\n");
        return 2;
    }
    int status = 0;
    uint64_t total = 0;
    unsigned bad_seeds = 0;
    apcosim::Campaign camp;
    std::string err;
    // The coverage report: the table, and the cover points never hit (a failure only when
    // they are required).
    auto report = [&](const std::string &dir) {
        if (!apcosim::coverage_finish(camp, dir, require_covers, &err)) {
            fprintf(stderr, "armprof-cosim: coverage: %s\n", err.c_str());
            return 2;
        }
        printf("RTL coverage (%s/coverage.txt, html/index.html):\n%s", dir.c_str(),
               apcosim::coverage_table(camp.coverage, false).c_str());
        return require_covers && !camp.coverage.not_hit().empty() ? 1 : 0;
    };
    if (!report_only.empty()) {
        status = report(report_only);
        if (!junit.empty() && status != 2 && !apcosim::write_junit(camp, junit, &err)) {
            fprintf(stderr, "armprof-cosim: %s\n", err.c_str());
            status = 2;
        }
        return status;
    }
    if (!o.coverage_dir.empty() && !apcosim::coverage_begin(o.coverage_dir, &err)) {
        fprintf(stderr, "armprof-cosim: %s\n", err.c_str());
        return 2;
    }
    for (unsigned k = 0; k < nseeds; k++) {
        apcosim::Options s = o;
        s.seed = o.seed + k;
        if (nseeds > 1)
            s.run_name = o.run_name.empty() ? "" : o.run_name + "-seed" + std::to_string(s.seed);
        apcosim::Result r = apcosim::run(s);
        if (show)
            printf("seed %" PRIu64 " config: %s\n", s.seed, apcosim::config_describe(r.cfg).c_str());
        if (r.ok) {
            printf("seed %" PRIu64 ": matched %" PRIu64 " cycles (%.2f s; ops %" PRIu64 " samples %"
                   PRIu64 " collisions %" PRIu64 " fifo-full cycles %" PRIu64 " records %" PRIu64
                   " enable toggles %" PRIu64 " not-ready cycles %" PRIu64 " PSB CSYNCs %" PRIu64 ")\n",
                   s.seed, r.matched, r.seconds, r.ops, r.samples, r.collisions, r.full_cycles,
                   r.records, r.toggles, r.stall_cycles, r.psb_syncs);
        } else {
            printf("seed %" PRIu64 ": %s: %s\n", s.seed,
                   r.harness_error ? "ERROR" : (r.signal.empty() ? "ASSERTION" : "MISMATCH"),
                   r.message.c_str());
            printf("  config: %s\n", apcosim::config_describe(r.cfg).c_str());
            status = r.harness_error ? 2 : 1;
            camp.failures++;
            bad_seeds++;
        }
        if (r.ok && !r.wave_file.empty())
            printf("  waveform: %s\n", r.wave_file.c_str());
        total += r.matched;
        camp.cycles += r.matched;
        camp.seeds.push_back(s.seed);
        camp.results.push_back(r);
    }
    if (!o.coverage_dir.empty()) {
        int cs = report(o.coverage_dir);
        if (cs == 2 || (cs == 1 && status == 0))
            status = cs;
    }
    if (!junit.empty()) {
        if (!apcosim::write_junit(camp, junit, &err)) {
            fprintf(stderr, "armprof-cosim: %s\n", err.c_str());
            status = status ? status : 2;
        } else {
            printf("JUnit report: %s\n", junit.c_str());
        }
    }
    if (bad_seeds == 0)
        printf("matched %" PRIu64 " cycles over %u seed%s\n", total, nseeds, nseeds == 1 ? "" : "s");
    if (status == 1 && camp.have_coverage && require_covers && !camp.coverage.not_hit().empty())
        printf("FAILED: %zu cover point%s never hit\n", camp.coverage.not_hit().size(),
               camp.coverage.not_hit().size() == 1 ? "" : "s");
    if (fflush(stdout) != 0 || ferror(stdout)) { // the report did not reach its reader
        fprintf(stderr, "armprof-cosim: error writing standard output: %s\n", strerror(errno ? errno : EIO));
        status = 2;
    }
    return status;
}
