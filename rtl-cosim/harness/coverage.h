// SPDX-License-Identifier: Apache-2.0
// coverage.h: Verilator coverage files of the co-simulation merged into a per-module table, cover points, lcov and HTML views.
#ifndef ARMPROF_COSIM_COVERAGE_H
#define ARMPROF_COSIM_COVERAGE_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace apcosim {

// Coverage points by their Verilator key (file, line, column, page, comment, hierarchy), with
// the counts of every file read so far added together: what `verilator_coverage --write` does.
typedef std::map<std::string, uint64_t> CoverageData;

// Adds a coverage file (`# SystemC::Coverage-3`, as VerilatedCovContext::write() makes it).
bool coverage_read(const std::string &path, CoverageData &acc, std::string *err);
bool coverage_write(const std::string &path, const CoverageData &acc, std::string *err);

struct CoverageModule {
    std::string name;
    uint64_t line_hit = 0, line_total = 0;      // Verilator line (block) coverage
    uint64_t toggle_hit = 0, toggle_total = 0;  // signal bits that toggled
    uint64_t cover_hit = 0, cover_total = 0;    // SystemVerilog `cover` statements
};

struct CoverPoint {
    std::string module, name, hier, file;
    unsigned line = 0;
    uint64_t count = 0;
};

struct CoverageSummary {
    std::vector<CoverageModule> modules;        // by module name
    CoverageModule total;                       // name "total"
    std::vector<CoverPoint> covers;             // every cover point, by module then line
    std::vector<std::string> not_hit() const;   // "module.name" of each cover point never hit
};

CoverageSummary coverage_summarize(const CoverageData &d);
// The per-module table (line %, toggle %, cover points hit / total) and the cover points not
// hit; with `all_covers` every cover point with its count.
std::string coverage_table(const CoverageSummary &s, bool all_covers);

// The report of a coverage folder: merges <dir>/seeds/*.dat into <dir>/coverage.dat, writes
// <dir>/coverage.txt (the table and every cover point), <dir>/coverage.info (lcov, by
// verilator_coverage --write-info), <dir>/annotated/ (verilator_coverage --annotate) and
// <dir>/html/ (genhtml). False with `err` when no seed file is there or a step fails.
bool coverage_report(const std::string &dir, CoverageSummary *out, std::string *err);

// The tools coverage_report() runs (found at configure time; empty when missing).
const char *coverage_tool_verilator_coverage();
const char *coverage_tool_genhtml();

} // namespace apcosim

#endif
