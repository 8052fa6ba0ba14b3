// SPDX-License-Identifier: Apache-2.0
// trbe_agent.cpp: the coresight-trbe register sequence: enable in Fill mode, interrupt handling, copy out, stop.
#include "trbe_agent.h"

#include <algorithm>

#include "armprof/bits.h"

namespace armprof {

namespace {
constexpr uint8_t ETE_IGNORE = 0x70;     // the ETE Ignore packet the driver pads with
constexpr uint64_t TRACE_MIN_RUN = 64;   // TRBE_TRACE_MIN_BUF_SIZE
} // namespace

TrbeAgent::TrbeAgent(const Config &cfg, RegRead rd, RegWrite wr, std::function<void()> tsb_csync, MemRead mem,
                     Sink sink)
    : cfg_(cfg), rd_(std::move(rd)), wr_(std::move(wr)), csync_(std::move(tsb_csync)), mem_(std::move(mem)),
      sink_(std::move(sink))
{
}

uint64_t TrbeAgent::rd(uint32_t enc)
{
    uint64_t v = 0;
    rd_(enc, &v);
    return v;
}
void TrbeAgent::wr(uint32_t enc, uint64_t v) { wr_(enc, v); }

bool TrbeAgent::probe()
{
    uint64_t id = rd(TRBU_TRBIDR_EL1);
    if (ap_field_get(TRBIDR_EL1_P, id))
        return false;
    align_ = 1ull << ap_field_get(TRBIDR_EL1_Align, id);
    return true;
}

// Streams [from, to) of the buffer to the sink: straight from the buffer's memory where a DMI
// view covers it, otherwise through debug reads of at most a page.
void TrbeAgent::consume(uint64_t from, uint64_t to)
{
    if (to <= from)
        return;
    constexpr size_t CHUNK = 4096;
    tmp_.resize(CHUNK);
    for (uint64_t o = from; o < to;) {
        size_t avail = 0;
        const uint8_t *host = view_ ? view_(cfg_.base + o, &avail) : nullptr;
        if (host && avail) {
            size_t n = (size_t)std::min<uint64_t>(to - o, avail);
            sink_(host, n);
            st_.bytes_copied += n;
            o += n;
            continue;
        }
        size_t n = (size_t)std::min<uint64_t>(to - o, CHUNK - ((cfg_.base + o) & (CHUNK - 1)));
        size_t got = mem_(cfg_.base + o, tmp_.data(), n);
        if (got != n) // unreadable (the page was unmapped by a fault injection): holes read as 0
            std::fill(tmp_.begin() + (long)got, tmp_.begin() + (long)n, 0);
        sink_(tmp_.data(), n);
        st_.bytes_copied += n;
        o += n;
    }
}

void TrbeAgent::pad(uint64_t to)
{
    if (to <= head_)
        return;
    std::vector<uint8_t> p((size_t)(to - head_), ETE_IGNORE);
    sink_(p.data(), p.size());
    st_.pad_bytes += p.size();
    head_ = to;
}

// trbe_drain_and_disable_local(): TSB CSYNC, then TRBLIMITR_EL1.E = 0 keeping the limit.
void TrbeAgent::drain_and_disable()
{
    csync_();
    wr(TRBU_TRBLIMITR_EL1, rd(TRBU_TRBLIMITR_EL1) & ~TRBLIMITR_EL1_E);
}

void TrbeAgent::enable()
{
    if (head_ & (align_ - 1))
        pad(std::min<uint64_t>((head_ + align_ - 1) & ~(align_ - 1), cfg_.size));
    if (cfg_.size - head_ < TRACE_MIN_RUN) {
        pad(cfg_.size);
        head_ = 0;
    }
    if (head_ == cfg_.size)
        head_ = 0;
    uint64_t sr = rd(TRBU_TRBSR_EL1);
    sr &= ~(TRBSR_IRQ | TRBSR_TRG | TRBSR_WRAP | TRBSR_EC | TRBSR_BSC | TRBSR_S | TRBSR_EA);
    wr(TRBU_TRBLIMITR_EL1, rd(TRBU_TRBLIMITR_EL1) & ~TRBLIMITR_EL1_E);
    wr(TRBU_TRBSR_EL1, sr);
    wr(TRBU_TRBBASER_EL1, cfg_.base);
    wr(TRBU_TRBPTR_EL1, cfg_.base + head_);
    wr(TRBU_TRBTRG_EL1, cfg_.trigger_count);
    wr(TRBU_TRBLIMITR_EL1, ((cfg_.base + cfg_.size) & TRBLIMITR_EL1_LIMIT) |
                               ap_field_prep(TRBLIMITR_EL1_FM, TRBU_FM_FILL) |
                               ap_field_prep(TRBLIMITR_EL1_TM, cfg_.tm) | TRBLIMITR_EL1_E);
}

void TrbeAgent::start()
{
    head_ = 0;
    running_ = true;
    enable();
}

bool TrbeAgent::on_irq(uint64_t now_ns)
{
    drain_and_disable();
    uint64_t sr = rd(TRBU_TRBSR_EL1);
    uint64_t ptr = rd(TRBU_TRBPTR_EL1) - cfg_.base;
    if (!(sr & TRBSR_IRQ)) {
        st_.spurious++;
        if (running_)
            enable();
        return false;
    }
    st_.irqs++;
    events_.push_back({now_ns, sr, ptr + cfg_.base});
    wr(TRBU_TRBSR_EL1, sr & ~TRBSR_IRQ);
    unsigned ec = (unsigned)ap_field_get(TRBSR_EC, sr);
    bool filled = (sr & TRBSR_WRAP) && ec == 0 && ap_field_get(TRBSR_BSC, sr) == TRBU_BSC_FILLED && ptr == 0;
    bool fatal = (sr & (TRBSR_TRG | TRBSR_EA)) || ec != 0;
    bool fault = ec != 0 || (sr & TRBSR_EA);
    bool permanent = false;
    if (fault) {
        st_.faults++;
        // EC, EA and the FSC (MSS[5:0]) name the fault; the same one where the restart began,
        // with nothing written since, will come back on every restart.
        uint64_t kind = sr & (TRBSR_EC | TRBSR_EA | 0x3Full);
        permanent = (sr & TRBSR_EA) || (fault_restart_ && kind == fault_kind_ && ptr + cfg_.base == restart_ptr_);
        fault_kind_ = kind;
    }
    fault_restart_ = false;
    if (!fatal && filled) {
        // trbe_handle_overflow(): the whole rest of the buffer is trace.
        consume(head_, cfg_.size);
        head_ = 0;
        st_.wraps++;
    } else if (fatal) {
        // trbe_stop_and_truncate_event(), then perf schedules the event in again: what was
        // written up to the write pointer is kept (up to the Limit with a buffer full).
        uint64_t end = filled ? cfg_.size : ptr;
        if (end > head_ && end <= cfg_.size)
            consume(head_, end);
        head_ = end < cfg_.size ? end : 0;
        st_.fatal++;
    } else {
        st_.spurious++;
    }
    if (permanent) {
        // The unit stays disabled (drained above); stop() has nothing more to collect.
        st_.permanent = 1;
        permanent_ = {now_ns, sr, ptr + cfg_.base};
        running_ = false;
        return true;
    }
    if (running_) {
        enable();
        if (fault) {
            fault_restart_ = true;
            restart_ptr_ = cfg_.base + head_;
        }
    }
    return true;
}

void TrbeAgent::stop()
{
    if (!running_)
        return;
    running_ = false;
    drain_and_disable();
    uint64_t sr = rd(TRBU_TRBSR_EL1);
    uint64_t ptr = rd(TRBU_TRBPTR_EL1) - cfg_.base;
    if (sr & TRBSR_IRQ) {
        wr(TRBU_TRBSR_EL1, sr & ~TRBSR_IRQ);
        if ((sr & TRBSR_WRAP) && ptr == 0)
            ptr = cfg_.size;
    }
    if (ptr > head_ && ptr <= cfg_.size)
        consume(head_, ptr);
    head_ = ptr < cfg_.size ? ptr : 0;
}

} // namespace armprof
