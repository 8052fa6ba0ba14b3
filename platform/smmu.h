// SPDX-License-Identifier: Apache-2.0
// smmu.h: VMSAv8-64 translation (stage 1 + stage 2, 4 KB granule) of the units' buffer writes, with TLB and fault injection.
#ifndef ARMPROF_PLATFORM_SMMU_H
#define ARMPROF_PLATFORM_SMMU_H

#include <cstdint>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "ap_tlm.h"

namespace armprof {

/*
 * The translation that the PE's MMU applies to the Profiling Buffer / trace buffer writes of
 * its units (seed 000 D17.7.2-3: "identical to that for any other virtual address in the
 * owning translation regime"). One instance serves every PE: translation contexts are kept per
 * PE and per regime kind, the descriptors are read from simulated memory over TLM (isock), so
 * walks cost bus time and can abort.
 *
 * What is modelled: AArch64 long descriptors, 4 KB granule, input sizes 25..48 bits, output
 * sizes up to 48 bits; TTBR0/TTBR1 (EL1&0, EL2&0) or a single range (EL2, stage 2); top byte
 * ignore; table, block (levels 1, 2) and page descriptors; APTable[1], AP[2], S2AP; the Access
 * flag and the dirty state (DBM) updated by hardware when the unit's F bit and TCR.HA / HD
 * allow, else Access flag / Permission faults; Address size faults (TTBR, table and output
 * addresses beyond the output size, nVM pointers beyond PAMax, RXBFCM); External aborts on
 * walks and on hardware updates; nVM (pointers are PAs, or IPAs when stage 2 applies).
 * Writes are privileged with PSTATE.PAN treated as 0 (D17.7.6), so AP[1] never matters.
 * Memory attributes (mem_attr, carried downstream in a mem_attr_ext): stage 1 from
 * MAIR[AttrIndx] and the leaf's SH, PMBMAR_EL1 / TRBMAR_EL1 {SH, Attr} when nVM (SCTLR.{C, M}
 * ignored), Normal WB Non-shareable under HCR_EL2.DC, Device-nGnRnE with stage 1 disabled;
 * stage 2 MemAttr / SH combined with FEAT_S2FWB off (seed 000 D17.7.2, D17.7.3).
 * Not modelled: 16/64 KB granules, LPA/LPA2/D128, concatenated stage-2 start tables,
 * FEAT_S2FWB / FEAT_XS / FEAT_MTE2 / FEAT_AIE attribute encodings, Security-state PA spaces,
 * GPC (only injected).
 */
class Smmu : public sc_core::sc_module {
public:
    tlm_utils::multi_passthrough_target_socket<Smmu> tsock; // from the units (and the agent)
    tlm_utils::simple_initiator_socket<Smmu> isock;         // to the bus: walks and data

    // One stage of translation of one regime: the TTBRs and the TCR / VTCR fields used.
    struct StageCfg {
        bool enabled = false;        // SCTLR_ELx.M / HCR_EL2.VM; a disabled stage 1 is flat
        uint64_t ttb0 = 0, ttb1 = 0; // TTBR0 / TTBR1 BADDR (VTTBR for stage 2)
        unsigned tsz0 = 16, tsz1 = 16; // T0SZ / T1SZ: input size is 64 - TnSZ
        bool two_ranges = false;     // EL1&0 and EL2&0 have TTBR1; EL2 and stage 2 do not
        bool tbi0 = true, tbi1 = true; // TCR.TBI0 / TBI1 (stage 1)
        unsigned oa_bits = 48;       // TCR.IPS / TCR_EL2.PS / VTCR_EL2.PS as a size in bits
        bool ha = true, hd = true;   // TCR.HA / HD, VTCR.HA / HD
        // Stage 1: MAIR_ELx of the regime. Default: Linux's MAIR_EL1 (arm64 memory.h):
        // Attr0 Normal WB RA WA (0xFF), Attr1 Normal tagged (0xFF without MTE), Attr2 Normal NC
        // (0x44), Attr3 Device-nGnRnE (0x00), Attr4 Device-nGnRE (0x04).
        uint64_t mair = 0x000000040044FFFFull;
        // Stage 2: HCR_EL2.DC (EL1&0 regime with stage2 only): stage 1 disabled, its output
        // Normal Non-shareable Inner/Outer WB RA WA, regardless of SCTLR_EL1.C and PMBMAR_EL1.
        bool dc = false;
    };

