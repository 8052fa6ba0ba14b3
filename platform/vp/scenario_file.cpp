// SPDX-License-Identifier: Apache-2.0
// scenario_file.cpp: scenario reader on libfyaml (JSON is read as the YAML subset it is); every value range-checked, errors as file:line:column.
#include "scenario_file.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <map>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libfyaml.h>

namespace armprof {

std::string printable(const std::string &s, size_t max)
{
    std::string o;
    for (size_t i = 0; i < s.size(); i++) {
        if (o.size() >= max) {
            o += "...";
            break;
        }
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            o += (char)c;
        } else {
            char b[8];
            std::snprintf(b, sizeof b, "\\x%02x", c);
            o += b;
        }
    }
    return o;
}

namespace {

constexpr uint64_t MiB = 1ull << 20;

struct Reader {
    std::string file;
    std::string err; // the first error, with file:line:column
    std::map<std::string, struct fy_node *> at; // the node of each key read (for the checks across keys)
    std::map<struct fy_node *, struct fy_node *> key_of; // value -> its key

    // 1-based line and column of a node: its scalar token, or a collection's first scalar.
    static void pos(struct fy_node *n, int &line, int &col)
    {
        line = col = 0;
        while (n) {
            if (fy_node_is_scalar(n)) {
                struct fy_token *t = fy_node_get_scalar_token(n);
                const struct fy_mark *m = t ? fy_token_start_mark(t) : nullptr;
                if (m) {
                    line = m->line + 1;
                    col = m->column + 1;
                }
                return;
            }
            void *it = nullptr;
            if (fy_node_is_sequence(n))
                n = fy_node_sequence_iterate(n, &it);
            else if (fy_node_is_mapping(n)) {
                struct fy_node_pair *p = fy_node_mapping_iterate(n, &it);
                n = p ? fy_node_pair_key(p) : nullptr;
            } else
                return;
        }
    }

    bool fail(struct fy_node *at, const std::string &msg)
    {
        if (!err.empty())
            return false;
        // A mapping or list has no position of its own here: the key that holds it has.
        auto k = key_of.find(at);
        if (at && !fy_node_is_scalar(at) && k != key_of.end())
            at = k->second;
        int line = 0, col = 0;
        pos(at, line, col);
        err = file + ":";
        if (line)
            err += std::to_string(line) + ":" + std::to_string(col) + ":";
        err += " " + msg;
        return false;
    }

    static const char *kind(struct fy_node *n)
    {
        return !n ? "nothing" : fy_node_is_mapping(n) ? "a mapping" : fy_node_is_sequence(n) ? "a list" : "a value";
    }
    // The scalar text of `n`; false (an error naming `key`) when it is a mapping or a list.
    bool scalar(struct fy_node *n, const std::string &key, const char *want, std::string &out)
    {
        at[key] = n;
        if (!n || !fy_node_is_scalar(n))
            return fail(n, key + ": expected " + want + ", got " + kind(n));
        const char *s = fy_node_get_scalar0(n);
        out = s ? s : "";
        return true;
    }
    static std::string shown(const std::string &s) { return "'" + printable(s) + "'"; }

