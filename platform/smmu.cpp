// SPDX-License-Identifier: Apache-2.0
// smmu.cpp: VMSAv8-64 stage 1 / stage 2 walks, TLB, hardware flag updates, faults and fault injection.
#include "smmu.h"

#include <cstdio>
#include <cstring>

#include "armprof/bits.h"

namespace armprof {

using namespace sc_core;

namespace {
// VMSAv8-64 descriptor fields (4 KB granule, 48-bit output addresses).
constexpr uint64_t D_VALID = AP_BIT(0);
constexpr uint64_t D_TABLE = AP_BIT(1);         // table (levels 0-2) or page (level 3)
constexpr uint64_t D_AP2 = AP_BIT(7);           // stage 1 AP[2]: read-only
constexpr uint64_t D_S2AP_R = AP_BIT(6);        // stage 2 S2AP[0]: read allowed
constexpr uint64_t D_S2AP_W = AP_BIT(7);        // stage 2 S2AP[1]: write allowed
constexpr uint64_t D_AF = AP_BIT(10);           // Access flag
constexpr uint64_t D_DBM = AP_BIT(51);          // dirty bit modifier
constexpr uint64_t D_APTABLE1 = AP_BIT(62);     // table descriptor APTable[1]: no write below
constexpr uint64_t D_ADDR = AP_GENMASK(47, 12); // next-level table / output address

constexpr uint64_t D_ATTRINDX = AP_GENMASK(4, 2); // stage 1 AttrIndx[2:0]
constexpr uint64_t D_MEMATTR = AP_GENMASK(5, 2);  // stage 2 MemAttr[3:0]
constexpr uint64_t D_SH = AP_GENMASK(9, 8);       // SH[1:0]

inline unsigned level_shift(unsigned level) { return 12u + 9u * (3u - level); }
// First lookup level for a 4 KB granule and an input size (no concatenation).
inline unsigned start_level(unsigned insize) { return 3u - (insize - 13u) / 9u; }
} // namespace

Smmu::Smmu(sc_module_name name, unsigned pes) : sc_module(name), tsock("tsock"), isock("isock"), ctx_(pes ? pes : 1)
{
    tsock.register_b_transport(this, &Smmu::b_transport);
    tsock.register_transport_dbg(this, &Smmu::transport_dbg);
    tsock.register_get_direct_mem_ptr(this, &Smmu::get_direct_mem_ptr);
    isock.register_invalidate_direct_mem_ptr(this, &Smmu::invalidate_direct_mem_ptr);
}

Smmu::Ctx &Smmu::ctx(unsigned pe)
{
    if (pe >= ctx_.size())
        ctx_.resize(pe + 1);
    return ctx_[pe];
}
const Smmu::Ctx &Smmu::ctx(unsigned pe) const { return ctx_.at(pe); }

void Smmu::set_stage1(unsigned pe, armprof_regime_kind kind, const StageCfg &cfg)
{
    ctx(pe).s1[kind] = cfg;
    tlbi_pe(pe);
}
void Smmu::set_stage2(unsigned pe, const StageCfg &cfg)
{
    ctx(pe).s2 = cfg;
    tlbi_pe(pe);
}
const Smmu::StageCfg &Smmu::stage1(unsigned pe, armprof_regime_kind kind) const { return ctx(pe).s1[kind]; }

// ----- Memory attributes -----------------------------------------------------------------------

namespace {
void cache_str(char *o, size_t n, uint8_t c, uint8_t alloc, bool transient)
{
    static const char *const cache[] = {"NC", "WT", "WB"};
    static const char *const al[] = {"-nA", "-WA", "-RA", "-RWA"};
    std::snprintf(o, n, "%s%s%s", cache[c % 3], c == mem_attr::NC ? "" : al[alloc & 3],
                  c != mem_attr::NC && transient ? "-T" : "");
}
} // namespace

const char *mem_attr_str(const mem_attr &a, char *buf, size_t size)
{
    static const char *const dev[] = {"nGnRnE", "nGnRE", "nGRE", "GRE"};
    static const char *const sh[] = {"NSH", "SH01", "OSH", "ISH"};
    if (a.type == mem_attr::DEVICE) {
        std::snprintf(buf, size, "Device-%s %s", dev[a.device & 3], sh[a.sh & 3]);
    } else {
        char in[16], out[16];
        cache_str(in, sizeof in, a.inner, a.inner_alloc, a.inner_transient);
        cache_str(out, sizeof out, a.outer, a.outer_alloc, a.outer_transient);
        std::snprintf(buf, size, "Normal i%s o%s %s", in, out, sh[a.sh & 3]);
    }
    return buf;
}

namespace {
// One half of a MAIR Normal encoding (MAIR_ELx.Attr<n>): 0b00RW WT transient (RW != 00),
// 0b0100 NC, 0b01RW WB transient (RW != 00), 0b10RW WT, 0b11RW WB (R: bit 1, W: bit 0).
bool mair_half(unsigned v, uint8_t &cache, uint8_t &alloc, bool &transient)
{
    alloc = (uint8_t)(v & 3);
    transient = !(v & 8);
    if (v == 4) {
        cache = mem_attr::NC;
        alloc = 0;
        transient = false;
        return true;
    }
    if (v == 0)
        return false; // 0b0000 in the inner half of a Normal encoding: reserved (no FEAT_XS)
    cache = (v & 4) ? mem_attr::WB : mem_attr::WT;
    return true;
}

// SH[1:0]: 0b00 NSH, 0b10 OSH, 0b11 ISH; 0b01 is reserved (CONSTRAINED UNPREDICTABLE): OSH.
uint8_t sh_decode(unsigned sh, bool &reserved)
{
    if (sh == 1) {
        reserved = true;
        return mem_attr::OSH;
    }
    return (uint8_t)sh;
}

// The effective Shareability: Device and Normal Inner NC Outer NC are Outer Shareable.
void effective_sh(mem_attr &a)
{
    if (a.type == mem_attr::DEVICE || (a.inner == mem_attr::NC && a.outer == mem_attr::NC))
        a.sh = mem_attr::OSH;
}
} // namespace

mem_attr Smmu::s1_attr(uint8_t v, unsigned sh, bool *reserved)
{
    bool rsv = false;
    mem_attr a;
    if ((v >> 4) == 0) {
        // 0b0000dd00: Device, dd = nGnRnE / nGnRE / nGRE / GRE. 0b0000ddxx with xx != 00 needs
        // FEAT_XS (not implemented): reserved.
        if (v & 3)
            rsv = true;
        a = mem_attr::device_type(rsv ? (uint8_t)mem_attr::nGnRnE : (uint8_t)((v >> 2) & 3));
    } else {
        a.type = mem_attr::NORMAL;
        bool ok = mair_half(v >> 4, a.outer, a.outer_alloc, a.outer_transient) &&
                  mair_half(v & 0xF, a.inner, a.inner_alloc, a.inner_transient);
        if (!ok) {
            rsv = true;
            a = mem_attr::device_type(mem_attr::nGnRnE);
        } else {
            a.sh = sh_decode(sh & 3, rsv);
        }
    }
    effective_sh(a);
    if (reserved)
        *reserved = rsv;
    return a;
}

mem_attr Smmu::s2_attr(unsigned m, unsigned sh, bool *reserved)
{
    // FEAT_S2FWB off: MemAttr[3:2] == 0b00 is Device (MemAttr[1:0] the type); otherwise Normal
    // with Outer = MemAttr[3:2], Inner = MemAttr[1:0]: 0b01 NC, 0b10 WT, 0b11 WB (0b00 reserved).
    // Stage 2 gives no allocation hints: they come from stage 1.
    bool rsv = false;
    mem_attr a;
    m &= 0xF;
    if ((m >> 2) == 0) {
        a = mem_attr::device_type((uint8_t)(m & 3));
    } else if ((m & 3) == 0) {
        rsv = true;
        a = mem_attr::device_type(mem_attr::nGnRnE);
    } else {
        static const uint8_t c[4] = {0, mem_attr::NC, mem_attr::WT, mem_attr::WB};
        a.type = mem_attr::NORMAL;
        a.outer = c[m >> 2];
        a.inner = c[m & 3];
        a.sh = sh_decode(sh & 3, rsv);
    }
    effective_sh(a);
    if (reserved)
        *reserved = rsv;
    return a;
}

mem_attr Smmu::combine_s1_s2(const mem_attr &s1, const mem_attr &s2)
{
    // Combining stage 1 and stage 2 attributes, FEAT_S2FWB off (Arm ARM "Combining the stage 1
    // and stage 2 attributes"; seed 000 D17.7.3 RDQTTB: identical to any other IPA of the regime):
    // Device beats Normal, the more restrictive Device type, the less cacheable of NC < WT < WB
    // per level with stage 1's allocation / transient hints, the stronger Shareability.
    mem_attr r;
    if (s1.type == mem_attr::DEVICE || s2.type == mem_attr::DEVICE) {
        uint8_t d = s1.type == mem_attr::DEVICE ? s1.device : s2.device;
        if (s1.type == mem_attr::DEVICE && s2.type == mem_attr::DEVICE && s2.device < d)
            d = s2.device;
        return mem_attr::device_type(d);
    }
    r.type = mem_attr::NORMAL;
    r.inner = s1.inner < s2.inner ? s1.inner : s2.inner;
    r.outer = s1.outer < s2.outer ? s1.outer : s2.outer;
    if (r.inner != mem_attr::NC) {
        r.inner_alloc = s1.inner_alloc;
        r.inner_transient = s1.inner_transient;
    }
    if (r.outer != mem_attr::NC) {
        r.outer_alloc = s1.outer_alloc;
        r.outer_transient = s1.outer_transient;
    }
    if (s1.sh == mem_attr::OSH || s2.sh == mem_attr::OSH)
        r.sh = mem_attr::OSH;
    else if (s1.sh == mem_attr::ISH || s2.sh == mem_attr::ISH)
        r.sh = mem_attr::ISH;
    else
        r.sh = mem_attr::NSH;
    effective_sh(r);
    return r;
}

mem_attr Smmu::dc_attr()
{
    // Seed 000 D17.7.3: HCR_EL2.DC == 1: Normal Non-shareable, Inner and Outer Write-Back
    // Cacheable Read-Allocate Write-Allocate (non-transient).
    return mem_attr::normal(mem_attr::WB, mem_attr::WB, mem_attr::NSH, 3);
}
const Smmu::StageCfg &Smmu::stage2(unsigned pe) const { return ctx(pe).s2; }

// ----- TLB ---------------------------------------------------------------------------------

uint32_t Smmu::tlb_tag(const armprof_regime &rg)
{
    return (uint32_t)rg.pe << 8 | (uint32_t)rg.kind << 4 | (uint32_t)rg.stage2 << 2 |
           (uint32_t)rg.nvm << 1 | (uint32_t)rg.hw_flag_update;
}

void Smmu::tlbi_all()
{
    st_.tlbi++;
    tlb_.clear();
    invalidate_all_dmi();
}

void Smmu::tlbi_pe(unsigned pe)
{
    st_.tlbi++;
    for (auto it = tlb_.begin(); it != tlb_.end();)
        it = ((it->first.tag >> 8) == pe) ? tlb_.erase(it) : std::next(it);
    invalidate_all_dmi();
}

void Smmu::tlbi_va(unsigned pe, armprof_regime_kind kind, uint64_t va)
{
    st_.tlbi++;
    for (auto it = tlb_.begin(); it != tlb_.end();) {
        bool hit = it->first.page == (va >> 12) && (it->first.tag >> 8) == pe &&
                   ((it->first.tag >> 4) & 0xF) == (uint32_t)kind;
        it = hit ? tlb_.erase(it) : std::next(it);
    }
    invalidate_all_dmi();
}

void Smmu::tlbi_ipa(unsigned pe)
{
    // Combined stage 1 + stage 2 entries cannot be found by IPA: drop every stage 2 entry.
    st_.tlbi++;
    for (auto it = tlb_.begin(); it != tlb_.end();) {
        bool hit = (it->first.tag >> 8) == pe && (it->first.tag & 4);
        it = hit ? tlb_.erase(it) : std::next(it);
    }
    invalidate_all_dmi();
}

void Smmu::invalidate_all_dmi()
{
    if (!elaborated_)
        return;
    for (unsigned i = 0; i < tsock.size(); i++)
        tsock[i]->invalidate_direct_mem_ptr(0, ~0ull);
}

void Smmu::invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64)
{
    // Downstream ranges are physical; the pointers handed out are by VA: drop them all.
    invalidate_all_dmi();
}

