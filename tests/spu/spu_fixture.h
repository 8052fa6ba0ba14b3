/* SPDX-License-Identifier: Apache-2.0 */
/* spu_fixture.h: a unit under test with a fake memory, a fault injector and recorded outputs. */
#ifndef ARMPROF_TESTS_SPU_FIXTURE_H
#define ARMPROF_TESTS_SPU_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "armprof/spu.h"

#define FX_MEM_BASE 0x0000000040000000ull
#define FX_MEM_SIZE (256u * 1024u)

typedef struct fx_fault {
    bool armed;
    uint64_t addr;               /* first faulting byte (writes covering it fail there) */
    armprof_mem_status status;
    uint8_t ec, fsc;
    bool async;
    int count;                   /* how many more writes may fault (-1: forever) */
} fx_fault;

typedef struct fx {
    spu_t *spu;
    spu_config cfg;
    armprof_pe_ctx ctx;
    uint8_t *mem;
    uint64_t max_written;        /* highest address + 1 written */
    uint64_t writes, bytes;
    fx_fault fault;
    bool irq;
    int irq_edges;
    int serrors, freezes, warnings;
    uint64_t events[4];          /* SAMPLE_POP, FEED, FILTRATE, COLLISION from the callback */
    armprof_regime last_regime;
    uint64_t cti[8];             /* CTI input trigger assertions by trigger number (seed 001 §2.7) */
    uint64_t cti_at;             /* spu_now() at the latest one */
} fx;

static inline armprof_mem_result fx_write(void *user, uint64_t addr, const uint8_t *data, uint32_t len,
                                   const armprof_regime *rg)
{
    fx *f = user;
    armprof_mem_result r = { .status = ARMPROF_MEM_OK };
    f->last_regime = *rg;
    f->writes++;
    if (f->fault.armed && f->fault.count != 0 && f->fault.addr >= addr && f->fault.addr < addr + len) {
        uint32_t ok = (uint32_t)(f->fault.addr - addr);
        if (addr >= FX_MEM_BASE && addr + ok <= FX_MEM_BASE + FX_MEM_SIZE)
            memcpy(f->mem + (addr - FX_MEM_BASE), data, ok);
        if (f->fault.count > 0)
            f->fault.count--;
        r.status = f->fault.status;
        r.ec = f->fault.ec;
        r.fsc = f->fault.fsc;
        r.async = f->fault.async;
        r.written = ok;
        return r;
    }
    assert_true(addr >= FX_MEM_BASE && addr + len <= FX_MEM_BASE + FX_MEM_SIZE);
    memcpy(f->mem + (addr - FX_MEM_BASE), data, len);
    if (addr + len > f->max_written)
        f->max_written = addr + len;
    f->bytes += len;
    return r;
}

static inline void fx_irq(void *user, bool level)
{
    fx *f = user;
    if (level != f->irq)
        f->irq_edges++;
    f->irq = level;
}

static inline void fx_event(void *user, uint16_t ev, uint64_t n)
{
    fx *f = user;
    if (ev >= ARMPROF_EV_SAMPLE_POP && ev <= ARMPROF_EV_SAMPLE_COLLISION)
        f->events[ev - ARMPROF_EV_SAMPLE_POP] += n;
}

static inline void fx_cti(void *user, uint8_t trigger)
{
    fx *f = user;
    assert_true(trigger < 8);
    f->cti[trigger]++;
    f->cti_at = spu_now(f->spu);
}

static inline void fx_serror(void *user) { ((fx *)user)->serrors++; }
static inline void fx_freeze(void *user) { ((fx *)user)->freezes++; }
static inline void fx_log(void *user, armprof_log_level lvl, const char *msg)
{
    (void)msg;
    if (lvl == ARMPROF_LOG_WARN)
        ((fx *)user)->warnings++;
}

/* Builds a unit from f->cfg (caller may set it first; zeroed cfg means the default). */
static inline int fx_open(fx *f)
{
    f->mem = calloc(1, FX_MEM_SIZE);
    if (f->cfg.max_size == 0)
        spu_config_default(&f->cfg);
    armprof_host_ops ops = { .mem_write = fx_write, .irq = fx_irq, .event = fx_event,
                             .serror = fx_serror, .pmu_freeze = fx_freeze, .log = fx_log, .user = f,
                             .cti_trigger = fx_cti };
    if (spu_open(&f->cfg, &ops, &f->spu) != ARMPROF_OK)
        return -1;
    armprof_pe_ctx_default(&f->ctx);
    spu_set_pe_context(f->spu, &f->ctx);
    return 0;
}

static fx *fx_new_cfg(const spu_config *cfg)
{
    fx *f = calloc(1, sizeof(*f));
    if (cfg)
        f->cfg = *cfg;
    if (fx_open(f) != 0) {
        free(f->mem);
        free(f);
        return NULL;
    }
    return f;
}

static inline void fx_free(fx *f)
{
    if (!f)
        return;
    spu_close(f->spu);
    free(f->mem);
    free(f);
}

static inline int fx_setup(void **state)
{
    *state = fx_new_cfg(NULL);
    return *state ? 0 : -1;
}

static inline int fx_teardown(void **state)
{
    fx_free(*state);
    return 0;
}

static inline void fx_ctx(fx *f) { assert_int_equal(spu_set_pe_context(f->spu, &f->ctx), ARMPROF_OK); }

/* Register access from EL2 (owning everything by default) for test set-up. */
static inline uint64_t fx_rd(fx *f, uint32_t enc)
{
    uint64_t v = 0;
    assert_int_equal(spu_reg_peek(f->spu, enc, &v), ARMPROF_OK);
    return v;
}

static inline void fx_wr(fx *f, uint32_t enc, uint64_t v)
{
    assert_int_equal(spu_reg_write(f->spu, enc, v), ARMPROF_OK);
}

/* Programs the unit as arm_spe_pmu would at Non-secure EL1: buffer [base, base+size), interval. */
static inline void fx_start(fx *f, uint64_t base, uint64_t size, uint32_t interval, bool rnd, uint64_t pmscr)
{
    fx_wr(f, SPU_PMSIRR_EL1, ((uint64_t)(interval >> 8) << 8) | (rnd ? 1 : 0));
    fx_wr(f, SPU_PMSICR_EL1, 0);
    fx_wr(f, SPU_PMBPTR_EL1, base);
    fx_wr(f, SPU_PMBSR_EL1, 0);
    fx_wr(f, SPU_PMBLIMITR_EL1, (base + size) | 1);
    fx_wr(f, SPU_PMSCR_EL1, pmscr | 3);
}

/* An "other" operation with fixed latencies. */
static inline spu_op fx_op_other(uint64_t pc)
{
    spu_op op;
    memset(&op, 0, sizeof(op));
    op.pc = pc;
    op.op_class = SPE_CLASS_OTHER;
    op.total_lat = 0;
    op.issue_lat = 0;
    return op;
}

/* Retires one operation that is the sample point (skipping to it first), then lets time run
 * until the operation has completed and its record has left the FIFO. */
static inline spu_op_result fx_sample(fx *f, const spu_op *op)
{
    uint64_t k = spu_ops_until_sample(f->spu);
    assert_int_not_equal(k, UINT64_MAX);
    assert_int_equal(spu_skip(f->spu, k), k);
    spu_op_result r = spu_retire(f->spu, op);
    spu_advance(f->spu, (uint64_t)op->total_lat + 1);
    spu_psb_csync(f->spu);
    return r;
}

#endif
