// SPDX-License-Identifier: Apache-2.0
// ap_tlm.h: the TLM extension that carries a buffer write's owning translation regime and its outcome.
#ifndef ARMPROF_PLATFORM_AP_TLM_H
#define ARMPROF_PLATFORM_AP_TLM_H

#include <cstdint>
#include <cstring>
#include <tlm>

#include "armprof/armprof.h"

namespace armprof {

/*
 * Attached by a unit wrapper to every buffer write (and by the software agent to reads of the
 * buffer). Upstream to downstream it carries the owning translation regime (RHXSYK-style
 * pointers are VAs, IPAs or PAs per `regime`); downstream to upstream the SMMU / memory fill
 * `result` so the unit gets stage, fault status code and level for PMBSR_EL1 / TRBSR_ELx.
 * A transaction without this extension is a physical access (table walks, test benches).
 */
struct regime_ext : tlm::tlm_extension<regime_ext> {
    armprof_regime regime{};
    armprof_mem_result result{};   // status, ec, fsc (level in [1:0]), async, written
    bool translated = false;       // set by the SMMU: the address was translated

    tlm::tlm_extension_base *clone() const override { return new regime_ext(*this); }
    void copy_from(const tlm::tlm_extension_base &other) override
    {
        *this = static_cast<const regime_ext &>(other);
    }
};

/*
 * VMSAv8-64 memory attributes of one access: memory type, Device type or Inner / Outer
 * Cacheability with allocation and transient hints, Shareability. The SMMU computes them for
 * every translated buffer write (stage 1 from MAIR[AttrIndx] and SH, PMBMAR_EL1 / TRBMAR_EL1
 * {Attr, SH} when nVM, HCR_EL2.DC, combined with stage 2 MemAttr / SH; seed 000 D17.7.2,
 * D17.7.3, D17.7.6) and carries them downstream in a mem_attr_ext.
 */
struct mem_attr {
    enum Type : uint8_t { NORMAL = 0, DEVICE = 1 };
    enum Cache : uint8_t { NC = 0, WT = 1, WB = 2 };                  // Normal Cacheability
    enum Dev : uint8_t { nGnRnE = 0, nGnRE = 1, nGRE = 2, GRE = 3 };  // Device type, MAIR dd
    enum Sh : uint8_t { NSH = 0, OSH = 2, ISH = 3 };                  // the SH field encoding
    uint8_t type = DEVICE;
    uint8_t device = nGnRnE;         // Device only
    uint8_t inner = NC, outer = NC;  // Normal only
    uint8_t inner_alloc = 0, outer_alloc = 0; // Normal WT / WB: bit 1 read-, bit 0 write-allocate
    bool inner_transient = false, outer_transient = false;
    uint8_t sh = OSH;                // effective Shareability (Device and Normal NC/NC: OSH)

    bool operator==(const mem_attr &o) const
    {
        return type == o.type && device == o.device && inner == o.inner && outer == o.outer &&
               inner_alloc == o.inner_alloc && outer_alloc == o.outer_alloc &&
               inner_transient == o.inner_transient && outer_transient == o.outer_transient && sh == o.sh;
    }
    bool operator!=(const mem_attr &o) const { return !(*this == o); }

    // Convenience constructors.
    static mem_attr device_type(uint8_t dev)
    {
        mem_attr a;
        a.type = DEVICE;
        a.device = dev;
        a.sh = OSH;
        return a;
    }
    static mem_attr normal(uint8_t inner, uint8_t outer, uint8_t sh, uint8_t alloc = 3)
    {
        mem_attr a;
        a.type = NORMAL;
        a.inner = inner;
        a.outer = outer;
        a.inner_alloc = inner == NC ? 0 : alloc;
        a.outer_alloc = outer == NC ? 0 : alloc;
        a.sh = (inner == NC && outer == NC) ? (uint8_t)OSH : sh;
        return a;
    }
};

// Short text, e.g. "Normal iWB-RWA oWB-RWA ISH", "Device-nGnRE OSH" (logs, test messages).
const char *mem_attr_str(const mem_attr &a, char *buf, size_t size);

// Carried by the SMMU on the payloads it forwards for a translated access (writes, and the DMI
// request of a page); a target reads it (Memory records it). Absent: a physical access.
struct mem_attr_ext : tlm::tlm_extension<mem_attr_ext> {
    mem_attr attr;
    uint64_t dmi_bytes = 0;          // DMI request: bytes from the address the grant will cover

