// SPDX-License-Identifier: Apache-2.0
// scenario_file.cpp: scenario reader on libfyaml (JSON is read as the YAML subset it is).
#include "scenario_file.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>

#include <libfyaml.h>

namespace armprof {

namespace {

struct Reader {
    std::string err;
    int line = 0; // 1-based line the error is about (0: none known)

    // The 1-based line of a node: its scalar token, or a collection's first scalar.
    static int line_of(struct fy_node *n)
    {
        while (n) {
            if (fy_node_is_scalar(n)) {
                struct fy_token *t = fy_node_get_scalar_token(n);
                const struct fy_mark *m = t ? fy_token_start_mark(t) : nullptr;
                return m ? m->line + 1 : 0;
            }
            void *it = nullptr;
            if (fy_node_is_sequence(n))
                n = fy_node_sequence_iterate(n, &it);
            else if (fy_node_is_mapping(n)) {
                struct fy_node_pair *p = fy_node_mapping_iterate(n, &it);
                n = p ? fy_node_pair_key(p) : nullptr;
            } else
                return 0;
        }
        return 0;
    }

    std::string scalar(struct fy_node *n)
    {
        const char *s = n ? fy_node_get_scalar0(n) : nullptr;
        return s ? s : "";
    }
    bool u64(struct fy_node *n, const std::string &key, uint64_t &out)
    {
        std::string s = scalar(n);
        char *end = nullptr;
        errno = 0;
        unsigned long long v = std::strtoull(s.c_str(), &end, 0);
        if (s.empty() || *end || errno || s[0] == '-') {
            err = key + ": not an unsigned integer: '" + s + "'";
            return false;
        }
        out = v;
        return true;
    }
    bool dbl(struct fy_node *n, const std::string &key, double &out)
    {
        std::string s = scalar(n);
        char *end = nullptr;
        double v = std::strtod(s.c_str(), &end);
        if (s.empty() || *end || !std::isfinite(v) || v < 0) {
            err = key + ": not a non-negative number: '" + s + "'";
            return false;
        }
        out = v;
        return true;
    }
    bool boolean(struct fy_node *n, const std::string &key, bool &out)
    {
        std::string s = scalar(n);
        if (s == "true" || s == "1" || s == "yes" || s == "on")
            out = true;
        else if (s == "false" || s == "0" || s == "no" || s == "off")
            out = false;
        else {
            err = key + ": not a boolean: '" + s + "'";
            return false;
        }
        return true;
    }
    // Calls fn(key, value) for each pair of a mapping.
    bool each(struct fy_node *map, const std::string &where,
              const std::function<bool(const std::string &, struct fy_node *)> &fn)
    {
        if (!fy_node_is_mapping(map)) {
            err = where + ": expected a mapping";
            return false;
        }
        void *it = nullptr;
        struct fy_node_pair *p;
        while ((p = fy_node_mapping_iterate(map, &it))) {
            std::string k = scalar(fy_node_pair_key(p));
            if (!fn(k, fy_node_pair_value(p))) {
                if (!line) // the innermost failing pair names the line
                    line = line_of(fy_node_pair_value(p)) ? line_of(fy_node_pair_value(p))
                                                         : line_of(fy_node_pair_key(p));
                return false;
            }
        }
        return true;
    }
};

template <typename T> bool set_uint(Reader &r, struct fy_node *v, const std::string &k, T &dst)
{
    uint64_t x;
    if (!r.u64(v, k, x))
        return false;
    dst = (T)x;
    return true;
}

// bus.background_traffic: {share, burst_bytes, seed}.
bool read_traffic(Reader &r, struct fy_node *n, TrafficScenario &t)
{
    return r.each(n, "bus.background_traffic", [&](const std::string &k, struct fy_node *v) {
        if (k == "share") {
            if (!r.dbl(v, "bus.background_traffic.share", t.share))
                return false;
            if (t.share > 1) {
                r.err = "bus.background_traffic.share: a share of the bus bandwidth, 0..1, not " + r.scalar(v);
                return false;
            }
            return true;
        }
        if (k == "burst_bytes") {
            if (!set_uint(r, v, "bus.background_traffic.burst_bytes", t.burst_bytes))
                return false;
            if (t.burst_bytes == 0 || t.burst_bytes > 4096) {
                r.err = "bus.background_traffic.burst_bytes: 1..4096, not " + r.scalar(v);
                return false;
            }
            return true;
        }
        if (k == "seed") return set_uint(r, v, "bus.background_traffic.seed", t.seed);
        r.err = "bus.background_traffic: unknown key '" + k + "' (share, burst_bytes, seed)";
        return false;
    });
}

bool read_fault(Reader &r, struct fy_node *n, FaultSpec &f)
{
    return r.each(n, "faults[]", [&](const std::string &k, struct fy_node *v) {
        if (k == "pe") return set_uint(r, v, k, f.pe);
        if (k == "kind") { f.kind = r.scalar(v); return true; }
        if (k == "stage") return set_uint(r, v, k, f.stage);
        if (k == "level") { uint64_t x; if (!r.u64(v, k, x) || x > 3) { r.err = "level: 0..3"; return false; } f.level = (int)x; return true; }
        if (k == "offset") return set_uint(r, v, k, f.offset);
        if (k == "length") return set_uint(r, v, k, f.length);
        if (k == "async") return r.boolean(v, k, f.async);
        if (k == "count") { uint64_t x; if (!r.u64(v, k, x)) return false; f.count = (int)x; return true; }
        if (k == "unit") { f.unit = r.scalar(v); return true; }
        r.err = "faults[]: unknown key '" + k + "'";
        return false;
    });
}

} // namespace

bool load_scenario(const std::string &path, Scenario &sc, std::string &err)
{
    struct fy_parse_cfg cfg;
    std::memset(&cfg, 0, sizeof cfg);
    cfg.flags = FYPCF_QUIET;
    struct fy_document *fyd = fy_document_build_from_file(&cfg, path.c_str());
    if (!fyd) {
        err = path + ": cannot read or parse (YAML / JSON)";
        return false;
    }
    Reader r;
    bool ops_key = false;
    int trace_line = 0, traffic_line = 0;
    struct fy_node *root = fy_document_root(fyd);
    bool ok = root && r.each(root, "scenario", [&](const std::string &k, struct fy_node *v) {
        if (k == "name") { sc.name = r.scalar(v); return true; }
        if (k == "pes") return set_uint(r, v, k, sc.pes);
        if (k == "ops") { ops_key = true; return set_uint(r, v, k, sc.ops); }
        if (k == "ops_per_cycle") return set_uint(r, v, k, sc.ops_per_cycle);
        if (k == "clock_ns") return r.dbl(v, k, sc.clock_ns);
        if (k == "quantum_ns") return r.dbl(v, k, sc.quantum_ns);
        if (k == "dmi") return r.boolean(v, k, sc.dmi);
        if (k == "pe_threads") return r.boolean(v, k, sc.pe_threads);
        if (k == "timing") {
            sc.timing = r.scalar(v);
            if (sc.timing == "lt" || sc.timing == "at" || sc.timing == "off")
                return true;
            r.err = "timing: lt (loosely timed), at (approximately timed) or off (functional), not '" + sc.timing + "'";
            return false;
        }
        if (k == "seed") return set_uint(r, v, k, sc.seed);
        if (k == "spe")
            return r.each(v, "spe", [&](const std::string &s, struct fy_node *w) {
                if (s == "interval") return set_uint(r, w, s, sc.interval);
                if (s == "rnd") return r.boolean(w, s, sc.rnd);
                if (s == "buffer_bytes") return set_uint(r, w, s, sc.buffer_bytes);
                if (s == "irq_latency") return set_uint(r, w, s, sc.irq_latency);
                if (s == "ts") return r.boolean(w, s, sc.ts);
                if (s == "pa") return r.boolean(w, s, sc.pa);
                if (s == "cx") return r.boolean(w, s, sc.cx);
                if (s == "restart_after_fault") return r.boolean(w, s, sc.restart_after_fault);
                if (s == "el2_pmscr") return r.boolean(w, s, sc.el2_pmscr);
                if (s == "hw_flag_update") return r.boolean(w, s, sc.hw_flag_update);
                if (s == "ppi") return set_uint(r, w, s, sc.ppi_pmbirq);
                if (s == "sampler") { sc.sampler = r.scalar(w); if (sc.sampler == "model" || sc.sampler == "rtl") return true; r.err = "spe.sampler: model or rtl, not '" + sc.sampler + "'"; return false; }
                if (s == "max_inflight") return set_uint(r, w, s, sc.max_inflight);
                if (s == "fifo_bytes") return set_uint(r, w, s, sc.fifo_bytes);
                if (s == "drain_bytes_per_cycle") return set_uint(r, w, s, sc.drain_bytes_per_cycle);
                if (s == "write_bytes") {
                    // 0: one write per record; else aligned blocks (cache lines) of a power of two.
                    uint64_t x;
                    if (!r.u64(w, "spe.write_bytes", x))
                        return false;
                    if (x && (x < 16 || x > 4096 || (x & (x - 1)))) {
                        r.err = "spe.write_bytes: 0 (one write per record) or a power of two 16..4096, not " + r.scalar(w);
                        return false;
                    }
                    sc.write_bytes = (uint32_t)x;
                    return true;
                }
                if (s == "max_outstanding_writes") {
                    uint64_t x;
                    if (!r.u64(w, "spe.max_outstanding_writes", x))
                        return false;
                    if (x < 1 || x > 256) {
                        r.err = "spe.max_outstanding_writes: 1..256, not " + r.scalar(w);
                        return false;
                    }
                    sc.max_outstanding_writes = (uint32_t)x;
                    return true;
                }
                r.err = "spe: unknown key '" + s + "'";
                return false;
            });
        if (k == "trbe")
            return r.each(v, "trbe", [&](const std::string &s, struct fy_node *w) {
                TrbeScenario &t = sc.trbe;
                if (s == "enabled") return r.boolean(w, s, t.enabled);
                if (s == "buffer_bytes") return set_uint(r, w, s, t.buffer_bytes);
                if (s == "bytes") return set_uint(r, w, s, t.bytes);
                if (s == "mean_burst") return set_uint(r, w, s, t.mean_burst);
                if (s == "bytes_per_cycle") return set_uint(r, w, s, t.bytes_per_cycle);
                if (s == "trigger_every") return set_uint(r, w, s, t.trigger_every);
                if (s == "trigger_count") return set_uint(r, w, s, t.trigger_count);
                if (s == "irq_latency") return set_uint(r, w, s, t.irq_latency);
                if (s == "align") return set_uint(r, w, s, t.align);
                if (s == "ppi") return set_uint(r, w, s, t.ppi);
                if (s == "tm") {
                    std::string m = r.scalar(w);
                    if (m == "stop") t.tm = TRBU_TM_STOP;
                    else if (m == "irq") t.tm = TRBU_TM_IRQ;
                    else if (m == "ignore") t.tm = TRBU_TM_IGNORE;
                    else { r.err = "trbe.tm: stop, irq or ignore"; return false; }
                    return true;
                }
                r.err = "trbe: unknown key '" + s + "'";
                return false;
            });
        if (k == "workload")
            return r.each(v, "workload", [&](const std::string &s, struct fy_node *w) {
                if (s == "trace") {
                    // One file every PE replays, or a list with one file per PE (checked against
                    // pes below). Relative paths are relative to the scenario file's folder.
                    size_t slash = path.rfind('/');
                    auto resolve = [&](std::string t) {
                        if (!t.empty() && t[0] != '/' && slash != std::string::npos)
                            t = path.substr(0, slash + 1) + t;
                        return t;
                    };
                    trace_line = Reader::line_of(w);
                    if (fy_node_is_sequence(w)) {
                        sc.workload.trace.clear();
                        sc.workload.traces.clear();
                        void *it = nullptr;
                        struct fy_node *item;
                        while ((item = fy_node_sequence_iterate(w, &it))) {
                            std::string t = fy_node_is_scalar(item) ? r.scalar(item) : "";
                            if (t.empty()) {
                                r.line = Reader::line_of(item) ? Reader::line_of(item) : trace_line;
                                r.err = "workload.trace: each item of the list is a file name";
                                return false;
                            }
                            sc.workload.traces.push_back(resolve(t));
                        }
                        if (sc.workload.traces.empty()) {
                            r.line = trace_line;
                            r.err = "workload.trace: the list is empty (one file per PE)";
                            return false;
                        }
                        return true;
                    }
                    std::string t = fy_node_is_scalar(w) ? r.scalar(w) : "";
                    sc.workload.traces.clear();
                    sc.workload.trace = resolve(t);
                    if (t.empty()) {
                        r.line = trace_line;
                        r.err = "workload.trace: empty (a file, or a list of one file per PE)";
                        return false;
                    }
                    return true;
                }
                if (s == "repeat") return set_uint(r, w, s, sc.workload.repeat);
                r.err = "workload: unknown key '" + s + "'";
                return false;
            });
        if (k == "pmu")
            return r.each(v, "pmu", [&](const std::string &s, struct fy_node *w) {
                if (s == "enabled") return r.boolean(w, s, sc.pmu.enabled);
                if (s == "ppi") return set_uint(r, w, s, sc.pmu.ppi);
                r.err = "pmu: unknown key '" + s + "'";
                return false;
            });
        if (k == "smmu")
            return r.each(v, "smmu", [&](const std::string &s, struct fy_node *w) {
                if (s == "stage2") return r.boolean(w, s, sc.stage2);
                r.err = "smmu: unknown key '" + s + "'";
                return false;
            });
        if (k == "bus")
            return r.each(v, "bus", [&](const std::string &s, struct fy_node *w) {
                if (s == "latency_ns") return r.dbl(w, s, sc.bus_latency_ns);
                if (s == "bytes_per_ns") return r.dbl(w, s, sc.bus_bytes_per_ns);
                if (s == "background_traffic") {
                    traffic_line = Reader::line_of(w);
                    return read_traffic(r, w, sc.traffic);
                }
                r.err = "bus: unknown key '" + s + "'";
                return false;
            });
        if (k == "memory")
            return r.each(v, "memory", [&](const std::string &s, struct fy_node *w) {
                if (s == "latency_ns") return r.dbl(w, s, sc.mem_latency_ns);
                if (s == "write_latency_ns") return r.dbl(w, "memory.write_latency_ns", sc.mem_write_latency_ns);
                r.err = "memory: unknown key '" + s + "'";
                return false;
            });
        if (k == "faults") {
            if (!fy_node_is_sequence(v)) {
                r.err = "faults: expected a sequence";
                return false;
            }
            void *it = nullptr;
            struct fy_node *f;
            while ((f = fy_node_sequence_iterate(v, &it))) {
                FaultSpec fs;
                if (!read_fault(r, f, fs))
                    return false;
                sc.faults.push_back(fs);
            }
            return true;
        }
        r.err = "unknown key '" + k + "'";
        return false;
    });
    fy_document_destroy(fyd);
    if (ok && ops_key && sc.workload.replay()) {
        r.err = "ops: not used with workload.trace (a replay runs lines * workload.repeat operations)";
        ok = false;
    }
    if (ok && !sc.workload.traces.empty() && sc.workload.traces.size() != sc.pes) {
        r.line = trace_line;
        r.err = "workload.trace: " + std::to_string(sc.workload.traces.size()) + " files for " +
                std::to_string(sc.pes) + " PEs (a list has one file per PE; a single file is replayed by every PE)";
        ok = false;
    }
    if (ok && sc.traffic.enabled() && !(sc.bus_bytes_per_ns > 0)) {
        r.line = traffic_line;
        r.err = "bus.background_traffic: needs a bus bandwidth (bus.bytes_per_ns > 0: 0 is unlimited)";
        ok = false;
    }
    if (!ok)
        err = path + ":" + (r.line ? std::to_string(r.line) + ":" : "") + " " +
              (r.err.empty() ? "empty document" : r.err);
    return ok;
}

} // namespace armprof
