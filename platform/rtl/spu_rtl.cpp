// SPDX-License-Identifier: Apache-2.0
// spu_rtl.cpp: SpuRtl: drives Vspu_cosim_top_sc cycle by cycle from a PE and feeds its decisions to the SPU model.
#include "spu_rtl.h"
#include "../report.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#ifdef ARMPROF_PLATFORM_HAVE_RTL
#include "Vspu_cosim_top_sc.h"
#endif

namespace armprof {

using namespace sc_core;

#ifdef ARMPROF_PLATFORM_HAVE_RTL

namespace {
// PMSICR_EL1 as spu_cycle_ext() leaves it: COUNT [31:0] (and ECOUNT [63:56] with ERnd) from the
// sampler, the rest as it was.
uint64_t mirrored_icr(uint64_t icr, const spu_ext_cycle &ec, bool ernd)
{
    icr = (icr & ~0xFFFFFFFFull) | ec.count;
    if (ernd)
        icr = (icr & ~(0xFFull << 56)) | ((uint64_t)ec.ecount << 56);
    return icr;
}

constexpr uint32_t kSlots = 8, kDepth = 1024, kRecSlots = 512, kDrainMax = 32; // RTL parameters
constexpr unsigned kLatW = 16, kLenW = 12;
constexpr uint64_t kPmbsrS = 1ull << 17; // PMBSR_EL1.S
} // namespace

struct SpuRtl::Impl {
    // The RTL's clock, driven by the PE's thread (edges only when a cycle is clocked, none
    // while quiet cycles are stepped): the rising edge of the model's cycle N one period before
    // the model's time of its end (N periods), so that the model's edge, which follows the
    // RTL's, is made at that time.
    sc_signal<bool, SC_MANY_WRITERS> clk; // rising edges from the PE's thread, falling ones from fall_edge()
    sc_time period;
    sc_signal<bool> rst, cfg_ernd, cfg_next_op, icr_we, irr_we, prof_en, drain_ready, drain_valid,
        fifo_flush, fifo_discard, full_q, rnd, pending, m_full;
    sc_signal<uint32_t, SC_MANY_WRITERS> cfg_drain;
    sc_signal<uint32_t> cfg_slots, cfg_depth, cfg_rec_cap, cfg_rng_seed, op_valid, fire,
        fire_q, coll_q, ecount, inflight, fifo_level, nrec, diff, count, rng_state, interval, drain_len;
    sc_signal<uint32_t> m_fire, m_coll, m_ecount, m_inflight, m_fifo_level, m_count, m_rng_state;
    sc_signal<uint64_t> icr_wdata, irr_wdata, lane_lat, lane_len, drained, popped, m_drained;
    Vspu_cosim_top_sc top;
    uint64_t last_irr = 0, last_icr = 0, last_drained = 0;
    bool first = true;
    bool last_en = false;     // prof_en of the last clocked cycle (the RTL's en_q)
    bool icr_resync = false;  // idle cycles were skipped: load the RTL's PMSICR_EL1 from the model
    uint32_t drain_rate = 0;  // cfg_drain outside drain steps
    sc_event fall;            // the falling edge, one delta cycle after the rising one

    // ARMPROF_RTL_EVERY_CYCLE: the clocking before quiet cycles were stepped, kept as
    // bench-stream's yardstick: a free-running sc_clock, every cycle waited for edge by edge.
    std::unique_ptr<sc_clock> free_clk;