    explicit Smmu(sc_core::sc_module_name name, unsigned pes = 1);

    // Translation registers of a PE. kind selects the stage 1 of EL1&0, EL2 or EL2&0.
    void set_stage1(unsigned pe, armprof_regime_kind kind, const StageCfg &cfg);
    void set_stage2(unsigned pe, const StageCfg &cfg);
    const StageCfg &stage1(unsigned pe, armprof_regime_kind kind) const;
    const StageCfg &stage2(unsigned pe) const;
    unsigned pamax = 48;             // AArch64.PAMax()
    bool nvm_high_bits_fault = true; // RXBFCM: PTR[63:48] != 0 with nVM: fault (else ignored)
    sc_core::sc_time tlb_hit_latency = sc_core::SC_ZERO_TIME;
    bool dmi_enabled = true;

    // The outcome of translating one address for a privileged write.
    struct Xlat {
        armprof_mem_status status = ARMPROF_MEM_OK;
        uint8_t ec = 0, fsc = 0;     // stage (EC 0x24 / 0x25), FSC with the level in [1:0]
        uint64_t pa = 0;             // output address of the 4 KB page's first byte + offset
        bool cacheable = false;      // may be held in the TLB / DMI (no update pending)
        mem_attr attr;               // final (stage 1 combined with stage 2) attributes
    };
    Xlat translate(const armprof_regime &rg, uint64_t addr, bool write, sc_core::sc_time &delay);

    // TLB maintenance (TLBI): everything, one PE, one page of a regime, or every stage 2 entry.
    void tlbi_all();
    void tlbi_pe(unsigned pe);
    void tlbi_va(unsigned pe, armprof_regime_kind kind, uint64_t va);
    void tlbi_ipa(unsigned pe);

    // ----- Fault injection -------------------------------------------------------------------
    // Edits of the descriptor that maps `addr` (a VA for stage 1, an IPA for stage 2) at `level`
    // (-1: the leaf), in simulated memory, followed by a TLB and DMI invalidation. They return
    // false when the walk does not reach that descriptor.
    bool inject_unmap(unsigned pe, armprof_regime_kind kind, unsigned stage, uint64_t addr, int level = -1);
    bool inject_read_only(unsigned pe, armprof_regime_kind kind, unsigned stage, uint64_t addr);
    bool inject_clear_af(unsigned pe, armprof_regime_kind kind, unsigned stage, uint64_t addr);
    bool edit_descriptor(unsigned pe, armprof_regime_kind kind, unsigned stage, uint64_t addr,
                         int level, uint64_t set, uint64_t clear);
    // Address of that descriptor (0 when not reached).
    uint64_t descriptor_address(unsigned pe, armprof_regime_kind kind, unsigned stage,
                                uint64_t addr, int level);

    enum class Inject { WalkAbort, WriteAbort, Gpf };
    struct Rule {
        Inject what = Inject::WriteAbort;
        unsigned pe = 0;
        int unit = -1;               // ARMPROF_UNIT_*, -1 any
        uint64_t lo = 0, hi = 0;     // input addresses [lo, hi) of the write
        unsigned stage = 1;          // WalkAbort: which walk aborts
        unsigned level = 0;          // WalkAbort: at which level's descriptor read
        bool async = false;          // WriteAbort: reported asynchronously (FSC 0b010001)
        int remaining = -1;          // how many times it fires, -1 = until removed
    };
    void inject(const Rule &r);
    void clear_injections();

