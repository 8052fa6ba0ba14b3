// SPDX-License-Identifier: Apache-2.0
// coverage.cpp: reads, merges and summarises Verilator coverage files; runs verilator_coverage and genhtml for the views.
#include "coverage.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>

#ifndef ARMPROF_VERILATOR_COVERAGE
#define ARMPROF_VERILATOR_COVERAGE ""
#endif
#ifndef ARMPROF_GENHTML
#define ARMPROF_GENHTML ""
#endif

namespace apcosim {

namespace fs = std::filesystem;

const char *coverage_tool_verilator_coverage() { return ARMPROF_VERILATOR_COVERAGE; }
const char *coverage_tool_genhtml() { return ARMPROF_GENHTML; }

bool coverage_read(const std::string &path, CoverageData &acc, std::string *err)
{
    std::ifstream f(path);
    if (!f) {
        *err = "cannot read " + path;
        return false;
    }
    std::string line;
    unsigned n = 0;
    bool header = false;
    while (std::getline(f, line)) {
        n++;
        if (line.rfind("# SystemC::Coverage", 0) == 0) {
            header = true;
            continue;
        }
        if (line.empty() || line[0] == '#')
            continue;
        // C '<key>' <count>
        size_t q = line.rfind('\'');
        if (line.size() < 5 || line.compare(0, 3, "C '") != 0 || q <= 2) {
            *err = path + ":" + std::to_string(n) + ": not a coverage point";
            return false;
        }
        char *end = nullptr;
        const char *num = line.c_str() + q + 1;
        uint64_t c = strtoull(num, &end, 10);
        if (end == num) {
            *err = path + ":" + std::to_string(n) + ": no count";
            return false;
        }
        acc[line.substr(3, q - 3)] += c;
    }
    if (!header) {
        *err = path + ": not a Verilator coverage file (no '# SystemC::Coverage' line)";
        return false;
    }
    return true;
}

bool coverage_write(const std::string &path, const CoverageData &acc, std::string *err)
{
    std::ofstream f(path);
    if (!f) {
        *err = "cannot write " + path;
        return false;
    }
    f << "# SystemC::Coverage-3\n";
    for (const auto &kv : acc)
        f << "C '" << kv.first << "' " << kv.second << "\n";
    f.close();
    if (!f) {
        *err = "write failed: " + path;
        return false;
    }
    return true;
}

namespace {

// The value of one field of a key ("\001f\002file\001l\00212..."), or "".
std::string field(const std::string &key, const char *name)
{
    const std::string tag = std::string("\001") + name + "\002";
    size_t p = key.find(tag);
    if (p == std::string::npos)
        return "";
    p += tag.size();
    size_t e = key.find('\001', p);
    return key.substr(p, e == std::string::npos ? std::string::npos : e - p);
}

double pct(uint64_t hit, uint64_t total) { return total ? 100.0 * (double)hit / (double)total : 100.0; }

} // namespace

std::vector<std::string> CoverageSummary::not_hit() const
{
    std::vector<std::string> v;
    for (const CoverPoint &c : covers)
        if (!c.count)
            v.push_back(c.module + "." + c.name);
    return v;
}

CoverageSummary coverage_summarize(const CoverageData &d)
{
    CoverageSummary s;
    std::map<std::string, CoverageModule> mods;
    for (const auto &kv : d) {
        const std::string page = field(kv.first, "page"); // v_line/<module>, v_toggle/..., v_user/...
        size_t slash = page.find('/');
        if (slash == std::string::npos)
            continue;
        const std::string type = page.substr(0, slash), mod = page.substr(slash + 1);
        CoverageModule &m = mods[mod];
        m.name = mod;
        const bool hit = kv.second != 0;
        if (type == "v_line") {
            m.line_total++;
            m.line_hit += hit;
        } else if (type == "v_toggle") {
            m.toggle_total++;
            m.toggle_hit += hit;
        } else if (type == "v_user") {
            m.cover_total++;
            m.cover_hit += hit;
            CoverPoint c;
            c.module = mod;
            c.name = field(kv.first, "o");
            c.hier = field(kv.first, "h");
            c.file = field(kv.first, "f");
            c.line = (unsigned)strtoul(field(kv.first, "l").c_str(), nullptr, 10);
            c.count = kv.second;
            s.covers.push_back(c);
        }
    }
    s.total.name = "total";
    for (auto &kv : mods) {
        s.modules.push_back(kv.second);
        s.total.line_hit += kv.second.line_hit;
        s.total.line_total += kv.second.line_total;
        s.total.toggle_hit += kv.second.toggle_hit;
        s.total.toggle_total += kv.second.toggle_total;
        s.total.cover_hit += kv.second.cover_hit;
        s.total.cover_total += kv.second.cover_total;
    }
    std::sort(s.covers.begin(), s.covers.end(), [](const CoverPoint &a, const CoverPoint &b) {
        return a.module != b.module ? a.module < b.module
                                    : (a.line != b.line ? a.line < b.line : a.name < b.name);
    });
    return s;
}

std::string coverage_table(const CoverageSummary &s, bool all_covers)
{
    std::ostringstream o;
    char b[200];
    snprintf(b, sizeof b, "%-20s %22s %22s %14s\n", "module", "line", "toggle", "cover points");
    o << b;
    auto row = [&](const CoverageModule &m) {
        char l[40], t[40], c[40];
        snprintf(l, sizeof l, "%5.1f%% (%" PRIu64 "/%" PRIu64 ")", pct(m.line_hit, m.line_total),
                 m.line_hit, m.line_total);
        snprintf(t, sizeof t, "%5.1f%% (%" PRIu64 "/%" PRIu64 ")", pct(m.toggle_hit, m.toggle_total),
                 m.toggle_hit, m.toggle_total);
        snprintf(c, sizeof c, "%" PRIu64 "/%" PRIu64, m.cover_hit, m.cover_total);
        snprintf(b, sizeof b, "%-20s %22s %22s %14s\n", m.name.c_str(), l, t, c);
        o << b;
    };
    for (const CoverageModule &m : s.modules)
        row(m);
    row(s.total);
    std::vector<std::string> nh = s.not_hit();
    if (nh.empty()) {
        o << "cover points not hit: none\n";
    } else {
        o << "cover points not hit (" << nh.size() << "):";
        for (const std::string &n : nh)
            o << " " << n;
        o << "\n";
    }
    if (all_covers) {
        o << "\ncover point                                           hits  where\n";
        for (const CoverPoint &c : s.covers) {
            std::string where = fs::path(c.file).filename().string() + ":" + std::to_string(c.line);
            snprintf(b, sizeof b, "%-50s %10" PRIu64 "  %s\n", (c.module + "." + c.name).c_str(),
                     c.count, where.c_str());
            o << b;
        }
    }
    return o.str();
}

namespace {

std::string quote(const std::string &s)
{
    std::string q = "'";
    for (char c : s) {
        if (c == '\'')
            q += "'\\''";
        else
            q += c;
    }
    return q + "'";
}

// Runs a command with its output appended to `log`; false with the exit status in `err`.
bool run_tool(const std::string &cmd, const std::string &log, std::string *err)
{
    const std::string full = cmd + " >>" + quote(log) + " 2>&1";
    int st = std::system(full.c_str());
    if (st != 0) {
        *err = "'" + cmd + "' failed (exit status " + std::to_string(WEXITSTATUS(st)) + "; output in " +
               log + ")";
        return false;
    }
    return true;
}

} // namespace

bool coverage_report(const std::string &dir, CoverageSummary *out, std::string *err)
{
    std::error_code ec;
    const fs::path seeds = fs::path(dir) / "seeds";
    std::vector<fs::path> files;
    for (const auto &e : fs::directory_iterator(seeds, ec))
        if (e.path().extension() == ".dat")
            files.push_back(e.path());
    if (ec || files.empty()) {
        *err = "no coverage files in " + seeds.string();
        return false;
    }
    std::sort(files.begin(), files.end());
    CoverageData acc;
    for (const fs::path &f : files)
        if (!coverage_read(f.string(), acc, err))
            return false;
    const std::string dat = (fs::path(dir) / "coverage.dat").string();
    if (!coverage_write(dat, acc, err))
        return false;
    *out = coverage_summarize(acc);
    {
        std::ofstream t((fs::path(dir) / "coverage.txt").string());
        t << "coverage of " << files.size() << " run" << (files.size() == 1 ? "" : "s") << " ("
          << dat << ")\n"
          << coverage_table(*out, true);
        if (!t) {
            *err = "cannot write " + (fs::path(dir) / "coverage.txt").string();
            return false;
        }
    }
    const std::string vc = coverage_tool_verilator_coverage(), gh = coverage_tool_genhtml();
    if (vc.empty()) {
        *err = "verilator_coverage was not found at configure time (Debian package verilator)";
        return false;
    }
    if (gh.empty()) {
        *err = "genhtml was not found at configure time (Debian package lcov)";
        return false;
    }
    const std::string log = (fs::path(dir) / "tools.log").string();
    const std::string info = (fs::path(dir) / "coverage.info").string();
    const fs::path ann = fs::path(dir) / "annotated", html = fs::path(dir) / "html";
    fs::remove(log, ec);
    fs::remove_all(ann, ec);
    fs::remove_all(html, ec);
    return run_tool(quote(vc) + " --write-info " + quote(info) + " " + quote(dat), log, err) &&
           run_tool(quote(vc) + " --annotate " + quote(ann.string()) + " --annotate-min 1 " + quote(dat),
                    log, err) &&
           run_tool(quote(gh) + " --quiet --title " + quote("armprof rtl-cosim") + " --output-directory " +
                        quote(html.string()) + " " + quote(info),
                    log, err);
}

} // namespace apcosim