// ----- Physical accesses for walks -----------------------------------------------------------

// One 8-byte little-endian descriptor access over the SMMU's initiator socket.
static bool phys_access64(tlm_utils::simple_initiator_socket<Smmu> &sock, tlm::tlm_command cmd, uint64_t pa,
                          uint8_t *b, sc_time &delay)
{
    tlm::tlm_generic_payload gp;
    gp.set_command(cmd);
    gp.set_address(pa);
    gp.set_data_ptr(b);
    gp.set_data_length(8);
    gp.set_streaming_width(8);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sock->b_transport(gp, delay);
    return gp.is_response_ok();
}

bool Smmu::phys_read64(uint64_t pa, uint64_t &val, sc_time &delay)
{
    uint8_t b[8] = {0};
    bool ok = phys_access64(isock, tlm::TLM_READ_COMMAND, pa, b, delay);
    st_.desc_reads++;
    val = 0;
    for (int i = 7; i >= 0; i--)
        val = val << 8 | b[i];
    return ok;
}

bool Smmu::phys_write64(uint64_t pa, uint64_t val, sc_time &delay)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(val >> (8 * i));
    return phys_access64(isock, tlm::TLM_WRITE_COMMAND, pa, b, delay);
}

namespace {
bool dbg_rw64(tlm::tlm_fw_transport_if<> *s, uint64_t pa, uint64_t &val, bool write)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(val >> (8 * i));
    tlm::tlm_generic_payload gp;
    gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    gp.set_address(pa);
    gp.set_data_ptr(b);
    gp.set_data_length(8);
    gp.set_streaming_width(8);
    unsigned n = s->transport_dbg(gp);
    if (!write) {
        val = 0;
        for (int i = 7; i >= 0; i--)
            val = val << 8 | b[i];
    }
    return n == 8;
}
} // namespace

