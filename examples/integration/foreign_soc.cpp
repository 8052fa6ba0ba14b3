// SPDX-License-Identifier: Apache-2.0
// foreign_soc.cpp: a minimal foreign SoC around armprof's SPU: its own CPU model retiring a program as spu_op, its own memory, and a driver servicing PMBIRQ (docs/integration.md, "A minimal foreign SoC"); it checks itself.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include <armprof/spe.h>                 // SPE_CLASS_*, SPE_EV_*, the record decoder
#include <armprof/sysreg.h>              // SYS_PMBSR_EL1, PMBSR_EL1_S, ap_field_get, ...
#include <armprof/systemc/spu_module.h>  // armprof::SpuModule

using namespace sc_core;

constexpr uint64_t DRAM_BASE = 0x80000000, DRAM_SIZE = 0x100000;
constexpr uint64_t BUF = DRAM_BASE + 0x10000, BUF_SIZE = 0x4000; // a 16 KiB Profiling Buffer
constexpr uint64_t PROGRAM = 0x400000;                             // the program's 8 instructions
constexpr uint64_t INSTRUCTIONS = 2000000, INTERVAL = 1024;

// Their memory: any TLM-2.0 target. Two ports: the SPU's buffer writes and the CPU's reads.
// No MMU on the path, so the buffer pointers the driver programs are physical addresses.
struct Dram : sc_module {
    tlm_utils::simple_target_socket<Dram> from_spu{"from_spu"}, from_cpu{"from_cpu"};
    std::vector<uint8_t> mem = std::vector<uint8_t>(DRAM_SIZE);
    explicit Dram(sc_module_name n) : sc_module(n)
    {
        from_spu.register_b_transport(this, &Dram::access);
        from_cpu.register_b_transport(this, &Dram::access);
    }
    void access(tlm::tlm_generic_payload &t, sc_time &delay)
    {
        uint64_t a = t.get_address(), n = t.get_data_length();
        if (a < DRAM_BASE || a + n > DRAM_BASE + DRAM_SIZE) {
            t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE); // the SPU reports an External abort
            return;
        }
        uint8_t *p = mem.data() + (a - DRAM_BASE);
        if (t.is_write())
            std::memcpy(p, t.get_data_ptr(), n);
        else
            std::memcpy(t.get_data_ptr(), p, n);
        delay += sc_time(20, SC_NS); // with the SPU's default timing (lt) this becomes write latency
        t.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

// Their CPU: temporally decoupled (a quantum keeper), it retires one instruction a cycle and
// tells the SPU about each one. It programs the unit through `sysregs` as the Linux driver
// arm_spe_pmu does, and services PMBIRQ.
struct Cpu : sc_module {
    tlm_utils::simple_initiator_socket<Cpu> sysregs{"sysregs"}; // MSR / MRS: offset = encoding * 8
    tlm_utils::simple_initiator_socket<Cpu> data{"data"};       // the driver's reads of the buffer
    sc_in<bool> pmbirq{"pmbirq"};                                // from their interrupt controller
    armprof::SpuModule &spu;
    tlm_utils::tlm_quantumkeeper qk;
    std::vector<uint8_t> profile; // what the driver copied out, as perf would get it
    unsigned irqs = 0, faults = 0;

    SC_HAS_PROCESS(Cpu);
    Cpu(sc_module_name n, armprof::SpuModule &s) : sc_module(n), spu(s) { SC_THREAD(run); }

    void reg_access(uint32_t enc, uint64_t &v, bool write)
    {
        tlm::tlm_generic_payload gp;
        sc_time delay = qk.get_local_time(); // the access happens at the CPU's time
        gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
        gp.set_address((uint64_t)enc * 8);
        gp.set_data_ptr(reinterpret_cast<unsigned char *>(&v));
        gp.set_data_length(8);
        gp.set_streaming_width(8);
        sysregs->b_transport(gp, delay);
        // A refused access (UNDEFINED, a trap) is a command error; SpuModule also reports it
        // (SC_INFO of armprof/spu naming the register, the EL and the rule).
        sc_assert(gp.is_response_ok());
    }
    uint64_t mrs(uint32_t enc)
    {
        uint64_t v = 0;
        reg_access(enc, v, false);
        return v;
    }
    void msr(uint32_t enc, uint64_t v) { reg_access(enc, v, true); }

