// SPDX-License-Identifier: Apache-2.0
// test_platform_spe_e2e.cpp: 2 PEs through SMMU (stage 1 + 2, hw flag updates), bus and memory; the driver services buffer-full interrupts and the dumps decode to the records the model produced.
#include <vector>

#include "soc.h"

extern "C" {
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h> // last: its fail() macro would clash with the C++ library
}

using namespace armprof;

namespace {

Platform *plat;
std::vector<std::vector<uint8_t>> produced[2]; // every record the encoder produced, per PE

void on_record(void *user, const spe_record *, const uint8_t *bytes, size_t len)
{
    auto *v = static_cast<std::vector<std::vector<uint8_t>> *>(user);
    v->emplace_back(bytes, bytes + len);
}

void test_dumps_are_the_written_records(void **)
{
    for (unsigned p = 0; p < 2; p++) {
        spu_stats st;
        spu_get_stats(plat->spu(p).unit(), &st);
        const std::vector<uint8_t> &dump = plat->spe_dump(p);
        assert_true(st.records_written > 100);
        assert_int_equal(st.records_discarded, 0);
        assert_int_equal(dump.size(), st.bytes_written);
        // Nothing was discarded: the dump is every produced record, in order, byte for byte.
        std::vector<uint8_t> all;
        for (const auto &r : produced[p])
            all.insert(all.end(), r.begin(), r.end());
        assert_int_equal(all.size(), dump.size());
        assert_memory_equal(all.data(), dump.data(), dump.size());
        // And it decodes to exactly records_written records.
        spe_decode_opts o{};
        o.max_size = 6;
        spe_decoder d;
        spe_decoder_init(&d, dump.data(), dump.size(), &o);
        spe_decoded rec;
        uint64_t n = 0;
        int r;
        while ((r = spe_decoder_next(&d, &rec)) == SPE_DEC_RECORD) {
            assert_int_equal(rec.size, produced[p][n].size());
            n++;
        }
        assert_int_equal(r, SPE_DEC_EOF);
        assert_int_equal(n, st.records_written);
        // CTI input trigger 2 (seed 001 §2.7): asserted once for each record written out.
        assert_int_equal(plat->spu(p).cti_triggers(), st.records_written);
    }
}

void test_buffer_full_interrupts_serviced(void **)
{
    for (unsigned p = 0; p < 2; p++) {
        spu_stats st;
        spu_get_stats(plat->spu(p).unit(), &st);
        const SpeAgent::Stats &as = plat->agent(p).stats();
        assert_true(st.buffer_full_events >= 3);
        assert_int_equal(as.buffer_full, st.buffer_full_events);
        assert_int_equal(as.faults + as.ext_aborts, 0);
        // Every management event raised PMBIRQ (a PPI, INTID 21) once and was serviced.
        assert_int_equal(plat->irqc().assertions(p, PPI_PMBIRQ_DEFAULT), st.management_events);
        assert_false(plat->irqc().level(p, PPI_PMBIRQ_DEFAULT));
        for (const auto &e : plat->agent(p).events())
            assert_int_equal(e.pmbsr, (1u << 17) | 1u); // S, EC = 0, BSC = buffer filled
    }
}

void test_translation_and_hardware_updates_used(void **)
{
    // The buffer pages start writable-clean with AF clear: the first write to each page has the
    // hardware set AF and make it dirty; the later ones hit the TLB or use DMI.
    const Smmu::Stats &s = plat->smmu().stats();
    uint64_t pages = 2 * plat->scenario().buffer_bytes / 4096;
    assert_int_equal(s.hw_updates, pages); // one descriptor write per stage 1 page sets AF and clears AP[2]
    assert_true(s.dmi_grants >= pages);
    for (unsigned p = 0; p < 2; p++)
        assert_true(plat->spu(p).stats().dmi_writes > plat->spu(p).stats().tlm_writes);
    // The bytes are at the stage 2 output address: the last copy-out is [base, PMBPTR_EL1).
    const std::vector<uint8_t> &dump = plat->spe_dump(1);
    uint64_t ptr = 0;
    spu_reg_peek(plat->spu(1).unit(), SPU_PMBPTR_EL1, &ptr);
    uint64_t n = ptr - plat->buffer_va(1);
    assert_true(n > 0 && n <= dump.size());
    assert_memory_equal(plat->memory().host_ptr(plat->buffer_pa(1) - Platform::DRAM_BASE), dump.data() + dump.size() - n, n);
}

void test_records_carry_physical_addresses(void **)
{
    // The boot code wrote PMSCR_EL2 = {PCT = 1, PA = 1} at EL2 (as Linux's nVHE init) and the
    // driver PMSCR_EL1.PA = 1: with EL2 enabled CollectPhysicalAddress() needs both (seed 001
    // 3.3.1), so every record with a data virtual address also has its physical address.
    for (unsigned p = 0; p < 2; p++) {
        uint64_t v = 0;
        assert_int_equal(spu_reg_peek(plat->spu(p).unit(), SPU_PMSCR_EL2, &v), ARMPROF_OK);
        assert_int_equal(v, (1u << 6) | (1u << 4));
        const std::vector<uint8_t> &dump = plat->spe_dump(p);
        spe_decode_opts o{};
        o.max_size = 6;
        spe_decoder d;
        spe_decoder_init(&d, dump.data(), dump.size(), &o);
        spe_decoded rec;
        uint64_t with_va = 0;
        while (spe_decoder_next(&d, &rec) == SPE_DEC_RECORD) {
            if (!(rec.rec.present & SPE_R_DATA_VA))
                continue;
            with_va++;
            assert_true(rec.rec.present & SPE_R_DATA_PA);
            assert_true(rec.rec.data_pa_ns); // Non-secure EL1 regime
        }
        assert_true(with_va > 50);
    }
}

} // namespace

int sc_main(int, char **)
{
    Scenario sc;
    sc.pes = 2;
    sc.ops = 2000000;
    sc.buffer_bytes = 16 * 1024;
    sc.stage2 = true;
    sc.hw_flag_update = true;
    Platform p(sc);
    plat = &p;
    for (unsigned i = 0; i < 2; i++)
        spu_set_record_hook(p.spu(i).unit(), on_record, &produced[i]);
    p.run();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dumps_are_the_written_records),
        cmocka_unit_test(test_buffer_full_interrupts_serviced),
        cmocka_unit_test(test_translation_and_hardware_updates_used),
        cmocka_unit_test(test_records_carry_physical_addresses),
    };
    return cmocka_run_group_tests_name("platform_spe_e2e", tests, nullptr, nullptr);
}