    Impl(const sc_time &period, bool every_cycle)
        : clk("clk"), period(period), top("rtl")
    {
        if (every_cycle) {
            free_clk.reset(new sc_clock("free_clk", period));
            top.clk(*free_clk);
        } else {
            top.clk(clk);
        }
        top.rst(rst);
        top.cfg_ernd(cfg_ernd);
        top.cfg_next_op(cfg_next_op);
        top.cfg_slots(cfg_slots);
        top.cfg_drain(cfg_drain);
        top.icr_we(icr_we);
        top.irr_we(irr_we);
        top.prof_en(prof_en);
        top.op_valid(op_valid);
        top.drain_ready(drain_ready);
        top.drain_valid(drain_valid);
        top.drain_len(drain_len);
        top.fifo_flush(fifo_flush);
        top.fifo_discard(fifo_discard);
        top.fire(fire);
        top.fire_q(fire_q);
        top.coll_q(coll_q);
        top.full_q(full_q);
        top.ecount(ecount);
        top.inflight(inflight);
        top.rnd(rnd);
        top.pending(pending);
        top.m_fire(m_fire);
        top.m_coll(m_coll);
        top.m_full(m_full);
        top.m_ecount(m_ecount);
        top.m_inflight(m_inflight);
        top.cfg_depth(cfg_depth);
        top.cfg_rec_cap(cfg_rec_cap);
        top.fifo_level(fifo_level);
        top.nrec(nrec);
        top.m_fifo_level(m_fifo_level);
        top.diff(diff);
        top.cfg_rng_seed(cfg_rng_seed);
        top.count(count);
        top.rng_state(rng_state);
        top.interval(interval);
        top.m_count(m_count);
        top.m_rng_state(m_rng_state);
        top.icr_wdata(icr_wdata);
        top.irr_wdata(irr_wdata);
        top.lane_lat(lane_lat);
        top.lane_len(lane_len);
        top.drained(drained);
        top.popped(popped);
        top.m_drained(m_drained);
    }
    ~Impl() { top.final(); }
};

bool SpuRtl::available() { return true; }

std::string SpuRtl::why_not(const spu_config &c, uint32_t lanes)
{
    if (lanes < 1 || lanes > kLanes)
        return "sampler rtl: ops_per_cycle must be 1 .. 4 (the RTL's W lanes)";
    if (c.max_inflight > kSlots)
        return "sampler rtl: max_inflight must be <= 8 (the RTL's SLOTS)";
    if (c.fifo_bytes > kDepth || c.fifo_bytes / 3 + 2 > kRecSlots)
        return "sampler rtl: fifo_bytes must be <= 1024 (the RTL's DEPTH)";
    if (c.drain_bytes_per_cycle > kDrainMax)
        return "sampler rtl: drain_bytes_per_cycle must be <= 32 (the RTL's DRAIN_MAX)";
    return "";
}

SpuRtl::SpuRtl(sc_module_name name, SpuModule &spu, const sc_time &period, uint32_t lanes)
    : sc_module(name), spu_(spu)
{
    const spu_config &c = *spu_get_config(spu.unit());
    std::string why = why_not(c, lanes);
    if (!why.empty())
        ARMPROF_REPORT_ERROR(report::kRtl, why);
    armprof_err e = spu_set_external_sampler(spu.unit(), true);
    if (e != ARMPROF_OK)
        ARMPROF_REPORT_ERROR(report::kRtl, std::string("sampler rtl: spu_set_external_sampler: ") + armprof_strerror(e));
    const char *every = std::getenv("ARMPROF_RTL_EVERY_CYCLE");
    every_cycle_ = every && *every && std::strcmp(every, "0") != 0;
    impl_.reset(new Impl(period, every_cycle_));
    SC_HAS_PROCESS(SpuRtl);
    SC_METHOD(fall_edge);
    sensitive << impl_->fall;
    dont_initialize();
    Impl &r = *impl_;
    r.cfg_ernd.write(c.ernd);
    r.cfg_next_op.write(c.sample_next_op);
    r.cfg_rng_seed.write(c.rng_seed);
    r.cfg_slots.write(c.max_inflight);
    r.cfg_depth.write(c.fifo_bytes);
    r.cfg_rec_cap.write(c.fifo_bytes / 3 + 2); // the model's record descriptor ring
    r.cfg_drain.write(c.drain_bytes_per_cycle);
    r.drain_rate = c.drain_bytes_per_cycle;
    r.rst.write(true);
}

SpuRtl::~SpuRtl() = default;

// The reset pulse: two rising edges with rst high, released with the falling edge after them.
// The edges are delta cycles apart: neither the model's time nor SystemC's moves, so that the
// model's cycle N ends at SystemC's N periods, as with the transaction-level PE (the
// free-running clock of ARMPROF_RTL_EVERY_CYCLE: 1.5 periods, as before).
void SpuRtl::start()
{
    Impl &r = *impl_;
    r.rst.write(true);
    if (r.free_clk) {
        wait(r.free_clk->posedge_event());
        wait(r.free_clk->posedge_event());
        wait(r.free_clk->negedge_event());
        r.rst.write(false);
        return;
    }
    for (int i = 0; i < 2; i++) {
        r.clk.write(true);
        wait(SC_ZERO_TIME);
        r.clk.write(false);
        if (i == 1)
            r.rst.write(false);
        wait(SC_ZERO_TIME); // the falling edge taken before the first cycle's rising one
    }
}

// One rising edge with this cycle's inputs (the RTL evaluates both in one delta cycle, its
// flops taking what its combinational logic makes of the new inputs, as when the inputs settle
// first), the falling edge one delta cycle later, then SystemC's time moves on to `until`, the
// model's time of the (last) cycle the edge ends: the model's edge that follows (spu_cycle_ext())
// makes its buffer writes at its own time, so that a TLM write reaches the bus when the
// transaction-level PE's would (not up to a period late). The registered outputs have settled
// by then; at `until` already (the first cycle) two delta cycles settle them.
void SpuRtl::clock(Impl &r, const sc_time &until)
{
    if (r.free_clk) {
        wait(r.free_clk->posedge_event());
        wait(r.free_clk->negedge_event());
        return;
    }
    r.clk.write(true);
    r.fall.notify(SC_ZERO_TIME); // fall_edge(), a method: no switch of this thread
    const sc_time now = sc_time_stamp();
    if (until > now) {
        wait(until - now);
    } else {
        wait(SC_ZERO_TIME); // the RTL evaluates the edge,
        wait(SC_ZERO_TIME); // its registered outputs update
    }
}

void SpuRtl::unclocked(uint64_t cycles, uint64_t stalls)
{
    if (!cycles)
        return;
    impl_->icr_resync = true; // the next clocked cycle loads PMSICR_EL1 from the model
    // The RTL's FIFO did not drain meanwhile: the model's must not have either (unless the
    // barrier emptied it: the next clocked cycle flushes the RTL's, fifo_flush).
    spu_probe mp;
    spu_get_probe(spu_.unit(), &mp);
    if (mp.fifo_level && mp.fifo_level != impl_->fifo_level.read())
        st_.drain_mismatches++;
    st_.cycles += cycles;
    st_.unclocked += cycles;
    st_.ready_stalls += stalls;
    st_.unclocked_stalls += stalls;
}

void SpuRtl::fall_edge()
{
    Impl &r = *impl_;
    r.clk.write(false);
    r.cfg_drain.write(r.drain_rate); // after a drain step
}

/*
 * Quiet cycles, taken in one step as the transaction-level PE's scheduler takes them: nothing
 * in flight in either FIFO's slots, no register write pending, the enable as in the last
 * clocked cycle (no §3.1.1 initialisation), no pending sample point (cfg_next_op), no ECOUNT
 * running (ERnd) and COUNT >= n per cycle, so that no lane can fire (§3.1.2: a member selects
 * only when COUNT is zero). Then only three things move: COUNT, by n per enabled cycle; the
 * buffer writer's outstanding writes, answered at their latency (LT: known when issued); and
 * the record FIFO, which drains min(rate, level) bytes in each cycle the writer takes them
 * (spu_drain_ready(), the RTL's drain_ready) and holds them in each cycle it stalls.
 *  - FIFOs empty (idle), or the writer stalled throughout: the RTL keeps its state and is not
 *    clocked at all (with drain_ready low its edges would change nothing);
 *  - otherwise the RTL is clocked once with op_valid = 0, drain_ready = 1 and cfg_drain = the
 *    bytes the step's ready cycles drain (<= its DRAIN_MAX; its POPS covers that many bytes of
 *    the smallest records); the buffer must have room for the whole FIFO and PMBSR_EL1.S be
 *    clear, so that no buffer-full event is expected inside the step, and the records go
 *    through DMI (their writes then do not depend on the order in which they reach the bus).
 * The model steps through the k cycles one by one with the COUNT, level and drained bytes each
 * would have had, and the next clocked cycle loads COUNT into the RTL (MSR PMSICR_EL1, applied
 * before the lanes as any write), so the RTL continues from the value it would have counted
 * down to. A management event in a step (PMBSR_EL1.S: a buffer-full event after all, or one
 * that waited for an outstanding write's answer) ends it with that cycle. The RTL's level and
 * drained bytes after a drain step are checked against the k cycles' (drain_mismatches).
 */
uint64_t SpuRtl::skip_idle(uint32_t n, uint64_t max_cycles)
{
    Impl &r = *impl_;
    spu_t *u = spu_.unit();
    if (r.first || !max_cycles || every_cycle_ || r.inflight.read() || r.pending.read())
        return 0;
    const uint32_t outstanding = spu_writes_outstanding(u);
    const bool at = spu_.timing() == BufferTiming::At;
    if (at && (outstanding || spu_.at_outstanding()))
        return 0; // AT answers arrive from SystemC: every cycle is clocked at its time
    uint64_t irr = 0, icr = 0;
    spu_reg_peek(u, SPU_PMSIRR_EL1, &irr);
    spu_reg_peek(u, SPU_PMSICR_EL1, &icr);
    if (irr != r.last_irr || icr != r.last_icr)
        return 0;
    bool en = spu_profiling_enabled(u);
    if (en != r.last_en)
        return 0;
    spu_probe mp; // the model's FIFO and slots (cheaper than spu_get_stats())
    spu_get_probe(u, &mp);
    const uint32_t level = r.fifo_level.read();
    if (mp.inflight || mp.fifo_level != level)
        return 0;
    const spu_config &c = *spu_get_config(u);
    const uint32_t count = (uint32_t)icr;
    const uint8_t ecount = (uint8_t)(icr >> 56);
    const uint32_t step = en ? n : 0;
    uint64_t k = max_cycles;
    if (step) {
        if (c.ernd && ecount)
            return 0;
        k = std::min<uint64_t>(k, count / step);
    }
    const uint32_t rate = c.drain_bytes_per_cycle;
    uint64_t sr = 0;
    spu_reg_peek(u, SPU_PMBSR_EL1, &sr);
    if (level) {
        uint64_t lim = 0, ptr = 0;
        spu_reg_peek(u, SPU_PMBLIMITR_EL1, &lim);
        spu_reg_peek(u, SPU_PMBPTR_EL1, &ptr);
        const uint64_t limit = lim & ~0xFFFull;
        // PMBLIMITR_EL1.E set, FM = 0b00 (fill), S clear, and room for every byte in the FIFO
        // with a maximum-size record still fitting after them (§3.5.2: no buffer-full event).
        const uint64_t room = level + (2ull << c.max_size); // + the head record's drained bytes
        if ((sr & kPmbsrS) || !(lim & 1) || (lim & 0x6) || rate == 0 || ptr >= limit || limit - ptr <= room)
            return 0;
        // The records that complete in the step are written at their cycle's model time but
        // before SystemC reaches it: only through DMI, which does not depend on the order in
        // which writes reach the bus (a TLM write's contention does), so the DMI region must
        // cover everything the FIFO holds.
        size_t dmi = 0;
        if (!spu_.dmi_view(ptr, &dmi) || dmi <= room)
            return 0;
    }
    if (outstanding && !level) {
        // An answer in the step can make the writer issue the partial block it held back
        // (spu_writer_run()): through DMI that write does not depend on when it is made, but a
        // TLM write would reach the bus before SystemC is at its cycle, out of order with the
        // other initiators' transfers (background traffic). Without DMI the step ends before
        // the first answer's edge, which is then clocked at its time.
        uint64_t ptr = 0;
        size_t dmi = 0;
        spu_reg_peek(u, SPU_PMBPTR_EL1, &ptr);
        if (!spu_.dmi_view(ptr, &dmi) || dmi <= (2ull << c.max_size)) {
            const uint64_t e = spu_cycles_to_next_event(u);
            if (e != UINT64_MAX)
                k = std::min<uint64_t>(k, e - 1);
        }
    }
    if (!k)
        return 0;
    // A management event can only begin in the step with bytes to write or writes to answer.
    const bool watch = !(sr & kPmbsrS) && (level || outstanding);
    spu_op ops[kLanes] = {};
    spu_ext_cycle ec{};
    ec.ecount = ecount;
    uint32_t left = level, drained = 0;
    uint64_t i = 0, stalled = 0;
    while (i < k) {
        uint32_t d = 0;
        if (left) {
            if (spu_drain_ready(u)) {
                d = std::min(rate, left);
                if (drained + d > kDrainMax)
                    break; // the RTL's one edge drains at most DRAIN_MAX bytes
            } else {
                stalled++; // the RTL's offer would wait on drain_ready low
            }
        }
        i++;
        ec.count = count - (uint32_t)(i * step);
        ec.drained = d;
        drained += d;
        left -= d;
        ec.fifo_level = left;
        spu_cycle_ext(u, ops, n, &ec, nullptr);
        if (watch) {
            // A management event after all: the step ends with this cycle, as a clocked cycle
            // would, so that PMBIRQ is seen after it.
            spu_reg_peek(u, SPU_PMBSR_EL1, &sr);
            if (sr & kPmbsrS) {
                st_.drain_events += level != 0;
                break;
            }
        }
    }
    k = i;
    if (!k)
        return 0;
    r.last_icr = mirrored_icr(icr, ec, c.ernd);
    r.icr_resync = true;
    // The model time of the step's last cycle (AT: of its end, where every cycle ends).
    const sc_time until = at ? spu_.model_time() : spu_.model_time() - r.period;
    if (drained) {
        // One edge draining the step's bytes; the counter does not move (op_valid = 0).
        r.irr_we.write(false);
        r.icr_we.write(false);
        r.prof_en.write(en);
        r.op_valid.write(0);
        r.fifo_flush.write(false);
        r.fifo_discard.write(false);
        r.lane_lat.write(0);
        r.lane_len.write(0);
        r.drain_ready.write(true);
        r.cfg_drain.write(drained);
        clock(r, until); // cfg_drain back to the rate after the edge
        const uint64_t dr = r.drained.read();
        if (dr - r.last_drained != drained || r.fifo_level.read() != left)
            st_.drain_mismatches++;
        r.last_drained = dr;
        st_.drain_steps++;
    } else if (until > sc_time_stamp()) {
        wait(until - sc_time_stamp());
    }
    st_.cycles += k;
    st_.skipped += k;
    st_.ready_stalls += stalled;
    st_.step_stalls += stalled;
    return k;
}

void SpuRtl::cycle(uint32_t n, const std::function<void(uint32_t, spu_op &)> &draw)
{
    Impl &r = *impl_;
    spu_t *u = spu_.unit();
    // AT memory timing: SystemC is at the cycle's start (the model's time) and the answers that
    // arrive during this edge's delta cycles wait until the model's edge is made, as those of
    // the transaction-level PE's lockstep do (its thread makes the edge in the evaluation it
    // wakes in; the AT bridge's BEGIN_RESP reaches the port a delta cycle later).
    // (The free-running yardstick clock, ARMPROF_RTL_EVERY_CYCLE, keeps its own edges.)
    const bool at = spu_.timing() == BufferTiming::At && !r.free_clk;
    if (at) {
        const sc_time t = spu_.model_time(), now = sc_time_stamp();
        if (t > now)
            wait(t - now);
        spu_.hold_answers();
    }
    // Inputs from the model: the cycle's register writes, the enable, the lanes, the FIFO.
    uint64_t irr = 0, icr = 0, sr = 0;
    spu_reg_peek(u, SPU_PMSIRR_EL1, &irr);
    spu_reg_peek(u, SPU_PMSICR_EL1, &icr);
    spu_reg_peek(u, SPU_PMBSR_EL1, &sr);
    const bool irr_we = r.first || irr != r.last_irr, icr_we = r.first || icr != r.last_icr || r.icr_resync;
    r.irr_we.write(irr_we);
    if (irr_we || r.free_clk) // the data only matters with the write enable (the yardstick: as before)
        r.irr_wdata.write(irr);
    r.icr_we.write(icr_we);
    if (icr_we || r.free_clk)
        r.icr_wdata.write(icr);
    r.first = false;
    r.icr_resync = false;
    r.last_irr = irr;
    const bool en = spu_profiling_enabled(u);
    r.prof_en.write(en);
    r.op_valid.write(n >= 32 ? ~0u : (1u << n) - 1);
    bool flush = false;
    if (r.fifo_level.read() != 0) {
        spu_probe mp;
        spu_get_probe(u, &mp);
        flush = mp.fifo_level == 0;
    }
    r.fifo_flush.write(flush);
    st_.flushes += flush;
    r.fifo_discard.write((sr & kPmbsrS) != 0);
    r.lane_lat.write(0);
    r.lane_len.write(0);
    // The drain handshake: the RTL's FIFO hands its offer (drain_valid, drain_len) to the buffer
    // writer at this edge only if the writer takes it: fewer than max_outstanding_writes writes
    // outstanding and no buffer-full event waiting for them (spu_drain_ready()), the answer the
    // model's own FIFO gets at its edge, so the RTL drains only as the memory system accepts.
    const bool ready = spu_drain_ready(u);
    r.drain_ready.write(ready);
    if (!ready && r.drain_valid.read())
        st_.ready_stalls++;
    // `fire` is combinational: read it after the inputs have reached the RTL, unless no lane
    // can fire this cycle (the enable as last cycle, no pending sample point, and COUNT, as
    // written this cycle or as held, >= n with no ECOUNT running: §3.1.2; a PMSIRR_EL1 write
    // only matters at a reload), which saves the two delta cycles.
    const uint32_t count_now = icr_we ? (uint32_t)icr : r.count.read();
    const uint32_t ecount_now = icr_we ? (uint32_t)(icr >> 56) : r.ecount.read();
    bool may_fire = en && n;
    if (may_fire && !r.free_clk && en == r.last_en && !r.pending.read() &&
        !(spu_get_config(u)->ernd && ecount_now) && count_now >= n)
        may_fire = false;
    r.last_en = en;
    uint32_t fire = 0;
    if (may_fire) {
        wait(SC_ZERO_TIME); // the inputs update, the RTL evaluates,
        wait(SC_ZERO_TIME); // its combinational `fire` updates
        fire = r.fire.read();
    }
    spu_op ops[kLanes];
    uint16_t len[kLanes] = {};
    uint64_t lat_bits = 0, len_bits = 0;
    for (uint32_t i = 0; i < n; i++) {
        spu_op &op = ops[i];
        if (!(fire >> i & 1)) {
            op = spu_op{}; // a member of the population only: never looked at
            continue;
        }
        draw(i, op);
        uint32_t lat = op.total_lat;
        if (lat > 0xFFFF) {
            lat = 0xFFFF;
            st_.lat_clamped++;
        }
        len[i] = (uint16_t)spu_predict_record_len(u, &op);
        lat_bits |= (uint64_t)lat << (kLatW * i);
        len_bits |= (uint64_t)(len[i] & 0xFFF) << (kLenW * i);
    }
    if (fire) {
        r.lane_lat.write(lat_bits);
        r.lane_len.write(len_bits);
    }
    clock(r, at ? sc_time_stamp() : spu_.model_time()); // the registered outputs have settled
    spu_ext_cycle ec{};
    ec.fire = r.fire_q.read();
    ec.coll = r.coll_q.read();
    ec.len = len;
    const uint64_t dr = r.drained.read();
    ec.drained = (uint32_t)(dr - r.last_drained);
    r.last_drained = dr;
    ec.fifo_level = r.fifo_level.read();
    ec.count = r.count.read();
    ec.ecount = (uint8_t)r.ecount.read();
    if (ec.fire != fire)
        st_.fire_disagree++;
    spu_cycle_ext(u, ops, n, &ec, nullptr);
    r.last_icr = mirrored_icr(icr, ec, spu_get_config(u)->ernd);
    if (at) {
        // The held answers take effect after the edge (at the unit's new cycle); SystemC then
        // moves to the cycle's end, taking the answers that arrive before it.
        spu_.release_answers();
        const sc_time t = spu_.model_time(), now = sc_time_stamp();
        if (t > now)
            wait(t - now);
    }
    st_.cycles++;
    st_.samples += (uint64_t)__builtin_popcount(ec.fire & ~ec.coll);
    st_.collisions += (uint64_t)__builtin_popcount(ec.coll);
}

#else // no SystemC RTL in this build

struct SpuRtl::Impl {};

bool SpuRtl::available() { return false; }

std::string SpuRtl::why_not(const spu_config &, uint32_t)
{
    return "sampler rtl: this build has no SystemC RTL (ARMPROF_WITHOUT contains rtl-cosim); use sampler: model";
}

SpuRtl::SpuRtl(sc_module_name name, SpuModule &spu, const sc_time &, uint32_t lanes) : sc_module(name), spu_(spu)
{
    ARMPROF_REPORT_ERROR(report::kRtl, why_not(*spu_get_config(spu.unit()), lanes));
}

SpuRtl::~SpuRtl() = default;
void SpuRtl::start() {}
void SpuRtl::unclocked(uint64_t, uint64_t) {}
void SpuRtl::cycle(uint32_t, const std::function<void(uint32_t, spu_op &)> &) {}
uint64_t SpuRtl::skip_idle(uint32_t, uint64_t) { return 0; }
void SpuRtl::fall_edge() {}

#endif

} // namespace armprof
