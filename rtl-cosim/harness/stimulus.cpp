// SPDX-License-Identifier: Apache-2.0
// stimulus.cpp: seeded co-simulation stimulus and the C model side of the lockstep.
#include "stimulus.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "armprof/bits.h"

namespace apcosim {

// Register fields the stimulus writes (REGISTERS.md; the model's own masks are private).
static constexpr uint64_t kPmscrE1spe = AP_BIT(1);       // PMSCR_EL1.E1SPE
static constexpr uint64_t kPmscrExtra = AP_BIT(5) | AP_BIT(4) | AP_BIT(3); // TS, PA, CX
static constexpr uint64_t kPmblimitrE = AP_BIT(0);       // PMBLIMITR_EL1.E
static constexpr uint64_t kPmsfcrFl = AP_BIT(2);         // PMSFCR_EL1.FL
static constexpr uint64_t kIcrCount = AP_GENMASK(31, 0); // PMSICR_EL1.COUNT
static constexpr uint64_t kIcrEcount = AP_GENMASK(63, 56);
static constexpr uint64_t kIcrRes0 = AP_GENMASK(55, 32);
static constexpr uint64_t kIrrInterval = AP_GENMASK(31, 8); // PMSIRR_EL1.INTERVAL
static constexpr uint64_t kIrrRnd = AP_BIT(0);
static constexpr uint64_t kIrrRes0 = AP_GENMASK(63, 32) | AP_GENMASK(7, 1);
// A limit far beyond what any run drains: no buffer full management event.
static constexpr uint64_t kLimit = 1ull << 44;

Config config_from_seed(uint64_t seed)
{
    ap_prng64 p = { seed * 0x9E3779B97F4A7C15ull ^ 0xC05111u };
    auto below = [&p](uint64_t n) { return (uint32_t)ap_prng64_below(&p, n); };
    Config c;
    c.ernd = below(2);
    c.next_op = below(2);
    c.rng_seed = below(8) == 0 ? 0 : (uint32_t)ap_prng64_next(&p);
    c.slots = 1 + below(kSlots);
    c.max_size = (uint8_t)(5 + below(4));                  // 32 .. 256 B records at most
    static const uint32_t depths[] = { 256, 384, 512, 768, 1024 };
    c.fifo_bytes = depths[below(5)];
    if (c.fifo_bytes < (1u << c.max_size))
        c.fifo_bytes = 1u << c.max_size;
    static const uint32_t drains[] = { 1, 2, 4, 8, 16, 32, 3, 5 };
    c.drain = drains[below(8)];
    c.lanes = 1 + below(kLanes);
    static const double rates[] = { 0.2, 0.5, 0.8, 1.0 };
    c.retire_rate = rates[below(4)];
    c.lat_min = below(4);
    c.lat_max = c.lat_min + 4 + below(120);
    c.long_lat_rate = below(2) ? 0.01 : 0.0;
    c.long_lat_max = 200 + below(800);
    c.toggle_rate = below(4) == 0 ? 0.0 : 0.0002 * (1 + below(8));
    c.icr_write_rate = 0.0001 * (1 + below(5));
    c.irr_write_rate = 0.0001 * (1 + below(5));
    c.interval_max = below(4);
    c.stall_rate = below(3) == 0 ? 0.0 : 0.001 * (1 + below(10));
    c.stall_len_max = 1 + below(200);
    c.filter_lat = below(3) == 0;
    c.minlat = below(c.lat_max + 1);
    c.pmscr_extra = (uint8_t)(below(8) << 3);
    // Memory-acceptance pattern (drawn last: the draws above are those of earlier releases).
    // Long latency bursts are sometimes very long (a FIFO that fills while memory is away).
    if (below(4) == 0)
        c.stall_len_max = 200 + below(1800);
    c.ready_drop_rate = below(3) == 0 ? 0.0 : 0.02 * (1 + below(15));
    c.accept_gap = below(3) == 0 ? 0 : below(12);
    // PSB CSYNC (drawn after the memory pattern, which keeps its earlier draws).
    c.psb_rate = below(3) == 0 ? 0.0 : 0.0002 * (1 + below(10));
    return c;
}

std::string config_describe(const Config &c)
{
    char b[512];
    snprintf(b, sizeof(b),
             "ernd=%d next_op=%d rng_seed=0x%08x slots=%u fifo_bytes=%u drain=%u max_size=%u "
             "lanes=%u retire_rate=%.2f lat=%u..%u long=%.3f/%u toggle=%.4f icr=%.4f irr=%.4f "
             "interval_max=%u stall=%.4f/%u ready_drop=%.3f accept_gap=%u psb=%.4f filter_lat=%d "
             "minlat=%u pmscr_extra=0x%02x",
             c.ernd, c.next_op, c.rng_seed, c.slots, c.fifo_bytes, c.drain, c.max_size, c.lanes,
             c.retire_rate, c.lat_min, c.lat_max, c.long_lat_rate, c.long_lat_max, c.toggle_rate,
             c.icr_write_rate, c.irr_write_rate, c.interval_max, c.stall_rate, c.stall_len_max,
             c.ready_drop_rate, c.accept_gap, c.psb_rate, c.filter_lat, c.minlat, c.pmscr_extra);
    return b;
}

std::string config_set(Config &c, const std::string &key, const std::string &value)
{
    char *endp = nullptr;
    double d = strtod(value.c_str(), &endp);
    if (value.empty() || *endp)
        return "bad value '" + value + "' for " + key;
    uint32_t u = (uint32_t)strtoul(value.c_str(), nullptr, 0);
    if (key == "ernd") c.ernd = u != 0;
    else if (key == "next_op") c.next_op = u != 0;
    else if (key == "rng_seed") c.rng_seed = u;
    else if (key == "slots") c.slots = u;
    else if (key == "fifo_bytes") c.fifo_bytes = u;
    else if (key == "drain") c.drain = u;
    else if (key == "max_size") c.max_size = (uint8_t)u;
    else if (key == "lanes") c.lanes = u;
    else if (key == "retire_rate") c.retire_rate = d;
    else if (key == "lat_min") c.lat_min = u;
    else if (key == "lat_max") c.lat_max = u;
    else if (key == "long_lat_rate") c.long_lat_rate = d;
    else if (key == "long_lat_max") c.long_lat_max = u;
    else if (key == "toggle_rate") c.toggle_rate = d;
    else if (key == "icr_write_rate") c.icr_write_rate = d;
    else if (key == "irr_write_rate") c.irr_write_rate = d;
    else if (key == "interval_max") c.interval_max = u;
    else if (key == "stall_rate") c.stall_rate = d;
    else if (key == "stall_len_max") c.stall_len_max = u;
    else if (key == "ready_drop_rate") c.ready_drop_rate = d;
    else if (key == "accept_gap") c.accept_gap = u;
    else if (key == "psb_rate") c.psb_rate = d;
    else if (key == "filter_lat") c.filter_lat = u != 0;
    else if (key == "minlat") c.minlat = u;
    else if (key == "pmscr_extra") c.pmscr_extra = (uint8_t)u;
    else return "unknown configuration key '" + key + "' (one of: " + config_keys() + ")";
    return "";
}

std::string config_keys()
{
    return "ernd next_op rng_seed slots fifo_bytes drain max_size lanes retire_rate lat_min "
           "lat_max long_lat_rate long_lat_max toggle_rate icr_write_rate irr_write_rate "
           "interval_max stall_rate stall_len_max ready_drop_rate accept_gap psb_rate filter_lat "
           "minlat pmscr_extra";
}

std::string config_check(const Config &c)
{
    if (c.slots < 1 || c.slots > kSlots)
        return "slots must be 1 .. 8 (RTL SLOTS)";
    if (c.fifo_bytes > kDepth)
        return "fifo_bytes must be <= 1024 (RTL DEPTH)";
    if (c.fifo_bytes / 3 + 2 > kRecSlots)
        return "fifo_bytes / 3 + 2 record descriptors must fit RTL REC_SLOTS";
    if (c.drain < 1 || c.drain > kDrainMax)
        return "drain must be 1 .. 32 bytes per cycle (RTL DRAIN_MAX)";
    if (c.lanes < 1 || c.lanes > kLanes)
        return "lanes must be 1 .. 4 (RTL W)";
    if (c.lat_min > c.lat_max || c.lat_max > kLatMax || c.long_lat_max > kLatMax)
        return "latencies must satisfy lat_min <= lat_max <= 65535 (RTL LAT_W)";
    if (c.max_size < 4 || c.max_size > 10)
        return "max_size must be 4 .. 10 (records of at most 1 KiB)";
    if (c.stall_rate < 0 || c.stall_rate > 1 || c.ready_drop_rate < 0 || c.ready_drop_rate > 1 ||
        c.psb_rate < 0 || c.psb_rate > 1)
        return "stall_rate, ready_drop_rate and psb_rate are probabilities (0 .. 1)";
    if (c.stall_rate > 0 && c.stall_len_max < 1)
        return "stall_len_max must be >= 1";
    if (c.minlat > 0xFFF)
        return "minlat must fit PMSLATFR_EL1.MINLAT (12 bits)";
    return "";
}

bool outputs_equal(const CycleOut &r, const CycleOut &m, std::string *sig, uint64_t *rv, uint64_t *mv)
{
#define AP_CMP(field, name)          \
    if (r.field != m.field) {        \
        *sig = name;                 \
        *rv = (uint64_t)r.field;     \
        *mv = (uint64_t)m.field;     \
        return false;                \
    }
    AP_CMP(fire, "fire");
    AP_CMP(coll, "collision");
    AP_CMP(count, "count");
    AP_CMP(ecount, "ecount");
    AP_CMP(rng, "rng_state");
    AP_CMP(irr, "pmsirr");
    AP_CMP(inflight, "inflight");
    AP_CMP(valid, "drain_valid");
    AP_CMP(full, "fifo_full");
    AP_CMP(level, "fifo_level");
    AP_CMP(drained, "drained_bytes");
    AP_CMP(popped, "records_popped");
#undef AP_CMP
    return true;
}

// ---------------------------------------------------------------------------------------------

Stimulus::Stimulus(const Config &cfg, uint64_t seed) : cfg_(cfg)
{
    prng_.state = seed ^ 0x5EED'0000'0000'0001ull;
}

bool Stimulus::chance(double p) { return p > 0.0 && ap_prng64_unit(&prng_) < p; }
uint32_t Stimulus::below(uint32_t n) { return (uint32_t)ap_prng64_below(&prng_, n); }

void Stimulus::next(CycleIn &in)
{
    in = CycleIn();
    if (cycle_ == 0) {
        // Bring-up, as a driver does: PMSIRR_EL1, then the buffer enable. PMSICR_EL1 is zero
        // from reset, so enabling loads it (§3.1.1).
        in.irr_we = true;
        in.irr = ap_field_prep(kIrrInterval, below(cfg_.interval_max + 1)) | below(2);
        lim_e_ = true;
        in.toggle = 1;
    } else {
        if (chance(cfg_.irr_write_rate)) {
            in.irr_we = true;
            in.irr = ap_field_prep(kIrrInterval, below(cfg_.interval_max + 1)) |
                     (below(2) ? kIrrRnd : 0) | (ap_prng64_next(&prng_) & kIrrRes0);
        }
        if (chance(cfg_.icr_write_rate)) {
            in.icr_we = true;
            // Half are the zero a driver writes before enabling (then §3.1.1 reloads it).
            if (below(2))
                in.icr = ap_field_prep(kIcrCount, below(1024)) |
                         ap_field_prep(kIcrEcount, below(256)) | (ap_prng64_next(&prng_) & kIcrRes0);
        }
        if (chance(cfg_.toggle_rate)) {
            in.toggle = (int)below(3);
            if (in.toggle == 0)
                e1spe_ = !e1spe_;
            else if (in.toggle == 1)
                lim_e_ = !lim_e_;
            else
                el_ = el_ == 1 ? 2 : 1;
            toggles_++;
        }
    }
    // Owning EL1, Non-secure: enabled at EL1 with PMSCR_EL1.E1SPE and PMBLIMITR_EL1.E; at
    // EL2 (above the owning level) profiling is disabled (§3.2.1).
    in.prof_en = e1spe_ && lim_e_ && el_ == 1;
    for (unsigned i = 0; i < cfg_.lanes; i++) {
        if (!chance(cfg_.retire_rate))
            continue;
        in.valid |= (uint8_t)(1u << i);
        uint32_t lat = cfg_.lat_min + below(cfg_.lat_max - cfg_.lat_min + 1);
        if (chance(cfg_.long_lat_rate))
            lat = below(cfg_.long_lat_max + 1);
        in.lat[i] = (uint16_t)lat;
        in.op[i] = next_op_++;
    }
    if (stall_left_ == 0 && chance(cfg_.stall_rate))
        stall_left_ = 1 + below(cfg_.stall_len_max);
    if (stall_left_) {
        in.stall = true;
        stall_left_--;
    }
    if (chance(cfg_.ready_drop_rate))
        in.stall = true;
    if (busy_left_) {
        in.stall = true;
        busy_left_--;
    }
    // PSB CSYNC completes the operations in flight and writes every record before the cycle's
    // operations retire (the model); the RTL flushes its FIFO at the edge and leaves its slots to
    // complete later (as the platform uses it). The two agree when no sampled operation is in
    // flight, so only then. The draw happens every cycle so that the stimulus does not depend on
    // the model.
    if (chance(cfg_.psb_rate) && observed_ && last_inflight_ == 0)
        in.psb = true;
    observed_ = false;
    cycle_++;
}

void Stimulus::observe(const CycleOut &out)
{
    if (out.drained != last_drained_ && cfg_.accept_gap)
        busy_left_ = cfg_.accept_gap;
    last_drained_ = out.drained;
    last_inflight_ = out.inflight;
    observed_ = true;
}

// ---------------------------------------------------------------------------------------------

static void make_op(spu_op &op, uint64_t index, uint16_t lat);

ModelSide::ModelSide(const Config &cfg) : cfg_(cfg)
{
    spu_config sc;
    spu_config_default(&sc);
    sc.ernd = cfg.ernd;
    sc.sample_next_op = cfg.next_op;
    sc.rng_seed = cfg.rng_seed;
    sc.max_inflight = cfg.slots;
    sc.fifo_bytes = cfg.fifo_bytes;
    sc.drain_bytes_per_cycle = cfg.drain;
    sc.max_size = cfg.max_size;
    sc.align = 0;
    armprof_host_ops ops;
    memset(&ops, 0, sizeof(ops)); // flat memory: every buffer write answers OK
    armprof_err e = spu_open(&sc, &ops, &spu_);
    if (e != ARMPROF_OK) {
        error_ = std::string("spu_open: ") + armprof_strerror(e);
        spu_ = nullptr;
        return;
    }
    spu_set_record_hook(spu_, record_hook, this);
    // step_lean()'s operations: one per lane, of the shape make_op() gives lane i's first op.
    for (unsigned i = 0; i < kLanes; i++)
        make_op(lean_ops_[i], i, 0);
    armprof_pe_ctx_default(&ctx_);
    spu_set_pe_context(spu_, &ctx_);
    pmscr_ = kPmscrE1spe | (cfg.pmscr_extra & kPmscrExtra);
    bool ok = write(SPU_PMSCR_EL1, pmscr_) && write(SPU_PMBPTR_EL1, 0);
    if (cfg.filter_lat)
        ok = ok && write(SPU_PMSLATFR_EL1, cfg.minlat) && write(SPU_PMSFCR_EL1, kPmsfcrFl);
    pmblimitr_ = kLimit; // E = 0: the first cycle's toggle enables the buffer
    ok = ok && write(SPU_PMBLIMITR_EL1, pmblimitr_);
    if (!ok) {
        spu_close(spu_);
        spu_ = nullptr;
    }
}

ModelSide::~ModelSide() { spu_close(spu_); }

bool ModelSide::write(uint32_t enc, uint64_t v)
{
    armprof_err e = spu_reg_write(spu_, enc, v);
    if (e != ARMPROF_OK) {
        char b[96];
        snprintf(b, sizeof(b), "spu_reg_write(0x%04x): %s", enc, armprof_strerror(e));
        error_ = b;
        return false;
    }
    return true;
}

void ModelSide::record_hook(void *user, const spe_record *rec, const uint8_t *b, size_t len)
{
    (void)b;
    ModelSide *m = static_cast<ModelSide *>(user);
    if (m->len_fn_)
        m->len_fn_(m->len_user_, (rec->pc - Stimulus::kPcBase) / 4, (uint32_t)len);
}

uint64_t ModelSide::collisions() const
{
    spu_stats st;
    spu_get_stats(spu_, &st);
    return st.collisions;
}

uint64_t ModelSide::filtered() const
{
    spu_stats st;
    spu_get_stats(spu_, &st);
    return st.filtered_out;
}

// The operation a lane retires: a mix of loads, stores, branches and others, derived from its
// index so that both sides (and reruns) see the same one.
static void make_op(spu_op &op, uint64_t index, uint16_t lat)
{
    memset(&op, 0, sizeof(op));
    op.pc = Stimulus::kPcBase + 4 * index;
    op.total_lat = lat;
    op.issue_lat = lat / 2;
    uint64_t h = index * 0x9E3779B97F4A7C15ull;
    switch ((h >> 60) % 5) {
    case 0:
    case 1:
        op.op_class = SPE_CLASS_LDST;
        op.op_subclass = (h >> 59) & 1 ? SPE_LDST_ST : 0;
        op.flags = SPU_OP_HAS_VA | SPU_OP_HAS_PA | SPU_OP_HAS_XLAT;
        op.data_va = 0x7F00'0000'0000ull + ((h >> 8) & 0xFFFF'FFF8ull);
        op.data_pa = 0x8000'0000ull + ((h >> 8) & 0x0FFF'FFF8ull);
        op.xlat_lat = lat / 4;
        break;
    case 2:
        op.op_class = SPE_CLASS_BRANCH;
        op.flags = SPU_OP_HAS_TARGET;
        op.target = op.pc + ((h >> 20) & 0xFFFC);
        op.target_el = 1;
        op.target_ns = true;
        break;
    default:
        op.op_class = SPE_CLASS_OTHER;
        break;
    }
    if (((h >> 40) & 0xFF) == 0)
        op.flags |= SPU_OP_NOT_RETIRED;
}

bool ModelSide::apply_inputs(const CycleIn &in)
{
    if (in.irr_we && !write(SPU_PMSIRR_EL1, in.irr))
        return false;
    if (in.icr_we && !write(SPU_PMSICR_EL1, in.icr))
        return false;
    if (in.toggle == 0) {
        pmscr_ ^= kPmscrE1spe;
        if (!write(SPU_PMSCR_EL1, pmscr_))
            return false;
    } else if (in.toggle == 1) {
        pmblimitr_ ^= kPmblimitrE;
        if (!write(SPU_PMBLIMITR_EL1, pmblimitr_))
            return false;
    } else if (in.toggle == 2) {
        ctx_.el = ctx_.el == 1 ? 2 : 1;
        spu_set_pe_context(spu_, &ctx_);
    }
    if (in.psb)
        spu_psb_csync(spu_);
    if (spu_profiling_enabled(spu_) != in.prof_en) {
        error_ = in.prof_en ? "the model has profiling disabled where the stimulus enabled it"
                            : "the model has profiling enabled where the stimulus disabled it";
        return false;
    }
    spu_set_drain_stall(spu_, in.stall);
    return true;
}

bool ModelSide::step(const CycleIn &in, CycleOut &out)
{
    if (!apply_inputs(in))
        return false;
    spu_op opv[kLanes];
    spu_op_result res[kLanes];
    unsigned lane_of[kLanes];
    uint32_t n = 0;
    for (unsigned i = 0; i < kLanes; i++)
        if (in.valid & (1u << i)) {
            make_op(opv[n], in.op[i], in.lat[i]);
            lane_of[n++] = i;
        }
    spu_probe before;
    spu_get_probe(spu_, &before);
    spu_cycle(spu_, opv, n, res);

    out = CycleOut();
    out.valid = before.fifo_level != 0; // the FIFO's offer during the cycle
    for (uint32_t k = 0; k < n; k++) {
        if (res[k] == SPU_OP_SAMPLED || res[k] == SPU_OP_COLLIDED)
            out.fire |= (uint8_t)(1u << lane_of[k]);
        if (res[k] == SPU_OP_COLLIDED)
            out.coll |= (uint8_t)(1u << lane_of[k]);
    }
    spu_probe p;
    spu_get_probe(spu_, &p);
    spu_stats st;
    spu_get_stats(spu_, &st);
    out.full = st.fifo_full_cycles != last_full_cycles_;
    last_full_cycles_ = st.fifo_full_cycles;
    out.count = p.count;
    out.ecount = p.ecount;
    out.rng = p.rng_state;
    uint64_t irr = 0;
    spu_reg_peek(spu_, SPU_PMSIRR_EL1, &irr);
    out.irr = (uint32_t)irr;
    out.inflight = p.inflight;
    out.level = p.fifo_level;
    out.drained = p.drained;
    out.popped = st.records_written + st.records_discarded;
    return true;
}

CycleOut ModelSide::initial_outputs() const
{
    CycleOut out;
    spu_probe p;
    spu_get_probe(spu_, &p);
    uint64_t irr = 0;
    spu_reg_peek(spu_, SPU_PMSIRR_EL1, &irr);
    out.count = p.count;
    out.ecount = p.ecount;
    out.rng = p.rng_state;
    out.irr = (uint32_t)irr;
    out.inflight = p.inflight;
    out.level = p.fifo_level;
    out.drained = p.drained;
    return out;
}

// ---------------------------------------------------------------------------------------------

ModelAhead::ModelAhead(const Config &cfg, uint64_t seed, uint64_t cycles)
    : cfg_(cfg), cycles_(cycles), depth_((uint64_t)std::max(cfg.lat_max, cfg.long_lat_max) + 2),
      stim_(cfg, seed), model_(cfg)
{
    ring_.resize(depth_ + 1);
    op_cycle_.assign((depth_ + 2) * kLanes, 0);
    op_lane_.assign((depth_ + 2) * kLanes, 0);
    if (!model_.ok())
        error_ = "C model: " + model_.error();
    model_.set_len_callback(on_len, this);
}

void ModelAhead::on_len(void *user, uint64_t op, uint32_t len)
{
    ModelAhead *a = static_cast<ModelAhead *>(user);
    size_t k = op % a->op_cycle_.size();
    uint64_t c = a->op_cycle_[k];
    if (c < a->consumed_) {
        a->error_ = "lookahead too short for a record length";
        return;
    }
    a->ring_[c % a->ring_.size()].in.len[a->op_lane_[k]] = (uint16_t)len;
}

bool ModelAhead::next(CycleIn &in, CycleOut &out)
{
    if (!ok() || consumed_ >= cycles_)
        return false;
    while (produced_ < cycles_ && produced_ <= consumed_ + depth_) {
        Entry &e = ring_[produced_ % ring_.size()];
        stim_.next(e.in);
        for (unsigned i = 0; i < kLanes; i++)
            if (e.in.valid & (1u << i)) {
                size_t k = e.in.op[i] % op_cycle_.size();
                op_cycle_[k] = produced_;
                op_lane_[k] = (uint8_t)i;
            }
        if (!model_.step(e.in, e.out)) {
            error_ = "C model at cycle " + std::to_string(produced_) + ": " + model_.error();
            return false;
        }
        stim_.observe(e.out);
        produced_++;
    }
    if (!ok())
        return false;
    Entry &e = ring_[consumed_ % ring_.size()];
    in = e.in;
    out = e.out;
    consumed_++;
    return true;
}

} // namespace apcosim
