// SPDX-License-Identifier: Apache-2.0
// fixture.h: a small SoC (memory, bus, SMMU, a test initiator) and helpers shared by the platform benches.
#ifndef ARMPROF_TESTS_PLATFORM_FIXTURE_H
#define ARMPROF_TESTS_PLATFORM_FIXTURE_H

#include <cstdint>
#include <cstring>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "ap_tlm.h"
#include "bus.h"
#include "memory.h"
#include "pagetable.h"
#include "smmu.h"

namespace armprof_test {

using namespace armprof;
using sc_core::sc_time;
using sc_core::SC_NS;
using sc_core::SC_ZERO_TIME;

constexpr uint64_t DRAM_BASE = 0x80000000ull;
constexpr uint64_t DRAM_SIZE = 64ull << 20;

// An initiator that issues writes with a regime_ext and counts DMI invalidations.
struct Initiator : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<Initiator> sock;
    unsigned invalidations = 0;
    explicit Initiator(sc_core::sc_module_name n) : sc_module(n), sock("sock")
    {
        sock.register_invalidate_direct_mem_ptr(this, &Initiator::inval);
    }
    void inval(sc_dt::uint64, sc_dt::uint64) { invalidations++; }

    armprof_mem_result access(const armprof_regime *rg, uint64_t addr, uint8_t *data, unsigned len,
                              bool write, sc_time &delay)
    {
        tlm::tlm_generic_payload gp;
        regime_ext ext;
        gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
        gp.set_address(addr);
        gp.set_data_ptr(data);
        gp.set_data_length(len);
        gp.set_streaming_width(len);
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        if (rg) {
            ext.regime = *rg;
            gp.set_extension(&ext);
        }
        sock->b_transport(gp, delay);
        if (rg)
            gp.clear_extension(&ext);
        armprof_mem_result r = ext.result;
        if (!rg) {
            r.status = gp.is_response_ok() ? ARMPROF_MEM_OK : ARMPROF_MEM_EXT_ABORT;
            r.written = gp.is_response_ok() ? len : 0;
        }
        return r;
    }
    armprof_mem_result write(const armprof_regime &rg, uint64_t addr, const std::vector<uint8_t> &bytes)
    {
        sc_time d = SC_ZERO_TIME;
        std::vector<uint8_t> b = bytes;
        return access(&rg, addr, b.data(), (unsigned)b.size(), true, d);
    }
};

// memory <- bus <- smmu <- initiator
struct Soc {
    Memory mem{"mem", DRAM_SIZE, sc_time(20, SC_NS)};
    Bus bus{"bus"};
    Smmu smmu{"smmu", 2};
    Initiator ini{"ini"};
    Soc()
    {
        ini.sock.bind(smmu.tsock);
        smmu.isock.bind(bus.tsock);
        bus.isock.bind(mem.socket);
        bus.map(0, DRAM_BASE, DRAM_SIZE, sc_time(10, SC_NS), 16.0, "dram");
    }
    uint8_t *host(uint64_t pa) { return mem.host_ptr(pa - DRAM_BASE); }
    uint64_t rd64(uint64_t pa) { uint64_t v; std::memcpy(&v, host(pa), 8); return v; }
};

inline armprof_regime regime_el1(unsigned pe = 0, bool stage2 = false, bool hw = false, bool nvm = false)
{
    armprof_regime rg{};
    rg.kind = ARMPROF_REGIME_EL10;
    rg.ss = ARMPROF_NONSECURE;
    rg.el = 1;
    rg.stage2 = stage2;
    rg.hw_flag_update = hw;
    rg.nvm = nvm;
    rg.unit = ARMPROF_UNIT_SPU;
    rg.pe = (uint8_t)pe;
    return rg;
}

} // namespace armprof_test

#endif
