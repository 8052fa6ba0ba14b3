// SPDX-License-Identifier: Apache-2.0
// spe_agent.cpp: arm_spe_pmu-like programming and servicing of the SPU.
#include "spe_agent.h"

#include <algorithm>

#include "armprof/bits.h"
#include "armprof/sysreg.h" // PMBSR_EL1_S, PMSCR_EL1_E1SPE, ...

namespace armprof {


SpeAgent::SpeAgent(const Config &cfg, RegRead rd, RegWrite wr, std::function<void()> psb_csync, MemRead mem,
                   Sink sink)
    : cfg_(cfg), rd_(std::move(rd)), wr_(std::move(wr)), csync_(std::move(psb_csync)), mem_(std::move(mem)),
      sink_(std::move(sink))
{
}

uint64_t SpeAgent::rd(uint32_t enc)
{
    uint64_t v = 0;
    rd_(enc, &v);
    return v;
}

void SpeAgent::wr(uint32_t enc, uint64_t v) { wr_(enc, v); }

bool SpeAgent::probe()
{
    uint64_t idr = rd(SPU_PMBIDR_EL1), sidr = rd(SPU_PMSIDR_EL1);
    align_ = (uint32_t)ap_field_get(PMBIDR_EL1_Align, idr);
    max_size_ = (uint32_t)ap_field_get(PMSIDR_EL1_MaxSize, sidr);
    return !(idr & PMBIDR_EL1_P);
}

void SpeAgent::start()
{
    wr(SPU_PMSFCR_EL1, cfg_.pmsfcr);
    wr(SPU_PMSEVFR_EL1, cfg_.pmsevfr);
    wr(SPU_PMSLATFR_EL1, cfg_.pmslatfr);
    wr(SPU_PMSIRR_EL1, ap_field_prep(PMSIRR_EL1_INTERVAL, cfg_.interval >> 8) | (cfg_.rnd ? PMSIRR_EL1_RND : 0));
    wr(SPU_PMSICR_EL1, rd(SPU_PMSIRR_EL1));
    wr(SPU_PMBPTR_EL1, cfg_.base);
    wr(SPU_PMBLIMITR_EL1, (cfg_.base + cfg_.size) | cfg_.nvm_bit | PMBLIMITR_EL1_E);
    wr(SPU_PMBSR_EL1, 0);
    wr(SPU_PMSCR_EL1, (cfg_.ts ? PMSCR_EL1_TS : 0) | (cfg_.pa ? PMSCR_EL1_PA : 0) |
                          (cfg_.cx ? PMSCR_EL1_CX : 0) | PMSCR_EL1_E1SPE | PMSCR_EL1_E0SPE);
    running_ = true;
}

// Streams [base, upto) to the sink as it is consumed: straight from the buffer's memory where
// a DMI view covers it, otherwise through debug reads of at most a page, so nothing of the
// buffer's size is held here. A short read (a page the fault injection unmapped) ends the copy
// there, as one debug read of the whole range would.
void SpeAgent::copy_out(uint64_t upto)
{
    if (upto <= cfg_.base || upto > cfg_.base + cfg_.size)
        return;
    constexpr size_t CHUNK = 4096;
    uint64_t a = cfg_.base;
    while (a < upto) {
        size_t left = (size_t)(upto - a), avail = 0;
        const uint8_t *host = view_ ? view_(a, &avail) : nullptr;
        if (host && avail) {
            size_t n = std::min(left, avail);
            if (sink_)
                sink_(host, n);
            st_.bytes_copied += n;
            a += n;
            continue;
        }
        size_t n = std::min(left, CHUNK - (size_t)(a & (CHUNK - 1)));
        tmp_.resize(CHUNK);
        size_t got = mem_(a, tmp_.data(), n);
        if (sink_ && got)
            sink_(tmp_.data(), got);
        st_.bytes_copied += got;
        if (got != n)
            return;
        a += n;
    }
}

std::string SpeAgent::fault_kind(uint64_t pmbsr)
{
    unsigned ec = (unsigned)ap_field_get(PMBSR_EL1_EC, pmbsr);
    unsigned fsc = (unsigned)ap_field_get(PMBSR_EL1_FSC, pmbsr);
    if (ec == ARMPROF_EC_OTHER)
        return (pmbsr & PMBSR_EL1_EA) ? "ext_abort" : "buffer_full";
    if (ec == ARMPROF_EC_GPC)
        return "gpc";
    if (ec == ARMPROF_EC_IMPDEF)
        return "impdef";
    std::string st = ec == ARMPROF_EC_S2_ABORT ? "s2_" : "s1_";
    switch (fsc & 0x3C) {
    case ARMPROF_FSC_ADDR_SIZE: return st + "address_size";
    case ARMPROF_FSC_TRANSLATION: return st + "translation";
    case ARMPROF_FSC_ACCESS_FLAG: return st + "access_flag";
    case ARMPROF_FSC_PERMISSION: return st + "permission";
    case ARMPROF_FSC_SEA_WALK: return st + "walk_abort";
    default: break;
    }
    if (fsc == ARMPROF_FSC_SEA_WRITE)
        return st + "sync_ext_abort";
    if (fsc == ARMPROF_FSC_AEA_WRITE)
        return st + "async_ext_abort";
    return st + "other";
}

bool SpeAgent::on_irq(uint64_t now_ns)
{
    st_.irqs++;
    csync_(); // PSB CSYNC before reading the syndrome and the data (3.6)
    uint64_t sr = rd(SPU_PMBSR_EL1);
    if (!(sr & PMBSR_EL1_S))
        return false;
    uint64_t ptr = rd(SPU_PMBPTR_EL1);
    events_.push_back({now_ns, sr, ptr});
    bool dl = sr & PMBSR_EL1_DL, ea = sr & PMBSR_EL1_EA;
    unsigned ec = (unsigned)ap_field_get(PMBSR_EL1_EC, sr);
    st_.by_kind[fault_kind(sr)]++;
    if (dl)
        st_.dl++;
    if (ec == ARMPROF_EC_OTHER && !ea) {
        // Buffer full: hand the data over and restart at the base.
        st_.buffer_full++;
        if (!dl)
            copy_out(ptr);
        wr(SPU_PMBPTR_EL1, cfg_.base);
        wr(SPU_PMBSR_EL1, 0);
        return true;
    }
    if (ea)
        st_.ext_aborts++;
    else
        st_.faults++;
    // PMBPTR_EL1 is the fault address (synchronous reports): records before it are complete
    // unless DL; after an asynchronous External abort nothing can be trusted (3.5.4).
    if (!dl && !ea)
        copy_out(ptr);
    if (cfg_.restart_after_fault && !ea) {
        // The fault is taken as fixed: the data up to the pointer is out, start afresh.
        wr(SPU_PMBPTR_EL1, cfg_.base);
        wr(SPU_PMBSR_EL1, 0);
        return true;
    }
    st_.fatal++;
    wr(SPU_PMBLIMITR_EL1, 0);
    wr(SPU_PMBSR_EL1, 0);
    running_ = false;
    return true;
}

void SpeAgent::stop()
{
    wr(SPU_PMSCR_EL1, 0);
    csync_();
    uint64_t sr = rd(SPU_PMBSR_EL1);
    if (running_ && !(sr & PMBSR_EL1_DL))
        copy_out(rd(SPU_PMBPTR_EL1));
    wr(SPU_PMBLIMITR_EL1, 0);
    running_ = false;
}

} // namespace armprof