    // Attribute decoding (public for tests and integrators). `reserved` is set when the
    // encoding is reserved / UNPREDICTABLE (it is then treated as Device-nGnRnE, resp. OSH).
    static mem_attr s1_attr(uint8_t mair_attr, unsigned sh, bool *reserved = nullptr);
    static mem_attr s2_attr(unsigned memattr, unsigned sh, bool *reserved = nullptr);
    static mem_attr combine_s1_s2(const mem_attr &s1, const mem_attr &s2);
    static mem_attr dc_attr();       // HCR_EL2.DC stage 1 output (D17.7.3)

    struct Stats {
        uint64_t reserved_attrs = 0; // translations that met a reserved attribute encoding
        uint64_t translations = 0, tlb_hits = 0, walks = 0, desc_reads = 0, hw_updates = 0;
        uint64_t faults = 0, walk_aborts = 0, write_aborts = 0, dmi_grants = 0, tlbi = 0;
    };
    const Stats &stats() const { return st_; }

private:
    struct Ctx { StageCfg s1[3]; StageCfg s2; };
    struct WalkOut {
        bool fault = false;
        uint8_t fsc = 0;
        bool s2_fault = false;       // fault came from a stage 2 walk (of a stage 1 table)
        uint64_t oa = 0;
        uint64_t desc = 0;           // the leaf descriptor (as written back, for the attributes)
        bool cacheable = true;
    };
    struct Access { const armprof_regime *rg; bool write; const Rule *walk_abort[3]; };

    void b_transport(int id, tlm::tlm_generic_payload &trans, sc_core::sc_time &delay);
    unsigned transport_dbg(int id, tlm::tlm_generic_payload &trans);
    bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload &trans, tlm::tlm_dmi &dmi);
    void invalidate_direct_mem_ptr(sc_dt::uint64 lo, sc_dt::uint64 hi);

    WalkOut walk(unsigned stage, const StageCfg &cfg, uint64_t ia, Access &acc, sc_core::sc_time &delay,
                 bool probe = false, int stop_level = -1, uint64_t *desc_pa = nullptr);
    bool phys_read64(uint64_t pa, uint64_t &val, sc_core::sc_time &delay);
    bool phys_write64(uint64_t pa, uint64_t val, sc_core::sc_time &delay);
    bool table_read(unsigned stage, uint64_t addr, uint64_t &val, uint64_t &pa, Access &acc,
                    sc_core::sc_time &delay, WalkOut &out, bool probe);
    Rule *match_rule(Inject what, const armprof_regime &rg, uint64_t lo, uint64_t hi);
    void consume(Rule *r);
    void invalidate_all_dmi();
    void end_of_elaboration() override { elaborated_ = true; }
    bool elaborated_ = false; // no DMI pointer exists before, and the sockets are not resolved
    Ctx &ctx(unsigned pe);
    const Ctx &ctx(unsigned pe) const;

    struct TlbKey {
        uint64_t page;
        uint32_t tag;
        bool operator==(const TlbKey &o) const { return page == o.page && tag == o.tag; }
    };
    struct TlbHash {
        size_t operator()(const TlbKey &k) const { return std::hash<uint64_t>()(k.page * 0x9E3779B97F4A7C15ull ^ k.tag); }
    };
    static uint32_t tlb_tag(const armprof_regime &rg);
    struct TlbEnt {
        uint64_t pa;                 // PA page
        mem_attr attr;               // final attributes
        uint16_t mar;                // PMBMAR_EL1 / TRBMAR_EL1 the entry was made with (nVM)
    };
    std::unordered_map<TlbKey, TlbEnt, TlbHash> tlb_; // page -> PA page and attributes
    size_t tlb_capacity_ = 1u << 16;

    std::vector<Ctx> ctx_;
    std::vector<Rule> rules_;
    Stats st_;
};

} // namespace armprof

#endif
