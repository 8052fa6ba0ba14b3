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
