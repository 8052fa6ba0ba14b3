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

} // namespace armprof

#endif