    // What the CPU model knows about instruction i, in the form the SPU records it. The program
    // is a loop: LDR, ADD, STR, ADD, ADD, ADD, CMP, B.NE back to the LDR.
    static spu_op describe(uint64_t i)
    {
        spu_op op{};
        unsigned slot = i % 8;
        op.pc = PROGRAM + 4 * slot;
        op.total_lat = 1; // cycles from issue to completion; the record is made when it completes
        op.issue_lat = 1;
        switch (slot) {
        case 0: // LDR x1, [x0], #64: a load walking a 1 MiB array; every 64th line misses the L1
        case 2: // STR x1, [x2], #8
            op.op_class = SPE_CLASS_LDST;
            op.op_subclass = SPE_LDST_GP | (slot == 2 ? SPE_LDST_ST : 0);
            op.flags = SPU_OP_HAS_VA;
            op.data_va = 0x10000000 + ((i / 8) * 64) % 0x100000;
            op.events = (1u << SPE_EV_L1D_ACCESS) | (1u << SPE_EV_TLB_ACCESS);
            if ((i / 8) % 64 == 0) {
                op.events |= 1u << SPE_EV_L1D_REFILL;
                op.total_lat = 40;
            } else {
                op.total_lat = 4;
            }
            break;
        case 7: // B.NE loop: taken
            op.op_class = SPE_CLASS_BRANCH;
            op.op_subclass = SPE_BR_COND;
            op.flags = SPU_OP_HAS_TARGET;
            op.target = PROGRAM;
            break;
        default: // ADD, CMP
            op.op_class = SPE_CLASS_OTHER;
            op.op_subclass = SPE_OTHER_UNCOND;
            break;
        }
        return op; // E[0] (exception) and E[1] (retired) come from op.flags
    }

    void run()
    {
        // arm_spe_pmu_start(): the interval, the buffer, then sampling on at EL1 and EL0.
        msr(SYS_PMSIRR_EL1, ap_field_prep(PMSIRR_EL1_INTERVAL, INTERVAL >> PMSIRR_EL1_INTERVAL_SHIFT));
        msr(SYS_PMSICR_EL1, mrs(SYS_PMSIRR_EL1));
        msr(SYS_PMBPTR_EL1, BUF);
        msr(SYS_PMBLIMITR_EL1, (BUF + BUF_SIZE) | PMBLIMITR_EL1_E); // LIMIT, fill mode, enabled
        msr(SYS_PMSCR_EL1, PMSCR_EL1_E1SPE | PMSCR_EL1_E0SPE);

        spu_t *u = spu.unit();
        const sc_time cycle = spu.period();
        qk.reset();
        for (uint64_t i = 0; i < INSTRUCTIONS;) {
            // 1. Retire at the unit's time, which is the CPU's (step 2 keeps them together):
            //    the instruction the unit will sample is described in full; the others before it
            //    are only counted, a whole run in one call, and never up to the unit's next
            //    event (a record completing, the FIFO draining), so that it happens in step 2.
            uint64_t n, k = spu_ops_until_sample(u);
            if (k == 0) {
                spu_op op = describe(i);
                spu_retire(u, &op);
                n = 1;
            } else {
                uint64_t ev = spu_cycles_to_next_event(u);
                n = std::min({k, INSTRUCTIONS - i, std::max<uint64_t>(ev, 1)});
                if (k != UINT64_MAX) // UINT64_MAX: sampling is off, nothing is counted
                    n = spu_skip(u, n);
            }
            i += n;
            qk.inc(cycle * (double)n);
            // 2. Advance the unit to the CPU's time: records complete and are written to memory
            //    (each write taking the time Dram annotates).
            spu.advance_to(sc_time_stamp() + qk.get_local_time());
            // 3. PMBIRQ changed on the way: let SystemC reach that time, then drive the line,
            //    so the edge is at its true time; service it when the line is high.
            if (spu.irq_changed()) {
                qk.sync();
                spu.flush_irq();
                wait(SC_ZERO_TIME); // the signal's new value
            }
            if (pmbirq.read())
                service();
            // 4. End of the quantum: schedule the unit's own wake-up for its next event (it runs
            //    by itself while nobody drives it), then give SystemC its turn.
            if (qk.need_sync()) {
                spu.reschedule();
                qk.sync();
            }
        }
        stop();
    }

    // The driver's interrupt handler (arm_spe_pmu_irq_handler): PSB CSYNC and DSB so every
    // record is in memory, read the syndrome, hand the data over, restart.
    void service()
    {
        qk.sync();
        spu.psb_csync();
        uint64_t sr = mrs(SYS_PMBSR_EL1);
        if (!(sr & PMBSR_EL1_S))
            return;
        irqs++;
        uint64_t ptr = mrs(SYS_PMBPTR_EL1);
        if (ap_field_get(PMBSR_EL1_EC, sr) == PMBSR_EL1_EC_BUF &&
            ap_field_get(PMBSR_EL1_BSC, sr) == PMBSR_EL1_BSC_FULL) {
            copy_out(ptr);                    // [BUF, PMBPTR_EL1): whole records
            msr(SYS_PMBPTR_EL1, BUF);         // start again at the base
        } else {
            std::printf("profiling buffer fault: EC 0x%02" PRIx64 ", FSC 0x%02" PRIx64 " at 0x%" PRIx64 "\n",
                        ap_field_get(PMBSR_EL1_EC, sr), ap_field_get(PMBSR_EL1_FSC, sr), ptr);
            faults++;
            msr(SYS_PMBLIMITR_EL1, 0);        // fatal for this session: the buffer off
        }
        msr(SYS_PMBSR_EL1, 0);                // S = 0: PMBIRQ falls, collection resumes
    }

