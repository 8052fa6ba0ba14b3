/* SPDX-License-Identifier: Apache-2.0 */
/* ffi_glue.h: the host of armprof.Spu in the Python package's extension module: a flat memory the unit writes its buffer into, and the interrupt level. */
#ifndef ARMPROF_PY_FFI_GLUE_H
#define ARMPROF_PY_FFI_GLUE_H

#include <stdlib.h>
#include <string.h>

#include "armprof/spu.h"

/* What armprof.Spu gives the unit: memory at [base, base + size); a write outside it is a stage 1
 * level 3 translation fault (as armprof-run's flat memory), answered after `latency` cycles. */
typedef struct apy_host {
    uint8_t *mem;
    uint64_t base, size;
    uint32_t latency;
    int irq;                    /* PMBIRQ now */
    uint64_t irq_rises;
    uint64_t writes, faults;
    armprof_host_ops ops;
} apy_host;

static armprof_mem_result apy_mem_write(void *user, uint64_t addr, const uint8_t *data, uint32_t len,
                                        const armprof_regime *rg)
{
    (void)rg;
    apy_host *h = (apy_host *)user;
    armprof_mem_result r;
    memset(&r, 0, sizeof(r));
    h->writes++;
    if (addr < h->base || addr - h->base > h->size || len > h->size - (addr - h->base)) {
        h->faults++;
        r.status = ARMPROF_MEM_FAULT;
        r.ec = ARMPROF_EC_S1_ABORT;
        r.fsc = ARMPROF_FSC_TRANSLATION | 3;
        return r;
    }
    memcpy(h->mem + (addr - h->base), data, len);
    r.status = ARMPROF_MEM_OK;
    r.written = len;
    r.latency = h->latency;
    return r;
}

static void apy_irq(void *user, bool level)
{
    apy_host *h = (apy_host *)user;
    if (level && !h->irq)
        h->irq_rises++;
    h->irq = level;
}

static apy_host *apy_host_new(uint64_t base, uint64_t size)
{
    apy_host *h = (apy_host *)calloc(1, sizeof(*h));
    if (!h)
        return NULL;
    h->mem = (uint8_t *)calloc(1, size ? size : 1);
    if (!h->mem) {
        free(h);
        return NULL;
    }
    h->base = base;
    h->size = size;
    h->ops.mem_write = apy_mem_write;
    h->ops.irq = apy_irq;
    h->ops.user = h;
    return h;
}

static void apy_host_free(apy_host *h)
{
    if (h) {
        free(h->mem);
        free(h);
    }
}

static armprof_err apy_spu_open(const spu_config *cfg, apy_host *h, spu_t **out)
{
    return spu_open(cfg, &h->ops, out);
}

#endif
