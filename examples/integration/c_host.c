/* SPDX-License-Identifier: Apache-2.0 */
/* c_host.c: the SPU from a C host that is not SystemC (docs/integration.md, section 3); built and run as a test. */
#include <stdio.h>
#include <string.h>

#include "armprof/spu.h"
#include "armprof/sysreg.h"

#define BUF_VA 0x10000000ull
#define BUF_SIZE 0x4000u

/* The host's memory port: a flat buffer at BUF_VA; anything else is a stage 1 translation fault. */
static uint8_t buffer[BUF_SIZE];
static armprof_mem_result mem_write(void *user, uint64_t addr, const uint8_t *data, uint32_t len,
                                    const armprof_regime *rg)
{
    (void)user; (void)rg;
    armprof_mem_result r = { .status = ARMPROF_MEM_OK, .written = len };
    if (addr < BUF_VA || addr + len > BUF_VA + BUF_SIZE) {
        r.status = ARMPROF_MEM_FAULT;
        r.ec = ARMPROF_EC_S1_ABORT;
        r.fsc = ARMPROF_FSC_TRANSLATION | 3;
        r.written = 0;
        return r;
    }
    memcpy(buffer + (addr - BUF_VA), data, len);
    return r;
}

static int irq_level;
static void irq(void *user, bool level) { (void)user; irq_level = level; }

int main(void)
{
    /* The library it runs with is the one it was compiled for. */
    if (strcmp(armprof_version(), ARMPROF_VERSION_STRING) != 0) {
        fprintf(stderr, "libarmprof %s, headers %s\n", armprof_version(), ARMPROF_VERSION_STRING);
        return 1;
    }
    spu_config cfg;
    spu_config_default(&cfg);
    armprof_host_ops ops = { .mem_write = mem_write, .irq = irq };
    spu_t *spu;
    if (spu_open(&cfg, &ops, &spu) != ARMPROF_OK)
        return 1;
    armprof_pe_ctx ctx;
    armprof_pe_ctx_default(&ctx); /* Non-secure EL1, EL1 owns the buffer */
    spu_set_pe_context(spu, &ctx);
    /* Program it as a driver would: interval 256, buffer, then enable sampling at EL1 and EL0. */
    spu_reg_write(spu, SPU_PMSIRR_EL1, 256);
    spu_reg_write(spu, SPU_PMSICR_EL1, 256);
    spu_reg_write(spu, SPU_PMBPTR_EL1, BUF_VA);
    spu_reg_write(spu, SPU_PMBLIMITR_EL1, (BUF_VA + BUF_SIZE) | PMBLIMITR_EL1_E);
    spu_reg_write(spu, SPU_PMSCR_EL1, PMSCR_EL1_E1SPE | PMSCR_EL1_E0SPE);
    /* The CPU model retires loads, one per cycle; unsampled runs are reported in O(1). */
    spu_op op = { .pc = 0x400000, .op_class = SPE_CLASS_LDST, .flags = SPU_OP_HAS_VA, .total_lat = 20,
                  .data_va = 0x800000 };
    for (int i = 0; i < 100000 && !irq_level;) {
        uint64_t k = spu_ops_until_sample(spu);
        if (k) {
            uint64_t n = spu_skip(spu, k);
            spu_advance(spu, n);
            i += (int)n;
        } else {
            spu_retire(spu, &op);
            spu_advance(spu, 1);
            i++;
        }
    }
    spu_psb_csync(spu);
    uint64_t ptr = 0;
    spu_reg_read(spu, SPU_PMBPTR_EL1, &ptr);
    spu_stats st;
    spu_get_stats(spu, &st);
    printf("records %llu, %llu bytes at 0x%llx..0x%llx, PMBIRQ %d\n", (unsigned long long)st.records_written,
           (unsigned long long)st.bytes_written, (unsigned long long)BUF_VA, (unsigned long long)ptr, irq_level);
    spu_close(spu);
    /* The example checks itself: records were written and the pointer moved by their size. */
    return (st.records_written > 0 && ptr - BUF_VA == st.bytes_written) ? 0 : 1;
}