    void copy_out(uint64_t upto)
    {
        size_t n = upto - BUF, at = profile.size();
        profile.resize(at + n);
        tlm::tlm_generic_payload gp;
        sc_time delay = SC_ZERO_TIME;
        gp.set_command(tlm::TLM_READ_COMMAND);
        gp.set_address(BUF);
        gp.set_data_ptr(profile.data() + at);
        gp.set_data_length((unsigned)n);
        gp.set_streaming_width((unsigned)n);
        data->b_transport(gp, delay);
        sc_assert(gp.is_response_ok());
    }

    // arm_spe_pmu_stop(): sampling off, the sampled instructions still in flight complete, PSB
    // CSYNC, the last data out, the buffer off.
    void stop()
    {
        qk.sync();
        msr(SYS_PMSCR_EL1, 0);
        qk.inc(cycle_time() * 1000.0);
        spu.advance_to(sc_time_stamp() + qk.get_local_time());
        qk.sync();
        spu.flush_irq();
        wait(SC_ZERO_TIME);
        if (pmbirq.read())
            service();
        spu.psb_csync();
        if (!(mrs(SYS_PMBSR_EL1) & PMBSR_EL1_S))
            copy_out(mrs(SYS_PMBPTR_EL1));
        msr(SYS_PMBLIMITR_EL1, 0); // nothing is left to happen: sc_start() returns
    }
    sc_time cycle_time() const { return spu.period(); }
};

int sc_main(int, char **)
{
    tlm::tlm_global_quantum::instance().set(sc_time(1, SC_US));
    spu_config cfg;
    spu_config_default(&cfg); // PMSIDR_EL1 / PMBIDR_EL1 of a Neoverse-like unit
    armprof::SpuModule spu("spu", cfg, sc_time(1, SC_NS)); // 1 GHz; memory timing lt (default)
    Dram dram("dram");
    Cpu cpu("cpu", spu);
    sc_signal<bool, SC_MANY_WRITERS> pmbirq("pmbirq");
    spu.mem.bind(dram.from_spu);
    cpu.data.bind(dram.from_cpu);
    cpu.sysregs.bind(spu.regs);
    spu.irq.bind(pmbirq); // and to their interrupt controller's PPI, in a larger SoC
    cpu.pmbirq.bind(pmbirq);
    armprof_pe_ctx ctx;
    armprof_pe_ctx_default(&ctx); // the CPU's EL (1), Security state and controls; set again on a change
    spu.set_pe_context(ctx);
    sc_start();

    // The check: every record the unit wrote reached the driver, whole and well formed, and
    // says what the CPU described.
    spu_stats st;
    spu_get_stats(spu.unit(), &st);
    spe_decoder d;
    spe_decode_opts o{};
    o.max_size = cfg.max_size;
    spe_decoder_init(&d, cpu.profile.data(), cpu.profile.size(), &o);
    spe_decoded r;
    uint64_t records = 0, loads = 0, stores = 0, branches = 0, wrong = 0;
    while (spe_decoder_next(&d, &r) == SPE_DEC_RECORD) {
        records++;
        unsigned slot = (unsigned)((r.rec.pc - PROGRAM) / 4);
        bool ldst = r.rec.op_class == SPE_CLASS_LDST;
        loads += ldst && slot == 0;
        stores += ldst && slot == 2;
        branches += r.rec.op_class == SPE_CLASS_BRANCH && slot == 7 && r.rec.target == PROGRAM;
        wrong += r.rec.pc < PROGRAM || slot > 7 || (ldst != (slot == 0 || slot == 2)) ||
                 (ldst && !(r.have & SPE_R_DATA_VA));
    }
    std::printf("%" PRIu64 " instructions, %" PRIu64 " sampled, %" PRIu64 " records written (%" PRIu64
                " B, write latency %" PRIu64 "..%" PRIu64 " cycles), %" PRIu64 " discarded while PMBIRQ was pending\n",
                INSTRUCTIONS, st.feed, st.records_written, st.bytes_written, st.write_latency_min,
                st.write_latency_max, st.discarded[SPU_DISCARD_SERVICE]);
    std::printf("PMBIRQ serviced %u times; the driver decoded %" PRIu64 " records: %" PRIu64 " loads, %" PRIu64
                " stores, %" PRIu64 " branches, %" PRIu64 " wrong, %" PRIu64 " decode errors\n",
                cpu.irqs, records, loads, stores, branches, wrong, d.n_errors);
    bool ok = cpu.faults == 0 && cpu.irqs == st.buffer_full_events && cpu.irqs >= 2 &&
              records == st.records_written && cpu.profile.size() == st.bytes_written && d.n_errors == 0 &&
              wrong == 0 && loads && stores && branches &&
              st.records_discarded == st.discarded[SPU_DISCARD_SERVICE] && st.write_latency_min >= 20;
    return ok ? 0 : 1;
}