    tlm::tlm_extension_base *clone() const override { return new mem_attr_ext(*this); }
    void copy_from(const tlm::tlm_extension_base &other) override
    {
        *this = static_cast<const mem_attr_ext &>(other);
    }
};

// FSC helpers: the level-carrying codes take the level in bits [1:0] (seed 002, FSC table).
inline uint8_t fsc_with_level(uint8_t base, unsigned level) { return (uint8_t)(base | (level & 3u)); }
inline unsigned fsc_level(uint8_t fsc) { return fsc & 3u; }
inline uint8_t fsc_kind(uint8_t fsc) { return (fsc < 0x10 || (fsc & 0x3C) == 0x14) ? (uint8_t)(fsc & 0x3C) : fsc; }

/*
 * The register target socket of every unit wrapper: offset = encoding * 8, 8-byte accesses.
 * Maps one transaction onto the module's reg_read / reg_write. UNDEFINED and trap outcomes are
 * the CPU model's business: a command error with no effect; an unknown encoding an address
 * error; any other size or alignment a burst error.
 */
template <class Module>
inline void reg_socket_access(Module &m, tlm::tlm_generic_payload &trans)
{
    if (trans.get_data_length() != 8 || (trans.get_address() & 7)) {
        trans.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
        return;
    }
    uint32_t enc = (uint32_t)(trans.get_address() / 8);
    uint64_t v = 0;
    armprof_err e;
    if (trans.is_write()) {
        std::memcpy(&v, trans.get_data_ptr(), 8);
        e = m.reg_write(enc, v);
    } else {
        e = m.reg_read(enc, &v);
        std::memcpy(trans.get_data_ptr(), &v, 8);
    }
    trans.set_response_status(e == ARMPROF_OK ? tlm::TLM_OK_RESPONSE
                              : e == ARMPROF_ERR_NOREG ? tlm::TLM_ADDRESS_ERROR_RESPONSE
                                                        : tlm::TLM_COMMAND_ERROR_RESPONSE);
}

/*
 * The PMU outputs of a unit wrapper: the unit's armprof_host_ops.event / .pmu_freeze (whose
 * user is the wrapper) forwarded to what connect_pmu() names, e.g. a PmuModule's event_sink /
 * freeze_sink with user = pmu.unit(). Unconnected, they are dropped.
 */
class PmuOutputs {
public:
    void connect_pmu(armprof_event_fn event, armprof_pmu_freeze_fn freeze, void *user)
    {
        ev_fn_ = event;
        fz_fn_ = freeze;
        ev_user_ = user;
    }

protected:
    // For armprof_host_ops with user = the Module (which derives from PmuOutputs).
    template <class Module> static void cb_event(void *user, uint16_t event, uint64_t count)
    {
        PmuOutputs *o = static_cast<Module *>(user);
        if (o->ev_fn_)
            o->ev_fn_(o->ev_user_, event, count);
    }
    template <class Module> static void cb_freeze(void *user)
    {
        PmuOutputs *o = static_cast<Module *>(user);
        if (o->fz_fn_)
            o->fz_fn_(o->ev_user_);
    }

private:
    armprof_event_fn ev_fn_ = nullptr;
    armprof_pmu_freeze_fn fz_fn_ = nullptr;
    void *ev_user_ = nullptr;
};

} // namespace armprof

#endif