// Reads the descriptor at `addr` of a stage `stage` table. Stage 1 tables live at IPAs when
// stage 2 applies: their addresses go through a stage 2 walk first (a fault there is a stage 2
// fault). An External abort on the read is a synchronous External abort on a translation table
// walk at that level (FSC 0b0101xx).
bool Smmu::table_read(unsigned stage, uint64_t addr, uint64_t &val, uint64_t &pa, Access &acc,
                      sc_time &delay, WalkOut &out, bool probe)
{
    pa = addr;
    const armprof_regime &rg = *acc.rg;
    if (stage == 1 && rg.stage2 && ctx(rg.pe).s2.enabled) {
        Access a2 = acc;
        a2.write = false;
        WalkOut w2 = walk(2, ctx(rg.pe).s2, addr, a2, delay, probe);
        if (w2.fault) {
            out = w2;
            out.s2_fault = true;
            return false;
        }
        pa = w2.oa;
    }
    if (probe)
        return dbg_rw64(isock.operator->(), pa, val, false);
    return phys_read64(pa, val, delay);
}

Smmu::WalkOut Smmu::walk(unsigned stage, const StageCfg &cfg, uint64_t ia, Access &acc, sc_time &delay,
                         bool probe, int stop_level, uint64_t *desc_pa)
{
    WalkOut out;
    const armprof_regime &rg = *acc.rg;
    auto fault = [&](uint8_t base, unsigned level) {
        out.fault = true;
        out.fsc = fsc_with_level(base, level);
        return out;
    };
    if (!probe)
        st_.walks++;
    bool upper = cfg.two_ranges && (ia & AP_BIT(55));
    unsigned tsz = upper ? cfg.tsz1 : cfg.tsz0;
    bool tbi = stage == 1 && (upper ? cfg.tbi1 : cfg.tbi0);
    unsigned insize = 64u - tsz;
    if (insize > 48)
        insize = 48;
    if (insize < 25)
        insize = 25;
    // Input address range: the bits above the input size must all equal the range select bit
    // (TTBR1) or be zero (TTBR0, single range); otherwise a Translation fault at level 0.
    unsigned top = tbi ? 55 : 63;
    uint64_t hi_mask = AP_GENMASK(top, insize);
    uint64_t hi_bits = ia & hi_mask;
    if (hi_bits != (upper ? hi_mask : 0))
        return fault(ARMPROF_FSC_TRANSLATION, 0);
    unsigned level = start_level(insize);
    uint64_t base = upper ? cfg.ttb1 : cfg.ttb0;
    if (cfg.oa_bits < 48 && (base & AP_GENMASK(47, cfg.oa_bits)))
        return fault(ARMPROF_FSC_ADDR_SIZE, 0);
    uint64_t table = base & D_ADDR;
    bool no_write = false;
    for (;;) {
        unsigned shift = level_shift(level);
        unsigned idx_bits = (insize - shift) < 9 ? insize - shift : 9;
        uint64_t idx = (ia >> shift) & ((1ull << idx_bits) - 1);
        uint64_t d, dpa;
        // Injected External abort on this walk at this level.
        const Rule *ab = acc.walk_abort[stage];
        if (ab && ab->level == level && !probe) {
            consume(const_cast<Rule *>(ab));
            acc.walk_abort[stage] = nullptr;
            st_.walk_aborts++;
            return fault(ARMPROF_FSC_SEA_WALK, level);
        }
        if (!table_read(stage, table + idx * 8, d, dpa, acc, delay, out, probe)) {
            if (out.fault)
                return out; // stage 2 fault while fetching a stage 1 descriptor
            st_.walk_aborts++;
            return fault(ARMPROF_FSC_SEA_WALK, level);
        }
        if (desc_pa && (int)level == stop_level) {
            *desc_pa = dpa;
            return out;
        }
        if (!(d & D_VALID))
            return fault(ARMPROF_FSC_TRANSLATION, level);
        if (level < 3 && (d & D_TABLE)) {
            uint64_t next = d & D_ADDR;
            if (cfg.oa_bits < 48 && (next & AP_GENMASK(47, cfg.oa_bits)))
                return fault(ARMPROF_FSC_ADDR_SIZE, level);
            if (stage == 1 && (d & D_APTABLE1))
                no_write = true;
            table = next;
            level++;
            continue;
        }
        // Level 3 with bit[1] clear is reserved; a 4 KB granule has no level 0 block.
        if ((level == 3 && !(d & D_TABLE)) || level == 0)
            return fault(ARMPROF_FSC_TRANSLATION, level);
        uint64_t oa_mask = AP_GENMASK(47, shift);
        if (cfg.oa_bits < 48 && (d & oa_mask & AP_GENMASK(47, cfg.oa_bits)))
            return fault(ARMPROF_FSC_ADDR_SIZE, level);
        out.oa = (d & oa_mask) | (ia & ~oa_mask & AP_GENMASK(47, 0));
        out.desc = d;
        if (desc_pa) {
            if (stop_level < 0)
                *desc_pa = dpa;
            return out;
        }
        if (probe)
            return out;
        // Access flag: set by hardware when the unit's F bit and TCR.HA allow, else a fault.
        bool hw = rg.hw_flag_update;
        uint64_t nd = d;
        if (!(d & D_AF)) {
            if (!(hw && cfg.ha))
                return fault(ARMPROF_FSC_ACCESS_FLAG, level);
            nd |= D_AF;
        }
        // Permissions of a privileged write, PSTATE.PAN treated as 0 (D17.7.6). A writable-clean
        // entry (DBM set) is made dirty by hardware when TCR.HD and the F bit allow.
        if (stage == 1) {
            if (acc.write && ((d & D_AP2) || no_write)) {
                if (!no_write && (d & D_DBM) && hw && cfg.hd)
                    nd &= ~D_AP2;
                else
                    return fault(ARMPROF_FSC_PERMISSION, level);
            }
        } else {
            if (!acc.write && !(d & D_S2AP_R))
                return fault(ARMPROF_FSC_PERMISSION, level);
            if (acc.write && !(d & D_S2AP_W)) {
                if ((d & D_DBM) && hw && cfg.hd)
                    nd |= D_S2AP_W;
                else
                    return fault(ARMPROF_FSC_PERMISSION, level);
            }
        }
        if (nd != d) {
            if (!phys_write64(dpa, nd, delay)) {
                st_.walk_aborts++;
                return fault(ARMPROF_FSC_SEA_WALK, level); // abort on a hardware update
            }
            st_.hw_updates++;
        }
        return out;
    }
}

