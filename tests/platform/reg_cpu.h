// SPDX-License-Identifier: Apache-2.0
// reg_cpu.h: a test CPU that reaches a unit's registers only through its TLM register socket (offset = encoding * 8, 8-byte accesses); include after <cmocka.h>.
#ifndef ARMPROF_TESTS_PLATFORM_REG_CPU_H
#define ARMPROF_TESTS_PLATFORM_REG_CPU_H

#include <cstdint>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

namespace armprof_test {

struct RegCpu : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<RegCpu> regs;
    bool strict; // a refused access fails the test at once; otherwise it sets `bad`
    bool bad = false;
    explicit RegCpu(sc_core::sc_module_name n, bool strict_ = true) : sc_module(n), regs("regs"), strict(strict_) {}
    // One access; the response status as the unit gave it.
    tlm::tlm_response_status transport(uint32_t enc, uint64_t &v, bool write)
    {
        tlm::tlm_generic_payload gp;
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
        gp.set_address((uint64_t)enc * 8);
        gp.set_data_ptr(reinterpret_cast<unsigned char *>(&v));
        gp.set_data_length(8);
        gp.set_streaming_width(8);
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        regs->b_transport(gp, d);
        return gp.get_response_status();
    }
    // An access expected to succeed.
    uint64_t access(uint32_t enc, uint64_t v, bool write)
    {
        tlm::tlm_response_status st = transport(enc, v, write);
        if (st != tlm::TLM_OK_RESPONSE) {
            bad = true;
            if (strict)
                fail_msg("register 0x%x %s refused (TLM response %d)", enc, write ? "write" : "read", (int)st);
        }
        return v;
    }
    uint64_t rd(uint32_t enc) { return access(enc, 0, false); }
    void wr(uint32_t enc, uint64_t v) { access(enc, v, true); }
};

} // namespace armprof_test

#endif
