/* SPDX-License-Identifier: Apache-2.0 */
/* trbu_fake.h: a fake flat memory with a one-shot fault injector and output recorders for TRBU tests. */
#ifndef ARMPROF_TESTS_TRBU_FAKE_H
#define ARMPROF_TESTS_TRBU_FAKE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "armprof/trbu.h"

#define FAKE_MEM_BASE 0x10000ull
#define FAKE_MEM_SIZE 0x10000ull

typedef struct fake {
    uint8_t mem[FAKE_MEM_SIZE];
    /* one-shot injection: the first write covering inj_addr answers `inj` */
    bool inject;
    uint64_t inj_addr;
    armprof_mem_result inj;
    /* recorders */
    unsigned writes;
    bool unaligned_write;      /* a write not aligned to / not a multiple of `align_unit` */
    uint32_t align_unit;
    bool irq;
    unsigned irq_edges;
    uint64_t ev_wrap, ev_trig;
    unsigned serrors;
    unsigned flush_calls;
    armprof_regime last_regime;
} fake;

static inline armprof_mem_result fake_write(void *user, uint64_t addr, const uint8_t *data,
                                            uint32_t len, const armprof_regime *g)
{
    fake *f = user;
    armprof_mem_result r = { .status = ARMPROF_MEM_OK, .written = len };
    f->writes++;
    f->last_regime = *g;
    if (f->align_unit && ((addr % f->align_unit) || (len % f->align_unit)))
        f->unaligned_write = true;
    uint32_t n = len;
    if (f->inject && f->inj_addr >= addr && f->inj_addr < addr + len) {
        f->inject = false;
        r = f->inj;
        r.written = (uint32_t)(f->inj_addr - addr);
        n = r.written;
        if (r.status == ARMPROF_MEM_EXT_ABORT && r.async)
            n = len; /* an asynchronous abort: the data went somewhere */
    }
    if (addr < FAKE_MEM_BASE || addr + n > FAKE_MEM_BASE + FAKE_MEM_SIZE) {
        armprof_mem_result t = { .status = ARMPROF_MEM_FAULT, .ec = ARMPROF_EC_S1_ABORT,
                                 .fsc = ARMPROF_FSC_TRANSLATION | 3, .written = 0 };
        return t;
    }
    memcpy(f->mem + (addr - FAKE_MEM_BASE), data, n);
    return r;
}
static inline void fake_irq(void *user, bool level)
{
    fake *f = user;
    if (level && !f->irq)
        f->irq_edges++;
    f->irq = level;
}
static inline void fake_event(void *user, uint16_t ev, uint64_t n)
{
    fake *f = user;
    if (ev == ARMPROF_EV_TRB_WRAP)
        f->ev_wrap += n;
    if (ev == ARMPROF_EV_TRB_TRIG)
        f->ev_trig += n;
}
static inline void fake_serror(void *user)
{
    ((fake *)user)->serrors++;
}
static inline armprof_host_ops fake_ops(fake *f)
{
    armprof_host_ops o = { .mem_write = fake_write, .irq = fake_irq, .event = fake_event,
                           .serror = fake_serror, .user = f };
    return o;
}
static inline uint8_t *fake_at(fake *f, uint64_t addr)
{
    return f->mem + (addr - FAKE_MEM_BASE);
}
static inline void fake_inject(fake *f, uint64_t addr, armprof_mem_status st, uint8_t ec,
                               uint8_t fsc, bool async, uint32_t mss2)
{
    f->inject = true;
    f->inj_addr = addr;
    memset(&f->inj, 0, sizeof(f->inj));
    f->inj.status = st;
    f->inj.ec = ec;
    f->inj.fsc = fsc;
    f->inj.async = async;
    f->inj.mss2 = mss2;
}

#endif