Smmu::Rule *Smmu::match_rule(Inject what, const armprof_regime &rg, uint64_t lo, uint64_t hi)
{
    for (Rule &r : rules_) {
        if (r.what == what && r.pe == rg.pe && (r.unit < 0 || r.unit == rg.unit) && lo < r.hi &&
            hi > r.lo && r.remaining != 0)
            return &r;
    }
    return nullptr;
}

void Smmu::consume(Rule *r)
{
    if (r->remaining > 0)
        r->remaining--;
}

void Smmu::inject(const Rule &r)
{
    rules_.push_back(r);
    tlb_.clear();
    invalidate_all_dmi();
}

void Smmu::clear_injections()
{
    rules_.clear();
    invalidate_all_dmi();
}

Smmu::Xlat Smmu::translate(const armprof_regime &rg, uint64_t addr, bool write, sc_time &delay)
{
    Xlat x;
    st_.translations++;
    auto fail = [&](uint8_t ec, uint8_t fsc) {
        x.status = ARMPROF_MEM_FAULT;
        x.ec = ec;
        x.fsc = fsc;
        st_.faults++;
        return x;
    };
    if (Rule *g = match_rule(Inject::Gpf, rg, addr, addr + 1)) {
        consume(g);
        return fail(ARMPROF_EC_GPC, ARMPROF_FSC_GPF);
    }
    Access acc{&rg, write, {nullptr, nullptr, nullptr}};
    for (Rule &r : rules_)
        if (r.what == Inject::WalkAbort && r.remaining != 0 && r.pe == rg.pe &&
            (r.unit < 0 || r.unit == rg.unit) && addr >= r.lo && addr < r.hi && r.stage <= 2)
            acc.walk_abort[r.stage] = &r;
    bool rules_apply = acc.walk_abort[1] || acc.walk_abort[2];
    TlbKey key{addr >> 12, tlb_tag(rg)};
    uint16_t mar = rg.nvm ? rg.mar : 0; // an nVM entry holds PMBMAR_EL1 / TRBMAR_EL1's attributes
    if (write && !rules_apply) {
        auto it = tlb_.find(key);
        if (it != tlb_.end() && it->second.mar == mar) {
            st_.tlb_hits++;
            delay += tlb_hit_latency;
            x.pa = it->second.pa | (addr & 0xFFF);
            x.attr = it->second.attr;
            x.cacheable = true;
            return x;
        }
    }
    Ctx &c = ctx(rg.pe);
    uint64_t ipa = addr;
    bool reserved = false;
    // HCR_EL2.DC (EL1&0 with stage 2): stage 1 disabled, output Normal NSH WB RA WA regardless
    // of SCTLR_EL1.C and PMBMAR_EL1 (seed 000 D17.7.3).
    bool dc = rg.kind == ARMPROF_REGIME_EL10 && rg.stage2 && c.s2.dc;
    mem_attr s1a;
    if (rg.nvm) {
        // nVM: the pointers are PAs, or IPAs with stage 2 (seed 000 D17.7.2). RXBFCM / RQJNFT:
        // bits [47:PAMax] nonzero give a stage 1 Address size fault; bits [63:48] nonzero are
        // CONSTRAINED UNPREDICTABLE (fault, or ignored).
        if (addr >> 48) {
            if (nvm_high_bits_fault)
                return fail(ARMPROF_EC_S1_ABORT, fsc_with_level(ARMPROF_FSC_ADDR_SIZE, 0));
            ipa = addr & AP_GENMASK(47, 0);
        }
        if (pamax < 48 && (ipa & AP_GENMASK(47, pamax)))
            return fail(ARMPROF_EC_S1_ABORT, fsc_with_level(ARMPROF_FSC_ADDR_SIZE, 0));
        // nVM: PMBMAR_EL1 / TRBMAR_EL1 {SH[9:8], Attr[7:0]} give the stage 1 output attributes;
        // SCTLR_ELx.{C, M} are ignored (seed 000 D17.7.2).
        s1a = dc ? dc_attr() : s1_attr((uint8_t)(rg.mar & 0xFF), (rg.mar >> 8) & 3, &reserved);
    } else {
        const StageCfg &s1 = c.s1[rg.kind];
        if (!s1.enabled || dc) {
            // Stage 1 disabled: flat mapping, an address beyond PAMax is an Address size fault.
            // Its output is Device-nGnRnE for data accesses (AArch64.S1DisabledOutput), or the
            // HCR_EL2.DC attributes.
            if (addr >> pamax)
                return fail(ARMPROF_EC_S1_ABORT, fsc_with_level(ARMPROF_FSC_ADDR_SIZE, 0));
            s1a = dc ? dc_attr() : mem_attr::device_type(mem_attr::nGnRnE);
        } else {
            WalkOut w = walk(1, s1, addr, acc, delay);
            if (w.fault)
                return fail(w.s2_fault ? ARMPROF_EC_S2_ABORT : ARMPROF_EC_S1_ABORT, w.fsc);
            ipa = w.oa;
            unsigned idx = (unsigned)ap_field_get(D_ATTRINDX, w.desc);
            s1a = s1_attr((uint8_t)(s1.mair >> (8 * idx)), (unsigned)ap_field_get(D_SH, w.desc), &reserved);
        }
    }
    uint64_t pa = ipa;
    mem_attr fa = s1a;
    if (rg.stage2 && c.s2.enabled) {
        WalkOut w = walk(2, c.s2, ipa, acc, delay);
        if (w.fault)
            return fail(ARMPROF_EC_S2_ABORT, w.fsc);
        pa = w.oa;
        bool r2 = false;
        mem_attr s2a = s2_attr((unsigned)ap_field_get(D_MEMATTR, w.desc), (unsigned)ap_field_get(D_SH, w.desc), &r2);
        reserved |= r2;
        fa = combine_s1_s2(s1a, s2a);
    }
    if (reserved)
        st_.reserved_attrs++;
    x.pa = pa;
    x.attr = fa;
    x.cacheable = !rules_apply;
    if (write && x.cacheable) {
        if (tlb_.size() >= tlb_capacity_)
            tlb_.clear();
        tlb_[key] = TlbEnt{pa & ~0xFFFull, fa, mar};
    }
    return x;
}

