// SPDX-License-Identifier: Apache-2.0
// memory.h: a TLM-2.0 memory with DMI, a fixed access latency and regions that answer with errors.
#ifndef ARMPROF_PLATFORM_MEMORY_H
#define ARMPROF_PLATFORM_MEMORY_H

#include <cstdint>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

namespace armprof {

/*
 * Byte-addressed storage of `size` bytes, addresses relative to the bus mapping (0-based).
 * The host memory is calloc'd, so untouched pages cost nothing. DMI is granted for read and
 * write over the largest range around the address that overlaps no error region.
 * An error region answers TLM_GENERIC_ERROR_RESPONSE (an External abort for the initiator);
 * `async` is passed upstream in regime_ext::result.async when the payload carries one.
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

    struct Stats { uint64_t reads, writes, read_bytes, write_bytes, errors, dmi_grants; };
    const Stats &stats() const { return st_; }

private:
    void b_transport(tlm::tlm_generic_payload &trans, sc_core::sc_time &delay);
    unsigned transport_dbg(tlm::tlm_generic_payload &trans);
    bool get_direct_mem_ptr(tlm::tlm_generic_payload &trans, tlm::tlm_dmi &dmi);
    const ErrorRegion *find_error(uint64_t lo, uint64_t len, bool write) const;
    void invalidate_all();
    void end_of_elaboration() override { elaborated_ = true; }
    bool elaborated_ = false;

    uint8_t *mem_;
    uint64_t size_;
    sc_core::sc_time latency_;
    bool dmi_enabled_ = true;
    std::vector<ErrorRegion> errors_;
    Stats st_{};
};

} // namespace armprof

#endif
