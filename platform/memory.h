// SPDX-License-Identifier: Apache-2.0
// memory.h: a TLM-2.0 memory with DMI, a fixed access latency and regions that answer with errors.
#ifndef ARMPROF_PLATFORM_MEMORY_H
#define ARMPROF_PLATFORM_MEMORY_H

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "ap_tlm.h"

namespace armprof {

/*
 * Byte-addressed storage of `size` bytes, addresses relative to the bus mapping (0-based).
 * Timing: a read adds `latency` to the annotated delay, a write `write_latency` (the time until
 * the memory accepts the write; set_write_latency(), by default the same as `latency`); DMI
 * grants carry the same read and write latencies.
 * The host memory is calloc'd, so untouched pages cost nothing. DMI is granted for read and
 * write over the largest range around the address that overlaps no error region.
 * An error region answers TLM_GENERIC_ERROR_RESPONSE (an External abort for the initiator);
 * `async` is passed upstream in regime_ext::result.async when the payload carries one.
 *
 * Memory attributes: a write that carries a mem_attr_ext (the SMMU attaches the final stage 1 +
 * stage 2 attributes) is counted per memory type and its attributes are kept as the last ones
 * of each 4 KB page it touches. A DMI request carrying a mem_attr_ext records its attributes for
 * the span it is for (mem_attr_ext::dmi_bytes, clipped to the grant) at grant time, since the
 * writes through the pointer never reach this module. A page that gets attributes different
 * from its last ones counts as an attribute change (mismatched attributes, seed 000 D17.7.2).
 */
class Memory : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<Memory> socket;

    Memory(sc_core::sc_module_name name, uint64_t size,
           sc_core::sc_time latency = sc_core::sc_time(20, sc_core::SC_NS));
    ~Memory() override;

    struct ErrorRegion {
        uint64_t lo, hi;   // [lo, hi) relative to the memory's base
        bool on_read, on_write;
        bool async;
    };
    // Adds a region that answers errors; DMI pointers granted before are invalidated.
    void add_error_region(uint64_t lo, uint64_t hi, bool on_read, bool on_write, bool async);
    void clear_error_regions();

    uint64_t size() const { return size_; }
    uint8_t *host_ptr(uint64_t off) { return mem_ + off; }
    void set_dmi_enabled(bool on);
    // Write acceptance latency (TLM and DMI); DMI pointers granted before are invalidated.
    void set_write_latency(sc_core::sc_time t);
    sc_core::sc_time write_latency() const { return write_latency_; }

    struct Stats {
        uint64_t reads, writes, read_bytes, write_bytes, errors, dmi_grants;
        // Writes by the attributes they carried (no mem_attr_ext: unattributed).
        uint64_t unattributed_writes, device_writes, normal_nc_writes, normal_cacheable_writes;
        uint64_t dmi_attr_grants;    // DMI grants that recorded attributes
        uint64_t attr_changes;       // a page recorded with attributes other than its last ones
    };
    const Stats &stats() const { return st_; }

    // Last attributes recorded for the 4 KB page holding `off` (relative to the base), or null.
    const mem_attr *page_attr(uint64_t off) const;
    // Writes per Device type (index mem_attr::Dev).
    uint64_t device_writes(unsigned dev) const { return dev < 4 ? dev_writes_[dev] : 0; }
    void clear_attrs();

private:
    void b_transport(tlm::tlm_generic_payload &trans, sc_core::sc_time &delay);
    unsigned transport_dbg(tlm::tlm_generic_payload &trans);
    bool get_direct_mem_ptr(tlm::tlm_generic_payload &trans, tlm::tlm_dmi &dmi);
    const ErrorRegion *find_error(uint64_t lo, uint64_t len, bool write) const;
    void invalidate_all();
    void record_attr(uint64_t lo, uint64_t len, const mem_attr &a);
    void end_of_elaboration() override { elaborated_ = true; }
    bool elaborated_ = false;

    uint8_t *mem_;
    uint64_t size_;
    sc_core::sc_time latency_, write_latency_;
    bool dmi_enabled_ = true;
    std::vector<ErrorRegion> errors_;
    Stats st_{};
    std::unordered_map<uint64_t, mem_attr> page_attr_; // page number -> last attributes
    uint64_t dev_writes_[4] = {0, 0, 0, 0};
};

} // namespace armprof

#endif
