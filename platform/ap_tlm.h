// SPDX-License-Identifier: Apache-2.0
// ap_tlm.h: the TLM extension that carries a buffer write's owning translation regime and its outcome.
#ifndef ARMPROF_PLATFORM_AP_TLM_H
#define ARMPROF_PLATFORM_AP_TLM_H

#include <cstdint>
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

} // namespace armprof

#endif