// ----- TLM ---------------------------------------------------------------------------------

void Smmu::b_transport(int, tlm::tlm_generic_payload &trans, sc_time &delay)
{
    regime_ext *ext = trans.get_extension<regime_ext>();
    if (!ext) { // physical access
        isock->b_transport(trans, delay);
        return;
    }
    const armprof_regime &rg = ext->regime;
    uint64_t addr = trans.get_address();
    unsigned len = trans.get_data_length();
    uint8_t *data = trans.get_data_ptr();
    bool write = trans.is_write();
    ext->translated = true;
    ext->result = armprof_mem_result{};
    unsigned off = 0;
    while (off < len) {
        uint64_t a = addr + off;
        unsigned chunk = 4096u - (unsigned)(a & 0xFFF);
        if (chunk > len - off)
            chunk = len - off;
        Xlat x = translate(rg, a, write, delay);
        if (x.status != ARMPROF_MEM_OK) {
            ext->result.status = x.status;
            ext->result.ec = x.ec;
            ext->result.fsc = x.fsc;
            ext->result.written = off;
            trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
            return;
        }
        unsigned good = chunk;
        Rule *ab = write ? match_rule(Inject::WriteAbort, rg, a, a + chunk) : nullptr;
        if (ab)
            good = ab->lo > a ? (unsigned)(ab->lo - a) : 0;
        if (good) {
            // The attributes travel with the access (each page's own: D17.7.7, first option).
            mem_attr_ext ax;
            ax.attr = x.attr;
            if (good == len) { // the common case: forward the payload itself
                trans.set_address(x.pa);
                mem_attr_ext *prev = trans.set_extension(&ax);
                isock->b_transport(trans, delay);
                if (prev)
                    trans.set_extension(prev);
                else
                    trans.clear_extension(&ax);
                trans.set_address(addr);
            } else {
                tlm::tlm_generic_payload gp;
                gp.set_command(trans.get_command());
                gp.set_address(x.pa);
                gp.set_data_ptr(data + off);
                gp.set_data_length(good);
                gp.set_streaming_width(good);
                gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
                gp.set_extension(ext);
                gp.set_extension(&ax);
                isock->b_transport(gp, delay);
                gp.clear_extension(ext);
                gp.clear_extension(&ax);
                trans.set_response_status(gp.get_response_status());
            }
            if (trans.is_response_error()) {
                // The memory's answer: an External abort on the write (async per the region).
                bool async = ext->result.async;
                ext->result.status = ARMPROF_MEM_EXT_ABORT;
                ext->result.fsc = async ? ARMPROF_FSC_AEA_WRITE : ARMPROF_FSC_SEA_WRITE;
                ext->result.written = off;
                st_.write_aborts++;
                return;
            }
        }
        if (ab) {
            consume(ab);
            st_.write_aborts++;
            ext->result.status = ARMPROF_MEM_EXT_ABORT;
            ext->result.async = ab->async;
            ext->result.fsc = ab->async ? ARMPROF_FSC_AEA_WRITE : ARMPROF_FSC_SEA_WRITE;
            ext->result.written = off + good;
            trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
            return;
        }
        off += chunk;
    }
    ext->result.status = ARMPROF_MEM_OK;
    ext->result.written = len;
    trans.set_dmi_allowed(dmi_enabled);
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned Smmu::transport_dbg(int, tlm::tlm_generic_payload &trans)
{
    regime_ext *ext = trans.get_extension<regime_ext>();
    if (!ext)
        return isock->transport_dbg(trans);
    // Debug view through the translation: walks read memory with debug accesses, no updates,
    // no fault recorded; stops at the first untranslated page.
    const armprof_regime &rg = ext->regime;
    uint64_t addr = trans.get_address();
    unsigned len = trans.get_data_length(), done = 0;
    uint8_t *data = trans.get_data_ptr();
    while (done < len) {
        uint64_t a = addr + done;
        unsigned chunk = 4096u - (unsigned)(a & 0xFFF);
        if (chunk > len - done)
            chunk = len - done;
        uint64_t pa = a;
        Access acc{&rg, false, {nullptr, nullptr, nullptr}};
        sc_time d = SC_ZERO_TIME;
        if (!rg.nvm && ctx(rg.pe).s1[rg.kind].enabled) {
            WalkOut w = walk(1, ctx(rg.pe).s1[rg.kind], a, acc, d, true);
            if (w.fault)
                break;
            pa = w.oa;
        }
        if (rg.stage2 && ctx(rg.pe).s2.enabled) {
            WalkOut w = walk(2, ctx(rg.pe).s2, pa, acc, d, true);
            if (w.fault)
                break;
            pa = w.oa;
        }
        tlm::tlm_generic_payload gp;
        gp.set_command(trans.get_command());
        gp.set_address(pa);
        gp.set_data_ptr(data + done);
        gp.set_data_length(chunk);
        gp.set_streaming_width(chunk);
        unsigned n = isock->transport_dbg(gp);
        done += n;
        if (n < chunk)
            break;
    }
    return done;
}

bool Smmu::get_direct_mem_ptr(int, tlm::tlm_generic_payload &trans, tlm::tlm_dmi &dmi)
{
    regime_ext *ext = trans.get_extension<regime_ext>();
    uint64_t addr = trans.get_address();
    if (!ext) // physical: pass through unchanged
        return isock->get_direct_mem_ptr(trans, dmi);
    const armprof_regime &rg = ext->regime;
    uint64_t page = addr & ~0xFFFull;
    dmi.set_start_address(page);
    dmi.set_end_address(page + 0xFFF);
    if (!dmi_enabled)
        return false;
    for (const Rule &r : rules_)
        if (r.pe == rg.pe && r.remaining != 0 && page < r.hi && page + 0x1000 > r.lo)
            return false;
    // Only a page whose translation needs no further update (AF set, dirty) is handed out.
    sc_time d = SC_ZERO_TIME;
    Xlat x = translate(rg, page, true, d);
    if (x.status != ARMPROF_MEM_OK || !x.cacheable)
        return false;
    // Grow the range over the following pages that the TLB already holds as writable (so no
    // hardware update is skipped), with the same attributes (so a DMI write has the attributes
    // the TLM path would give it), mapped contiguously.
    uint64_t end = page + 0xFFF;
    uint32_t tag = tlb_tag(rg);
    uint16_t mar = rg.nvm ? rg.mar : 0;
    for (unsigned n = 1; n < 512; n++) {
        uint64_t next = page + ((uint64_t)n << 12);
        auto it = tlb_.find(TlbKey{next >> 12, tag});
        if (it == tlb_.end() || it->second.pa != (x.pa & ~0xFFFull) + ((uint64_t)n << 12) ||
            it->second.mar != mar || it->second.attr != x.attr)
            break;
        bool ruled = false;
        for (const Rule &r : rules_)
            if (r.pe == rg.pe && r.remaining != 0 && next < r.hi && next + 0x1000 > r.lo)
                ruled = true;
        if (ruled)
            break;
        end = next + 0xFFF;
    }
    // The DMI request carries the attributes and the span it is for: the target records them
    // at grant time (the writes through the pointer never reach it).
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_WRITE_COMMAND);
    gp.set_address(x.pa);
    mem_attr_ext ax;
    ax.attr = x.attr;
    ax.dmi_bytes = end - page + 1;
    gp.set_extension(&ax);
    tlm::tlm_dmi down;
    bool ok = isock->get_direct_mem_ptr(gp, down);
    gp.clear_extension(&ax);
    if (!ok)
        return false;
    if (!down.is_write_allowed() || down.get_start_address() > x.pa || down.get_end_address() < x.pa + 0xFFF)
        return false;
    if (x.pa + (end - page) > down.get_end_address()) // x.pa is page aligned
        end = page + ((down.get_end_address() + 1 - x.pa) & ~0xFFFull) - 1;
    dmi.set_dmi_ptr(down.get_dmi_ptr() + (x.pa - down.get_start_address()));
    dmi.set_start_address(page);
    dmi.set_end_address(end);
    dmi.set_granted_access(down.get_granted_access());
    dmi.set_read_latency(down.get_read_latency() + tlb_hit_latency);
    dmi.set_write_latency(down.get_write_latency() + tlb_hit_latency);
    st_.dmi_grants++;
    return true;
}

