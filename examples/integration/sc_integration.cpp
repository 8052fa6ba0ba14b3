// SPDX-License-Identifier: Apache-2.0
// sc_integration.cpp: the SPU module in someone else's SystemC platform (docs/integration.md, section 1); built and run as a test.
#include <cstdio>
#include <cstring>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <armprof/systemc/spu_module.h>
#include <armprof/sysreg.h>

using namespace sc_core;

// "Their" memory: any TLM-2.0 target. No SMMU here, so the buffer pointers are physical.
struct TheirMemory : sc_module {
    tlm_utils::simple_target_socket<TheirMemory> sock{"sock"};
    uint8_t mem[0x10000] = {0};
    uint64_t base = 0x10000000;
    explicit TheirMemory(sc_module_name n) : sc_module(n) { sock.register_b_transport(this, &TheirMemory::bt); }
    void bt(tlm::tlm_generic_payload &t, sc_time &d)
    {
        std::memcpy(mem + (t.get_address() - base), t.get_data_ptr(), t.get_data_length());
        d += sc_time(10, SC_NS);
        t.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

// "Their" CPU: programs the unit through the register socket (offset = encoding * 8) and
// retires operations through the C++ interface; PMBIRQ arrives as a signal.
struct TheirCpu : sc_module {
    tlm_utils::simple_initiator_socket<TheirCpu> regs{"regs"};
    sc_in<bool> pmbirq{"pmbirq"};
    armprof::SpuModule *spu = nullptr;
    bool saw_irq = false;
    SC_HAS_PROCESS(TheirCpu);
    explicit TheirCpu(sc_module_name n) : sc_module(n) { SC_THREAD(run); }
    void msr(uint32_t enc, uint64_t v)
    {
        tlm::tlm_generic_payload gp;
        sc_time d = SC_ZERO_TIME;
        gp.set_command(tlm::TLM_WRITE_COMMAND);
        gp.set_address((uint64_t)enc * 8);
        gp.set_data_ptr(reinterpret_cast<unsigned char *>(&v));
        gp.set_data_length(8);
        gp.set_streaming_width(8);
        regs->b_transport(gp, d);
        sc_assert(gp.is_response_ok());
    }
    void run()
    {
        msr(SPU_PMSIRR_EL1, 256);
        msr(SPU_PMSICR_EL1, 256);
        msr(SPU_PMBPTR_EL1, 0x10000000);
        msr(SPU_PMBLIMITR_EL1, 0x10001000 | PMBLIMITR_EL1_E); // a 4 KiB buffer: it fills
        msr(SPU_PMSCR_EL1, PMSCR_EL1_E1SPE | PMSCR_EL1_E0SPE);
        spu_op op{};
        op.op_class = SPE_CLASS_BRANCH;
        op.total_lat = 5;
        op.pc = 0x400000;
        for (int i = 0; i < 200000 && !pmbirq.read(); i++) {
            op.pc += 4;
            spu_retire(spu->unit(), &op);         // one op per 1 ns cycle
            wait(spu->period());
            spu->advance_to(sc_time_stamp());
            spu->flush_irq();
        }
        saw_irq = pmbirq.read() || spu->irq_level();
        sc_stop();
    }
};

int sc_main(int, char **)
{
    spu_config cfg;
    spu_config_default(&cfg);
    armprof::SpuModule spu("spu", cfg, sc_time(1, SC_NS));
    TheirMemory mem("mem");
    TheirCpu cpu("cpu");
    sc_signal<bool, SC_MANY_WRITERS> pmbirq("pmbirq");
    spu.mem.bind(mem.sock);
    cpu.regs.bind(spu.regs);
    spu.irq.bind(pmbirq);
    cpu.pmbirq.bind(pmbirq);
    cpu.spu = &spu;
    armprof_pe_ctx ctx;
    armprof_pe_ctx_default(&ctx);
    spu.set_pe_context(ctx);
    sc_start();
    uint64_t sr = 0;
    spu_reg_peek(spu.unit(), SPU_PMBSR_EL1, &sr);
    std::printf("PMBIRQ %d at %s, PMBSR_EL1 0x%llx, %llu writes\n", cpu.saw_irq, sc_time_stamp().to_string().c_str(),
                (unsigned long long)sr, (unsigned long long)spu.stats().writes);
    // Buffer full: S = 1, EC = 0, BSC = 1, and the first record is in their memory.
    return (cpu.saw_irq && sr == (PMBSR_EL1_S | ap_field_prep(PMBSR_EL1_BSC, PMBSR_EL1_BSC_FULL)) && mem.mem[0] != 0) ? 0 : 1;
}