    // A whole number, decimal or 0x hexadecimal (YAML 1.2: a leading 0 is not octal), in [lo, hi].
    bool u64(struct fy_node *n, const std::string &key, uint64_t lo, uint64_t hi, uint64_t &out)
    {
        std::string s;
        if (!scalar(n, key, "a whole number", s))
            return false;
        const std::string range = std::to_string(lo) + ".." + std::to_string(hi);
        bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
        const char *digits = s.c_str() + (hex ? 2 : 0);
        bool ok = *digits && std::strspn(digits, hex ? "0123456789abcdefABCDEF" : "0123456789") == std::strlen(digits);
        if (!ok && !s.empty() && s[0] == '-' && s.size() > 1 && std::strspn(s.c_str() + 1, "0123456789") == s.size() - 1)
            return fail(n, key + ": " + range + ", not " + printable(s));
        if (!ok)
            return fail(n, key + ": expected a whole number " + range + ", got " + shown(s));
        errno = 0;
        unsigned long long v = std::strtoull(digits, nullptr, hex ? 16 : 10);
        if (errno == ERANGE || v < lo || v > hi)
            return fail(n, key + ": " + range + ", not " + printable(s));
        out = v;
        return true;
    }
    template <typename T> bool uint(struct fy_node *n, const std::string &key, uint64_t lo, uint64_t hi, T &dst)
    {
        static_assert(std::numeric_limits<T>::is_integer, "an integer field");
        if (hi > (uint64_t)std::numeric_limits<T>::max())
            hi = (uint64_t)std::numeric_limits<T>::max(); // never wider than the field holding it
        uint64_t x;
        if (!u64(n, key, lo, hi, x))
            return false;
        dst = (T)x;
        return true;
    }
    // A finite decimal number in [lo, hi].
    bool real(struct fy_node *n, const std::string &key, double lo, double hi, double &out)
    {
        std::string s;
        if (!scalar(n, key, "a number", s))
            return false;
        char range[96];
        std::snprintf(range, sizeof range, "%g..%g", lo, hi);
        char *end = nullptr;
        errno = 0;
        double v = std::strtod(s.c_str(), &end);
        bool numeric = !s.empty() && *end == '\0' && std::strspn(s.c_str(), "+-0123456789.eE") == s.size();
        if (!numeric)
            return fail(n, key + ": expected a number " + range + ", got " + shown(s));
        if (!std::isfinite(v) || v < lo || v > hi)
            return fail(n, key + ": " + range + ", not " + printable(s));
        out = v;
        return true;
    }
    bool boolean(struct fy_node *n, const std::string &key, bool &out)
    {
        std::string s;
        if (!scalar(n, key, "true or false", s))
            return false;
        if (s == "true" || s == "1" || s == "yes" || s == "on")
            out = true;
        else if (s == "false" || s == "0" || s == "no" || s == "off")
            out = false;
        else
            return fail(n, key + ": true or false, not " + shown(s));
        return true;
    }
    bool text(struct fy_node *n, const std::string &key, std::string &out)
    {
        return scalar(n, key, "a string", out);
    }
    // One of `names` (listed in the message as `help`).
    bool choice(struct fy_node *n, const std::string &key, std::initializer_list<const char *> names,
                const std::string &help, std::string &out)
    {
        std::string s;
        if (!scalar(n, key, "a string", s))
            return false;
        for (const char *c : names)
            if (s == c) {
                out = s;
                return true;
            }
        return fail(n, key + ": " + help + ", not " + shown(s));
    }
    // Calls fn(key, value) for each pair of a mapping; the first failing pair ends the walk.
    bool each(struct fy_node *map, const std::string &where,
              const std::function<bool(const std::string &, struct fy_node *, struct fy_node *)> &fn)
    {
        at[where] = map;
        if (!map || !fy_node_is_mapping(map))
            return fail(map, where + ": expected a mapping, got " + kind(map));
        void *it = nullptr;
        struct fy_node_pair *p;
        while ((p = fy_node_mapping_iterate(map, &it))) {
            struct fy_node *k = fy_node_pair_key(p);
            std::string name;
            if (!k || !fy_node_is_scalar(k))
                return fail(k ? k : map, where + ": a key is not a name");
            const char *s = fy_node_get_scalar0(k);
            name = s ? s : "";
            key_of[fy_node_pair_value(p)] = k;
            if (!fn(name, k, fy_node_pair_value(p)))
                return false;
        }
        return true;
    }
    bool unknown(struct fy_node *key, const std::string &where, const std::string &k, const char *known)
    {
        return fail(key, (where.empty() ? "" : where + ": ") + "unknown key " + shown(k) + " (" + known + ")");
    }
};

// Nodes the checks across keys refer to.
struct Seen {
    struct fy_node *trace = nullptr, *traffic = nullptr, *ops = nullptr;
};

bool read_fault(Reader &r, struct fy_node *n, const std::string &where, FaultSpec &f)
{
    return r.each(n, where, [&](const std::string &k, struct fy_node *key, struct fy_node *v) {
        const std::string K = where + "." + k;
        if (k == "pe") return r.uint(v, K, 0, 63, f.pe);
        if (k == "kind")
            return r.choice(v, K, {"unmap", "read_only", "clear_af", "walk_abort", "write_abort", "gpf", "mem_error"},
                            "unmap, read_only, clear_af, walk_abort, write_abort, gpf or mem_error", f.kind);
        if (k == "stage") return r.uint(v, K, 1, 2, f.stage);
        if (k == "level") return r.uint(v, K, 0, 3, f.level);
        if (k == "offset") return r.uint(v, K, 0, 96 * MiB - 1, f.offset);
        if (k == "length") return r.uint(v, K, 1, 96 * MiB, f.length);
        if (k == "async") return r.boolean(v, K, f.async);
        if (k == "count") return r.uint(v, K, 1, (uint64_t)std::numeric_limits<int>::max(), f.count);
        if (k == "unit") return r.choice(v, K, {"spe", "trbe"}, "spe or trbe", f.unit);
        return r.unknown(key, where, k, "pe, kind, stage, level, offset, length, async, count, unit");
    });
}

bool read_root(Reader &r, struct fy_node *root, const std::string &path, Scenario &sc, Seen &seen)
{
    return r.each(root, "scenario", [&](const std::string &k, struct fy_node *key, struct fy_node *v) {
        if (k == "name") return r.text(v, k, sc.name);
        if (k == "pes") return r.uint(v, k, 1, 64, sc.pes);
        if (k == "ops") { seen.ops = v; return r.uint(v, k, 1, UINT64_MAX / 2, sc.ops); }
        if (k == "ops_per_cycle") return r.uint(v, k, 1, 64, sc.ops_per_cycle);
        if (k == "clock_ns") return r.real(v, k, 0.01, 1000, sc.clock_ns);
        if (k == "quantum_ns") return r.real(v, k, 0.001, 1e9, sc.quantum_ns);
        if (k == "dmi") return r.boolean(v, k, sc.dmi);
        if (k == "pe_threads") return r.boolean(v, k, sc.pe_threads);
        if (k == "timing")
            return r.choice(v, k, {"lt", "at", "off"},
                            "lt (loosely timed), at (approximately timed) or off (functional)", sc.timing);
        if (k == "seed") return r.uint(v, k, 0, UINT64_MAX, sc.seed);
        if (k == "spe")
            return r.each(v, "spe", [&](const std::string &s, struct fy_node *sk, struct fy_node *w) {
                const std::string K = "spe." + s;
                // PMSIRR_EL1.INTERVAL is bits [31:8]: 256 (PMSIDR_EL1.Interval's minimum) .. 0xFFFFFF00,
                // the same range as armprof-run --interval and armprof-explore's interval.
                if (s == "interval") return r.uint(w, K, 256, 0xFFFFFF00u, sc.interval);
                if (s == "rnd") return r.boolean(w, K, sc.rnd);
                if (s == "buffer_bytes") return r.uint(w, K, 4096, 96 * MiB, sc.buffer_bytes);
                if (s == "irq_latency") return r.uint(w, K, 0, 1ull << 40, sc.irq_latency);
                if (s == "ts") return r.boolean(w, K, sc.ts);
                if (s == "pa") return r.boolean(w, K, sc.pa);
                if (s == "cx") return r.boolean(w, K, sc.cx);
                if (s == "restart_after_fault") return r.boolean(w, K, sc.restart_after_fault);
                if (s == "el2_pmscr") return r.boolean(w, K, sc.el2_pmscr);
                if (s == "hw_flag_update") return r.boolean(w, K, sc.hw_flag_update);
                if (s == "ppi") return r.uint(w, K, 16, 31, sc.ppi_pmbirq);
                if (s == "sampler") return r.choice(w, K, {"model", "rtl"}, "model or rtl", sc.sampler);
                if (s == "max_inflight") return r.uint(w, K, 1, 4096, sc.max_inflight);
                if (s == "fifo_bytes") return r.uint(w, K, 1, 64 * MiB, sc.fifo_bytes);
                if (s == "drain_bytes_per_cycle") return r.uint(w, K, 1, MiB, sc.drain_bytes_per_cycle);
                if (s == "write_bytes") {
                    // 0: one write per record; else aligned blocks (cache lines) of a power of two.
                    uint32_t x;
                    if (!r.uint(w, K, 0, 4096, x))
                        return false;
                    if (x && (x < 16 || (x & (x - 1))))
                        return r.fail(w, K + ": 0 (one write per record) or a power of two 16..4096, not " +
                                             std::to_string(x));
                    sc.write_bytes = x;
                    return true;
                }
                if (s == "max_outstanding_writes") return r.uint(w, K, 1, 256, sc.max_outstanding_writes);
                return r.unknown(sk, "spe", s,
                                 "interval, rnd, buffer_bytes, irq_latency, ts, pa, cx, restart_after_fault, "
                                 "el2_pmscr, hw_flag_update, ppi, sampler, max_inflight, fifo_bytes, "
                                 "drain_bytes_per_cycle, write_bytes, max_outstanding_writes");
            });
        if (k == "trbe")
            return r.each(v, "trbe", [&](const std::string &s, struct fy_node *sk, struct fy_node *w) {
                TrbeScenario &t = sc.trbe;
                const std::string K = "trbe." + s;
                if (s == "enabled") return r.boolean(w, K, t.enabled);
                if (s == "buffer_bytes") {
                    if (!r.uint(w, K, 8192, 64 * MiB, t.buffer_bytes))
                        return false;
                    if (t.buffer_bytes & 0xFFF) // TRBBASER_EL1 and TRBLIMITR_EL1 hold 4 KiB-aligned addresses
                        return r.fail(w, K + ": a multiple of 4096, not " + std::to_string(t.buffer_bytes));
                    return true;
                }
                if (s == "bytes") return r.uint(w, K, 1, 1000000000000ull, t.bytes);
                if (s == "mean_burst") return r.uint(w, K, 1, 32768, t.mean_burst);
                if (s == "bytes_per_cycle") return r.uint(w, K, 1, MiB, t.bytes_per_cycle);
                if (s == "trigger_every") return r.uint(w, K, 0, 1000000000000ull, t.trigger_every);
                if (s == "trigger_count") return r.uint(w, K, 0, 0xFFFFFFFFu, t.trigger_count);
                if (s == "irq_latency") return r.uint(w, K, 0, 1ull << 40, t.irq_latency);
                if (s == "align") return r.uint(w, K, 0, 11, t.align);
                if (s == "ppi") return r.uint(w, K, 16, 31, t.ppi);
                if (s == "tm") {
                    std::string m;
                    if (!r.choice(w, K, {"stop", "irq", "ignore"}, "stop, irq or ignore", m))
                        return false;
                    t.tm = m == "stop" ? TRBU_TM_STOP : m == "irq" ? TRBU_TM_IRQ : TRBU_TM_IGNORE;
                    return true;
                }
                return r.unknown(sk, "trbe", s,
                                 "enabled, buffer_bytes, bytes, mean_burst, bytes_per_cycle, trigger_every, "
                                 "trigger_count, irq_latency, align, ppi, tm");
            });
        if (k == "workload")
            return r.each(v, "workload", [&](const std::string &s, struct fy_node *sk, struct fy_node *w) {
                if (s == "trace") {
                    // One file every PE replays, or a list with one file per PE (checked against
                    // pes below). Relative paths are relative to the scenario file's folder.
                    size_t slash = path.rfind('/');
                    auto resolve = [&](std::string t) {
                        if (!t.empty() && t[0] != '/' && slash != std::string::npos)
                            t = path.substr(0, slash + 1) + t;
                        return t;
                    };
                    seen.trace = w;
                    sc.workload.trace.clear();
                    sc.workload.traces.clear();
                    if (w && fy_node_is_sequence(w)) {
                        void *it = nullptr;
                        struct fy_node *item;
                        while ((item = fy_node_sequence_iterate(w, &it))) {
                            std::string t;
                            if (!r.text(item, "workload.trace[" + std::to_string(sc.workload.traces.size()) + "]", t))
                                return false;
                            if (t.empty())
                                return r.fail(item, "workload.trace: each item of the list is a file name");
                            sc.workload.traces.push_back(resolve(t));
                        }
                        if (sc.workload.traces.empty())
                            return r.fail(w, "workload.trace: the list is empty (one file per PE)");
                        return true;
                    }
                    std::string t;
                    if (!w || !fy_node_is_scalar(w))
                        return r.fail(w, std::string("workload.trace: expected a file name or a list of them, got ") +
                                             Reader::kind(w));
                    r.text(w, "workload.trace", t);
                    if (t.empty())
                        return r.fail(w, "workload.trace: empty (a file, or a list of one file per PE)");
                    sc.workload.trace = resolve(t);
                    return true;
                }
                if (s == "repeat") return r.uint(w, "workload.repeat", 1, 1000000000000ull, sc.workload.repeat);
                return r.unknown(sk, "workload", s, "trace, repeat");
            });
        if (k == "pmu")
            return r.each(v, "pmu", [&](const std::string &s, struct fy_node *sk, struct fy_node *w) {
                if (s == "enabled") return r.boolean(w, "pmu.enabled", sc.pmu.enabled);
                if (s == "ppi") return r.uint(w, "pmu.ppi", 16, 31, sc.pmu.ppi);
                return r.unknown(sk, "pmu", s, "enabled, ppi");
            });
        if (k == "smmu")
            return r.each(v, "smmu", [&](const std::string &s, struct fy_node *sk, struct fy_node *w) {
                if (s == "stage2") return r.boolean(w, "smmu.stage2", sc.stage2);
                return r.unknown(sk, "smmu", s, "stage2");
            });
        if (k == "bus")
            return r.each(v, "bus", [&](const std::string &s, struct fy_node *sk, struct fy_node *w) {
                if (s == "latency_ns") return r.real(w, "bus.latency_ns", 0, 1e6, sc.bus_latency_ns);
                if (s == "bytes_per_ns") return r.real(w, "bus.bytes_per_ns", 0, 1e6, sc.bus_bytes_per_ns);
                if (s == "background_traffic") {
                    seen.traffic = w;
                    const std::string B = "bus.background_traffic";
                    return r.each(w, B, [&](const std::string &t, struct fy_node *tk, struct fy_node *x) {
                        if (t == "share") return r.real(x, B + ".share", 0, 1, sc.traffic.share);
                        if (t == "burst_bytes") return r.uint(x, B + ".burst_bytes", 1, 4096, sc.traffic.burst_bytes);
                        if (t == "seed") return r.uint(x, B + ".seed", 0, UINT64_MAX, sc.traffic.seed);
                        return r.unknown(tk, B, t, "share, burst_bytes, seed");
                    });
                }
                return r.unknown(sk, "bus", s, "latency_ns, bytes_per_ns, background_traffic");
            });
        if (k == "memory")
            return r.each(v, "memory", [&](const std::string &s, struct fy_node *sk, struct fy_node *w) {
                if (s == "latency_ns") return r.real(w, "memory.latency_ns", 0, 1e6, sc.mem_latency_ns);
                if (s == "write_latency_ns") return r.real(w, "memory.write_latency_ns", 0, 1e6, sc.mem_write_latency_ns);
                return r.unknown(sk, "memory", s, "latency_ns, write_latency_ns");
            });
        if (k == "faults") {
            if (!v || !fy_node_is_sequence(v))
                return r.fail(v ? v : key, std::string("faults: expected a list, got ") + Reader::kind(v));
            void *it = nullptr;
            struct fy_node *f;
            while ((f = fy_node_sequence_iterate(v, &it))) {
                FaultSpec fs;
                if (!read_fault(r, f, "faults[" + std::to_string(sc.faults.size()) + "]", fs))
                    return false;
                sc.faults.push_back(fs);
            }
            return true;
        }
        return r.unknown(key, "", k,
                         "name, pes, ops, ops_per_cycle, clock_ns, quantum_ns, dmi, pe_threads, timing, seed, spe, "
                         "trbe, workload, pmu, smmu, bus, memory, faults");
    });
}

// Checks across keys, each error at the key that makes the combination wrong.
bool cross_checks(Reader &r, Scenario &sc, const Seen &seen)
{
    if (seen.ops && sc.workload.replay())
        return r.fail(seen.ops, "ops: not used with workload.trace (a replay runs lines * workload.repeat operations)");
    if (!sc.workload.traces.empty() && sc.workload.traces.size() != sc.pes)
        return r.fail(seen.trace, "workload.trace: " + std::to_string(sc.workload.traces.size()) + " files for " +
                                      std::to_string(sc.pes) +
                                      " PEs (a list has one file per PE; a single file is replayed by every PE)");
    if (sc.traffic.enabled() && !(sc.bus_bytes_per_ns > 0))
        return r.fail(seen.traffic, "bus.background_traffic: needs a bus bandwidth (bus.bytes_per_ns > 0: 0 is unlimited)");
    // The trace files exist (the platform reads them whole, and names a bad line in them).
    const std::vector<std::string> files =
        sc.workload.traces.empty() ? std::vector<std::string>{sc.workload.trace} : sc.workload.traces;
    for (size_t i = 0; sc.workload.replay() && i < files.size(); i++) {
        std::string key = sc.workload.traces.empty() ? "workload.trace" : "workload.trace[" + std::to_string(i) + "]";
        int fd = ::open(files[i].c_str(), O_RDONLY);
        struct stat st;
        int e = fd < 0 ? errno : fstat(fd, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : 0;
        if (fd >= 0)
            ::close(fd);
        if (e)
            return r.fail(r.at[key], key + ": " + printable(files[i]) + ": " + std::strerror(e));
    }
    std::string why = scenario_check(sc);
    if (why.empty())
        return true;
    // The message starts with the key it is about: the error is at that key's value.
    std::string key = why.substr(0, why.find_first_of(": "));
    auto it = r.at.find(key);
    while (it == r.at.end() && key.find('.') != std::string::npos) { // else the mapping holding it
        key.erase(key.rfind('.'));
        it = r.at.find(key);
    }
    return r.fail(it != r.at.end() ? it->second : nullptr, why);
}

} // namespace

bool load_scenario(const std::string &path, Scenario &sc, std::string &err)
{
    // The file first, so that a missing or unreadable one is said once, with the reason.
    int fd = ::open(path.c_str(), O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
        int e = fd < 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : errno;
        if (fd >= 0)
            ::close(fd);
        err = path + ": " + std::strerror(e);
        return false;
    }
    ::close(fd);
    if (st.st_size == 0) {
        err = path + ": empty (a scenario is a mapping of keys; examples/default.yaml shows them)";
        return false;
    }
    // libfyaml's diagnostics are collected, not printed; the first one is the message.
    struct fy_diag_cfg dc;
    fy_diag_cfg_default(&dc);
    dc.fp = nullptr;
    struct fy_diag *diag = fy_diag_create(&dc);
    if (!diag) {
        err = path + ": cannot set up the YAML parser";
        return false;
    }
    fy_diag_set_collect_errors(diag, true);
    struct fy_parse_cfg cfg;
    std::memset(&cfg, 0, sizeof cfg);
    cfg.flags = (enum fy_parse_cfg_flags)(FYPCF_QUIET | FYPCF_COLLECT_DIAG);
    cfg.diag = diag;
    struct fy_document *fyd = fy_document_build_from_file(&cfg, path.c_str());
    if (!fyd) {
        void *it = nullptr;
        struct fy_diag_error *e = fy_diag_errors_iterate(diag, &it);
        if (e && e->line > 0)
            err = path + ":" + std::to_string(e->line) + ":" + std::to_string(e->column) +
                  ": not YAML or JSON: " + printable(e->msg ? e->msg : "parse error");
        else
            err = path + ": not YAML or JSON" + (e && e->msg ? ": " + printable(e->msg) : std::string());
        fy_diag_destroy(diag);
        return false;
    }
    Reader r;
    r.file = path;
    Seen seen;
    struct fy_node *root = fy_document_root(fyd);
    bool ok = root ? read_root(r, root, path, sc, seen) : r.fail(nullptr, "empty document (a mapping of scenario keys)");
    if (ok)
        ok = cross_checks(r, sc, seen);
    fy_document_destroy(fyd);
    fy_diag_destroy(diag);
    if (!ok)
        err = r.err;
    return ok;
}

} // namespace armprof