// ----- Descriptor edits (fault injection) ------------------------------------------------------

uint64_t Smmu::descriptor_address(unsigned pe, armprof_regime_kind kind, unsigned stage, uint64_t addr, int level)
{
    armprof_regime rg{};
    rg.pe = (uint8_t)pe;
    rg.kind = kind;
    rg.stage2 = ctx(pe).s2.enabled;
    Access acc{&rg, false, {nullptr, nullptr, nullptr}};
    sc_time d = SC_ZERO_TIME;
    uint64_t dpa = 0;
    const StageCfg &cfg = stage == 2 ? ctx(pe).s2 : ctx(pe).s1[kind];
    if (!cfg.enabled)
        return 0;
    WalkOut w = walk(stage, cfg, addr, acc, d, true, level, &dpa);
    return w.fault ? 0 : dpa;
}

bool Smmu::edit_descriptor(unsigned pe, armprof_regime_kind kind, unsigned stage, uint64_t addr, int level,
                           uint64_t set, uint64_t clear)
{
    uint64_t dpa = descriptor_address(pe, kind, stage, addr, level);
    if (!dpa)
        return false;
    uint64_t v = 0;
    if (!dbg_rw64(isock.operator->(), dpa, v, false))
        return false;
    v = (v & ~clear) | set;
    if (!dbg_rw64(isock.operator->(), dpa, v, true))
        return false;
    tlbi_all(); // what the software that made the change would do (TLBI + DSB)
    return true;
}

bool Smmu::inject_unmap(unsigned pe, armprof_regime_kind kind, unsigned stage, uint64_t addr, int level)
{
    return edit_descriptor(pe, kind, stage, addr, level, 0, D_VALID);
}

bool Smmu::inject_read_only(unsigned pe, armprof_regime_kind kind, unsigned stage, uint64_t addr)
{
    return stage == 2 ? edit_descriptor(pe, kind, 2, addr, -1, 0, D_S2AP_W | D_DBM)
                      : edit_descriptor(pe, kind, 1, addr, -1, D_AP2, D_DBM);
}

bool Smmu::inject_clear_af(unsigned pe, armprof_regime_kind kind, unsigned stage, uint64_t addr)
{
    return edit_descriptor(pe, kind, stage, addr, -1, 0, D_AF);
}

} // namespace armprof
